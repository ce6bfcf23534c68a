"""Slow, independent reference implementations (direct formulas from SPEC.md) for the tests."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

#: The vendored test data (``tests/data/README.md`` says where each file comes from).
DATA_DIR = Path(__file__).resolve().parents[1] / "data"
GOLDEN_PATH = DATA_DIR / "golden_cases.json"
DERMATOLOGY_PATH = DATA_DIR / "dermatology.csv"

Array = npt.NDArray[np.float64]


def semimetric_matrix(X: Array, rho: str) -> Array:
    """R_ab = rho(x_a, x_b) by direct pairwise differences (no expansion tricks)."""
    diff = X[:, None, :] - X[None, :, :]
    dist = np.sqrt((diff**2).sum(-1))
    if rho.startswith("rho_tilde_"):
        sigma = float(rho.removeprefix("rho_tilde_"))
        return 2 - 2 * np.exp(-dist / (2 * sigma))
    if rho.startswith("rho_hat_"):
        sigma = float(rho.removeprefix("rho_hat_"))
        return 2 - 2 * np.exp(-(dist**2) / (2 * sigma**2))
    alpha = float(rho.removeprefix("rho_"))
    return dist**alpha


def gram_origin(X: Array, rho: str) -> Array:
    """G_ab = ½[rho(a,0) + rho(b,0) − rho(a,b)] (SPEC eq. 7 with x0 = 0)."""
    both = np.vstack([np.zeros((1, X.shape[1])), X])
    R = semimetric_matrix(both, rho)
    r0 = R[0, 1:]
    return 0.5 * (r0[:, None] + r0[None, :] - R[1:, 1:])


def objective(G: Array, labels: npt.ArrayLike, weights: Optional[Array] = None) -> float:
    """Q = Σ_j Q_j / s_j with Q_j = Σ_{a,b∈C_j} w_a w_b G_ab, by direct summation."""
    labels = np.asarray(labels)
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=float)
    total = 0.0
    for j in np.unique(labels):
        members = labels == j
        wj = w[members]
        total += float(wj @ G[np.ix_(members, members)] @ wj) / float(wj.sum())
    return total


def within(G: Array, labels: npt.ArrayLike, weights: Optional[Array] = None) -> float:
    """W = Σ_i w_i G_ii − Q."""
    w = np.ones(G.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    return float(w @ np.diag(G)) - objective(G, labels, w)


def within_from_semimetric(R: Array, labels: npt.ArrayLike, weights: Optional[Array] = None) -> float:
    """W = Σ_j (s_j/2) g(C_j, C_j), g(A,A) = Σ w_a w_b rho(a,b) / s_A² (SPEC eqs. 13–16)."""
    labels = np.asarray(labels)
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=float)
    total = 0.0
    for j in np.unique(labels):
        m = labels == j
        s = w[m].sum()
        total += (s / 2) * float(w[m] @ R[np.ix_(m, m)] @ w[m]) / s**2
    return total


def all_partitions(n: int, k: int) -> Iterator[npt.NDArray[np.int64]]:
    """Every labelling of n points with exactly k non-empty clusters, up to relabelling
    (canonical form: cluster labels appear in order of first occurrence)."""
    for labels in itertools.product(range(k), repeat=n - 1):
        full = (0, *labels)
        seen: list[int] = []
        ok = True
        for label in full:
            if label not in seen:
                if label != len(seen):
                    ok = False
                    break
                seen.append(label)
        if ok and len(seen) == k:
            yield np.array(full, dtype=np.int64)


def brute_force_optimum(G: Array, k: int, weights: Optional[Array] = None) -> float:
    """max Q over all partitions into k non-empty clusters."""
    return max(objective(G, p, weights) for p in all_partitions(G.shape[0], k))


def best_single_move_gain(G: Array, labels: npt.ArrayLike, weights: Optional[Array] = None) -> float:
    """The largest change of Q from moving one point to another cluster (never emptying one)."""
    labels = np.array(labels)
    k = int(labels.max()) + 1
    base = objective(G, labels, weights)
    best = -np.inf
    for i in range(len(labels)):
        if np.sum(labels == labels[i]) == 1:
            continue
        for target in range(k):
            if target == labels[i]:
                continue
            moved = labels.copy()
            moved[i] = target
            best = max(best, objective(G, moved, weights) - base)
    return float(best)


def random_psd(n: int, rng: np.random.Generator, rank: Optional[int] = None) -> Array:
    """A random symmetric positive semi-definite matrix (exactly symmetric)."""
    A = rng.normal(size=(n, rank or n))
    G = A @ A.T
    return (G + G.T) / 2


def load_golden() -> list[dict[str, Any]]:
    with open(GOLDEN_PATH) as f:
        cases: list[dict[str, Any]] = json.load(f)
    return cases
