"""Beyond the n x n matrix: exact matrix-free kernel k-groups from data, and Nyström
low-rank kernel k-groups for millions of points."""

from __future__ import annotations

import functools
from typing import Any, Literal, Optional, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._algorithm import Algorithm
from ._kernel_options import (
    LANDMARKS,
    SEMIMETRICS,
    Base,
    Landmarks,
    Semimetric,
    Sigma,
    as_points,
    check_choice,
    resolve_sigma,
)
from ._progress import ProgressCallback
from ._result import ClusteringResult
from ._run import run_clustering
from ._validation import (
    Init,
    RandomState,
    as_count,
    check_int,
    check_n_threads,
    seed_from_random_state,
    splitmix,
)
from .gram import energy_gram

__all__ = ["kernel_kgroups_from_data", "kernel_kgroups_nystrom", "nystrom_features"]

#: The base points the matrix-free path takes.
_DATA_BASES: tuple[Base, ...] = ("mean", "origin")

#: Multiply-adds per chunk of the feature product ``C_chunk @ transform`` (rows x m x r).
#: numpy's matmul holds the main thread until it returns, so Ctrl-C is only seen between
#: chunks: about 2^30 multiply-adds (a fraction of a second) bounds that delay for every m.
_NYSTROM_CHUNK_WORK = 2**30
_NYSTROM_CHUNK_MAX_ROWS = 65536
_NYSTROM_CHUNK_MIN_ROWS = 256


def kernel_kgroups_from_data(
    X: Any,
    k: int,
    init: Init = "k-means++",
    *,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Sigma = None,
    base: Literal["mean", "origin"] = "mean",
    algorithm: Algorithm = "hartigan",
    weights: Any = None,
    n_init: int = 1,
    max_iter: int = 300,
    random_state: RandomState = None,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, bool, None] = None,
) -> ClusteringResult:
    """Exact kernel k-groups on data without storing the n x n kernel matrix.

    The same algorithm and the same result as
    ``kernel_kgroups(energy_gram(X, ..., base=base), ...)`` (identical labels and objective
    for the same start: kernel entries are computed bit for bit the same way), but rows of the
    energy kernel ``G_ab = 1/2 [rho(x_a, x0) + rho(x_b, x0) - rho(x_a, x_b)]`` are computed
    when needed: the per-point cluster sums are built in one parallel pass over all pairs, and
    each move computes one row, O(n D). Memory is O(n D + n k) instead of 8 n^2 bytes.

    Parameters
    ----------
    X : array_like of shape (n, D) or (n,)
        Data (a 1-D array is n points in one dimension).
    k, init, weights, n_init, max_iter, random_state, n_threads, progress
        As in :func:`kernel_kgroups`.
    semimetric, alpha, sigma
        As in :func:`energy_gram` (``sigma`` None or "mean": :func:`bandwidth` of X; "median":
        ``bandwidth(X, "median")``; "auto": :func:`choose_sigma` for these k groups; sigma with the
        power semimetric, or alpha other than 1
        with the others, raises ValueError).
    base : {"mean", "origin"}, default "mean"
        The base point ``x0``: the mean of the points (translation invariant, accurate for
        data far from the origin) or 0. It changes the reported objective Q by a constant,
        not the labels or the within-cluster dispersion W. ``"centered"`` needs the whole
        semimetric matrix and is not available here.
    algorithm : {"hartigan", "lloyd", "lloyd-online"}
        Kernel k-groups (default) or kernel k-means (batch or online).

    Returns
    -------
    ClusteringResult
    """
    semimetric_name = check_choice(semimetric, "semimetric", SEMIMETRICS)
    base_name = check_choice(base, "base", _DATA_BASES)
    points = as_points(X, "X")
    sigma_value = resolve_sigma(sigma, points, semimetric_name, alpha=alpha, k=k)
    run = functools.partial(_core.cluster_data, points, semimetric_name, float(alpha), sigma_value, base_name)
    return run_clustering(
        run, k, init, algorithm=algorithm, weights=weights,
        n_init=n_init, max_iter=max_iter, random_state=random_state, n_threads=n_threads,
        progress=progress,
    )


def nystrom_features(
    X: Any,
    n_components: int = 256,
    *,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Sigma = None,
    landmarks: Landmarks = "k-means++",
    random_state: RandomState = None,
    rcond: float = 1e-10,
    n_threads: Optional[int] = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Nyström features ``Phi`` (n x r, r <= m) with ``Phi Phi^T ~ G``.

    The data are first centred (``rho`` is translation invariant, and the base point of the
    kernel becomes the data mean). With m landmarks ``L``, ``C = K(X, L)`` (n x m) and
    ``W = K(L, L)`` (m x m), ``Phi = C U_r diag(lambda_r)^(-1/2)`` where ``W = U diag(lambda) U^T``
    and only eigenvalues ``lambda > rcond * max(lambda)`` are kept (the rank-truncated
    pseudo-inverse square root). Then ``Phi Phi^T = C W^+ C^T``, exact on the landmarks' span;
    with every point a landmark it is ``G`` itself.

    Returns ``(Phi, landmark_indices)``.
    """
    semimetric_name = check_choice(semimetric, "semimetric", SEMIMETRICS)
    points = as_points(X, "X")
    n = points.shape[0]
    m = check_int(n_components, "n_components", 1)
    if m > n:
        raise ValueError(f"n_components = {m} exceeds the number of points n = {n}")
    if landmarks not in LANDMARKS:
        raise ValueError(f"landmarks must be 'k-means++' or 'uniform', got {landmarks!r}")
    n_threads = check_n_threads(n_threads)
    if not (isinstance(rcond, (int, float, np.floating, np.integer)) and 0.0 <= float(rcond) < 1.0):
        raise ValueError(f"rcond must be a number with 0 <= rcond < 1, got {rcond!r}")
    # Check before centring: one NaN or infinity would spread over its whole column, and the
    # core's message would then name the wrong entry.
    bad = np.flatnonzero(~np.isfinite(points))
    if bad.size:
        row, col = divmod(int(bad[0]), points.shape[1])
        raise ValueError(
            f"invalid `X`: X contains NaN or infinity at row {row}, column {col} "
            f"(value {points[row, col]}); all values must be finite"
        )
    centred = points - points.mean(axis=0)
    sigma_value = resolve_sigma(sigma, centred, semimetric_name, alpha=alpha)
    chosen = _core.select_landmarks(
        centred, m, landmarks, semimetric_name, float(alpha), sigma_value,
        seed_from_random_state(random_state), n_threads=n_threads,
    )
    if sigma_value is None and semimetric_name != "power":
        sigma_value = float(_core.bandwidth(centred))
    # The data are centred here, so base 0 is their mean (as the features always had).
    options: dict[str, Any] = dict(
        semimetric=semimetric_name, alpha=alpha, sigma=sigma_value, base="origin", n_threads=n_threads
    )
    anchors = centred[chosen]
    W = energy_gram(anchors, **options)
    eigenvalues, eigenvectors = np.linalg.eigh(W)
    keep = eigenvalues > rcond * max(float(eigenvalues.max()), 0.0)
    if not np.any(keep):
        raise ValueError("the landmark kernel has no positive eigenvalue; choose other landmarks")
    transform = eigenvectors[:, keep] / np.sqrt(eigenvalues[keep])
    features = np.empty((n, transform.shape[1]), dtype=np.float64)
    rows = _NYSTROM_CHUNK_WORK // (m * transform.shape[1])
    rows = min(_NYSTROM_CHUNK_MAX_ROWS, max(_NYSTROM_CHUNK_MIN_ROWS, rows))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        block = energy_gram(centred[start:stop], anchors, **options)
        np.matmul(block, transform, out=features[start:stop])
    return features, chosen


def kernel_kgroups_nystrom(
    X: Any,
    k: int,
    init: Init = "k-means++",
    *,
    n_components: int = 256,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Sigma = None,
    landmarks: Landmarks = "k-means++",
    algorithm: Algorithm = "hartigan",
    weights: Any = None,
    n_init: int = 1,
    max_iter: int = 300,
    random_state: RandomState = None,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, bool, None] = None,
) -> ClusteringResult:
    """Approximate kernel k-groups for very large n with a Nyström low-rank kernel.

    The kernel is replaced by ``Phi Phi^T`` (see :func:`nystrom_features`, m =
    ``n_components`` landmarks). Hartigan's method then runs on the rows of ``Phi`` with
    explicit weighted cluster means ``S_l = sum_{y in C_l} w_y phi_y``: evaluating a point
    costs O(k m), a move O(m), memory O(n m). The result is marked ``approximate=True``; its
    ``objective`` and ``within`` are those of the approximate kernel.

    Choosing m: the approximation error shrinks as m grows (m = n is exact). For clustering,
    m of a few hundred is usually enough when k is small (m >= 10 k is a sensible floor); check
    by comparing the labels for two values of m (e.g. 256 and 1024) on a subsample. Time grows
    linearly in m, memory is 8 n m bytes. ``landmarks="k-means++"`` (D^2 sampling in feature
    space) covers small clusters better than ``"uniform"``.

    Parameters
    ----------
    X, k, init, weights, n_init, max_iter, random_state, n_threads, progress, algorithm
        As in :func:`kernel_kgroups_from_data`.
    n_components : int, default 256
        Number of landmarks m, ``k <= m <= n``.
    semimetric, alpha, sigma, landmarks
        As in :func:`nystrom_features` (``sigma="auto"``: :func:`choose_sigma` for k groups).
    """
    points = as_points(X, "X")
    n = points.shape[0]
    # Checked before the features are computed (the core checks k again when clustering).
    k_checked = as_count(k, "k")
    if not 1 <= k_checked <= n:
        raise ValueError(f"k must be between 1 and n = {n} (the number of points), got {k_checked}")
    m = check_int(n_components, "n_components", 1)
    if m < k_checked:
        raise ValueError(
            f"n_components must be between k = {k_checked} and n = {n} (the number of points), got {m}"
        )
    if isinstance(sigma, str) and sigma == "auto" and semimetric in ("exponential", "gaussian"):
        sigma = resolve_sigma(sigma, points, semimetric, alpha=alpha, k=k_checked)
    seed = seed_from_random_state(random_state)
    features, _ = nystrom_features(
        points, m, semimetric=semimetric, alpha=alpha, sigma=sigma, landmarks=landmarks,
        random_state=seed, n_threads=n_threads,
    )
    run = functools.partial(_core.cluster_features, features)
    return run_clustering(
        run, k_checked, init, algorithm=algorithm, weights=weights,
        n_init=n_init, max_iter=max_iter, random_state=splitmix(seed), n_threads=n_threads,
        progress=progress, approximate=True,
    )
