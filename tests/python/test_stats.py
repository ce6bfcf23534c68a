"""Energy statistics (SPEC eqs. 13-16): W, S, g and the two-sample energy distance.

Checked against direct numpy evaluation of the weighted formulas, against each other (from
data X, from a semimetric matrix R, from a Gram matrix G), against the identity
``W + S = (s/2) g(X, X)``, against ``W = sum_i w_i G_ii - Q`` as reported by
``kernel_kgroups``, and by hypothesis on random data, weights and labels.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from typing import Any, Optional

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest
from _interrupt import interrupted_after
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from reference import within, within_from_semimetric
from scipy.spatial.distance import cdist

Float = npt.NDArray[np.float64]
Labels = npt.NDArray[np.int64]

SEMIMETRICS: list[dict[str, Any]] = [
    {"semimetric": "power", "alpha": 1.0},
    {"semimetric": "power", "alpha": 0.3},
    {"semimetric": "power", "alpha": 2.0},
    {"semimetric": "exponential", "sigma": 0.9},
    {"semimetric": "gaussian", "sigma": 1.7},
]
IDS = ["rho1", "rho0.3", "rho2", "exp", "gauss"]
ALL_SEMIMETRICS = pytest.mark.parametrize("kw", SEMIMETRICS, ids=IDS)


def rho_matrix(X: Float, Y: Optional[Float] = None, **kw: Any) -> Float:
    """R_ab = rho(x_a, y_b) from scipy cdist (SPEC eqs. 52-54)."""
    d = cdist(X, X if Y is None else Y)
    name = kw.get("semimetric", "power")
    if name == "power":
        return np.asarray(d ** kw.get("alpha", 1.0), dtype=np.float64)
    sigma = kw["sigma"]
    if name == "exponential":
        return np.asarray(-2.0 * np.expm1(-d / (2 * sigma)), dtype=np.float64)
    return np.asarray(-2.0 * np.expm1(-(d**2) / (2 * sigma**2)), dtype=np.float64)


def direct_statistics(
    R: Float, labels: Labels, w: Optional[Float]
) -> tuple[float, float, float, Float, Float]:
    """(W, S, total, s, g) by the weighted formulas of SPEC, straight from R."""
    w = np.ones(len(labels)) if w is None else w
    k = int(labels.max()) + 1
    onehot = (labels[:, None] == np.arange(k)[None, :]) * w[:, None]  # n x k, w_a on its cluster
    s = onehot.sum(axis=0)
    g = (onehot.T @ R @ onehot) / np.outer(s, s)
    W = float(np.sum(s / 2 * np.diag(g)))
    S = sum(
        s[i] * s[j] / (2 * s.sum()) * (2 * g[i, j] - g[i, i] - g[j, j])
        for i in range(k)
        for j in range(i + 1, k)
    )
    total = float(w @ R @ w / (2 * w.sum()))
    return W, float(S), total, s, g


def random_labels(n: int, k: int, rng: np.random.Generator) -> Labels:
    labels = rng.integers(0, k, size=n)
    labels[rng.permutation(n)[:k]] = np.arange(k)
    return labels.astype(np.int64)


def data(n: int, dim: int, seed: int, shift: float = 0.0) -> Float:
    return np.random.default_rng(seed).normal(size=(n, dim)) + shift


def eq56(n: int, seed: int) -> tuple[Float, Labels]:
    rng = np.random.default_rng(seed)
    truth = np.repeat([0, 1], [n - n // 2, n // 2]).astype(np.int64)
    return rng.normal(size=(n, 10)) + 0.7 * truth[:, None], truth


# ------------------------------------------------------------------ against direct formulas


@ALL_SEMIMETRICS
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_statistics_match_direct_formulas(kw: dict[str, Any], weighted: bool, k: int) -> None:
    rng = np.random.default_rng(1)
    X = data(90, 4, seed=1)
    labels = random_labels(90, k, rng)
    w = rng.uniform(0.1, 4.0, size=90) if weighted else None
    R = rho_matrix(X, **kw)
    W, S, total, s, g = direct_statistics(R, labels, w)
    stats = kgroups_rs.energy_statistics(labels, X=X, weights=w, **kw)
    assert stats.within == pytest.approx(W, rel=1e-12)
    assert stats.total == pytest.approx(total, rel=1e-12)
    assert stats.between == pytest.approx(S, rel=1e-10, abs=1e-12 * total)
    np.testing.assert_allclose(stats.cluster_weights, s, rtol=1e-14)
    np.testing.assert_allclose(stats.g, g, rtol=1e-12)
    np.testing.assert_array_equal(stats.g, stats.g.T)
    # the identity W + S = (s/2) g(X, X)
    assert stats.within + stats.between == pytest.approx(stats.total, rel=1e-12)
    assert stats.within == kgroups_rs.within_dispersion(labels, X=X, weights=w, **kw)
    assert stats.between == kgroups_rs.between_statistic(labels, X=X, weights=w, **kw)
    assert W == pytest.approx(within_from_semimetric(R, labels, w), rel=1e-12)
    if k == 1:
        assert stats.between == 0.0 and stats.within == pytest.approx(stats.total, rel=1e-14)


@ALL_SEMIMETRICS
@pytest.mark.parametrize("weighted", [False, True])
def test_X_R_and_G_give_the_same_statistics(kw: dict[str, Any], weighted: bool) -> None:
    rng = np.random.default_rng(2)
    X = data(120, 3, seed=2, shift=1.5)
    labels = random_labels(120, 3, rng)
    w = rng.uniform(0.5, 2.0, size=120) if weighted else None
    R = rho_matrix(X, **kw)
    from_X = kgroups_rs.energy_statistics(labels, X=X, weights=w, **kw)
    from_R = kgroups_rs.energy_statistics(labels, R=R, weights=w)
    assert from_R.within == pytest.approx(from_X.within, rel=1e-12)
    assert from_R.between == pytest.approx(from_X.between, rel=1e-10, abs=1e-12 * from_X.total)
    np.testing.assert_allclose(from_R.g, from_X.g, rtol=1e-12)
    for base in ("origin", "centered"):
        G = kgroups_rs.energy_gram(X, base=base, **kw)
        from_G = kgroups_rs.energy_statistics(labels, G=G, weights=w)
        # rho = G_aa + G_bb - 2 G_ab cancels: accurate to rounding of the entries of G
        assert from_G.within == pytest.approx(from_X.within, rel=1e-10)
        assert from_G.total == pytest.approx(from_X.total, rel=1e-10)
        # W = sum_i w_i G_ii - Q, by direct summation over G
        assert from_X.within == pytest.approx(within(G, labels, w), rel=1e-9)
        G32 = kgroups_rs.energy_gram(X, base=base, dtype=np.float32, **kw)
        assert kgroups_rs.energy_statistics(labels, G=G32, weights=w).within == pytest.approx(
            from_X.within, rel=1e-4
        )
    Gr = kgroups_rs.gram_from_semimetric(R)
    assert kgroups_rs.energy_statistics(labels, G=Gr, weights=w).within == pytest.approx(
        from_X.within, rel=1e-10
    )


def test_small_exact_case() -> None:
    x = np.array([0.0, 1.0, 3.0])
    stats = kgroups_rs.energy_statistics([0, 0, 1], X=x)
    # g(C0,C0) = 2/4, g(C0,C1) = (3 + 2)/2, g(C1,C1) = 0
    np.testing.assert_array_equal(stats.g, [[0.5, 2.5], [2.5, 0.0]])
    assert stats.within == 0.5
    assert stats.between == pytest.approx(2 * 1 / 6 * (5 - 0.5))
    assert stats.total == pytest.approx((1 + 3 + 2) * 2 / 6)
    np.testing.assert_array_equal(stats.cluster_weights, [2.0, 1.0])


def test_input_layouts_and_label_dtypes() -> None:
    X = data(40, 3, seed=3)
    labels = random_labels(40, 3, np.random.default_rng(3))
    base = kgroups_rs.energy_statistics(labels, X=X)
    for variant in (
        kgroups_rs.energy_statistics(labels.astype(np.int32), X=X),
        kgroups_rs.energy_statistics(labels.astype(np.uint8), X=X),
        kgroups_rs.energy_statistics(list(labels), X=np.asfortranarray(X)),
        kgroups_rs.energy_statistics(labels, X=X.astype(np.float32).astype(np.float64)),
    ):
        assert variant.within == pytest.approx(base.within, rel=1e-6)
    assert kgroups_rs.energy_statistics(labels, X=np.asfortranarray(X)).within == base.within
    R = cdist(X, X)
    assert kgroups_rs.energy_statistics(labels, R=np.asfortranarray(R)).within == pytest.approx(
        base.within, rel=1e-12
    )
    # 1-D X is n points on a line
    x = X[:, 0]
    assert (
        kgroups_rs.energy_statistics(labels, X=x).within
        == kgroups_rs.energy_statistics(labels, X=x[:, None]).within
    )


def test_unit_weights_equal_no_weights_and_integer_weights_duplicate_points() -> None:
    rng = np.random.default_rng(4)
    X = data(30, 2, seed=4)
    labels = random_labels(30, 3, rng)
    plain = kgroups_rs.energy_statistics(labels, X=X)
    ones = kgroups_rs.energy_statistics(labels, X=X, weights=np.ones(30))
    assert (plain.within, plain.between, plain.total) == (ones.within, ones.between, ones.total)
    counts = rng.integers(1, 4, size=30)
    weighted = kgroups_rs.energy_statistics(labels, X=X, weights=counts)
    repeated = kgroups_rs.energy_statistics(np.repeat(labels, counts), X=np.repeat(X, counts, axis=0))
    assert weighted.within == pytest.approx(repeated.within, rel=1e-12)
    assert weighted.between == pytest.approx(repeated.between, rel=1e-12)
    # scaling every weight by c scales W, S and total by c
    scaled = kgroups_rs.energy_statistics(labels, X=X, weights=4.0 * counts)
    assert scaled.within == pytest.approx(4 * weighted.within, rel=1e-12)
    assert scaled.between == pytest.approx(4 * weighted.between, rel=1e-12)


def test_sigma_none_uses_the_bandwidth() -> None:
    X = data(50, 3, seed=5)
    labels = random_labels(50, 2, np.random.default_rng(5))
    sigma = kgroups_rs.bandwidth(X)
    for semimetric in ("exponential", "gaussian"):
        a = kgroups_rs.energy_statistics(labels, X=X, semimetric=semimetric)
        b = kgroups_rs.energy_statistics(labels, X=X, semimetric=semimetric, sigma=sigma)
        assert (a.within, a.between) == (b.within, b.between)
        Y = data(20, 3, seed=6, shift=1.0)
        assert kgroups_rs.energy_distance(X, Y, semimetric=semimetric) == kgroups_rs.energy_distance(
            X, Y, semimetric=semimetric, sigma=sigma
        )


# --------------------------------------------------------------------- against the clustering


@pytest.mark.parametrize("kw", SEMIMETRICS[:1] + SEMIMETRICS[3:], ids=["rho1", "exp", "gauss"])
@pytest.mark.parametrize("base", ["origin", "centered"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [2, 4])
def test_within_is_what_kernel_kgroups_reports(kw: dict[str, Any], base: str, weighted: bool, k: int) -> None:
    X, _ = eq56(300, seed=7)
    rng = np.random.default_rng(8)
    w = rng.uniform(0.3, 3.0, size=300) if weighted else None
    G = kgroups_rs.energy_gram(X, base=base, **kw)
    R = rho_matrix(X, **kw)
    for seed in range(2):
        result = kgroups_rs.kernel_kgroups(G, k, weights=w, random_state=seed)
        stats = kgroups_rs.energy_statistics(result.labels, X=X, weights=w, **kw)
        assert result.within == pytest.approx(stats.within, rel=1e-9)
        assert result.within == pytest.approx(within_from_semimetric(R, result.labels, w), rel=1e-9)
        assert result.within == pytest.approx(within(G, result.labels, w), rel=1e-9)
        trace = float((np.ones(300) if w is None else w) @ np.diag(G))
        assert result.within == pytest.approx(trace - result.objective, rel=1e-9)
        # maximising S <=> minimising W: the result beats its initial labels on both
        init = random_labels(300, k, rng)
        start = kgroups_rs.energy_statistics(init, X=X, weights=w, **kw)
        improved = kgroups_rs.energy_statistics(
            kgroups_rs.kernel_kgroups(G, k, init, weights=w).labels, X=X, weights=w, **kw
        )
        assert improved.within <= start.within and improved.between >= start.between
        assert improved.total == pytest.approx(start.total, rel=1e-12)


# --------------------------------------------------------------------------- energy distance


@ALL_SEMIMETRICS
@pytest.mark.parametrize(("n", "m"), [(1, 1), (30, 45), (200, 7)])
def test_energy_distance_matches_direct_evaluation(kw: dict[str, Any], n: int, m: int) -> None:
    X, Y = data(n, 3, seed=9), data(m, 3, seed=10, shift=0.4)
    E = kgroups_rs.energy_distance(X, Y, **kw)
    xy, xx, yy = rho_matrix(X, Y, **kw).mean(), rho_matrix(X, **kw).mean(), rho_matrix(Y, **kw).mean()
    assert E >= 0
    assert E == pytest.approx(2 * xy - xx - yy, rel=1e-10, abs=1e-13 * (2 * xy + xx + yy))
    assert kgroups_rs.energy_distance(Y, X, **kw) == pytest.approx(
        E, rel=1e-10, abs=1e-13 * (2 * xy + xx + yy)
    )


@ALL_SEMIMETRICS
def test_energy_distance_of_identical_samples_is_zero(kw: dict[str, Any]) -> None:
    X = data(80, 4, seed=11, shift=5.0)
    scale = 2 * rho_matrix(X, **kw).mean()
    for Y in (X, X[::-1], X.copy()):
        E = kgroups_rs.energy_distance(X, Y, **kw)
        assert 0 <= E <= 1e-12 * scale


def test_energy_distance_grows_with_separation() -> None:
    X = data(100, 2, seed=12)
    Y = data(100, 2, seed=13)
    values = [kgroups_rs.energy_distance(X, Y + t) for t in (0.0, 0.5, 1.0, 2.0, 4.0)]
    assert all(a < b for a, b in zip(values, values[1:]))


def test_energy_distance_one_dimensional_and_exact() -> None:
    assert kgroups_rs.energy_distance([0.0], [2.0]) == 4.0
    # E = 2 * mean|a - b| - mean|a - a'| - mean|b - b'| = 2*2 - 1/2 - 0
    assert kgroups_rs.energy_distance([0.0, 1.0], [2.5]) == pytest.approx(4 - 0.5)


@ALL_SEMIMETRICS
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_clusters_between_is_scaled_energy_distance(kw: dict[str, Any], seed: int) -> None:
    X, _ = eq56(150, seed=seed)
    labels = random_labels(150, 2, np.random.default_rng(seed))
    stats = kgroups_rs.energy_statistics(labels, X=X, **kw)
    s1, s2 = np.bincount(labels)
    E = kgroups_rs.energy_distance(X[labels == 0], X[labels == 1], **kw)
    assert stats.between == pytest.approx(s1 * s2 / (2 * 150) * E, rel=1e-9, abs=1e-12 * stats.total)
    assert E == pytest.approx(2 * stats.g[0, 1] - stats.g[0, 0] - stats.g[1, 1], rel=1e-9, abs=1e-13)


# ------------------------------------------------------------------------ thread independence


@pytest.mark.parametrize("source", ["X", "R", "G"])
def test_same_bits_for_any_thread_count(source: str) -> None:
    n = 2 * 1024 + 37  # three row groups of the core
    X = data(n, 4, seed=14)
    rng = np.random.default_rng(14)
    labels = random_labels(n, 5, rng)
    w = rng.uniform(0.5, 2.0, size=n)
    given_: dict[str, Any] = {
        "X": {"X": X, "semimetric": "exponential", "sigma": 1.1},
        "R": {"R": cdist(X, X)},
        "G": {"G": kgroups_rs.energy_gram(X)},
    }[source]
    one = kgroups_rs.energy_statistics(labels, weights=w, n_threads=1, **given_)
    for threads in (2, 3):
        other = kgroups_rs.energy_statistics(labels, weights=w, n_threads=threads, **given_)
        assert (one.within, one.between, one.total) == (other.within, other.between, other.total)
        np.testing.assert_array_equal(one.g, other.g)


def test_energy_distance_same_bits_for_any_thread_count() -> None:
    X, Y = data(1500, 3, seed=15), data(900, 3, seed=16, shift=0.1)
    one = kgroups_rs.energy_distance(X, Y, n_threads=1)
    assert (
        one == kgroups_rs.energy_distance(X, Y, n_threads=2) == kgroups_rs.energy_distance(X, Y, n_threads=3)
    )


# ----------------------------------------------------------------------------------- property


@st.composite
def problems(draw: Any) -> tuple[Float, Labels, Optional[Float], dict[str, Any]]:
    n = draw(st.integers(2, 40))
    dim = draw(st.integers(1, 6))
    coords = st.floats(-100, 100, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    X = draw(hnp.arrays(np.float64, (n, dim), elements=coords))
    k = draw(st.integers(1, min(n, 5)))
    labels = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=np.int64)
    labels[:k] = np.arange(k)  # no cluster empty
    labels = labels[np.argsort(draw(st.permutations(range(n))))]
    weights = None
    if draw(st.booleans()):
        weights = np.array(draw(st.lists(st.floats(0.01, 100), min_size=n, max_size=n)))
    semimetric = draw(st.sampled_from(["power", "exponential", "gaussian"]))
    if semimetric == "power":
        kw: dict[str, Any] = {"semimetric": semimetric, "alpha": draw(st.floats(0.05, 2.0))}
    else:
        kw = {"semimetric": semimetric, "sigma": draw(st.floats(0.01, 100.0))}
    return X, labels, weights, kw


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_property_identity_and_signs(problem: tuple[Float, Labels, Optional[Float], dict[str, Any]]) -> None:
    X, labels, w, kw = problem
    # The direct reference squares distances as they are; below ~1e-100 those squares lose
    # their digits (the library rescales such data: see test_trust.py), so keep to where the
    # reference is exact.
    gaps = np.abs(X[:, None, :] - X[None, :, :]).max(axis=2)
    assume(not np.any((gaps > 0) & (gaps < 1e-100)))
    stats = kgroups_rs.energy_statistics(labels, X=X, weights=w, **kw)
    W, S, total = stats.within, stats.between, stats.total
    assert W >= 0 and total >= 0
    assert abs(W + S - total) <= 1e-12 * total
    # S is a sum of weighted energy distances between clusters, >= 0 for every semimetric of
    # negative type; rounding allowed relative to the size of its terms
    g, s = stats.g, stats.cluster_weights
    k = len(s)
    size = sum(
        s[i] * s[j] / (2 * s.sum()) * (2 * g[i, j] + g[i, i] + g[j, j])
        for i in range(k)
        for j in range(i + 1, k)
    )
    assert S >= -1e-12 * size, (S, size)
    # and agrees with the direct formulas
    Wd, Sd, totald, _, _ = direct_statistics(rho_matrix(X, **kw), labels, w)
    assert W == pytest.approx(Wd, rel=1e-10, abs=1e-300)
    assert total == pytest.approx(totald, rel=1e-10, abs=1e-300)
    assert abs(S - Sd) <= 1e-10 * max(size, 1e-300)


# ------------------------------------------------------------------------------ bad input

X_OK = np.random.default_rng(17).normal(size=(10, 3))
LABELS = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
R_OK = cdist(X_OK, X_OK)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_data(bad: float) -> None:
    X = X_OK.copy()
    X[3, 2] = bad
    with pytest.raises(ValueError, match=r"X contains NaN or infinity at row 3, column 2"):
        kgroups_rs.energy_statistics(LABELS, X=X)
    with pytest.raises(ValueError, match=r"X contains NaN or infinity"):
        kgroups_rs.energy_distance(X, X_OK)
    with pytest.raises(ValueError, match=r"Y contains NaN or infinity at row 3, column 2"):
        kgroups_rs.energy_distance(X_OK, X)
    R = R_OK.copy()
    R[1, 4] = R[4, 1] = bad
    with pytest.raises(ValueError, match=r"R contains NaN or infinity at row 1, column 4"):
        kgroups_rs.energy_statistics(LABELS, R=R)
    G = kgroups_rs.energy_gram(X_OK)
    G[1, 4] = G[4, 1] = bad
    with pytest.raises(ValueError, match=r"G contains NaN or infinity at \(1, 4\)"):
        kgroups_rs.energy_statistics(LABELS, G=G)


@pytest.mark.parametrize("shape", [(0, 3), (10, 0), (0,)])
def test_empty_data(shape: Any) -> None:
    with pytest.raises(ValueError, match=r"X must have at least one row and one column"):
        kgroups_rs.energy_statistics(LABELS, X=np.zeros(shape))
    with pytest.raises(ValueError, match=r"X must have at least one row and one column"):
        kgroups_rs.energy_distance(np.zeros(shape), X_OK)
    with pytest.raises(ValueError, match=r"Y must have at least one row and one column"):
        kgroups_rs.energy_distance(X_OK, np.zeros(shape))


@pytest.mark.parametrize("alpha", [0.0, -1.0, 2.5, np.nan])
def test_bad_alpha(alpha: float) -> None:
    with pytest.raises(ValueError, match=r"alpha = .* is not allowed.*0 < alpha <= 2"):
        kgroups_rs.energy_statistics(LABELS, X=X_OK, alpha=alpha)
    with pytest.raises(ValueError, match=r"alpha = .* is not allowed"):
        kgroups_rs.energy_distance(X_OK, X_OK, alpha=alpha)


@pytest.mark.parametrize("semimetric", ["exponential", "gaussian"])
@pytest.mark.parametrize("sigma", [0.0, -2.0, np.nan, np.inf])
def test_bad_sigma(semimetric: str, sigma: float) -> None:
    with pytest.raises(ValueError, match=r"sigma = .* is not allowed; the bandwidth must be finite and > 0"):
        kgroups_rs.energy_statistics(LABELS, X=X_OK, semimetric=semimetric, sigma=sigma)
    with pytest.raises(ValueError, match=r"sigma = .* is not allowed"):
        kgroups_rs.energy_distance(X_OK, X_OK, semimetric=semimetric, sigma=sigma)


def test_unknown_semimetric() -> None:
    with pytest.raises(ValueError, match=r"unknown semimetric \"manhattan\""):
        kgroups_rs.energy_statistics(LABELS, X=X_OK, semimetric="manhattan")
    with pytest.raises(ValueError, match=r"unknown semimetric \"manhattan\""):
        kgroups_rs.energy_distance(X_OK, X_OK, semimetric="manhattan")


R_ERRORS = [
    ("nan", r"R contains NaN or infinity"),
    ("asymmetric", r"R must be symmetric: R\[2, 5\]"),
    ("negative", r"R\[2, 5\] = -0.5 is negative"),
    ("diagonal", r"R\[3, 3\] = 0.5 but a semimetric matrix must have a zero diagonal"),
]


@pytest.mark.parametrize(("kind", "message"), R_ERRORS, ids=[e[0] for e in R_ERRORS])
def test_bad_semimetric_matrix(kind: str, message: str) -> None:
    R = R_OK.copy()
    if kind == "nan":
        R[2, 5] = R[5, 2] = np.nan
    elif kind == "asymmetric":
        R[2, 5] += 0.1
    elif kind == "negative":
        R[2, 5] = R[5, 2] = -0.5
    else:
        R[3, 3] = 0.5
    with pytest.raises(ValueError, match=message):
        kgroups_rs.energy_statistics(LABELS, R=R)


def test_matrices_not_square() -> None:
    with pytest.raises(ValueError, match=r"`R`: the matrix must be square, got shape \(10, 9\)"):
        kgroups_rs.energy_statistics(LABELS, R=R_OK[:, :9])
    with pytest.raises(ValueError, match=r"`G`: the matrix must be square"):
        kgroups_rs.energy_statistics(LABELS, G=R_OK[:9, :])


def test_asymmetric_G() -> None:
    G = kgroups_rs.energy_gram(X_OK)
    G[0, 7] += 1.0
    with pytest.raises(ValueError, match=r"G is not symmetric: G\[0, 7\]"):
        kgroups_rs.energy_statistics(LABELS, G=G)


@pytest.mark.parametrize("length", [9, 11, 1])
def test_labels_of_wrong_length(length: int) -> None:
    labels = np.arange(length) % 2
    for source in ({"X": X_OK}, {"R": R_OK}, {"G": kgroups_rs.energy_gram(X_OK)}):
        with pytest.raises(ValueError, match=rf"labels has length {length} but there are n = 10 points"):
            kgroups_rs.energy_statistics(labels, **source)


def test_bad_labels() -> None:
    with pytest.raises(ValueError, match=r"labels leaves cluster 1 empty"):
        kgroups_rs.energy_statistics(np.where(LABELS == 1, 2, LABELS), X=X_OK)
    with pytest.raises(ValueError, match=r"labels\[0\] = -1 is out of range: labels must be at least 0"):
        kgroups_rs.energy_statistics(LABELS - 1, X=X_OK)
    with pytest.raises(TypeError, match=r"labels must be integers"):
        kgroups_rs.energy_statistics(LABELS.astype(float), X=X_OK)
    with pytest.raises(ValueError, match=r"labels must be a 1-D array"):
        kgroups_rs.energy_statistics(LABELS[:, None], X=X_OK)
    with pytest.raises(ValueError, match=r"labels is empty"):
        kgroups_rs.energy_statistics(np.array([], dtype=np.int64), X=X_OK)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (-np.ones(10), r"weights\[0\] = -1 but every weight must be finite and > 0"),
        (np.r_[np.ones(9), 0.0], r"weights\[9\] = 0"),
        (np.r_[np.nan, np.ones(9)], r"weights\[0\] = NaN"),
        (np.ones(9), r"weights has length 9 but there are n = 10 points"),
    ],
)
def test_bad_weights(weights: Float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        kgroups_rs.energy_statistics(LABELS, X=X_OK, weights=weights)


def test_exactly_one_source() -> None:
    with pytest.raises(ValueError, match=r"give exactly one of X, R or G"):
        kgroups_rs.energy_statistics(LABELS)
    with pytest.raises(ValueError, match=r"give exactly one of X, R or G"):
        kgroups_rs.energy_statistics(LABELS, X=X_OK, R=R_OK)


def test_X_and_Y_with_different_dimensions() -> None:
    with pytest.raises(ValueError, match=r"X has D=3 columns but Y has D=2"):
        kgroups_rs.energy_distance(X_OK, X_OK[:, :2])


def test_non_real_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"X must hold real numbers"):
        kgroups_rs.energy_statistics(LABELS, X=X_OK.astype(np.complex128))
    with pytest.raises(TypeError, match=r"R must hold real numbers"):
        kgroups_rs.energy_statistics(LABELS, R=R_OK.astype(np.complex128))
    with pytest.raises(TypeError, match=r"G must hold real numbers"):
        kgroups_rs.energy_statistics(LABELS, G=R_OK.astype(np.complex128))
    with pytest.raises(TypeError, match=r"Y must hold real numbers"):
        kgroups_rs.energy_distance(X_OK, X_OK.astype(np.complex128))



# ------------------------------------------------------------- memory, scale and Ctrl-C


def run_python(code: str, memory_limit_gib: Optional[float] = None) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (so that an abort cannot take the test run down),
    optionally under an address-space limit, and return the finished process."""
    prelude = ""
    if memory_limit_gib is not None and not sys.platform.startswith("linux"):
        pytest.skip("RLIMIT_AS bounds the child's memory only on Linux")
    if memory_limit_gib is not None:
        limit = int(memory_limit_gib * 2**30)
        prelude = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True, text=True, timeout=600,
    )


@pytest.mark.slow
def test_every_point_its_own_cluster_in_bounded_memory() -> None:
    """k = n = 60 000: W and S need O(n + k) memory (no k x k table); the k x k matrix g of
    energy_statistics is a MemoryError naming its size, never an abort."""
    proc = run_python(
        """
        import numpy as np, kgroups_rs
        x = np.random.default_rng(0).normal(size=(60_000, 2))
        print("W", kgroups_rs.within_dispersion(np.arange(60_000), X=x))
        try:
            kgroups_rs.energy_statistics(np.arange(60_000), X=x)
        except MemoryError as e:
            print("MemoryError", e)
        """,
        memory_limit_gib=6,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    lines = proc.stdout.splitlines()
    assert lines[0] == "W 0.0"
    assert lines[1].startswith("MemoryError out of memory for `k`"), lines[1]
    assert "26.8 GiB" in lines[1] and "k × k" in lines[1], lines[1]


def test_many_singleton_clusters_match_one_cluster() -> None:
    X = data(3000, 3, seed=30)
    labels = np.random.default_rng(30).permutation(3000)
    one = kgroups_rs.energy_statistics(np.zeros(3000, dtype=np.int64), X=X)
    assert kgroups_rs.within_dispersion(labels, X=X) == 0.0
    assert kgroups_rs.between_statistic(labels, X=X) == pytest.approx(one.total, rel=1e-12)
    assert one.between == 0.0


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ("np.array([0, 1, 10**12])", r"labels\[2\] = 1000000000000 but the data have only n = 3 points"),
        ("np.array([0, 1, 3])", r"labels\[2\] = 3 but the data have only n = 3 points"),
        ("np.array([0, 1, 2**64 - 1], dtype=np.uint64)", r"labels must be below n"),
    ],
    ids=["1e12", "n", "uint64"],
)
def test_labels_beyond_n_are_a_clean_error(labels: str, message: str) -> None:
    """k = max(labels) + 1 is checked against n before anything is allocated from it."""
    proc = run_python(
        f"""
        import numpy as np, kgroups_rs
        for f in (kgroups_rs.energy_statistics, kgroups_rs.within_dispersion,
                  kgroups_rs.between_statistic):
            try:
                f({labels}, X=np.arange(3.0))
            except Exception as e:
                print(type(e).__name__, e)
        """
    )
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    lines = proc.stdout.splitlines()
    assert len(lines) == 3, proc.stdout
    for line in lines:
        assert line.startswith("ValueError "), line
        assert re.search(message, line), line


@pytest.mark.parametrize("scale", [1e200, 1e-200, 2.0**900, 1e300, 1e-300])
@pytest.mark.parametrize("source", ["X", "R", "G"])
def test_weights_of_extreme_scale(scale: float, source: str) -> None:
    """W, S and total are homogeneous of degree one in the weights; g does not depend on them."""
    rng = np.random.default_rng(31)
    X = data(80, 3, seed=31)
    labels = random_labels(80, 4, rng)
    w = rng.uniform(0.5, 2.0, size=80)
    given_: dict[str, Any] = {"X": {"X": X}, "R": {"R": cdist(X, X)}, "G": {"G": kgroups_rs.energy_gram(X)}}[
        source
    ]
    unit = kgroups_rs.energy_statistics(labels, weights=w, **given_)
    scaled = kgroups_rs.energy_statistics(labels, weights=w * scale, **given_)
    for a, b in [(scaled.within, unit.within), (scaled.between, unit.between), (scaled.total, unit.total)]:
        assert np.isfinite(a)
        assert a == pytest.approx(b * scale, rel=1e-12)
    np.testing.assert_allclose(scaled.cluster_weights, unit.cluster_weights * scale, rtol=1e-14)
    np.testing.assert_allclose(scaled.g, unit.g, rtol=1e-13)
    assert kgroups_rs.within_dispersion(labels, weights=w * scale, **given_) == scaled.within
    assert kgroups_rs.between_statistic(labels, weights=w * scale, **given_) == scaled.between


def test_weights_whose_statistics_exceed_f64() -> None:
    X = 1e3 * data(50, 2, seed=32)
    labels = random_labels(50, 2, np.random.default_rng(32))
    message = r"invalid `weights`: the within dispersion W = .* exceeds the largest f64"
    with pytest.raises(ValueError, match=message):
        kgroups_rs.within_dispersion(labels, X=X, weights=np.full(50, 1e306))


@pytest.mark.parametrize("source", ["R", "G"])
def test_matrices_with_entries_near_the_largest_float(source: str) -> None:
    """rho = G_aa + G_bb - 2 G_ab and the sums over R do not overflow for finite entries up to
    1.8e308: the statistics equal those of the unscaled matrix times the scale (exactly, for a
    power of two), or are an error naming the matrix when they exceed f64."""
    X = data(60, 3, seed=33, shift=2.0)
    labels = random_labels(60, 3, np.random.default_rng(33))
    M = kgroups_rs.energy_gram(X) if source == "G" else cdist(X, X)
    e = 1023 - int(np.floor(np.log2(np.abs(M).max())))
    big = np.ldexp(M, e)  # largest entry in [2^1023, 2^1024)
    assert np.isfinite(big).all() and np.abs(big).max() > 8e307
    small = np.full(60, 2.0**-40)
    unit = kgroups_rs.energy_statistics(labels, **{source: M})
    got = kgroups_rs.energy_statistics(labels, weights=small, **{source: big})
    assert got.within == np.ldexp(unit.within, e - 40)
    assert got.between == np.ldexp(unit.between, e - 40)
    assert got.total == np.ldexp(unit.total, e - 40)
    np.testing.assert_array_equal(got.g, np.ldexp(unit.g, e))
    message = rf"invalid `{source}`: the within dispersion W = .* exceeds the largest f64"
    with pytest.raises(ValueError, match=message):
        kgroups_rs.within_dispersion(labels, **{source: big})


CTRL_C_LATENCY = 1.0  # seconds from SIGINT to KeyboardInterrupt


@pytest.fixture(scope="module")
def long_X() -> Float:
    # 80 000 points and rho = ||x - y||^1.5 (a powf per pair): 3.2e9 pairs take many seconds
    # even on 16 cores, so the run is still going when the interrupt comes after 0.3 s.
    return data(80_000, 3, seed=34)


STATS_CALLS = {
    "energy_statistics": lambda X: kgroups_rs.energy_statistics(np.arange(len(X)) % 5, X=X, alpha=1.5),
    "within_dispersion": lambda X: kgroups_rs.within_dispersion(np.arange(len(X)) % 5, X=X, alpha=1.5),
    "between_statistic": lambda X: kgroups_rs.between_statistic(np.arange(len(X)) % 5, X=X, alpha=1.5),
    "energy_distance": lambda X: kgroups_rs.energy_distance(X, X[::-1], alpha=1.5),
}


@pytest.mark.parametrize("name", list(STATS_CALLS))
def test_ctrl_c_interrupts_statistics(long_X: Float, name: str) -> None:
    latency = interrupted_after(lambda: STATS_CALLS[name](long_X))
    assert latency < CTRL_C_LATENCY, f"KeyboardInterrupt came {latency:.2f} s after SIGINT"
    # and the module still works
    assert kgroups_rs.within_dispersion([0, 0, 1], X=[0.0, 1.0, 3.0]) == 0.5
