"""The estimators' numerical pieces that need no scikit-learn: the sample weights, their
power-of-two scale, and the clusters as weighted means in the kernel's feature space (the
nearest-mean rule of ``predict``)."""

from __future__ import annotations

import numbers
from typing import Any, Literal, Optional

import numpy as np
import numpy.typing as npt

from .gram import bandwidth

__all__ = [
    "BLOCK_ELEMENTS",
    "check_sample_weight",
    "cluster_means",
    "default_sigma",
    "mean_distances",
    "nearest_mean",
    "power_of_two_scale",
]

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]

#: Kernel entries per block when multiplying kernel rows (bounds the temporary memory: 32 MiB).
BLOCK_ELEMENTS = 1 << 22


def check_sample_weight(sample_weight: Any, n: int) -> Optional[_Float]:
    """``None`` (unit weights) or a float64 vector of ``n`` finite weights ``>= 0``, not all 0.

    Hand-written rather than scikit-learn's ``_check_sample_weight`` (private): these
    messages name each rule, and an all-zero vector is refused here, not deep in the core.
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Real):
        w = np.full(n, float(sample_weight))
    else:
        if np.asarray(sample_weight).dtype.kind == "c":
            raise TypeError("sample_weight must hold real numbers, got complex values")
        w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape (n_samples,) = ({n},), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight must be finite (no NaN or inf)")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative")
    if not np.any(w > 0):
        raise ValueError("sample_weight is zero for every sample; at least one weight must be positive")
    return w


def power_of_two_scale(w: Optional[_Float]) -> tuple[Optional[_Float], int]:
    """``(w / 2**e, e)`` with ``2**e`` near the largest weight (exact): the clustering does not
    depend on a common scale of the weights, but its figures ``sum_ab w_a w_b K_ab`` would
    leave the range of float64 for extreme scales. ``(None, 0)`` for unit weights."""
    if w is None:
        return None, 0
    exponent = int(np.frexp(w.max())[1]) - 1
    return np.ldexp(w, -exponent), exponent


def _kernel_times(K: Any, A: _Float) -> _Float:
    """``K @ A`` in float64 for a dense (f64/f32) or scipy.sparse ``K``, in row blocks."""
    if not isinstance(K, np.ndarray):  # scipy.sparse
        return np.asarray(K @ A, dtype=np.float64)
    out = np.empty((K.shape[0], A.shape[1]), dtype=np.float64)
    step = max(1, BLOCK_ELEMENTS // max(1, K.shape[1]))
    for start in range(0, K.shape[0], step):
        block = K[start : start + step]
        out[start : start + step] = np.asarray(block, dtype=np.float64) @ A
    return out



def cluster_means(
    labels: _Int, weights: Optional[_Float], cluster_terms: _Float, k: int
) -> tuple[_Float, _Float, _Float]:
    """The clusters of a clustering result as weighted feature-space means.

    Returns ``(s, assign, mean_sq_norms)``: the weight ``s_l`` of each cluster, the
    ``(n, k)`` matrix ``assign[i, l] = w_i [label_i = l] / s_l`` (so ``K @ assign`` gives the
    mean kernel of each cluster) and ``||mu_l||^2 = Q_l / s_l^2`` from the cluster terms
    ``Q_l`` of the result (no further pass over the kernel). ``weights=None``: unit weights.
    """
    n = labels.size
    A = np.zeros((n, k))
    A[np.arange(n), labels] = 1.0 if weights is None else weights
    s = A.sum(axis=0)
    return s, A / s, np.asarray(cluster_terms, dtype=np.float64) / s**2


def mean_distances(K: Any, assign: _Float, mean_sq_norms: _Float, self_kernel: _Float) -> _Float:
    """``D[i, l] = ||phi(x_i) - mu_l||^2 = K(x_i, x_i) - 2 m_l(x_i) / s_l + ||mu_l||^2`` for the
    kernel rows ``K`` (n_new x n) between new and training points and ``K(x_i, x_i)``
    (``self_kernel``); negative rounding residues are set to 0."""
    scores = mean_sq_norms[None, :] - 2.0 * _kernel_times(K, assign) + self_kernel[:, None]
    return np.maximum(scores, 0.0)


def nearest_mean(K: Any, assign: _Float, mean_sq_norms: _Float) -> _Int:
    """``argmin_l ||phi(x) - mu_l||^2`` for the kernel rows ``K`` (n_new x n) between new and
    training points, ``K(x, x)`` dropped (the same for every cluster); ties go to the lowest
    label."""
    scores = mean_sq_norms[None, :] - 2.0 * _kernel_times(K, assign)
    return np.asarray(np.argmin(scores, axis=1), dtype=np.int64)


def select_n_clusters(
    X: Any, w: Optional[npt.NDArray[np.float64]], kernel: str, random_state: Any, n_threads: Optional[int],
    alpha: float = 1.0,
) -> Any:  # fmt: skip
    """``n_clusters="auto"``: :func:`~kgroups_rs.select_k` on the training data ``X`` (points
    for ``kernel="energy"`` (of ``alpha`` 1, the only energy kernel ``select_k`` uses) or
    ``"knn"``, the kernel matrix for ``"precomputed"``), k = 1 ... min(10, n)."""
    from .selection import default_k_range, select_k

    if kernel == "energy" and float(alpha) != 1.0:
        raise ValueError(
            "n_clusters='auto' chooses k with the energy kernel of alpha = 1 (rho = ||x - y||), "
            f"got alpha = {alpha!r}; give n_clusters as a number to fit alpha = {alpha!r}"
        )
    if kernel not in ("energy", "knn", "precomputed"):
        raise ValueError(
            "n_clusters='auto' needs kernel='energy', 'knn', 'precomputed' or 'auto' (the "
            f"default with it), got kernel={kernel!r}"
        )
    if w is not None:
        raise ValueError("n_clusters='auto' does not take sample_weight")
    if hasattr(X, "tocsr"):
        raise ValueError("n_clusters='auto' needs a dense precomputed kernel")
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"n_clusters='auto' needs at least 2 samples, got {n}")
    return select_k(
        np.asarray(X, dtype=np.float64),
        default_k_range(n),
        kernel=kernel,  # type: ignore[arg-type]
        random_state=random_state,
        n_threads=n_threads,
    )


def default_sigma(X: _Float, w: Optional[_Float], rule: Literal["mean", "median"]) -> float:
    """The bandwidth of the ``exponential``/``gaussian`` kernels by ``rule`` (see
    :func:`kgroups_rs.bandwidth`), over the training points of positive weight, weighted by
    their sample weights. When those points all coincide any bandwidth gives the same
    clustering: 1.
    """
    points = X if w is None else X[w > 0]
    if points.shape[0] == 0 or np.all(points == points[0]):
        return 1.0
    return bandwidth(X, rule, weights=w)
