"""Energy kernels (Gram matrices) from data or from a semimetric matrix, built in Rust."""

from __future__ import annotations

from typing import Any, Literal, Optional

import numpy as np
import numpy.typing as npt

from . import _core
from ._kernel_options import (
    BANDWIDTH_RULES,
    BASES,
    SEMIMETRIC_BASES,
    SEMIMETRICS,
    BandwidthRule,
    Base,
    Semimetric,
    Sigma,
    as_points,
    check_choice,
    check_dtype,
    resolve_sigma,
)
from ._validation import check_n_threads

__all__ = ["bandwidth", "energy_gram", "gram_from_semimetric"]

FloatArray = npt.NDArray[np.float64]


def energy_gram(
    X: Any,
    Y: Any = None,
    *,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Sigma = None,
    base: Base = "mean",
    dtype: Any = np.float64,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.floating[Any]]:
    """The energy kernel (Gram) matrix of the rows of ``X``, computed in parallel.

    ``G_ab = K(x_a, x_b)`` with ``K(x, y) = 1/2 [rho(x, x0) + rho(y, x0) - rho(x, y)]`` for a
    base point ``x0``:

    - ``base="mean"`` (default): ``x0`` is the mean of the points (of ``Y`` when ``Y`` is
      given). The kernel is translation invariant: its entries are about the size of the
      spread of the data, wherever the data lie (timestamps, say);
    - ``base="origin"``: ``x0 = 0``, the paper's choice; for data far from the origin the
      entries are about as large as that distance, and a clustering of them loses precision;
    - ``base="centered"``: the double-centred matrix ``G_c = -1/2 J R J`` with
      ``R_ab = rho(x_a, x_b)`` and ``J = I - 11^T / n`` (the base point is the mean in
      feature space; not for a cross kernel).

    The base changes the objective Q of a clustering of ``G`` by a constant; the labels and
    the within-cluster dispersion W do not depend on it. The semimetrics, each of negative
    type (so that G is positive semi-definite):

    - ``"power"``: ``rho(x, y) = ||x - y||^alpha``, ``0 < alpha <= 2``;
    - ``"exponential"``: ``rho(x, y) = 2 - 2 exp(-||x - y|| / (2 sigma))``;
    - ``"gaussian"``: ``rho(x, y) = 2 - 2 exp(-||x - y||^2 / (2 sigma^2))``.

    Distances of fewer than 20 coordinates are summed from coordinate differences (each
    square added by a fused multiply-add, so rounded once); from D = 20 on (up to D = 1024)
    they are expanded, ``|x|^2 + |y|^2 - 2 x.y`` (fewer operations), and every pair where
    the expansion may cancel is recomputed from differences, so
    near-duplicate points keep their relative accuracy (1e-12 or better). Data of any finite
    magnitude are handled exactly: tiny or huge data (say ``X * 1e-170`` or ``X * 1e200``)
    are first scaled by a power of two, and the kernel scaled back. Each pair is computed
    once and mirrored; arithmetic is float64 even for float32 output. Ctrl-C stops the
    computation within a fraction of a second.

    Parameters
    ----------
    X : array_like of shape (n, D) or (n,)
        Data; a 1-D array is n points in one dimension. Integers are converted.
    Y : array_like of shape (m, D), optional
        If given, return the n x m cross kernel ``K(x_a, y_b)`` between new points ``X`` and
        reference (training) points ``Y``, e.g. to assign new points to clusters. With
        ``base="mean"`` its base point is the mean of ``Y`` (not of ``X``), so that
        ``energy_gram(Y, Y)`` equals ``energy_gram(Y)``. ``base="centered"`` is not available.
    semimetric : {"power", "exponential", "gaussian"}
    alpha : float, default 1.0
        Exponent of the power semimetric. The other semimetrics take none: with them an
        alpha other than 1 raises ValueError (rather than being ignored).
    sigma : float, "mean", "median" or "auto", optional
        Bandwidth of the exponential and gaussian semimetrics: a positive number, or the rule
        that computes it from ``X`` (see :func:`bandwidth`): "mean" (the default, also for
        None), ``sigma^2`` = the mean squared distance between the points; "median", the
        median distance between the points; "auto", chosen by :func:`choose_sigma` with k
        unknown (the candidate σ whose kernel k-groups partition cuts the data's kNN graph
        least, each candidate's k in 2 .. 10 the one with its largest eigen-gap). The power
        semimetric has no bandwidth: with it,
        any sigma (a rule included) raises ValueError (rather than being ignored).
    base : {"mean", "origin", "centered"}, default "mean"
        The base point (see above).
    dtype : float64 or float32
        Output precision; float32 halves the memory.
    n_threads : int, optional
        Threads (default: all cores).

    Returns
    -------
    ndarray of shape (n, n) (or (n, m))

    Raises
    ------
    ValueError
        For invalid arguments, and when the kernel entries cannot be represented in the
        output dtype (they would overflow, or all lie below its smallest normal number):
        the message says to rescale ``X``.
    MemoryError
        When the n x n (or n x m) output cannot be allocated; the message gives its size.
    """
    single = check_dtype(dtype)
    semimetric_name = check_choice(semimetric, "semimetric", SEMIMETRICS)
    base_name = check_choice(base, "base", BASES)
    points = as_points(X, "X")
    other = None if Y is None else as_points(Y, "Y")
    if other is not None and other.shape[1] != points.shape[1]:
        raise ValueError(
            f"X has D={points.shape[1]} columns but Y has D={other.shape[1]}; they must match"
        )
    if other is not None and base == "centered":
        raise ValueError(
            "base='centered' is not available for a cross kernel (Y given); "
            "use base='mean' (the mean of Y) or base='origin'"
        )
    result: npt.NDArray[np.floating[Any]] = _core.energy_gram(
        points, other, semimetric_name, float(alpha),
        resolve_sigma(sigma, points, semimetric_name, alpha=alpha),
        base_name, single,
        n_threads=check_n_threads(n_threads),
    )
    return result


def gram_from_semimetric(
    R: Any,
    base: Literal["origin", "centered"] = "origin",
    *,
    dtype: Any = np.float64,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.floating[Any]]:
    """The Gram matrix generated by a precomputed semimetric matrix ``R`` (n x n).

    ``base="origin"`` uses the first point as base point, ``G_ab = 1/2 [R_a0 + R_b0 - R_ab]``;
    ``base="centered"`` gives ``-1/2 J R J`` (the base point is the mean in feature space).
    There are no coordinates, so ``"mean"`` is not available. The base changes the objective
    Q of a clustering by a constant; the labels and the within-cluster dispersion W do not
    depend on it. ``R`` must be square, finite, symmetric, non-negative, with a zero diagonal
    (tiny rounding is tolerated; the diagonal is taken as exactly 0). Raises MemoryError when
    the n x n output cannot be allocated; Ctrl-C stops the computation.
    """
    single = check_dtype(dtype)
    base_name = check_choice(base, "base", SEMIMETRIC_BASES)
    matrix = np.asarray(R)
    if matrix.dtype.kind not in "biuf":
        raise TypeError(f"R must hold real numbers, got dtype {matrix.dtype}")
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise ValueError(f"R must be a non-empty square (n, n) matrix, got shape {matrix.shape}")
    result: npt.NDArray[np.floating[Any]] = _core.gram_from_semimetric(
        np.ascontiguousarray(matrix, dtype=np.float64), base_name, single,
        n_threads=check_n_threads(n_threads),
    )
    return result


def bandwidth(X: Any, rule: BandwidthRule = "mean", *, weights: Any = None) -> float:
    """The default bandwidth ``sigma`` of the exponential and gaussian semimetrics.

    - ``rule="mean"`` (the default everywhere): the root mean squared distance between the
      points, ``sigma^2 = (1/n^2) sum_ab ||x_a - x_b||^2`` (the rule of the kernel k-groups
      paper), computed in O(n D) as ``2 mean ||x - mean x||^2``. With ``weights``,
      ``sigma^2 = sum_ab w_a w_b ||x_a - x_b||^2 / (sum_a w_a)^2``.
    - ``rule="median"``: the median heuristic, the median of the distances
      ``||x_a - x_b||`` over the pairs ``a < b`` (for an even number of pairs the lower of
      the two middle values). When there are more than 2000 points (of positive weight) it is
      the median over the pairs of 2000 of them drawn uniformly without replacement with a
      fixed seed, so it costs O(D 2000^2) at most and depends only on the data. With
      ``weights`` it is the weighted lower median, pair ``(a, b)`` weighing ``w_a w_b``,
      over the points of positive weight. It is robust to outliers and to a few far
      clusters, which inflate the mean rule.

    Both are computed accurately for data of any finite magnitude. (``sigma="auto"`` is no
    rule of this function: see :func:`choose_sigma`.)

    Parameters
    ----------
    X : array_like of shape (n, D) or (n,)
        The data.
    rule : {"mean", "median"}, default "mean"
        The rule (above).
    weights : array_like of shape (n,), optional
        Point weights ``w_a >= 0``, not all 0 (default: all 1).

    Returns
    -------
    float
        ``sigma > 0``.

    Raises
    ------
    ValueError
        For an unknown rule or bad weights; when ``sigma`` would be 0 (every point the same
        for "mean"; at least half of the pairs coinciding, or a single point, for "median"):
        then pass ``sigma`` explicitly.

    Examples
    --------
    >>> import kgroups_rs
    >>> kgroups_rs.bandwidth([0.0, 1.0, 4.0], rule="median")  # distances 1, 3, 4
    3.0
    """
    rule_name = check_choice(rule, "rule", BANDWIDTH_RULES)
    points = as_points(X, "X")
    w = None
    if weights is not None:
        w = np.ascontiguousarray(weights, dtype=np.float64)
        if w.shape != (points.shape[0],):
            raise ValueError(
                f"weights must have shape (n,) = ({points.shape[0]},), got {w.shape}"
            )
    return float(_core.bandwidth(points, rule_name, w))
