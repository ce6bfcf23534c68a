"""Tests of the clustering core through the public Python API.

``kgroups_rs.kernel_kgroups`` (Hartigan) and ``kgroups_rs.kernel_kmeans`` (batch and online
Lloyd) are checked against the slow, independent formulas of ``reference.py`` (SPEC.md):
global optimality by brute force on tiny problems, local optimality of Hartigan's result,
monotone objective histories, reported objective/within against direct evaluation,
reproducibility across thread counts, input layouts, the progress callback, and a few
exact special cases (k = 1, k = n, separated blobs).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kgroups_rs import ClusteringResult
from reference import (
    best_single_move_gain,
    brute_force_optimum,
    gram_origin,
    objective,
    random_psd,
    within,
)

Float = npt.NDArray[np.float64]

ALGORITHMS: dict[str, Callable[..., ClusteringResult]] = {
    "hartigan": lambda G, k, init="k-means++", **kw: kgroups_rs.kernel_kgroups(G, k, init, **kw),
    "lloyd": lambda G, k, init="k-means++", **kw: kgroups_rs.kernel_kmeans(
        G, k, init, algorithm="lloyd", **kw
    ),
    "lloyd-online": lambda G, k, init="k-means++", **kw: kgroups_rs.kernel_kmeans(
        G, k, init, algorithm="lloyd-online", **kw
    ),
}
ALGORITHM_NAMES = list(ALGORITHMS)


def fit(algorithm: str, G: Any, k: int, init: Any = "k-means++", **kwargs: Any) -> ClusteringResult:
    return ALGORITHMS[algorithm](G, k, init, **kwargs)


def random_weights(n: int, rng: np.random.Generator) -> Float:
    return rng.uniform(0.2, 3.0, size=n)


def random_init(n: int, k: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Uniform labels with every cluster non-empty."""
    labels = rng.integers(0, k, size=n)
    labels[rng.permutation(n)[:k]] = np.arange(k)
    return labels.astype(np.int64)


def assert_valid_labels(labels: Any, n: int, k: int) -> None:
    assert isinstance(labels, np.ndarray)
    assert labels.dtype == np.int64
    assert labels.shape == (n,)
    assert labels.min() >= 0 and labels.max() < k
    assert np.all(np.bincount(labels, minlength=k) > 0), "a cluster is empty"


def assert_monotone(history: Any, rel: float = 1e-12) -> None:
    """Q never decreases along ``history`` (up to ``rel`` of its magnitude)."""
    history = np.asarray(history, dtype=float)
    scale = max(1.0, float(np.max(np.abs(history))))
    steps = np.diff(history)
    assert np.all(steps >= -rel * scale), f"Q decreased: {history.tolist()}"


def problem(n: int, seed: int, weighted: bool, rank: Optional[int] = None) -> tuple[Float, Optional[Float]]:
    rng = np.random.default_rng(seed)
    G = random_psd(n, rng, rank=rank)
    w = random_weights(n, rng) if weighted else None
    return G, w


# ----------------------------------------------------------------- optimality on tiny problems

BRUTE_CASES = [
    (n, k, weighted, seed)
    for n in (4, 6, 8, 9)
    for k in (2, 3)
    for weighted in (False, True)
    for seed in (0, 1, 2)
]


@pytest.mark.parametrize(("n", "k", "weighted", "seed"), BRUTE_CASES)
def test_best_of_20_starts_reaches_brute_force_optimum(n: int, k: int, weighted: bool, seed: int) -> None:
    G, w = problem(n, 1000 * n + 10 * k + seed, weighted)
    best = brute_force_optimum(G, k, w)
    result = kgroups_rs.kernel_kgroups(G, k, weights=w, n_init=20, random_state=seed)
    assert_valid_labels(result.labels, n, k)
    assert result.objective == pytest.approx(best, rel=1e-9)
    assert objective(G, result.labels, w) == pytest.approx(best, rel=1e-9)


@pytest.mark.parametrize(("n", "k", "weighted", "seed"), BRUTE_CASES)
def test_every_hartigan_start_is_a_local_optimum(n: int, k: int, weighted: bool, seed: int) -> None:
    G, w = problem(n, 1000 * n + 10 * k + seed, weighted)
    rng = np.random.default_rng(seed)
    inits: list[Any] = ["k-means++", "random", random_init(n, k, rng)]
    for init in inits:
        for random_state in range(6 if isinstance(init, str) else 1):
            result = kgroups_rs.kernel_kgroups(G, k, init, weights=w, random_state=random_state)
            assert result.converged
            Q = objective(G, result.labels, w)
            gain = best_single_move_gain(G, result.labels, w)
            assert gain <= 1e-9 * abs(Q), (init, random_state, gain, result.labels)


def test_hartigan_from_a_lloyd_result_is_never_worse() -> None:
    """Hartigan's result is never worse than the Lloyd result it starts from."""
    G, w = problem(40, 7, weighted=True)
    for seed in range(5):
        lloyd = kgroups_rs.kernel_kmeans(G, 4, weights=w, random_state=seed)
        hartigan = kgroups_rs.kernel_kgroups(G, 4, lloyd.labels, weights=w)
        assert hartigan.objective >= lloyd.objective - 1e-12 * abs(lloyd.objective)
        assert best_single_move_gain(G, hartigan.labels, w) <= 1e-9 * abs(hartigan.objective)


# ----------------------------------------------------------------------------- monotonicity


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("weighted", [False, True])
def test_objective_history_is_non_decreasing(algorithm: str, weighted: bool) -> None:
    for seed in range(4):
        G, w = problem(80, seed, weighted, rank=6)
        result = fit(algorithm, G, 5, "random", weights=w, random_state=seed)
        history = result.objective_history
        assert history.dtype == np.float64
        assert len(history) == result.n_iter + 1
        assert_monotone(history)
        assert history[-1] == result.objective
        # Q non-decreasing <=> W non-increasing (W = trace - Q).
        trace = float((np.ones(80) if w is None else w) @ np.diag(G))
        W = trace - history
        assert np.all(np.diff(W) <= 1e-12 * max(1.0, abs(trace)))
        assert result.within == pytest.approx(W[-1], rel=1e-9, abs=1e-9 * abs(trace))


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("weighted", [False, True])
def test_objective_after_m_sweeps_is_monotone_in_m(algorithm: str, weighted: bool) -> None:
    """Stopping after 1, 2, 3, ... sweeps from the same labels gives a monotone sequence of
    objectives, equal to the prefix of the full run's history."""
    n, k = 120, 6
    G, w = problem(n, 31 + weighted, weighted, rank=5)
    init = random_init(n, k, np.random.default_rng(3))
    full = fit(algorithm, G, k, init, weights=w, max_iter=300)
    assert full.converged
    assert full.n_iter >= 3, "the problem is too easy to test truncation"
    assert full.objective_history[0] == pytest.approx(objective(G, init, w), rel=1e-10)
    objectives = []
    for m in range(1, full.n_iter + 2):
        partial = fit(algorithm, G, k, init, weights=w, max_iter=m)
        assert partial.n_iter == min(m, full.n_iter)
        assert partial.converged == (m >= full.n_iter)
        np.testing.assert_allclose(
            partial.objective_history, full.objective_history[: partial.n_iter + 1], rtol=1e-12
        )
        assert partial.objective == pytest.approx(objective(G, partial.labels, w), rel=1e-10)
        objectives.append(partial.objective)
    assert_monotone([full.objective_history[0], *objectives])
    np.testing.assert_array_equal(partial.labels, full.labels)


# ---------------------------------------------------------------- reported numbers are right


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [4, 20])  # 20 > 16 takes the gather path of the cluster sums
def test_objective_and_within_match_direct_evaluation(
    algorithm: str, weighted: bool, dtype: Any, k: int
) -> None:
    tol = 1e-10 if dtype == np.float64 else 1e-5
    for seed in range(3):
        G64, w = problem(50, 100 + seed, weighted, rank=8)
        G = G64.astype(dtype)
        exact = G.astype(np.float64)  # the matrix the core actually sees
        result = fit(algorithm, G, k, weights=w, n_init=3, random_state=seed)
        assert_valid_labels(result.labels, 50, k)
        trace = float((np.ones(50) if w is None else w) @ np.abs(np.diag(exact)))
        assert result.objective == pytest.approx(objective(exact, result.labels, w), rel=tol)
        assert result.within == pytest.approx(within(exact, result.labels, w), rel=tol, abs=tol * trace)
        assert result.objective == pytest.approx(objective(G64, result.labels, w), rel=tol)
        assert isinstance(result.objective, float) and isinstance(result.within, float)
        assert isinstance(result.n_iter, int) and isinstance(result.n_moves, int)
        assert isinstance(result.converged, bool)


def direct_cluster_terms(G: Float, labels: npt.ArrayLike, k: int, weights: Optional[Float]) -> Float:
    """Q_l = sum_{a,b in C_l} w_a w_b G_ab, straight from the definition."""
    labels = np.asarray(labels)
    w = np.ones(labels.size) if weights is None else weights
    members = [labels == cluster for cluster in range(k)]
    return np.array([w[m] @ G[np.ix_(m, m)] @ w[m] for m in members])


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("weighted", [False, True])
def test_cluster_terms_match_direct_evaluation(algorithm: str, weighted: bool) -> None:
    import scipy.sparse

    G, w = problem(60, 7, weighted, rank=6)
    for kernel in (G, scipy.sparse.csr_matrix(G)):
        result = fit(algorithm, kernel, 5, weights=w, n_init=2, random_state=3)
        terms = direct_cluster_terms(G, result.labels, 5, w)
        np.testing.assert_allclose(result.cluster_terms, terms, rtol=1e-10, atol=1e-10 * np.abs(G).sum())
        sizes = np.bincount(result.labels, weights=w, minlength=5)
        assert float(np.sum(result.cluster_terms / sizes)) == pytest.approx(result.objective, rel=1e-12)
    # From data (matrix-free) and in one dimension (the exact solver).
    X = np.random.default_rng(8).normal(size=(60, 2))
    data_result = kgroups_rs.kernel_kgroups_from_data(X, 3, weights=w, random_state=1)
    np.testing.assert_allclose(
        data_result.cluster_terms,
        direct_cluster_terms(kgroups_rs.energy_gram(X), data_result.labels, 3, w),
        rtol=1e-10,
    )
    x = np.random.default_rng(9).lognormal(size=50)
    w1 = np.random.default_rng(10).uniform(0.5, 2.0, size=50)
    exact = kgroups_rs.kgroups_1d(x, 3, weights=w1)
    np.testing.assert_allclose(
        exact.cluster_terms,
        # kgroups_1d reports Q for base point 0
        direct_cluster_terms(kgroups_rs.energy_gram(x, base="origin"), exact.labels, 3, w1),
        rtol=1e-10,
    )


# ---------------------------------------------------------------------------- reproducibility


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("n_init", [1, 4])
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_same_seed_same_result_for_any_thread_count(algorithm: str, n_init: int, init: str) -> None:
    G, w = problem(300, 5, weighted=True, rank=10)
    results = [
        fit(algorithm, G, 7, init, weights=w, n_init=n_init, random_state=1234, n_threads=t)
        for t in (1, 2, 1, 5, None)
    ]
    for other in results[1:]:
        np.testing.assert_array_equal(other.labels, results[0].labels)
        assert other.objective == results[0].objective
        assert other.within == results[0].within
        assert other.n_iter == results[0].n_iter
        assert other.n_moves == results[0].n_moves
        np.testing.assert_array_equal(other.objective_history, results[0].objective_history)


def test_random_state_types() -> None:
    G, _ = problem(60, 8, weighted=False, rank=6)
    # A numpy Generator: the same state gives the same result.
    a = kgroups_rs.kernel_kgroups(G, 5, "random", random_state=np.random.default_rng(42))
    b = kgroups_rs.kernel_kgroups(G, 5, "random", random_state=np.random.default_rng(42))
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.objective == b.objective
    # A legacy RandomState too.
    c = kgroups_rs.kernel_kgroups(G, 5, "random", random_state=np.random.RandomState(7))
    d = kgroups_rs.kernel_kgroups(G, 5, "random", random_state=np.random.RandomState(7))
    np.testing.assert_array_equal(c.labels, d.labels)
    # A numpy integer is an int.
    e = kgroups_rs.kernel_kgroups(G, 5, "random", random_state=np.int64(3))
    f = kgroups_rs.kernel_kgroups(G, 5, "random", random_state=3)
    np.testing.assert_array_equal(e.labels, f.labels)
    # Huge ints are accepted (reduced modulo 2**64).
    kgroups_rs.kernel_kgroups(G, 5, random_state=2**70 + 3)
    # None runs (fresh entropy) and gives a valid result.
    g = kgroups_rs.kernel_kgroups(G, 5, "random", random_state=None)
    assert_valid_labels(g.labels, 60, 5)
    assert g.objective == pytest.approx(objective(G, g.labels), rel=1e-10)


def test_different_seeds_explore_different_starts() -> None:
    """Random starts really depend on the seed (otherwise n_init would be useless)."""
    G, _ = problem(60, 9, weighted=False, rank=6)
    histories = {
        kgroups_rs.kernel_kgroups(G, 5, "random", random_state=s).objective_history[0] for s in range(8)
    }
    assert len(histories) > 1


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_best_start_wins(algorithm: str) -> None:
    """With n_init > 1 the result is the start with the largest final objective."""
    G, w = problem(150, 10, weighted=True, rank=8)
    events: list[tuple[int, int, int, float]] = []
    result = fit(
        algorithm,
        G,
        6,
        "random",
        weights=w,
        n_init=6,
        random_state=0,
        progress=lambda *e: events.append(e),
    )
    finals: dict[int, float] = {}
    for start, _sweep, _moves, q in events:
        finals[start] = q  # events of one start arrive in sweep order
    assert sorted(finals) == list(range(6))
    assert result.objective == max(finals.values())
    # best_start names the winner: the first start with the largest final objective.
    assert result.best_start == min(s for s, q in finals.items() if q == result.objective)


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_float32_is_widened_exactly(algorithm: str) -> None:
    """All arithmetic is float64: a float32 G and its exact float64 copy give identical runs."""
    G64, w = problem(60, 27, weighted=True, rank=6)
    G32 = G64.astype(np.float32)
    a = fit(algorithm, G32, 5, weights=w, n_init=3, random_state=2)
    b = fit(algorithm, G32.astype(np.float64), 5, weights=w, n_init=3, random_state=2)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.objective == b.objective
    np.testing.assert_array_equal(a.objective_history, b.objective_history)


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_scaling_by_a_power_of_two_is_exact(algorithm: str, init: str) -> None:
    """Scaling G or w by 2**m scales every intermediate exactly (barring over/underflow), so
    the labels are identical and Q scales by 2**m (Q_j/s_j is homogeneous of degree 1 in G
    and in w)."""
    G, w = problem(70, 28, weighted=True, rank=6)
    base = fit(algorithm, G, 4, init, weights=w, n_init=2, random_state=6)
    for m in (-40, -3, 5, 60):
        c = 2.0**m
        scaled_G = fit(algorithm, c * G, 4, init, weights=w, n_init=2, random_state=6)
        np.testing.assert_array_equal(scaled_G.labels, base.labels)
        assert scaled_G.objective == c * base.objective
    for m in (-40, -3, 5, 20):
        c = 2.0**m
        scaled_w = fit(algorithm, G, 4, init, weights=c * w, n_init=2, random_state=6)
        np.testing.assert_array_equal(scaled_w.labels, base.labels)
        assert scaled_w.objective == c * base.objective


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("m", [34, 40, 60])
def test_large_weights_give_the_same_clustering(algorithm: str, m: int) -> None:
    """Only the ratios of the weights matter: w and 2**m * w must give the same run, and
    Hartigan's result must stay a local optimum. (Weights like 1e10..1e18 arise as counts or
    population totals.) Hartigan's move tolerance must therefore be homogeneous of degree 1
    in w, like the gain dQ it is compared with."""
    G, w = problem(70, 28, weighted=True, rank=6)
    c = 2.0**m
    base = fit(algorithm, G, 4, "random", weights=w, random_state=6)
    scaled = fit(algorithm, G, 4, "random", weights=c * w, random_state=6)
    assert scaled.n_moves == base.n_moves
    np.testing.assert_array_equal(scaled.labels, base.labels)
    assert scaled.objective == c * base.objective
    if algorithm == "hartigan":
        gain = best_single_move_gain(G, scaled.labels, c * w)
        assert gain <= 1e-9 * abs(scaled.objective), (
            f"not a local optimum: a move gains {gain / c:.3g} (x 2**{m})"
        )


@pytest.mark.parametrize("seed", range(4))
def test_hartigan_needs_no_psd_kernel(seed: int) -> None:
    """Every Hartigan move strictly increases Q whatever the kernel: on a symmetric indefinite
    matrix (here a graph adjacency matrix with zero diagonal, and a random symmetric one) the
    history is still monotone and the result a local optimum."""
    rng = np.random.default_rng(seed)
    n = 14
    A = np.triu((rng.random((n, n)) < 0.3).astype(float), 1)
    S = rng.normal(size=(n, n))
    for G in (A + A.T, (S + S.T) / 2):
        for init in ("random", "k-means++"):
            r = kgroups_rs.kernel_kgroups(G, 3, init, random_state=seed)
            assert_valid_labels(r.labels, n, 3)
            assert_monotone(r.objective_history)
            assert r.objective == pytest.approx(objective(G, r.labels), rel=1e-10, abs=1e-12)
            assert best_single_move_gain(G, r.labels) <= 1e-9 * max(1.0, abs(r.objective))


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_inputs_are_not_modified(algorithm: str) -> None:
    G, w = problem(40, 29, weighted=True, rank=5)
    init = random_init(40, 3, np.random.default_rng(0))
    copies = (G.copy(), w.copy(), init.copy())
    fit(algorithm, G, 3, init, weights=w)
    fit(algorithm, G, 3, weights=w, n_init=3, random_state=0)
    for before, after in zip(copies, (G, w, init)):
        np.testing.assert_array_equal(before, after)


def test_read_only_inputs_are_accepted() -> None:
    G, w = problem(30, 30, weighted=True, rank=5)
    G.setflags(write=False)
    w.setflags(write=False)
    r = kgroups_rs.kernel_kgroups(G, 3, weights=w, random_state=0)
    assert r.objective == pytest.approx(objective(G, r.labels, w), rel=1e-10)


# ------------------------------------------------------------------------- input conversions


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_fortran_order_gives_the_same_result(algorithm: str) -> None:
    G, w = problem(70, 11, weighted=True, rank=7)
    c_result = fit(algorithm, np.ascontiguousarray(G), 4, weights=w, n_init=2, random_state=5)
    f_result = fit(algorithm, np.asfortranarray(G), 4, weights=w, n_init=2, random_state=5)
    np.testing.assert_array_equal(c_result.labels, f_result.labels)
    assert c_result.objective == f_result.objective
    f32 = np.asfortranarray(G.astype(np.float32))
    r32 = fit(algorithm, f32, 4, weights=w, n_init=2, random_state=5)
    assert r32.objective == pytest.approx(objective(f32.astype(np.float64), r32.labels, w), rel=1e-6)


def test_strided_view_is_copied_and_works() -> None:
    rng = np.random.default_rng(12)
    big = random_psd(80, rng, rank=9)
    view = big[::2, ::2]  # a PSD principal submatrix, neither C- nor F-contiguous
    assert not view.flags.c_contiguous and not view.flags.f_contiguous
    before = big.copy()
    result = kgroups_rs.kernel_kgroups(view, 3, random_state=1)
    expected = kgroups_rs.kernel_kgroups(np.ascontiguousarray(view), 3, random_state=1)
    np.testing.assert_array_equal(result.labels, expected.labels)
    assert result.objective == expected.objective
    assert result.objective == pytest.approx(objective(np.array(view), result.labels), rel=1e-10)
    np.testing.assert_array_equal(big, before)  # input untouched
    # A reversed view (negative strides) too.
    rev = big[::-1, ::-1]
    r = kgroups_rs.kernel_kgroups(rev, 3, random_state=1)
    assert r.objective == pytest.approx(objective(np.array(rev), r.labels), rel=1e-10)


def test_integer_and_other_real_dtypes_are_converted() -> None:
    rng = np.random.default_rng(13)
    A = rng.integers(-3, 4, size=(30, 4))
    G_int = A @ A.T  # exactly symmetric PSD integer matrix
    assert G_int.dtype.kind == "i"
    r_int = kgroups_rs.kernel_kgroups(G_int, 3, random_state=2)
    r_float = kgroups_rs.kernel_kgroups(G_int.astype(np.float64), 3, random_state=2)
    np.testing.assert_array_equal(r_int.labels, r_float.labels)
    assert r_int.objective == r_float.objective
    # Other widths and byte orders are converted as well.
    for dtype in (np.int32, np.uint8 if G_int.min() >= 0 else np.int16, np.float16, ">f8"):
        r = kgroups_rs.kernel_kgroups(G_int.astype(dtype), 3, random_state=2)
        assert r.objective == pytest.approx(objective(G_int.astype(np.float64), r.labels), rel=1e-10)
    # Nested lists work.
    r_list = kgroups_rs.kernel_kgroups(G_int.tolist(), 3, random_state=2)
    np.testing.assert_array_equal(r_list.labels, r_int.labels)


def test_init_labels_as_list_and_other_int_dtypes() -> None:
    G, _ = problem(20, 14, weighted=False)
    init = random_init(20, 3, np.random.default_rng(0))
    ref_result = kgroups_rs.kernel_kgroups(G, 3, init)
    for labels in (init.tolist(), init.astype(np.int32), init.astype(np.uint16), init[::-1][::-1]):
        r = kgroups_rs.kernel_kgroups(G, 3, labels)
        np.testing.assert_array_equal(r.labels, ref_result.labels)
    # The initial objective is the one of the given labels.
    assert ref_result.objective_history[0] == pytest.approx(objective(G, init), rel=1e-12)


def test_weights_as_list_and_ints() -> None:
    G, _ = problem(25, 15, weighted=False, rank=5)
    w = np.arange(1, 26)
    a = kgroups_rs.kernel_kgroups(G, 3, weights=w.tolist(), random_state=0)
    b = kgroups_rs.kernel_kgroups(G, 3, weights=w.astype(np.float64), random_state=0)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.objective == pytest.approx(objective(G, a.labels, w.astype(float)), rel=1e-10)


def test_unit_weights_equal_no_weights() -> None:
    G, _ = problem(40, 16, weighted=False, rank=5)
    for algorithm in ALGORITHM_NAMES:
        a = fit(algorithm, G, 4, n_init=3, random_state=9)
        b = fit(algorithm, G, 4, n_init=3, random_state=9, weights=np.ones(40))
        np.testing.assert_array_equal(a.labels, b.labels)
        assert a.objective == b.objective


def test_integer_weights_equal_duplicated_points() -> None:
    """A weight of 2 is the same as the point appearing twice (SPEC: weighted sums)."""
    rng = np.random.default_rng(17)
    n = 10
    X = rng.normal(size=(n, 2))
    w = rng.integers(1, 4, size=n).astype(float)
    G = gram_origin(X, "rho_1")
    labels = random_init(n, 3, rng)
    idx = np.repeat(np.arange(n), w.astype(int))
    G_dup = G[np.ix_(idx, idx)]
    weighted = kgroups_rs.kernel_kgroups(G, 3, labels, weights=w, max_iter=1)
    assert weighted.objective_history[0] == pytest.approx(objective(G_dup, labels[idx]), rel=1e-10)
    # Q is also the direct weighted evaluation.
    assert weighted.objective_history[0] == pytest.approx(objective(G, labels, w), rel=1e-12)


# --------------------------------------------------------------------------------- progress


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_progress_reports_every_sweep(algorithm: str) -> None:
    G, w = problem(90, 18, weighted=True, rank=6)
    events: list[tuple[Any, ...]] = []
    result = fit(algorithm, G, 4, "random", weights=w, random_state=3, progress=lambda *e: events.append(e))
    assert len(events) == result.n_iter
    assert [e[0] for e in events] == [0] * result.n_iter
    assert [e[1] for e in events] == list(range(1, result.n_iter + 1))
    assert sum(e[2] for e in events) == result.n_moves
    assert result.converged and events[-1][2] == 0
    assert all(isinstance(e[0], int) and isinstance(e[1], int) and isinstance(e[2], int) for e in events)
    assert all(isinstance(e[3], float) for e in events)
    assert events[-1][3] == result.objective
    np.testing.assert_array_equal([e[3] for e in events], result.objective_history[1:])


def test_progress_with_several_starts() -> None:
    G, _ = problem(90, 19, weighted=False, rank=6)
    events: list[tuple[Any, ...]] = []
    kgroups_rs.kernel_kgroups(
        G, 4, n_init=5, random_state=4, n_threads=2, progress=lambda *e: events.append(e)
    )
    by_start: dict[int, list[int]] = {}
    for start, sweep, _moves, _q in events:
        by_start.setdefault(start, []).append(sweep)
    assert sorted(by_start) == list(range(5))
    for sweeps in by_start.values():
        assert sweeps == list(range(1, len(sweeps) + 1))


def test_progress_as_a_callable_object() -> None:
    class Counter:
        def __init__(self) -> None:
            self.calls = 0

        def __call__(self, start: int, sweep: int, moves: int, q: float) -> None:
            self.calls += 1

    counter = Counter()
    G, _ = problem(30, 20, weighted=False)
    r = kgroups_rs.kernel_kgroups(G, 3, random_state=0, progress=counter)
    assert counter.calls == r.n_iter


class CallbackError(Exception):
    pass


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_exception_in_progress_propagates(algorithm: str) -> None:
    G, _ = problem(60, 21, weighted=False, rank=5)
    calls: list[int] = []

    def boom(start: int, sweep: int, moves: int, q: float) -> None:
        calls.append(sweep)
        raise CallbackError(f"stop at sweep {sweep}")

    with pytest.raises(CallbackError, match="stop at sweep 1"):
        fit(algorithm, G, 4, "random", random_state=0, progress=boom)
    assert calls == [1], "the callback must not be called again after it raised"
    # The module still works afterwards.
    assert fit(algorithm, G, 4, random_state=0).converged


def test_keyboard_interrupt_in_progress_propagates() -> None:
    G, _ = problem(40, 22, weighted=False)

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        kgroups_rs.kernel_kgroups(G, 3, "random", random_state=0, n_init=4, progress=interrupt)


# ---------------------------------------------------------------------------- special cases


def test_recovers_two_separated_blobs() -> None:
    rng = np.random.default_rng(23)
    X = np.vstack([rng.normal(0.0, 1.0, size=(60, 2)), rng.normal(8.0, 1.0, size=(40, 2))])
    truth = np.repeat([0, 1], [60, 40])
    G = gram_origin(X, "rho_1")
    for seed in range(3):
        labels = kgroups_rs.kernel_kgroups(G, 2, random_state=seed).labels
        assert len(set(zip(labels.tolist(), truth.tolist()))) == 2  # accuracy 1.0
        assert labels[0] != labels[-1]


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_k_equals_one(algorithm: str) -> None:
    G, w = problem(17, 24, weighted=True)
    r = fit(algorithm, G, 1, random_state=0)
    np.testing.assert_array_equal(r.labels, np.zeros(17, dtype=np.int64))
    assert r.objective == pytest.approx(G.sum() / 17, rel=1e-12)
    assert r.within == pytest.approx(np.trace(G) - G.sum() / 17, rel=1e-10)
    assert r.converged and r.n_moves == 0
    rw = fit(algorithm, G, 1, weights=w, random_state=0)
    np.testing.assert_array_equal(rw.labels, 0)
    assert rw.objective == pytest.approx(w @ G @ w / w.sum(), rel=1e-12)


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_k_equals_n(algorithm: str, init: str) -> None:
    n = 12
    G, w = problem(n, 25, weighted=True)
    r = fit(algorithm, G, n, init, weights=w, random_state=0)
    assert sorted(r.labels.tolist()) == list(range(n))
    assert r.objective == pytest.approx(float(w @ np.diag(G)), rel=1e-12)  # Q_j / s_j = w_i G_ii
    assert r.within == pytest.approx(0.0, abs=1e-10 * float(w @ np.diag(G)))
    assert r.n_moves == 0 and r.converged


def test_single_point() -> None:
    r = kgroups_rs.kernel_kgroups(np.array([[2.5]]), 1)
    np.testing.assert_array_equal(r.labels, [0])
    assert r.objective == pytest.approx(2.5)
    assert r.within == pytest.approx(0.0)


def test_duplicate_points_kmeanspp() -> None:
    """Many identical points: k-means++ must still fill every cluster."""
    X = np.repeat(np.array([[0.0], [1.0]]), [8, 2], axis=0)
    G = gram_origin(X, "rho_1")
    for k in (2, 3, 5):
        for algorithm in ALGORITHM_NAMES:
            r = fit(algorithm, G, k, random_state=1)
            assert_valid_labels(r.labels, 10, k)


def test_batch_lloyd_keeps_an_emptied_cluster_alive() -> None:
    """Linear kernel on the line. From [0, 0.2 | 0.05, 0.1, 10.3 | 10.0, 10.2] every member of
    the middle cluster (mean 3.48) is nearer another mean, so the batch step would empty it;
    the documented repair keeps its old member closest to its old mean (0.1) in it."""
    x = np.array([0.0, 0.2, 0.05, 0.1, 10.3, 10.0, 10.2])
    G = np.outer(x, x)
    init = np.array([0, 0, 1, 1, 1, 2, 2])
    step = kgroups_rs.kernel_kmeans(G, 3, init, algorithm="lloyd", max_iter=1)
    np.testing.assert_array_equal(step.labels, [0, 0, 0, 1, 2, 2, 2])
    assert step.objective > objective(G, init)
    full = kgroups_rs.kernel_kmeans(G, 3, init, algorithm="lloyd")
    assert_valid_labels(full.labels, 7, 3)
    assert_monotone(full.objective_history)
    # Online: a point alone never leaves, moves are one at a time.
    online = kgroups_rs.kernel_kmeans(G, 3, init, algorithm="lloyd-online")
    assert_valid_labels(online.labels, 7, 3)
    assert_monotone(online.objective_history)


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("seed", range(3))
def test_many_clusters_stay_non_empty(algorithm: str, seed: int) -> None:
    """k close to n: emptying moves are frequent and must all be refused or repaired."""
    n = 24
    G, w = problem(n, 40 + seed, weighted=bool(seed % 2), rank=3)
    for k in (n // 2, n - 3, n - 1):
        r = fit(algorithm, G, k, "random", weights=w, random_state=seed)
        assert_valid_labels(r.labels, n, k)
        assert_monotone(r.objective_history)
        assert r.objective == pytest.approx(objective(G, r.labels, w), rel=1e-10)


def test_kmeanspp_first_centre_is_drawn_in_proportion_to_the_weights() -> None:
    """SPEC: the first centre is drawn with probability proportional to w_i. With n = k = 2
    nothing moves afterwards and the first centre founds cluster 0, so the label of point 1
    is 0 exactly when point 1 was drawn first."""
    G = np.array([[1.0, 0.0], [0.0, 1.0]])
    seeds = range(400)
    heavy = [kgroups_rs.kernel_kgroups(G, 2, weights=[1.0, 19.0], random_state=s).labels[1] for s in seeds]
    assert 0.9 <= heavy.count(0) / len(seeds) <= 0.99  # expected 0.95
    even = [kgroups_rs.kernel_kgroups(G, 2, random_state=s).labels[1] for s in seeds]
    assert 0.4 <= even.count(0) / len(seeds) <= 0.6  # expected 0.5


def test_max_iter_one_is_not_converged_when_moves_remain() -> None:
    G, _ = problem(100, 26, weighted=False, rank=5)
    init = random_init(100, 5, np.random.default_rng(1))
    r = kgroups_rs.kernel_kgroups(G, 5, init, max_iter=1)
    assert r.n_iter == 1 and r.n_moves > 0 and not r.converged
    assert len(r.objective_history) == 2


# ------------------------------------------------------------------------- property tests


@st.composite
def clustering_problems(draw: Any, max_n: int = 30) -> tuple[Float, int, Optional[Float], int]:
    n = draw(st.integers(2, max_n))
    k = draw(st.integers(1, min(n, 5)))
    seed = draw(st.integers(0, 2**32 - 1))
    rank = draw(st.one_of(st.none(), st.integers(1, n)))
    weighted = draw(st.booleans())
    rng = np.random.default_rng(seed)
    G = random_psd(n, rng, rank=rank)
    w = rng.uniform(0.05, 10.0, size=n) if weighted else None
    return G, k, w, draw(st.integers(0, 2**63 - 1))


PROPERTY_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(
    data=clustering_problems(),
    algorithm=st.sampled_from(ALGORITHM_NAMES),
    init=st.sampled_from(["k-means++", "random"]),
    n_init=st.integers(1, 3),
)
def test_property_result_is_consistent(
    data: tuple[Float, int, Optional[Float], int], algorithm: str, init: str, n_init: int
) -> None:
    G, k, w, seed = data
    n = G.shape[0]
    r = fit(algorithm, G, k, init, weights=w, n_init=n_init, random_state=seed)
    assert_valid_labels(r.labels, n, k)
    weights = np.ones(n) if w is None else w
    scale = float(weights @ np.abs(np.diag(G))) + 1e-300
    assert r.objective == pytest.approx(objective(G, r.labels, w), rel=1e-9, abs=1e-12 * scale)
    assert r.within == pytest.approx(float(weights @ np.diag(G)) - r.objective, abs=1e-12 * scale)
    assert r.within == pytest.approx(within(G, r.labels, w), abs=1e-9 * scale)
    assert r.within >= -1e-9 * scale  # W >= 0 for a PSD kernel
    assert len(r.objective_history) == r.n_iter + 1
    assert 1 <= r.n_iter <= 300
    assert_monotone(r.objective_history)
    # Lloyd (batch) never increases W over its history; same for Hartigan and online Lloyd.
    W = float(weights @ np.diag(G)) - r.objective_history
    assert np.all(np.diff(W) <= 1e-12 * scale)


@PROPERTY_SETTINGS
@given(data=clustering_problems(max_n=11), init=st.sampled_from(["k-means++", "random"]))
def test_property_hartigan_is_a_local_optimum(
    data: tuple[Float, int, Optional[Float], int], init: str
) -> None:
    G, k, w, seed = data
    r = kgroups_rs.kernel_kgroups(G, k, init, weights=w, random_state=seed)
    assert r.converged
    assert_valid_labels(r.labels, G.shape[0], k)
    if k > 1:
        weights = np.ones(G.shape[0]) if w is None else w
        scale = abs(r.objective) + float(weights**2 @ np.abs(np.diag(G)))
        assert best_single_move_gain(G, r.labels, w) <= 1e-9 * scale


@PROPERTY_SETTINGS
@given(data=clustering_problems(), algorithm=st.sampled_from(["lloyd", "lloyd-online"]))
def test_property_hartigan_improves_on_lloyd(
    data: tuple[Float, int, Optional[Float], int], algorithm: str
) -> None:
    """Started from Lloyd's fixed point, Hartigan never loses objective."""
    G, k, w, seed = data
    lloyd = kgroups_rs.kernel_kmeans(G, k, algorithm=algorithm, weights=w, random_state=seed)
    hartigan = kgroups_rs.kernel_kgroups(G, k, lloyd.labels, weights=w)
    assert hartigan.objective_history[0] == pytest.approx(lloyd.objective, rel=1e-9, abs=1e-12)
    assert hartigan.objective >= lloyd.objective - 1e-9 * max(1.0, abs(lloyd.objective))


# ----------------------------------------------------------------------------- the result


def test_result_pickles_prints_and_is_a_dataclass() -> None:
    import dataclasses
    import pickle

    G, w = problem(40, 3, weighted=True)
    result = kgroups_rs.kernel_kgroups(G, 3, weights=w, n_init=4, random_state=5)
    assert isinstance(result, kgroups_rs.ClusteringResult)
    assert 0 <= result.best_start < 4
    assert result.n_distinct_clusters == 3 and result.approximate is False
    assert result.thresholds is None
    copy = pickle.loads(pickle.dumps(result))
    assert isinstance(copy, kgroups_rs.ClusteringResult)
    for field in dataclasses.fields(result):
        np.testing.assert_array_equal(getattr(copy, field.name), getattr(result, field.name))
    assert repr(result) == (
        f"ClusteringResult(n=40, k=3, objective={result.objective:.10g}, "
        f"within={result.within:.10g}, n_iter={result.n_iter}, n_moves={result.n_moves}, "
        f"converged={result.converged})"
    )
    assert repr(copy) == repr(result)
    shifted = dataclasses.replace(result, objective=result.objective + 1.0)
    assert shifted.best_start == result.best_start
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.best_start = 1  # type: ignore[misc]


def test_the_core_speaks_the_public_algorithm_names() -> None:
    """The binding takes "hartigan" | "lloyd" | "lloyd-online", as every public entry point."""
    from kgroups_rs import _core

    G, _ = problem(30, 4, weighted=False)
    for name in ALGORITHM_NAMES:
        options = _core.FitOptions(algorithm=name, init="random", seed=3)  # type: ignore[arg-type]
        raw = _core.cluster_dense(G, 3, options)
        expected = fit(name, G, 3, "random", random_state=3)
        np.testing.assert_array_equal(raw.labels, expected.labels)
        assert raw.objective == expected.objective and raw.best_start == expected.best_start
        assert raw.n_distinct_clusters == expected.n_distinct_clusters
    with pytest.raises(ValueError, match=r"unknown algorithm \"lloyd-batch\"; use 'hartigan', 'lloyd'"):
        _core.FitOptions(algorithm="lloyd-batch")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"invalid `init`: unknown init \"kmeans\""):
        _core.FitOptions(init="kmeans")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"invalid `init`: init\[1\] = -1 is out of range: labels must be at least 0",
    ):
        _core.FitOptions(init=np.array([0, -1, 1]))
    with pytest.raises(ValueError, match=r"invalid `weights`: the array must be contiguous"):
        _core.FitOptions(weights=np.ones(6)[::2])
    with pytest.raises(TypeError):
        _core.FitOptions("hartigan")  # type: ignore[misc]  # keyword-only


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self/task"), reason="Linux only")
def test_thread_pools_are_reused_and_bounded() -> None:
    """A pool per thread count is kept (not rebuilt per call), and only a few are kept."""
    import os
    import time

    def threads_settle_to(limit: int) -> bool:
        """The process has at most ``limit`` threads, once exiting ones are gone."""
        deadline = time.monotonic() + 10.0
        while len(os.listdir("/proc/self/task")) > limit and time.monotonic() < deadline:
            time.sleep(0.05)
        return len(os.listdir("/proc/self/task")) <= limit

    G, _ = problem(12, 5, weighted=False)
    kgroups_rs.kernel_kgroups(G, 2, random_state=0, n_threads=3)
    assert threads_settle_to(10**6)
    warm = len(os.listdir("/proc/self/task"))
    for seed in range(200):
        kgroups_rs.kernel_kgroups(G, 2, random_state=seed, n_threads=3)
    assert threads_settle_to(warm)
    # Many counts: the threads of evicted pools end; at most four pools stay.
    for count in range(2, 14):
        kgroups_rs.kernel_kgroups(G, 2, random_state=0, n_threads=count)
    assert threads_settle_to(warm + 13 + 12 + 11 + 10)
