"""Inputs that are something else: a distance matrix passed as a kernel, and a semimetric
parameter (``sigma``, ``alpha``) that the chosen semimetric would ignore."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest
import scipy.sparse
from kgroups_rs import ConvergenceWarning, KernelInputWarning
from kgroups_rs._warnings import DISTANCE_CHECK_ROWS, looks_like_distance_matrix

_Float = npt.NDArray[np.float64]

# A distance matrix clustered as a kernel also degenerates (the run's own warnings).
pytestmark = pytest.mark.filterwarnings("ignore::kgroups_rs.ConvergenceWarning")

DISTANCE_MESSAGE = (
    r"G looks like a distance matrix \(zero diagonal, non-negative entries\), not a kernel"
    r".*gram_from_semimetric\(G\).*graph_partition"
)


def blobs(seed: int = 0, n: int = 60) -> tuple[_Float, npt.NDArray[np.int64]]:
    """Two well-separated Gaussian blobs of n points each in 2-D."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n, 2)), rng.normal(size=(n, 2)) + 8.0])
    return X, np.repeat([0, 1], n)


def euclidean(X: _Float) -> _Float:
    return np.asarray(np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)), dtype=np.float64)


def same_partition(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> bool:
    return bool(np.array_equal(a, b) or np.array_equal(a, 1 - b))


def kernel_warnings(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, KernelInputWarning)]


# ------------------------------------------------------------------ a distance matrix as G


@pytest.mark.parametrize("cluster", [kgroups_rs.kernel_kgroups, kgroups_rs.kernel_kmeans])
def test_a_distance_matrix_passed_as_a_kernel_warns_first_and_the_advice_works(
    cluster: Callable[..., kgroups_rs.ClusteringResult],
) -> None:
    X, truth = blobs()
    D = euclidean(X)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cluster(D, 2, random_state=0)
    kinds = [w.category for w in record]
    assert KernelInputWarning in kinds
    # It comes before any warning of the run (the misleading "fewer distinct points").
    assert kinds[0] is KernelInputWarning
    assert all(issubclass(kind, (KernelInputWarning, ConvergenceWarning)) for kind in kinds)
    with pytest.warns(KernelInputWarning, match=DISTANCE_MESSAGE) as caught:
        cluster(D, 2, random_state=0)
    assert caught[0].filename == __file__  # attributed to the caller
    # The advice: the Gram matrix of the distances clusters the blobs, without a warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = cluster(kgroups_rs.gram_from_semimetric(D), 2, random_state=0, n_init=3)
    assert same_partition(result.labels, truth)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_the_distance_check_for_float32_and_f_order(dtype: Any, order: str) -> None:
    D = np.array(euclidean(blobs(1)[0]), dtype=dtype, order=order)
    with pytest.warns(KernelInputWarning, match=DISTANCE_MESSAGE):
        kgroups_rs.kernel_kgroups(D, 2, random_state=0)


def test_real_kernels_never_warn() -> None:
    X, _ = blobs(2)
    kernels = [
        kgroups_rs.energy_gram(X),
        kgroups_rs.energy_gram(X, base="origin"),
        kgroups_rs.energy_gram(X, base="centered"),
        kgroups_rs.energy_gram(X, semimetric="gaussian"),
        kgroups_rs.energy_gram(X, dtype=np.float32),
        np.asfortranarray(kgroups_rs.energy_gram(X, semimetric="exponential", sigma=2.0)),
        np.exp(-euclidean(X) ** 2 / 8.0),  # a gaussian (RBF) kernel, diagonal 1
        kgroups_rs.gram_from_semimetric(euclidean(X)),  # base "origin": G_00 = 0, others not
        X @ X.T,  # a linear kernel
        np.zeros((len(X), len(X))),  # the zero kernel: zero diagonal, but no positive entry
    ]
    for G in kernels:
        assert not looks_like_distance_matrix(G)
        with warnings.catch_warnings():
            warnings.simplefilter("error", KernelInputWarning)
            kgroups_rs.kernel_kgroups(G, 2, random_state=0)
            kgroups_rs.kernel_kmeans(G, 2, random_state=0)


def test_a_zero_diagonal_with_a_negative_entry_is_not_a_distance_matrix() -> None:
    D = euclidean(blobs(3)[0])
    D[0, 1] = D[1, 0] = -1.0
    assert not looks_like_distance_matrix(D)
    D[0, 1] = D[1, 0] = np.nan
    assert not looks_like_distance_matrix(D)


def test_large_matrices_are_judged_on_a_sample_of_rows() -> None:
    n = 3 * DISTANCE_CHECK_ROWS + 7
    x = np.linspace(0.0, 1.0, n)
    D = np.abs(x[:, None] - x[None, :])
    assert looks_like_distance_matrix(D)
    assert looks_like_distance_matrix(np.asfortranarray(D.astype(np.float32)))
    D[n // 2, n // 2] = 1e-3  # one non-zero diagonal entry: not the signature
    assert not looks_like_distance_matrix(D)


def test_graphs_do_not_warn_in_graph_partition() -> None:
    rng = np.random.default_rng(4)
    blocks = np.repeat([0, 1], 40)
    p = np.where(blocks[:, None] == blocks[None, :], 0.5, 0.02)
    A = np.triu((rng.random((80, 80)) < p).astype(np.float64), 1)
    A = A + A.T
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelInputWarning)
        for objective in ("ratio_association", "normalized_cut"):
            result = kgroups_rs.graph_partition(A, 2, objective=objective, n_init=5, random_state=0)
            assert same_partition(result.labels, blocks)
            kgroups_rs.graph_partition(
                np.asfortranarray(A.astype(np.float32)), 2, objective=objective, random_state=0
            )
            kgroups_rs.graph_partition(scipy.sparse.csr_array(A), 2, objective=objective, random_state=0)
    # The same adjacency passed to kernel_kgroups is flagged, naming graph_partition.
    with pytest.warns(KernelInputWarning, match="graph_partition"):
        kgroups_rs.kernel_kgroups(A, 2, random_state=0)


def test_sparse_input_is_not_checked() -> None:
    D = scipy.sparse.csr_array(euclidean(blobs(5)[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelInputWarning)
        kgroups_rs.kernel_kgroups(D, 2, random_state=0)


def test_the_estimator_with_a_precomputed_distance_matrix_warns_once_naming_x() -> None:
    pytest.importorskip("sklearn")
    X, truth = blobs(6)
    D = euclidean(X)
    with pytest.warns(KernelInputWarning) as caught:
        kgroups_rs.KernelKGroups(2, kernel="precomputed", random_state=0).fit(D)
    messages = kernel_warnings(list(caught))
    assert len(messages) == 1
    assert messages[0].startswith("X looks like a distance matrix")
    assert "gram_from_semimetric(X)" in messages[0]
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelInputWarning)
        model = kgroups_rs.KernelKMeans(2, kernel="precomputed", random_state=0)
        model.fit(kgroups_rs.gram_from_semimetric(D))
    assert same_partition(model.labels_, truth)


def test_energy_statistics_with_a_distance_matrix_as_g_warns() -> None:
    X, truth = blobs(7)
    D = euclidean(X)
    with pytest.warns(KernelInputWarning, match=r"G looks like a distance matrix.*R="):
        kgroups_rs.energy_statistics(truth, G=D)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelInputWarning)
        by_r = kgroups_rs.within_dispersion(truth, R=D)
        by_g = kgroups_rs.within_dispersion(truth, G=kgroups_rs.gram_from_semimetric(D))
    assert by_g == pytest.approx(by_r, rel=1e-12)


# ------------------------------------------------------------------ sigma and alpha

X_SMALL = np.random.default_rng(8).normal(size=(24, 2))
SIGMAS = [2.0, "mean", "median", "auto"]


def entry_points() -> list[tuple[str, Callable[..., Any]]]:
    """Every public function taking semimetric, alpha and sigma, as f(semimetric=, alpha=, sigma=)."""
    X, labels = X_SMALL, np.repeat([0, 1], 12)
    return [
        ("energy_gram", lambda **kw: kgroups_rs.energy_gram(X, **kw)),
        ("energy_gram cross", lambda **kw: kgroups_rs.energy_gram(X[:5], X, **kw)),
        ("kernel_kgroups_from_data", lambda **kw: kgroups_rs.kernel_kgroups_from_data(X, 2, **kw)),
        ("nystrom_features", lambda **kw: kgroups_rs.nystrom_features(X, 6, **kw)),
        (
            "kernel_kgroups_nystrom",
            lambda **kw: kgroups_rs.kernel_kgroups_nystrom(X, 2, n_components=6, **kw),
        ),
        ("energy_statistics", lambda **kw: kgroups_rs.energy_statistics(labels, X=X, **kw)),
        ("within_dispersion", lambda **kw: kgroups_rs.within_dispersion(labels, X=X, **kw)),
        ("between_statistic", lambda **kw: kgroups_rs.between_statistic(labels, X=X, **kw)),
        ("energy_distance", lambda **kw: kgroups_rs.energy_distance(X[:10], X[10:], **kw)),
    ]


ENTRY_POINTS = entry_points()
ENTRY_IDS = [name for name, _ in ENTRY_POINTS]


@pytest.mark.parametrize("sigma", SIGMAS, ids=str)
@pytest.mark.parametrize(("name", "call"), ENTRY_POINTS, ids=ENTRY_IDS)
def test_sigma_with_the_power_semimetric_is_refused(
    name: str, call: Callable[..., Any], sigma: Any
) -> None:
    refusal = r"sigma=.* semimetric='power' takes alpha.*exponential and gaussian"
    for semimetric in ({}, {"semimetric": "power"}):  # the default and the explicit name
        with pytest.raises(ValueError, match=refusal):
            call(sigma=sigma, **semimetric)
    call(alpha=0.5)  # alpha is the power semimetric's parameter
    call()


@pytest.mark.parametrize("semimetric", ["exponential", "gaussian"])
@pytest.mark.parametrize(("name", "call"), ENTRY_POINTS, ids=ENTRY_IDS)
def test_alpha_with_a_bandwidth_semimetric_is_refused(
    name: str, call: Callable[..., Any], semimetric: str
) -> None:
    with pytest.raises(ValueError, match=rf"alpha=0.5 was given, but semimetric='{semimetric}' takes sigma"):
        call(semimetric=semimetric, alpha=0.5)
    for sigma in (None, *SIGMAS):
        call(semimetric=semimetric, sigma=sigma)
    call(semimetric=semimetric, alpha=1.0)  # the default, which cannot be told from no alpha


def test_semimetric_parameters_with_a_matrix_in_energy_statistics_are_refused() -> None:
    labels = np.repeat([0, 1], 12)
    G = kgroups_rs.energy_gram(X_SMALL)
    R = euclidean(X_SMALL)
    for source in ({"G": G}, {"R": R}):
        for extra in ({"sigma": "median"}, {"sigma": 1.0}, {"alpha": 0.5}, {"semimetric": "gaussian"}):
            with pytest.raises(ValueError, match=r"say how rho is computed from X.*Leave them out"):
                kgroups_rs.within_dispersion(labels, **source, **extra)
        kgroups_rs.within_dispersion(labels, **source, semimetric="power", alpha=1.0, sigma=None)


def test_the_estimators_refuse_a_parameter_their_kernel_ignores() -> None:
    pytest.importorskip("sklearn")
    X = X_SMALL
    for cls in (kgroups_rs.KernelKGroups, kgroups_rs.KernelKMeans):
        for sigma in SIGMAS:
            with pytest.raises(ValueError, match=r"kernel='energy' takes alpha.*set kernel='exponential'"):
                cls(2, sigma=sigma).fit(X)
            with pytest.raises(ValueError, match=r"kernel='precomputed' takes neither"):
                cls(2, kernel="precomputed", sigma=sigma).fit(kgroups_rs.energy_gram(X))
        for kernel in ("exponential", "gaussian"):
            with pytest.raises(ValueError, match=rf"kernel='{kernel}' takes sigma.*set kernel='energy'"):
                cls(2, kernel=kernel, alpha=0.5).fit(X)
            cls(2, kernel=kernel, sigma="median").fit(X)
        with pytest.raises(ValueError, match=r"alpha=0.5 .*kernel='precomputed' takes neither"):
            cls(2, kernel="precomputed", alpha=0.5).fit(kgroups_rs.energy_gram(X))
        cls(2, alpha=0.5).fit(X)


def test_the_dask_path_refuses_a_parameter_its_semimetric_ignores() -> None:
    da = pytest.importorskip("dask.array")
    from kgroups_rs.dask import KernelKGroups as DaskKernelKGroups
    from kgroups_rs.dask import kernel_kgroups_nystrom

    X = da.from_array(np.random.default_rng(9).normal(size=(60, 2)), chunks=20)
    for sigma in SIGMAS:
        with pytest.raises(ValueError, match=r"semimetric='power' takes alpha"):
            kernel_kgroups_nystrom(X, 2, n_components=6, sigma=sigma)
        with pytest.raises(ValueError, match=r"kernel='energy' takes alpha.*set kernel='exponential'"):
            DaskKernelKGroups(2, n_components=6, sigma=sigma).fit(X)
    with pytest.raises(ValueError, match=r"semimetric='gaussian' takes sigma"):
        kernel_kgroups_nystrom(X, 2, n_components=6, semimetric="gaussian", alpha=0.5)
    with pytest.raises(ValueError, match=r"kernel='gaussian' takes sigma.*set kernel='energy'"):
        DaskKernelKGroups(2, n_components=6, kernel="gaussian", alpha=0.5).fit(X)
