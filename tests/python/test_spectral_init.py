"""init="spectral": the Ng–Jordan–Weiss embedding of W^1/2 G W^1/2 rounded by k-means++,
then the local search; the bound sum of the top-k eigenvalues reported as spectral_bound."""

from __future__ import annotations

from typing import Any, Callable

import kgroups_rs
import numpy as np
import pytest

sklearn_datasets = pytest.importorskip("sklearn.datasets")
sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _circles() -> tuple[Any, Any]:
    return sklearn_datasets.make_circles(n_samples=400, noise=0.05, factor=0.5, random_state=0)


def _moons() -> tuple[Any, Any]:
    return sklearn_datasets.make_moons(n_samples=400, noise=0.05, random_state=0)


def _ari(truth: Any, labels: Any) -> float:
    return float(sklearn_metrics.adjusted_rand_score(truth, labels))


# Ratio association on the rings is not recovered: A's two leading eigenvectors both lie on
# the inner ring (its nodes have more neighbours), the unnormalised relaxation's known
# weakness; normalised cut's D^-1/2 A D^-1/2 is the embedding of Ng, Jordan and Weiss.
@pytest.mark.parametrize(
    ("data", "objective"),
    [(_circles, "normalized_cut"), (_moons, "normalized_cut"), (_moons, "ratio_association")],
    ids=["circles-ncut", "moons-ncut", "moons-ratio"],
)
def test_spectral_init_separates_circles_and_moons(
    data: Callable[[], tuple[Any, Any]], objective: Any
) -> None:
    X, y = data()
    A = kgroups_rs.knn_kernel(X, 10)
    result = kgroups_rs.graph_partition(A, 2, objective=objective, init="spectral", random_state=0)
    assert _ari(y, result.labels) == 1.0
    # The bound is reported only by the spectral initialisation: no silent fallback.
    assert result.spectral_bound is not None
    assert result.objective <= result.spectral_bound * (1 + 1e-9)
    for other in ("random", "k-means++"):
        plain = kgroups_rs.graph_partition(A, 2, objective=objective, init=other, random_state=0)
        assert plain.spectral_bound is None


def test_spectral_init_succeeds_where_k_means_plus_plus_fails() -> None:
    # The rings' normalised cut: k-means++ (and random labels) then Hartigan stop at a local
    # optimum that cuts both rings; the spectral start finds the rings, a better objective.
    X, y = _circles()
    A = kgroups_rs.knn_kernel(X, 10)
    spectral = kgroups_rs.graph_partition(A, 2, objective="normalized_cut", init="spectral", random_state=0)
    assert _ari(y, spectral.labels) == 1.0
    for other in ("k-means++", "random"):
        plain = kgroups_rs.graph_partition(A, 2, objective="normalized_cut", init=other, random_state=0)
        assert _ari(y, plain.labels) < 0.5
        assert spectral.objective > plain.objective


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd", "lloyd-online"])
def test_objective_never_exceeds_the_bound(algorithm: Any) -> None:
    rng = np.random.default_rng(3)
    for trial in range(5):
        n, k = 60 + 10 * trial, 2 + trial % 4
        X = rng.normal(size=(n, 3))
        weights = rng.uniform(0.5, 2.0, size=n)
        G = kgroups_rs.energy_gram(X)
        result = kgroups_rs.kernel_kgroups(
            G, k, init="spectral", algorithm=algorithm, weights=weights, n_init=3,
            random_state=trial,
        )
        bound = result.spectral_bound
        assert bound is not None
        assert result.objective <= bound + 1e-9 * abs(bound)
        # Every other partition is bounded too.
        other = kgroups_rs.kernel_kgroups(G, k, init="random", weights=weights, random_state=trial)
        assert other.objective <= bound + 1e-9 * abs(bound)
    # With a graph's diagonal shift: the bound of the shifted kernel.
    X, _ = _moons()
    A = kgroups_rs.knn_kernel(X, 10)
    for shift in (0.0, 3.0):
        result = kgroups_rs.graph_partition(
            A, 3, init="spectral", algorithm=algorithm, shift=shift, random_state=0
        )
        assert result.spectral_bound is not None
        assert result.objective <= result.spectral_bound * (1 + 1e-9)


def test_bound_is_attained_on_blocks() -> None:
    sizes, levels = [5, 8, 3], [1.0, 0.5, 2.0]
    n = sum(sizes)
    G = np.zeros((n, n))
    truth = np.repeat(np.arange(3), sizes)
    for label, level in enumerate(levels):
        block = truth == label
        G[np.ix_(block, block)] = level
    result = kgroups_rs.kernel_kgroups(G, 3, init="spectral", random_state=1)
    assert _ari(truth, result.labels) == 1.0
    expected = sum(s * c for s, c in zip(sizes, levels))
    assert result.spectral_bound == pytest.approx(expected, rel=1e-10)
    assert result.objective == pytest.approx(expected, rel=1e-10)


def test_same_seed_same_labels_for_any_thread_count() -> None:
    X, _ = _moons()
    A = kgroups_rs.knn_kernel(X, 10)
    runs = [
        kgroups_rs.graph_partition(
            A, 3, init="spectral", n_init=4, random_state=11, n_threads=threads
        )
        for threads in (1, 2, 1)
    ]
    for run in runs[1:]:
        np.testing.assert_array_equal(run.labels, runs[0].labels)
        assert run.spectral_bound == runs[0].spectral_bound
        assert run.objective == runs[0].objective


def test_every_entry_point_accepts_spectral() -> None:
    X, y = _moons()
    X = X[::4]
    y = y[::4]
    G = kgroups_rs.energy_gram(X)
    results = [
        kgroups_rs.kernel_kmeans(G, 2, init="spectral", random_state=0),
        kgroups_rs.kernel_kgroups_from_data(X, 2, init="spectral", random_state=0),
        kgroups_rs.kernel_kgroups_nystrom(X, 2, n_components=20, init="spectral", random_state=0),
    ]
    for result in results:
        assert result.spectral_bound is not None
        assert result.objective <= result.spectral_bound * (1 + 1e-9) + 1e-12
    # The matrix-free kernel is G itself: the same bound.
    assert results[1].spectral_bound == pytest.approx(
        kgroups_rs.kernel_kgroups(G, 2, init="spectral", random_state=0).spectral_bound,
        rel=1e-9,
    )


def test_estimators_accept_spectral() -> None:
    pytest.importorskip("sklearn")
    X, _ = _moons()
    G = kgroups_rs.energy_gram(X)
    for estimator in (kgroups_rs.KernelKGroups, kgroups_rs.KernelKMeans):
        model = estimator(n_clusters=3, kernel="precomputed", init="spectral", random_state=0)
        labels = model.fit_predict(G)
        assert sorted(set(labels.tolist())) == [0, 1, 2]
        with pytest.raises(ValueError, match="init"):
            estimator(n_clusters=3, init="spectra").fit(X)  # type: ignore[arg-type]


def test_bad_inputs_raise_value_errors_naming_the_argument() -> None:
    G = kgroups_rs.energy_gram(np.arange(5.0)[:, None])
    with pytest.raises(ValueError, match="`k`"):
        kgroups_rs.kernel_kgroups(G, 6, init="spectral")
    with pytest.raises(ValueError, match="init"):
        kgroups_rs.kernel_kgroups(G, 2, init="spectrall")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="weights"):
        kgroups_rs.kernel_kgroups(G, 2, init="spectral", weights=[1.0, 1.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="symmetric"):
        kgroups_rs.kernel_kgroups(G + np.triu(np.ones((5, 5)), 1), 2, init="spectral")
