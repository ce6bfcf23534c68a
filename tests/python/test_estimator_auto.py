"""``kernel="auto"``, ``kernel="knn"`` and the default ``kernel=None`` of KernelKGroups and
KernelKMeans: select_k chooses the kernel (and k), or the kNN graph is asked for."""

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
    # select_k's partition, and the energy fit's with that k (up to the clusters' numbering):
    # transform, score and predict as there.
    assert np.array_equal(model.labels_, model.selection_.labels)
    energy = KernelKGroups(n_clusters=4, kernel="energy", random_state=0, n_threads=1).fit(X)
    order = np.empty(4, dtype=np.int64)
    order[model.labels_] = energy.labels_  # model's cluster c is energy's order[c]
    assert np.array_equal(order[model.labels_], energy.labels_)
    assert np.allclose(model.transform(X[:5]), energy.transform(X[:5])[:, order])
    assert model.score(X) == pytest.approx(energy.score(X))
    assert np.array_equal(order[model.predict(X)], energy.predict(X))


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
    # all ten as neighbours, five of each label, and its nearest is point 4 or 5 (4.4 vs 4.6);
    # at 4.5 exactly, points 4 and 5 are equally near and the first, 4, counts as nearer.
    X = np.arange(10.0).reshape(-1, 1)
    model: Any = KernelKGroups()
    model.labels_ = np.array([1] * 5 + [0] * 5, dtype=np.int64)
    model.n_clusters_ = 2
    model._knn_points = X
    queries = np.array([[4.4], [4.6], [0.0], [9.0], [4.5]])
    assert predict_knn(model, queries).tolist() == [1, 0, 1, 0, 1]
    model.labels_ = model.labels_[::-1].copy()
    assert predict_knn(model, queries).tolist() == [0, 1, 0, 1, 0]
    assert predict_knn(model, np.empty((0, 1))).shape == (0,)


def test_the_cores_vote_refuses_bad_input_naming_it() -> None:
    from kgroups_rs import _core

    pts = np.arange(6.0).reshape(3, 2)
    labels = np.array([0, 1, 0])
    for args, name in [
        ((pts, pts, np.array([0, 1, 2]), 2, 10), "labels"),  # a label not below k
        ((pts, pts, np.array([0, 1]), 2, 10), "labels"),  # one label per labelled point
        ((pts, pts, np.array([0, -1, 0]), 2, 10), "labels"),
        ((pts[:, :1].copy(), pts, labels, 2, 10), "X"),  # another dimension
        ((pts, pts, labels, 2, 0), "n_neighbors"),
        ((np.array([[np.nan, 0.0]]), pts, labels, 2, 10), "X"),
    ]:
        with pytest.raises(ValueError, match=f"invalid `{name}`"):
            _core.knn_vote(*args)


def _brute_force_vote(train: np.ndarray, labels: np.ndarray, k: int, queries: np.ndarray) -> list[int]:
    """The documented vote, transcribed: the 10 nearest training points (all when fewer;
    equal distances in training order), the label most of them hold, a tie to the label of
    the nearest among the tied labels."""
    out = []
    for q in queries:
        d2 = ((train - q) ** 2).sum(axis=1)
        near = np.lexsort((np.arange(len(train)), d2))[: min(10, len(train))]
        votes = np.bincount(labels[near], minlength=k)
        out.append(next(int(labels[j]) for j in near if votes[labels[j]] == votes.max()))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_predict_is_the_documented_vote_on_tiny_inputs(seed: int) -> None:
    """kernel="knn"'s predict against a transcription of its rule, on points of a small
    grid (ties in distance and in votes are common), with fewer and more than 10 training
    points."""
    rng = np.random.default_rng(seed)
    n, k = (6, 2) if seed % 2 else (25, 3)
    X = rng.integers(0, 4, size=(n, 2)).astype(np.float64)
    model = KernelKGroups(k, kernel="knn", random_state=seed, n_threads=1).fit(X)
    assert model.kernel_ == "knn" and np.unique(model.labels_).size <= k
    queries = rng.integers(-1, 5, size=(40, 2)).astype(np.float64)
    expected = _brute_force_vote(X, model.labels_, k, queries)
    assert model.predict(queries).tolist() == expected
    labels = rng.integers(0, k, size=n)  # any labelling: the vote is the rule alone
    model.labels_ = labels.astype(np.int64)
    assert model.predict(queries).tolist() == _brute_force_vote(X, labels, k, queries)


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
    default = KernelKGroups(n_clusters="auto")
    assert default.get_params()["kernel"] is None and clone(default).kernel is None
    assert clone(KernelKMeans(kernel="knn")).get_params()["kernel"] == "knn"


@pytest.mark.parametrize(
    ("params", "fit_kwargs", "error", "match"),
    [
        ({"kernel": "rbf"}, {}, ValueError, "'kernel' parameter .* must be a str among"),
        ({"kernel": "knn", "alpha": 1.5}, {}, ValueError, "kernel='knn' takes neither"),
        ({"kernel": "knn", "sigma": "median"}, {}, ValueError, "kernel='knn' takes neither"),
        ({"kernel": "knn"}, {"sample_weight": np.arange(1.0, 21.0)}, ValueError,
         "kernel='knn' does not take sample_weight"),
        ({"kernel": "knn", "n_clusters": 21}, {}, ValueError, "n_clusters = 21 must be <= n_samples = 20"),
        ({"n_clusters": "auto", "alpha": 1.5}, {}, ValueError,
         "kernel=None, the default, is kernel='auto' when n_clusters='auto'"),
        ({"n_clusters": "auto"}, {"sample_weight": np.arange(1.0, 21.0)}, ValueError,
         "kernel='auto' does not take sample_weight.*kernel=None, the default"),
        ({"n_clusters": "auto", "kernel": "energy"}, {"sample_weight": np.ones(20)}, ValueError,
         "n_clusters='auto' does not take sample_weight"),
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
        KernelKGroups(n_clusters="auto", kernel="energy"),
        KernelKGroups(kernel="knn"),
        KernelKMeans(n_clusters="auto", kernel="knn"),
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
    if "auto" in (estimator.kernel, estimator.n_clusters) or estimator.kernel == "knn":
        assert "check_sample_weights_list" in failed  # a real refusal, declared
    if estimator.kernel == "knn":
        assert "check_non_transformer_estimators_n_iter" in failed  # no n_iter_, declared


def test_unit_sample_weight_is_accepted_and_one_sample_refused() -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    plain = KernelKGroups(kernel="auto", random_state=0, n_threads=1).fit(X)
    ones = KernelKGroups(kernel="auto", random_state=0, n_threads=1).fit(X, sample_weight=np.ones(20))
    assert np.array_equal(plain.labels_, ones.labels_)
    with pytest.raises(ValueError, match="at least 2 samples"):
        KernelKGroups(kernel="auto", n_clusters=1).fit(X[:1])
    with pytest.raises(ValueError, match="kernel='knn' needs at least 2 samples"):
        KernelKGroups(kernel="knn", n_clusters=1).fit(X[:1])
    knn = KernelKGroups(kernel="knn", random_state=0, n_threads=1)
    assert np.array_equal(knn.fit(X, sample_weight=np.ones(20)).labels_, clone(knn).fit(X).labels_)


# ----------------------------------------------------------------------------- kernel="knn"


def test_knn_fits_the_graph_that_auto_chooses(circles: Data, circles_model: KernelKGroups) -> None:
    """kernel="knn" is the partition that kernel="auto" fits when it chooses the kNN graph:
    with a number of clusters, and with n_clusters="auto" (select_k with kernel="knn")."""
    from kgroups_rs import select_k

    X, y = circles
    for k in (2, 3):
        auto = KernelKMeans(k, kernel="auto", random_state=0, n_threads=1).fit(X)
        knn = KernelKMeans(k, kernel="knn", random_state=0, n_threads=1).fit(X)
        assert auto.kernel_ == knn.kernel_ == "knn" and knn.selection_ is None
        # The same graph's normalised cut (at select_k's k, auto keeps select_k's partition).
        assert adjusted_rand_score(knn.labels_, auto.labels_) == 1.0
        # ... and the same vote (up to the clusters' numbering).
        both = lambda m: np.r_[m.labels_, m.predict(X[:20] + 0.01)]  # noqa: E731
        assert adjusted_rand_score(both(knn), both(auto)) == 1.0
    model = KernelKGroups(n_clusters="auto", kernel="knn", random_state=0, n_threads=1).fit(X)
    selection = select_k(X, range(1, 11), kernel="knn", random_state=0, n_threads=1)
    assert model.kernel_ == "knn" and model.n_clusters_ == selection.k == 2
    assert model.selection_ is not None and np.array_equal(model.labels_, selection.labels)
    assert adjusted_rand_score(y, model.labels_) == 1.0
    assert np.array_equal(model.predict(X), model.labels_)
    assert not hasattr(model, "objective_") and not hasattr(model, "n_iter_")
    one = KernelKGroups(1, kernel="knn", random_state=0, n_threads=1).fit(X)
    assert np.all(one.labels_ == 0) and np.all(one.predict(X[:5]) == 0)


def test_knn_has_no_transform_or_score() -> None:
    """With kernel="knn" the parameters already say there is no kernel: transform, score and
    fit_transform do not exist, before the fit as after (as for "precomputed")."""
    X = make_circles(60, factor=0.5, noise=0.05, random_state=0)[0]
    model = KernelKGroups(2, kernel="knn", random_state=0, n_threads=1)
    for _ in ("before the fit", "after"):
        for name in ("transform", "score", "fit_transform"):
            assert not hasattr(model, name), name
        assert hasattr(model, "predict") and hasattr(model, "fit_predict")
        model.fit(X)
    assert model.__sklearn_tags__().transformer_tags is None


# ----------------------------------------------------------------------------- kernel=None


def test_the_default_kernel_chooses_with_n_clusters_auto() -> None:
    """n_clusters="auto" alone chooses the kernel too: two circles are two groups (the
    energy kernel sees one); kernel="energy" keeps the energy kernel."""
    X, y = make_circles(500, factor=0.5, noise=0.05, random_state=0)
    model = KernelKGroups(n_clusters="auto", random_state=0).fit(X)
    assert model.kernel is None and model.kernel_ == "knn" and model.n_clusters_ == 2
    assert adjusted_rand_score(y, model.labels_) == 1.0
    energy = KernelKGroups(n_clusters="auto", kernel="energy", random_state=0).fit(X)
    assert energy.kernel_ == "energy" and energy.n_clusters_ == 1
    assert energy.selection_ is not None and energy.selection_.kernel in ("energy", None)


def test_the_default_kernel_is_energy_with_a_number_of_clusters(blobs: Data) -> None:
    X, _ = blobs
    default = KernelKGroups(4, random_state=0, n_threads=1).fit(X)
    energy = KernelKGroups(4, kernel="energy", random_state=0, n_threads=1).fit(X)
    assert default.kernel_ == "energy" and default.selection_ is None
    assert np.array_equal(default.labels_, energy.labels_)
    assert default.score(X) == energy.score(X)
