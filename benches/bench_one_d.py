"""The exact 1-D solver ``kgroups_1d``: the former O(k n^2) numpy dynamic programme against the
O(k n log n) Rust solver (issue 12, item 5), timed side by side in one run.

Data: the paper's 1-D lognormal mixture -- half the points ``lognormal(0, 1.5)``, half
``lognormal(1.5, 0.3)``, in random order -- unit weights (``--weighted``: weights uniform in
[0.5, 2]).

For every ``n`` (``--sizes``) and ``k`` (``--ks``, default 3 and 5):

- ``new``: ``kgroups_1d(x, k)`` end to end (validation, the sort, the Rust solver with the
  GIL released, the result); ``solver``: ``_core.optimal_cuts_1d`` alone on the sorted data.
  Best of ``--repeat`` calls, wall and CPU seconds (CPU: ``time.process_time``, all threads).
- ``old``: ``quadratic_reference_cuts`` of ``tests/python/one_d_reference.py`` (the former
  programme, kept as the tests' reference), only up to ``--old-max-n`` points and where it is predicted to
  finish within ``--old-budget`` seconds (predicted from the previous size by its n^2
  growth); one call.
- Where both ran: whether they found the same cuts and the relative difference of their W
  (both evaluated the same way, from the cuts).

The table is printed and written as JSON (``--json``, default ``bench_one_d.json``): the
machine, the load average before and after, and one record per (n, k).

Usage::

    python benches/bench_one_d.py [--sizes 2000 5000 10000 20000 50000 100000 1000000 2000000]
        [--ks 3 5] [--repeat 3] [--old-budget 60] [--old-max-n 100000] [--weighted] [--seed 0]
        [--json bench_one_d.json] [--quick]

``--quick``: n in {2000, 20 000, 200 000}, one repetition. The machine's load average is
printed: timings taken while other work runs are slower than the machine can do (the CPU
seconds are less affected than the wall seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt
from kgroups_rs import _core
from kgroups_rs.one_d import kgroups_1d

# The former programme lives with the tests, as their reference.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
from one_d_reference import quadratic_reference_cuts  # noqa: E402

Float = npt.NDArray[np.float64]


def mixture(n: int, seed: int) -> Float:
    rng = np.random.default_rng(seed)
    x = np.where(rng.random(n) < 0.5, rng.lognormal(0.0, 1.5, n), rng.lognormal(1.5, 0.3, n))
    return np.asarray(x, dtype=np.float64)


def timed(repeat: int, call: Callable[..., Any], *args: Any) -> tuple[float, float, Any]:
    """Best wall and CPU seconds of ``repeat`` calls ``call(*args)``, and the last result."""
    best_wall, best_cpu, out = np.inf, np.inf, None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = call(*args)
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu, out


def within(xs: Float, ws: Float, cuts: list[int]) -> float:
    """W of the interval partition of sorted data (gap form, a sum of non-negative terms)."""
    bounds = [0, *cuts, xs.shape[0]]
    total = 0.0
    for a, b in zip(bounds[:-1], bounds[1:]):
        if b - a < 2:
            continue
        left = np.cumsum(ws[a:b])[:-1]
        s = float(ws[a:b].sum())
        total += float(np.sum(np.diff(xs[a:b]) * left * (s - left))) / s
    return total


def sorted_cuts(x: Float, labels: npt.NDArray[np.int64]) -> list[int]:
    order = np.argsort(x, kind="stable")
    return (np.flatnonzero(np.diff(labels[order])) + 1).tolist()


def loadavg() -> Optional[list[float]]:
    try:
        return [float(v) for v in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sizes = [2000, 5000, 10000, 20000, 50_000, 100_000, 1_000_000, 2_000_000]
    parser.add_argument("--sizes", type=int, nargs="+", default=sizes)
    parser.add_argument("--ks", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old-budget", type=float, default=60.0, help="seconds the old programme may take")
    parser.add_argument("--old-max-n", type=int, default=100_000, help="largest n for the old programme")
    parser.add_argument("--weighted", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default="bench_one_d.json")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.repeat = [2000, 20_000, 200_000], 1

    load_before = loadavg()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average {load_before}")
    print(
        "lognormal mixture, " + ("weights uniform in [0.5, 2]" if args.weighted else "unit weights")
        + f"; new: best of {args.repeat}, old: one call\n"
    )
    header = (
        f"{'n':>9} {'k':>2} | {'new wall':>9} {'new cpu':>8} {'solver':>8} | {'old wall':>9} "
        f"{'speed-up':>9} | same cuts  W rel. diff"
    )
    print(header)
    print("-" * len(header))
    records: list[dict[str, Any]] = []
    old_last: dict[int, tuple[int, float]] = {}  # k -> (n, seconds) of the last old run
    for n in args.sizes:
        x = mixture(n, args.seed)
        w = np.random.default_rng(args.seed + 1).uniform(0.5, 2.0, n) if args.weighted else None
        order = np.argsort(x, kind="stable")
        xs = np.ascontiguousarray(x[order])
        ws = np.ones(n) if w is None else np.ascontiguousarray(w[order])
        for k in args.ks:
            new_wall, new_cpu, result = timed(args.repeat, kgroups_1d, x, k, w)
            solver_wall, _, _ = timed(args.repeat, _core.optimal_cuts_1d, xs, ws, k)
            new_cuts = sorted_cuts(x, result.labels)
            record: dict[str, Any] = {
                "n": n,
                "k": k,
                "new_wall_s": new_wall,
                "new_cpu_s": new_cpu,
                "solver_wall_s": solver_wall,
                "new_cuts": new_cuts,
                "new_within": result.within,
                "old_wall_s": None,
                "old_skipped": None,
                "speedup": None,
                "same_cuts": None,
                "within_rel_diff": None,
            }
            prev = old_last.get(k)
            predicted = 0.0 if prev is None else prev[1] * (n / prev[0]) ** 2
            if n <= args.old_max_n and predicted <= args.old_budget:
                t0 = time.perf_counter()
                old_cuts = quadratic_reference_cuts(x, k, w).tolist()
                old_wall = time.perf_counter() - t0
                old_last[k] = (n, old_wall)
                w_new, w_old = within(xs, ws, new_cuts), within(xs, ws, old_cuts)
                record.update(
                    old_wall_s=old_wall,
                    speedup=old_wall / new_wall,
                    same_cuts=old_cuts == new_cuts,
                    within_rel_diff=abs(w_new - w_old) / max(w_new, w_old),
                )
            else:
                record["old_skipped"] = (
                    f"n > --old-max-n {args.old_max_n}"
                    if n > args.old_max_n
                    else f"predicted {predicted:.0f} s > --old-budget {args.old_budget:.0f} s"
                )
            records.append(record)
            old_txt = (
                f"{record['old_wall_s']:9.3f} {record['speedup']:8.0f}x | {str(record['same_cuts']):>9}"
                f"  {record['within_rel_diff']:.1e}"
                if record["old_wall_s"] is not None
                else f"{'(skipped)':>9} {'':>9} |"
            )
            new_txt = f"{new_wall:9.3f} {new_cpu:8.3f} {solver_wall:8.3f}"
            print(f"{n:>9} {k:>2} | {new_txt} | {old_txt}", flush=True)
    load_after = loadavg()
    print(f"\nload average after: {load_after}")
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump(
            {
                "bench": "bench_one_d",
                "machine": {"processor": platform.processor() or platform.machine(), "cpus": os.cpu_count()},
                "load_average_before": load_before,
                "load_average_after": load_after,
                "data": "lognormal mixture",
                "weighted": args.weighted,
                "repeat": args.repeat,
                "records": records,
            },
            out,
            indent=2,
        )
    print(f"table written to {args.json}")


if __name__ == "__main__":
    main()
