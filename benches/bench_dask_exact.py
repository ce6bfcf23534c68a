"""Benchmark of exact distributed kernel k-groups (``kgroups_rs.dask.kernel_kgroups_exact``,
``KernelKGroups(method="exact")``) on a ``distributed.LocalCluster`` of two single-threaded
workers, against the single-machine matrix-free fit from the same start.

Data: a k-component Gaussian mixture in D dimensions, component j ~ N(4 e_j, I), built on the
client with a fixed seed (so that the single-machine fit sees the same points), split into
``--chunks`` row chunks. The start: the one the distributed path uses for
``init="k-means++"`` (Hartigan from k-means++ on a seeded sample of 4096 rows, every point to
the nearest of the sample's cluster means), computed once here and given to both fits.

Reported (JSON): for the distributed exact fit its wall time, rounds, moves, bytes per round
(candidates received plus moves sent, per chunk), the number of passes over all pairs and
whether the final pass verified a local optimum; for the single-machine matrix-free fit
(``kernel_kgroups_from_data(..., base="origin")`` on the centred data, all cores) its wall time
and sweeps; the distributed fit's time split into its sums passes (the first and the final
independent check) and its rounds, and its time without the check; the exact W of both, and
the exact W of the labels of the Nyström fit (``kernel_kgroups_nystrom``, the default
distributed method) for comparison; the client's peak resident memory.

Do not run the defaults on a shared machine: n = 10^5 costs about n^2 D kernel evaluations
(the first pass and the check, each pair once) plus n D per move. ``--n 20000`` checks that
it works.

Usage::

    python benches/bench_dask_exact.py [--n 100000] [--large] [--d 10] [--k 10]
        [--chunks 8] [--seed 0] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from typing import Any

import dask.array as da
import numpy as np


def mixture(n: int, dim: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = 4.0 * np.eye(k, dim)
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, dim))


def start_labels(Xc: np.ndarray, k: int, seed: int) -> np.ndarray:
    """The distributed path's k-means++ start, computed on one machine."""
    from kgroups_rs import _core, kernel_kgroups_from_data
    from kgroups_rs.dask._exact import INIT_SAMPLE_ROWS

    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(Xc.shape[0], size=min(Xc.shape[0], INIT_SAMPLE_ROWS), replace=False))
    sample = np.ascontiguousarray(Xc[rows])
    fit = kernel_kgroups_from_data(sample, k, "k-means++", base="origin", random_state=seed)
    labels = np.asarray(fit.labels, dtype=np.int64)
    ones = np.ones(sample.shape[0])
    own = np.asarray(_core.exact_cluster_sums(sample, sample, labels, ones, k, "power", 1.0, None))
    terms = np.bincount(labels, weights=own[np.arange(labels.size), labels], minlength=k)
    weights = np.bincount(labels, minlength=k).astype(float)
    sums = np.asarray(_core.exact_cluster_sums(Xc, sample, labels, ones, k, "power", 1.0, None))
    diagonal = np.asarray(_core.exact_diagonal(Xc, "power", 1.0, None))
    cost = (diagonal[:, None] - 2.0 * sums / weights) + terms / weights**2
    return np.asarray(np.argmin(cost, axis=1), dtype=np.int64)


def exact_within(Xc: np.ndarray, labels: np.ndarray, k: int) -> float:
    """W of a partition of the exact kernel: sum_i G_ii - sum_l Q_l / s_l (one pass over all
    pairs, each pair once)."""
    from kgroups_rs import _core

    ones = np.ones(Xc.shape[0])
    labels = np.require(labels, np.int64, ["C", "A"])
    sums = np.asarray(_core.exact_within_sums(Xc, labels, ones, k, "power", 1.0, None))
    terms = np.bincount(labels, weights=sums[np.arange(labels.size), labels], minlength=k)
    sizes = np.bincount(labels, minlength=k)
    diagonal = np.asarray(_core.exact_diagonal(Xc, "power", 1.0, None))
    return float(diagonal.sum() - sum(t / s for t, s in zip(terms, sizes) if s))


def time_before_check(result: Any, began: float, ended: float) -> float:
    """The fit's wall time less its last sums pass (the independent check): the time to a
    round that proposes no move."""
    return ended - began - (result.pass_seconds[-1] if result.n_passes > 1 else 0.0)


def run(n: int, dim: int, k: int, chunks: int, seed: int) -> dict[str, Any]:
    import distributed
    import kgroups_rs.dask as kgd
    from kgroups_rs import kernel_kgroups_from_data

    X = mixture(n, dim, k, seed)
    Xc = np.ascontiguousarray(X - X.mean(axis=0))
    init = start_labels(Xc, k, seed)
    row: dict[str, Any] = {"n": n, "D": dim, "k": k, "chunks": chunks, "workers": 2}
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        Xd = da.from_array(X, chunks=(-(-n // chunks), dim)).persist()
        began = time.perf_counter()
        result = kgd.kernel_kgroups_exact(Xd, k, da.from_array(init, chunks=Xd.chunks[0]))
        labels = result.labels.compute()
        ended = time.perf_counter()
        row["dask_exact"] = {
            "seconds": ended - began,
            "rounds": result.n_iter,
            "moves": result.n_moves,
            "passes": result.n_passes,
            "verified": result.verified,
            "verification_drift": result.verification_drift,
            "bytes_per_round_mean": float(np.mean(result.round_bytes)) if result.round_bytes else 0.0,
            "bytes_per_round_max": int(max(result.round_bytes, default=0)),
            "round_seconds_mean": float(np.mean(result.round_seconds)) if result.round_seconds else 0.0,
            "rounds_seconds": float(np.sum(result.round_seconds)),
            "pass_seconds": list(result.pass_seconds),
            "seconds_before_the_check": time_before_check(result, began, ended),
            "within": result.within,
        }
        nystrom = kgd.kernel_kgroups_nystrom(Xd, k, random_state=seed)
        nystrom_labels = nystrom.labels.compute()
    row["client_peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    began = time.perf_counter()
    single = kernel_kgroups_from_data(Xc, k, init, base="origin")
    row["single_machine"] = {
        "seconds": time.perf_counter() - began,
        "sweeps": single.n_iter,
        "within": single.within,
    }
    row["same_labels"] = bool(np.array_equal(labels, np.asarray(single.labels)))
    row["nystrom_labels_exact_within"] = exact_within(Xc, nystrom_labels, k)
    return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--large", action="store_true", help="also n = 10^6")
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    sizes = [args.n] + ([1_000_000] if args.large else [])
    rows = [run(n, args.d, args.k, args.chunks, args.seed) for n in sizes]
    text = json.dumps(rows, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as out:
            out.write(text + "\n")
    ok = all(r["dask_exact"]["verified"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
