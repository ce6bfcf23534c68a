"""Trust on real data: results that say they are right are right.

Data far from the origin, extreme weight scales, the one symmetry rule, degenerate runs
that must warn, and caller-sized allocations that must fail cleanly.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from typing import Any

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest
import scipy.sparse
from kgroups_rs import ConvergenceWarning

_Float = npt.NDArray[np.float64]


def blobs(seed: int = 0) -> tuple[_Float, npt.NDArray[np.int64]]:
    """Two well-separated Gaussian blobs of 150 points in 2-D."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(150, 2)), rng.normal(size=(150, 2)) + 6.0])
    return X, np.repeat([0, 1], 150)


def centred_kernel(X: _Float) -> _Float:
    """The double-centred energy kernel -1/2 J R J, computed from the unshifted data."""
    R = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    J = np.eye(len(X)) - 1.0 / len(X)
    return -0.5 * J @ R @ J


def best_gains(G: _Float, labels: npt.NDArray[np.int64], w: _Float) -> _Float:
    """For each point, the largest increase of Q = sum_j Q_j / s_j that moving it to another
    cluster gives (-inf for a point alone in its cluster), by the direct formula."""
    k = int(labels.max()) + 1
    onehot = np.eye(k)[labels]
    M = G @ (onehot * w[:, None])  # m_l(i)
    s = onehot.T @ w
    counts = onehot.sum(0)
    Q = (onehot * M * w[:, None]).sum(0)
    g = np.diag(G)
    d = g[:, None] - 2.0 * M / s + Q / s**2  # ||phi_i - mu_l||^2
    rows = np.arange(len(labels))
    own = labels
    leave = s[own] / (s[own] - w) * d[rows, own]
    join = s[None, :] / (s[None, :] + w[:, None]) * d
    gains = w[:, None] * (leave[:, None] - join)
    gains[rows, own] = -np.inf
    gains[counts[own] <= 1, :] = -np.inf
    return gains.max(axis=1)


def within(G: _Float, labels: npt.NDArray[np.int64], w: _Float) -> float:
    k = int(labels.max()) + 1
    onehot = np.eye(k)[labels] * w[:, None]
    s = onehot.sum(0)
    return float(w @ np.diag(G) - ((onehot.T @ G @ onehot).diagonal() / s).sum())


OFFSETS = [0.0, 1e3, 1e6, 1e9]


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("path", ["dense-origin", "dense-default", "from-data"])
def test_far_from_origin_gives_the_unshifted_local_optimum(offset: float, path: str) -> None:
    """Shifting the data changes neither W nor the partition: from the same initial labels
    the result is the unshifted one, and a local optimum of the centred kernel."""
    X, truth = blobs()
    init = np.random.default_rng(1).integers(0, 2, size=len(X))
    Xs = X + offset

    def run(data: _Float) -> Any:
        if path == "dense-origin":
            return kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(data, base="origin"), 2, init)
        if path == "dense-default":
            return kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(data), 2, init)
        return kgroups_rs.kernel_kgroups_from_data(data, 2, init)

    reference, shifted = run(X), run(Xs)
    assert shifted.converged
    assert shifted.n_moves > 0
    np.testing.assert_array_equal(shifted.labels, reference.labels)
    assert kgroups_rs.clustering_accuracy(truth, shifted.labels) == 1.0
    Gc = centred_kernel(X)
    w = np.ones(len(X))
    scale = float(np.mean(np.diag(Gc)))
    assert best_gains(Gc, shifted.labels, w).max() <= 1e-9 * scale
    # W = trace - Q: both carry the rounding of kernel entries as large as the offset.
    rounding = 8 * len(X) * np.finfo(float).eps * offset * np.sqrt(2)
    assert shifted.within == pytest.approx(within(Gc, shifted.labels, w), rel=1e-9, abs=rounding)


def test_widely_spread_weights_far_from_origin_reach_a_local_optimum() -> None:
    """Weights over 1e-4 .. 1e4 at offset 1e3: no improving move is refused, on any scale."""
    X, _ = blobs(2)
    rng = np.random.default_rng(3)
    w = np.exp(rng.uniform(np.log(1e-4), np.log(1e4), size=len(X)))
    init = rng.integers(0, 2, size=len(X))
    G = kgroups_rs.energy_gram(X + 1e3, base="origin")
    result = kgroups_rs.kernel_kgroups(G, 2, init, weights=w)
    reference = kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(X, base="origin"), 2, init, weights=w)
    np.testing.assert_array_equal(result.labels, reference.labels)
    Gc = centred_kernel(X)
    # Each point's gain is judged on its own scale, w_i times the kernel's size.
    scale = float(np.mean(np.diag(Gc)))
    assert np.all(best_gains(Gc, result.labels, w) <= 1e-9 * w * scale)


@pytest.mark.parametrize("factor", [1e150, 1e-150, 3.7e100, 2.0**-400])
@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
def test_weights_of_any_scale_give_the_same_labels(factor: float, algorithm: str) -> None:
    X, _ = blobs(4)
    rng = np.random.default_rng(5)
    w = rng.uniform(0.5, 2.0, size=len(X))
    init = rng.integers(0, 2, size=len(X))
    G = kgroups_rs.energy_gram(X)
    fit = kgroups_rs.kernel_kgroups if algorithm == "hartigan" else kgroups_rs.kernel_kmeans
    unit = fit(G, 2, init, weights=w)
    scaled = fit(G, 2, init, weights=w * factor)
    np.testing.assert_array_equal(scaled.labels, unit.labels)
    assert np.isfinite(scaled.objective) and np.isfinite(scaled.within)
    assert scaled.objective == pytest.approx(unit.objective * factor, rel=1e-12)
    assert scaled.within == pytest.approx(unit.within * factor, rel=1e-9)
    np.testing.assert_allclose(scaled.objective_history, unit.objective_history * factor, rtol=1e-12)
    np.testing.assert_allclose(scaled.cluster_terms, unit.cluster_terms * factor**2, rtol=1e-12)


@pytest.mark.parametrize("factor", [1e200, 1e-200])
def test_weights_whose_cluster_terms_leave_the_range_of_f64_are_refused_clearly(factor: float) -> None:
    """Q_l scales like the weights squared: 1e400 or 1e-400 is no f64, so say so."""
    X, _ = blobs(4)
    G = kgroups_rs.energy_gram(X)
    with pytest.raises(ValueError, match="weights.*beyond the range of f64.*labels do not change"):
        kgroups_rs.kernel_kgroups(G, 2, weights=np.full(len(X), factor))


@pytest.mark.parametrize("factor", [1e200, 1e-200])
def test_the_estimator_clusters_with_weights_of_any_scale(factor: float) -> None:
    pytest.importorskip("sklearn")
    X, _ = blobs(4)
    w = np.random.default_rng(6).uniform(0.5, 2.0, size=len(X))
    unit = kgroups_rs.KernelKGroups(n_clusters=2, random_state=0).fit(X, sample_weight=w)
    scaled = kgroups_rs.KernelKGroups(n_clusters=2, random_state=0).fit(X, sample_weight=w * factor)
    np.testing.assert_array_equal(scaled.labels_, unit.labels_)
    np.testing.assert_array_equal(scaled.predict(X[:20]), unit.predict(X[:20]))


def test_weights_whose_objective_overflows_are_refused_clearly() -> None:
    G = kgroups_rs.energy_gram(blobs()[0])
    w = np.full(300, 1e306)
    with pytest.raises(ValueError, match="weights.*beyond the range of f64"):
        kgroups_rs.kernel_kgroups(G, 2, weights=w)


def test_weights_beyond_the_range_of_f64_relative_to_each_other_are_refused() -> None:
    G = kgroups_rs.energy_gram(blobs()[0])
    w = np.ones(300)
    w[0], w[1] = 1e300, 1e-300
    with pytest.raises(ValueError, match=r"weights\[1\].*too small"):
        kgroups_rs.kernel_kgroups(G, 2, weights=w)


# ----------------------------------------------------------------------------- one symmetry rule
def kernel_verdicts(G: _Float) -> dict[str, bool]:
    """Whether each path that takes a kernel accepts ``G``."""
    labels = np.arange(len(G)) % 2
    calls = {
        "dense C": lambda: kgroups_rs.kernel_kgroups(np.ascontiguousarray(G), 2, labels),
        "dense F": lambda: kgroups_rs.kernel_kgroups(np.asfortranarray(G), 2, labels),
        "csr": lambda: kgroups_rs.kernel_kgroups(scipy.sparse.csr_array(G), 2, labels),
        "statistics": lambda: kgroups_rs.energy_statistics(labels, G=G),
    }
    verdicts = {}
    for name, call in calls.items():
        try:
            call()
            verdicts[name] = True
        except ValueError as exc:
            assert "not symmetric" in str(exc), str(exc)
            verdicts[name] = False
    return verdicts


def spd(n: int = 12, seed: int = 0) -> _Float:
    """A positive definite matrix with unit diagonal and off-diagonal entries of size ~0.3."""
    A = np.random.default_rng(seed).normal(size=(n, n))
    C = A @ A.T + n * np.eye(n)
    d = 1.0 / np.sqrt(np.diag(C))
    return C * d[:, None] * d[None, :]


def test_a_huge_diagonal_entry_does_not_excuse_asymmetry_elsewhere() -> None:
    G = spd()
    G[0, 0] = 1e10
    G[3, 5] += 1.9
    assert kernel_verdicts(G) == dict.fromkeys(["dense C", "dense F", "csr", "statistics"], False)


@pytest.mark.parametrize(("relative", "accepted"), [(1.9e-9, True), (2.1e-9, False)])
def test_every_path_gives_the_same_verdict(relative: float, accepted: bool) -> None:
    G = spd()
    G[2, 7] = G[7, 2] = 0.5
    G[2, 7] *= 1.0 + relative  # the pair's scale is max(0.5, sqrt(1 * 1)) = 1
    verdicts = kernel_verdicts(G)
    assert verdicts == dict.fromkeys(verdicts, accepted)


def test_opposite_huge_entries_are_asymmetric_not_nan() -> None:
    G = np.eye(3)
    G[0, 1], G[1, 0] = 1e308, -1e308
    assert kernel_verdicts(G) == dict.fromkeys(["dense C", "dense F", "csr", "statistics"], False)


# ----------------------------------------------------------------------------- runs that must warn
def test_means_of_an_indefinite_kernel_are_not_taken_as_coincident() -> None:
    # G = [[1, 3], [3, 1]] is not positive semi-definite (eigenvalues 4 and -2): the two
    # singletons' squared distance G_00 + G_11 - 2 G_01 = -4 is far from 0, so their means are
    # distinct (a negative one once counted as coinciding, with a misleading warning).
    G = np.array([[1.0, 3.0], [3.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        result = kgroups_rs.kernel_kgroups(G, 2, init=np.array([0, 1]))
    assert result.n_distinct_clusters == 2


def test_fewer_distinct_points_than_k_warns() -> None:
    G = kgroups_rs.energy_gram(np.ones((100, 2)))
    with pytest.warns(ConvergenceWarning, match="only 1 distinct clusters were found for k = 3"):
        result = kgroups_rs.kernel_kgroups(G, 3, random_state=0)
    assert result.n_distinct_clusters == 1


def test_stopping_at_max_iter_warns() -> None:
    X, _ = blobs()
    init = np.random.default_rng(1).integers(0, 2, size=len(X))
    with pytest.warns(ConvergenceWarning, match="max_iter = 1"):
        result = kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(X), 2, init, max_iter=1)
    assert not result.converged


def random_graph(n: int, p: float, seed: int) -> _Float:
    """The adjacency matrix of an Erdős–Rényi graph: indefinite, so Lloyd's method may cycle."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)) < p, 1)
    return (upper | upper.T).astype(np.float64)


@pytest.mark.parametrize("algorithm", ["lloyd", "lloyd-online"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_a_cycling_lloyd_run_stops_and_says_why(algorithm: str, sparse: bool) -> None:
    """Lloyd's method on a graph's adjacency matrix goes round a cycle of partitions: with an
    unbounded max_iter the run stops once a partition recurs (it used to run until max_iter),
    reports the cycle's length, and warns that more sweeps would not help; the labels are
    those of the run stopped one cycle earlier. Hartigan's method converges on the same
    graphs."""
    cycled = 0
    for seed in range(12):
        A = random_graph(60, 0.1, seed)
        graph = scipy.sparse.csr_array(A) if sparse else A
        hartigan = kgroups_rs.graph_partition(graph, 4, random_state=seed)
        assert hartigan.converged and hartigan.cycle_length is None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = kgroups_rs.graph_partition(
                graph, 4, algorithm=algorithm, random_state=seed, max_iter=2**62
            )
        cycle_warnings = [str(w.message) for w in caught if "cycles" in str(w.message)]
        if result.cycle_length is None:
            assert result.converged and not cycle_warnings
            continue
        cycled += 1
        assert not result.converged
        assert len(cycle_warnings) == 1
        assert f"after sweep {result.n_iter} repeats the one {result.cycle_length} sweep" in (
            cycle_warnings[0]
        )
        assert "algorithm='hartigan'" in cycle_warnings[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            earlier = kgroups_rs.graph_partition(
                graph,
                4,
                algorithm=algorithm,
                random_state=seed,
                max_iter=result.n_iter - result.cycle_length,
            )
        np.testing.assert_array_equal(earlier.labels, result.labels)
    assert cycled >= 3, cycled


def test_the_estimators_say_a_lloyd_run_cycles() -> None:
    pytest.importorskip("sklearn")
    from kgroups_rs import KernelKMeans
    from kgroups_rs.estimator import EstimatorConvergenceWarning

    A = random_graph(60, 0.1, 0)
    estimator = KernelKMeans(4, kernel="precomputed", max_iter=10**6, random_state=0)
    with pytest.warns(EstimatorConvergenceWarning, match="the local search cycles"):
        estimator.fit(A)
    assert not estimator.converged_


def test_a_clean_run_does_not_warn() -> None:
    X, _ = blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = kgroups_rs.kernel_kgroups(kgroups_rs.energy_gram(X), 2, random_state=0)
    assert result.n_distinct_clusters == 2


# ----------------------------------------------------------------------------- allocations
def test_sparse_kernel_with_huge_n_times_k_raises_memory_error() -> None:
    n = 100_000
    G = scipy.sparse.identity(n, format="csr")
    with pytest.raises(MemoryError, match=r"out of memory for `k`.*cluster sums"):
        kgroups_rs.kernel_kgroups(G, n, "random")


# ----------------------------------------------------------------------------- graphs at any scale
def planted_graph(seed: int = 0) -> tuple[_Float, npt.NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    z = np.repeat([0, 1], 20)
    P = np.where(z[:, None] == z[None, :], 0.8, 0.1)
    A = np.triu((rng.random((40, 40)) < P).astype(float), 1)
    return A + A.T, z


@pytest.mark.parametrize("objective", ["ratio_association", "normalized_cut"])
@pytest.mark.parametrize("shift", [1e10, 1e300])
def test_a_huge_diagonal_shift_changes_only_the_objective(objective: str, shift: float) -> None:
    A, z = planted_graph()
    plain = kgroups_rs.graph_partition(A, 2, objective=objective, random_state=0)
    shifted = kgroups_rs.graph_partition(A, 2, objective=objective, shift=shift, random_state=0)
    np.testing.assert_array_equal(shifted.labels, plain.labels)
    assert kgroups_rs.clustering_accuracy(z, shifted.labels) == 1.0
    assert shifted.objective == pytest.approx(plain.objective + 2 * shift, rel=1e-15)
    assert shifted.within == pytest.approx(plain.within + 38 * shift, rel=1e-15)
    assert np.isfinite(shifted.within)


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd", "lloyd-online"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_a_small_shift_beside_huge_weights_is_not_lost(algorithm: str, sparse: bool) -> None:
    """Edge weights 1e200 and shift 1: had the shift been added to the diagonal, a point's
    sums would hold 1 + 1e200 - 1e200 = 0 once a neighbour came and went, and the reported
    objective would miss 1 for such a cluster (10.0 or 9.5 instead of 11.0 here)."""
    rng = np.random.default_rng(7)
    n = 12
    upper = np.triu(rng.random((n, n)) < 0.45, 1)
    A = np.where(upper | upper.T, 1e200, 0.0)
    graph = scipy.sparse.csr_array(A) if sparse else A
    for seed in range(25):
        result = kgroups_rs.graph_partition(
            graph, n - 1, algorithm=algorithm, init="k-means++", shift=1.0, random_state=seed
        )
        labels = result.labels
        want = sum(
            (A[np.ix_(labels == j, labels == j)].sum() + np.sum(labels == j)) / np.sum(labels == j)
            for j in range(n - 1)
        )
        assert result.objective == pytest.approx(want, rel=1e-12), seed


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_a_normalized_cut_shift_beyond_the_float_range_is_refused_or_applied_exactly(sparse: bool) -> None:
    """shift / d_i overflows for a degree of 3e-9: graph_kernel, which writes the shifted
    kernel out, refuses it; graph_partition applies the shift in the formulas and reports
    the finite figures of the shifted kernel (k * shift more than the unshifted Q)."""
    A = np.array([[0.0, 8e-7, 3e-9], [8e-7, 0.0, 0.0], [3e-9, 0.0, 0.0]])
    graph = scipy.sparse.csr_array(A) if sparse else A
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match=r"shift = 1e\+300 makes the diagonal shift \* D\^-1 overflow"):
            kgroups_rs.graph_kernel(graph, "normalized_cut", shift=1e300)
    init = np.array([0, 1, 0])
    for algorithm in ["hartigan", "lloyd", "lloyd-online"]:
        plain = kgroups_rs.graph_partition(
            graph, 2, init, objective="normalized_cut", algorithm=algorithm
        )
        shifted = kgroups_rs.graph_partition(
            graph, 2, objective="normalized_cut", algorithm=algorithm, init=init, shift=1e300
        )
        assert shifted.objective == plain.objective + 2e300
        if algorithm == "hartigan":
            np.testing.assert_array_equal(shifted.labels, plain.labels)
        else:  # the shift outweighs every distance: no point leaves its cluster
            np.testing.assert_array_equal(shifted.labels, init)


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd", "lloyd-online"])
def test_a_shift_whose_objective_overflows_is_refused(algorithm: str) -> None:
    A, _ = planted_graph()
    with pytest.raises(ValueError, match="shift = 1e.?307 makes the objective overflow"):
        kgroups_rs.graph_partition(A, 2, algorithm=algorithm, shift=1e307, random_state=0)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
@pytest.mark.parametrize("sparse", [False, True])
def test_normalized_cut_does_not_depend_on_the_scale_of_the_adjacency(scale: float, sparse: bool) -> None:
    A, z = planted_graph()
    reference = kgroups_rs.graph_partition(A, 2, objective="normalized_cut", random_state=0)
    scaled = A * scale
    result = kgroups_rs.graph_partition(
        scipy.sparse.csr_array(scaled) if sparse else scaled, 2, objective="normalized_cut", random_state=0
    )
    np.testing.assert_array_equal(result.labels, reference.labels)
    assert result.objective == pytest.approx(reference.objective, rel=1e-12)
    assert kgroups_rs.clustering_accuracy(z, result.labels) == 1.0


def test_a_kernel_whose_sums_overflow_is_refused() -> None:
    G = np.full((30, 30), 1e307) + np.eye(30)
    with pytest.raises(ValueError, match="overflow"):
        kgroups_rs.kernel_kgroups(G, 2, random_state=0)


def test_estimator_predict_refuses_a_tampered_sparse_kernel() -> None:
    pytest.importorskip("sklearn")
    X, _ = blobs()
    G = kgroups_rs.energy_gram(X)
    est = kgroups_rs.KernelKGroups(n_clusters=2, kernel="precomputed", random_state=0)
    est.fit(scipy.sparse.csr_array(G))
    K = scipy.sparse.csr_array(G[:5])
    K.indices[3] = 10**9
    with pytest.raises(ValueError, match=r"X: column index 1000000000 at position 3"):
        est.predict(K)


# ----------------------------------------------------------------------------- statistics at any magnitude
@pytest.mark.parametrize("scale", [1e-301, 1e-170, 1e200, 1e300])
@pytest.mark.parametrize(("semimetric", "alpha"), [("power", 0.5), ("power", 1.0), ("gaussian", None)])
def test_statistics_of_tiny_or_huge_data_are_exact(scale: float, semimetric: str, alpha: Any) -> None:
    """rho(sx, sy) = s^alpha rho(x, y) (power), and the gaussian semimetric depends on d/sigma only:
    every statistic of scaled data is the unscaled one times that factor, not 0, inf or NaN."""
    X = np.random.default_rng(7).normal(size=(40, 3))
    labels = np.arange(40) % 3
    kw: dict[str, Any] = {"alpha": alpha} if semimetric == "power" else {}
    factor = scale**alpha if semimetric == "power" else 1.0

    def sigma(s: float) -> dict[str, Any]:
        return {} if semimetric == "power" else {"sigma": 2.0 * s}

    unit = kgroups_rs.energy_statistics(labels, X=X, semimetric=semimetric, **kw, **sigma(1.0))
    scaled = kgroups_rs.energy_statistics(labels, X=X * scale, semimetric=semimetric, **kw, **sigma(scale))
    for name in ("within", "between", "total"):
        assert getattr(scaled, name) == pytest.approx(getattr(unit, name) * factor, rel=1e-12), name
    np.testing.assert_allclose(scaled.g, unit.g * factor, rtol=1e-12)
    e_unit = kgroups_rs.energy_distance(X[:20], X[20:], semimetric=semimetric, **kw, **sigma(1.0))
    e_scaled = kgroups_rs.energy_distance(
        X[:20] * scale, X[20:] * scale, semimetric=semimetric, **kw, **sigma(scale)
    )
    assert e_scaled == pytest.approx(e_unit * factor, rel=1e-12)


@pytest.mark.parametrize("scale", [1e-170, 1e200])
def test_statistics_beyond_the_range_of_f64_are_refused_clearly(scale: float) -> None:
    X = np.random.default_rng(7).normal(size=(40, 3)) * scale  # alpha = 2: W ~ scale^2
    with pytest.raises(ValueError, match=r"beyond the range of f64 \(it would overflow.*\); rescale X"):
        kgroups_rs.energy_statistics(np.arange(40) % 3, X=X, alpha=2.0)


def test_estimator_checks_the_whole_precomputed_kernel_with_zero_weights() -> None:
    """Only the positive-weight block is clustered, but the kernel must be symmetric as a whole."""
    pytest.importorskip("sklearn")
    G = np.array([[0.5, 1e200], [-1e200, 0.25]])
    est = kgroups_rs.KernelKGroups(n_clusters=1, kernel="precomputed")
    with pytest.raises(ValueError, match="not symmetric"):
        est.fit(G, sample_weight=np.array([0.0, 1.0]))


def test_nystrom_kmeans_plus_plus_fills_every_cluster() -> None:
    """Nyström features sum a point's norm apart from its row, so k-means++ could read a
    centre's distance to itself as nonzero, draw it twice and leave a cluster empty (an
    internal error for random_state=1 here)."""
    X = np.array([[-2147483648], [999], [1000], [1000], [999], [1000], [1001]], dtype=np.int32)
    for seed in range(20):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = kgroups_rs.kernel_kgroups_nystrom(X, 6, n_components=7, random_state=seed)
        assert np.bincount(result.labels, minlength=6).min() >= 1


_COUNT_CALLS = {
    "n_refs=10**9": ("n_refs", "kgroups_rs.select_k(X, range(1, 4), n_refs=10**9)"),
    "n_refs=2**62": ("n_refs", "kgroups_rs.select_k(X, range(1, 4), n_refs=2**62)"),
    "n_pairs=10**10": ("n_pairs", "kgroups_rs.select_k(X, range(1, 4), n_refs=2, n_pairs=10**10)"),
    "n_pairs=2**63": ("n_pairs", "kgroups_rs.select_k(X, range(1, 4), n_refs=2, n_pairs=2**63)"),
    "precomputed n_pairs=2**63": (
        "n_pairs",
        "kgroups_rs.select_k(np.eye(20), range(1, 4), kernel='precomputed', n_pairs=2**63)",
    ),
    "n_null=10**10": ("n_null", "kgroups_rs.cluster_significance(X, 2, n_null=10**10)"),
    "n_null=2**64-1": ("n_null", "kgroups_rs.cluster_significance(X, 2, n_null=2**64 - 1)"),
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS bounds the child only on Linux")
@pytest.mark.parametrize("case", list(_COUNT_CALLS))
def test_counts_beyond_memory_raise_naming_the_count(case: str, tmp_path: Any) -> None:
    """A count that sizes buffers (references, subsample pairs, null data sets) beyond memory
    or beyond 64 bits raises MemoryError or ValueError naming it: never an abort of the
    interpreter or a panic. In a child with an 8 GiB address-space limit, so that a failure
    cannot take the test run down."""
    name, call = _COUNT_CALLS[case]
    code = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
        import numpy as np, kgroups_rs
        X = np.random.default_rng(0).normal(size=(20, 2))
        try:
            {call}
        except (ValueError, MemoryError) as e:
            print("raised", type(e).__name__, e)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.returncode == 0, f"the interpreter died (rc {proc.returncode}): {proc.stderr[-500:]}"
    assert proc.stdout.startswith("raised"), proc.stdout + proc.stderr[-500:]
    assert name in proc.stdout, proc.stdout
