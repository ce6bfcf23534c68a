"""The cost of choosing k: ``select_k`` for k = 1 ... 10 against one default fit, in one run.

The bar (issue 34): the whole ``select_k`` table for k = 1 ... 10 on n = 10 000 points
within 20 times one default ``KernelKGroups`` fit of the chosen k. For each data set the two
calls alternate, ``--repeats`` times each, and the best time of each is kept (the machine's
other jobs only ever add time); the fit uses ``max(k, 2)`` groups, since one group needs no
fit. The ratio is the best ``select_k`` time over the best fit time.

    python benches/bench_select_speed.py [--n 10000] [--repeats 3] [--seed 0] [--json out.json]
        [--given-k]

With ``--given-k`` it times the other call instead: ``KernelKGroups(k, kernel="auto")`` with
the set's true k (4 blobs, 2 circles, 2 moons; 2 for the uniform square), which compares the
two kernels at that k only, against one fit of the kernel it chose
(``KernelKGroups(k, kernel=model.kernel_)``); the bar is 5 times.

The sets: four Gaussian blobs (``make_blobs(n, centers=4, random_state=seed)``; the energy
kernel), two concentric circles (the kNN graph, after the self-tuning probe), two moons and
uniform noise in the unit square (no structure: every statistic runs and one group is the
answer). Every run reports the k and kernel chosen, so a change in what is chosen shows
beside the time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any, Callable

import kgroups_rs
import numpy as np
from sklearn.datasets import make_blobs, make_circles, make_moons


def data_sets(n: int, seed: int) -> dict[str, np.ndarray]:
    """The four sets, ``n`` points each, in 2-D."""
    rng = np.random.default_rng(seed)
    return {
        "blobs_k4": make_blobs(n, centers=4, random_state=seed)[0],
        "circles": make_circles(n, factor=0.5, noise=0.05, random_state=seed)[0],
        "moons": make_moons(n, noise=0.05, random_state=seed)[0],
        "uniform": rng.uniform(size=(n, 2)),
    }


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def measure(X: np.ndarray, repeats: int, seed: int, threads: int | None) -> dict[str, Any]:
    """Best-of-``repeats`` seconds of ``select_k`` and of one default fit, alternating."""
    select_times: list[float] = []
    fit_times: list[float] = []
    selection = None
    for _ in range(repeats):
        seconds, selection = timed(
            lambda: kgroups_rs.select_k(X, range(1, 11), random_state=seed, n_threads=threads)
        )
        select_times.append(seconds)
        model = kgroups_rs.KernelKGroups(max(int(selection.k), 2), random_state=seed, n_threads=threads)
        seconds, _ = timed(lambda model=model: model.fit(X))
        fit_times.append(seconds)
    assert selection is not None
    return {
        "k": int(selection.k),
        "kernel": selection.kernel,
        "rule": selection.rule,
        "fit_k": max(int(selection.k), 2),
        "select_seconds": select_times,
        "fit_seconds": fit_times,
        "ratio": min(select_times) / min(fit_times),
    }


#: The k given to each set with ``--given-k``.
GIVEN_K = {"blobs_k4": 4, "circles": 2, "moons": 2, "uniform": 2}


def measure_given(X: np.ndarray, k: int, repeats: int, seed: int, threads: int | None) -> dict[str, Any]:
    """Best-of-``repeats`` seconds of ``KernelKGroups(k, kernel="auto")`` and of one fit of
    the kernel it chose, alternating."""
    auto_times: list[float] = []
    fit_times: list[float] = []
    chosen = "energy"
    for _ in range(repeats):
        auto = kgroups_rs.KernelKGroups(k, kernel="auto", random_state=seed, n_threads=threads)
        seconds, _ = timed(lambda auto=auto: auto.fit(X))
        auto_times.append(seconds)
        chosen = str(auto.kernel_)
        model = kgroups_rs.KernelKGroups(k, kernel=chosen, random_state=seed, n_threads=threads)
        seconds, _ = timed(lambda model=model: model.fit(X))
        fit_times.append(seconds)
    return {
        "k": k,
        "kernel": chosen,
        "rule": "given_k",
        "fit_k": k,
        "select_seconds": auto_times,
        "fit_seconds": fit_times,
        "ratio": min(auto_times) / min(fit_times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="points per data set")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="n_threads (default: all cores)")
    parser.add_argument("--sets", nargs="+", default=None, help="a subset of the data sets")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--given-k", action="store_true", help="time KernelKGroups(k, kernel='auto')")
    args = parser.parse_args()
    sets = data_sets(args.n, args.seed)
    chosen = args.sets or list(sets)
    print(f"n = {args.n}, seed {args.seed}, best of {args.repeats}; load average {os.getloadavg()}")
    first = "kernel='auto' at k s" if args.given_k else "select_k s"
    print(f"| data set | k chosen (kernel) | {first} | fit s (k) | ratio |")
    print("|---|---|---:|---:|---:|")
    records = {}
    for name in chosen:
        if args.given_k:
            r = measure_given(sets[name], GIVEN_K[name], args.repeats, args.seed, args.threads)
        else:
            r = measure(sets[name], args.repeats, args.seed, args.threads)
        records[name] = r
        print(
            f"| {name} | {r['k']} ({r['kernel']}) | {min(r['select_seconds']):.2f} "
            f"| {min(r['fit_seconds']):.2f} ({r['fit_k']}) | {r['ratio']:.1f} |",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}")
    if args.json is not None:
        machine = {"platform": platform.platform(), "cpus": os.cpu_count(), "version": kgroups_rs.__version__}
        out = {"n": args.n, "seed": args.seed, "given_k": args.given_k, "machine": machine}
        out["records"] = records
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
