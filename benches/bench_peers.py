"""Kernel k-groups against its peers on the paper's eq. 56 data, timed in one run.

Data: two Gaussians in D = 10 (mu_1 = 0, mu_2 = 0.7 * 1), n/2 points each. The energy Gram
matrix (rho = ||x - y||, base point 0) is built once with numpy. Each method starts from one
initialisation:

- ``kernel_kgroups``: Hartigan from k-means++ (feature space), one start; timed as users call
  it (with the O(n^2) check that G is finite and symmetric) and with ``check_symmetry=False``
  ("no check", for a matrix known to be symmetric, e.g. from ``energy_gram``);
- ``kernel_kmeans``: batch Lloyd from the same k-means++ start (same seed);
- tslearn ``KernelKMeans(kernel="precomputed", n_init=1)``: batch Lloyd from random labels.
  Its distance assumes a normalised kernel (k(x, x) = 1), so on the energy kernel it is
  not exact kernel k-means; its time is still the cost of the peer's loop.

Times are medians of ``--repeat`` runs (interleaved). Accuracy is eq. 55 (best label
permutation) against the true components. Usage::

    python benches/bench_peers.py [--sizes 2000 5000 10000 20000] [--ks 2 10] [--repeat 3]
        [--no-tslearn] [--tslearn-max-n 10000] [--json bench_peers.json]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
import time
from typing import Any, Callable

import kgroups_rs
import numpy as np
from kgroups_rs.accuracy import clustering_accuracy
from scipy.spatial.distance import cdist


def eq56(n: int, dim: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    truth = np.repeat([0, 1], [n - n // 2, n // 2])
    mean = np.zeros(dim)
    mean[:10] = 0.7
    X = rng.normal(size=(n, dim)) + truth[:, None] * mean
    return X, truth


def energy_gram_numpy(X: np.ndarray) -> np.ndarray:
    r0 = np.linalg.norm(X, axis=1)
    return 0.5 * (r0[:, None] + r0[None, :] - cdist(X, X))


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000])
    parser.add_argument("--ks", type=int, nargs="+", default=[2, 10])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-tslearn", action="store_true")
    parser.add_argument("--tslearn-max-n", type=int, default=10000, help="skip tslearn above this n")
    parser.add_argument("--json", default="bench_peers.json", help="write the table here as JSON")
    args = parser.parse_args()
    records: list[dict[str, object]] = []

    try:
        from tslearn.clustering import KernelKMeans
    except ImportError:
        KernelKMeans = None
        print("tslearn not installed: its column is skipped (pip install tslearn)")

    header = (
        f"{'n':>6} {'k':>3} | {'kgroups s':>10} {'no check':>9} {'acc':>6} | {'lloyd s':>9} {'acc':>6} | "
        f"{'tslearn s':>10} {'acc':>6} | {'tslearn/kgroups':>15}"
    )
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(args.seed)
    for n in args.sizes:
        X, truth = eq56(n, 10, rng)
        G = energy_gram_numpy(X)
        for k in args.ks:
            t_kg, res = timed(
                functools.partial(kgroups_rs.kernel_kgroups, G, k, random_state=args.seed), args.repeat
            )
            # The same run without the O(n^2) symmetry check (for a matrix known to be symmetric,
            # e.g. from energy_gram): the check reads G once more in tile order.
            t_trusted, res_trusted = timed(
                functools.partial(
                    kgroups_rs.kernel_kgroups, G, k, random_state=args.seed, check_symmetry=False
                ),
                args.repeat,
            )
            assert np.array_equal(res_trusted.labels, res.labels)
            t_ll, res_ll = timed(
                functools.partial(kgroups_rs.kernel_kmeans, G, k, random_state=args.seed), args.repeat
            )
            acc_kg = clustering_accuracy(truth, res.labels)
            acc_ll = clustering_accuracy(truth, res_ll.labels)
            ts_cell, acc_ts_cell, ratio_cell = "-", "-", "-"
            record: dict[str, object] = {
                "n": n, "k": k, "kgroups_s": t_kg, "kgroups_no_check_s": t_trusted,
                "kgroups_accuracy": acc_kg, "lloyd_s": t_ll, "lloyd_accuracy": acc_ll,
                "tslearn_s": None, "tslearn_accuracy": None,
            }  # fmt: skip
            if KernelKMeans is not None and not args.no_tslearn and n <= args.tslearn_max_n:
                model = KernelKMeans(n_clusters=k, kernel="precomputed", n_init=1, random_state=args.seed)
                t_ts, labels_ts = timed(functools.partial(model.fit_predict, G), 1)
                ts_cell = f"{t_ts:10.3f}"
                acc_ts_cell = f"{clustering_accuracy(truth, labels_ts):6.3f}"
                ratio_cell = f"{t_ts / t_kg:15.0f}x"
                record["tslearn_s"] = t_ts
                record["tslearn_accuracy"] = clustering_accuracy(truth, labels_ts)
            records.append(record)
            print(
                f"{n:>6} {k:>3} | {t_kg:10.4f} {t_trusted:9.4f} {acc_kg:6.3f} | {t_ll:9.4f} {acc_ll:6.3f} | "
                f"{ts_cell:>10} {acc_ts_cell:>6} | {ratio_cell:>15}",
                flush=True,
            )
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump(
            {"machine": platform.platform(), "cpus": os.cpu_count(), "load_at_end": os.getloadavg(),
             "repeat": args.repeat, "records": records},
            out, indent=2,
        )  # fmt: skip
    print(f"table written to {args.json}")


if __name__ == "__main__":
    main()
