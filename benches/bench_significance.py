"""Calibration and power of :func:`kgroups_rs.cluster_significance`, by simulation.

(a) Calibration: data drawn from one Gaussian (the null hypothesis) of several shapes
    (n, D, isotropic or anisotropic covariance, rotated at random); the rejection rate at level
    0.05 over many data sets (1 000 per shape), with its 95 % Wilson interval.
    With ``n_null = 99`` the test rejects when at most 4 null statistics are <= the observed
    one, exactly level 0.05 if the null is right.
(b) Power against the separation of two groups of n/2 points (two Gaussians N(0, I) and
    N(delta e_1, I); two lognormal clouds exp(Z) and exp(Z) + delta e_1, Z ~ N(0, I)), for
    the energy test (its conditional null) and, in the same run on the same data,
    SigClust's own statistic, the 2-means cluster index CI = within-SS / total-SS, with the
    same conditional Gaussian null (null data sets with exactly the data's sample covariance,
    drawn here with numpy), 2-means computed by Hartigan's method
    (``kgroups_rs.kernel_kgroups`` on the linear kernel X Xᵀ, the method of R's ``kmeans``),
    the same number of null data sets and starts. delta = 0 is a single group: for the
    Gaussian it is the level, for the lognormal a non-Gaussian single group.

Run::

    python benches/bench_significance.py [--quick] [--out bench_significance.json]

Prints the tables and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from typing import Any

import kgroups_rs
import numpy as np

LEVEL = 0.05


def wilson(rejections: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a binomial proportion."""
    if trials == 0:
        return (math.nan, math.nan)
    p = rejections / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return (centre - half, centre + half)


def rotation(dim: int, rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(dim, dim)))
    return q * np.sign(np.diag(r))


def null_shape(n: int, dim: int, anisotropic: bool, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Standard deviations per axis and a random rotation of one shape."""
    rng = np.random.default_rng([seed, n, dim, int(anisotropic)])
    if anisotropic:
        variances = 10.0 ** (-np.arange(dim) / max(dim - 1, 1))  # 1 down to 0.1
    else:
        variances = np.ones(dim)
    return np.sqrt(variances), rotation(dim, rng)


def calibration(shapes: list[tuple[int, int, bool]], n_sets: int, n_null: int, n_init: int,
                seed: int) -> list[dict[str, Any]]:
    rows = []
    for n, dim, anisotropic in shapes:
        sd, rot = null_shape(n, dim, anisotropic, seed)
        start = time.perf_counter()
        rejections = 0
        pvalues = []
        for i in range(n_sets):
            rng = np.random.default_rng([seed, n, dim, int(anisotropic), i])
            X = (rng.normal(size=(n, dim)) * sd) @ rot.T
            result = kgroups_rs.cluster_significance(
                X, 2, n_null=n_null, random_state=i, n_init=n_init)
            pvalues.append(result.pvalue)
            rejections += result.pvalue <= LEVEL
        low, high = wilson(rejections, n_sets)
        row = {
            "n": n, "D": dim, "anisotropic": anisotropic,
            "data_sets": n_sets, "rejection_rate": rejections / n_sets,
            "wilson95": [low, high], "mean_pvalue": float(np.mean(pvalues)),
            "seconds": time.perf_counter() - start,
        }
        rows.append(row)
        print(f"  n={n:4d} D={dim:3d} {'aniso' if anisotropic else 'iso  '} "
              f"reject {row['rejection_rate']:.3f} [{low:.3f}, {high:.3f}]  "
              f"mean p {row['mean_pvalue']:.3f}  ({row['seconds']:.0f} s)", flush=True)
    return rows


def two_groups(family: str, n: int, dim: int, delta: float, rng: np.random.Generator) -> np.ndarray:
    half = n // 2
    z = rng.normal(size=(n, dim))
    X = np.exp(z) if family == "lognormal" else z
    X[half:, 0] += delta
    return X


def conditional_null(eigenvalues: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """A null data set with exactly the sample covariance eigenvalues ``eigenvalues``: a
    uniformly random orthonormal frame orthogonal to the ones vector, column j times
    ``sqrt((n - 1) lambda_j)`` (as ``cluster_significance`` draws them)."""
    rank = min(len(eigenvalues), n - 1)
    z = rng.normal(size=(n, rank))
    z -= z.mean(axis=0)
    q, r = np.linalg.qr(z)
    q *= np.sign(np.diag(r))
    return q * np.sqrt((n - 1) * eigenvalues[:rank])


def kmeans_index(X: np.ndarray, n_init: int, seed: int) -> float:
    """SigClust's 2-means cluster index: within-SS / total-SS of the best 2-means partition
    found by Hartigan's method (kernel k-groups on the linear kernel)."""
    Y = X - X.mean(axis=0)
    G = Y @ Y.T
    result = kgroups_rs.kernel_kgroups(G, 2, n_init=n_init, random_state=seed, n_threads=1,
                                       check_symmetry=False)
    return float(result.within / np.trace(G))


def power(families: list[str], deltas: list[float], n: int, dim: int, n_sets: int, n_null: int,
          n_init: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for family in families:
        for delta in deltas:
            start = time.perf_counter()
            energy_rejections = 0
            index_rejections = 0
            for i in range(n_sets):
                rng = np.random.default_rng([seed, 7, int(delta * 1000), i, family == "lognormal"])
                X = two_groups(family, n, dim, delta, rng)
                result = kgroups_rs.cluster_significance(X, 2, n_null=n_null, random_state=i,
                                                         n_init=n_init)
                energy_rejections += result.pvalue <= LEVEL
                # SigClust on the same data, the same null Gaussian, the same number of draws.
                observed = kmeans_index(X, n_init, i)
                null_rng = np.random.default_rng([seed, 8, int(delta * 1000), i])
                null_index = [
                    kmeans_index(conditional_null(result.sample_eigenvalues, n, null_rng), n_init, j)
                    for j in range(n_null)
                ]
                p = (1 + sum(t <= observed for t in null_index)) / (n_null + 1)
                index_rejections += p <= LEVEL
            row = {"family": family, "delta": delta, "n": n, "D": dim, "data_sets": n_sets,
                   "energy_power": energy_rejections / n_sets,
                   "energy_wilson95": list(wilson(energy_rejections, n_sets)),
                   "sigclust_2means_power": index_rejections / n_sets,
                   "sigclust_2means_wilson95": list(wilson(index_rejections, n_sets)),
                   "seconds": time.perf_counter() - start}
            rows.append(row)
            print(f"  {family:9s} delta={delta:4.1f}  energy {row['energy_power']:.3f}  "
                  f"2-means CI {row['sigclust_2means_power']:.3f}  ({row['seconds']:.0f} s)", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a short run (few data sets)")
    parser.add_argument("--out", default="bench_significance.json", help="JSON output path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calibration-sets", type=int, default=None,
                        help="null data sets per shape (default 1000)")
    parser.add_argument("--power-sets", type=int, default=None,
                        help="data sets per point of the power curves (default 200)")
    parser.add_argument("--skip-power", action="store_true")
    parser.add_argument("--skip-calibration", action="store_true")
    args = parser.parse_args()
    n_null, n_init = 99, 1
    shapes = [(n, d, a) for n in (50, 200) for d in (2, 10) for a in (False, True)]
    high_dim = [(50, 200, False), (50, 200, True)]
    sets = args.calibration_sets or (40 if args.quick else 1000)
    power_sets = args.power_sets or (20 if args.quick else 200)
    deltas = [0.0, 1.0, 2.0, 3.0, 4.0]
    payload: dict[str, Any] = {
        "benchmark": "cluster_significance", "level": LEVEL, "n_null": n_null, "n_init": n_init,
        "kgroups_rs": kgroups_rs.__version__, "python": platform.python_version(),
        "machine": platform.machine(), "quick": args.quick,
    }
    if not args.skip_calibration:
        print(f"(a) calibration: rejection rate at {LEVEL} under one Gaussian")
        payload["calibration"] = calibration(shapes + high_dim, sets, n_null, n_init, args.seed)
    if not args.skip_power:
        print("(b) power against separation, n = 100 (50 + 50), D = 2")
        payload["power"] = power(["gaussian", "lognormal"], deltas, 100, 2, power_sets, n_null,
                                 n_init, args.seed)
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(payload, out, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
