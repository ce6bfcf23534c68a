"""The papers' synthetic data that ``kgroups_rs.datasets`` does not generate, and their Bayes
accuracies. Every generator takes a numpy Generator and returns ``(X, y)`` with classes 0..k−1."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .common import FloatArray, IntArray

#: Σ̃₁₀ of eq. 57 (variances).
SIGMA57 = np.array([1.367, 3.175, 3.247, 4.403, 1.249, 1.969, 4.035, 4.237, 2.813, 3.637])
#: Eq. 58: dimension, coordinates with signal, mean shift, and the two variances (2Σ₁ = Σ₂ = I).
D58, SIGNAL58, SHIFT58, VAR58 = 20, 5, 0.5, (0.5, 1.0)


def norm_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def make_eq56(n: int, D: int, rng: np.random.Generator) -> tuple[FloatArray, IntArray]:
    """Eq. 56: ½N(0, I_D) + ½N(μ₂, I_D), μ₂ = 0.7·(1 ×10, 0 ×(D−10))."""
    y = rng.integers(0, 2, size=n).astype(np.int64)
    X = rng.normal(size=(n, D))
    X[y == 1, :10] += 0.7
    return X, y


def make_eq57(n: int, D: int, rng: np.random.Generator) -> tuple[FloatArray, IntArray]:
    """Eq. 57: ½N(0, I_D) + ½N(μ₂, Σ₂), μ₂ = (1 ×10, 0 ...), Σ₂ = diag(Σ̃₁₀, I_{D−10})."""
    y = rng.integers(0, 2, size=n).astype(np.int64)
    X = rng.normal(size=(n, D))
    X[y == 1, :10] = 1.0 + X[y == 1, :10] * np.sqrt(SIGMA57)
    return X, y


def make_eq58(n: int, rng: np.random.Generator) -> tuple[FloatArray, IntArray]:
    """Eq. 58 in R²⁰: ½N(0, ½I₂₀) + ½N(μ₂, I₂₀), μ₂ = ½·(1 ×5, 0 ×15). The lognormal version of
    Fig. 3d is ``exp`` of this sample, coordinate by coordinate."""
    y = rng.integers(0, 2, size=n).astype(np.int64)
    scale = np.sqrt(np.where(y == 0, VAR58[0], VAR58[1]))
    X = rng.normal(size=(n, D58)) * scale[:, None]
    X[y == 1, :SIGNAL58] += SHIFT58
    return X, y


def make_eq59(m: int, rng: np.random.Generator, N: int = 300) -> tuple[FloatArray, IntArray]:
    """Eq. 59: n₁ = N − m points of N(0, I₄), n₂ = N + m of N(1.5(1,1,0,0), diag(½,½,1,1)), shuffled."""
    n1, n2 = N - m, N + m
    X1 = rng.normal(size=(n1, 4))
    X2 = rng.normal(size=(n2, 4)) * np.sqrt([0.5, 0.5, 1.0, 1.0]) + np.array([1.5, 1.5, 0.0, 0.0])
    X = np.vstack([X1, X2])
    y = np.concatenate([np.zeros(n1, dtype=np.int64), np.ones(n2, dtype=np.int64)])
    order = rng.permutation(n1 + n2)
    return X[order], y[order]


def make_cigars_balanced(per_class: int, rng: np.random.Generator) -> tuple[FloatArray, IntArray]:
    """Parallel cigars N((0,0), diag(1,20)) and N((6.5,0), diag(1,20)), exactly ``per_class``
    points each, shuffled (the conference paper's Fig. 4a: 200 points each)."""
    y = rng.permutation(np.repeat(np.arange(2, dtype=np.int64), per_class))
    X = rng.normal(size=(y.size, 2)) * np.array([1.0, math.sqrt(20.0)])
    X[:, 0] += 6.5 * y
    return X, y


def make_rings(
    radii: Sequence[float], per_class: int, rng: np.random.Generator, noise: float = 0.2
) -> tuple[FloatArray, IntArray]:
    """Concentric circles of the given radii, exactly ``per_class`` points each, uniform angles,
    plus ``noise · N(0, I₂)``, shuffled (the conference paper's Fig. 4b–c)."""
    y = rng.permutation(np.repeat(np.arange(len(radii), dtype=np.int64), per_class))
    radius = np.asarray(radii, dtype=np.float64)[y]
    angle = rng.uniform(0.0, 2.0 * np.pi, size=y.size)
    X = radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    X += noise * rng.normal(size=(y.size, 2))
    return X, y


def bayes_eq57(rng: np.random.Generator, n: int = 400_000) -> float:
    """Bayes accuracy of eq. 57 by Monte Carlo (only the first 10 coordinates differ)."""
    X, y = make_eq57(n, 10, rng)
    var = SIGMA57
    llr = (-0.5 * np.log(var) - (X - 1.0) ** 2 / (2 * var) + X**2 / 2).sum(axis=1)
    return float(np.mean((llr > 0) == (y == 1)))


def bayes_eq58(rng: np.random.Generator, n: int = 400_000) -> float:
    """Bayes accuracy of eq. 58 by Monte Carlo (the quadratic rule with the true parameters).

    The lognormal version has the same Bayes accuracy: ``exp`` is a bijection of each
    coordinate, so the likelihood ratio of a point and of its image order the classes alike.
    """
    X, y = make_eq58(n, rng)
    v0, v1 = VAR58
    mu = np.zeros(D58)
    mu[:SIGNAL58] = SHIFT58
    ll0 = (-0.5 * math.log(v0) - X**2 / (2 * v0)).sum(axis=1)
    ll1 = (-0.5 * math.log(v1) - (X - mu) ** 2 / (2 * v1)).sum(axis=1)
    return float(np.mean((ll1 > ll0) == (y == 1)))


def bayes_eq59(m: int, rng: np.random.Generator, reps: int = 400, N: int = 300) -> float:
    """Bayes accuracy of eq. 59 (priors n₁/2N, n₂/2N) by Monte Carlo."""
    parts = [make_eq59(m, rng, N) for _ in range(reps)]
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    var2 = np.array([0.5, 0.5, 1.0, 1.0])
    mu2 = np.array([1.5, 1.5, 0.0, 0.0])
    ll0 = -0.5 * (X**2).sum(axis=1) + math.log((N - m) / (2 * N))
    ll1 = (-0.5 * np.log(var2) - (X - mu2) ** 2 / (2 * var2)).sum(axis=1) + math.log((N + m) / (2 * N))
    return float(np.mean((ll1 > ll0) == (y == 1)))
