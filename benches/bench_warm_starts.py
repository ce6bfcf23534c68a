"""Warm starts between consecutive k in ``select_k``, on and off, side by side in one run.

For each data set, :func:`kgroups_rs.select_k` runs twice with the same ``random_state``:
``warm_start=False`` (only the seeded cold starts at every k) and ``warm_start=True`` (one
more start per k, split from the best partition into k - 1). The cold starts are the same
in both runs, so the warm run's ``W_k`` can only be lower or equal. Reported per set and
mode: the seconds of the whole selection, the k chosen and its ARI against the true
classes, the number of k where the data's ``W_k`` fell with the warm start, and the number
of k where ``W_k`` rose with k (which the warm start rules out on the data's fits).

    python benches/bench_warm_starts.py [--quick] [--seed 0] [--n-init 10] [--json out.json]

The suite is ``benches/bench_select_k.py``'s (both no-structure sets included), plus 10 000
points in four blobs, where the statistics run on a 2 000-point subsample.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import kgroups_rs
import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_select_k import DataSet, suite  # noqa: E402


def large_blobs(seed: int) -> DataSet:
    """10 000 points in four well-separated blobs (2-D)."""
    X, y = make_blobs(10_000, centers=[[0, 0], [10, 0], [0, 10], [10, 10]], random_state=seed)
    return DataSet("blobs_k4_n10000", X.astype(np.float64), y.astype(np.int64), "synthetic", "")


def run(data: DataSet, warm: bool, seed: int, n_init: int, threads: int) -> dict[str, Any]:
    start = time.perf_counter()
    result = kgroups_rs.select_k(
        data.X, range(1, 11), warm_start=warm, n_init=n_init, random_state=seed, n_threads=threads
    )
    seconds = time.perf_counter() - start
    within = np.asarray(result.table["within"], dtype=np.float64)
    return {
        "k": int(result.k),
        "kernel": result.kernel,
        "ari": float(adjusted_rand_score(data.y, result.labels)),
        "seconds": seconds,
        "within": within.tolist(),
        "rises": int(np.sum(np.diff(within) > 0)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 8 small sets of bench_select_k --quick")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-init", type=int, default=10, help="cold starts per k (select_k's n_init)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    sets = suite(quick=args.quick, seed=args.seed)
    if not args.quick:
        sets.append(large_blobs(args.seed))
    records = []
    print(f"load average before: {os.getloadavg()}; seed {args.seed}, n_init {args.n_init}")
    print("| data set | true k | k cold / warm | ARI cold / warm | W_k lowered | W_k rises | s cold / warm |")
    print("|---|---:|---|---|---:|---|---|")
    for data in sets:
        cold = run(data, False, args.seed, args.n_init, args.threads)
        warm = run(data, True, args.seed, args.n_init, args.threads)
        lowered = int(np.sum(np.asarray(warm["within"]) < np.asarray(cold["within"]) * (1 - 1e-12)))
        records.append({"name": data.name, "true_k": data.k, "cold": cold, "warm": warm, "lowered": lowered})
        print(
            f"| {data.name} | {data.k} | {cold['k']} / {warm['k']} | {cold['ari']:.3f} / {warm['ari']:.3f} "
            f"| {lowered} | {cold['rises']} / {warm['rises']} "
            f"| {cold['seconds']:.2f} / {warm['seconds']:.2f} |",
            flush=True,
        )
    summary = {
        mode: {
            "true_k_fraction": float(np.mean([r[mode]["k"] == r["true_k"] for r in records])),
            "mean_ari": float(np.mean([r[mode]["ari"] for r in records])),
            "seconds": float(sum(r[mode]["seconds"] for r in records)),
            "sets_with_rising_w": int(sum(r[mode]["rises"] > 0 for r in records)),
        }
        for mode in ("cold", "warm")
    }
    summary["k_lowered"] = {"total": int(sum(r["lowered"] for r in records)), "of": 10 * len(records)}
    print(f"load average after: {os.getloadavg()}")
    for mode in ("cold", "warm"):
        s = summary[mode]
        print(
            f"{mode}: true k {s['true_k_fraction']:.2f}, mean ARI {s['mean_ari']:.3f}, "
            f"{s['seconds']:.1f} s, sets where W_k rises {s['sets_with_rising_w']}"
        )
    lowered_total = summary["k_lowered"]
    print(f"W_k lowered by the warm start at {lowered_total['total']} of {lowered_total['of']} k")
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {"seed": args.seed, "n_init": args.n_init, "records": records, "summary": summary}, indent=1
            )
        )


if __name__ == "__main__":
    main()
