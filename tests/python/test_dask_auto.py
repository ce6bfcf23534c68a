"""kgroups_rs.dask: init="spectral", and n_clusters="auto" / kernel="auto" of the Dask
estimator (dask's synchronous scheduler, and one run on a LocalCluster)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("sklearn")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import kgroups_rs  # noqa: E402
import kgroups_rs.dask as kgd  # noqa: E402
from kgroups_rs import _core  # noqa: E402
from sklearn.datasets import make_moons  # noqa: E402
from sklearn.metrics import adjusted_rand_score as ari  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def blobs(n: int, seed: int = 0, spread: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Three well separated Gaussian blobs of unequal sizes in 2-D, and the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    centres = np.array([[0.0, 0.0], [7.0, 0.0], [0.0, 7.0]])
    return centres[truth] + spread * rng.normal(size=(n, 2)), truth


@pytest.mark.parametrize("seed", [0, 5])
def test_spectral_init_agrees_with_the_core_on_the_same_features(seed):
    # The same low-rank kernel on one machine: the core's spectral init on the features.
    X, truth = blobs(900, seed=seed, spread=1.6)
    res = kgd.kernel_kgroups_nystrom(
        da.from_array(X, chunks=(300, 2)), 3, "spectral", n_components=32, random_state=seed
    )
    phi = np.ascontiguousarray(res.feature_map.features(X, None))
    core = _core.cluster_features(phi, 3, _core.FitOptions(init="spectral", seed=seed))
    labels = res.labels.compute()
    assert core.spectral_bound is not None and res.spectral_bound is not None
    assert res.spectral_bound == pytest.approx(core.spectral_bound, rel=1e-9)
    assert res.objective <= res.spectral_bound * (1 + 1e-12)
    assert res.objective >= core.objective * (1 - 1e-9)
    assert ari(labels, core.labels) >= 0.99
    assert ari(labels, truth) >= 0.9


def test_spectral_bound_with_weights_is_the_cores():
    # C = Phi^T W Phi carries the weights: the same k eigenvalues as W^(1/2) Phi Phi^T W^(1/2).
    X, _ = blobs(600, seed=8, spread=1.5)
    w = np.random.default_rng(8).uniform(0.5, 3.0, size=600)
    res = kgd.kernel_kgroups_nystrom(
        da.from_array(X, chunks=(200, 2)), 3, "spectral", n_components=24, random_state=1,
        weights=da.from_array(w, chunks=150),
    )  # fmt: skip
    phi = np.ascontiguousarray(res.feature_map.features(X, None))
    core = _core.cluster_features(phi, 3, _core.FitOptions(init="spectral", seed=1, weights=w))
    assert res.spectral_bound == pytest.approx(core.spectral_bound, rel=1e-9)
    assert res.objective >= core.objective * (1 - 1e-9)


def test_spectral_init_is_deterministic_and_independent_of_the_chunking():
    X, _ = blobs(1200, seed=3, spread=1.8)
    runs = [
        kgd.kernel_kgroups_nystrom(
            da.from_array(X, chunks=(chunk, 2)), 3, "spectral", n_components=24, n_init=2,
            random_state=11,
        )  # fmt: skip
        for chunk in (1200, 250, 250)
    ]
    first = runs[0].labels.compute()
    for run in runs[1:]:
        np.testing.assert_array_equal(run.labels.compute(), first)
        assert run.objective == pytest.approx(runs[0].objective, rel=1e-12)
        assert run.spectral_bound == pytest.approx(runs[0].spectral_bound, rel=1e-12)
    plain = kgd.kernel_kgroups_nystrom(da.from_array(X, chunks=(250, 2)), 3, n_components=24, random_state=11)
    assert plain.spectral_bound is None


def test_spectral_init_on_a_local_cluster_and_in_the_estimator():
    distributed = pytest.importorskip("distributed")
    X, truth = blobs(800, seed=4)
    Xd = da.from_array(X, chunks=(200, 2))
    synchronous = kgd.KernelKGroups(3, init="spectral", n_init=1, n_components=24, random_state=2).fit(Xd)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster), dask.config.set(scheduler="distributed"):
        est = kgd.KernelKGroups(3, init="spectral", n_init=1, n_components=24, random_state=2).fit(Xd)
        labels = est.labels_.compute()
    np.testing.assert_array_equal(labels, synchronous.labels_.compute())
    assert est.result_.spectral_bound is not None
    assert ari(labels, truth) >= 0.95


def test_the_spectral_transform_is_the_cores_eigen_decomposition():
    """T = V_k Lambda_k^(-1/2) from the core's eigenpairs of Phi^T W Phi: the top k of
    numpy's, each column's largest |entry| positive; too low a rank is refused."""
    from kgroups_rs.dask._spectral import spectral_transform

    rng = np.random.default_rng(3)
    phi = rng.normal(size=(300, 6)) * np.array([5.0, 4.0, 3.0, 2.0, 1.0, 0.5])
    w = rng.uniform(0.5, 2.0, 300)
    T, bound = spectral_transform(da.from_array(phi, chunks=100), da.from_array(w, chunks=100), 3)
    C = phi.T @ (phi * w[:, None])
    values, vectors = np.linalg.eigh(C)
    top, basis = values[::-1][:3], vectors[:, ::-1][:, :3]
    assert bound == pytest.approx(top.sum(), rel=1e-12)
    peak = np.abs(T).argmax(axis=0)
    assert np.all(T[peak, np.arange(3)] > 0)
    np.testing.assert_allclose(np.abs(T), np.abs(basis / np.sqrt(top)), rtol=1e-9, atol=1e-12)
    values_core, vectors_core = _core.symmetric_eigen(np.ascontiguousarray(C))
    np.testing.assert_allclose(values_core, values[::-1], rtol=1e-12, atol=1e-12 * values.max())
    np.testing.assert_allclose(C @ vectors_core, vectors_core * values_core, atol=1e-10 * values.max())
    rank_two = da.from_array(np.column_stack([phi[:, :2], phi[:, :2] @ [1.0, 2.0]]), chunks=100)
    with pytest.raises(ValueError, match=r"needs k = 3 positive eigenvalues .*rank 2"):
        spectral_transform(rank_two, None, 3)
    for bad, message in [
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN or infinity"),
        (np.array([[1.0, 2.0], [0.0, 1.0]]), "not symmetric"),
        (np.ones((2, 3)), "must be square"),
    ]:
        with pytest.raises(ValueError, match=f"invalid `a`: .*{message}"):
            _core.symmetric_eigen(bad)


def test_bad_init_names_the_argument():
    X, _ = blobs(300)
    with pytest.raises(ValueError, match=r"init must be 'k-means\+\+', 'spectral' or initial labels"):
        kgd.kernel_kgroups_nystrom(da.from_array(X, chunks=100), 3, "spectra", n_components=16)


def test_n_clusters_auto_finds_three_blobs_as_the_single_machine_estimator():
    X, truth = blobs(600, seed=1)
    est = kgd.KernelKGroups("auto", n_components=32, random_state=0).fit(da.from_array(X, chunks=(150, 2)))
    assert est.n_clusters_ == 3 and est.kernel_ == "energy"
    assert ari(est.labels_.compute(), truth) >= 0.95
    # n <= 5000: the selection sample is X itself, so select_k sees what one machine sees.
    single = kgroups_rs.KernelKGroups("auto", random_state=0).fit(X)
    assert est.selection_ is not None and single.selection_ is not None
    assert est.selection_.k == single.selection_.k == 3
    np.testing.assert_array_equal(est.selection_.labels, single.selection_.labels)


def test_kernel_auto_on_two_moons_labels_every_point_by_the_graph():
    X, truth = make_moons(600, noise=0.05, random_state=0)
    Xd = da.from_array(X, chunks=(200, 2))
    est = kgd.KernelKGroups("auto", kernel="auto", n_components=32, random_state=0).fit(Xd)
    assert (est.kernel_, est.n_clusters_) == ("knn", 2)
    assert isinstance(est.labels_, da.Array) and est.labels_.chunks == Xd.chunks[:1]
    labels = est.labels_.compute()
    assert ari(labels, truth) >= 0.95
    assert not hasattr(est, "result_")
    new, new_truth = make_moons(300, noise=0.05, random_state=1)
    assert ari(est.predict(da.from_array(new, chunks=100)).compute(), new_truth) >= 0.95
    # On blobs the same call chooses the energy kernel and fits the Nyström path.
    B, b_truth = blobs(600, seed=2)
    blob_est = kgd.KernelKGroups(3, kernel="auto", n_components=32, random_state=0).fit(
        da.from_array(B, chunks=(200, 2))
    )
    assert blob_est.kernel_ == "energy" and blob_est.n_clusters_ == 3
    assert ari(blob_est.labels_.compute(), b_truth) >= 0.95


def test_the_default_kernel_and_knn_as_the_single_machine_estimator():
    """n_clusters="auto" alone chooses the kernel (two moons: the kNN graph), as
    kernel="auto" does; kernel="knn" asks for the graph, with k given or chosen."""
    X, truth = make_moons(600, noise=0.05, random_state=0)
    Xd = da.from_array(X, chunks=(200, 2))
    default = kgd.KernelKGroups("auto", n_components=32, random_state=0).fit(Xd)
    auto = kgd.KernelKGroups("auto", kernel="auto", n_components=32, random_state=0).fit(Xd)
    assert default.kernel is None and (default.kernel_, default.n_clusters_) == ("knn", 2)
    np.testing.assert_array_equal(default.labels_.compute(), auto.labels_.compute())
    for k in (2, "auto"):
        knn = kgd.KernelKGroups(k, kernel="knn", n_components=32, random_state=0).fit(Xd)
        assert (knn.kernel_, knn.n_clusters_) == ("knn", 2)
        assert ari(knn.labels_.compute(), truth) >= 0.95
        single = kgroups_rs.KernelKGroups(k, kernel="knn", random_state=0).fit(X)
        # n <= 5000: the sample is X itself, and every point its own nearest sample point
        assert ari(knn.labels_.compute(), single.labels_) == 1.0
    energy = kgd.KernelKGroups("auto", kernel="energy", n_components=32, random_state=0).fit(Xd)
    assert energy.kernel_ == "energy"


@pytest.mark.parametrize(
    "params, fit_kwargs, message",
    [
        (dict(n_clusters="many"), {}, "n_clusters must be a positive int or 'auto'"),
        (dict(n_clusters=0), {}, "n_clusters"),
        (dict(kernel="rbf"), {}, "kernel must be one of"),
        (dict(kernel="auto", sigma=1.0), {}, "kernel='auto' chooses the kernel"),
        (dict(n_clusters="auto", kernel="gaussian"), {}, "n_clusters='auto' needs kernel='energy'"),
        (dict(n_clusters="auto"), dict(sample_weight=np.ones(200)), "do not take sample_weight"),
        (dict(kernel="knn"), dict(sample_weight=np.ones(200)), "do not take sample_weight"),
        (dict(kernel="knn", alpha=0.5), {}, "kernel='knn' takes neither"),
        (dict(n_clusters="auto", sigma="median"), {},
         "kernel='auto' chooses the kernel.*kernel=None, the default, is kernel='auto'"),
    ],
)
def test_bad_auto_input_names_the_argument(params, fit_kwargs, message):
    X, _ = blobs(200)
    with pytest.raises(ValueError, match=message):
        kgd.KernelKGroups(n_components=16, random_state=0, **params).fit(
            da.from_array(X, chunks=100), **fit_kwargs
        )


def test_auto_refuses_nan_outside_the_selection_sample():
    X, _ = blobs(6000, seed=7)
    X[5999, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity at row 5999, column 1"):
        kgd.KernelKGroups("auto", n_components=16, random_state=0).fit(da.from_array(X, chunks=(2000, 2)))


@pytest.mark.parametrize("kernel", ["energy", "auto"])
def test_n_clusters_auto_on_identical_rows_is_one_group(kernel):
    """Identical rows: one group, as the single-machine estimator answers. The landmark
    kernel of one repeated point has no positive eigenvalue, which other landmarks cannot
    change: for one group that is zero features; for two, still an error."""
    X = np.tile([1.0, 2.0], (2000, 1))
    single = kgroups_rs.KernelKGroups(n_clusters="auto", kernel=kernel, random_state=0).fit(X)
    dX = da.from_array(X, chunks=500)
    model = kgd.KernelKGroups(n_clusters="auto", kernel=kernel, random_state=0).fit(dX)
    assert model.n_clusters_ == single.n_clusters_ == 1
    assert model.labels_.compute().tolist() == [0] * 2000
    assert model.within_ == 0.0
    assert model.predict(da.from_array(X[:10] + 1.0, chunks=5)).compute().tolist() == [0] * 10
    with pytest.raises(ValueError, match="no positive eigenvalue"):  # two groups of one point
        kgd.KernelKGroups(n_clusters=2, random_state=0).fit(dX)
