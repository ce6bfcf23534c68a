"""Graph partitioning of a stochastic block model on the sparse (CSR) path, timed.

Graph: a stochastic block model with ``k`` equal blocks (default 10) and average degree about
``--degree`` (default 20), of which a fraction ``--within`` (default 0.8) lies inside the
node's own block. Equivalently ``p_in = within * degree / (n/k - 1)`` and
``p_out = (1 - within) * degree / (n - n/k)``: at n = 1 000 000 that is p_in = 1.6e-4 and
p_out = 4.4e-6, i.e. 16 of a node's 20 edges go inside its block and 4 to the 9 others. This
is far above the detection threshold ((c_in - c_out)^2 = 24 000 against
k (c_in + (k - 1) c_out) = 2 000, c = n p) so the planted partition is recoverable, but not
trivially: a random partition sees 90% of each node's edges leave its cluster, and from it
Hartigan needs 10+ sweeps. Nodes are numbered in random order (the blocks are not
contiguous), so row accesses are cache-unfriendly, as in a real graph without reordering.

The graph is generated with numpy by sampling edge endpoints (never an n x n matrix):
``degree * n / 2`` edges, ``within`` of them with both ends uniform in one uniformly chosen
block, the rest between two different blocks; self-loops are dropped, duplicate edges
collapse to weight 1, and the graph is symmetrised into a canonical CSR matrix
(int32 indices, float64 ones). Building it is timed separately and excluded.

With ``--graph knn`` the graph is instead the symmetrised 10-nearest-neighbour graph of n
points drawn from ``k`` Gaussian blobs in the plane (centres on a circle of radius 6, unit
spread), again numbered at random: a graph with geometric locality for a renumbering to
find, where the SBM (an expander) has none. The blobs overlap and ratio association cuts the
plane into balanced pieces, so the ARI against the blobs is near 0 whatever the setting:
compare the objectives (in the JSON).

``--reorder off on`` (the default) runs the ratio-association measurements below once per
setting of ``graph_partition(..., reorder=...)`` (``False``, ``True``, or ``auto``), side by
side in one run; the others use the default ("auto"). The renumbering time (breadth-first
order and the renumbered copy of the CSR arrays) is the difference of the
``sums+0-move sweep`` calls with and without it.

For every n, each measurement runs in a fresh subprocess that loads the CSR arrays, resets
its peak-RSS counter (``/proc/self/clear_refs``) and reports the peak RSS of the call minus
the RSS before it ("extra"), next to the CSR size:

- ``graph_partition(A, k)`` = ``kernel_kgroups(A, k, "random")``, ratio association,
  Hartigan from random labels (the default of ``graph_partition``), one start;
- ``graph_partition(A, k, init="k-means++")`` = ``kernel_kgroups(A, k)``: one feature-space
  k-means++ start, as the issue asks. On an adjacency (zero diagonal) ``d2(i, c) = -2 A_ic
  <= 0``, so k-means++ degenerates (SPEC, "Initialisation"): the table shows it;
- ``graph_partition(A, k, objective="normalized_cut")``: the same from random labels on
  ``G = D^-1 A D^-1`` with degree weights (building G is included);
- each of these again with ``random_state`` 1 .. ``--seeds`` - 1: the spread of the ARI of
  one start;
- the time of ONE sweep: the wall time of ``graph_partition(A, k, max_iter=1)`` (which
  includes the CSR validation, the initial labels and building the cluster sums), and the
  stages separately: CSR validation (timed by asking for k = n + 1, which fails right after
  the CSR check), validation + cluster sums + a sweep that moves nothing (started from the
  converged labels), and the per-sweep times of the full run from the progress callback;
- for n in ``--spectral-sizes``: scikit-learn ``SpectralClustering(n_clusters=k,
  affinity="precomputed", random_state=0)`` on the same matrix, with a timeout and a memory
  cap: its default eigensolver (ARPACK in shift-invert mode, which factorises the Laplacian;
  on a random graph the LU fill-in is enormous) and ``eigen_solver="lobpcg"`` (no
  factorisation), so that the peer is shown at its best as well as with its defaults.

ARI is ``sklearn.metrics.adjusted_rand_score`` against the planted blocks.

Usage::

    python benches/bench_sparse.py [--sizes 100000 1000000] [--spectral-sizes 20000 100000]
        [--k 10] [--degree 20] [--within 0.8] [--dtype float64] [--spectral-timeout 300]
        [--n-threads N] [--seed 0] [--graph sbm|knn] [--reorder off on auto]
        [--json bench_sparse.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np


def stochastic_block_model(
    n: int, k: int, degree: float, within: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, truth) of a symmetric SBM adjacency in canonical CSR (int32)."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    truth = rng.permutation(np.arange(n) % k).astype(np.int32)
    order = np.argsort(truth, kind="stable")
    starts = np.searchsorted(truth[order], np.arange(k + 1))

    def members(blocks: np.ndarray) -> np.ndarray:
        low, high = starts[blocks], starts[blocks + 1]
        return order[low + (rng.random(blocks.size) * (high - low)).astype(np.int64)]

    m = int(round(n * degree / 2))
    m_in = int(round(within * m))
    inside = rng.integers(0, k, m_in)
    first = rng.integers(0, k, m - m_in)
    second = (first + rng.integers(1, k, m - m_in)) % k
    rows = np.concatenate([members(inside), members(first)])
    cols = np.concatenate([members(inside), members(second)])
    keep = rows != cols
    rows, cols = rows[keep].astype(np.int32), cols[keep].astype(np.int32)
    both_rows = np.concatenate([rows, cols])
    both_cols = np.concatenate([cols, rows])
    del rows, cols, keep
    A = scipy.sparse.csr_array(
        (np.ones(both_rows.size), (both_rows, both_cols)), shape=(n, n)
    )
    A.sum_duplicates()
    indptr = A.indptr.astype(np.int32, copy=False)
    indices = A.indices.astype(np.int32, copy=False)
    return indptr, indices, truth


def knn_graph(n: int, k: int, seed: int, neighbours: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, truth) of the symmetrised kNN graph of k planar Gaussian blobs."""
    import scipy.sparse
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    truth = rng.permutation(np.arange(n) % k).astype(np.int32)
    angles = 2 * np.pi * np.arange(k) / k
    centres = 6.0 * np.column_stack([np.cos(angles), np.sin(angles)])
    X = centres[truth] + rng.normal(size=(n, 2))
    _, near = cKDTree(X).query(X, neighbours + 1, workers=-1)
    rows = np.repeat(np.arange(n, dtype=np.int32), neighbours)
    cols = near[:, 1:].ravel().astype(np.int32)
    A = scipy.sparse.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    A = scipy.sparse.csr_array(A + A.T)
    A.sum_duplicates()
    return A.indptr.astype(np.int32), A.indices.astype(np.int32), truth


# ----------------------------------------------------------------------------- worker


def _status(field: str) -> int:
    """A ``/proc/self/status`` field in bytes (VmRSS, VmHWM)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return -1


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _load(data_dir: Path, dtype: str) -> tuple[Any, np.ndarray]:
    import scipy.sparse

    indptr = np.load(data_dir / "indptr.npy")
    indices = np.load(data_dir / "indices.npy")
    truth = np.load(data_dir / "truth.npy")
    n = indptr.size - 1
    data = np.ones(indices.size, dtype=dtype)
    A = scipy.sparse.csr_array((data, indices, indptr), shape=(n, n), copy=False)
    assert np.shares_memory(A.indices, indices) and np.shares_memory(A.data, data)
    return A, truth


def _ari(truth: np.ndarray, labels: np.ndarray) -> float:
    from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(truth, labels))


def worker(
    task: str,
    data_dir: Path,
    k: int,
    dtype: str,
    n_threads: Optional[int],
    repeat: int,
    seeds: int,
) -> dict[str, Any]:
    A, truth = _load(data_dir, dtype)
    # "random@on": the ratio-association task with reorder=True ("off": False, "auto").
    task, _, setting = task.partition("@")
    reorder: Any = {"on": True, "off": False, "auto": "auto", "": "auto"}[setting]
    n = A.shape[0]
    out: dict[str, Any] = {}
    if task.startswith("spectral"):
        import warnings

        from sklearn.cluster import SpectralClustering

        warnings.simplefilter("ignore")
        solver = task.split(":")[1] if ":" in task else None
        model = SpectralClustering(
            n_clusters=k, affinity="precomputed", random_state=0, eigen_solver=solver
        )
        before = _status("VmRSS")
        peak_ok = _reset_peak()
        start = time.perf_counter()
        labels = model.fit(A).labels_
        out["time"] = time.perf_counter() - start
        out["extra_bytes"] = _status("VmHWM") - before if peak_ok else None
        out["ari"] = _ari(truth, labels)
        return out

    from kgroups_rs import _core
    from kgroups_rs.graph import graph_partition

    init = "k-means++" if task == "kmeanspp" else "random"
    objective = "normalized_cut" if task == "ncut" else "ratio_association"
    events: list[tuple[float, int, int]] = []
    start = 0.0

    def progress(run: int, sweep: int, moves: int, value: float) -> None:
        events.append((time.perf_counter() - start, sweep, moves))

    before = _status("VmRSS")
    peak_ok = _reset_peak()
    cpu = time.process_time()
    start = time.perf_counter()
    result = graph_partition(
        A, k, objective=objective, init=init, random_state=0, n_threads=n_threads, progress=progress,
        reorder=reorder,
    )
    out["time"] = time.perf_counter() - start
    out["cpu"] = time.process_time() - cpu
    out["extra_bytes"] = _status("VmHWM") - before if peak_ok else None
    out["ari"] = _ari(truth, result.labels)
    out["sweeps"] = result.n_iter
    out["moves"] = result.n_moves
    out["converged"] = result.converged
    out["objective"] = result.objective
    out["first_event"] = events[0][0] if events else None
    out["sweep_times"] = [b[0] - a[0] for a, b in zip(events, events[1:])]
    out["sweep_moves"] = [e[2] for e in events]
    # The same run with other seeds: how reliable is one start?
    aris, times = [out["ari"]], [out["time"]]
    for seed in range(1, seeds):
        start = time.perf_counter()
        other = graph_partition(
            A, k, objective=objective, init=init, random_state=seed, n_threads=n_threads, reorder=reorder
        )
        times.append(time.perf_counter() - start)
        aris.append(_ari(truth, other.labels))
    out["aris"], out["times"] = aris, times
    if task != "random":
        return out

    # Stages, each the best (least disturbed) of `repeat` calls. CSR validation alone:
    # asking for k = n + 1 fails right after the CSR check.
    indptr, indices, data = A.indptr, A.indices, A.data

    def validation_only() -> None:
        try:
            _core.cluster_csr(
                indptr, indices, data, n, n + 1,
                _core.FitOptions(init="random", max_iter=1, n_threads=n_threads),
            )
        except ValueError:
            pass

    def one_sweep() -> None:
        graph_partition(A, k, random_state=0, max_iter=1, n_threads=n_threads, reorder=reorder)

    def converged_sweep() -> None:
        still = graph_partition(
            A, k, init=result.labels, max_iter=1, n_threads=n_threads, reorder=reorder
        )
        assert still.n_moves == 0

    for name, call in (
        ("validation", validation_only),
        # validation + random labels + cluster sums + sweep 1
        ("one_sweep_call", one_sweep),
        # validation + cluster sums + a sweep that moves nothing
        ("converged_sweep_call", converged_sweep),
    ):
        times, cpus = [], []
        for _ in range(repeat):
            cpu = time.process_time()
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        out[name] = min(times)
        out[name + "_cpu"] = min(cpus)
    return out


# ----------------------------------------------------------------------------- driver


def run_worker(
    task: str,
    data_dir: Path,
    args: argparse.Namespace,
    timeout: Optional[float] = None,
    memory_limit: Optional[int] = None,
) -> dict[str, Any]:
    command = [
        sys.executable, os.path.abspath(__file__), "--worker", task, "--data", str(data_dir),
        "--k", str(args.k), "--dtype", args.dtype, "--repeat", str(args.repeat),
        "--seeds", str(args.seeds),
    ]
    if args.n_threads is not None:
        command += ["--n-threads", str(args.n_threads)]

    def limit() -> None:
        if memory_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, preexec_fn=limit
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["?"]
        status = "out of memory" if "MemoryError" in done.stderr else f"failed: {tail[0]}"
        return {"status": status}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["status"] = "ok"
    return result


def mb(x: Optional[float]) -> str:
    return "?" if x is None else f"{x / 2**20:,.0f}"


def seconds(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--spectral-sizes", type=int, nargs="*", default=[20_000, 100_000])
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--degree", type=float, default=20.0)
    parser.add_argument("--within", type=float, default=0.8)
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    parser.add_argument(
        "--spectral-solvers", nargs="*", default=["default", "lobpcg"],
        help="eigen_solver values for SpectralClustering; 'default' = scikit-learn's (arpack)",
    )
    parser.add_argument("--spectral-timeout", type=float, default=300.0)
    parser.add_argument("--repeat", type=int, default=3, help="repeats of the stage timings")
    parser.add_argument(
        "--seeds", type=int, default=5, help="random_state 0..seeds-1 for the ARI spread"
    )
    parser.add_argument("--spectral-memory-gb", type=float, default=12.0)
    parser.add_argument("--n-threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--graph", choices=["sbm", "knn"], default="sbm")
    parser.add_argument(
        "--reorder", nargs="+", choices=["off", "on", "auto"], default=["off", "on"],
        help="reorder settings of the ratio-association runs, side by side",
    )
    parser.add_argument("--json", default="bench_sparse.json", help="write the measurements here as JSON")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        result = worker(
            args.worker, Path(args.data), args.k, args.dtype, args.n_threads, args.repeat,
            args.seeds,
        )
        print(json.dumps(result))
        return

    import kgroups_rs

    print(
        f"kgroups_rs {kgroups_rs.__version__}; {os.cpu_count()} cores, n_threads = "
        f"{args.n_threads or 'all'}; "
        + (
            f"10-NN graph of {args.k} planar blobs; "
            if args.graph == "knn"
            else f"SBM k = {args.k}, average degree {args.degree:g}, "
            f"{args.within:.0%} of edges within blocks; "
        )
        + f"CSR int32 indices + {args.dtype} data; "
        f"load average at start {os.getloadavg()[0]:.2f}"
    )
    sizes = sorted(set(args.sizes) | set(args.spectral_sizes))
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            data_dir = Path(tmp) / str(n)
            data_dir.mkdir()
            start = time.perf_counter()
            if args.graph == "knn":
                indptr, indices, truth = knn_graph(n, args.k, args.seed)
            else:
                indptr, indices, truth = stochastic_block_model(
                    n, args.k, args.degree, args.within, args.seed
                )
            build = time.perf_counter() - start
            np.save(data_dir / "indptr.npy", indptr)
            np.save(data_dir / "indices.npy", indices)
            np.save(data_dir / "truth.npy", truth)
            value_bytes = np.dtype(args.dtype).itemsize
            row: dict[str, Any] = {
                "n": n,
                "nnz": int(indices.size),
                "csr_bytes": indptr.nbytes + indices.nbytes + indices.size * value_bytes,
                "build": build,
            }
            del indptr, indices, truth
            print(f"n = {n:,}: built in {build:.2f} s, nnz = {row['nnz']:,}", flush=True)
            for setting in args.reorder:
                key = f"random@{setting}"
                row[key] = run_worker(key, data_dir, args)
                print(f"  random init, reorder {setting}: {row[key]}", flush=True)
            row["random"] = row[f"random@{args.reorder[0]}"]
            row["kmeanspp"] = run_worker("kmeanspp", data_dir, args)
            print(f"  k-means++ init: {row['kmeanspp']}", flush=True)
            row["ncut"] = run_worker("ncut", data_dir, args)
            print(f"  normalized cut: {row['ncut']}", flush=True)
            if n in args.spectral_sizes:
                for solver in args.spectral_solvers:
                    task = "spectral" if solver == "default" else f"spectral:{solver}"
                    row[f"spectral {solver}"] = run_worker(
                        task, data_dir, args, timeout=args.spectral_timeout,
                        memory_limit=int(args.spectral_memory_gb * 2**30),
                    )
                    print(f"  spectral ({solver}): {row[f'spectral {solver}']}", flush=True)
            rows.append(row)
    print(f"load average at end {os.getloadavg()[0]:.2f}\n")
    print_tables(rows, args)
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump(
            {"machine": platform.platform(), "cpus": os.cpu_count(), "load_at_end": os.getloadavg(),
             "graph": args.graph, "reorder": args.reorder,
             "k": args.k, "degree": args.degree, "within": args.within, "dtype": args.dtype,
             "repeat": args.repeat, "rows": rows},
            out, indent=2, default=str,
        )  # fmt: skip
    print(f"measurements written to {args.json}")


def print_tables(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(
        "Full clustering, Hartigan, one start (graph_partition); time, sweeps, ARI and memory of "
        f"random_state=0; ARI min/median/max and median time over random_state 0..{args.seeds - 1}:"
    )
    header = (
        f"| {'n':>9} | {'nnz':>10} | {'CSR MB':>6} | {'build s':>7} | {'objective, init':<19} | "
        f"{'time s':>6} | {'CPU s':>6} | {'sweeps':>6} | {'ARI':>5} | {'ARI min/med/max':>17} | "
        f"{'med. time s':>11} | {'peak extra MB':>13} | {'extra/CSR':>9} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    tasks = tuple(
        (f"random@{setting}", f"ratio, random, {setting}") for setting in args.reorder
    ) + (
        ("kmeanspp", "ratio, k-means++"),
        ("ncut", "ncut, random"),
    )
    for row in rows:
        for key, name in tasks:
            r = row[key]
            if r["status"] != "ok":
                print(f"| {row['n']:>9,} | {row['nnz']:>10,} | ... {name}: {r['status']}")
                continue
            extra = r["extra_bytes"]
            ratio = "?" if extra is None else f"{extra / row['csr_bytes']:.2f}"
            aris = r["aris"]
            spread = f"{min(aris):.2f}/{float(np.median(aris)):.2f}/{max(aris):.2f}"
            print(
                f"| {row['n']:>9,} | {row['nnz']:>10,} | {mb(row['csr_bytes']):>6} | "
                f"{row['build']:>7.2f} | {name:<19} | {r['time']:>6.2f} | {r['cpu']:>6.2f} | "
                f"{r['sweeps']:>6} | "
                f"{r['ari']:>5.3f} | {spread:>17} | {float(np.median(r['times'])):>11.2f} | "
                f"{mb(extra):>13} | {ratio:>9} |"
            )
    print()
    print(
        "Where the time goes (ratio association, random init; wall seconds, best of "
        f"{args.repeat}; CPU seconds of all threads in brackets):"
    )
    header = (
        f"| {'n':>9} | {'reorder':>7} | {'validation':>14} | {'max_iter=1 call':>15} | "
        f"{'sums+0-move sweep':>17} | {'renumbering':>11} | "
        f"{'sweep 1':>7} | {'sweep 2':>7} | {'median sweep':>12} | {'last (0 moves)':>14} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for row, setting in ((row, setting) for row in rows for setting in args.reorder):
        r = row[f"random@{setting}"]
        if r["status"] != "ok":
            continue
        plain = row.get("random@off", {})
        renumbering = (
            r["converged_sweep_call"] - plain["converged_sweep_call"]
            if setting != "off" and plain.get("status") == "ok"
            else None
        )
        times = r["sweep_times"]
        # sweep 1 = (max_iter=1 call) - (converged call) + (last sweep): the two calls differ
        # only by the initial labels and by the moves of the first sweep.
        last = times[-1] if times else None
        sweep1 = (
            r["one_sweep_call"] - r["converged_sweep_call"] + last if last is not None else None
        )
        print(
            f"| {row['n']:>9,} | {setting:>7} | "
            f"{r['validation']:>6.3f} [{r['validation_cpu']:>5.2f}] | "
            f"{r['one_sweep_call']:>6.3f} [{r['one_sweep_call_cpu']:>6.2f}] | "
            f"{r['converged_sweep_call'] - r['validation']:>17.3f} | {seconds(renumbering):>11} | "
            f"{seconds(sweep1):>7} | "
            f"{seconds(times[0] if times else None):>7} | "
            f"{seconds(float(np.median(times)) if times else None):>12} | {seconds(last):>14} |"
        )
    spectral_rows = [row for row in rows if any(key.startswith("spectral") for key in row)]
    if spectral_rows:
        print()
        print(
            "Against scikit-learn SpectralClustering(n_clusters=k, affinity='precomputed', "
            "random_state=0, eigen_solver=...):"
        )
        header = (
            f"| {'n':>9} | {'ours (random) s':>15} | {'ARI':>5} | {'eigen_solver':<12} | "
            f"{'spectral s':>16} | {'ARI':>5} | {'peak extra MB':>13} |"
        )
        print(header)
        print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
        for row in spectral_rows:
            ours = row["random"]
            ours_time = f"{ours['time']:.2f}" if ours["status"] == "ok" else ours["status"]
            ours_ari = f"{ours['ari']:.3f}" if ours["status"] == "ok" else "-"
            for solver in args.spectral_solvers:
                spectral = row[f"spectral {solver}"]
                name = "arpack (def.)" if solver == "default" else solver
                if spectral["status"] == "ok":
                    s_time, s_ari = f"{spectral['time']:.2f}", f"{spectral['ari']:.3f}"
                    s_mem = mb(spectral["extra_bytes"])
                else:
                    s_time, s_ari, s_mem = spectral["status"], "-", "-"
                    if spectral["status"] == "timeout":
                        s_time = f"timeout (>{args.spectral_timeout:.0f})"
                print(
                    f"| {row['n']:>9,} | {ours_time:>15} | {ours_ari:>5} | {name:<12} | "
                    f"{s_time:>16} | {s_ari:>5} | {s_mem:>13} |"
                )

if __name__ == "__main__":
    main()
