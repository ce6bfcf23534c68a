"""The dense symmetry check (issue 12, item 3): the previous check against the current one,
and the full ``kernel_kgroups(G, k)`` call against one numpy pass over ``G``, in one run.

``G`` is the energy Gram matrix (``energy_gram``, exactly symmetric) of the paper's eq. 56
data: two Gaussians in D = 10, the second shifted by 0.7 in every coordinate, n/2 points each.
``--perturb`` instead adds a symmetric-within-tolerance perturbation (relative 1e-12 on the
upper triangle), so that the bitwise fast test fails and every tile is judged by the rule.

Rows (best and median of ``--repeat`` calls; the sides alternate within each repetition):

- ``numpy G.sum()``: one pass over G (the floor);
- ``check (reference)``: ``_core.check_kernel(G, _reference=True)``, the former check
  (64-square tiles, each judged by the rule);
- ``check (new)``: ``_core.check_kernel(G)``: one pass in row order that hashes every entry
  against its mirror (an exactly symmetric matrix ends there), then, for a matrix that is not
  exactly symmetric, 128-square tiles compared with their mirrors bit for bit and by the rule
  where a tile differs;
- ``kernel_kgroups, check`` / ``kernel_kgroups, check_symmetry=False``: the full call (one
  k-means++ start, ``random_state=0``), with the default check and without it.

``--baseline-python PY`` adds the two ``kernel_kgroups`` rows of another build (for example
the previous release installed in another virtual environment) as ``(baseline)`` rows: a
worker process started with ``PY`` loads the same ``G`` and times the same calls when asked,
alternating with this process's calls, so that before and after are measured side by side in
one run on the same matrix.

Same verdict and same error message for both checks (tested in
``src/validate/symmetry.rs``). The machine's load average is printed and stored: the CPU may be
shared, so compare rows of one run only.

Usage::

    python benches/bench_symmetry.py [--n 10000] [--k 2] [--repeat 5] [--n-threads N]
        [--perturb] [--baseline-python PY] [--json bench_symmetry.json]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
from typing import Callable, cast

import kgroups_rs
import numpy as np
from kgroups_rs import _core


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--n-threads", type=int, default=None)
    parser.add_argument("--perturb", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline-python", default=None)
    parser.add_argument("--json", default="bench_symmetry.json")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    half = args.n // 2
    x = np.vstack([rng.normal(size=(half, 10)), rng.normal(size=(args.n - half, 10)) + 0.7])
    g = kgroups_rs.energy_gram(x)
    if args.perturb:
        upper = np.triu(np.ones_like(g, dtype=bool), 1)
        g[upper] *= 1.0 + 1e-12
    load_before = os.getloadavg()
    threads = args.n_threads

    sides: dict[str, Callable[[], object]] = {
        "numpy G.sum()": lambda: g.sum(),
        "check (reference)": lambda: _core.check_kernel(g, threads, _reference=True),
        "check (new)": lambda: _core.check_kernel(g, threads),
        "kernel_kgroups, check": lambda: kgroups_rs.kernel_kgroups(
            g, args.k, random_state=0, n_threads=threads
        ),
        "kernel_kgroups, check_symmetry=False": lambda: kgroups_rs.kernel_kgroups(
            g, args.k, random_state=0, n_threads=threads, check_symmetry=False
        ),
    }
    baseline = None
    if args.baseline_python:
        baseline = Baseline(args.baseline_python, g, args.k, threads)
        for name in ("kernel_kgroups, check", "kernel_kgroups, check_symmetry=False"):
            sides[f"{name} (baseline)"] = functools.partial(baseline.time, name)
    times: dict[str, list[float]] = {name: [] for name in sides}
    for rep in range(args.repeat):
        order = list(sides) if rep % 2 == 0 else list(reversed(sides))
        for name in order:
            if name.endswith("(baseline)"):
                times[name].append(cast(float, sides[name]()))
                continue
            start = time.perf_counter()
            sides[name]()
            times[name].append(time.perf_counter() - start)
    load_after = os.getloadavg()
    if baseline is not None:
        baseline.close()

    floor = min(times["numpy G.sum()"])
    records = []
    print(f"n = {args.n}, k = {args.k}, perturbed: {args.perturb}, load {load_before}")
    if args.baseline_python:
        print(f"baseline: {args.baseline_python}")
    print(f"{'':40s} {'best s':>8s} {'median s':>9s} {'best / G.sum()':>15s}")
    for name, values in times.items():
        best = min(values)
        record = {
            "side": name,
            "best_s": best,
            "median_s": statistics.median(values),
            "best_over_sum": best / floor,
        }
        records.append(record)
        print(f"{name:40s} {best:8.4f} {record['median_s']:9.4f} {best / floor:15.2f}")
    print(f"load average after: {load_after}")
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump(
            {
                "machine": platform.platform(),
                "cpus": os.cpu_count(),
                "load_before": load_before,
                "load_after": load_after,
                "n": args.n,
                "k": args.k,
                "perturbed": args.perturb,
                "n_threads": threads,
                "repeat": args.repeat,
                "baseline_python": args.baseline_python,
                "records": records,
            },
            out,
            indent=2,
        )
    print(f"table written to {args.json}")


#: The worker run by the baseline interpreter: loads G, then for each line naming a call,
#: runs it and prints its wall time.
WORKER = """
import sys, time
import numpy as np
import kgroups_rs
g = np.load(sys.argv[1])
k, threads = int(sys.argv[2]), (None if sys.argv[3] == "None" else int(sys.argv[3]))
calls = {
    "kernel_kgroups, check": lambda: kgroups_rs.kernel_kgroups(
        g, k, random_state=0, n_threads=threads),
    "kernel_kgroups, check_symmetry=False": lambda: kgroups_rs.kernel_kgroups(
        g, k, random_state=0, n_threads=threads, check_symmetry=False),
}
print("ready", flush=True)
for line in sys.stdin:
    start = time.perf_counter()
    calls[line.strip()]()
    print(time.perf_counter() - start, flush=True)
"""


class Baseline:
    """Another build's ``kernel_kgroups``, timed in a worker process on the same ``G``."""

    def __init__(self, python: str, g: np.ndarray, k: int, threads: int | None) -> None:
        self._dir = tempfile.TemporaryDirectory()
        path = os.path.join(self._dir.name, "g.npy")
        np.save(path, g)
        self._proc = subprocess.Popen(
            [python, "-c", WORKER, path, str(k), str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=self._dir.name,  # not the repository: import the baseline's installed package
        )
        assert self._proc.stdout is not None
        if self._proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the baseline worker ({python}) did not start")

    def time(self, name: str) -> float:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(name + "\n")
        self._proc.stdin.flush()
        return float(self._proc.stdout.readline())

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait()
        self._dir.cleanup()


if __name__ == "__main__":
    main()
