"""The public functions: :func:`kernel_kgroups_nystrom` and :func:`kernel_kgroups_features`."""

from __future__ import annotations

import math
from typing import Any, Literal, Optional, Union

import dask
import numpy as np

from .. import _core
from .._kernel_options import (
    LANDMARKS,
    SEMIMETRICS,
    Landmarks,
    Semimetric,
    check_choice,
    check_semimetric_parameters,
)
from .._progress import ProgressCallback
from .._validation import Init, RandomState, check_int, check_n_threads, seed_from_random_state
from ..gram import energy_gram
from ..sigma_selection import auto_sigma
from ._features import DaskAlgorithm, NystromMap, features_block, first_bad
from ._inputs import as_row_chunked, raise_first_bad, row_blocks, worker_memory
from ._result import DaskClusteringResult
from ._rounds import cluster

#: Rows of X brought to the client to choose the landmarks and the starts.
SAMPLE_ROWS = 20_000
#: Features are persisted when they take at most this share of the workers' memory.
_PERSIST_SHARE = 0.25
#: Largest allowed n_init (each start keeps its labels on the workers).
_MAX_N_INIT = 1000


def _check_common(
    algorithm: Any, n_init: Any, max_iter: Any, progress: Any
) -> tuple[DaskAlgorithm, int, int]:
    if algorithm == "hartigan" or algorithm == "lloyd":
        search: DaskAlgorithm = algorithm
    else:
        raise ValueError(f"algorithm must be one of 'hartigan', 'lloyd'; got {algorithm!r}")
    n_init = check_int(n_init, "n_init", 1, _MAX_N_INIT)
    max_iter = check_int(max_iter, "max_iter", 1)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable progress(start, round, moves, objective)")
    return search, n_init, max_iter


def kernel_kgroups_features(
    features: Any,
    k: int,
    init: Any,
    *,
    algorithm: DaskAlgorithm = "hartigan",
    weights: Any = None,
    max_iter: int = 300,
    n_threads: Optional[int] = 1,
    progress: Optional[ProgressCallback] = None,
) -> DaskClusteringResult:
    """Distributed kernel k-groups for the low-rank kernel ``G = Phi Phi^T`` of given features.

    The rounds of :func:`kernel_kgroups_nystrom` on features ``Phi`` (a dask array, n x r,
    chunked along rows) from given initial labels: each chunk makes one sequential Hartigan
    sweep against the broadcast cluster feature sums ``S_l = sum_{y in C_l} w_y phi_y``, and
    the client keeps the chunks' moves only while the objective ``Q = sum_l ||S_l||^2 / s_l``
    does not fall. With one chunk this is the single-machine search on the same features.

    Parameters
    ----------
    features : dask.array.Array of shape (n, r)
        The features (finite), chunked along rows only.
    k : int
        Number of clusters, ``1 <= k <= n``.
    init : dask.array.Array of int of shape (n,)
        Initial labels in ``0..k-1``, no cluster empty (rechunked like the features' rows).
    algorithm, weights, max_iter, n_threads, progress
        As in :func:`kernel_kgroups_nystrom`.

    Returns
    -------
    DaskClusteringResult
        Without a feature map (``feature_map`` is None).
    """
    search, _, max_iter = _check_common(algorithm, 1, max_iter, progress)
    n_threads = check_n_threads(n_threads)
    phi = as_row_chunked(features, "features")
    k = check_int(k, "k", 1)
    if k > phi.shape[0]:
        raise ValueError(
            f"k = {k} is out of range; the number of clusters must satisfy 1 <= k <= n = {phi.shape[0]}"
        )
    if isinstance(init, str):
        raise ValueError("init must be initial labels (a dask array of int) for given features")
    return cluster(
        phi, k, init, algorithm=search, weights=weights, n_init=1, max_iter=max_iter, seed=0,
        progress=progress, sample_phi=None, feature_map=None, n_threads=n_threads,
    )


def kernel_kgroups_nystrom(
    X: Any,
    k: int,
    init: Init = "k-means++",
    *,
    n_components: int = 256,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Union[float, Literal["mean", "median", "auto"], None] = None,
    landmarks: Landmarks = "k-means++",
    algorithm: DaskAlgorithm = "hartigan",
    weights: Any = None,
    n_init: int = 1,
    max_iter: int = 300,
    random_state: RandomState = None,
    n_threads: Optional[int] = 1,
    persist_features: Optional[bool] = None,
    progress: Optional[ProgressCallback] = None,
) -> DaskClusteringResult:
    """Approximate kernel k-groups of a dask array with a Nyström low-rank kernel.

    The distributed counterpart of :func:`kgroups_rs.kernel_kgroups_nystrom`. The kernel is
    ``Phi Phi^T`` with ``Phi = K(X - mean, L) W^(-1/2)`` for m = ``n_components`` landmarks
    L chosen on a uniform sample of X; the objective ``Q = sum_l ||S_l||^2 / s_l`` over the
    clusters' weighted feature sums ``S_l`` is maximised by rounds in which every chunk makes
    a sequential Hartigan sweep of its points against the current sums, and the client keeps
    the chunks' moves only while Q does not fall (see the module's description). X, the
    features and the labels never leave the workers.

    Parameters
    ----------
    X : dask.array.Array of shape (n, D) or (n,)
        Data, chunked along rows only (one chunk spans all columns), with known chunk sizes.
        A numpy array is wrapped with dask's automatic chunks.
    k : int
        Number of clusters, ``1 <= k <= n``.
    init : "k-means++", "spectral" or dask.array.Array of int, default "k-means++"
        "k-means++": Hartigan's method from feature-space k-means++ on a sample of the
        features, then each point goes to the nearest of the sample's cluster means;
        "spectral": the top-k eigenvectors of ``W^(1/2) Phi Phi^T W^(1/2)``, from the r x r
        matrix ``Phi^T W Phi`` (one pass over the features), rows normalised, rounded as the
        single-machine spectral init rounds (k-means++ then Lloyd in the embedding, seeded
        per start) on the client's sample of rows, every point then going to the nearest
        of the sample's cluster means in the embedding; ``spectral_bound`` reports the sum
        of the k eigenvalues. Or the n initial labels in ``0..k-1`` (then ``n_init`` must
        be 1).
    n_components : int, default 256
        Number of landmarks m, ``k <= m <= n`` (and at most the sample size, 20 000).
    semimetric, alpha, sigma, landmarks
        As in :func:`kgroups_rs.nystrom_features` (``sigma=None`` or ``"mean"``: the root
        mean squared distance of X, from one pass over X; ``"median"``: the median rule on
        the uniform sample brought to the client, so for n above 20 000 it is drawn from
        other points than on one machine; ``"auto"``: :func:`kgroups_rs.choose_sigma` for
        k groups on that sample (it scores its candidates on a seeded subsample of 2000 of
        its points)).
    algorithm : {"hartigan", "lloyd"}, default "hartigan"
        Kernel k-groups (one Hartigan sweep per chunk and round) or kernel k-means (one batch
        nearest-mean assignment per round).
    weights : dask.array.Array of shape (n,), optional
        Point weights ``w_i > 0`` (default all 1).
    n_init : int, default 1
        Starts, run together (their tasks share each round); the largest objective wins.
    max_iter : int, default 300
        Maximum number of rounds per start.
    random_state : None, int, numpy Generator or RandomState
        Seed of the sample, the landmarks and the starts. The same seed and chunking give the
        same result.
    n_threads : int or None, default 1
        Threads each task's Rust work uses on its worker (the features' kernel, the sweeps'
        bookkeeping). 1 suits dask's one task per worker thread; None uses all of the worker
        machine's cores. The client's own work (landmarks, the sample's start) uses all of its
        cores.
    persist_features : bool, optional
        Keep the features on the workers (8 n r bytes) or recompute them from X in every
        round. Default: persist when they take at most a quarter of the workers' memory.
    progress : callable, optional
        ``progress(start, round, moves, objective)`` after every round.

    Returns
    -------
    DaskClusteringResult
        ``labels`` (a lazy dask array), ``objective``, ``within``, ``objective_history``,
        ``n_iter``, ``n_moves``, ``converged``, ``approximate=True``.

    Raises
    ------
    ValueError
        For NaN/inf in X, k out of range, ``n_components < k``, X chunked along its columns
        or with unknown chunk sizes, bad labels or weights.
    """
    search, n_init, max_iter = _check_common(algorithm, n_init, max_iter, progress)
    n_threads = check_n_threads(n_threads)
    semimetric_name = check_choice(semimetric, "semimetric", SEMIMETRICS)
    check_semimetric_parameters(semimetric_name, alpha, sigma)
    if landmarks not in LANDMARKS:
        raise ValueError(f"landmarks must be 'k-means++' or 'uniform', got {landmarks!r}")
    X = as_row_chunked(X)
    n = X.shape[0]
    k = check_int(k, "k", 1)
    if k > n:
        raise ValueError(f"k = {k} is out of range; the number of clusters must satisfy 1 <= k <= n = {n}")
    m = check_int(n_components, "n_components", 1)
    if m < k:
        raise ValueError(f"n_components = {m} is smaller than k = {k}; use k <= n_components <= n")
    if m > min(n, SAMPLE_ROWS):
        raise ValueError(
            f"n_components = {m} exceeds the number of points n = {n} (or the sample of "
            f"{SAMPLE_ROWS} rows the landmarks are chosen from)"
        )
    if isinstance(sigma, str):
        check_choice(sigma, "sigma", ("mean", "median", "auto"))
    elif sigma is not None and not (isinstance(sigma, (int, float, np.floating)) and float(sigma) > 0):
        raise ValueError(
            f"sigma must be a positive number, 'mean', 'median', 'auto' or None, got {sigma!r}"
        )
    if isinstance(init, str) and init not in ("k-means++", "spectral"):
        raise ValueError(
            f"init must be 'k-means++', 'spectral' or initial labels (a dask array); got {init!r}"
        )
    seed = seed_from_random_state(random_state)

    # Pass 1: column means and the first non-finite value of every chunk.
    offsets = [0, *np.cumsum(X.chunks[0])[:-1].tolist()]
    bad = [dask.delayed(first_bad, pure=True)(b) for b in row_blocks(X)]
    mean, *bad_blocks = dask.compute(X.mean(axis=0), *bad)
    raise_first_bad(bad_blocks, offsets)
    mean = np.asarray(mean, dtype=np.float64)
    sigma_value = None if sigma is None or isinstance(sigma, str) else float(sigma)
    if sigma_value is None and sigma not in ("median", "auto") and semimetric_name != "power":
        spread = float(((X - mean) ** 2).sum(axis=1).mean().compute())
        sigma_value = math.sqrt(2.0 * spread) if spread > 0 else 1.0

    # The sample, the landmarks and W^(-1/2) on the client.
    rng = np.random.default_rng(seed)
    size = min(n, SAMPLE_ROWS)
    rows = np.sort(rng.choice(n, size=size, replace=False)) if size < n else np.arange(n)
    raw_sample = np.asarray(X[rows].compute(), dtype=np.float64)
    sample = np.ascontiguousarray(raw_sample - mean)
    if sigma == "median" and semimetric_name != "power":
        # The rule on the client's uniform sample (the rule itself uses at most 2000 points,
        # drawn with a fixed seed), so X is read no further.
        sigma_value = float(_core.bandwidth(sample, "median", None))
    elif sigma == "auto" and semimetric_name != "power":
        sigma_value = auto_sigma(sample, k, semimetric_name)
    chosen = _core.select_landmarks(
        sample, m, landmarks, semimetric_name, float(alpha), sigma_value, seed, n_threads=None
    )
    anchors = np.ascontiguousarray(sample[np.asarray(chosen)])
    W = energy_gram(anchors, semimetric=semimetric_name, alpha=alpha, sigma=sigma_value, base="origin")
    eigenvalues, eigenvectors = np.linalg.eigh(W)
    keep = eigenvalues > 1e-10 * max(float(eigenvalues.max()), 0.0)
    if np.any(keep):
        transform = np.ascontiguousarray(eigenvectors[:, keep] / np.sqrt(eigenvalues[keep]))
    elif k == 1:
        # Every landmark is the same point in feature space (identical rows): the Nystrom
        # approximation of the kernel is zero, and one group holds every row whatever the
        # features. One feature, zero for every row.
        transform = np.zeros((anchors.shape[0], 1))
    else:
        raise ValueError("the landmark kernel has no positive eigenvalue; choose other landmarks")
    feature_map = NystromMap(mean, anchors, transform, semimetric_name, float(alpha), sigma_value)
    r = transform.shape[1]

    phi = X.map_blocks(
        features_block, feature_map, n_threads, dtype=np.float64, chunks=(X.chunks[0], (r,))
    )
    if persist_features is None:
        memory = worker_memory()
        persist_features = memory is None or 8.0 * n * r <= _PERSIST_SHARE * memory
    if persist_features:
        phi = phi.persist()
    sample_phi = feature_map.features(raw_sample, None)
    return cluster(
        phi, k, init, algorithm=search, weights=weights, n_init=n_init, max_iter=max_iter,
        seed=seed, progress=progress, sample_phi=sample_phi, feature_map=feature_map,
        n_threads=n_threads,
    )


