"""Clustering accuracy (TPAMI eq. 55): agreement under the best matching of cluster labels."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import _core

__all__ = ["clustering_accuracy"]


def clustering_accuracy(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Fraction of points whose predicted cluster matches the truth under the best relabelling.

    ``accuracy = max_pi (1/n) #{i : pi(y_pred[i]) = y_true[i]}`` (TPAMI eq. 55), the maximum
    over one-to-one maps ``pi`` from predicted labels to true labels. It is computed exactly
    by the Hungarian method (shortest augmenting paths, in the compiled core; no scipy
    needed) as the maximum-weight matching on the contingency table
    ``C[p, t] = #{i : y_pred[i] = p, y_true[i] = t}``, in
    O(n log n + k_pred k_true min(k_pred, k_true)) rather than by enumerating permutations.

    Labels may be any values ``np.unique`` can sort (arbitrary integers, negative or not
    consecutive, strings); only which points share a label matters, so the result is invariant
    to renaming the labels of either argument. The two labelings may have different numbers of
    clusters: the assignment is then rectangular, every cluster of the smaller side is matched
    to a distinct cluster of the larger side, and the points in unmatched clusters count as
    errors. Since every label that occurs names a non-empty cluster, the accuracy is then
    below 1.0.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (n,)
        True and predicted cluster labels of the same ``n >= 1`` points.

    Returns
    -------
    float
        The accuracy, in ``(0, 1]``.

    Raises
    ------
    ValueError
        If either argument is not 1-D, is empty, or the lengths differ.

    Examples
    --------
    >>> clustering_accuracy([0, 0, 1, 1, 2], [5, 5, 7, 7, 7])
    0.8
    """
    t = np.asarray(y_true)
    p = np.asarray(y_pred)
    for name, arr in (("y_true", t), ("y_pred", p)):
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of labels, got shape {arr.shape}")
    if t.shape[0] != p.shape[0]:
        raise ValueError(
            f"y_true and y_pred must have the same length, got {t.shape[0]} and {p.shape[0]}"
        )
    n = int(t.shape[0])
    if n == 0:
        raise ValueError("y_true and y_pred are empty: need at least one point")

    _, t_idx = np.unique(t, return_inverse=True)
    p_values, p_idx = np.unique(p, return_inverse=True)
    t_idx = t_idx.reshape(-1)
    p_idx = p_idx.reshape(-1)
    k_t = int(t_idx.max()) + 1
    k_p = p_values.shape[0]
    table = np.bincount(p_idx * k_t + t_idx, minlength=k_p * k_t).reshape(k_p, k_t)
    rows, cols = _core.linear_assignment(np.ascontiguousarray(table, dtype=np.float64), maximize=True)
    matched = int(table[rows, cols].sum())
    return matched / n
