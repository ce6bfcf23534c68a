"""Benchmark of kgroups_rs.dask (issue 13): distributed Nyström kernel k-groups on a
``distributed.LocalCluster`` of two single-threaded worker processes.

Data (as part (c) of ``bench_large.py``): a k-component Gaussian mixture in D = 10,
component j ~ N(4 e_j, I_10), equal weights, generated on the workers with
``dask.array.random`` in chunks of ``--chunk-rows`` rows (never built on the client). The run:
``kgroups_rs.dask.kernel_kgroups_nystrom(X, k, n_components=m)`` with one k-means++ start.

Reported per run: wall time (the whole call, until the labels are persisted on the
workers), its setup (the passes over X, the sample, landmarks, features and starts: the time
to the end of the first round less one round) and the time per round, rounds, moves,
fallback rounds, the peak resident memory of each worker process and of the client
(``getrusage``, so a high-water mark since the process started), and the ARI against the
mixture components. For scoring only, the labels and the truth are brought
to the client after the timed part. With ``--single`` the single-machine
``kgroups_rs.kernel_kgroups_nystrom`` runs in the same process on the same data afterwards
(the client's peak memory is read before it), and the ARI between the two labelings is
reported (the two differ in their landmarks and their start: the distributed path starts
from Hartigan's method on a 20 000-row sample, the single-machine one from k-means++ on all
points, so with k = 10 they can stop in different local optima).

The script fails (exit status 1) when the objective history decreases, when the ARI against
the truth is below ``--min-ari`` (default 0.8, as ``bench_large.py`` (c)), or with
``--single`` when the distributed ARI against the truth is more than ``--tolerance`` (default
0.02) below the single-machine one.

Usage::

    python benches/bench_dask.py --n 1000000 [--k 10] [--m 256] [--chunk-rows 125000]
        [--single] [--seed 0] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from typing import Any

import numpy as np


def _peak_rss_mib() -> float:
    """Peak resident memory of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--dim", type=int, default=10)
    parser.add_argument("--m", type=int, default=256, help="n_components (landmarks)")
    parser.add_argument("--chunk-rows", type=int, default=None, help="default: n / 8")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--single", action="store_true", help="also run the single-machine path")
    parser.add_argument("--min-ari", type=float, default=0.8)
    parser.add_argument("--tolerance", type=float, default=0.02)
    parser.add_argument("--json", type=str, default=None, help="write the table as JSON here")
    args = parser.parse_args(argv)

    import dask.array as da
    import distributed
    import kgroups_rs
    import kgroups_rs.dask as kgd
    from sklearn.metrics import adjusted_rand_score

    if args.k > args.dim:
        parser.error("--k must be at most --dim (component j is centred at 4 e_j)")
    chunk = args.chunk_rows or max(1, args.n // 8)
    rows: list[dict[str, Any]] = []
    failures: list[str] = []
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        rng = da.random.default_rng(args.seed)
        truth = rng.integers(0, args.k, size=args.n, chunks=chunk)
        centres = 4.0 * np.eye(args.dim)[: args.k]
        X = truth.map_blocks(
            lambda t: centres[t], dtype=np.float64, new_axis=1, chunks=(truth.chunks[0], (args.dim,))
        ) + rng.standard_normal(size=(args.n, args.dim), chunks=(chunk, args.dim))
        X, truth = client.persist([X, truth])
        distributed.wait([X, truth])
        client.run(lambda: None)
        round_ends: list[float] = []
        start = time.perf_counter()
        result = kgd.kernel_kgroups_nystrom(
            X, args.k, n_components=args.m, random_state=args.seed,
            progress=lambda *_: round_ends.append(time.perf_counter()),
        )
        distributed.wait(result.labels)
        wall = time.perf_counter() - start
        # Rounds after the first take equally long; the first also ends the setup.
        per_round = (round_ends[-1] - round_ends[0]) / max(1, len(round_ends) - 1)
        setup = round_ends[0] - start - per_round
        worker_peaks = client.run(_peak_rss_mib)
        client_peak = _peak_rss_mib()
        labels = result.labels.compute()
        truth_np = truth.compute()
        ari = float(adjusted_rand_score(truth_np, labels))
        history = result.objective_history
        if np.any(np.diff(history) < 0):
            failures.append("the distributed objective history decreased")
        if ari < args.min_ari:
            failures.append(f"distributed ARI {ari:.3f} < {args.min_ari}")
        rows.append({
            "path": "dask (2 workers x 1 thread)",
            "n": args.n, "k": args.k, "D": args.dim, "m": args.m, "chunk_rows": chunk,
            "chunks": len(X.chunks[0]),
            "wall_s": round(wall, 2),
            "setup_s": round(setup, 2),
            "per_round_s": round(per_round, 2),
            "rounds": result.n_iter, "moves": result.n_moves,
            "fallback_rounds": result.n_fallback_rounds, "rejected": result.n_rejected,
            "converged": result.converged,
            "worker_peak_mib": [round(v, 1) for v in worker_peaks.values()],
            "client_peak_mib": round(client_peak, 1),
            "ari_truth": round(ari, 4),
            "objective": result.objective,
        })
        if args.single:
            X_np = X.compute()
            start = time.perf_counter()
            single = kgroups_rs.kernel_kgroups_nystrom(
                X_np, args.k, n_components=args.m, random_state=args.seed
            )
            single_wall = time.perf_counter() - start
            single_ari = float(adjusted_rand_score(truth_np, single.labels))
            agreement = float(adjusted_rand_score(single.labels, labels))
            if ari < single_ari - args.tolerance:
                failures.append(f"distributed ARI {ari:.3f} < single-machine ARI {single_ari:.3f}")
            rows.append({
                "path": "single machine (all cores)",
                "n": args.n, "k": args.k, "D": args.dim, "m": args.m,
                "wall_s": round(single_wall, 2),
                "rounds": single.n_iter, "moves": single.n_moves,
                "client_peak_mib": round(_peak_rss_mib(), 1),
                "ari_truth": round(single_ari, 4),
                "ari_vs_dask": round(agreement, 4),
                "objective": single.objective,
            })
    for row in rows:
        print(json.dumps(row))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"rows": rows, "failures": failures}, handle, indent=2)
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
