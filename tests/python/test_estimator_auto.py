"""``kernel="auto"`` of KernelKGroups and KernelKMeans: select_k chooses the kernel (and k)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("sklearn")

from kgroups_rs import KernelKGroups, KernelKMeans  # noqa: E402
from kgroups_rs._estimator_auto import predict_knn  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import make_blobs, make_circles  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402


@pytest.fixture(scope="module")
def blobs() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_blobs(300, centers=4, cluster_std=0.6, random_state=0)
    return X, y


@pytest.fixture(scope="module")
def circles() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_circles(240, factor=0.5, noise=0.05, random_state=0)
    return X, y


Data = tuple[np.ndarray, np.ndarray]


@pytest.fixture(scope="module")
def circles_model(circles: tuple[np.ndarray, np.ndarray]) -> KernelKGroups:
    return KernelKGroups(n_clusters="auto", kernel="auto", random_state=0, n_threads=1).fit(circles[0])


def test_blobs_choose_the_energy_kernel_and_fit_as_energy(blobs: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = blobs
    model = KernelKGroups(n_clusters="auto", kernel="auto", random_state=0, n_threads=1).fit(X)
    assert model.kernel_ == "energy" and model.n_clusters_ == 4
    assert model.selection_ is not None and model.selection_.kernel == "energy"
    assert adjusted_rand_score(y, model.labels_) >= 0.95
    # Exactly the energy fit with that k: same labels, and transform/score as there.
    energy = KernelKGroups(n_clusters=4, kernel="energy", random_state=0, n_threads=1).fit(X)
    assert np.array_equal(model.labels_, energy.labels_)
    assert np.allclose(model.transform(X[:5]), energy.transform(X[:5]))
    assert model.score(X) == pytest.approx(energy.score(X))
    assert np.array_equal(model.predict(X), energy.predict(X))


def test_circles_choose_the_knn_graph(circles: Data, circles_model: KernelKGroups) -> None:
    X, y = circles
    model = circles_model
    assert model.kernel_ == "knn" and model.n_clusters_ == 2
    assert model.selection_ is not None and model.selection_.kernel == "knn"
    assert adjusted_rand_score(y, model.labels_) == 1.0
    assert np.array_equal(model.labels_, model.selection_.labels)
    assert np.array_equal(model.predict(X), model.labels_)
    jitter = np.random.default_rng(1).normal(0.0, 0.01, X.shape)
    assert np.array_equal(model.predict(X + jitter), model.labels_)
    assert np.array_equal(model.cluster_sizes_, np.bincount(y))
    assert not hasattr(model, "objective_") and not hasattr(model, "mean_")


def test_knn_fit_keeps_transform_and_score_which_raise(
    circles: Data, circles_model: KernelKGroups
) -> None:
    """The methods an estimator offers depend on its parameters alone: after kernel='auto'
    chose the kNN graph, transform and score still exist (as before the fit) and say why
    they cannot answer."""
    X = circles[0]
    unfitted = clone(circles_model)
    for name in ("transform", "score", "fit_transform", "predict"):
        assert hasattr(unfitted, name) and hasattr(circles_model, name), name
    with pytest.raises(ValueError, match="kNN graph"):
        circles_model.transform(X)
    with pytest.raises(ValueError, match="kNN graph"):
        circles_model.score(X)
    with pytest.raises(ValueError, match="kNN graph"):
        clone(circles_model).fit_transform(X)


def test_knn_vote_breaks_ties_towards_the_nearest() -> None:
    # Ten training points on a line: 0..4 labelled 1, 5..9 labelled 0; a query at 4.5 has
    # all ten as neighbours, five of each label, and its nearest is point 4 or 5 (4.4 vs 4.6).
    from sklearn.neighbors import NearestNeighbors

    X = np.arange(10.0).reshape(-1, 1)
    model: Any = KernelKGroups()
    model.labels_ = np.array([1] * 5 + [0] * 5, dtype=np.int64)
    model.n_clusters_ = 2
    model._neighbors = NearestNeighbors(n_neighbors=10).fit(X)
    assert predict_knn(model, np.array([[4.4], [4.6], [0.0], [9.0]])).tolist() == [1, 0, 1, 0]
    assert predict_knn(model, np.empty((0, 1))).shape == (0,)


def test_uniform_noise_is_one_cluster() -> None:
    X = np.random.default_rng(0).uniform(size=(200, 2))
    model = KernelKGroups(n_clusters="auto", kernel="auto", random_state=0, n_threads=1).fit(X)
    assert model.n_clusters_ == 1 and model.kernel_ == "energy"
    assert model.selection_ is not None and model.selection_.kernel is None
    assert np.all(model.labels_ == 0) and np.all(model.predict(X[:7] + 5.0) == 0)


def test_an_int_n_clusters_fits_that_k_with_the_chosen_kernel(circles: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = circles
    two = KernelKGroups(n_clusters=2, kernel="auto", random_state=0, n_threads=1).fit(X)
    assert two.kernel_ == "knn" and two.n_clusters_ == 2 and adjusted_rand_score(y, two.labels_) == 1.0
    three = KernelKMeans(n_clusters=3, kernel="auto", random_state=0, n_threads=1).fit(X)
    assert three.kernel_ == "knn" and np.unique(three.labels_).tolist() == [0, 1, 2]
    assert np.array_equal(three.predict(X[:3]), three.predict(X[:3]))
    one = KernelKGroups(n_clusters=1, kernel="auto", random_state=0, n_threads=1).fit(X)
    assert one.kernel_ == "energy" and np.all(one.labels_ == 0) and np.all(one.predict(X) == 0)


def test_labels_do_not_depend_on_the_thread_count(blobs: tuple[np.ndarray, np.ndarray]) -> None:
    X, _ = make_circles(160, factor=0.5, noise=0.05, random_state=2)
    for data in (blobs[0], X):
        fits = [
            KernelKGroups(n_clusters="auto", kernel="auto", random_state=3, n_threads=t).fit(data)
            for t in (1, 2)
        ]
        assert fits[0].kernel_ == fits[1].kernel_
        assert np.array_equal(fits[0].labels_, fits[1].labels_)


def test_clone_and_get_params_round_trip() -> None:
    model = KernelKMeans(n_clusters="auto", kernel="auto", random_state=5, n_threads=1)
    params = model.get_params()
    assert params["kernel"] == "auto" and params["n_clusters"] == "auto"
    copy = clone(model)
    assert copy.get_params() == params and copy is not model
    assert KernelKGroups(**KernelKGroups(kernel="auto").get_params()).kernel == "auto"


@pytest.mark.parametrize(
    ("params", "fit_kwargs", "error", "match"),
    [
        ({"kernel": "knn"}, {}, ValueError, "'kernel' parameter .* must be a str among"),
        ({"kernel": "auto", "alpha": 1.5}, {}, ValueError, "alpha"),
        ({"kernel": "auto", "sigma": 1.0}, {}, ValueError, "sigma"),
        ({"kernel": "auto"}, {"sample_weight": np.arange(1.0, 21.0)}, ValueError,
         "kernel='auto' does not take sample_weight"),
        ({"kernel": "auto", "n_clusters": 21}, {}, ValueError, "n_clusters = 21 must be <= n_samples = 20"),
    ],
)  # fmt: skip
def test_errors(params: dict[str, Any], fit_kwargs: dict[str, Any], error: type, match: str) -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(error, match=match):
        KernelKGroups(random_state=0, **params).fit(X, **fit_kwargs)


@pytest.mark.parametrize(
    "estimator",
    [
        KernelKGroups(kernel="auto"),
        KernelKMeans(n_clusters="auto", kernel="auto"),
        KernelKGroups(n_clusters="auto"),
        KernelKMeans(n_clusters="auto"),
        KernelKGroups(kernel="gaussian", sigma="auto"),
        KernelKMeans(kernel="exponential", sigma="auto"),
    ],
    ids=repr,
)
def test_check_estimator_passes_with_the_declared_failures(estimator: Any) -> None:
    from kgroups_rs.estimator import expected_failed_checks
    from sklearn.utils.estimator_checks import check_estimator

    declared = expected_failed_checks(estimator)
    results = check_estimator(estimator, expected_failed_checks=declared, on_skip=None)
    failed = {r["check_name"] for r in results if r["status"] in ("failed", "xfail")}
    assert failed <= set(declared), failed
    assert not [r["check_name"] for r in results if r["status"] == "failed"]
    if "auto" in (estimator.kernel, estimator.n_clusters):
        assert "check_sample_weights_list" in failed  # a real refusal, declared


def test_unit_sample_weight_is_accepted_and_one_sample_refused() -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    plain = KernelKGroups(kernel="auto", random_state=0, n_threads=1).fit(X)
    ones = KernelKGroups(kernel="auto", random_state=0, n_threads=1).fit(X, sample_weight=np.ones(20))
    assert np.array_equal(plain.labels_, ones.labels_)
    with pytest.raises(ValueError, match="at least 2 samples"):
        KernelKGroups(kernel="auto", n_clusters=1).fit(X[:1])
