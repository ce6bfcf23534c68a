"""The selection rule on the cases it must never get wrong: groups far apart are found at
every n and k, structureless data give one group, and a k at the end of the range is never
returned silently. (The rule's accuracy on labelled suites is measured by
``benches/bench_select_k.py`` and ``benches/bench_select_null.py``, not here.)"""

from __future__ import annotations

import warnings

import kgroups_rs
import numpy as np
import pytest

sklearn_datasets = pytest.importorskip("sklearn.datasets")


def _tight_blobs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Six blobs of standard deviation 0.05, centres at least 20 apart, 15 to 60 points each."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [25, 0], [50, 0], [0, 25], [25, 25], [50, 25]], dtype=float)
    sizes = rng.integers(15, 61, size=6)
    X = np.vstack([c + 0.05 * rng.standard_normal((m, 2)) for c, m in zip(centres, sizes)])
    return X, np.repeat(np.arange(6), sizes)


def _far_blobs(k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """k unit-variance blobs of 40 points on a line, centres 20 standard deviations apart."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), 40)
    return np.c_[20.0 * y, np.zeros(y.size)] + rng.standard_normal((y.size, 2)), y


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(kgroups_rs.clustering_accuracy(a, b) == 1.0)


@pytest.mark.parametrize("seed", range(4))
def test_six_tight_blobs_far_apart_are_six_groups(seed: int) -> None:
    X, y = _tight_blobs(seed)
    energy = kgroups_rs.select_k(X, kernel="energy", random_state=seed)
    auto = kgroups_rs.select_k(X, random_state=seed)
    estimator = kgroups_rs.KernelKGroups(n_clusters="auto", random_state=seed).fit(X)
    assert (energy.k, auto.k, estimator.n_clusters_) == (6, 6, 6)
    assert _same_partition(y, auto.labels) and _same_partition(y, estimator.labels_)


@pytest.mark.parametrize("n", [1_000, 10_000])
def test_make_blobs_with_four_centres_is_four_groups_at_every_n(n: int) -> None:
    X, _ = sklearn_datasets.make_blobs(n, centers=4, random_state=0)
    assert kgroups_rs.select_k(X, random_state=0).k == 4


@pytest.mark.slow
def test_make_blobs_with_four_centres_is_four_groups_at_n_100_000() -> None:
    X, _ = sklearn_datasets.make_blobs(100_000, centers=4, random_state=0)
    assert kgroups_rs.select_k(X, random_state=0).k == 4


@pytest.mark.parametrize("k", range(2, 13))
def test_blobs_20_standard_deviations_apart_are_found_for_k_up_to_12(k: int) -> None:
    X, y = _far_blobs(k, seed=k)
    result = kgroups_rs.select_k(X, range(1, 15), random_state=0)
    assert result.k == k and not result.at_range_end
    assert _same_partition(y, result.labels)


@pytest.mark.parametrize(
    "name, make",
    [
        ("uniform square, n = 600", lambda rng: rng.uniform(size=(600, 2))),
        ("uniform 1-D, n = 200", lambda rng: rng.uniform(size=(200, 1))),
        ("uniform box 1 x 5 x 2", lambda rng: rng.uniform(size=(800, 3)) * [1.0, 5.0, 2.0]),
        ("one Gaussian, 5-D", lambda rng: rng.normal(size=(500, 5))),
        ("elongated Gaussian, 8-D", lambda rng: rng.normal(size=(600, 8)) @ rng.normal(size=(8, 8))),
    ],
)
def test_structureless_data_are_one_group(name: str, make: object) -> None:
    """One group on at least 9 of 10 draws of each family (``bench_select_null.py`` measures
    the rate on 208 sets: the goal is 95 %)."""
    found = [
        kgroups_rs.select_k(make(np.random.default_rng(seed)), random_state=seed)  # type: ignore[operator]
        for seed in range(10)
    ]
    ones = [r for r in found if r.k == 1]
    assert len(ones) >= 9, (name, [r.k for r in found])
    assert all(r.rule == "no_structure" and np.all(r.labels == 0) for r in ones)


def test_a_k_at_the_end_of_the_range_warns() -> None:
    # Twelve blobs on a 4 x 3 grid, 20 standard deviations apart.
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(12), 40)
    X = 20.0 * np.c_[np.arange(12) % 4, np.arange(12) // 4][y] + rng.standard_normal((y.size, 2))
    with pytest.warns(UserWarning, match="end of the range"):
        result = kgroups_rs.select_k(X, random_state=0)
    assert (result.k, result.at_range_end) == (10, True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wider = kgroups_rs.select_k(X, range(1, 16), random_state=0)
    assert (wider.k, wider.at_range_end) == (12, False)


def test_with_k_given_only_the_kernel_is_chosen() -> None:
    circles, truth = sklearn_datasets.make_circles(400, factor=0.5, noise=0.05, random_state=0)
    rings = kgroups_rs.select_k(circles, 2, random_state=0)
    assert (rings.k, rings.kernel, rings.rule) == (2, "knn", "given_k")
    assert _same_partition(truth, rings.labels)
    X, y = _far_blobs(3, seed=1)
    blobs = kgroups_rs.select_k(X, 3, random_state=0)
    assert (blobs.k, blobs.kernel, blobs.rule) == (3, "energy", "given_k")
    estimator = kgroups_rs.KernelKGroups(2, kernel="auto", random_state=0).fit(circles)
    assert estimator.kernel_ == "knn" and _same_partition(truth, estimator.labels_)
    assert estimator.selection_.rule == "given_k"
    assert kgroups_rs.select_k(circles, 2, kernel="energy", random_state=0).kernel == "energy"
    knn = kgroups_rs.select_k(circles, 2, kernel="knn", random_state=0)
    assert knn.kernel == "knn" and _same_partition(truth, knn.labels)
    with pytest.raises(ValueError, match="precomputed"):
        kgroups_rs.select_k(kgroups_rs.energy_gram(X), 3, kernel="precomputed")
    with pytest.raises(ValueError, match="beyond the number of points"):
        kgroups_rs.select_k(X, X.shape[0] + 1)


@pytest.mark.parametrize(
    "params",
    [
        {"n_clusters": "auto", "kernel": "energy"},
        {"n_clusters": "auto"},
        {"n_clusters": 3, "kernel": "auto"},
    ],
)
def test_the_estimator_reports_the_partition_select_k_chose(params: dict[str, object]) -> None:
    X, y = _far_blobs(3, seed=5)
    X = X + np.random.default_rng(5).normal(0, 3.0, X.shape)  # overlapping: many local optima
    model = kgroups_rs.KernelKGroups(random_state=0, **params).fit(X)  # type: ignore[arg-type]
    assert model.selection_ is not None and model.kernel_ == "energy"
    np.testing.assert_array_equal(model.labels_, model.selection_.labels)


def test_n_clusters_auto_refuses_an_energy_kernel_it_does_not_choose_with() -> None:
    X, _ = _far_blobs(3, seed=5)
    with pytest.raises(ValueError, match="alpha = 1"):
        kgroups_rs.KernelKGroups(n_clusters="auto", kernel="energy", alpha=0.5).fit(X)
