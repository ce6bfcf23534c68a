"""Energy statistics: within-cluster dispersion W, between-cluster statistic S, energy distance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from . import _core
from ._kernel_options import Semimetric, Sigma, as_points, is_default_alpha, resolve_sigma
from ._validation import as_weights, check_n_threads
from ._warnings import warn_if_distance_matrix

__all__ = [
    "EnergyStatistics",
    "between_statistic",
    "energy_distance",
    "energy_statistics",
    "within_dispersion",
]


@dataclass(frozen=True)
class EnergyStatistics:
    """Weighted energy statistics of a partition: the within- and between-cluster parts.

    For clusters ``C_1, ..., C_k``, point weights ``w``, cluster weights
    ``s_j = sum_{a in C_j} w_a``, total ``s`` and ``g(A, B)`` the weighted mean semimetric
    between two sets, the total dispersion splits into within- and between-cluster parts,
    ``(s / 2) g(X, X) = W + S``.

    Attributes
    ----------
    within : float
        ``W = sum_j (s_j / 2) g(C_j, C_j)``.
    between : float
        ``S = sum_{i<j} (s_i s_j / (2 s)) [2 g(C_i, C_j) - g(C_i, C_i) - g(C_j, C_j)]``.
    total : float
        ``(s / 2) g(X, X) = W + S``.
    cluster_weights : ndarray of shape (k,)
        ``s_j``.
    g : ndarray of shape (k, k)
        ``g(C_i, C_j) = sum_{a in C_i, b in C_j} w_a w_b rho(x_a, x_b) / (s_i s_j)``.
    """

    within: float
    between: float
    total: float
    cluster_weights: npt.NDArray[np.float64]
    g: npt.NDArray[np.float64]


def _labels(labels: Any) -> tuple[npt.NDArray[np.int64], int]:
    """Labels as int64 and k = max(labels) + 1; the core checks their values."""
    array = np.asarray(labels)
    if array.ndim != 1:
        raise ValueError(f"labels must be a 1-D array, got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"labels must be integers 0..k-1, got dtype {array.dtype}")
    if array.size == 0:
        raise ValueError("labels is empty; give one label per point")
    if array.dtype.kind == "u" and array.max() > np.iinfo(np.int64).max:
        # Would wrap to a negative int64.
        raise ValueError(f"labels must be below n (the number of points), got {array.max()}")
    return np.ascontiguousarray(array, dtype=np.int64), max(int(array.max()), 0) + 1


def energy_statistics(
    labels: Any,
    *,
    X: Any = None,
    R: Any = None,
    G: Any = None,
    weights: Any = None,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Sigma = None,
    n_threads: Optional[int] = None,
) -> EnergyStatistics:
    """W, S and ``g`` of a partition, from data ``X``, a semimetric matrix ``R`` or a Gram
    matrix ``G`` (exactly one; from ``G``, ``rho(a, b) = G_aa + G_bb - 2 G_ab``).

    Clusters are the distinct labels ``0..max(labels)``; each must be non-empty. With ``X``,
    ``rho`` is computed on the fly (memory O(n D)); ``semimetric``, ``alpha`` and ``sigma``
    are as in :func:`energy_gram`. The ``k x k`` matrix ``g`` takes ``8 k^2`` bytes
    (``MemoryError`` if that cannot be allocated); :func:`within_dispersion` and
    :func:`between_statistic` need only O(n + k) memory. Weights, ``R`` and ``G`` may have any
    finite scale. Ctrl-C interrupts the computation (``KeyboardInterrupt``).

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        The cluster of each point, ``0 .. k - 1`` with ``k = max(labels) + 1``; every
        cluster must be non-empty.
    X : array_like of shape (n, D) or (n,), optional
        Data; ``rho`` is computed from it.
    R : array_like of shape (n, n), optional
        A semimetric matrix ``R_ab = rho(x_a, x_b)``: finite, symmetric, zero on the
        diagonal and non-negative (entries of rounding size are tolerated; the diagonal is
        taken as exactly 0).
    G : array_like of shape (n, n), optional
        A symmetric kernel (Gram) matrix; ``rho(a, b) = G_aa + G_bb - 2 G_ab``. A dense G
        that looks like a distance matrix (zero diagonal, non-negative entries, not all zero)
        gets a :class:`KernelInputWarning`: pass such a matrix as ``R``.
    weights : array_like of shape (n,), optional
        Point weights, finite and > 0 (default: all 1).
    semimetric : {"power", "exponential", "gaussian"}, default "power"
        The semimetric for ``X``, as in :func:`energy_gram`.
    alpha, sigma : float
        Its parameters, as in :func:`energy_gram` (``sigma=None``: :func:`bandwidth` of X;
        a parameter the semimetric does not take raises ValueError). With ``R`` or ``G`` no
        semimetric is computed: ``semimetric``, ``alpha`` and ``sigma`` other than their
        defaults raise ValueError rather than being ignored.
    n_threads : int, optional
        Number of threads (default: all cores).

    Returns
    -------
    EnergyStatistics
        ``within`` (W), ``between`` (S), ``total``, ``cluster_weights`` and ``g``.
    """
    within, between, total, sizes, g = _compute(
        labels, X=X, R=R, G=G, weights=weights, semimetric=semimetric, alpha=alpha, sigma=sigma,
        n_threads=n_threads, with_g=True,
    )
    assert g is not None
    return EnergyStatistics(within, between, total, sizes, g)


def _refuse_semimetric_without_points(source: str, semimetric: Any, alpha: Any, sigma: Any) -> None:
    """With ``R=`` or ``G=`` no semimetric is computed: refuse a ``semimetric``, ``alpha`` or
    ``sigma`` other than its default, which would be ignored."""
    given = [
        f"{name}={value!r}"
        for name, value, unused in (
            ("semimetric", semimetric, semimetric == "power"),
            ("alpha", alpha, is_default_alpha(alpha)),
            ("sigma", sigma, sigma is None),
        )
        if not unused
    ]
    if given:
        raise ValueError(
            f"{', '.join(given)} given with {source}=: semimetric, alpha and sigma say how rho is "
            f"computed from X, and {source} is used as it is. Leave them out"
        )


def _compute(
    labels: Any,
    *,
    X: Any = None,
    R: Any = None,
    G: Any = None,
    weights: Any = None,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Sigma = None,
    n_threads: Optional[int] = None,
    with_g: bool,
) -> tuple[float, float, float, npt.NDArray[np.float64], Optional[npt.NDArray[np.float64]]]:
    """(W, S, total, s, g); g is None unless ``with_g`` (then O(n + k) memory only)."""
    given = [name for name, value in (("X", X), ("R", R), ("G", G)) if value is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of X, R or G (got {given or 'none'})")
    label_array, k = _labels(labels)
    x = as_points(X) if X is not None else None
    if x is None:
        _refuse_semimetric_without_points(given[0], semimetric, alpha, sigma)

    def square(value: Any, name: str) -> Optional[npt.NDArray[np.float64]]:
        if value is None:
            return None
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
        return np.ascontiguousarray(array, dtype=np.float64)

    gram = square(G, "G")
    if gram is not None:
        warn_if_distance_matrix(
            gram, "G", "Pass it as R= (a semimetric matrix), or gram_from_semimetric(G) as G=",
            stacklevel=3,
        )
    within, between, total, sizes, g = _core.energy_statistics(
        label_array, k, x, square(R, "R"), gram,
        # The core checks the name (and says which ones it knows).
        as_weights(weights), semimetric, float(alpha),
        resolve_sigma(sigma, x, semimetric if x is not None else None, alpha=alpha), with_g=with_g,
        n_threads=check_n_threads(n_threads),
    )
    return float(within), float(between), float(total), sizes, g


def within_dispersion(labels: Any, **source: Any) -> float:
    """The energy within-cluster dispersion ``W = sum_j (s_j / 2) g(C_j, C_j)``.

    Keyword arguments as in :func:`energy_statistics` (``X=``, ``R=`` or ``G=``, ``weights``,
    ``semimetric``, ``alpha``, ``sigma``, ``n_threads``). Equals ``sum_i w_i G_ii - Q`` of the
    clustering. Memory O(n + k) beyond the input, for any number of clusters k <= n.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        The cluster of each point, ``0 .. k - 1``; every cluster non-empty.
    **source
        ``X=``, ``R=`` or ``G=`` (exactly one), and optionally ``weights``, ``semimetric``,
        ``alpha``, ``sigma``, ``n_threads``, as in :func:`energy_statistics`.

    Returns
    -------
    float
        ``W``.
    """
    return _compute(labels, **source, with_g=False)[0]


def between_statistic(labels: Any, **source: Any) -> float:
    """The energy between-cluster statistic
    ``S = sum_{i<j} (s_i s_j / (2 s)) [2 g(C_i, C_j) - g(C_i, C_i) - g(C_j, C_j)]``.

    Keyword arguments as in :func:`energy_statistics`. ``W + S = (s / 2) g(X, X)``. Memory
    O(n + k) beyond the input.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        The cluster of each point, ``0 .. k - 1``; every cluster non-empty.
    **source
        As in :func:`within_dispersion`.

    Returns
    -------
    float
        ``S``.
    """
    return _compute(labels, **source, with_g=False)[1]


def energy_distance(
    X: Any,
    Y: Any,
    *,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Sigma = None,
    n_threads: Optional[int] = None,
) -> float:
    """Two-sample energy distance
    ``E(A, B) = 2 mean rho(a, b) - mean rho(a, a') - mean rho(b, b')``.

    Means run over all pairs (including ``a = a'``); with ``rho = ||x - y||`` this is the
    classical energy distance of Székely and Rizzo. ``X`` and ``Y`` need the same number of
    columns. ``sigma=None`` or ``"mean"`` uses :func:`bandwidth` of ``X``, ``"median"``
    ``bandwidth(X, "median")``, ``"auto"`` :func:`choose_sigma` of ``X`` with k unknown.
    Ctrl-C interrupts the computation
    (``KeyboardInterrupt``).

    Parameters
    ----------
    X : array_like of shape (n_a, D) or (n_a,)
        The first sample.
    Y : array_like of shape (n_b, D) or (n_b,)
        The second sample, with the same number of columns.
    semimetric : {"power", "exponential", "gaussian"}, default "power"
        As in :func:`energy_gram`.
    alpha, sigma : float
        Its parameters, as in :func:`energy_gram` (a parameter the semimetric does not take
        raises ValueError).
    n_threads : int, optional
        Number of threads (default: all cores).

    Returns
    -------
    float
        ``E(A, B)``, non-negative for a semimetric of negative type, and 0 when the two
        samples hold the same points in the same proportions.
    """
    a, b = as_points(X, "X"), as_points(Y, "Y")
    return float(
        _core.energy_distance(
            a, b, semimetric, float(alpha), resolve_sigma(sigma, a, semimetric, alpha=alpha),
            n_threads=check_n_threads(n_threads),
        )
    )
