"""``kernel_storage`` of the estimators (issue 12, item 6): dense against matrix-free ``fit``
over a grid of (n, D, n_init), with the choice ``"auto"`` makes, timed in one run.

Data: the paper's eq. 56 mixture generalised to D dimensions (two Gaussians, the second
shifted by 0.7 in every coordinate, n/2 points each); ``KernelKGroups(2, kernel="energy",
random_state=0)``. For each case both storages run ``--repeat`` times, alternating (the order
flips every repetition); the table shows the best time of each, which is faster, and what
``"auto"`` picks (not timed: it runs one of the two).

Usage::

    python benches/bench_storage.py [--cases 10000:2:1 10000:10:1 ...] [--repeat 2]
        [--json bench_storage.json]

A case is ``n:D:n_init``. The machine's load average is printed and stored: the CPU may be
shared, so compare rows of one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np
from kgroups_rs import KernelKGroups
from kgroups_rs.estimator import DENSE_KERNEL_MAX_BYTES, MATRIX_FREE_MAX_DIM

DEFAULT_CASES = [
    "2000:10:1", "5000:2:1", "5000:10:1", "10000:2:1", "10000:10:1", "10000:50:1",
    "5000:100:1", "10000:2:2", "10000:10:2", "5000:10:5", "10000:10:5",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=DEFAULT_CASES)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--json", default="bench_storage.json")
    args = parser.parse_args()

    load_before = os.getloadavg()
    print(f"load average {load_before}; MATRIX_FREE_MAX_DIM = {MATRIX_FREE_MAX_DIM}")
    print(f"{'n':>6s} {'D':>4s} {'n_init':>6s} {'dense s':>8s} {'m-free s':>9s} "
          f"{'faster':>12s} {'auto':>12s}")
    records = []
    for case in args.cases:
        n, dim, n_init = (int(v) for v in case.split(":"))
        rng = np.random.default_rng(0)
        half = n // 2
        X = np.vstack([rng.normal(size=(half, dim)), rng.normal(size=(n - half, dim)) + 0.7])
        times: dict[str, list[float]] = {"dense": [], "matrix-free": []}
        for rep in range(args.repeat):
            order = ("dense", "matrix-free") if rep % 2 == 0 else ("matrix-free", "dense")
            for storage in order:
                model = KernelKGroups(2, n_init=n_init, random_state=0, kernel_storage=storage)
                start = time.perf_counter()
                model.fit(X)
                times[storage].append(time.perf_counter() - start)
        # What "auto" picks: the memory limit at this n, else the time rule (which depends on
        # D, n_init and the algorithm only), read off a fit on the first 200 points.
        if 8 * n * n > DENSE_KERNEL_MAX_BYTES:
            auto_choice = "matrix-free"
        else:
            auto = KernelKGroups(2, n_init=n_init, random_state=0).fit(X[:200])
            auto_choice = auto.kernel_storage_
        best = {s: min(v) for s, v in times.items()}
        faster = min(best, key=best.__getitem__)
        record = {"n": n, "D": dim, "n_init": n_init, "dense_s": best["dense"],
                  "matrix_free_s": best["matrix-free"], "faster": faster, "auto": auto_choice}
        records.append(record)
        print(f"{n:6d} {dim:4d} {n_init:6d} {best['dense']:8.3f} {best['matrix-free']:9.3f} "
              f"{faster:>12s} {auto_choice:>12s}", flush=True)
    load_after = os.getloadavg()
    print(f"load average after: {load_after}")
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump({"machine": platform.platform(), "cpus": os.cpu_count(),
                   "load_before": load_before, "load_after": load_after,
                   "repeat": args.repeat, "records": records}, out, indent=2)
    print(f"table written to {args.json}")


if __name__ == "__main__":
    main()
