"""The dense symmetry check of two builds side by side (issue 32, item 2: the exact-symmetry
hash removed, every pair compared with its mirror): the check alone and the default
``kernel_kgroups(G, k)`` call, in one run.

``G`` is the energy Gram matrix (``energy_gram``, exactly symmetric) of the paper's eq. 56
data: two Gaussians in D = 10, the second shifted by 0.7 in every coordinate, n/2 points each.
``--perturb`` instead adds a symmetric-within-tolerance perturbation (relative 1e-12 on the
upper triangle), so that the bitwise comparison of the tiles fails and every tile is judged by
the rule.

Each build runs in its own worker process (``--python`` and ``--pythonpath`` name the
interpreter and the package directory of each side, ``NAME=PYTHON[:PYTHONPATH]``); the workers
load the same ``G`` and time the calls in turn, alternating their order from one repetition to
the next. Rows (best and median of ``--repeat`` calls):

- ``numpy G.sum()``: one pass over G (the floor);
- ``check``: ``_core.check_kernel(G)``;
- ``kernel_kgroups, check`` / ``kernel_kgroups, check_symmetry=False``: the full call (one
  k-means++ start, ``random_state=0``), with the default check and without it.

The machine's load average is printed and stored: the CPU may be shared, so compare rows of
one run only.

Usage::

    python benches/bench_symmetry.py --side main=/venv/bin/python \\
        --side new=/venv/bin/python:/path/to/worktree/python [--n 10000] [--k 2] [--repeat 7]
        [--n-threads N] [--perturb] [--json bench_symmetry.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

import kgroups_rs
import numpy as np

#: The worker run by each side's interpreter: loads G, then for each line naming a call,
#: runs it and prints its wall time.
WORKER = """
import sys, time
import numpy as np
import kgroups_rs
from kgroups_rs import _core
g = np.load(sys.argv[1])
k, threads = int(sys.argv[2]), (None if sys.argv[3] == "None" else int(sys.argv[3]))
calls = {
    "numpy G.sum()": lambda: g.sum(),
    "check": lambda: _core.check_kernel(g, threads),
    "kernel_kgroups, check": lambda: kgroups_rs.kernel_kgroups(
        g, k, random_state=0, n_threads=threads),
    "kernel_kgroups, check_symmetry=False": lambda: kgroups_rs.kernel_kgroups(
        g, k, random_state=0, n_threads=threads, check_symmetry=False),
}
print("ready", kgroups_rs.__file__, flush=True)
for line in sys.stdin:
    start = time.perf_counter()
    calls[line.strip()]()
    print(time.perf_counter() - start, flush=True)
"""

CALLS = ["numpy G.sum()", "check", "kernel_kgroups, check", "kernel_kgroups, check_symmetry=False"]


class Side:
    """One build, timed in a worker process on the matrix saved at ``path``."""

    def __init__(self, spec: str, path: str, k: int, threads: int | None) -> None:
        self.name, _, rest = spec.partition("=")
        python, _, pythonpath = rest.partition(":")
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        self._proc = subprocess.Popen(
            [python or sys.executable, "-c", WORKER, path, str(k), str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=os.path.dirname(path),  # not the repository: import the side's own package
            env=env,
        )
        assert self._proc.stdout is not None
        ready = self._proc.stdout.readline().split()
        if not ready or ready[0] != "ready":
            raise RuntimeError(f"the worker of {spec} did not start")
        self.package = ready[1]

    def time(self, call: str) -> float:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(call + "\n")
        self._proc.stdin.flush()
        return float(self._proc.stdout.readline())

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", action="append", required=True, help="NAME=PYTHON[:PYTHONPATH]")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--n-threads", type=int, default=None)
    parser.add_argument("--perturb", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default="bench_symmetry.json")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    half = args.n // 2
    x = np.vstack([rng.normal(size=(half, 10)), rng.normal(size=(args.n - half, 10)) + 0.7])
    g = kgroups_rs.energy_gram(x)  # exactly symmetric
    if args.perturb:
        upper = np.triu(np.ones_like(g, dtype=bool), 1)
        g[upper] *= 1.0 + 1e-12
    workdir = tempfile.TemporaryDirectory()
    path = os.path.join(workdir.name, "g.npy")
    np.save(path, g)
    del g
    sides = [Side(spec, path, args.k, args.n_threads) for spec in args.side]
    load_before = os.getloadavg()
    times: dict[tuple[str, str], list[float]] = {(s.name, c): [] for s in sides for c in CALLS}
    for rep in range(args.repeat):
        order = sides if rep % 2 == 0 else list(reversed(sides))
        for side in order:
            for call in CALLS:
                times[(side.name, call)].append(side.time(call))
    load_after = os.getloadavg()
    for side in sides:
        side.close()
    workdir.cleanup()

    print(f"n = {args.n}, k = {args.k}, perturbed: {args.perturb}, load {load_before}")
    for side in sides:
        print(f"{side.name}: {side.package}")
    print(f"{'':48s} {'best s':>8s} {'median s':>9s}")
    records = []
    for call in CALLS:
        for side in sides:
            values = times[(side.name, call)]
            record = {
                "side": side.name,
                "call": call,
                "best_s": min(values),
                "median_s": statistics.median(values),
            }
            records.append(record)
            label = f"{call} [{side.name}]"
            print(f"{label:48s} {record['best_s']:8.4f} {record['median_s']:9.4f}")
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
                "n_threads": args.n_threads,
                "repeat": args.repeat,
                "sides": {side.name: side.package for side in sides},
                "records": records,
            },
            out,
            indent=2,
        )
    print(f"table written to {args.json}")


if __name__ == "__main__":
    main()
