"""Agreement table: does exact distributed kernel k-groups reach as good a partition as the
single-machine fit from the same start?

``kgroups_rs.dask.kernel_kgroups_exact`` and the single-machine matrix-free fit
(``kernel_kgroups_from_data(X - X.mean(0), k, init, base="origin")``) both run Hartigan's
method on the exact kernel and both stop at a local optimum in which no single point can move
with a gain. They make their moves in different orders: the single machine sweeps the points
one by one, the distributed fit makes a round of moves against the totals of the previous
round (a move that a move of the same round made improving waits for the next round). So
from the same start they can stop at different local optima. This script measures how far
apart those optima are, over many problems.

Problems: blobs, k centres drawn from N(0, 3^2) in D dimensions, every point one of them plus
N(0, 1) noise; n in {500, 2000, 5000, 20000}, D in {1, 3, 10}, k in {2, 5, 10} (every
combination up to n = 5000, a few at n = 20000), each with two kernels: the power semimetric
(alpha = 1) without weights, and the Gaussian kernel (sigma = 2) with point weights drawn
uniformly from [0.5, 2]. The dask array is cut into 3 or 4 row chunks of unequal sizes and
the distributed fit runs on dask's synchronous scheduler (one task at a time, one thread per
task), the single-machine fit on one thread, so their times compare one core with one core.

Two kinds of start, reported separately, each given to both fits:

* **seeded**: every point to the nearest of k distinct data points drawn at random, a start
  near a good partition, like k-means++'s;
* **random**: uniformly random labels, far from any good partition; many moves are needed and
  the two orders of moves have more room to part.

Per problem (JSON): n, D, k, weighted, semimetric, start, the chunk sizes, the relative
difference ``rel = (W_dask - W_single) / W_single`` of the within-cluster dispersion W
(minimised; rel > 0 means the distributed fit stopped at a worse optimum, rel < 0 at a better
one), whether the labels are identical, the distributed fit's rounds, moves, ``verified``
(its final exact pass found no improving move) and seconds, and the single machine's sweeps
and seconds.

The summary (markdown, one table per start kind): the number of problems; the share with
``rel <= 1e-12`` (W no worse than the single machine's, up to rounding); the share within
0.1 % (``rel <= 1e-3``); the share with identical labels; the share where the distributed
fit stopped at a better optimum (``rel < -1e-12``); the largest relative excess (the largest
rel, the worst case for the distributed fit); whether every distributed fit was verified; the
seconds of all the fits of either kind. A share well below 1 in the first column is not a
failure: it says how often the other order of moves stops at a worse optimum, and the largest
excess says by how much.

The script fails (exit status 1) when a distributed fit is not verified.

Usage::

    python benches/bench_dask_agreement.py [--quick] [--seed 0] [--json out.json]

The full table takes a few minutes on two cores; ``--quick`` runs a handful of small problems.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

#: (n, D, k) of the full table: every combination up to n = 5000, a few at n = 20 000.
FULL = [
    (n, dim, k) for n in (500, 2000, 5000) for dim in (1, 3, 10) for k in (2, 5, 10)
] + [(20_000, 1, 5), (20_000, 3, 2), (20_000, 3, 10), (20_000, 10, 5)]
#: (n, D, k) of ``--quick``.
QUICK = [(500, 1, 2), (500, 3, 5), (2000, 10, 10), (2000, 3, 2)]
#: The two kernels: (weighted, semimetric, sigma).
KERNELS = [(False, "power", None), (True, "gaussian", 2.0)]
#: Row chunks as shares of n (3 or 4 chunks of unequal sizes, alternating by problem).
CHUNK_SHARES = [(0.45, 0.35, 0.2), (0.4, 0.1, 0.3, 0.2)]
#: rel at or below this: W no worse than the single machine's (rounding).
NO_WORSE = 1e-12
#: rel at or below this: within 0.1 %.
CLOSE = 1e-3


def blobs(n: int, dim: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """k centres from N(0, 3^2) in D dimensions, every point a centre plus unit noise."""
    centres = rng.normal(0.0, 3.0, size=(k, dim))
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, dim))


def seeded_start(X: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Every point to the nearest of k distinct data points drawn at random."""
    centres = X[rng.choice(X.shape[0], size=k, replace=False)]
    distances = np.empty((X.shape[0], k))
    for c in range(k):
        distances[:, c] = ((X - centres[c]) ** 2).sum(axis=1)
    return np.asarray(np.argmin(distances, axis=1), dtype=np.int64)


def random_start(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random labels."""
    return np.asarray(rng.integers(0, k, n), dtype=np.int64)


def chunk_sizes(n: int, shares: tuple[float, ...]) -> tuple[int, ...]:
    sizes = [int(round(n * s)) for s in shares[:-1]]
    return (*sizes, n - sum(sizes))


def run_problem(
    n: int, dim: int, k: int, weighted: bool, semimetric: str, sigma: Any, index: int, seed: int
) -> list[dict[str, Any]]:
    """Both fits of one problem from each kind of start: one row per start."""
    import dask
    import dask.array as da
    import kgroups_rs.dask as kgd
    from kgroups_rs import kernel_kgroups_from_data

    rng = np.random.default_rng([seed, n, dim, k, int(weighted)])
    X = blobs(n, dim, k, rng)
    weights = rng.uniform(0.5, 2.0, n) if weighted else None
    starts = {"seeded": seeded_start(X, k, rng), "random": random_start(n, k, rng)}
    chunks = chunk_sizes(n, CHUNK_SHARES[index % len(CHUNK_SHARES)])
    Xc = X - X.mean(axis=0)
    rows = []
    for start, init in starts.items():
        began = time.perf_counter()
        with dask.config.set(scheduler="synchronous"):
            result = kgd.kernel_kgroups_exact(
                da.from_array(X, chunks=(chunks, dim)), k, init,
                semimetric=semimetric, sigma=sigma, weights=weights,
            )
            labels = result.labels.compute()
        dask_seconds = time.perf_counter() - began
        began = time.perf_counter()
        single = kernel_kgroups_from_data(
            Xc, k, init, base="origin", semimetric=semimetric, sigma=sigma, weights=weights, n_threads=1,
        )
        single_seconds = time.perf_counter() - began
        rows.append({
            "n": n, "D": dim, "k": k, "weighted": weighted, "semimetric": semimetric, "sigma": sigma,
            "start": start, "chunks": list(chunks),
            "rel": (result.within - single.within) / single.within,
            "within_dask": result.within, "within_single": single.within,
            "same_labels": bool(np.array_equal(labels, np.asarray(single.labels))),
            "dask_rounds": result.n_iter, "dask_moves": result.n_moves,
            "verified": bool(result.verified), "verification_drift": result.verification_drift,
            "dask_seconds": dask_seconds,
            "single_sweeps": single.n_iter, "single_seconds": single_seconds,
        })
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    summary = {}
    for start in ("seeded", "random"):
        mine = [r for r in rows if r["start"] == start]
        if not mine:
            continue
        rel = np.array([r["rel"] for r in mine])
        summary[start] = {
            "problems": len(mine),
            "share_no_worse": float(np.mean(rel <= NO_WORSE)),
            "share_within_0.1%": float(np.mean(rel <= CLOSE)),
            "share_better": float(np.mean(rel < -NO_WORSE)),
            "share_same_labels": float(np.mean([r["same_labels"] for r in mine])),
            "largest_excess": float(rel.max()),
            "all_verified": all(r["verified"] for r in mine),
            "dask_seconds": float(sum(r["dask_seconds"] for r in mine)),
            "single_seconds": float(sum(r["single_seconds"] for r in mine)),
        }
    return summary


def markdown(summary: dict[str, dict[str, Any]]) -> str:
    lines = []
    for start, s in summary.items():
        lines += [
            f"Start: {start}",
            "",
            "| problems | W no worse (rel <= 1e-12) | within 0.1 % | same labels | W better "
            "| largest relative excess | all verified | seconds dask / single |",
            "|---:|---:|---:|---:|---:|---:|:---:|---:|",
            f"| {s['problems']} | {s['share_no_worse']:.1%} | {s['share_within_0.1%']:.1%} "
            f"| {s['share_same_labels']:.1%} | {s['share_better']:.1%} | {s['largest_excess']:.3g} "
            f"| {'yes' if s['all_verified'] else 'NO'} "
            f"| {s['dask_seconds']:.1f} / {s['single_seconds']:.1f} |",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a handful of small problems")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="write every row and the summary here")
    args = parser.parse_args(argv)
    problems = [
        (n, dim, k, weighted, semimetric, sigma)
        for (n, dim, k) in (QUICK if args.quick else FULL)
        for weighted, semimetric, sigma in KERNELS
    ]
    rows: list[dict[str, Any]] = []
    began = time.perf_counter()
    for index, problem in enumerate(problems):
        new = run_problem(*problem, index=index, seed=args.seed)
        rows += new
        for r in new:
            print(
                f"[{index + 1}/{len(problems)}] n={r['n']} D={r['D']} k={r['k']} {r['semimetric']} "
                f"{r['start']}: rel={r['rel']:.3g} rounds={r['dask_rounds']} "
                f"verified={r['verified']} ({r['dask_seconds']:.2f} s / {r['single_seconds']:.2f} s)",
                file=sys.stderr, flush=True,
            )
    summary = summarise(rows)
    print(markdown(summary))
    print(f"{len(problems)} problems, each from both starts, in {time.perf_counter() - began:.0f} s")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"seed": args.seed, "summary": summary, "rows": rows}, out, indent=2)
            out.write("\n")
    return 0 if all(r["verified"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
