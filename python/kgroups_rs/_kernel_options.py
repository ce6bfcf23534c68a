"""The kernel options that several public modules share: the semimetric, base-point,
bandwidth and landmark names, and the checks of ``semimetric``, ``alpha`` and ``sigma``."""

from __future__ import annotations

import numbers
from typing import Any, Literal, Optional, TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import _core

#: The semimetrics and base points, as the compiled core spells them.
Semimetric = Literal["power", "exponential", "gaussian"]
Base = Literal["mean", "origin", "centered"]
SEMIMETRICS: tuple[Semimetric, ...] = ("power", "exponential", "gaussian")
BASES: tuple[Base, ...] = ("mean", "origin", "centered")
SEMIMETRIC_BASES: tuple[Base, ...] = ("origin", "centered")

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


def check_dtype(dtype: Any) -> bool:
    """True for float32 output, False for float64."""
    resolved = np.dtype(dtype)
    if resolved == np.float64:
        return False
    if resolved == np.float32:
        return True
    raise TypeError(f"dtype must be float64 or float32, got {resolved}")


def check_choice(value: str, name: str, allowed: tuple[_Choice, ...]) -> _Choice:
    """``value`` if it is one of ``allowed`` (typed as that choice); ValueError otherwise."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


#: The bandwidth rules of :func:`kgroups_rs.bandwidth`.
BandwidthRule = Literal["mean", "median"]
BANDWIDTH_RULES: tuple[BandwidthRule, ...] = ("mean", "median")
#: The rules that ``sigma`` may name instead of a number: those, and "auto"
#: (:func:`kgroups_rs.choose_sigma`).
SigmaRule = Literal["mean", "median", "auto"]
SIGMA_RULES: tuple[SigmaRule, ...] = ("mean", "median", "auto")
#: What ``sigma`` accepts: a positive number, a rule, or None (the "mean" rule).
Sigma = Union[float, SigmaRule, None]


#: The semimetrics with a bandwidth ``sigma``; ``alpha`` belongs to "power" alone.
BANDWIDTH_SEMIMETRICS = ("exponential", "gaussian")


def is_default_alpha(alpha: Any) -> bool:
    """True for ``alpha`` = 1.0, the default: a call cannot tell it from an omitted alpha."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (numbers.Real, np.floating, np.integer)):
        return False
    return float(alpha) == 1.0


def check_semimetric_parameters(
    semimetric: Optional[str],
    alpha: Any,
    sigma: Any,
    *,
    parameter: str = "semimetric",
    shown: Optional[str] = None,
    power_name: str = "power",
) -> None:
    """Refuse a parameter the chosen semimetric would ignore: ``sigma`` (a number or a rule,
    "mean", "median" and "auto" included) belongs to the exponential and gaussian semimetrics,
    ``alpha`` to the power semimetric. ``alpha`` = 1.0 (its default) passes with any, as it
    cannot be told from no alpha. ``semimetric=None``: neither applies (a kernel or semimetric
    matrix is given instead). The error names ``parameter=shown`` (``shown`` defaults to
    ``semimetric``; the estimators pass ``parameter="kernel"`` and ``power_name="energy"``).
    An unknown name passes: the caller refuses it.
    """
    shown = semimetric if shown is None else shown
    if semimetric is not None and semimetric not in SEMIMETRICS:
        return
    setting = f"{parameter}={shown!r}"
    if sigma is not None and semimetric not in BANDWIDTH_SEMIMETRICS:
        takes = "takes alpha, not a bandwidth" if semimetric == "power" else "takes neither"
        raise ValueError(
            f"sigma={sigma!r} was given, but {setting} {takes}: sigma applies to the exponential "
            f"and gaussian semimetrics only. Leave sigma out, or set {parameter}='exponential' or "
            "'gaussian'"
        )
    if semimetric != "power" and not is_default_alpha(alpha):
        takes = "takes sigma, not alpha" if semimetric is not None else "takes neither"
        raise ValueError(
            f"alpha={alpha!r} was given, but {setting} {takes}: alpha applies to the power "
            f"semimetric only (rho = ||x - y||^alpha). Leave alpha out, or set "
            f"{parameter}={power_name!r}"
        )


def resolve_sigma(
    sigma: Any,
    points: Optional[FloatArray],
    semimetric: Optional[str],
    weights: Optional[FloatArray] = None,
    *,
    alpha: Any = 1.0,
    k: Optional[int] = None,
) -> Optional[float]:
    """The bandwidth to pass to the core: a number, or None for its default (the "mean" rule).

    First refuses a ``sigma`` or ``alpha`` that ``semimetric`` would ignore (see
    :func:`check_semimetric_parameters`; ``semimetric=None`` when no points are given, so no
    semimetric is used). ``"median"`` is computed here from ``points`` (and ``weights``);
    ``"auto"`` by :func:`kgroups_rs.choose_sigma` on the points (of positive weight) for
    ``k`` groups (None: k chosen too); a number is passed on (the core checks that it is
    finite and positive).
    """
    check_semimetric_parameters(semimetric, alpha, sigma)
    if sigma is None:
        return None
    if isinstance(sigma, str):
        rule = check_choice(sigma, "sigma", SIGMA_RULES)
        if points is None or semimetric not in BANDWIDTH_SEMIMETRICS or (rule == "mean" and weights is None):
            return None
        if rule == "auto":
            from .sigma_selection import auto_sigma

            chosen = points if weights is None else points[np.asarray(weights) > 0]
            return auto_sigma(chosen, k, semimetric)
        return float(_core.bandwidth(points, rule, weights))
    if isinstance(sigma, (bool, np.bool_)) or not isinstance(sigma, (numbers.Real, np.floating, np.integer)):
        raise TypeError(
            f"sigma must be a positive number, 'mean', 'median', 'auto' or None, got {type(sigma).__name__}"
        )
    return float(sigma)


#: How the Nyström landmarks are chosen.
Landmarks = Literal["k-means++", "uniform"]
LANDMARKS: tuple[Landmarks, ...] = ("k-means++", "uniform")

#: The estimators' ``kernel`` names built from points, and the semimetric each names.
KERNEL_SEMIMETRICS: dict[str, Semimetric] = {
    "energy": "power", "exponential": "exponential", "gaussian": "gaussian",
}
