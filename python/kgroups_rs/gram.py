"""Energy kernels (Gram matrices) from data or from a semimetric matrix, built in Rust."""

from __future__ import annotations

from typing import Any, Literal, Optional, TypeVar

import numpy as np
import numpy.typing as npt

from . import _core
from ._validation import check_n_threads

#: The semimetrics and base points, as the compiled core spells them.
Semimetric = Literal["power", "exponential", "gaussian"]
Base = Literal["mean", "origin", "centered"]
_SEMIMETRICS: tuple[Semimetric, ...] = ("power", "exponential", "gaussian")
_BASES: tuple[Base, ...] = ("mean", "origin", "centered")
_SEMIMETRIC_BASES: tuple[Base, ...] = ("origin", "centered")

_Choice = TypeVar("_Choice", bound=str)

FloatArray = npt.NDArray[np.float64]


def as_points(X: Any, name: str = "X") -> FloatArray:
    """Data as a C-contiguous float64 (n, D) array (the core checks that it is finite).

    A 1-D array holds n points in one dimension. Integer and float32 data are converted to
    float64; other layouts are copied once (O(n D), negligible next to an n x n kernel).
    """
    array = np.asarray(X)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 1-D or 2-D array (n points x D features), got {array.ndim}-D")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {array.shape}")
    return np.ascontiguousarray(array, dtype=np.float64)


def _check_dtype(dtype: Any) -> bool:
    """True for float32 output, False for float64."""
    resolved = np.dtype(dtype)
    if resolved == np.float64:
        return False
    if resolved == np.float32:
        return True
    raise TypeError(f"dtype must be float64 or float32, got {resolved}")


def _check_choice(value: str, name: str, allowed: tuple[_Choice, ...]) -> _Choice:
    """``value`` if it is one of ``allowed`` (typed as that choice); ValueError otherwise."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _sigma(sigma: Optional[float]) -> Optional[float]:
    return None if sigma is None else float(sigma)


def energy_gram(
    X: Any,
    Y: Any = None,
    *,
    semimetric: str = "power",
    alpha: float = 1.0,
    sigma: Optional[float] = None,
    base: str = "mean",
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

    Distances are summed from coordinate differences (no ``|x|^2 + |y|^2 - 2 x.y``
    cancellation), so near-duplicate points keep full relative accuracy. Data of any finite
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
        Exponent of the power semimetric.
    sigma : float, optional
        Bandwidth of the exponential and gaussian semimetrics; default :func:`bandwidth` (X).
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
    single = _check_dtype(dtype)
    semimetric_name = _check_choice(semimetric, "semimetric", _SEMIMETRICS)
    base_name = _check_choice(base, "base", _BASES)
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
        points, other, semimetric_name, float(alpha), _sigma(sigma), base_name, single,
        n_threads=check_n_threads(n_threads),
    )
    return result


def gram_from_semimetric(
    R: Any, base: str = "origin", *, dtype: Any = np.float64, n_threads: Optional[int] = None
) -> npt.NDArray[np.floating[Any]]:
    """The Gram matrix generated by a precomputed semimetric matrix ``R`` (n x n).

    ``base="origin"`` uses the first point as base point, ``G_ab = 1/2 [R_a0 + R_b0 - R_ab]``;
    ``base="centered"`` gives ``-1/2 J R J`` (the base point is the mean in feature space).
    There are no coordinates, so ``"mean"`` is not available. The base changes the objective
    Q of a clustering by a constant; the labels and the within-cluster dispersion W do not
    depend on it. ``R`` must be square, finite, symmetric, non-negative, with a zero diagonal
    (tiny rounding is tolerated). Raises MemoryError when the n x n output cannot be
    allocated; Ctrl-C stops the computation.
    """
    single = _check_dtype(dtype)
    base_name = _check_choice(base, "base", _SEMIMETRIC_BASES)
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


def bandwidth(X: Any) -> float:
    """The bandwidth ``sigma`` with ``sigma^2 = (1/n^2) sum_ab ||x_a - x_b||^2``.

    Computed in O(n D) as ``2 (mean ||x - mean x||^2)``, accurately for data of any finite
    magnitude. Raises ValueError when every point is the same (then pass ``sigma``
    explicitly).
    """
    return float(_core.bandwidth(as_points(X, "X")))
