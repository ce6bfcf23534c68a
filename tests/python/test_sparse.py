"""Sparse kernels (scipy.sparse -> the Rust CSR path) and graph partitioning.

- The sparse path gives exactly the dense path's result (labels, objective, within, sweeps)
  for every input format, index and value dtype, weights, algorithm and initialisation.
- Tiny graphs: the best of many Hartigan starts is the brute-force optimum of the same Q.
- A well separated stochastic block model is recovered by ``graph_partition`` (both
  objectives).
- Hartigan is invariant under the diagonal shift ``shift * W^-1`` (the objective moves by
  exactly ``k * shift``); Lloyd is not.
- Bad input raises a clear exception; unsorted and duplicate entries are summed and sorted
  by the Python wrapper, and rejected by the raw ``_core.cluster_csr``.
- Ctrl-C interrupts a sparse run.

Exactness: when the kernel entries and weights are small integers every sum the core forms
is exact, so the dense and sparse paths (which add the same numbers in different orders)
must agree bit for bit. With general floats they agree to rounding.
"""

from __future__ import annotations

import _thread
import threading
import time
from typing import Any, Callable

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kgroups_rs import ClusteringResult, _core
from kgroups_rs._sparse_input import as_csr_arrays
from kgroups_rs.graph import graph_kernel, graph_partition
from reference import brute_force_optimum, objective, within

sp = pytest.importorskip("scipy.sparse")

Float = npt.NDArray[np.float64]
Labels = npt.NDArray[np.int64]

FITS: dict[str, Callable[..., ClusteringResult]] = {
    "hartigan": lambda G, k, init, **kw: kgroups_rs.kernel_kgroups(G, k, init, **kw),
    "lloyd": lambda G, k, init, **kw: kgroups_rs.kernel_kmeans(
        G, k, init, algorithm="lloyd", **kw
    ),
    "lloyd-online": lambda G, k, init, **kw: kgroups_rs.kernel_kmeans(
        G, k, init, algorithm="lloyd-online", **kw
    ),
}
ALGORITHMS = list(FITS)


# ------------------------------------------------------------------------------- helpers


def symmetric_sparse_dense(
    n: int,
    density: float,
    rng: np.random.Generator,
    *,
    integer: bool = True,
    diagonal: bool = True,
    nonnegative: bool = False,
) -> Float:
    """A dense symmetric matrix with about ``density`` of its entries non-zero."""
    mask = np.triu(rng.random((n, n)) < density, 1)
    if integer:
        low = 1 if nonnegative else -3
        values = rng.integers(low, 4, size=(n, n)).astype(np.float64)
        values[values == 0] = 1.0
    else:
        values = rng.uniform(0.0 if nonnegative else -1.0, 1.0, size=(n, n))
    upper = np.where(mask, values, 0.0)
    G = upper + upper.T
    if diagonal:
        diag = rng.integers(1, 6, size=n) if integer else rng.uniform(0.5, 2.0, size=n)
        G[np.diag_indices(n)] = diag
    return G


def random_init(n: int, k: int, rng: np.random.Generator) -> Labels:
    labels = rng.integers(0, k, size=n)
    labels[rng.permutation(n)[:k]] = np.arange(k)
    return labels.astype(np.int64)


def same_result(a: ClusteringResult, b: ClusteringResult, exact: bool = True) -> None:
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.n_iter == b.n_iter and a.n_moves == b.n_moves and a.converged == b.converged
    if exact:
        assert a.objective == b.objective
        assert a.within == b.within
        np.testing.assert_array_equal(a.objective_history, b.objective_history)
    else:
        scale = 1.0 + abs(a.objective) + abs(a.within)
        assert abs(a.objective - b.objective) <= 1e-11 * scale
        assert abs(a.within - b.within) <= 1e-11 * scale
        np.testing.assert_allclose(a.objective_history, b.objective_history, rtol=1e-11, atol=1e-11 * scale)


def as_format(
    G: Float, fmt: str, index_dtype: Any = np.int32, value_dtype: Any = np.float64
) -> Any:
    """``G`` as a scipy.sparse matrix or array of format ``fmt`` ("csr", "csc", "coo",
    "csr_matrix", ...), with the given index and value dtypes."""
    kind = sp.csr_matrix if fmt.endswith("_matrix") else sp.csr_array
    csr = kind(G.astype(value_dtype))
    csr.indices = csr.indices.astype(index_dtype)
    csr.indptr = csr.indptr.astype(index_dtype)
    base = fmt.removesuffix("_matrix")
    if base == "csr":
        return csr
    if base == "csc":
        out = csr.tocsc()
    elif base == "coo":
        out = csr.tocoo()
    else:
        raise ValueError(fmt)
    return out


# ---------------------------------------------------------------- dense == sparse, exactly


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 30),
    density=st.floats(0.05, 0.6),
    k_fraction=st.floats(0.0, 1.0),
    algorithm=st.sampled_from(ALGORITHMS),
    init=st.sampled_from(["random", "k-means++"]),
    n_init=st.integers(1, 3),
    weighted=st.booleans(),
    diagonal=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_sparse_equals_dense_exactly(
    n: int,
    density: float,
    k_fraction: float,
    algorithm: str,
    init: str,
    n_init: int,
    weighted: bool,
    diagonal: bool,
    seed: int,
) -> None:
    """Small-integer kernels and weights: all sums are exact, so both paths agree bit for bit."""
    rng = np.random.default_rng(seed)
    G = symmetric_sparse_dense(n, density, rng, diagonal=diagonal)
    k = 1 + int(k_fraction * (min(n, 6) - 1))
    weights = rng.integers(1, 4, size=n).astype(np.float64) if weighted else None
    kwargs: dict[str, Any] = dict(weights=weights, n_init=n_init, max_iter=50, random_state=seed)
    dense = FITS[algorithm](G, k, init, **kwargs)
    sparse = FITS[algorithm](sp.csr_array(G), k, init, **kwargs)
    same_result(dense, sparse)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("init", ["random", "k-means++", "labels"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_sparse_equals_dense_float_kernel(algorithm: str, init: str, weighted: bool) -> None:
    """General float entries: same labels and sweeps, objective equal to rounding."""
    rng = np.random.default_rng(7)
    n, k = 150, 5
    G = symmetric_sparse_dense(n, 0.08, rng, integer=False)
    weights = rng.uniform(0.3, 3.0, size=n) if weighted else None
    start: Any = random_init(n, k, rng) if init == "labels" else init
    n_init = 1 if init == "labels" else 4
    kwargs: dict[str, Any] = dict(weights=weights, n_init=n_init, random_state=3)
    dense = FITS[algorithm](G, k, start, **kwargs)
    sparse = FITS[algorithm](sp.csr_array(G), k, start, **kwargs)
    same_result(dense, sparse, exact=False)
    assert sparse.objective == pytest.approx(objective(G, sparse.labels, weights), rel=1e-10)
    assert sparse.within == pytest.approx(within(G, sparse.labels, weights), rel=1e-9, abs=1e-9)


FORMATS = ["csr", "csc", "coo", "csr_matrix", "csc_matrix", "coo_matrix"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("value_dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_format_and_dtype_equals_dense(
    fmt: str, index_dtype: Any, value_dtype: Any, algorithm: str
) -> None:
    rng = np.random.default_rng(11)
    n, k = 40, 4
    G = symmetric_sparse_dense(n, 0.2, rng, diagonal=False)
    weights = rng.integers(1, 4, size=n).astype(np.float64)
    A = as_format(G, fmt, index_dtype, value_dtype)
    for init in ("random", "k-means++"):
        kwargs: dict[str, Any] = dict(weights=weights, n_init=3, random_state=5)
        dense = FITS[algorithm](G.astype(value_dtype), k, init, **kwargs)
        same_result(dense, FITS[algorithm](A, k, init, **kwargs))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("value_dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("kind", ["csr_array", "csr_matrix"])
def test_canonical_csr_is_borrowed(index_dtype: Any, value_dtype: Any, kind: str) -> None:
    G = symmetric_sparse_dense(20, 0.3, np.random.default_rng(0))
    A = as_format(G, "csr" if kind == "csr_array" else "csr_matrix", index_dtype, value_dtype)
    indptr, indices, data, n = as_csr_arrays(A)
    assert n == 20
    assert indptr is A.indptr and indices is A.indices and data is A.data


def test_other_inputs_are_converted_once() -> None:
    G = symmetric_sparse_dense(20, 0.3, np.random.default_rng(0))
    A = sp.csr_array(G)
    # Integer values -> float64; mixed index dtypes -> int64; CSC -> CSR.
    indptr, indices, data, _ = as_csr_arrays(sp.csr_array(G.astype(np.int64)))
    assert data.dtype == np.float64
    mixed = sp.csr_array(G)
    mixed.indptr = mixed.indptr.astype(np.int64)
    indptr, indices, data, _ = as_csr_arrays(mixed)
    assert indptr.dtype == indices.dtype == np.int64
    indptr, indices, data, _ = as_csr_arrays(sp.csc_array(G))
    np.testing.assert_array_equal(indptr, A.indptr)
    np.testing.assert_array_equal(indices, A.indices)
    np.testing.assert_array_equal(data, A.data)


def test_absent_diagonal_and_explicit_zeros() -> None:
    """A CSR with no stored diagonal, and one with explicitly stored zeros (on and off the
    diagonal, stored symmetrically or not) are the same kernel as the dense matrix."""
    rng = np.random.default_rng(2)
    n, k = 60, 4
    G = symmetric_sparse_dense(n, 0.15, rng, diagonal=False)
    no_diagonal = sp.csr_array(G)
    assert all(no_diagonal[[i], [i]].item() == 0 for i in range(n))
    assert np.all(no_diagonal.indices != np.repeat(np.arange(n), np.diff(no_diagonal.indptr)))
    # Explicit zeros: the whole diagonal, plus a few off-diagonal zeros, one of them stored on
    # one side only (a missing entry is 0, so that is still symmetric).
    rows = np.concatenate([np.arange(n), [0, 5, 7], [3]])
    cols = np.concatenate([np.arange(n), [5, 0, 9], [11]])
    zero_rows, zero_cols = rows, cols
    keep = G[zero_rows, zero_cols] == 0
    coo = sp.coo_array(G)
    with_zeros = sp.csr_array(
        (
            np.concatenate([coo.data, np.zeros(int(keep.sum()))]),
            (np.concatenate([coo.row, zero_rows[keep]]), np.concatenate([coo.col, zero_cols[keep]])),
        ),
        shape=(n, n),
    )
    assert with_zeros.nnz > no_diagonal.nnz
    assert np.count_nonzero(with_zeros.data == 0) == keep.sum()
    weights = rng.integers(1, 4, size=n).astype(np.float64)
    for algorithm in ALGORITHMS:
        for init in ("random", "k-means++"):
            kwargs: dict[str, Any] = dict(weights=weights, n_init=3, random_state=1)
            dense = FITS[algorithm](G, k, init, **kwargs)
            same_result(dense, FITS[algorithm](no_diagonal, k, init, **kwargs))
            same_result(dense, FITS[algorithm](with_zeros, k, init, **kwargs))


def test_sparse_results_do_not_depend_on_threads() -> None:
    rng = np.random.default_rng(4)
    G = symmetric_sparse_dense(300, 0.05, rng, integer=False, nonnegative=True)
    A = sp.csr_array(G)
    one = kgroups_rs.kernel_kgroups(A, 6, "random", n_init=5, random_state=9, n_threads=1)
    two = kgroups_rs.kernel_kgroups(A, 6, "random", n_init=5, random_state=9, n_threads=2)
    same_result(one, two)


def test_progress_callback_on_sparse_path() -> None:
    rng = np.random.default_rng(4)
    A = sp.csr_array(symmetric_sparse_dense(200, 0.05, rng, nonnegative=True))
    events: list[tuple[int, int, int, float]] = []
    result = kgroups_rs.kernel_kgroups(
        A, 4, "random", n_init=2, random_state=0, progress=lambda *e: events.append(e)
    )
    assert {e[0] for e in events} == {0, 1}
    assert sum(1 for e in events if e[0] == 0) >= 1
    assert result.objective in [e[3] for e in events]


# ------------------------------------------------------------------ brute force, tiny graphs


def tiny_graph(seed: int) -> tuple[Float, int]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 10))
    k = int(rng.integers(2, 4))
    A = symmetric_sparse_dense(n, 0.45, rng, integer=False, diagonal=False, nonnegative=True)
    return A, k


@pytest.mark.parametrize("seed", range(12))
def test_best_of_many_starts_is_the_brute_force_optimum(seed: int) -> None:
    A, k = tiny_graph(seed)
    best = graph_partition(sp.csr_array(A), k, n_init=150, random_state=seed)
    assert best.objective == pytest.approx(brute_force_optimum(A, k), rel=1e-10, abs=1e-12)
    assert best.objective == pytest.approx(objective(A, best.labels), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", range(30, 38))
def test_best_of_many_starts_on_an_indefinite_sparse_kernel(seed: int) -> None:
    """Any symmetric sparse kernel (negative entries, partial diagonal, weights): the best
    Hartigan start maximises the same Q as the brute force over the dense matrix."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 10)), int(rng.integers(2, 4))
    G = symmetric_sparse_dense(n, 0.5, rng, integer=False)
    G[np.diag_indices(n)] *= rng.random(n) < 0.5
    weights = rng.uniform(0.5, 2.0, size=n) if seed % 2 else None
    best = kgroups_rs.kernel_kgroups(
        sp.csr_array(G), k, "random", weights=weights, n_init=150, random_state=seed
    )
    assert best.objective == pytest.approx(brute_force_optimum(G, k, weights), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", range(12, 18))
def test_best_normalized_association_is_the_brute_force_optimum(seed: int) -> None:
    A, k = tiny_graph(seed)
    degrees = A.sum(axis=1)
    if np.any(degrees == 0):
        A = A + np.ones_like(A) - np.eye(A.shape[0])  # connect everything (keep 0 diagonal)
        degrees = A.sum(axis=1)
    G, weights = graph_kernel(sp.csr_array(A), "normalized_cut")
    assert weights is not None
    np.testing.assert_allclose(weights, degrees)
    dense_G = G.toarray()
    best = graph_partition(sp.csr_array(A), k, objective="normalized_cut", n_init=150, random_state=seed)
    optimum = brute_force_optimum(dense_G, k, weights)
    assert best.objective == pytest.approx(optimum, rel=1e-10)
    # Q is the normalised association sum_j A(C_j, C_j) / d(C_j).
    labels = best.labels
    association = sum(
        A[np.ix_(labels == j, labels == j)].sum() / degrees[labels == j].sum() for j in range(k)
    )
    assert best.objective == pytest.approx(association, rel=1e-10)


# -------------------------------------------------------------- stochastic block model


def planted_partition(
    sizes: list[int], p_in: float, p_out: float, seed: int
) -> tuple[Any, Labels]:
    """A symmetric SBM adjacency (CSR, 0/1, zero diagonal), nodes in random order."""
    rng = np.random.default_rng(seed)
    truth = rng.permutation(np.repeat(np.arange(len(sizes)), sizes)).astype(np.int64)
    n = truth.size
    prob = np.where(truth[:, None] == truth[None, :], p_in, p_out)
    upper = np.triu(rng.random((n, n)) < prob, 1)
    A = (upper | upper.T).astype(np.float64)
    return sp.csr_array(A), truth


def ari(a: Labels, b: Labels) -> float:
    metrics = pytest.importorskip("sklearn.metrics")
    return float(metrics.adjusted_rand_score(a, b))


@pytest.mark.parametrize("objective_name", ["ratio_association", "normalized_cut"])
@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
def test_planted_partition_is_recovered(objective_name: str, algorithm: str) -> None:
    A, truth = planted_partition([150, 200, 250], p_in=0.25, p_out=0.01, seed=0)
    result = graph_partition(
        A, 3, objective=objective_name, algorithm=algorithm, n_init=4, random_state=0
    )
    assert ari(result.labels, truth) > 0.99
    if objective_name == "normalized_cut":
        degrees = np.asarray(A.sum(axis=1)).ravel()
        _, weights = graph_kernel(A, objective_name)
        np.testing.assert_array_equal(weights, degrees)
        # The planted partition's normalised association is what the result reaches.
        dense = A.toarray()
        planted = sum(
            dense[np.ix_(truth == j, truth == j)].sum() / degrees[truth == j].sum() for j in range(3)
        )
        assert result.objective == pytest.approx(planted, rel=1e-9)


def test_graph_partition_dense_and_sparse_agree() -> None:
    A, _ = planted_partition([40, 50, 60], p_in=0.3, p_out=0.05, seed=1)
    for objective_name in ("ratio_association", "normalized_cut"):
        for algorithm in ("hartigan", "lloyd"):
            kwargs: dict[str, Any] = dict(algorithm=algorithm, n_init=3, random_state=2)
            dense = graph_partition(A.toarray(), 3, objective=objective_name, **kwargs)
            sparse = graph_partition(A, 3, objective=objective_name, **kwargs)
            same_result(dense, sparse, exact=objective_name == "ratio_association")


def test_graph_partition_takes_init_third_and_objective_by_keyword() -> None:
    """Like every clustering function: ``(A, k, init, *, objective=...)``."""
    A, truth = planted_partition([30, 40], p_in=0.4, p_out=0.02, seed=3)
    for objective_name in ("ratio_association", "normalized_cut"):
        positional = graph_partition(A, 2, truth, objective=objective_name, max_iter=1)
        keyword = graph_partition(A, 2, init=truth, objective=objective_name, max_iter=1)
        same_result(positional, keyword, exact=True)
        # The search started from the labels given third: its first objective is theirs.
        dense = A.toarray()
        node_weights = dense.sum(axis=1) if objective_name == "normalized_cut" else np.ones(len(truth))
        start = sum(
            dense[np.ix_(truth == j, truth == j)].sum() / node_weights[truth == j].sum() for j in range(2)
        )
        assert positional.objective_history[0] == pytest.approx(start, rel=1e-12)
    with pytest.raises(TypeError):
        graph_partition(A, 2, "random", "normalized_cut")  # type: ignore[misc]


def test_normalized_cut_kernel() -> None:
    """G = D^-1 A D^-1 with weights d: entries a_ij / (d_i d_j), exactly symmetric, sharing
    the adjacency's index arrays; a non-canonical adjacency gives the canonical one's G."""
    rng = np.random.default_rng(8)
    dense = symmetric_sparse_dense(80, 0.1, rng, integer=False, diagonal=False, nonnegative=True)
    dense[0, 1] = dense[1, 0] = 0.3  # no isolated node
    dense += np.diag(np.full(80, 0.01))  # self-loops count in the degree
    A = sp.csr_array(dense)
    G, weights = graph_kernel(A, "normalized_cut")
    d = dense.sum(axis=1)
    assert weights is not None
    np.testing.assert_allclose(weights, d, rtol=1e-14)
    np.testing.assert_allclose(G.toarray(), dense / np.outer(d, d), rtol=1e-14)
    assert (G != G.T).nnz == 0
    assert np.shares_memory(G.indices, A.indices) and G.has_canonical_format
    dense_G, dense_w = graph_kernel(dense, "normalized_cut")
    np.testing.assert_allclose(dense_G, G.toarray(), rtol=1e-14)  # degrees summed differently
    np.testing.assert_array_equal(dense_G, dense_G.T)
    # A COO adjacency with every edge split in two stored halves (duplicates).
    coo = sp.coo_array(dense)
    halves = sp.coo_array(
        (np.r_[coo.data * 0.5, coo.data * 0.5], (np.r_[coo.row, coo.row], np.r_[coo.col, coo.col])),
        shape=dense.shape,
    )
    G2, weights2 = graph_kernel(halves, "normalized_cut")
    np.testing.assert_allclose(G2.toarray(), G.toarray(), rtol=1e-14)
    np.testing.assert_allclose(weights2, weights, rtol=1e-14)
    for objective_name in ("ratio_association", "normalized_cut"):
        expected = graph_partition(A, 4, objective=objective_name, n_init=3, random_state=0)
        np.testing.assert_array_equal(
            graph_partition(halves, 4, objective=objective_name, n_init=3, random_state=0).labels,
            expected.labels,
        )


def test_graph_partition_default_init_recovers_where_kmeanspp_fails() -> None:
    """SPEC: feature-space k-means++ seeds badly on an adjacency (d2 = -2 A_ic <= 0); the
    default initialisation of graph_partition (random labels) recovers the blocks."""
    A, truth = planted_partition([100] * 5, p_in=0.3, p_out=0.01, seed=3)
    default = graph_partition(A, 5, random_state=0)
    assert ari(default.labels, truth) > 0.99
    kmeanspp = graph_partition(A, 5, init="k-means++", random_state=0)
    assert ari(kmeanspp.labels, truth) < ari(default.labels, truth)


# ---------------------------------------------------------------------- diagonal shift

SHIFTS = [0.0, 0.25, 1.0, 7.5, 100.0]


@pytest.mark.parametrize("objective_name", ["ratio_association", "normalized_cut"])
@pytest.mark.parametrize("sparse", [True, False], ids=["sparse", "dense"])
def test_hartigan_is_invariant_under_the_diagonal_shift(objective_name: str, sparse: bool) -> None:
    A, _ = planted_partition([30, 40, 50], p_in=0.2, p_out=0.05, seed=5)
    graph = A if sparse else A.toarray()
    k = 3
    init = random_init(A.shape[0], k, np.random.default_rng(0))
    results = [
        graph_partition(graph, k, objective=objective_name, init=init, shift=shift) for shift in SHIFTS
    ]
    base = results[0]
    assert base.n_moves > 0
    for shift, result in zip(SHIFTS, results):
        np.testing.assert_array_equal(result.labels, base.labels)
        assert result.n_moves == base.n_moves
        assert result.objective - base.objective == pytest.approx(k * shift, abs=1e-9 * (1 + shift))
        np.testing.assert_allclose(
            result.objective_history - base.objective_history, k * shift, atol=1e-9 * (1 + shift)
        )
    # The shifted kernel is the kernel graph_kernel documents.
    G, weights = graph_kernel(graph, objective_name, shift=2.0)
    G0, _ = graph_kernel(graph, objective_name)
    w = np.ones(A.shape[0]) if weights is None else weights
    dense_diff = (G - G0).toarray() if sparse else G - G0
    np.testing.assert_allclose(dense_diff, np.diag(2.0 / w), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("objective_name", ["ratio_association", "normalized_cut"])
def test_lloyd_depends_on_the_diagonal_shift(objective_name: str) -> None:
    """Lloyd's cost Q_l/s_l^2 - 2 m_l(i)/s_l moves by +shift/s_l for other clusters but by
    -shift/s_j for the current one: a large shift freezes the initial labels."""
    A, truth = planted_partition([30, 40, 50], p_in=0.3, p_out=0.03, seed=6)
    k = 3
    init = random_init(A.shape[0], k, np.random.default_rng(1))
    plain = graph_partition(A, k, objective=objective_name, algorithm="lloyd", init=init)
    shifted = graph_partition(A, k, objective=objective_name, algorithm="lloyd", init=init, shift=1e4)
    assert plain.n_moves > 0
    assert shifted.n_moves == 0
    np.testing.assert_array_equal(shifted.labels, init)
    assert not np.array_equal(plain.labels, shifted.labels)
    # Hartigan from the same labels ignores the shift.
    h_plain = graph_partition(A, k, objective=objective_name, init=init)
    h_shifted = graph_partition(A, k, objective=objective_name, init=init, shift=1e4)
    np.testing.assert_array_equal(h_plain.labels, h_shifted.labels)


@pytest.mark.parametrize("objective_name", ["ratio_association", "normalized_cut"])
@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd", "lloyd-online"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("shift", [0.0, 1.0, 1e300])
def test_an_asymmetric_adjacency_is_refused_whatever_the_shift(
    objective_name: str, algorithm: str, sparse: bool, shift: float
) -> None:
    """A diagonal shift inflates the diagonal entries that the symmetry rule measures pairs
    against; the adjacency is judged before it is added, so no shift hides A[0, 1] != A[1, 0]."""
    A, _ = planted_partition([10, 12], p_in=0.5, p_out=0.1, seed=3)
    A = np.array(A.toarray() if sp.issparse(A) else A, dtype=np.float64)
    A[0, 1], A[1, 0] = 1.0, 3.0
    graph = sp.csr_array(A) if sparse else A
    with pytest.raises(ValueError, match=r"symmetric"):
        graph_partition(graph, 2, objective=objective_name, algorithm=algorithm, shift=shift, random_state=0)


# ------------------------------------------------------------------------ bad input


def csr_from_arrays(indptr: Any, indices: Any, data: Any, n: int) -> Any:
    return sp.csr_array(
        (np.asarray(data, dtype=np.float64), np.asarray(indices), np.asarray(indptr)), shape=(n, n)
    )


RAW_OPTIONS = _core.FitOptions(init="random", max_iter=10)


def core_csr(
    indptr: Any, indices: Any, data: Any, n: int, k: int = 1, **kwargs: Any
) -> Any:
    return _core.cluster_csr(
        np.asarray(indptr, dtype=np.int64),
        np.asarray(indices, dtype=np.int64),
        np.asarray(data, dtype=np.float64),
        n, k, _core.FitOptions(init="random", max_iter=10, **kwargs),
    )


def test_asymmetric_structure_is_rejected() -> None:
    # (0, 1) stored, (1, 0) not.
    A = csr_from_arrays([0, 1, 1, 2], [1, 2], [1.0, 0.0], 3)
    with pytest.raises(ValueError, match=r"not symmetric: G\[0, 1\] = 1e0 but G\[1, 0\] = 0e0"):
        kgroups_rs.kernel_kgroups(A, 2, "random")
    with pytest.raises(ValueError, match="not symmetric"):
        core_csr([0, 1, 1, 1], [1], [1.0], 3)
    # Stored below the diagonal only.
    with pytest.raises(ValueError, match="not symmetric"):
        core_csr([0, 0, 1, 1], [0], [2.0], 3)


def test_asymmetric_values_are_rejected_beyond_tolerance() -> None:
    def pair(a: float, b: float, dtype: Any = np.float64) -> Any:
        A = sp.csr_array((np.array([a, b], dtype=dtype), np.array([1, 0]), np.array([0, 1, 2])), shape=(2, 2))
        return A

    with pytest.raises(ValueError, match="not symmetric.*allowed relative difference 1e-9"):
        kgroups_rs.kernel_kgroups(pair(1.0, 1.0 + 1e-6), 1)
    with pytest.raises(ValueError, match="not symmetric.*allowed relative difference 1e-5"):
        kgroups_rs.kernel_kgroups(pair(1.0, 1.001, np.float32), 1)
    # Within the tolerance: accepted.
    kgroups_rs.kernel_kgroups(pair(1.0, 1.0 + 1e-12), 1)
    kgroups_rs.kernel_kgroups(pair(1.0, 1.0 + 1e-6, np.float32), 1)
    # graph_partition checks the same (through the kernel it builds).
    with pytest.raises(ValueError, match="not symmetric"):
        graph_partition(pair(1.0, 2.0), 1)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_non_finite_values_are_rejected(bad: float) -> None:
    A = csr_from_arrays([0, 1, 2], [1, 0], [bad, bad], 2)
    with pytest.raises(ValueError, match=r"stores NaN or infinity at \(0, 1\)"):
        kgroups_rs.kernel_kgroups(A, 1)
    with pytest.raises(ValueError, match="stores NaN or infinity"):
        kgroups_rs.kernel_kmeans(A, 1)
    with pytest.raises(ValueError, match="A contains NaN or infinity"):
        graph_partition(A, 1)
    with pytest.raises(ValueError, match="stores NaN or infinity"):
        core_csr([0, 1, 2], [1, 0], [bad, bad], 2)


def test_negative_adjacency_weights_are_rejected() -> None:
    A = csr_from_arrays([0, 1, 2], [1, 0], [-1.0, -1.0], 2)
    for objective_name in ("ratio_association", "normalized_cut"):
        with pytest.raises(ValueError, match="negative entries; adjacency weights must be >= 0"):
            graph_partition(A, 1, objective=objective_name)
        with pytest.raises(ValueError, match="negative entries"):
            graph_partition(A.toarray(), 1, objective=objective_name)
    # A kernel (not an adjacency) may be negative: kernel_kgroups accepts it.
    kgroups_rs.kernel_kgroups(A, 1)


def test_isolated_nodes_are_rejected_under_normalized_cut() -> None:
    # Node 2 has no edge.
    A = csr_from_arrays([0, 1, 2, 2], [1, 0], [1.0, 1.0], 3)
    with pytest.raises(ValueError, match=r"1 node\(s\) are isolated \(first: node 2\)"):
        graph_partition(A, 2, objective="normalized_cut")
    with pytest.raises(ValueError, match="isolated"):
        graph_partition(A.toarray(), 2, objective="normalized_cut")
    # Ratio association has no degrees to divide by: isolated nodes are fine.
    graph_partition(A, 2, objective="ratio_association", random_state=0)


@pytest.mark.parametrize("fmt", ["csr", "coo", "csc"])
def test_non_square_is_rejected(fmt: str) -> None:
    A = sp.csr_array(np.random.default_rng(0).random((4, 5))).asformat(fmt)
    with pytest.raises(ValueError, match=r"square \(n, n\) sparse matrix, got shape \(4, 5\)"):
        kgroups_rs.kernel_kgroups(A, 2)
    with pytest.raises(ValueError, match=r"square \(n, n\) adjacency matrix, got shape \(4, 5\)"):
        graph_partition(A, 2)
    with pytest.raises(ValueError, match=r"square \(n, n\) adjacency matrix, got shape \(4, 5\)"):
        graph_partition(np.ones((4, 5)), 2)
    with pytest.raises(ValueError, match="indptr has length 5 but an n × n CSR matrix with n = 5"):
        core_csr([0, 0, 0, 0, 0], [], [], 5)


def test_other_sparse_argument_errors() -> None:
    A = sp.csr_array(np.eye(3))
    with pytest.raises(ValueError, match=r"k must be between 1 and n = 3 \(the number of points\), got 4"):
        kgroups_rs.kernel_kgroups(A, 4)
    with pytest.raises(ValueError, match="empty"):
        kgroups_rs.kernel_kgroups(sp.csr_array((0, 0)), 1)
    with pytest.raises(TypeError, match="real numbers"):
        kgroups_rs.kernel_kgroups(sp.csr_array(np.eye(3, dtype=complex)), 1)
    with pytest.raises(TypeError, match="int32 or int64"):
        _core.cluster_csr(
            np.array([0, 1], dtype=np.uint32), np.array([0], dtype=np.uint32), np.ones(1),
            1, 1, RAW_OPTIONS,
        )
    with pytest.raises(TypeError, match="float64 or float32"):
        _core.cluster_csr(
            np.array([0, 1]), np.array([0]), np.ones(1, dtype=np.int64),
            1, 1, RAW_OPTIONS,
        )
    with pytest.raises(TypeError, match="same integer dtype as indptr"):
        _core.cluster_csr(
            np.array([0, 1], dtype=np.int32), np.array([0], dtype=np.int64), np.ones(1),
            1, 1, RAW_OPTIONS,
        )
    with pytest.raises(ValueError, match="indptr must start at 0 and end at nnz"):
        core_csr([0, 1, 1], [0, 1], [1.0, 1.0], 2)
    with pytest.raises(ValueError, match="indptr decreases between rows 1 and 2"):
        core_csr([0, 2, 1, 2], [0, 1], [1.0, 1.0], 3)
    with pytest.raises(ValueError, match="weights"):
        kgroups_rs.kernel_kgroups(A, 2, weights=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="init"):
        kgroups_rs.kernel_kgroups(A, 2, init=np.array([0, 0, 0]))


@pytest.mark.parametrize("bad_index", [3, 7, -1], ids=["n", "beyond", "negative"])
def test_indices_out_of_range_are_rejected(bad_index: int) -> None:
    # Row 0 stores column `bad_index` of a 3x3 matrix; scipy builds it without checking.
    indptr, indices, data = [0, 1, 2, 2], [bad_index, 0], [1.0, 1.0]
    message = r"row 0 of the CSR matrix has a column index out of range 0\.\.3"
    A = csr_from_arrays(indptr, indices, data, 3)
    # The wrapper checks the index arrays before scipy (or the core) reads them.
    with pytest.raises(ValueError, match=rf"G: column index {bad_index} at position 0 is outside 0\.\.2"):
        kgroups_rs.kernel_kgroups(A, 1)
    with pytest.raises(ValueError, match=message):
        core_csr(indptr, indices, data, 3)
    with pytest.raises(ValueError, match=message):
        _core.cluster_csr(
            np.array(indptr, dtype=np.int32), np.array(indices, dtype=np.int32),
            np.array(data, dtype=np.float32), 3, 1, RAW_OPTIONS,
        )
    # Out of range in a row that also needs sorting: rejected before the wrapper sorts.
    A = csr_from_arrays([0, 2, 3, 3], [bad_index if bad_index >= 0 else 9, 1, 0], [1.0, 1.0, 1.0], 3)
    with pytest.raises(ValueError, match=r"column index -?\d+ at position 0 is outside 0\.\.2"):
        kgroups_rs.kernel_kgroups(A, 1)


def unsorted_duplicate_csr() -> tuple[list[int], list[int], list[float], Float]:
    """A hand-built 4x4 CSR whose rows have unsorted column indices and duplicate entries
    (the duplicates sum to a symmetric matrix), with its dense equivalent."""
    indptr = [0, 4, 6, 8, 11]
    indices = [3, 1, 1, 0, 0, 0, 3, 3, 0, 2, 2]
    data = [2.0, 1.0, 0.5, 4.0, 1.0, 0.5, 1.0, 2.0, 2.0, 1.5, 1.5]
    dense = np.zeros((4, 4))
    for row in range(4):
        for p in range(indptr[row], indptr[row + 1]):
            dense[row, indices[p]] += data[p]
    np.testing.assert_array_equal(dense, dense.T)
    return indptr, indices, data, dense


def test_unsorted_and_duplicate_entries_are_summed_by_the_wrapper() -> None:
    """Documented behaviour: the Python wrapper converts a non-canonical CSR once (duplicates
    summed, indices sorted), so the result is the canonical matrix's."""
    indptr, indices, data, dense = unsorted_duplicate_csr()
    A = csr_from_arrays(indptr, indices, data, 4)
    assert not A.has_canonical_format
    canonical = sp.csr_array(dense)
    for algorithm in ALGORITHMS:
        for init in ("random", "k-means++"):
            kwargs: dict[str, Any] = dict(n_init=3, random_state=0)
            expected = FITS[algorithm](canonical, 2, init, **kwargs)
            same_result(expected, FITS[algorithm](A, 2, init, **kwargs))
            same_result(expected, FITS[algorithm](dense, 2, init, **kwargs))
    # The user's matrix is not modified.
    np.testing.assert_array_equal(A.indices, indices)
    np.testing.assert_array_equal(A.data, data)


def test_unsorted_and_duplicate_entries_are_rejected_by_the_core() -> None:
    indptr, indices, data, _ = unsorted_duplicate_csr()
    message = r"unsorted or duplicate column indices; column indices must be sorted and unique"
    with pytest.raises(ValueError, match=message):
        core_csr(indptr, indices, data, 4)
    # Sorted but duplicated.
    with pytest.raises(ValueError, match=message):
        core_csr([0, 2, 4], [1, 1, 0, 0], [0.5, 0.5, 0.5, 0.5], 2)
    # Unique but unsorted.
    with pytest.raises(ValueError, match=message):
        core_csr([0, 2, 4], [1, 0, 1, 0], [1.0, 1.0, 1.0, 1.0], 2)


# ------------------------------------------------------------------------ knn_kernel


def test_knn_kernel_is_a_symmetric_canonical_affinity() -> None:
    pytest.importorskip("sklearn")
    from kgroups_rs.neighbors import knn_kernel

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.3, (60, 2)), rng.normal(4, 0.3, (60, 2))])
    truth = np.repeat([0, 1], 60)
    for mode in ("connectivity", "gaussian"):
        for symmetrize in ("union", "mutual", "mean"):
            A = knn_kernel(X, 8, mode=mode, symmetrize=symmetrize)
            assert A.format == "csr" and A.dtype == np.float64 and A.has_canonical_format
            assert A.indices.dtype == np.int32 and A.indptr.dtype == np.int32
            assert (A != A.T).nnz == 0
            assert A.data.min() > 0 and A.diagonal().max() == 0
    A = knn_kernel(X, 8)
    assert np.all(np.asarray(A.sum(axis=1)) >= 8)
    # kNN graphs are geometric: random starts often stop in local optima that split a blob,
    # so this needs more starts than a stochastic block model.
    for objective_name in ("ratio_association", "normalized_cut"):
        result = graph_partition(A, 2, objective=objective_name, n_init=20, random_state=0)
        assert ari(result.labels, truth) == 1.0
    with pytest.raises(ValueError, match="n_neighbors = 120 is too large"):
        knn_kernel(X, 120)
    with pytest.raises(ValueError, match="mode must be one of"):
        knn_kernel(X, 5, mode="cosine")
    with pytest.raises(ValueError, match="bandwidth must be finite and > 0"):
        knn_kernel(X, 5, mode="gaussian", bandwidth=0.0)


# ------------------------------------------------------------------------ interrupt


def test_ctrl_c_interrupts_a_sparse_run() -> None:
    """A long multi-start sparse run stops within 1.5 s of the interrupt."""
    rng = np.random.default_rng(0)
    n, k = 20_000, 10
    m = 10 * n
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.csr_array((np.ones(2 * m), (np.r_[rows, cols], np.r_[cols, rows])), shape=(n, n))
    A.sum_duplicates()
    # Calibrate: one start must take long enough that 400 of them run far past the interrupt.
    start = time.perf_counter()
    kgroups_rs.kernel_kgroups(A, k, "random", n_init=2, max_iter=5, random_state=0, n_threads=1)
    per_start = (time.perf_counter() - start) / 2
    n_init = max(40, int(8.0 / max(per_start, 1e-3)))

    sent: list[float] = []

    def fire() -> None:
        sent.append(time.perf_counter())
        _thread.interrupt_main()

    timer = threading.Timer(0.5, fire)
    timer.start()
    began = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            kgroups_rs.kernel_kgroups(A, k, "random", n_init=n_init, max_iter=5, random_state=0)
        raised = time.perf_counter()
    finally:
        timer.cancel()
        timer.join()
    assert sent, f"the run ended after {raised - began:.2f} s, before the interrupt"
    assert raised - sent[0] < 1.5, f"KeyboardInterrupt came {raised - sent[0]:.2f} s late"


# ------------------------------------------------------------------------ tampered index arrays
#
# scipy validates a sparse matrix's index arrays when it is built, not after they are modified
# in place; before the wrapper checked them, these matrices crashed the interpreter inside
# scipy (segfault or heap corruption in has_canonical_format / sum_duplicates / tocsr) or
# raised its C++ errors (std::bad_alloc, vector::_M_default_append). Each must now be a
# ValueError naming the argument and the defect, whatever the entry point.


def _tamper_base() -> Float:
    """A symmetric non-negative 20 x 20 matrix with a full diagonal (every row non-empty)."""
    rng = np.random.default_rng(0)
    M = rng.random((20, 20))
    M[M < 0.6] = 0.0
    return M + M.T + np.eye(20)


def _assign(obj: Any, attribute: str, value: Callable[[Any], Any]) -> Callable[[Any], None]:
    def tamper(A: Any) -> None:
        setattr(obj(A), attribute, value(getattr(obj(A), attribute)))

    return tamper


def _set_item(array: Callable[[Any], Any], index: int, value: Callable[[Any], int]) -> Callable[[Any], None]:
    def tamper(A: Any) -> None:
        array(A)[index] = value(A)

    return tamper


def _coords(A: Any) -> tuple[Any, ...]:
    """A COO array's index arrays: ``coords`` from scipy 1.13, ``row`` and ``col`` before."""
    return tuple(A.coords) if hasattr(A, "coords") else (A.row, A.col)


def _truncate_coords(axis: int) -> Callable[[Any], None]:
    def tamper(A: Any) -> None:
        coords = list(_coords(A))
        coords[axis] = coords[axis][:-1].copy()
        if hasattr(A, "coords"):
            A.coords = tuple(coords)
        else:
            A.row, A.col = coords

    return tamper


def _lil_append(column: int, value: float, *, data_only: bool = False) -> Callable[[Any], None]:
    def tamper(A: Any) -> None:
        if not data_only:
            A.rows[0].append(column)
        A.data[0].extend([value] * (100_000 if data_only else 1))

    return tamper


def _me(A: Any) -> Any:
    return A


NNZ = int(np.count_nonzero(_tamper_base()))
_INDPTR = (
    r"{name}: indptr must be non-decreasing, start at 0 and end at nnz = {nnz} "
    r"\(the number of stored entries\), but it "
)

# (id, build, tamper, message): the message is a regex with {name} (G or A) and {nnz}.
TAMPERINGS: list[tuple[str, Callable[[Float], Any], Callable[[Any], None], str]] = [
    ("csr-indptr-beyond-nnz", sp.csr_array, _set_item(lambda A: A.indptr, 3, lambda A: 10**6),
     _INDPTR + r"decreases from indptr\[3\] = 1000000 to indptr\[4\] = \d+"),
    ("csr-indptr-decreasing", sp.csr_array, _set_item(lambda A: A.indptr, 3, lambda A: int(A.indptr[1])),
     _INDPTR + r"decreases from indptr\[2\] = \d+ to indptr\[3\] = \d+"),
    ("csr-indptr-negative", sp.csr_array, _set_item(lambda A: A.indptr, 2, lambda A: -5),
     _INDPTR + r"decreases from indptr\[1\] = \d+ to indptr\[2\] = -5"),
    ("csr-indptr-start", sp.csr_array, _set_item(lambda A: A.indptr, 0, lambda A: 1),
     _INDPTR + "starts at 1"),
    ("csr-indptr-end", sp.csr_array, _set_item(lambda A: A.indptr, -1, lambda A: NNZ - 2),
     _INDPTR + f"ends at {NNZ - 2}"),
    ("csr-indptr-length", sp.csr_array, _assign(_me, "indptr", lambda a: a[:-1].copy()),
     r"{name}: indptr has length 20 but 20 rows need 21"),
    ("csr-indptr-float", sp.csr_array, _assign(_me, "indptr", lambda a: a.astype(np.float64)),
     r"{name}: indptr must hold integers, got dtype float64"),
    ("csr-indices-beyond", sp.csr_array, _set_item(lambda A: A.indices, 5, lambda A: 10**9),
     r"{name}: column index 1000000000 at position 5 is outside 0\.\.19"),
    ("csr-indices-n", sp.csr_array, _set_item(lambda A: A.indices, 5, lambda A: 20),
     r"{name}: column index 20 at position 5 is outside 0\.\.19"),
    ("csr-indices-negative", sp.csr_array, _set_item(lambda A: A.indices, 5, lambda A: -3),
     r"{name}: column index -3 at position 5 is outside 0\.\.19"),
    ("csr-indices-length", sp.csr_array, _assign(_me, "indices", lambda a: a[:-1].copy()),
     rf"{{name}}: indices has length {NNZ - 1} but data has length {NNZ}"),
    ("csr-data-length", sp.csr_array, _assign(_me, "data", lambda a: a[:-1].copy()),
     rf"{{name}}: indices has length {NNZ} but data has length {NNZ - 1}"),
    ("csr-not-canonical-indptr-beyond-nnz",
     lambda M: sp.csr_array((M[M != 0], np.nonzero(M)[1], sp.csr_array(M).indptr), shape=M.shape),
     _set_item(lambda A: A.indptr, 3, lambda A: 10**6),
     _INDPTR + r"decreases from indptr\[3\] = 1000000"),
    ("csc-indptr-beyond-nnz", sp.csc_array, _set_item(lambda A: A.indptr, 3, lambda A: 10**6),
     _INDPTR + r"decreases from indptr\[3\] = 1000000"),
    ("csc-indptr-negative", sp.csc_array, _set_item(lambda A: A.indptr, 2, lambda A: -5),
     _INDPTR + r"decreases from indptr\[1\] = \d+ to indptr\[2\] = -5"),
    ("csc-indptr-length", sp.csc_array, _assign(_me, "indptr", lambda a: a[:-1].copy()),
     r"{name}: indptr has length 20 but 20 columns need 21"),
    ("csc-indices-beyond", sp.csc_array, _set_item(lambda A: A.indices, 5, lambda A: 10**9),
     r"{name}: row index 1000000000 at position 5 is outside 0\.\.19"),
    ("csc-indices-negative", sp.csc_array, _set_item(lambda A: A.indices, 5, lambda A: -3),
     r"{name}: row index -3 at position 5 is outside 0\.\.19"),
    ("csc-data-length", sp.csc_array, _assign(_me, "data", lambda a: a[:-1].copy()),
     rf"{{name}}: indices has length {NNZ} but data has length {NNZ - 1}"),
    ("coo-row-beyond", sp.coo_array, _set_item(lambda A: _coords(A)[0], 5, lambda A: 10**9),
     r"{name}: row index 1000000000 at position 5 is outside 0\.\.19"),
    ("coo-column-negative", sp.coo_array, _set_item(lambda A: _coords(A)[1], 5, lambda A: -4),
     r"{name}: column index -4 at position 5 is outside 0\.\.19"),
    ("coo-row-length", sp.coo_array, _truncate_coords(0),
     rf"{{name}}: the row index array has length {NNZ - 1} but data has length {NNZ}"),
    ("bsr-indptr-beyond-nnz", lambda M: sp.bsr_array(M, blocksize=(2, 2)),
     _set_item(lambda A: A.indptr, 3, lambda A: 10**6),
     r"{name}: indptr must be non-decreasing, start at 0 and end at nnz = \d+ .*decreases from "
     r"indptr\[3\] = 1000000"),
    ("bsr-indices-beyond", lambda M: sp.bsr_array(M, blocksize=(2, 2)),
     _set_item(lambda A: A.indices, 3, lambda A: 10**9),
     r"{name}: block column index 1000000000 at position 3 is outside 0\.\.9"),
    ("bsr-blocks", lambda M: sp.bsr_array(M, blocksize=(2, 2)),
     _assign(_me, "data", lambda a: np.ones((a.shape[0], 3, 3))),
     r"{name}: blocks of 3 x 3 \(the shape of data\[0\]\) do not tile the 20 x 20 matrix"),
    ("lil-more-values-than-indices", sp.lil_array, _lil_append(0, 1.0, data_only=True),
     r"{name}: row 0 of the LIL matrix has \d+ column indices but \d+ values"),
    ("lil-column-beyond", sp.lil_array, _lil_append(10**9, 1.0),
     r"{name}: column index 1000000000 at position \d+ is outside 0\.\.19"),
    ("dia-offsets-length", sp.dia_array, _assign(_me, "offsets", lambda a: a[:2].copy()),
     r"{name}: offsets has length 2 but data holds \d+ diagonals"),
]

ENTRY_POINTS: list[tuple[str, str, Callable[[Any], Any]]] = [
    ("kernel_kgroups", "G", lambda A: kgroups_rs.kernel_kgroups(A, 2, random_state=0)),
    ("kernel_kmeans", "G", lambda A: kgroups_rs.kernel_kmeans(A, 2, random_state=0)),
    ("as_csr_arrays", "G", as_csr_arrays),
    ("graph_partition", "A", lambda A: graph_partition(A, 2, objective="normalized_cut", random_state=0)),
    ("graph_kernel", "A", lambda A: graph_kernel(A, "ratio_association", shift=1.0)),
]


@pytest.mark.parametrize(
    ("build", "tamper", "message"),
    [pytest.param(b, t, m, id=i) for i, b, t, m in TAMPERINGS],
)
@pytest.mark.parametrize(
    ("name", "call"), [pytest.param(n, c, id=e) for e, n, c in ENTRY_POINTS]
)
def test_tampered_index_arrays_are_rejected_before_scipy_reads_them(
    build: Callable[[Float], Any], tamper: Callable[[Any], None], message: str, name: str,
    call: Callable[[Any], Any],
) -> None:
    A = build(_tamper_base())
    tamper(A)
    with pytest.raises(ValueError, match=message.replace("{name}", name).replace("{nnz}", str(NNZ))):
        call(A)


def test_untampered_matrices_of_every_format_pass_the_structure_check() -> None:
    from kgroups_rs._sparse_input import check_sparse_structure

    M = _tamper_base()
    reference = kgroups_rs.kernel_kgroups(M, 2, random_state=0)
    for fmt in ("csr", "csc", "coo", "bsr", "lil", "dia", "dok"):
        A = sp.csr_array(M).asformat(fmt)
        check_sparse_structure(A)
        result = kgroups_rs.kernel_kgroups(A, 2, random_state=0)
        np.testing.assert_array_equal(result.labels, reference.labels)
    # An empty row, an empty matrix and unsigned index arrays are valid structures.
    unsigned = np.array([0], dtype=np.uint32), np.array([0, 1, 1], dtype=np.uint32)
    check_sparse_structure(sp.csr_array((np.ones(1), *unsigned), shape=(2, 2)))
    check_sparse_structure(sp.csr_array((3, 3)))


# ------------------------------------------------------------------------------- reorder
#
# ``reorder=True`` renumbers the nodes in breadth-first order for the local search and maps
# the labels back; the start is drawn in the caller's numbering. "auto" leaves graphs below
# 200 000 nodes alone (so every identity test above runs the plain path), and False is the
# plain path itself.


def _ring_of_cliques(cliques: int, size: int, rng: np.random.Generator) -> tuple[Any, Float]:
    """A ring of cliques, nodes numbered at random, as a CSR array and a dense matrix."""
    n = cliques * size
    A = np.zeros((n, n))
    for c in range(cliques):
        block = slice(c * size, (c + 1) * size)
        A[block, block] = 1.0
        nxt = ((c + 1) % cliques) * size
        A[c * size, nxt] = A[nxt, c * size] = 1.0
    np.fill_diagonal(A, 0.0)
    shuffle = rng.permutation(n)
    A = A[np.ix_(shuffle, shuffle)]
    return sp.csr_array(A), A


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("init", ["random", "k-means++"])
@pytest.mark.parametrize("weighted", [False, True])
def test_reordered_hartigan_ends_at_a_local_optimum_of_the_original_graph(
    seed: int, init: str, weighted: bool
) -> None:
    from reference import best_single_move_gain

    rng = np.random.default_rng(seed)
    A, dense = _ring_of_cliques(6, 5, rng)
    G = dense + 2.0 * np.eye(dense.shape[0])  # a diagonal, so k-means++ is not degenerate
    weights = rng.uniform(0.5, 2.0, size=dense.shape[0]) if weighted else None
    result = kgroups_rs.kernel_kgroups(
        sp.csr_array(G), 4, init, weights=weights, random_state=seed, reorder=True
    )
    assert result.converged
    q = objective(G, result.labels, weights)
    assert abs(result.objective - q) <= 1e-12 * abs(q)
    assert abs(result.within - within(G, result.labels, weights)) <= 1e-12 * abs(q)
    assert best_single_move_gain(G, result.labels, weights) <= 1e-9 * abs(q)


@pytest.mark.parametrize("init", ["random", "k-means++"])
def test_reordering_keeps_the_start(init: str) -> None:
    """Batch Lloyd does not depend on the visiting order and every sum on a 0/1 graph is
    exact, so with and without renumbering the runs agree bit for bit, from the same start."""
    rng = np.random.default_rng(5)
    A, dense = _ring_of_cliques(8, 6, rng)
    G = sp.csr_array(dense + np.eye(dense.shape[0]))
    for seed in range(4):
        plain = kgroups_rs.kernel_kmeans(G, 5, init, n_init=2, random_state=seed, reorder=False)
        renumbered = kgroups_rs.kernel_kmeans(G, 5, init, n_init=2, random_state=seed, reorder=True)
        same_result(plain, renumbered)


def test_reorder_false_and_auto_on_small_graphs_are_the_plain_path() -> None:
    rng = np.random.default_rng(2)
    A, _ = _ring_of_cliques(10, 7, rng)
    base = graph_partition(A, 5, random_state=3)
    for reorder in (False, "auto", np.bool_(False)):
        same_result(graph_partition(A, 5, random_state=3, reorder=reorder), base)


def test_reordering_handles_isolated_nodes_one_node_and_disconnected_graphs() -> None:
    rng = np.random.default_rng(4)
    A, dense = _ring_of_cliques(4, 5, rng)
    # Two copies side by side and three isolated nodes.
    blocks = sp.block_diag([A, A, sp.csr_array((3, 3))], format="csr")
    result = graph_partition(blocks, 3, random_state=0, reorder=True)
    assert result.labels.shape == (43,)
    assert abs(result.objective - objective(blocks.toarray(), result.labels)) <= 1e-12 * result.objective
    one = graph_partition(sp.csr_array(np.ones((1, 1))), 1, reorder=True)
    assert one.labels.tolist() == [0]


def test_reordered_results_do_not_depend_on_threads() -> None:
    rng = np.random.default_rng(6)
    A, _ = _ring_of_cliques(12, 6, rng)
    runs = [
        graph_partition(A, 6, n_init=3, random_state=1, reorder=True, n_threads=t) for t in (1, 2)
    ]
    same_result(*runs)


@pytest.mark.parametrize(
    "bad, error", [("yes", ValueError), ("always", ValueError), (1, TypeError), (None, TypeError)]
)
def test_bad_reorder_values_name_the_argument(bad: Any, error: type) -> None:
    A = sp.csr_array(np.ones((4, 4)))
    for call in (
        lambda: graph_partition(A, 2, reorder=bad),
        lambda: kgroups_rs.kernel_kgroups(A, 2, reorder=bad),
        lambda: kgroups_rs.kernel_kmeans(np.ones((4, 4)), 2, reorder=bad),
    ):
        with pytest.raises(error, match="reorder"):
            call()
    indptr, indices, data, n = as_csr_arrays(A)
    with pytest.raises(ValueError, match="reorder"):
        _core.cluster_csr(indptr, indices, data, n, 2, _core.FitOptions(), reorder="sometimes")
