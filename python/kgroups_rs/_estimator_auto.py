"""``kernel="auto"`` and ``kernel="knn"`` of :class:`~kgroups_rs.KernelKGroups` and
:class:`~kgroups_rs.KernelKMeans`, and the kernel of the default ``kernel=None``.

:func:`resolved_kernel` is the one place that says which kernel the default means (the
estimators, the Dask estimator and the command line ask it): the energy kernel when the
number of clusters is given, the kernel chosen from the data (as ``kernel="auto"``) with
``n_clusters="auto"``.

:func:`~kgroups_rs.select_k` chooses the kernel (and, with ``n_clusters="auto"``, k). When it
chooses the energy kernel (or finds one group) the estimator fits exactly as with
``kernel="energy"``; when it chooses the kNN graph, or ``kernel="knn"`` is asked for, the
partition is the normalised cut of the graph of the 10 nearest neighbours, and ``predict`` is
the core's 10-nearest-neighbour vote among the training points.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from . import _core
from ._estimator_helpers import select_n_clusters
from .selection import DEFAULTS, SelectionResult, default_k_range, select_k

KNN_HAS_NO_KERNEL = (
    "the kNN graph (kernel_='knn': kernel='knn', or the choice of kernel='auto') defines no "
    "distance from a new point to a cluster: transform, score and fit_transform need a kernel "
    "such as kernel='energy'; predict works"
)

#: Why a ValueError of the default kernel with ``n_clusters="auto"`` speaks of kernel='auto'.
DEFAULT_KERNEL_NOTE = "kernel=None, the default, is kernel='auto' when n_clusters='auto'"

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]

#: Fitted attributes of a kernel fit, which a kNN fit does not have.
_KERNEL_FIT_ATTRIBUTES = (
    "objective_", "within_", "n_iter_", "converged_", "mean_", "kernel_storage_", "sigma_",
    "sigma_selection_", "_X_fit", "_support", "_assign", "_mean_sq_norms",
)  # fmt: skip


def resolved_kernel(kernel: Optional[str], n_clusters: Any) -> str:
    """The kernel a fit uses for the ``kernel`` parameter: the kernel named, or for the
    default ``None`` "energy" when ``n_clusters`` is a number and "auto" (chosen from the
    data) when it is ``"auto"``."""
    if kernel is not None:
        return kernel
    return "auto" if isinstance(n_clusters, str) and n_clusters == "auto" else "energy"


@contextmanager
def naming_the_default_kernel(kernel: Optional[str], n_clusters: Any) -> Iterator[None]:
    """A ValueError raised inside says, when the kernel is the default ``None`` that
    ``n_clusters="auto"`` makes ``"auto"``, why it speaks of kernel='auto'."""
    try:
        yield
    except ValueError as error:
        if kernel is None and resolved_kernel(kernel, n_clusters) == "auto":
            raise ValueError(f"{error} ({DEFAULT_KERNEL_NOTE})") from error
        raise


def refuse_weights(w: Optional[_Float], setting: str) -> None:
    """Refuse sample weights other than all ones for ``setting`` (a kernel chosen by
    :func:`select_k`, or the kNN graph, which take no weights)."""
    if w is not None and not bool(np.all(w == 1.0)):
        raise ValueError(
            f"{setting} does not take sample_weight other than all ones (select_k and the kNN "
            "graph have no weights); choose a kernel such as kernel='energy'"
        )


def choose_kernel(estimator: Any, X: _Float, w: Optional[_Float]) -> tuple[SelectionResult, str, int]:
    """``(selection, kernel, k)`` of ``kernel="auto"``: :func:`select_k` on ``X`` for
    k = 1 ... 10 (capped at n_samples) with ``n_clusters="auto"``, or with k = n_clusters
    given (then it compares only the kernels at that k); the kernel it chose ("energy" also
    when it found one group, or for one cluster) and the number of clusters to fit."""
    refuse_weights(w, "kernel='auto'")
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"kernel='auto' needs at least 2 samples, got n_samples = {n}")
    wanted = None if isinstance(estimator.n_clusters, str) else int(estimator.n_clusters)
    if wanted is not None and wanted > n:
        raise ValueError(f"n_clusters = {wanted} must be <= n_samples = {n} (the number of samples)")
    k_range: Any = wanted if wanted is not None else default_k_range(n)
    selection = select_k(
        X, k_range, kernel="auto", random_state=estimator.random_state, n_threads=estimator._threads(),
    )  # fmt: skip
    k = selection.k if wanted is None else wanted
    kernel = "knn" if selection.kernel == "knn" and k > 1 else "energy"
    return selection, kernel, k


def knn_clusters(estimator: Any, X: _Float, w: Optional[_Float]) -> tuple[Optional[SelectionResult], int]:
    """``(selection, k)`` of ``kernel="knn"``: with ``n_clusters="auto"``, :func:`select_k`
    with ``kernel="knn"`` on ``X`` for k = 1 ... min(10, n_samples) and the k it chose; else
    no selection and ``n_clusters``."""
    refuse_weights(w, "kernel='knn'")
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"kernel='knn' needs at least 2 samples, got n_samples = {n}")
    if isinstance(estimator.n_clusters, str):
        selection = select_n_clusters(X, None, "knn", estimator.random_state, estimator._threads())
        return selection, int(selection.k)
    k = int(estimator.n_clusters)
    if k > n:
        raise ValueError(f"n_clusters = {k} must be <= n_samples = {n} (the number of samples)")
    return None, k


def knn_labels(
    X: _Float, k: int, selection: Optional[SelectionResult], *, random_state: Any, n_threads: Optional[int]
) -> _Int:
    """The kNN graph's partition of ``X`` into ``k`` clusters: select_k's partition when it
    chose this k, one cluster for k = 1, else the core's (``select_k(X, k, kernel="knn")``:
    the normalised cut of the 10-neighbour graph from its spectral start, on a sample of at
    most 2 000 points extended to every point by the 10-neighbour vote and refined)."""
    if selection is not None and selection.k == k:
        return np.asarray(selection.labels, dtype=np.int64)
    if k == 1:
        return np.zeros(X.shape[0], dtype=np.int64)
    given = select_k(X, k, kernel="knn", random_state=random_state, n_threads=n_threads)
    return np.asarray(given.labels, dtype=np.int64)


def fit_knn(estimator: Any, X: _Float, k: int, selection: Optional[SelectionResult]) -> None:
    """The fitted attributes of the kNN graph's partition of ``X`` into ``k`` clusters
    (:func:`knn_labels`), and the training points that :func:`predict_knn` votes among."""
    labels = knn_labels(X, k, selection, random_state=estimator.random_state, n_threads=estimator._threads())
    for name in _KERNEL_FIT_ATTRIBUTES:
        estimator.__dict__.pop(name, None)
    estimator.labels_ = np.ascontiguousarray(labels, dtype=np.int64)
    estimator.cluster_sizes_ = np.bincount(estimator.labels_, minlength=k).astype(np.int64)
    estimator.cluster_weights_ = estimator.cluster_sizes_.astype(np.float64)
    estimator._knn_points = np.ascontiguousarray(X, dtype=np.float64)


def predict_knn(estimator: Any, X: _Float) -> _Int:
    """The core's vote: the label most of the 10 nearest training points of each row of
    ``X`` hold (all of them when there are fewer), a tie going to the label of the nearest
    training point among the tied labels (a tie in distance to the first training point)."""
    if X.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    # C-contiguous and aligned: arrays unpickled by dask may be unaligned views of a buffer.
    voted = _core.knn_vote(
        np.require(X, np.float64, ["C", "A"]), np.require(estimator._knn_points, np.float64, ["C", "A"]),
        np.require(estimator.labels_, np.int64, ["C", "A"]), int(estimator.n_clusters_),
        DEFAULTS["n_neighbors"], estimator._threads(),
    )  # fmt: skip
    return np.asarray(voted, dtype=np.int64)
