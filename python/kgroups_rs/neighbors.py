"""Sparse k-nearest-neighbour affinities: data ``X`` -> a symmetric scipy.sparse kernel.

The result feeds :func:`kgroups_rs.graph_partition` (as the adjacency ``A``) or
:func:`kgroups_rs.kernel_kgroups` (as a sparse kernel ``G``). scikit-learn and scipy are
imported only when :func:`knn_kernel` is called; the core never depends on them.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal, Optional

import numpy as np

from ._validation import as_float_array, check_int, check_n_threads

__all__ = ["knn_kernel"]

_MODES = ("connectivity", "gaussian", "distance")
_SYMMETRIZE = ("union", "mutual", "mean")


def knn_kernel(
    X: Any,
    n_neighbors: int = 10,
    *,
    mode: Literal["connectivity", "gaussian", "distance"] = "connectivity",
    bandwidth: Optional[float] = None,
    symmetrize: Literal["union", "mutual", "mean"] = "union",
    include_self: bool = False,
    metric: str = "minkowski",
    n_threads: Optional[int] = None,
    n_jobs: Optional[int] = None,
) -> Any:
    """Symmetrised k-nearest-neighbour affinity of the rows of ``X``, as a CSR array.

    Built from scikit-learn's :func:`~sklearn.neighbors.kneighbors_graph` (a directed graph:
    ``i -> j`` when ``j`` is one of the ``n_neighbors`` nearest neighbours of ``i``), then
    weighted and made exactly symmetric.

    Parameters
    ----------
    X : array_like of shape (n, D)
        The data.
    n_neighbors : int, default 10
        Neighbours per point, ``1 <= n_neighbors < n`` (``<= n`` with ``include_self``).
    mode : {"connectivity", "gaussian", "distance"}, default "connectivity"
        Edge weight: 1; ``exp(-d^2 / (2 * bandwidth^2))`` with ``d`` the distance; or the
        distance itself (a dissimilarity: rarely what a kernel should hold).
    bandwidth : float, optional
        For ``mode="gaussian"``: the scale ``sigma`` (default: the median distance from a
        point to its neighbours, or 1 when all of those distances are 0).
    symmetrize : {"union", "mutual", "mean"}, default "union"
        ``"union"``: ``max(A, A.T)``, an edge when either point is a neighbour of the other
        (every node keeps degree >= ``n_neighbors``, so normalised cut applies);
        ``"mutual"``: ``min(A, A.T)``, only mutual neighbours (nodes can end up isolated);
        ``"mean"``: ``(A + A.T) / 2``.
    include_self : bool, default False
        Count each point as its own first neighbour (puts the point's weight on the
        diagonal: 1 for connectivity and gaussian, 0 for distance).
    metric : str, default "minkowski"
        Any metric :class:`~sklearn.neighbors.NearestNeighbors` accepts (Euclidean by
        default).
    n_threads : int, optional
        Threads of the neighbour search (default: all cores, as everywhere in this package).
    n_jobs : int, optional
        Deprecated since 0.2.0 (removed in 0.3.0): the same as ``n_threads``, under
        scikit-learn's name.

    Returns
    -------
    scipy.sparse.csr_array of float64, shape (n, n)
        Exactly symmetric (``A[i, j]`` and ``A[j, i]`` are the same float), canonical
        (sorted column indices, no duplicates), non-negative; int32 index arrays while the
        number of stored entries fits them.

    Raises
    ------
    ImportError
        If scikit-learn (or scipy) is not installed.
    ValueError
        For a bad ``n_neighbors``, ``mode``, ``symmetrize`` or ``bandwidth``, or NaN/inf in X.

    Examples
    --------
    >>> import numpy as np, kgroups_rs
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.1, (20, 2)), rng.normal(5, 0.1, (20, 2))])
    >>> A = kgroups_rs.knn_kernel(X, n_neighbors=5)
    >>> bool((A != A.T).nnz == 0)
    True
    >>> labels = kgroups_rs.graph_partition(A, 2, n_init=5, random_state=0).labels
    >>> len(set(labels[:20])) == 1 and len(set(labels[20:])) == 1
    True
    """
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    threads = check_n_threads(n_threads)
    if n_jobs is not None:
        if n_threads is not None:
            raise ValueError("pass n_threads only (n_jobs is its deprecated name)")
        warnings.warn(
            "knn_kernel: `n_jobs` is deprecated since 0.2.0 and will be removed in 0.3.0; use n_threads",
            FutureWarning,
            stacklevel=2,
        )
        threads = None if n_jobs == -1 else check_n_threads(n_jobs)
    if symmetrize not in _SYMMETRIZE:
        raise ValueError(f"symmetrize must be one of {_SYMMETRIZE}, got {symmetrize!r}")
    data = as_float_array(X, "X")
    if data.ndim != 2:
        raise ValueError(f"X must be a 2-D (n, D) array, got shape {data.shape}")
    n = data.shape[0]
    limit = n if include_self else n - 1
    n_neighbors = check_int(n_neighbors, "n_neighbors", 1)
    if n_neighbors > limit:
        raise ValueError(
            f"n_neighbors = {n_neighbors} is too large for n = {n} points; it must be <= {limit}"
        )
    if data.size and not np.all(np.isfinite(data)):
        raise ValueError("X contains NaN or infinity")
    if bandwidth is not None:
        bandwidth = float(bandwidth)
        if not (np.isfinite(bandwidth) and bandwidth > 0):
            raise ValueError(f"bandwidth must be finite and > 0, got {bandwidth}")
    try:
        import scipy.sparse
        from sklearn.neighbors import kneighbors_graph
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            'knn_kernel needs scikit-learn and scipy: pip install "kgroups_rs[sklearn]"'
            ' (from a source checkout: pip install ".[sklearn]")'
        ) from error

    graph_mode = "connectivity" if mode == "connectivity" else "distance"
    directed = kneighbors_graph(
        data,
        n_neighbors,
        mode=graph_mode,
        metric=metric,
        include_self=include_self,
        n_jobs=-1 if threads is None else threads,
    )
    A = scipy.sparse.csr_array(directed, dtype=np.float64)
    A.sum_duplicates()
    if not np.all(np.isfinite(A.data)):
        raise ValueError(
            "X: the distances between its points overflow float64 (its values are too large); "
            "rescale X"
        )
    if mode == "gaussian":
        # Weights from the stored distances (a stored 0 distance is a duplicate point: weight 1).
        distances = A.data
        if bandwidth is None:
            positive = distances[distances > 0]
            bandwidth = float(np.median(positive)) if positive.size else 1.0
        # (d / bandwidth)^2, not d^2 / bandwidth^2: the latter is 0/0 for a tiny bandwidth.
        with np.errstate(over="ignore"):
            A.data = np.exp(-0.5 * (distances / bandwidth) ** 2)
    if symmetrize == "union":
        S = A.maximum(A.T)
    elif symmetrize == "mutual":
        S = A.minimum(A.T)
    else:
        S = (A + A.T) * 0.5
    S = scipy.sparse.csr_array(S, dtype=np.float64)
    S.eliminate_zeros()
    S.sum_duplicates()
    S.sort_indices()
    if S.nnz <= np.iinfo(np.int32).max and n <= np.iinfo(np.int32).max:
        # scikit-learn's graph comes with int64 indices; int32 halves their memory (and the
        # clustering reads them once per sweep).
        S.indices = S.indices.astype(np.int32)
        S.indptr = S.indptr.astype(np.int32)
    return S
