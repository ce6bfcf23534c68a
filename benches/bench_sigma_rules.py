"""Accuracy of kernel k-groups with the bandwidth rules ``sigma="mean"`` (the default) and
``sigma="median"``, and with the best σ of a grid (which needs the labels), on the demo data
and scikit-learn's ``make_circles``; the table in the user guide ("The bandwidth σ") is its
output.

    python benches/bench_sigma_rules.py
"""

from __future__ import annotations

from typing import Callable

import kgroups_rs
import numpy as np
from kgroups_rs.datasets import make_concentric_circles, make_lognormal_mixture, make_parallel_cigars
from sklearn.datasets import make_circles, make_moons

GRID = np.geomspace(0.05, 20.0, 25)
SEEDS = range(5)
Data = Callable[[int], "tuple[np.ndarray, np.ndarray]"]

PROBLEMS: list[tuple[str, str, Data]] = [
    ("sklearn circles n=600, noise 0.05, factor 0.5", "gaussian",
     lambda s: make_circles(600, noise=0.05, factor=0.5, random_state=s)),
    ("sklearn circles n=600, noise 0.05, factor 0.5", "exponential",
     lambda s: make_circles(600, noise=0.05, factor=0.5, random_state=s)),
    ("sklearn moons n=600, noise 0.1", "gaussian", lambda s: make_moons(600, noise=0.1, random_state=s)),
    ("paper circles n=800 (demo)", "gaussian", lambda s: make_concentric_circles(800, seed=s)),
    ("parallel cigars n=800 (demo)", "exponential", lambda s: make_parallel_cigars(800, seed=s)),
    ("lognormal mixture n=2000 (demo)", "gaussian", lambda s: make_lognormal_mixture(2000, seed=s)),
]


def accuracy(X: np.ndarray, y: np.ndarray, kernel: str, sigma: object) -> float:
    G = kgroups_rs.energy_gram(X, semimetric=kernel, sigma=sigma)
    labels = kgroups_rs.kernel_kgroups(G, 2, n_init=10, random_state=0).labels
    return kgroups_rs.clustering_accuracy(y, labels)


def main() -> None:
    print("| data | kernel | mean rule σ | acc. | median rule σ | acc. | best grid σ | acc. |")
    print("|---|---|---|---|---|---|---|---|")
    for name, kernel, make in PROBLEMS:
        rows = []
        for seed in SEEDS:
            X, y = make(seed)
            X = np.asarray(X, dtype=float)
            grid = [accuracy(X, y, kernel, s) for s in GRID]
            best = int(np.argmax(grid))
            rows.append((
                kgroups_rs.bandwidth(X), accuracy(X, y, kernel, "mean"),
                kgroups_rs.bandwidth(X, "median"), accuracy(X, y, kernel, "median"),
                GRID[best], grid[best],
            ))
        m = np.mean(rows, axis=0)
        print(f"| {name} | {kernel} | {m[0]:.3g} | {m[1]:.3f} | {m[2]:.3g} | {m[3]:.3f} | "
              f"{m[4]:.3g} | {m[5]:.3f} |")
    print(f"\nmeans over seeds {list(SEEDS)}; grid: {GRID.size} values of σ from {GRID[0]} to "
          f"{GRID[-1]} (geometric); k = 2, 10 k-means++ starts, seed 0.")


if __name__ == "__main__":
    main()
