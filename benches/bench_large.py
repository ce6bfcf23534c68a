"""Benchmarks of issue 7: exact matrix-free kernel k-groups and Nyström kernel k-groups.

Parts (``--parts a b c d``, default all):

(a) Matrix-free, exact: the paper's eq. 56 data (two Gaussians in D = 10, mu_1 = 0,
    mu_2 = 0.7 (1, ..., 1), n/2 points each, in random order), k = 2, one k-means++ start,
    n = 100 000. Targets: <= 30 s, peak memory <= 1 GB. Each measurement runs in a fresh
    subprocess and reports its peak RSS (``getrusage``; it includes Python, numpy and the
    data). Stages: ``sweep 1`` ends at the first progress event (initialisation, the one
    parallel pass over all pairs that builds the per-point cluster sums, and the first sweep);
    ``cluster sums`` is measured again on its own by a run from the final labels with
    ``max_iter=1`` (no moves: one pass over all pairs plus one evaluation sweep).
(b) The same data at n = 20 000 beside R's ``energy::kgroups`` (Debian ``r-cran-energy``, run
    with ``Rscript``) from the same uniformly random initial labels, R with ``iter.max`` large
    enough to converge. Both W are computed the same way, ``within_dispersion(labels, X=X)``.
    Targets: our W <= R's W, ours >= 20x faster. The dense path (``energy_gram`` +
    ``kernel_kgroups`` from the same labels) is timed too.
(c) Nyström: n = 1 000 000, D = 10, k = 10, m = 256 landmarks (k-means++), one k-means++
    start. Data: a 10-component Gaussian mixture, component j ~ N(4 e_j, I_10) (e_j the j-th unit
    vector), equal weights: every two means are 4 sqrt(2) = 5.66 apart, so neighbouring
    components overlap a little (the Bayes rule, nearest mean, misclassifies about 2 %; its
    ARI is printed as "oracle"). Targets: <= 30 s, peak memory <= 4 GB, ARI >= 0.8 against
    the components. Stages: landmarks (``select_landmarks``), features (centring, the
    landmark kernel's eigendecomposition, the n x m kernel block times W^(-1/2), in chunks),
    clustering (``cluster_features``: initialisation and Hartigan sweeps).
(d) Quality: n = 20 000 subsamples of (c)'s data; for m in {64, 256, 1024}: ARI and accuracy
    (eq. 55) against the components, and the exact W (``within_dispersion(labels, X=X)``,
    exact, O(n^2 D) without storing G) of the Nyström labels beside the exact matrix-free
    result, each the best of 4 k-means++ starts (``--quality-n-init``: with k = 10 a single start
    often stops in a worse local optimum, which would hide the approximation error).

Usage::

    python benches/bench_large.py [--quick] [--parts a b c d] [--seed 0] [--no-r]
        [--n-exact 100000] [--n-r 20000] [--n-nystrom 1000000] [--m 256]
        [--quality-n 20000] [--quality-ms 64 256 1024] [--subsamples 3] [--repeat 1]
        [--blas-threads N] [--json bench_large.json]

``--quick`` shrinks every size (a: 20 000, b: 4 000, c: 100 000, d: 5 000 with m in {64, 256}).
The machine's load average (``/proc/loadavg``) is printed beside every part, and each worker's
CPU seconds beside its wall time (about 2x the wall time when it had both cores to itself):
timings taken while other work runs are slower than the machine can do.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

SEPARATION = 4.0  # component j of the Nyström mixture is N(SEPARATION * e_j, I)


# ---------------------------------------------------------------------------- data


def eq56(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two Gaussians in D = 10: N(0, I) and N(0.7 * 1, I), n/2 points each, random order."""
    rng = np.random.default_rng(seed)
    truth = rng.permutation(np.repeat(np.array([0, 1], dtype=np.int64), [n - n // 2, n // 2]))
    X = rng.normal(size=(n, 10))
    X += 0.7 * truth[:, None]
    return X, truth


def mixture10(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """10 Gaussians in D = 10: component j ~ N(SEPARATION * e_j, I), equal weights."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 10, n).astype(np.int64)
    X = rng.normal(size=(n, 10))
    X[np.arange(n), truth] += SEPARATION  # in place: no n x 10 temporary
    return X, truth


def oracle_labels(X: np.ndarray) -> np.ndarray:
    """The Bayes rule of ``mixture10`` (nearest mean), for reference."""
    means = SEPARATION * np.eye(10)
    best = np.zeros(X.shape[0], dtype=np.int64)
    best_d = np.full(X.shape[0], np.inf)
    for j, mu in enumerate(means):
        d = ((X - mu) ** 2).sum(axis=1)
        closer = d < best_d
        best[closer], best_d[closer] = j, d[closer]
    return best


def load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# ------------------------------------------------------------------------- workers
# Each measurement runs in a fresh interpreter (``--worker JSON``) so that its peak RSS is
# its own; the worker prints one JSON line.


def _progress_recorder(origin: list[float]) -> tuple[list[list[float]], Callable[..., None]]:
    events: list[list[float]] = []

    def progress(start: int, sweep: int, moves: int, objective: float) -> None:
        events.append([time.perf_counter() - origin[0], start, sweep, moves, objective])

    return events, progress


def worker_matrix_free(p: dict[str, Any]) -> dict[str, Any]:
    import kgroups_rs
    from kgroups_rs.accuracy import clustering_accuracy

    t0 = time.perf_counter()
    X, truth = eq56(p["n"], p["seed"])
    init: Any = p.get("init", "k-means++")
    if p.get("labels_file"):
        init = np.fromfile(p["labels_file"], dtype="<i4").astype(np.int64)
    data_s, base_rss = time.perf_counter() - t0, current_rss_mb()
    origin, cpu0 = [time.perf_counter()], cpu_seconds()
    events, progress = _progress_recorder(origin)
    r = kgroups_rs.kernel_kgroups_from_data(
        X, 2, init, n_init=p.get("n_init", 1), max_iter=p.get("max_iter", 300),
        random_state=p["seed"], progress=progress,
    )
    total, cpu = time.perf_counter() - origin[0], cpu_seconds() - cpu0
    peak = peak_rss_mb()
    out: dict[str, Any] = dict(
        seconds=total, cpu_seconds=cpu, data_seconds=data_s, base_rss_mb=base_rss, peak_rss_mb=peak,
        within=r.within, objective=r.objective, n_iter=r.n_iter, n_moves=r.n_moves, converged=r.converged,
        accuracy=clustering_accuracy(r.labels, truth), events=events,
    )
    if p.get("labels_out"):
        r.labels.astype("<i4").tofile(p["labels_out"])
    if p.get("measure_sums"):
        began = time.perf_counter()
        again = kgroups_rs.kernel_kgroups_from_data(X, 2, r.labels, max_iter=1)
        out["sums_seconds"] = time.perf_counter() - began
        assert again.n_moves == 0
    return out


def worker_dense(p: dict[str, Any]) -> dict[str, Any]:
    """The dense path from the same initial labels: ``energy_gram`` + ``kernel_kgroups``."""
    import kgroups_rs

    X, _ = eq56(p["n"], p["seed"])
    init = np.fromfile(p["labels_file"], dtype="<i4").astype(np.int64)
    began, cpu0 = time.perf_counter(), cpu_seconds()
    G = kgroups_rs.energy_gram(X)
    gram_s = time.perf_counter() - began
    r = kgroups_rs.kernel_kgroups(G, 2, init)
    total, cpu = time.perf_counter() - began, cpu_seconds() - cpu0
    return dict(seconds=total, gram_seconds=gram_s, cpu_seconds=cpu, within=r.within,
                n_iter=r.n_iter, labels=r.labels.tolist())


class _TimedCore:
    """``kgroups_rs._core`` with ``select_landmarks`` and ``cluster_features`` timed."""

    def __init__(self, core: Any) -> None:
        self._core = core
        self.seconds: dict[str, float] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._core, name)
        if name not in ("select_landmarks", "cluster_features"):
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - began

        return timed


def worker_nystrom(p: dict[str, Any]) -> dict[str, Any]:
    if p.get("blas_threads"):
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(p["blas_threads"]), user_api="blas")
    import kgroups_rs
    import kgroups_rs.large as large
    from kgroups_rs.accuracy import clustering_accuracy
    from sklearn.metrics import adjusted_rand_score

    t0 = time.perf_counter()
    X, truth = mixture10(p["n"], p["seed"])
    data_s, base_rss = time.perf_counter() - t0, current_rss_mb()
    timed_core = _TimedCore(large._core)
    large._core = timed_core  # type: ignore[assignment]
    origin, cpu0 = [time.perf_counter()], cpu_seconds()
    events, progress = _progress_recorder(origin)
    r = kgroups_rs.kernel_kgroups_nystrom(
        X, 10, n_components=p["m"], landmarks=p.get("landmarks", "k-means++"), n_init=p.get("n_init", 1),
        random_state=p["seed"], progress=progress,
    )
    total, cpu = time.perf_counter() - origin[0], cpu_seconds() - cpu0
    peak = peak_rss_mb()
    landmarks = timed_core.seconds.get("select_landmarks", 0.0)
    clustering = timed_core.seconds.get("cluster_features", 0.0)
    oracle = oracle_labels(X)
    return dict(
        seconds=total, cpu_seconds=cpu, data_seconds=data_s, base_rss_mb=base_rss, peak_rss_mb=peak,
        landmarks_seconds=landmarks, features_seconds=total - landmarks - clustering,
        clustering_seconds=clustering, n_iter=r.n_iter, n_moves=r.n_moves, converged=r.converged,
        ari=adjusted_rand_score(truth, r.labels), accuracy=clustering_accuracy(r.labels, truth),
        oracle_ari=adjusted_rand_score(truth, oracle), oracle_accuracy=float(np.mean(oracle == truth)),
        events=events,
    )


WORKERS = {"matrix_free": worker_matrix_free, "dense": worker_dense, "nystrom": worker_nystrom}


def run_worker(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter and return its JSON result."""
    command = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps({"kind": kind, **params})]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"worker {kind} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ---------------------------------------------------------------------------- parts


def sweep_table(events: list[list[float]]) -> str:
    lines, previous = [], 0.0
    for t, start, sweep, moves, objective in events:
        lines.append(
            f"      start {int(start)} sweep {int(sweep):>3}: ends at {t:7.2f} s (+{t - previous:6.2f} s), "
            f"{int(moves):>7} moves, Q = {objective:.10g}"
        )
        previous = t
    return "\n".join(lines)


def part_a(args: argparse.Namespace) -> None:
    n = args.n_exact
    print(f"\n(a) matrix-free exact kernel k-groups, eq. 56 data, D = 10, k = 2, one k-means++ start "
          f"[load {load()}]")
    runs = [run_worker("matrix_free", dict(n=n, seed=args.seed + i, measure_sums=(i == 0)))
            for i in range(args.repeat)]
    header = (
        f"{'n':>8} | {'time s':>7} | {'CPU s':>7} | {'peak RSS MB':>11} | {'data MB':>7} | {'sweeps':>6} | "
        f"{'moves':>7} | {'accuracy':>8} | {'W':>14}"
    )
    print(header)
    print("-" * len(header))
    for r in runs:
        print(f"{n:>8} | {r['seconds']:7.2f} | {r['cpu_seconds']:7.2f} | {r['peak_rss_mb']:11.0f} | "
              f"{r['base_rss_mb']:7.0f} | {r['n_iter']:>6} | {r['n_moves']:>7} | {r['accuracy']:8.4f} | "
              f"{r['within']:14.6f}")
    time_s = statistics.median(r["seconds"] for r in runs)
    peak = max(r["peak_rss_mb"] for r in runs)
    print(f"  target time <= 30 s: {'met' if time_s <= 30 else 'MISSED'} ({time_s:.1f} s); "
          f"target peak memory <= 1 GB: {'met' if peak <= 1024 else 'MISSED'} ({peak:.0f} MB)")
    first = runs[0]
    print(f"  stages of the first run: cluster sums alone (one pass over the {n}·({n}−1)/2 pairs, "
          f"from the final labels, max_iter=1) {first['sums_seconds']:.2f} s; per sweep:")
    print(sweep_table(first["events"]))
    print(f"  [load after (a): {load()}]")


R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
n <- as.integer(args[1]); d <- as.integer(args[2]); k <- as.integer(args[3]); iter <- as.integer(args[4])
suppressMessages(library(energy))
x <- matrix(readBin(args[5], "double", n * d, size = 8, endian = "little"), ncol = d, byrow = TRUE)
cl <- readBin(args[6], "integer", n, size = 4, endian = "little")
t <- system.time(r <- kgroups(x, k = k, iter.max = iter, cluster = cl))[["elapsed"]]
writeBin(as.integer(r$cluster - 1), args[7], size = 4, endian = "little")
cat(sprintf("{\"seconds\": %.6f, \"W\": %.17g, \"iterations\": %d}\n", t, r$W, as.integer(r$iterations)))
"""


def part_b(args: argparse.Namespace) -> None:
    import kgroups_rs

    n = args.n_r
    print(f"\n(b) n = {n}: ours (matrix-free) beside R energy::kgroups from the same random initial labels "
          f"[load {load()}]")
    rscript = shutil.which("Rscript")
    have_r = rscript is not None and not args.no_r
    if have_r:
        check = subprocess.run([rscript, "-e", "suppressMessages(library(energy))"], capture_output=True)
        have_r = check.returncode == 0
    if not have_r:
        print("  R with the energy package is not available (apt-get install r-cran-energy): "
              "R column skipped")
    header = (
        f"{'seed':>4} | {'R s':>8} {'R sweeps':>8} {'R W':>16} | {'ours s':>7} {'CPU s':>6} {'sweeps':>6} "
        f"{'ours W':>16} | {'speed-up':>8} | {'W ours <= R':>11} | {'same partition':>14}"
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "kgroups.R"
        script.write_text(R_SCRIPT)
        for s in range(args.r_seeds):
            seed = args.seed + s
            X, _ = eq56(n, seed)
            x_file, l_file = Path(tmp) / "x.bin", Path(tmp) / f"labels{s}.bin"
            X.astype("<f8").tofile(x_file)
            init = np.random.default_rng(1000 + seed).integers(0, 2, n)
            init.astype("<i4").tofile(l_file)
            ours_out = Path(tmp) / "ours.bin"
            params = dict(n=n, seed=seed, labels_file=str(l_file), labels_out=str(ours_out))
            ours_runs = [run_worker("matrix_free", params) for _ in range(args.repeat)]
            ours_s = statistics.median(r["seconds"] for r in ours_runs)
            ours_labels = np.fromfile(ours_out, dtype="<i4").astype(np.int64)
            w_ours = kgroups_rs.within_dispersion(ours_labels, X=X)
            if have_r:
                r_out = Path(tmp) / "r.bin"
                done = subprocess.run(
                    [rscript, str(script), str(n), "10", "2", str(args.r_iter_max), str(x_file), str(l_file),
                     str(r_out)], capture_output=True, text=True, check=True,
                )
                r_res = json.loads(done.stdout.strip().splitlines()[-1])
                r_labels = np.fromfile(r_out, dtype="<i4").astype(np.int64)
                w_r = kgroups_rs.within_dispersion(r_labels, X=X)
                same = bool(np.all(r_labels == ours_labels) or np.all(r_labels != ours_labels))
                no_larger = "yes" if w_ours <= w_r * (1 + 1e-12) else "NO"
                print(f"{seed:>4} | {r_res['seconds']:8.2f} {r_res['iterations']:>8} {w_r:16.8f} | "
                      f"{ours_s:7.2f} {ours_runs[0]['cpu_seconds']:6.2f} {ours_runs[0]['n_iter']:>6} "
                      f"{w_ours:16.8f} | {r_res['seconds'] / ours_s:7.1f}x | {no_larger:>11} | "
                      f"{'yes' if same else 'no':>14}")
                if r_res["iterations"] >= args.r_iter_max:
                    print(f"      R stopped at iter.max = {args.r_iter_max} without converging")
            else:
                print(f"{seed:>4} | {'-':>8} {'-':>8} {'-':>16} | {ours_s:7.2f} "
                      f"{ours_runs[0]['cpu_seconds']:6.2f} {ours_runs[0]['n_iter']:>6} "
                      f"{w_ours:16.8f} | {'-':>8} | {'-':>11} | {'-':>14}")
            dense_runs = [run_worker("dense", params) for _ in range(args.repeat)]
            dense_s = statistics.median(r["seconds"] for r in dense_runs)
            dense_labels = np.asarray(dense_runs[0]["labels"])
            w_dense = kgroups_rs.within_dispersion(dense_labels, X=X)
            speed_up = f", {r_res['seconds'] / dense_s:.1f}x R" if have_r else ""
            print(f"    dense path (energy_gram {dense_runs[0]['gram_seconds']:.2f} s + kernel_kgroups): "
                  f"{dense_s:.2f} s{speed_up}, W {w_dense:.8f}, same labels as matrix-free: "
                  f"{'yes' if np.array_equal(dense_labels, ours_labels) else 'no'}")
            print("    our sweeps:")
            print(sweep_table(ours_runs[0]["events"]))
    print("  targets: our W <= R's W; ours >= 20x faster")
    print(f"  [load after (b): {load()}]")


def part_c(args: argparse.Namespace) -> None:
    n, m = args.n_nystrom, args.m
    print(f"\n(c) Nyström kernel k-groups: n = {n}, D = 10, k = 10, m = {m} ({args.landmarks} landmarks), "
          f"{args.n_init} k-means++ start(s) [load {load()}]")
    runs = [run_worker("nystrom", dict(n=n, m=m, seed=args.seed + i, n_init=args.n_init,
                                       landmarks=args.landmarks, blas_threads=args.blas_threads))
            for i in range(args.repeat)]
    header = (f"{'n':>8} {'m':>5} | {'time s':>7} | {'CPU s':>6} | {'landmarks':>9} {'features':>8} "
              f"{'cluster':>8} | {'peak MB':>8} | {'sweeps':>6} | {'ARI':>6} {'acc':>6} | {'oracle ARI':>10}")
    print(header)
    print("-" * len(header))
    for r in runs:
        print(f"{n:>8} {m:>5} | {r['seconds']:7.2f} | {r['cpu_seconds']:6.1f} | "
              f"{r['landmarks_seconds']:9.2f} {r['features_seconds']:8.2f} {r['clustering_seconds']:8.2f} | "
              f"{r['peak_rss_mb']:8.0f} | "
              f"{r['n_iter']:>6} | {r['ari']:6.4f} {r['accuracy']:6.4f} | {r['oracle_ari']:10.4f}")
    time_s = statistics.median(r["seconds"] for r in runs)
    peak = max(r["peak_rss_mb"] for r in runs)
    ari = min(r["ari"] for r in runs)
    print(f"  targets: time <= 30 s {'met' if time_s <= 30 else 'MISSED'} ({time_s:.1f} s); "
          f"peak memory <= 4 GB {'met' if peak <= 4096 else 'MISSED'} ({peak:.0f} MB); "
          f"ARI >= 0.8 {'met' if ari >= 0.8 else 'MISSED'} ({ari:.4f})")
    print("  per sweep of the first run (time from the start of kernel_kgroups_nystrom):")
    print(sweep_table(runs[0]["events"]))
    print(f"  [load after (c): {load()}]")


def part_d(args: argparse.Namespace) -> None:
    import kgroups_rs
    from kgroups_rs.accuracy import clustering_accuracy
    from sklearn.metrics import adjusted_rand_score

    n, N = args.quality_n, args.n_nystrom
    print(f"\n(d) quality on n = {n} subsamples of (c)'s data (k = 10, best of {args.quality_n_init} "
          f"k-means++ starts); W is exact, within_dispersion(labels, X=X) [load {load()}]")
    X_all, truth_all = mixture10(N, args.seed)
    header = (
        f"{'sample':>6} | {'method':>14} | {'time s':>7} | {'ARI':>6} | {'accuracy':>8} | "
        f"{'exact W':>14} | {'W / W_exact - 1':>15}"
    )
    print(header)
    print("-" * len(header))
    rows: dict[str, list[tuple[float, float, float, float]]] = {}
    for s in range(args.subsamples):
        pick = np.random.default_rng(10_000 + s).choice(N, size=n, replace=False)
        X, truth = X_all[pick], truth_all[pick]
        began = time.perf_counter()
        exact = kgroups_rs.kernel_kgroups_from_data(X, 10, n_init=args.quality_n_init, random_state=s)
        results = [("exact", time.perf_counter() - began, exact.labels)]
        for m in args.quality_ms:
            began = time.perf_counter()
            r = kgroups_rs.kernel_kgroups_nystrom(
                X, 10, n_components=m, n_init=args.quality_n_init, random_state=s
            )
            results.append((f"nystrom m={m}", time.perf_counter() - began, r.labels))
        w_exact = kgroups_rs.within_dispersion(exact.labels, X=X)
        for name, seconds, labels in results:
            w = w_exact if name == "exact" else kgroups_rs.within_dispersion(labels, X=X)
            ari = adjusted_rand_score(truth, labels)
            acc = clustering_accuracy(labels, truth)
            rows.setdefault(name, []).append((seconds, ari, acc, w / w_exact - 1))
            print(f"{s:>6} | {name:>14} | {seconds:7.2f} | {ari:6.4f} | {acc:8.4f} | {w:14.4f} | "
                  f"{w / w_exact - 1:15.2e}")
    if args.subsamples > 1:
        print("  mean over subsamples:")
        for name, values in rows.items():
            mean = np.mean(np.array(values), axis=0)
            print(f"{'mean':>6} | {name:>14} | {mean[0]:7.2f} | {mean[1]:6.4f} | {mean[2]:8.4f} | {'':>14} | "
                  f"{mean[3]:15.2e}")
    oracle = oracle_labels(X_all[:n])
    print(f"  oracle (nearest true mean) on the first {n} points: ARI "
          f"{adjusted_rand_score(truth_all[:n], oracle):.4f}")
    print(f"  [load after (d): {load()}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--parts", nargs="+", default=["a", "b", "c", "d"], choices=["a", "b", "c", "d"])
    parser.add_argument("--quick", action="store_true", help="small sizes, to check the script")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per measurement (median)")
    parser.add_argument("--n-exact", type=int, default=100_000)
    parser.add_argument("--n-r", type=int, default=20_000)
    parser.add_argument("--r-seeds", type=int, default=1, help="initial labelings compared with R")
    parser.add_argument("--r-iter-max", type=int, default=1000)
    parser.add_argument("--no-r", action="store_true")
    parser.add_argument("--n-nystrom", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=256)
    parser.add_argument("--n-init", type=int, default=1, help="k-means++ starts in (c)")
    parser.add_argument("--quality-n-init", type=int, default=4,
                        help="k-means++ starts in (d), for the exact and the Nyström runs alike")
    parser.add_argument("--quality-n", type=int, default=20_000)
    parser.add_argument("--quality-ms", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--subsamples", type=int, default=3)
    parser.add_argument("--landmarks", default="k-means++", choices=["k-means++", "uniform"],
                        help="landmark choice in (c)")
    parser.add_argument("--blas-threads", type=int, default=0,
                        help="limit numpy's BLAS threads in (c) (0: numpy's default)")
    parser.add_argument("--json", default="bench_large.json", help="write the printed tables here as JSON")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        params = json.loads(args.worker)
        print(json.dumps(WORKERS[params.pop("kind")](params)))
        return
    if args.quick:
        args.n_exact, args.n_r, args.n_nystrom = 20_000, 4_000, 100_000
        args.quality_n, args.quality_ms, args.subsamples = 5_000, [64, 256], 1
    import kgroups_rs

    print(f"kgroups_rs {kgroups_rs.__version__}, {os.cpu_count()} cores, load average {load()}")
    printed: dict[str, list[str]] = {}
    for part in args.parts:
        # Each part prints its table; a copy of the lines goes to the JSON file.
        tee = _Tee(sys.stdout)
        with contextlib.redirect_stdout(tee):
            {"a": part_a, "b": part_b, "c": part_c, "d": part_d}[part](args)
        printed[part] = tee.getvalue().splitlines()
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump(
            {"machine": platform.platform(), "cpus": os.cpu_count(), "load_at_end": os.getloadavg(),
             "arguments": vars(args), "tables": printed},
            out, indent=2, default=str,
        )  # fmt: skip
    print(f"tables written to {args.json}")


class _Tee(io.StringIO):
    """A StringIO that also writes through to ``stream`` (the tables stay on the terminal)."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(text)
        return super().write(text)

    def flush(self) -> None:
        self._stream.flush()


if __name__ == "__main__":
    main()
