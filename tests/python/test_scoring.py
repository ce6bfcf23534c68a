"""Prediction strength as a GridSearchCV scorer, and Tibshirani & Walther's threshold rule."""

from __future__ import annotations

import functools
import itertools

import kgroups_rs
import numpy as np
import pytest
from kgroups_rs.scoring import _prediction_strength

pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold  # noqa: E402


def brute_force_strength(test_labels: np.ndarray, predicted: np.ndarray) -> float:
    """The definition, pair by pair: min over test clusters with >= 2 points of the share of
    ordered pairs a != b of the cluster that the prediction puts together."""
    shares = []
    for j in np.unique(test_labels):
        members = np.flatnonzero(test_labels == j)
        if members.size < 2:
            continue
        pairs = [(a, b) for a, b in itertools.permutations(members, 2)]
        together = sum(predicted[a] == predicted[b] for a, b in pairs)
        shares.append(together / len(pairs))
    return min(shares)


@pytest.fixture(scope="module")
def blobs() -> np.ndarray:
    X, _ = make_blobs(150, centers=[[0, 0], [6, 0], [0, 6]], cluster_std=0.6, random_state=0)
    return X


def test_the_pair_count_by_hand() -> None:
    # test cluster 0 = points 0, 1, 2: of its 6 ordered pairs, (0, 1) and (1, 0) stay together
    assert _prediction_strength([0, 0, 0, 1, 1], [5, 5, 7, 7, 7]) == pytest.approx(1 / 3)
    # a singleton test cluster is left out; every cluster a singleton: undefined
    assert _prediction_strength([0, 0, 1], [1, 1, 0]) == 1.0
    assert np.isnan(_prediction_strength([0, 1, 2], [0, 0, 0]))
    with pytest.raises(ValueError, match="one label per point"):
        _prediction_strength([0, 1], [0])


@pytest.mark.parametrize("k", [2, 3, 4])
def test_the_score_equals_the_brute_force_count(k: int) -> None:
    rng = np.random.default_rng(k)
    X = np.vstack([rng.normal(c, 1.2, (12, 2)) for c in (0.0, 3.0, 6.0)])
    rng.shuffle(X)
    train, test = X[:18], X[18:]
    model = kgroups_rs.KernelKGroups(k, random_state=1).fit(train)
    score = kgroups_rs.prediction_strength_score(model, test)
    test_labels = clone(model).fit(test).labels_
    expected = brute_force_strength(test_labels, model.predict(test))
    assert score == pytest.approx(expected, abs=1e-15)
    assert 0.0 <= score <= 1.0


def test_the_score_is_not_always_one() -> None:
    # overlapping groups split in two ways: a brute-force match on a score below 1
    X = np.random.default_rng(0).normal(size=(60, 2))
    model = kgroups_rs.KernelKGroups(4, random_state=0).fit(X[:30])
    score = kgroups_rs.prediction_strength_score(model, X[30:])
    expected = brute_force_strength(clone(model).fit(X[30:]).labels_, model.predict(X[30:]))
    assert score == pytest.approx(expected) and score < 1.0


def test_grid_search_with_the_threshold_rule_picks_three_blobs(blobs: np.ndarray) -> None:
    search = GridSearchCV(
        kgroups_rs.KernelKGroups(random_state=0), {"n_clusters": [2, 3, 4, 5]},
        scoring=kgroups_rs.prediction_strength_score, cv=3,
        refit=kgroups_rs.choose_k_by_prediction_strength,
    ).fit(blobs)
    assert search.best_params_ == {"n_clusters": 3}
    assert search.best_estimator_.n_clusters_ == 3
    scores = search.cv_results_["mean_test_score"]
    # the strength falls past the true k: 4 and 5 stay below the threshold
    assert scores[1] >= 0.8 and scores[2] < 0.8 and scores[3] < 0.8


def test_kernel_kmeans_and_two_kernels_in_one_grid(blobs: np.ndarray) -> None:
    grid = {"n_clusters": [2, 3, 4], "kernel": ["energy", "gaussian"]}
    search = GridSearchCV(
        kgroups_rs.KernelKMeans(random_state=0), grid,
        scoring=kgroups_rs.prediction_strength_score,
        cv=KFold(3, shuffle=True, random_state=0),
        refit=kgroups_rs.choose_k_by_prediction_strength,
    ).fit(blobs)
    assert search.best_params_["n_clusters"] == 3
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert {p["kernel"] for p in search.cv_results_["params"]} == {"energy", "gaussian"}


def test_n_clusters_auto_is_scored_at_its_fitted_k(blobs: np.ndarray) -> None:
    model = kgroups_rs.KernelKGroups("auto", random_state=0).fit(blobs[:100])
    assert model.n_clusters_ == 3
    score = kgroups_rs.prediction_strength_score(model, blobs[100:])
    test_labels = kgroups_rs.KernelKGroups(3, random_state=0).fit(blobs[100:]).labels_
    assert score == pytest.approx(brute_force_strength(test_labels, model.predict(blobs[100:])))


def test_the_default_kernel_keeps_choosing_in_the_test_fit() -> None:
    """n_clusters="auto" with the default kernel chose the kernel; the test partition is fitted
    with the fitted k and the kernel still chosen (kernel="auto"), not the energy kernel that
    the default means with a number of clusters."""
    from sklearn.datasets import make_circles

    X, _ = make_circles(800, factor=0.5, noise=0.05, random_state=0)
    train, test = X[:500], X[500:]
    model = kgroups_rs.KernelKGroups("auto", random_state=0).fit(train)
    assert (model.kernel_, model.n_clusters_) == ("knn", 2)
    score = kgroups_rs.prediction_strength_score(model, test)
    test_labels = kgroups_rs.KernelKGroups(2, kernel="auto", random_state=0).fit(test).labels_
    assert score == pytest.approx(brute_force_strength(test_labels, model.predict(test)))
    assert score == 1.0


def results(ks: list[int], scores: list[float], kernels: list[str] | None = None) -> dict[str, object]:
    params = [{"n_clusters": k} if kernels is None else {"n_clusters": k, "kernel": kernel}
              for k, kernel in zip(ks, kernels or ks)]
    return {"params": params, "mean_test_score": np.array(scores)}


def test_the_rule_takes_the_largest_k_over_the_threshold_not_the_best_score() -> None:
    choose = kgroups_rs.choose_k_by_prediction_strength
    assert choose(results([1, 2, 3, 4], [1.0, 0.95, 0.85, 0.5])) == 2
    assert choose(results([1, 2, 3, 4], [1.0, 0.95, 0.85, 0.5]), threshold=0.9) == 1
    assert functools.partial(choose, threshold=0.9)(results([2, 3], [0.95, 0.85])) == 0
    # the same k under two kernels: the better score; NaN never passes
    assert choose(results([3, 3, 4], [0.82, 0.9, np.nan], ["energy", "gaussian", "energy"])) == 1
    # nothing passes and no k = 1 in the grid: the best score
    assert choose(results([2, 3], [0.5, 0.7])) == 1


@pytest.mark.parametrize(
    ("cv_results", "kwargs", "message"),
    [
        (results([2, 3], [0.9, 0.8]), {"threshold": 0.0}, "threshold must be in"),
        (results([2, 3], [0.9, 0.8]), {"score": "ps"}, "no 'mean_test_ps' column"),
        ({"params": [{"n_clusters": "auto"}], "mean_test_score": [0.9]}, {}, "integer n_clusters"),
        (results([2, 3], [np.nan, np.nan]), {}, "NaN"),
    ],
)
def test_the_rule_refuses_bad_input(
    cv_results: dict[str, object], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        kgroups_rs.choose_k_by_prediction_strength(cv_results, **kwargs)  # type: ignore[arg-type]
