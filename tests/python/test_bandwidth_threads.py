"""The bandwidth rules (``sigma="mean"`` / ``"median"``) everywhere a bandwidth is taken, and
``n_threads`` = None / -1 / joblib-style negative counts."""

from __future__ import annotations

import itertools
from typing import Any

import kgroups_rs
import numpy as np
import pytest
from kgroups_rs._validation import available_cores, check_n_threads


def lower_median_of_pairs(X: np.ndarray, w: Any = None) -> float:
    """The (weighted) lower median of ||x_a - x_b|| over pairs a < b, by the definition."""
    n = X.shape[0]
    w = np.ones(n) if w is None else np.asarray(w, dtype=float)
    pairs = [
        (float(np.linalg.norm(X[a] - X[b])), w[a] * w[b])
        for a, b in itertools.combinations(range(n), 2)
        if w[a] > 0 and w[b] > 0
    ]
    pairs.sort(key=lambda p: p[0])
    total = sum(p[1] for p in pairs)
    running = 0.0
    for d, weight in pairs:
        running += weight
        if running >= 0.5 * total:
            return d
    raise AssertionError("unreachable")


@pytest.mark.parametrize("n, dim", [(2, 1), (3, 2), (10, 3), (101, 5)])
def test_median_rule_is_the_lower_median_of_the_pairwise_distances(n: int, dim: int) -> None:
    X = np.random.default_rng(n).normal(size=(n, dim)) * 3.0 + 100.0
    assert kgroups_rs.bandwidth(X, "median") == pytest.approx(lower_median_of_pairs(X), rel=1e-13)
    # For an odd number of pairs it is numpy's median.
    if (n * (n - 1) // 2) % 2 == 1:
        dists = [np.linalg.norm(X[a] - X[b]) for a, b in itertools.combinations(range(n), 2)]
        assert kgroups_rs.bandwidth(X, "median") == pytest.approx(np.median(dists), rel=1e-13)


def test_weighted_median_rule() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    w = rng.integers(0, 4, 40).astype(float)
    got = kgroups_rs.bandwidth(X, "median", weights=w)
    assert got == pytest.approx(lower_median_of_pairs(X, w), rel=1e-13)
    # unit weights are no weights; the mean rule with weights is the weighted RMS distance
    assert kgroups_rs.bandwidth(X, "median", weights=np.ones(40)) == kgroups_rs.bandwidth(X, "median")
    s = w.sum()
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    assert kgroups_rs.bandwidth(X, "mean", weights=w) == pytest.approx(
        np.sqrt(w @ D2 @ w / s**2), rel=1e-12
    )


def test_median_rule_on_large_data_is_a_deterministic_subsample() -> None:
    X = np.random.default_rng(2).uniform(size=(5000, 1))
    a = kgroups_rs.bandwidth(X, "median")
    assert a == kgroups_rs.bandwidth(X.copy(), "median")
    # |U - V| for independent uniforms has median 1 - 1/sqrt(2)
    assert a == pytest.approx(1 - np.sqrt(0.5), abs=0.02)
    # The threads do not matter: the rule is computed the same way on any pool.
    G1 = kgroups_rs.energy_gram(X[:50], semimetric="gaussian", sigma="median", n_threads=1)
    G2 = kgroups_rs.energy_gram(X[:50], semimetric="gaussian", sigma="median", n_threads=2)
    assert np.array_equal(G1, G2)


def test_median_rule_refuses_degenerate_data() -> None:
    with pytest.raises(ValueError, match="median bandwidth is 0; pass sigma explicitly"):
        kgroups_rs.bandwidth([1.0, 1.0, 1.0, 5.0], "median")
    with pytest.raises(ValueError, match="at least 2 points"):
        kgroups_rs.bandwidth([[1.0, 2.0]], "median")
    with pytest.raises(ValueError, match=r"rule must be one of \('mean', 'median'\), got 'mode'"):
        kgroups_rs.bandwidth([0.0, 1.0], "mode")
    with pytest.raises(ValueError, match=r"weights\[1\] = -1"):
        kgroups_rs.bandwidth([0.0, 1.0], "median", weights=[1.0, -1.0])


@pytest.mark.parametrize("semimetric", ["gaussian", "exponential"])
def test_sigma_rules_in_every_kernel_function(semimetric: str) -> None:
    X = np.random.default_rng(4).normal(size=(60, 3))
    median = kgroups_rs.bandwidth(X, "median")
    mean = kgroups_rs.bandwidth(X)

    def gram(points: np.ndarray, **kw: Any) -> np.ndarray:
        return kgroups_rs.energy_gram(points, semimetric=semimetric, **kw)

    assert np.array_equal(gram(X, sigma="median"), gram(X, sigma=median))
    assert np.array_equal(gram(X, sigma="mean"), gram(X, sigma=mean))
    assert np.array_equal(gram(X, sigma="mean"), gram(X))
    assert not np.array_equal(gram(X, sigma="median"), gram(X))
    # matrix-free: the same labels as the dense kernel built with the same bandwidth
    for rule, value in (("median", median), ("mean", mean)):
        a = kgroups_rs.kernel_kgroups_from_data(X, 3, semimetric=semimetric, sigma=rule, random_state=1)
        b = kgroups_rs.kernel_kgroups(gram(X, sigma=value), 3, random_state=1)
        assert np.array_equal(a.labels, b.labels)
    # Nystrom: the features of the rule are those of its value (the data are centred first;
    # both rules are translation invariant)
    fa = kgroups_rs.nystrom_features(X, 20, semimetric=semimetric, sigma="median", random_state=0)
    fb = kgroups_rs.nystrom_features(X, 20, semimetric=semimetric, sigma=median, random_state=0)
    assert np.array_equal(fa[0], fb[0]) and np.array_equal(fa[1], fb[1])
    kgroups_rs.kernel_kgroups_nystrom(X, 3, n_components=20, semimetric=semimetric, sigma="median")


def test_bad_sigma_values_name_the_argument() -> None:
    X = np.random.default_rng(5).normal(size=(10, 2))
    with pytest.raises(ValueError, match=r"sigma must be one of \('mean', 'median', 'auto'\), got 'knn'"):
        kgroups_rs.energy_gram(X, semimetric="gaussian", sigma="knn")
    with pytest.raises(ValueError, match="sigma must be one of"):
        kgroups_rs.kernel_kgroups_from_data(X, 2, semimetric="gaussian", sigma="silverman")
    with pytest.raises(TypeError, match="sigma must be a positive number, 'mean', 'median', 'auto' or None"):
        kgroups_rs.energy_gram(X, semimetric="gaussian", sigma=True)
    with pytest.raises(ValueError, match="sigma"):
        kgroups_rs.energy_gram(X, semimetric="gaussian", sigma=-1.0)
    # the power semimetric has no bandwidth: even a valid rule is refused, not ignored
    with pytest.raises(ValueError, match="semimetric='power' takes alpha, not a bandwidth"):
        kgroups_rs.energy_gram(X, sigma="median")


def test_n_threads_conventions() -> None:
    cores = available_cores()
    assert check_n_threads(None) is None
    assert check_n_threads(-1) is None
    assert check_n_threads(1) == 1
    if cores >= 2:
        assert check_n_threads(-2) == cores - 1
    assert check_n_threads(-cores) == 1
    with pytest.raises(ValueError, match="leaves no thread"):
        check_n_threads(-cores - 1)
    with pytest.raises(ValueError, match="leaves no thread"):
        check_n_threads(0)
    with pytest.raises(TypeError, match="n_threads must be an integer"):
        check_n_threads(True)  # type: ignore[arg-type]


def test_n_threads_minus_one_everywhere_gives_the_same_results() -> None:
    X = np.random.default_rng(6).normal(size=(80, 2))
    G = kgroups_rs.energy_gram(X, n_threads=-1)
    assert np.array_equal(G, kgroups_rs.energy_gram(X, n_threads=1))
    ref = kgroups_rs.kernel_kgroups(G, 3, n_init=4, random_state=2, n_threads=1)
    for threads in (None, -1, -2 if available_cores() >= 2 else 1):
        got = kgroups_rs.kernel_kgroups(G, 3, n_init=4, random_state=2, n_threads=threads)
        assert np.array_equal(got.labels, ref.labels)
    fd = kgroups_rs.kernel_kgroups_from_data(X, 3, random_state=2, n_threads=-1)
    assert np.array_equal(fd.labels, kgroups_rs.kernel_kgroups(G, 3, random_state=2).labels)
    W = kgroups_rs.within_dispersion(ref.labels, X=X, n_threads=-1)
    assert W == pytest.approx(kgroups_rs.within_dispersion(ref.labels, X=X, n_threads=1))


def test_sigma_rules_in_the_energy_statistics() -> None:
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(40, 2)), rng.normal(1.0, size=(30, 2))
    labels = (X[:, 0] > 0).astype(np.int64)
    median = kgroups_rs.bandwidth(X, "median")
    for semimetric in ("gaussian", "exponential"):
        by_rule = kgroups_rs.energy_statistics(labels, X=X, semimetric=semimetric, sigma="median")
        by_value = kgroups_rs.energy_statistics(labels, X=X, semimetric=semimetric, sigma=median)
        assert by_rule.within == by_value.within and by_rule.between == by_value.between
        assert kgroups_rs.energy_distance(X, Y, semimetric=semimetric, sigma="median") == (
            kgroups_rs.energy_distance(X, Y, semimetric=semimetric, sigma=median)
        )
        assert kgroups_rs.energy_distance(X, Y, semimetric=semimetric, sigma="mean") == (
            kgroups_rs.energy_distance(X, Y, semimetric=semimetric)
        )
    # a rule is refused where there are no points to compute it from
    G = kgroups_rs.energy_gram(X)
    with pytest.raises(ValueError, match="sigma='median' given with G="):
        kgroups_rs.within_dispersion(labels, G=G, sigma="median")
    with pytest.raises(ValueError, match="sigma must be one of"):
        kgroups_rs.energy_distance(X, Y, semimetric="gaussian", sigma="max")
