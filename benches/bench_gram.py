"""Energy Gram matrices: ``kgroups_rs.energy_gram`` against the numpy line, timed in one run.

The numpy line is the issue's ``0.5 * (r0[:, None] + r0[None, :] - cdist(X, X))`` with
``r0 = ||x||`` (base point 0), and the same semimetric transform applied to both ``r0`` and the
``cdist`` output:

- ``power`` (alpha = 1): ``rho = d``;
- ``exponential``: ``rho = 2 - 2 exp(-d / (2 sigma))``;
- ``gaussian``: ``rho = 2 - 2 exp(-d2 / (2 sigma^2))`` with ``d2 = cdist(X, X, "sqeuclidean")``
  (squaring the Euclidean output would only add work);

with ``sigma = kgroups_rs.bandwidth(X)`` passed explicitly to both sides. scipy's ``cdist``
computes in float64 only, so the numpy float32 line is the float64 line followed by
``.astype(np.float32)`` (what a numpy user gets; its peak memory is that of the float64 line
plus the float32 copy). ``energy_gram(..., dtype=np.float32)`` computes in float64 and rounds
once into a float32 output.

Data: ``X ~ N(0, I_D)``, n points. Timing: for every case the two sides alternate (the order
flips every repetition), each call allocating a fresh output, so both pay the operating
system's first touch of the output pages (for n = 10 000 in float64, 800 MB, which costs more
than the arithmetic); the table shows medians of ``--repeat`` calls. The first call of each
side is also checked against a row-chunked direct evaluation.

Peak memory: each side of each case also runs once in a fresh subprocess that builds ``X``,
records its resident size, resets the peak counter (``/proc/self/clear_refs``), runs the one
call and reports the peak resident size minus the size before ("extra"), next to the size of
the output. Where the peak counter cannot be reset, "extra" is ``ru_maxrss`` after the call
minus ``ru_maxrss`` before it. ``ru_maxrss`` of the whole subprocess is reported too.

End-to-end (``--e2e-n``, default 10 000; the paper's eq. 56 data: two Gaussians in D = 10,
mu_2 = 0.7 * 1, n/2 points each): X -> ``energy_gram`` -> ``kernel_kgroups(G, 2)`` (Hartigan,
one k-means++ start) against tslearn ``KernelKMeans(kernel="precomputed", n_init=1)`` on the
numpy Gram matrix of the same X (Gram time included) and against scikit-learn
``KMeans(n_clusters=2, n_init=1)`` on X; time and accuracy (eq. 55) side by side.

Usage::

    python benches/bench_gram.py [--sizes 2000 10000 20000] [--dims 10 100]
        [--semimetrics power exponential gaussian] [--dtypes float64 float32]
        [--other-semimetric-sizes 10000] [--repeat 5] [--quick] [--no-memory]
        [--e2e-n 10000] [--no-e2e] [--no-tslearn] [--n-threads N] [--seed 0]
        [--json bench_gram.json]

``--quick``: n in {1000, 2000}, D = 10, 3 repetitions, end-to-end at n = 2000.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import warnings
from typing import Any, Callable, Optional

import kgroups_rs
import numpy as np
from kgroups_rs.accuracy import clustering_accuracy
from scipy.spatial.distance import cdist

SIDES = ("kgroups", "numpy")


# ------------------------------------------------------------------------------ the two sides


def make_data(n: int, dim: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, dim))


def rho_numpy(semimetric: str, d: np.ndarray, sigma: float) -> np.ndarray:
    """The semimetric from Euclidean distances (squared ones for gaussian), numpy style."""
    if semimetric == "power":
        return d
    if semimetric == "exponential":
        return 2 - 2 * np.exp(-d / (2 * sigma))
    return 2 - 2 * np.exp(-d / (2 * sigma**2))


def gram_numpy(X: np.ndarray, semimetric: str, sigma: float, dtype: str) -> np.ndarray:
    """The issue's numpy line, with the semimetric's transform."""
    if semimetric == "gaussian":
        r0 = rho_numpy(semimetric, np.einsum("ij,ij->i", X, X), sigma)
        G = 0.5 * (r0[:, None] + r0[None, :] - rho_numpy(semimetric, cdist(X, X, "sqeuclidean"), sigma))
    else:
        r0 = rho_numpy(semimetric, np.linalg.norm(X, axis=1), sigma)
        G = 0.5 * (r0[:, None] + r0[None, :] - rho_numpy(semimetric, cdist(X, X), sigma))
    return G if dtype == "float64" else G.astype(np.float32)


def gram_kgroups(
    X: np.ndarray, semimetric: str, sigma: float, dtype: str, n_threads: Optional[int]
) -> np.ndarray:
    kw: dict[str, Any] = {"alpha": 1.0} if semimetric == "power" else {"sigma": sigma}
    # base 0, the numpy line's kernel (checked against the direct formula below)
    return kgroups_rs.energy_gram(
        X, semimetric=semimetric, dtype=dtype, n_threads=n_threads, base="origin", **kw
    )


def run_side(
    side: str, X: np.ndarray, case: dict[str, Any], sigma: float, n_threads: Optional[int]
) -> np.ndarray:
    if side == "fill":  # the floor: first touch and one write of a fresh output, no arithmetic
        return np.full((X.shape[0], X.shape[0]), 0.5, dtype=case["dtype"])
    if side == "kgroups":
        return gram_kgroups(X, case["semimetric"], sigma, case["dtype"], n_threads)
    return gram_numpy(X, case["semimetric"], sigma, case["dtype"])


def check(G: np.ndarray, X: np.ndarray, semimetric: str, sigma: float) -> float:
    """Largest |G - direct| / (|r0_a| + |r0_b| + |R_ab|) over 256-row chunks at both ends."""
    n = X.shape[0]
    rows = np.r_[0 : min(256, n), max(0, n - 256) : n]
    if semimetric == "gaussian":
        r0 = rho_numpy(semimetric, np.einsum("ij,ij->i", X, X), sigma)
        R = rho_numpy(semimetric, cdist(X[rows], X, "sqeuclidean"), sigma)
    else:
        r0 = rho_numpy(semimetric, np.linalg.norm(X, axis=1), sigma)
        R = rho_numpy(semimetric, cdist(X[rows], X), sigma)
    want = 0.5 * (r0[rows, None] + r0[None, :] - R)
    scale = np.abs(r0[rows, None]) + np.abs(r0[None, :]) + np.abs(R)
    return float(np.max(np.abs(G[rows].astype(np.float64) - want) / scale))


# ------------------------------------------------------------------------------ memory child


def _status(field: str) -> int:
    """A ``/proc/self/status`` field (VmRSS, VmHWM) in bytes, or -1."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status("VmHWM") >= 0
    except OSError:
        return False


def _maxrss() -> int:
    """Peak RSS of this process in bytes (ru_maxrss is KiB on Linux, bytes on macOS)."""
    value = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(value if sys.platform == "darwin" else value * 1024)


def child(args: argparse.Namespace) -> None:
    """Run one side of one case once and print its memory as JSON (the last line)."""
    case = {"n": args.n, "dim": args.dim, "semimetric": args.semimetric, "dtype": args.dtype}
    X = make_data(args.n, args.dim, args.seed)
    run_side(args.child, X[:2], case, args.sigma, args.n_threads)  # load code paths, tiny
    before_rss, before_max = _status("VmRSS"), _maxrss()
    reset = _reset_peak()
    start = time.perf_counter()
    G = run_side(args.child, X, case, args.sigma, args.n_threads)
    seconds = time.perf_counter() - start
    after_max = _maxrss()
    extra = _status("VmHWM") - before_rss if reset else after_max - before_max
    print(
        json.dumps(
            {"extra": extra, "maxrss": after_max, "output": G.nbytes, "seconds": seconds, "reset": reset}
        )
    )


def measure_memory(case: dict[str, Any], side: str, sigma: float, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable, os.path.abspath(__file__), "--child", side, "--n", str(case["n"]),
        "--dim", str(case["dim"]), "--semimetric", case["semimetric"], "--dtype", case["dtype"],
        "--sigma", repr(sigma), "--seed", str(args.seed),
    ]  # fmt: skip
    if args.n_threads is not None:
        command += ["--n-threads", str(args.n_threads)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["?"]
        return {"error": tail[0]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ------------------------------------------------------------------------------------ timing


def time_case(case: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    X = make_data(case["n"], case["dim"], args.seed)
    sigma = kgroups_rs.bandwidth(X)
    timed = (*SIDES, "fill")
    times: dict[str, list[float]] = {side: [] for side in timed}
    errors: dict[str, float] = {}
    for rep in range(args.repeat):
        for side in timed if rep % 2 == 0 else timed[::-1]:
            start = time.perf_counter()
            G = run_side(side, X, case, sigma, args.n_threads)
            times[side].append(time.perf_counter() - start)
            if rep == 0 and side != "fill":
                errors[side] = check(G, X, case["semimetric"], sigma)
            del G
    row: dict[str, Any] = dict(case)
    row.update({f"{side}_s": statistics.median(times[side]) for side in timed})
    row.update({f"{side}_min": min(times[side]) for side in timed})
    row.update({f"{side}_err": errors[side] for side in SIDES})
    row["output"] = case["n"] ** 2 * np.dtype(case["dtype"]).itemsize
    row["sigma"] = sigma
    if not args.no_memory:
        for side in SIDES:
            row[f"{side}_mem"] = measure_memory(case, side, sigma, args)
    return row


def mb(x: Optional[float]) -> str:
    return "?" if x is None else f"{x / 2**20:,.0f}"


def mem_cells(row: dict[str, Any], side: str) -> str:
    mem = row.get(f"{side}_mem")
    if mem is None:
        return f"{'-':>8} {'-':>5}"
    if "error" in mem:
        return f"{'error':>8} {'':>5}"
    return f"{mb(mem['extra']):>8} {mem['extra'] / row['output']:5.2f}"


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'n':>6} {'D':>4} {'semimetric':>11} {'dtype':>7} {'out MB':>7} | {'kgroups s':>9} "
        f"{'numpy s':>9} {'numpy/kg':>8} {'fill s':>7} | {'kg MB':>8} {'/out':>5} {'np MB':>8} {'/out':>5} | "
        f"{'kg err':>7} {'np err':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['n']:>6} {r['dim']:>4} {r['semimetric']:>11} {r['dtype']:>7} {mb(r['output']):>7} | "
            f"{r['kgroups_s']:9.3f} {r['numpy_s']:9.3f} {r['numpy_s'] / r['kgroups_s']:7.1f}x "
            f"{r['fill_s']:7.3f} | "
            f"{mem_cells(r, 'kgroups')} {mem_cells(r, 'numpy')} | "
            f"{r['kgroups_err']:7.0e} {r['numpy_err']:7.0e}",
            flush=True,
        )
    print(
        "\nkgroups s / numpy s: medians of the interleaved calls (each allocating a fresh output); "
        "numpy/kg: their ratio.\n"
        "fill s: np.full((n, n), 0.5) into a fresh output (one thread): first touch + one write, a floor.\n"
        "kg MB / np MB: peak resident memory of one call in a fresh process "
        "beyond what it held before (X etc.); /out: that over the output size.\n"
        "err: max |G - direct| / (|r0_a| + |r0_b| + |rho_ab|) on 512 rows (float32: its rounding)."
    )


# ------------------------------------------------------------------------------ end to end


def eq56(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = np.repeat([0, 1], [n - n // 2, n // 2])
    return rng.normal(size=(n, 10)) + 0.7 * truth[:, None], truth


def end_to_end(args: argparse.Namespace) -> list[dict[str, Any]]:
    n = args.e2e_n
    X, truth = eq56(n, args.seed)
    # tslearn warns that h5py is missing and that 2-D input is read as 1-D time series
    # (irrelevant for kernel="precomputed")
    warnings.filterwarnings("ignore", message=".*h5py.*")
    warnings.filterwarnings("ignore", message=".*2-Dimensional data passed.*")
    try:
        from tslearn.clustering import KernelKMeans
    except ImportError:
        KernelKMeans = None
        print("tslearn not installed: its rows are skipped (pip install tslearn)")
    try:
        from sklearn.cluster import KMeans
    except ImportError:
        KMeans = None
        print("scikit-learn not installed: its row is skipped (pip install scikit-learn)")

    def kgroups_run(dtype: str) -> Callable[[], tuple[float, float, np.ndarray]]:
        def run() -> tuple[float, float, np.ndarray]:
            start = time.perf_counter()
            G = kgroups_rs.energy_gram(X, dtype=dtype, n_threads=args.n_threads)
            mid = time.perf_counter()
            labels = kgroups_rs.kernel_kgroups(G, 2, random_state=args.seed, n_threads=args.n_threads).labels
            return mid - start, time.perf_counter() - mid, labels

        return run

    def tslearn_run() -> tuple[float, float, np.ndarray]:
        start = time.perf_counter()
        G = gram_numpy(X, "power", 1.0, "float64")
        mid = time.perf_counter()
        model = KernelKMeans(n_clusters=2, kernel="precomputed", n_init=1, random_state=args.seed)
        labels = model.fit_predict(G)
        return mid - start, time.perf_counter() - mid, np.asarray(labels)

    def kmeans_run() -> tuple[float, float, np.ndarray]:
        start = time.perf_counter()
        labels = KMeans(n_clusters=2, n_init=1, random_state=args.seed).fit_predict(X)
        return 0.0, time.perf_counter() - start, np.asarray(labels)

    methods: dict[str, Callable[[], tuple[float, float, np.ndarray]]] = {
        "energy_gram -> kernel_kgroups (f64)": kgroups_run("float64"),
        "energy_gram -> kernel_kgroups (f32)": kgroups_run("float32"),
    }
    if KernelKMeans is not None and not args.no_tslearn:
        methods["numpy Gram -> tslearn KernelKMeans"] = tslearn_run
    if KMeans is not None:
        methods["sklearn KMeans(n_init=1) on X"] = kmeans_run
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in methods}
    for rep in range(args.e2e_repeat):
        for name in list(methods) if rep % 2 == 0 else list(methods)[::-1]:
            gram_s, cluster_s, labels = methods[name]()
            results[name].append((gram_s, cluster_s, clustering_accuracy(truth, labels)))
    records: list[dict[str, Any]] = []
    print(f"\nEnd to end: eq. 56 data (two Gaussians, D = 10, mu_2 = 0.7 * 1), n = {n}, k = 2, one start")
    header = f"{'method':<38} | {'Gram s':>7} {'cluster s':>9} {'total s':>8} | {'accuracy':>8}"
    print(header)
    print("-" * len(header))
    for name, runs in results.items():
        gram_s = statistics.median(r[0] for r in runs)
        cluster_s = statistics.median(r[1] for r in runs)
        total_s = statistics.median(r[0] + r[1] for r in runs)
        accuracy = runs[0][2]
        same = "" if all(r[2] == accuracy for r in runs) else " (varies)"
        gram_cell = "-" if gram_s == 0.0 else f"{gram_s:7.3f}"
        print(
            f"{name:<38} | {gram_cell:>7} {cluster_s:9.3f} {total_s:8.3f} | {accuracy:8.4f}{same}", flush=True
        )
        records.append(
            {"method": name, "n": n, "gram_s": gram_s, "cluster_s": cluster_s, "total_s": total_s,
             "accuracy": accuracy}
        )  # fmt: skip
    return records


# ------------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000, 20000])
    parser.add_argument("--dims", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--semimetrics", nargs="+", default=["power", "exponential", "gaussian"])
    parser.add_argument("--dtypes", nargs="+", default=["float64", "float32"])
    parser.add_argument(
        "--other-semimetric-sizes", type=int, nargs="*", default=None,
        help="run exponential/gaussian only at these n (default: every size)",
    )  # fmt: skip
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="n in {1000, 2000}, D = 10, 3 repetitions")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory subprocesses")
    parser.add_argument("--e2e-n", type=int, default=10000)
    parser.add_argument("--e2e-repeat", type=int, default=3)
    parser.add_argument("--no-e2e", action="store_true")
    parser.add_argument("--no-tslearn", action="store_true")
    parser.add_argument("--n-threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default="bench_gram.json", help="write the tables here as JSON")
    # internal: one measurement in a fresh process
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--dim", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--semimetric", help=argparse.SUPPRESS)
    parser.add_argument("--dtype", help=argparse.SUPPRESS)
    parser.add_argument("--sigma", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.quick:
        args.sizes, args.dims, args.repeat = [1000, 2000], [10], 3
        args.e2e_n, args.e2e_repeat = 2000, 2
    for name in args.semimetrics:
        if name not in ("power", "exponential", "gaussian"):
            parser.error(f"unknown semimetric {name!r}")

    print(
        f"kgroups_rs {kgroups_rs.__version__}, numpy {np.__version__}, python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, n_threads = {args.n_threads or 'all'}; load average at start: "
        f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    print(f"{args.repeat} interleaved repetitions per case, medians\n")
    cases = [
        {"n": n, "dim": dim, "semimetric": semimetric, "dtype": dtype}
        for n in args.sizes
        for dim in args.dims
        for semimetric in args.semimetrics
        for dtype in args.dtypes
        if semimetric == "power" or args.other_semimetric_sizes is None or n in args.other_semimetric_sizes
    ]
    rows = []
    for case in cases:
        rows.append(time_case(case, args))
        print(
            f"  done n={case['n']} D={case['dim']} {case['semimetric']} {case['dtype']}: "
            f"kgroups {rows[-1]['kgroups_s']:.3f} s, numpy {rows[-1]['numpy_s']:.3f} s",
            file=sys.stderr,
            flush=True,
        )
    print_table(rows)
    e2e = [] if args.no_e2e else end_to_end(args)
    print(f"\nload average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump(
            {"machine": platform.platform(), "cpus": os.cpu_count(), "load_at_end": os.getloadavg(),
             "repeat": args.repeat, "n_threads": args.n_threads, "gram": rows, "end_to_end": e2e},
            out, indent=2, default=str,
        )  # fmt: skip
    print(f"tables written to {args.json}")


if __name__ == "__main__":
    main()
