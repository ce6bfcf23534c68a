"""Beyond the n x n matrix (issue 7): exact matrix-free kernel k-groups from data, and
Nyström low-rank kernel k-groups.

- Matrix-free equals dense: ``kernel_kgroups_from_data(X, ...)`` gives the labels, objective,
  sweeps and moves of ``kernel_kgroups(energy_gram(X, ...), ...)`` (and of ``kernel_kmeans``
  for the Lloyd variants) from the same start, for the power (alpha = 1, 0.5), exponential
  and gaussian semimetrics (explicit sigma and the default bandwidth), with and without
  weights, for every initialisation; the result does not depend on the thread count.
- Nyström with m = n is exact: the same labels as the exact kernel of the centred data
  (``nystrom_features`` centres X first) from the same initial labels; the approximation error
  ``||Phi Phi^T - G_c|| / ||G_c||`` shrinks as m grows, and the exact objective of the Nyström
  labels approaches the exact Hartigan optimum.
- Bad input raises a clear exception.
- Ctrl-C stops a long matrix-free run and a long Nyström run (every stage) within 1.5 s.

With ``n_init > 1`` the best start is chosen by the objective; two starts that reach the same
partition have objectives equal up to rounding, and the dense and matrix-free paths round
differently, so the winning start (and with it the numbering of the clusters) may differ. The
partition and the objective may not: those tests compare partitions, not label vectors.
"""

from __future__ import annotations

import _thread
import os
import threading
import time
from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt
import pytest
from _interrupt import interrupt_main, interrupted_after
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kgroups_rs import ClusteringResult, _core, energy_gram, kernel_kgroups, kernel_kmeans
from kgroups_rs.large import kernel_kgroups_from_data, kernel_kgroups_nystrom, nystrom_features
from reference import objective

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
    threadpool_limits = None

Float = npt.NDArray[np.float64]
Labels = npt.NDArray[np.int64]

# (semimetric, alpha, sigma): every kind, explicit sigma and the default bandwidth.
SEMIMETRICS = [
    ("power", 1.0, None),
    ("power", 0.5, None),
    ("exponential", 1.0, 1.5),
    ("exponential", 1.0, None),
    ("gaussian", 1.0, 0.8),
    ("gaussian", 1.0, None),
]
SEMIMETRIC_IDS = ["power1", "power0.5", "exp-sigma1.5", "exp-default", "gauss-sigma0.8", "gauss-default"]

# algorithm name of the large-data functions -> the dense function that runs the same search.
DENSE: dict[str, Callable[..., ClusteringResult]] = {
    "hartigan": kernel_kgroups,
    "lloyd": lambda G, *a, **kw: kernel_kmeans(G, *a, algorithm="lloyd", **kw),
    "lloyd-online": lambda G, *a, **kw: kernel_kmeans(G, *a, algorithm="lloyd-online", **kw),
}


def blobs(n: int, dim: int, k: int, seed: int, spread: float = 2.0, offset: float = 3.0) -> Float:
    """k overlapping Gaussian blobs, shifted away from the origin (the base point matters)."""
    rng = np.random.default_rng(seed)
    centres = spread * rng.normal(size=(k, dim))
    return rng.normal(size=(n, dim)) + centres[rng.integers(0, k, n)] + offset


def canonical(labels: npt.ArrayLike) -> Labels:
    """Labels renumbered in order of first appearance (equal iff the partitions are equal)."""
    labels = np.asarray(labels)
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    mapping = np.empty(order.size, dtype=np.int64)
    mapping[order] = np.arange(order.size)
    return mapping[np.searchsorted(np.unique(labels), labels)]


def assert_same_result(a: ClusteringResult, b: ClusteringResult, *, same_numbering: bool = True) -> None:
    """Identical labels (or partition), objective and W to 1e-12 relative, same sweeps and moves."""
    if same_numbering:
        np.testing.assert_array_equal(a.labels, b.labels)
    else:
        np.testing.assert_array_equal(canonical(a.labels), canonical(b.labels))
    scale = abs(a.objective) + abs(a.within)
    assert abs(a.objective - b.objective) <= 1e-12 * abs(b.objective), (a.objective, b.objective)
    assert abs(a.within - b.within) <= 1e-12 * scale, (a.within, b.within)
    assert a.converged == b.converged
    if same_numbering:
        assert (a.n_iter, a.n_moves) == (b.n_iter, b.n_moves)
        np.testing.assert_allclose(a.objective_history, b.objective_history, rtol=1e-12, atol=0)




@pytest.fixture(autouse=True, scope="module")
def _single_threaded_blas() -> Any:
    """numpy's small eigh/matmul calls on one BLAS thread: a multithreaded OpenBLAS spins
    for its workers and, on a busy 2-core machine, takes seconds over a 240 x 240 eigh."""
    if threadpool_limits is None:
        yield
    else:
        with threadpool_limits(limits=1, user_api="blas"):
            yield


# ------------------------------------------------------------- matrix-free equals dense


@pytest.mark.parametrize("algorithm", list(DENSE))
@pytest.mark.parametrize("init", ["k-means++", "random", "labels"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(("semimetric", "alpha", "sigma"), SEMIMETRICS, ids=SEMIMETRIC_IDS)
def test_matrix_free_equals_dense(
    semimetric: str, alpha: float, sigma: Optional[float], weighted: bool, init: str, algorithm: str
) -> None:
    n, k = 300, 3
    X = blobs(n, 3, k, seed=11)
    rng = np.random.default_rng(5)
    weights = rng.uniform(0.2, 3.0, n) if weighted else None
    start: Any = rng.integers(0, k, n) if init == "labels" else init
    options = dict(weights=weights, random_state=7, max_iter=500)
    G = energy_gram(X, semimetric=semimetric, alpha=alpha, sigma=sigma)
    dense = DENSE[algorithm](G, k, start, **options)
    free = kernel_kgroups_from_data(
        X, k, start, semimetric=semimetric, alpha=alpha, sigma=sigma, algorithm=algorithm, **options
    )
    assert_same_result(free, dense)
    assert free.converged
    assert not free.approximate
    assert objective(G, free.labels, weights) == pytest.approx(free.objective, rel=1e-10)


@pytest.mark.parametrize("algorithm", list(DENSE))
@pytest.mark.parametrize("init", ["k-means++", "random"])
@pytest.mark.parametrize(("semimetric", "alpha", "sigma"), SEMIMETRICS[::2], ids=SEMIMETRIC_IDS[::2])
def test_matrix_free_equals_dense_with_restarts(
    semimetric: str, alpha: float, sigma: Optional[float], init: str, algorithm: str
) -> None:
    """n_init = 5 with weights: the same best partition and objective (see the module note)."""
    n, k = 400, 4
    X = blobs(n, 2, k, seed=3)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, n)
    G = energy_gram(X, semimetric=semimetric, alpha=alpha, sigma=sigma)
    options = dict(weights=weights, n_init=5, random_state=123)
    dense = DENSE[algorithm](G, k, init, **options)
    free = kernel_kgroups_from_data(
        X, k, init, semimetric=semimetric, alpha=alpha, sigma=sigma, algorithm=algorithm, **options
    )
    assert_same_result(free, dense, same_numbering=False)


def test_matrix_free_equals_dense_across_row_chunks() -> None:
    """n above the 2048-entry row chunk of the core, weights, k = 4, every algorithm."""
    n, k = 2500, 4
    X = blobs(n, 2, k, seed=8, spread=1.5)
    weights = np.random.default_rng(2).uniform(0.5, 2.0, n)
    G = energy_gram(X)
    for algorithm, dense_fn in DENSE.items():
        dense = dense_fn(G, k, "k-means++", weights=weights, random_state=4)
        free = kernel_kgroups_from_data(
            X, k, "k-means++", weights=weights, random_state=4, algorithm=algorithm
        )
        assert_same_result(free, dense)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 70),
    dim=st.integers(0, 4),
    k=st.integers(1, 4),
    which=st.sampled_from(range(len(SEMIMETRICS))),
    weighted=st.booleans(),
    init=st.sampled_from(["k-means++", "random", "labels"]),
    algorithm=st.sampled_from(list(DENSE)),
    seed=st.integers(0, 2**32 - 1),
)
def test_matrix_free_equals_dense_property(
    n: int, dim: int, k: int, which: int, weighted: bool, init: str, algorithm: str, seed: int
) -> None:
    """Random small problems (dim 0: a 1-D array of n points), one start."""
    k = min(k, n)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=n) * 3 if dim == 0 else rng.normal(size=(n, dim)) * rng.uniform(0.1, 5.0)
    semimetric, alpha, sigma = SEMIMETRICS[which]
    if sigma is not None:
        sigma *= float(rng.uniform(0.2, 5.0))
    weights = rng.uniform(0.1, 10.0, n) if weighted else None
    start: Any = init
    if init == "labels":
        start = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
        rng.shuffle(start)
    options = dict(weights=weights, random_state=seed)
    G = energy_gram(X, semimetric=semimetric, alpha=alpha, sigma=sigma)
    dense = DENSE[algorithm](G, k, start, **options)
    free = kernel_kgroups_from_data(
        X, k, start, semimetric=semimetric, alpha=alpha, sigma=sigma, algorithm=algorithm, **options
    )
    assert_same_result(free, dense)


def test_matrix_free_small_is_thread_count_independent() -> None:
    X = blobs(500, 3, 4, seed=21)
    runs = [
        kernel_kgroups_from_data(X, 4, "random", n_init=6, random_state=9, n_threads=t)
        for t in (1, 2, 3, None)
    ]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.labels, runs[0].labels)
        assert r.objective == runs[0].objective
        np.testing.assert_array_equal(r.objective_history, runs[0].objective_history)


def test_matrix_free_large_is_thread_count_independent() -> None:
    """n = 17 000 is past the size (2^14) where the core computes a kernel row in parallel."""
    X = blobs(16_500, 2, 3, seed=4, spread=3.0)
    runs = [
        kernel_kgroups_from_data(X, 3, "k-means++", max_iter=2, random_state=1, n_threads=t) for t in (1, 2)
    ]
    np.testing.assert_array_equal(runs[1].labels, runs[0].labels)
    assert runs[1].objective == runs[0].objective
    assert runs[1].n_moves == runs[0].n_moves > 0


def test_matrix_free_progress_and_reproducibility() -> None:
    X = blobs(300, 2, 3, seed=2)
    events: list[tuple[int, int, int, float]] = []
    first = kernel_kgroups_from_data(X, 3, n_init=3, random_state=5, progress=lambda *e: events.append(e))
    again = kernel_kgroups_from_data(X, 3, n_init=3, random_state=5)
    np.testing.assert_array_equal(first.labels, again.labels)
    assert {e[0] for e in events} == {0, 1, 2}
    assert all(e[2] == 0 for e in events if e[1] == max(f[1] for f in events if f[0] == e[0]))


# ------------------------------------------------------------------------------- Nyström


def centred_gram(
    X: Float, semimetric: str = "power", alpha: float = 1.0, sigma: Optional[float] = None
) -> Float:
    """The exact kernel Nyström approximates: the energy kernel of the centred data."""
    return energy_gram(X - X.mean(axis=0), semimetric=semimetric, alpha=alpha, sigma=sigma)


@pytest.mark.parametrize("algorithm", list(DENSE))
@pytest.mark.parametrize("landmarks", ["uniform", "k-means++"])
@pytest.mark.parametrize(
    ("semimetric", "alpha", "sigma"),
    [("power", 1.0, None), ("power", 0.5, None), ("exponential", 1.0, 2.0), ("gaussian", 1.0, None)],
    ids=["power1", "power0.5", "exp-sigma2", "gauss-default"],
)
def test_nystrom_with_every_point_a_landmark_is_exact(
    semimetric: str, alpha: float, sigma: Optional[float], landmarks: str, algorithm: str
) -> None:
    n, k = 240, 3
    X = blobs(n, 4, k, seed=1, offset=5.0)
    rng = np.random.default_rng(3)
    weights = rng.uniform(0.5, 2.0, n)
    init = rng.integers(0, k, n)
    metric = dict(semimetric=semimetric, alpha=alpha, sigma=sigma)
    G = centred_gram(X, **metric)
    exact = DENSE[algorithm](G, k, init, weights=weights)
    approx = kernel_kgroups_nystrom(
        X, k, init, n_components=n, landmarks=landmarks, algorithm=algorithm, weights=weights,
        random_state=0, **metric,
    )
    np.testing.assert_array_equal(approx.labels, exact.labels)
    assert approx.objective == pytest.approx(exact.objective, rel=1e-8)
    assert approx.within == pytest.approx(exact.within, rel=1e-8, abs=1e-8 * abs(exact.objective))
    assert (approx.n_iter, approx.n_moves) == (exact.n_iter, exact.n_moves)
    assert approx.approximate and not exact.approximate
    assert "approximate=True" in repr(approx)
    # The matrix-free path on the centred data is the same exact clustering.
    free = kernel_kgroups_from_data(
        X - X.mean(axis=0), k, init, algorithm=algorithm, weights=weights, **metric
    )
    np.testing.assert_array_equal(free.labels, exact.labels)


def test_nystrom_features_with_m_equal_n_reproduce_the_kernel() -> None:
    X = blobs(200, 3, 3, seed=6, offset=10.0)
    for landmarks in ("uniform", "k-means++"):
        Phi, chosen = nystrom_features(X, 200, landmarks=landmarks, random_state=2)
        G = centred_gram(X)
        assert Phi.shape[0] == 200 and Phi.shape[1] <= 200
        assert np.abs(Phi @ Phi.T - G).max() <= 1e-9 * np.abs(G).max()
        np.testing.assert_array_equal(np.sort(chosen), np.arange(200))


def test_nystrom_features_shape_and_landmarks() -> None:
    X = blobs(500, 3, 3, seed=2)
    for landmarks in ("uniform", "k-means++"):
        Phi, chosen = nystrom_features(X, 40, landmarks=landmarks, random_state=1)
        assert Phi.dtype == np.float64 and Phi.flags.c_contiguous
        assert Phi.shape[0] == 500 and 1 <= Phi.shape[1] <= 40
        assert chosen.shape == (40,) and np.unique(chosen).size == 40
        assert chosen.min() >= 0 and chosen.max() < 500
        again, chosen_again = nystrom_features(X, 40, landmarks=landmarks, random_state=1)
        np.testing.assert_array_equal(chosen_again, chosen)
        np.testing.assert_array_equal(again, Phi)
        # Exact on the landmarks: Phi_L Phi^T reproduces the landmark rows of G_c.
        G = centred_gram(X)
        assert np.abs(Phi[chosen] @ Phi.T - G[chosen]).max() <= 1e-8 * np.abs(G).max()


def nystrom_error(X: Float, G: Float, m: int, landmarks: str, seeds: range, **metric: Any) -> float:
    """Mean relative Frobenius error ||Phi Phi^T - G_c|| / ||G_c|| over seeds."""
    errors = []
    for seed in seeds:
        Phi, _ = nystrom_features(X, m, landmarks=landmarks, random_state=seed, **metric)
        errors.append(np.linalg.norm(Phi @ Phi.T - G) / np.linalg.norm(G))
    return float(np.mean(errors))


@pytest.mark.parametrize("landmarks", ["uniform", "k-means++"])
@pytest.mark.parametrize(
    ("semimetric", "sigma"), [("power", None), ("gaussian", None)], ids=["power1", "gauss-default"]
)
def test_nystrom_error_shrinks_as_m_grows(semimetric: str, sigma: Optional[float], landmarks: str) -> None:
    X = blobs(400, 4, 3, seed=1)
    G = centred_gram(X, semimetric, sigma=sigma)
    metric = dict(semimetric=semimetric, sigma=sigma)
    errors = {m: nystrom_error(X, G, m, landmarks, range(3), **metric) for m in (8, 32, 128)}
    assert errors[32] < 0.7 * errors[8], errors
    assert errors[128] < 0.7 * errors[32], errors


def test_nystrom_labels_approach_the_exact_optimum() -> None:
    """The exact objective of the Nyström labels closes in on the exact Hartigan optimum."""
    rng = np.random.default_rng(0)
    n, k = 600, 3
    truth = rng.integers(0, k, n)
    X = rng.normal(size=(n, 4)) + 3.0 * np.eye(k, 4)[truth]
    G = centred_gram(X)
    best = kernel_kgroups(G, k, n_init=10, random_state=0).objective
    gaps = {}
    for m in (8, 32, 128, n):
        labels = [
            kernel_kgroups_nystrom(X, k, n_components=m, n_init=5, random_state=s).labels
            for s in range(1 if m == n else 3)
        ]
        gaps[m] = float(np.mean([(best - objective(G, lab)) / best for lab in labels]))
    assert gaps[32] < gaps[8], gaps
    assert gaps[128] <= max(gaps[32], 1e-12), gaps
    assert gaps[128] < 1e-4 and abs(gaps[n]) < 1e-12, gaps
    # From one initial partition the Nyström run converges to the exact run as m grows.
    init = rng.integers(0, k, n)
    exact = kernel_kgroups(G, k, init)
    for m in (128, n):
        approx = kernel_kgroups_nystrom(X, k, init, n_components=m, random_state=1)
        assert objective(G, approx.labels) == pytest.approx(exact.objective, rel=1e-4)


def test_nystrom_reproducible_and_thread_count_independent() -> None:
    """n = 35 000 is past the size where the feature kernel computes rows in parallel."""
    X = blobs(35_000, 3, 4, seed=5, spread=4.0)
    runs = [
        kernel_kgroups_nystrom(X, 4, n_components=24, n_init=2, max_iter=20, random_state=3, n_threads=t)
        for t in (1, 2, 1)
    ]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.labels, runs[0].labels)
        assert r.objective == runs[0].objective
    assert all(r.approximate for r in runs)


def test_landmark_selection_is_the_cores() -> None:
    """``_core.select_landmarks`` only converts: the core checks m, draws distinct indices
    from the seed, and gives the same landmarks for any thread count."""
    X = blobs(60, 3, 2, seed=4)
    for method in ("uniform", "k-means++"):
        a = _core.select_landmarks(X, 12, method, "power", 1.0, None, 7)  # type: ignore[arg-type]
        b = _core.select_landmarks(X, 12, method, "power", 1.0, None, 7, n_threads=1)  # type: ignore[arg-type]
        assert a.dtype == np.int64 and a.shape == (12,)
        np.testing.assert_array_equal(a, b)
        assert np.unique(a).size == 12 and a.min() >= 0 and a.max() < 60
    for m in (0, 61):
        with pytest.raises(ValueError, match=rf"invalid `n_components`: {m} landmarks requested"):
            _core.select_landmarks(X, m, "uniform", "power", 1.0, None, 0)
    with pytest.raises(ValueError, match=r"unknown landmarks method \"farthest\""):
        _core.select_landmarks(X, 5, "farthest", "power", 1.0, None, 0)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- bad input

_X = blobs(50, 3, 2, seed=0)


def _with(value: float, row: int, col: int) -> Float:
    X = _X.copy()
    X[row, col] = value
    return X


def _ny(X: Any = _X, k: int = 2, **kw: Any) -> Any:
    return kernel_kgroups_nystrom(X, k, n_components=kw.pop("m", 10), random_state=0, **kw)


def _mf(X: Any = _X, k: int = 2, **kw: Any) -> Any:
    return kernel_kgroups_from_data(X, k, random_state=0, **kw)


#: The core's rule for k (n = 50 here), and k = 0: refused by the Python wrapper today ("at least 1");
#: the core's wording applies once the wrappers pass k on unchecked.
_K_RULE = r"k must be between 1 and n = 50 \(the number of points\), "
_K_ZERO = r"k must be (at least 1|between 1 and n = 50 \(the number of points\)), got 0"
_LABEL_RANGE = r"init\[0\] = 2 is out of range: labels must be below k = 2"
_WEIGHTS_LENGTH = r"weights has length 49 but there are n = 50 points"

BAD_INPUT: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("mf-nan", lambda: _mf(_with(np.nan, 3, 1)), ValueError, r"NaN or infinity at row 3, column 1"),
    ("mf-inf", lambda: _mf(_with(np.inf, 7, 0)), ValueError, r"NaN or infinity at row 7, column 0"),
    ("mf-neginf", lambda: _mf(_with(-np.inf, 9, 2)), ValueError, r"NaN or infinity at row 9, column 2"),
    ("ny-nan", lambda: _ny(_with(np.nan, 3, 1)), ValueError, r"NaN or infinity at row 3, column 1"),
    ("ny-inf", lambda: _ny(_with(np.inf, 7, 0)), ValueError, r"NaN or infinity at row 7, column 0"),
    ("features-nan", lambda: nystrom_features(_with(np.nan, 4, 2), 10), ValueError, r"row 4, column 2"),
    ("m<k", lambda: _ny(k=5, m=3), ValueError, r"n_components must be between k = 5 and n = \d+ .*, got 3"),
    ("m>n", lambda: _ny(m=51), ValueError, r"n_components = 51 exceeds the number of points n = 50"),
    ("features-m>n", lambda: nystrom_features(_X, 51), ValueError, r"exceeds the number of points"),
    ("m=0", lambda: _ny(m=0), ValueError, r"n_components"),
    ("m-float", lambda: _ny(m=10.0), TypeError, r"n_components must be an integer"),
    ("mf-k>n", lambda: _mf(k=51), ValueError, _K_RULE + "got 51"),
    ("ny-k>n", lambda: _ny(k=51, m=50), ValueError, _K_RULE + "got 51"),
    ("mf-k=0", lambda: _mf(k=0), ValueError, _K_ZERO),
    ("ny-k=0", lambda: _ny(k=0), ValueError, _K_ZERO),
    ("mf-k-float", lambda: _mf(k=2.0), TypeError, r"k must be an integer"),
    ("mf-alpha0", lambda: _mf(alpha=0.0), ValueError, r"alpha = 0 is not allowed"),
    ("mf-alpha2.5", lambda: _mf(alpha=2.5), ValueError, r"alpha = 2.5 is not allowed"),
    ("ny-alpha-nan", lambda: _ny(alpha=np.nan), ValueError, r"alpha = NaN is not allowed"),
    ("landmarks", lambda: _ny(landmarks="farthest"), ValueError, r"landmarks must be 'k-means\+\+' or"),
    ("mf-algorithm", lambda: _mf(algorithm="elkan"), ValueError, r"algorithm must be one of"),
    ("ny-algorithm", lambda: _ny(algorithm="elkan"), ValueError, r"algorithm must be one of"),
    ("mf-semimetric", lambda: _mf(semimetric="cosine"), ValueError, r"semimetric must be one of"),
    ("ny-semimetric", lambda: _ny(semimetric="cosine"), ValueError, r"semimetric must be one of"),
    ("features-semimetric", lambda: nystrom_features(_X, 5, semimetric="l1"), ValueError, r"semimetric"),
    ("mf-init", lambda: _mf(init="kmeans"), ValueError, r"init must be"),
    ("mf-empty-cluster", lambda: _mf(k=3, init=np.zeros(50, np.int64)), ValueError, r"cluster 1 empty"),
    ("ny-label-range", lambda: _ny(init=np.full(50, 2)), ValueError, _LABEL_RANGE),
    ("mf-weights", lambda: _mf(weights=-np.ones(50)), ValueError, r"weights\[0\] = -1"),
    ("ny-weights", lambda: _ny(weights=np.ones(49)), ValueError, _WEIGHTS_LENGTH),
    ("mf-3d", lambda: _mf(_X[None]), ValueError, r"1-D or 2-D"),
    ("mf-empty", lambda: _mf(np.empty((0, 3)), k=1), ValueError, r"at least one row"),
    ("ny-complex", lambda: _ny(_X.astype(complex)), TypeError, r"real numbers"),
    ("mf-n_threads", lambda: _mf(n_threads=0), ValueError, r"n_threads"),
    ("ny-n_threads", lambda: _ny(n_threads=0), ValueError, r"n_threads"),
    ("ny-rcond", lambda: nystrom_features(_X, 10, rcond=np.nan), ValueError, r"rcond"),
    ("mf-same-points", lambda: _mf(np.ones((10, 2)), semimetric="gaussian"), ValueError, r"pass sigma"),
    ("ny-same-points", lambda: _ny(np.ones((10, 2)), m=5, semimetric="gaussian"), ValueError, r"pass sigma"),
]
for _kind in ("exponential", "gaussian"):
    for _sigma in (np.nan, np.inf, -np.inf, 0.0, -1.0):
        BAD_INPUT += [
            (
                f"mf-{_kind}-sigma{_sigma}",
                lambda s=_sigma, kind=_kind: _mf(semimetric=kind, sigma=s),
                ValueError,
                r"invalid `sigma`: sigma = .* the bandwidth must be finite and > 0",
            ),
            (
                f"ny-{_kind}-sigma{_sigma}",
                lambda s=_sigma, kind=_kind: _ny(semimetric=kind, sigma=s),
                ValueError,
                r"invalid `sigma`: sigma = .* the bandwidth must be finite and > 0",
            ),
        ]


@pytest.mark.parametrize(
    ("call", "error", "match"), [b[1:] for b in BAD_INPUT], ids=[b[0] for b in BAD_INPUT]
)
def test_bad_input_raises_clear_errors(call: Callable[[], Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_nan_check_does_not_warn() -> None:
    """The NaN check comes before Nyström centres the data (no RuntimeWarning from numpy)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="NaN or infinity"):
            _ny(_with(np.inf, 1, 1))


# ------------------------------------------------------------------------------ Ctrl-C

LATENCY = 1.5  # seconds from the interrupt to the KeyboardInterrupt


def interrupted_after_main(call: Callable[[], Any], delay: float = 0.5) -> float:
    """Seconds from ``_thread.interrupt_main()``, ``delay`` s into ``call``, to the
    KeyboardInterrupt."""
    return interrupted_after(call, interrupt_main, delay)


def eq56(n: int, seed: int = 0) -> Float:
    """The paper's eq. 56 data: two Gaussians in D = 10, mu_2 = 0.7 (1, ..., 1)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    return rng.normal(size=(n, 10)) + 0.7 * truth[:, None]


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
def test_ctrl_c_stops_a_matrix_free_run(algorithm: str) -> None:
    """n = 20 000 (more if the machine is fast), D = 10, 4 starts: the run takes > 3 s."""
    n_init, cores = 4, os.cpu_count() or 1
    # Calibrate on 5 000 points: every stage costs O(n^2 D) (the cluster sums; the moves, about
    # proportional to n, each compute a row of n), so the time grows like n^2.
    began = time.perf_counter()
    kernel_kgroups_from_data(eq56(5_000), 2, algorithm=algorithm, random_state=0)
    per_start = time.perf_counter() - began
    n = 20_000
    if (n / 5_000) ** 2 * per_start * n_init / cores < 4.0:
        n = min(80_000, int(5_000 * np.sqrt(4.0 * cores / (n_init * per_start))))
    estimate = (n / 5_000) ** 2 * per_start * n_init / cores
    assert estimate > 3.0, f"the full run (n = {n}) would take only about {estimate:.1f} s"
    X = eq56(n)
    latency = interrupted_after_main(
        lambda: kernel_kgroups_from_data(X, 2, algorithm=algorithm, n_init=n_init, random_state=0)
    )
    assert latency < LATENCY, f"KeyboardInterrupt came {latency:.2f} s after the signal (n = {n})"
    # The module still works afterwards.
    assert kernel_kgroups_from_data(X[:100], 2, random_state=0).converged


@pytest.fixture(scope="module")
def mixture_1m() -> Float:
    """10 Gaussian components in D = 10, n = 1 000 000 (as in the Nyström benchmark)."""
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 10, 1_000_000)
    return rng.normal(size=(1_000_000, 10)) + 4.0 * np.eye(10)[truth]


def test_ctrl_c_stops_nystrom_during_landmark_selection(mixture_1m: Float) -> None:
    """k-means++ landmarks over 10^6 points: the interrupt lands in the landmark selection."""
    began = time.perf_counter()
    _core.select_landmarks(mixture_1m[:100_000], 256, "k-means++", "power", 1.0, None, 0)
    per_landmark = (time.perf_counter() - began) * 10 / 256  # selection costs O(n m)
    m = 256 if 256 * per_landmark > 4.0 else min(2048, int(4.0 / per_landmark))
    assert m * per_landmark > 3.0, f"selecting the landmarks would take only {m * per_landmark:.1f} s"
    latency = interrupted_after_main(
        lambda: kernel_kgroups_nystrom(mixture_1m, 10, n_components=m, landmarks="k-means++", random_state=0)
    )
    assert latency < LATENCY, f"KeyboardInterrupt came {latency:.2f} s after the signal (m = {m})"


def test_ctrl_c_stops_nystrom_while_forming_features(mixture_1m: Float) -> None:
    """Uniform landmarks are instant, so the interrupt lands in the chunked feature products."""
    began = time.perf_counter()
    nystrom_features(mixture_1m[:40_000], 256, landmarks="uniform", random_state=0)
    per_point = (time.perf_counter() - began) / 40_000  # forming the features costs O(n m^2)
    # Enough points for about 3 s on this machine (at least 400 000, at most all 10^6).
    n = min(1_000_000, max(400_000, int(3.0 / per_point)))
    estimate = n * per_point
    assert estimate > 2.0, f"forming the features would take only about {estimate:.1f} s"
    X = mixture_1m[:n]
    latency = interrupted_after_main(lambda: nystrom_features(X, 256, landmarks="uniform", random_state=0))
    assert latency < LATENCY, f"KeyboardInterrupt came {latency:.2f} s after the signal"


@pytest.mark.slow
def test_ctrl_c_stops_nystrom_while_clustering() -> None:
    """The interrupt is sent 0.3 s after the first sweep of a long multi-start run."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200_000, 5))  # no cluster structure: Hartigan needs many sweeps
    sent: list[float] = []
    sweeps: list[float] = []
    timer: list[threading.Timer] = []

    def fire() -> None:
        sent.append(time.perf_counter())
        _thread.interrupt_main()

    def progress(*_: Any) -> None:
        sweeps.append(time.perf_counter())
        if not timer:
            timer.append(threading.Timer(0.3, fire))
            timer[0].start()

    try:
        with pytest.raises(KeyboardInterrupt):
            kernel_kgroups_nystrom(
                X, 20, n_components=64, landmarks="uniform", n_init=4, max_iter=10_000, random_state=0,
                progress=progress,
            )
        raised = time.perf_counter()
    finally:
        for t in timer:
            t.cancel()
            t.join()
    assert sent, "the run ended before the interrupt was sent"
    assert len(sweeps) >= 1
    assert raised - sent[0] < LATENCY, f"KeyboardInterrupt came {raised - sent[0]:.2f} s after the signal"
