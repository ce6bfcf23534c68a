"""``kernel="auto"`` of :class:`~kgroups_rs.KernelKGroups` and :class:`~kgroups_rs.KernelKMeans`.

:func:`~kgroups_rs.select_k` chooses the kernel (and, with ``n_clusters="auto"``, k). When it
chooses the energy kernel (or finds one group) the estimator fits exactly as with
``kernel="energy"``; when it chooses the kNN graph, the partition is the normalised cut of
the graph of the 10 nearest neighbours, and ``predict`` is a 10-nearest-neighbour vote among
the training points.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from .selection import SelectionResult, select_k

#: Neighbours of the kNN graph (select_k's) and of the vote of ``predict``.
N_NEIGHBORS = 10
#: The smallest k range of the selection: 1 ... max(this, n_clusters) (capped at n_samples).
MIN_K_MAX = 10

KNN_HAS_NO_KERNEL = (
    "kernel='auto' chose the kNN graph (kernel_='knn'), which defines no distance from a new "
    "point to a cluster: transform, score and fit_transform need kernel_='energy'; predict works"
)

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]

#: Fitted attributes of a kernel fit, which a kNN fit does not have.
_KERNEL_FIT_ATTRIBUTES = (
    "objective_", "within_", "n_iter_", "converged_", "mean_", "kernel_storage_", "sigma_",
    "sigma_selection_", "_X_fit", "_support", "_assign", "_mean_sq_norms",
)  # fmt: skip


def choose_kernel(estimator: Any, X: _Float, w: Optional[_Float]) -> tuple[SelectionResult, str, int]:
    """``(selection, kernel, k)`` of ``kernel="auto"``: :func:`select_k` on ``X`` for
    k = 1 ... 10 (capped at n_samples) with ``n_clusters="auto"``, or with k = n_clusters
    given (then it compares only the kernels at that k); the kernel it chose ("energy" also
    when it found one group, or for one cluster) and the number of clusters to fit."""
    if w is not None and not bool(np.all(w == 1.0)):
        raise ValueError(
            "kernel='auto' does not take sample_weight other than all ones (select_k has no "
            "weights); choose the kernel, e.g. kernel='energy'"
        )
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"kernel='auto' needs at least 2 samples, got n_samples = {n}")
    wanted = None if isinstance(estimator.n_clusters, str) else int(estimator.n_clusters)
    if wanted is not None and wanted > n:
        raise ValueError(f"n_clusters = {wanted} must be <= n_samples = {n} (the number of samples)")
    k_range: Any = wanted if wanted is not None else range(1, min(MIN_K_MAX, n) + 1)
    selection = select_k(
        X, k_range, kernel="auto", random_state=estimator.random_state, n_threads=estimator._threads(),
    )  # fmt: skip
    k = selection.k if wanted is None else wanted
    kernel = "knn" if selection.kernel == "knn" and k > 1 else "energy"
    return selection, kernel, k


def knn_labels(
    X: _Float, k: int, selection: SelectionResult, *, algorithm: Any, n_init: int, max_iter: int,
    random_state: Any, n_threads: Optional[int],
) -> _Int:  # fmt: skip
    """The kNN graph's partition of ``X`` into ``k`` clusters: select_k's partition when it
    chose this k, else the normalised cut of the same graph (10 neighbours; spectral start,
    ``n_init`` starts of ``algorithm``)."""
    from .graph import graph_partition
    from .neighbors import knn_kernel

    if selection.k == k:
        return np.asarray(selection.labels, dtype=np.int64)
    graph = knn_kernel(X, min(N_NEIGHBORS, X.shape[0] - 1), n_threads=n_threads)
    labels = graph_partition(
        graph, k, objective="normalized_cut", algorithm=algorithm, init="spectral", n_init=n_init,
        max_iter=max_iter, random_state=random_state, n_threads=n_threads,
    ).labels  # fmt: skip
    return np.asarray(labels, dtype=np.int64)


def fit_knn(estimator: Any, X: _Float, k: int, selection: SelectionResult) -> None:
    """The fitted attributes of the kNN graph's partition of ``X`` into ``k`` clusters
    (:func:`knn_labels` with the estimator's search, ``n_init`` and ``max_iter``)."""
    from sklearn.neighbors import NearestNeighbors

    labels = knn_labels(
        X, k, selection, algorithm=estimator._search, n_init=int(estimator.n_init),
        max_iter=int(estimator.max_iter), random_state=estimator.random_state,
        n_threads=estimator._threads(),
    )  # fmt: skip
    for name in _KERNEL_FIT_ATTRIBUTES:
        estimator.__dict__.pop(name, None)
    estimator.labels_ = np.asarray(labels, dtype=np.int64)
    estimator.cluster_sizes_ = np.bincount(estimator.labels_, minlength=k).astype(np.int64)
    estimator.cluster_weights_ = estimator.cluster_sizes_.astype(np.float64)
    threads = estimator._threads()
    estimator._neighbors = NearestNeighbors(n_neighbors=min(N_NEIGHBORS, X.shape[0])).set_params(
        n_jobs=-1 if threads is None else threads
    ).fit(X)  # fmt: skip


def predict_knn(estimator: Any, X: _Float) -> _Int:
    """The majority label of the 10 nearest training points of each row of ``X``; a tie goes
    to the tied label met first in order of distance (that of the nearest tied point)."""
    if X.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    neighbours = estimator._neighbors.kneighbors(X, return_distance=False)  # sorted by distance
    votes = estimator.labels_[neighbours]  # (m, 10)
    rows = np.arange(X.shape[0])
    counts = np.zeros((X.shape[0], estimator.n_clusters_), dtype=np.int64)
    np.add.at(counts, (rows[:, None], votes), 1)
    top = counts[rows[:, None], votes] == counts.max(axis=1)[:, None]
    return np.asarray(votes[rows, np.argmax(top, axis=1)], dtype=np.int64)
