"""Fuzzing every public function of kgroups_rs with random argument combinations.

Each test draws a random combination of arguments -- shapes (n = 1, k = n, D = 1, empty),
dtypes (float64, float32, float16, integers, bool, object, complex), memory layouts (C, F,
strided, negative strides, read-only), scales from 1e-300 to 1e300, offsets up to 1e9, weights
(extreme scales, zeros, negatives, NaN, wrong length), labels (out of range, negative, wrong
length), thread counts and k values (0, 1, n, n + 1, huge) -- calls the function and accepts
only

- a correct-looking result: labels int64 in 0..k-1 of length n with every cluster non-empty,
  finite statistics from finite input, agreement with a float64 reference computed here
  (rescaled by powers of two, so that the reference itself neither overflows nor underflows),
  an ``objective_history`` that never decreases for Hartigan's method, ``W >= -tiny`` for a
  positive semi-definite kernel; or
- ``ValueError``, ``TypeError`` or ``MemoryError``. ``OverflowError`` is accepted only when an
  integer argument does not fit a C integer (``|value| >= 2**63``): that is how CPython itself
  reports such a number (``range(2**64)[0:1]``, ``bytes(2**64)``), so it is a correct Python
  signal there, and nowhere else.

Anything else fails the test: another exception type, ``pyo3_runtime.PanicException`` (a
``BaseException``), ``RuntimeError("...panicked...")``, or a result returned for input that must
be rejected (NaN/inf, k out of range, bad labels or weights, an asymmetric kernel, ...). A crash
(segfault, abort) kills pytest, which CI reports as a failure; pytest's faulthandler prints the
test that crashed, and with ``KGROUPS_FUZZ_LOG=/tmp/fuzz.log`` every call is appended to that file
before it runs, so its last line is the call that crashed.

Hypothesis settings: outside CI no ``derandomize`` (every run explores new examples; a
developer re-running a failing test replays the saved failing example first, ``.hypothesis/``
is git-ignored); under CI (``CI=true``) the examples are derandomized, so that what lands is
judged on a fixed, reproducible set and a rare new find surfaces in a developer's run rather
than blocking an unrelated change. A 10 s deadline (each example takes milliseconds; the
deadline only catches a hang that still returns). ``KGROUPS_FUZZ_EXAMPLES`` scales every test's number of
examples (default 1.0).
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from typing import Any, Callable, Optional

import kgroups_rs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

scipy_sparse = pytest.importorskip("scipy.sparse")
pytest.importorskip("sklearn")

EPS = float(np.finfo(np.float64).eps)
EPS32 = float(np.finfo(np.float32).eps)
FLOAT_MAX = float(np.finfo(np.float64).max)
FLOOR = 1e-290  # absolute slack for values in (or near) the subnormal range
C_INT_LIMIT = 2**63
_FACTOR = float(os.environ.get("KGROUPS_FUZZ_EXAMPLES", "1.0"))
_LOG = os.environ.get("KGROUPS_FUZZ_LOG")


def fuzz(examples: int) -> Callable[[Any], Any]:
    return settings(
        max_examples=max(1, int(examples * _FACTOR)),
        deadline=10_000,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        print_blob=True,
        derandomize=os.environ.get("CI", "").lower() == "true",
    )


# ============================================================================== harness

ALLOWED: tuple[type[BaseException], ...] = (ValueError, TypeError, MemoryError)


def _strided(a: np.ndarray) -> np.ndarray:
    """A non-contiguous view with the values of ``a`` (every other element of a larger array)."""
    big = np.zeros(tuple(2 * s for s in a.shape), dtype=a.dtype)
    view = big[tuple(slice(None, None, 2) for _ in a.shape)]
    view[...] = a
    return view


def _reversed(a: np.ndarray) -> np.ndarray:
    """A view with negative strides and the values of ``a``."""
    flipped = np.ascontiguousarray(a[tuple(slice(None, None, -1) for _ in a.shape)])
    return flipped[tuple(slice(None, None, -1) for _ in a.shape)]


def _readonly(a: np.ndarray) -> np.ndarray:
    b = np.array(a)
    b.flags.writeable = False
    return b


def fmt(value: Any) -> str:
    """A Python expression that rebuilds ``value`` (exact floats, dtype and layout)."""
    if isinstance(value, np.ndarray):
        dtype = "object" if value.dtype == object else f"np.{value.dtype}"
        text = f"np.array({value.tolist()!r}, dtype={dtype})"
        if value.ndim >= 2 and not value.flags.c_contiguous:
            text = f"np.asfortranarray({text})" if value.flags.f_contiguous else f"_strided({text})"
        elif value.ndim == 1 and not value.flags.c_contiguous:
            text = f"_strided({text})"
        if not value.flags.writeable:
            text = f"_readonly({text})"
        return text
    if scipy_sparse.issparse(value):
        name = type(value).__name__
        if value.format in ("csr", "csc"):
            return (
                f"scipy.sparse.{name}(({fmt(value.data)}, {fmt(value.indices)}, {fmt(value.indptr)}), "
                f"shape={value.shape})"
            )
        return f"scipy.sparse.{name}({fmt(value.toarray())})"
    if isinstance(value, np.random.Generator):
        return "np.random.default_rng(...)"
    if isinstance(value, np.generic):
        return f"np.{type(value).__name__}({value.item()!r})"
    if callable(value) and getattr(value, "__name__", "") == "<lambda>":
        return getattr(value, "describe", "lambda")
    return repr(value)


def short(result: Any) -> str:
    text = repr(result)
    return text if len(text) < 300 else text[:300] + "..."


def attempt(
    fn: Callable[..., Any],
    *args: Any,
    name: Optional[str] = None,
    invalid: tuple[str, ...] | list[str] = (),
    huge_int: bool = False,
    **kwargs: Any,
) -> Any:
    """Call ``fn``; return its result, or None when it raised an allowed exception.

    Fails the test for any other exception, and for a result when ``invalid`` names a reason
    why the input must be rejected.
    """
    label = name or f"kgroups_rs.{getattr(fn, '__name__', repr(fn))}"
    parts = [fmt(a) for a in args] + [f"{key}={fmt(v)}" for key, v in kwargs.items()]
    text = f"{label}({', '.join(parts)})"
    note(f"call: {text}")
    if invalid:
        note(f"must raise, because: {'; '.join(invalid)}")
    if _LOG:
        with open(_LOG, "a") as log:
            log.write(text + "\n")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(*args, **kwargs)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - PanicException derives from BaseException
        allowed = ALLOWED + ((OverflowError,) if huge_int else ())
        kind = f"{type(exc).__module__}.{type(exc).__qualname__}"
        if not isinstance(exc, allowed) or "panicked" in str(exc):
            raise AssertionError(f"{text}\n  raised {kind}: {exc}") from exc
        note(f"raised {kind}: {exc}")
        return None
    if invalid:
        raise AssertionError(
            f"{text}\n  accepted invalid input ({'; '.join(invalid)}) and returned {short(result)}"
        )
    return result


# ============================================================================== references


def normalized(a: np.ndarray) -> tuple[np.ndarray, int]:
    """``(a / 2**e, e)`` with ``max|a / 2**e|`` in [0.5, 1) (exact power-of-two scaling)."""
    a = np.asarray(a, dtype=np.float64)
    m = float(np.max(np.abs(a))) if a.size else 0.0
    if m == 0.0:
        return a.copy(), 0
    e = math.frexp(m)[1]
    return np.ldexp(a, -e), e


def rescale(v: Any, log2: float) -> Any:
    """``v * 2**log2`` without intermediate overflow (inf beyond the float range)."""
    whole = math.floor(log2)
    with np.errstate(all="ignore"):
        return np.ldexp(np.asarray(v, dtype=np.float64) * 2.0 ** (log2 - whole), int(whole))


def pair_norms(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``||a - b||`` for all rows, by hypot (no overflow or underflow of squares)."""
    with np.errstate(all="ignore"):
        return np.hypot.reduce(np.abs(A[:, None, :] - B[None, :, :]), axis=2)


def row_norms(A: np.ndarray) -> np.ndarray:
    return np.hypot.reduce(np.abs(A), axis=1)


def ref_bandwidth(X: np.ndarray) -> tuple[float, float]:
    """(sigma, allowed error): sigma^2 = mean over all pairs of ||x_a - x_b||^2."""
    Xn, e = normalized(X)
    d, e2 = normalized(pair_norms(Xn, Xn))
    sigma = float(rescale(np.sqrt(np.mean(d * d)), e + e2))
    # The data are known to about eps |x|: a mean-based formula may lose that much.
    slack = 16 * EPS * float(np.max(np.abs(X))) * math.sqrt(X.shape[1]) + 1e-9 * sigma
    return sigma, slack


def ref_rho(
    Xn: np.ndarray, Yn: np.ndarray, e: int, semimetric: str, alpha: float, sigma: float
) -> tuple[np.ndarray, float]:
    """``(rho_unit, log2)``: rho(x_a, y_b) = rho_unit * 2**log2, for data rows scaled by 2**-e."""
    d, e2 = normalized(pair_norms(Xn, Yn))
    return ref_rho_of_distance(d, e + e2, semimetric, alpha, sigma)


def power_resolution(values: np.ndarray, alpha: float, log2: float) -> float:
    """How well the reference knows each rho = d**alpha of the power semimetric, in the unit
    2**log2 of :func:`ref_rho`: it divides the data by 2**e (their largest value near 1), so
    coordinates below 2**(e - 1074) vanish there (5e-324 beside 1, 1e-301 beside 1.8e308)
    and its distances are known only to sqrt(D) * 2**(e - 1074); rho to that raised to
    alpha, which is about 1 for a tiny alpha (the library keeps such coordinates where its
    own frame allows)."""
    values = np.asarray(values, dtype=np.float64)
    if not values.size or not np.any(values):
        return 0.0
    e = math.frexp(float(np.max(np.abs(values))))[1]
    exponent = alpha * (0.5 * math.log2(values.shape[1]) + e - 1074) - log2
    return float(np.exp2(min(exponent, 1023.0)))


def ref_rho_of_distance(
    d: np.ndarray, log2: float, semimetric: str, alpha: float, sigma: float
) -> tuple[np.ndarray, float]:
    with np.errstate(all="ignore"):
        if semimetric == "power":
            return d**alpha, alpha * log2
        # d / sigma from mantissas and exponents: neither a huge sigma nor a tiny d underflows
        # the ratio before it is scaled back (1e-290 / 1e307 is 1e-597 as one division).
        mantissa, exponent = math.frexp(sigma)
        ratio = np.asarray(rescale(d / mantissa, log2 - exponent))
        r = ratio / 2 if semimetric == "exponential" else ratio * ratio / 2
        return -2.0 * np.expm1(-r), 0.0


def ref_rho_bounded(X: np.ndarray, Y: np.ndarray, semimetric: str, sigma: float) -> np.ndarray:
    """rho(x_a, y_b) of the exponential or gaussian semimetric (at most 2, so no frame):
    from the data as they are, so that a tiny coordinate beside a large one is not lost to
    a common scaling (the point 5e-324 beside the point 1e3 keeps rho(x, 0) = 5e-324 / sigma);
    from the data scaled by a power of two only where a difference overflows."""
    with np.errstate(all="ignore"):
        d = pair_norms(X, Y)
        ratio = d / sigma
        overflow = ~np.isfinite(d)
        if np.any(overflow):
            An, e = normalized(np.vstack([X, Y]))
            scaled = pair_norms(An[: X.shape[0]], An[X.shape[0] :]) / sigma
            ratio = np.where(overflow, rescale(scaled, e), ratio)
        r = ratio / 2 if semimetric == "exponential" else ratio * ratio / 2
        return -2.0 * np.expm1(-r)


def ref_gram(
    X: np.ndarray, Y: Optional[np.ndarray], semimetric: str, alpha: float, sigma: float, base: str
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(G_unit, T_unit, log2)``: the energy kernel and the magnitude of its terms (for the
    tolerance), both times ``2**log2``."""
    both = X if Y is None else np.vstack([X, Y])
    An, e = normalized(both)
    Xn, Yn = An[: X.shape[0]], An[X.shape[0] :] if Y is not None else An
    zero = np.zeros((1, X.shape[1]))
    if semimetric != "power":
        X = np.asarray(X, dtype=np.float64)
        Y = X if Y is None else np.asarray(Y, dtype=np.float64)
    if base == "centered":
        if semimetric == "power":
            R, log2 = ref_rho(Xn, Xn, e, semimetric, alpha, sigma)
        else:
            R, log2 = ref_rho_bounded(X, X, semimetric, sigma), 0.0
        G = -0.5 * (R - R.mean(axis=0)[None, :] - R.mean(axis=1)[:, None] + R.mean())
        T = np.full(G.shape, float(np.max(R)) if R.size else 0.0)
        return G, T, log2
    if semimetric == "power":
        # A common scale for |x|, |y| and |x - y| (no renormalisation of the distances).
        with np.errstate(all="ignore"):
            nx = row_norms(Xn) ** alpha
            ny = row_norms(Yn) ** alpha
            d = pair_norms(Xn, Yn) ** alpha
        log2 = alpha * e
    else:
        nx = ref_rho_bounded(X, zero, semimetric, sigma)[:, 0]
        ny = ref_rho_bounded(Y, zero, semimetric, sigma)[:, 0]
        d, log2 = ref_rho_bounded(X, Y, semimetric, sigma), 0.0
    G = 0.5 * (nx[:, None] + ny[None, :] - d)
    T = nx[:, None] + ny[None, :] + d
    return G, T, log2


def ref_partition_stats(
    rho: np.ndarray, mag: np.ndarray, labels: np.ndarray, k: int, w: np.ndarray
) -> dict[str, Any]:
    """W, S, total, g and the magnitudes of their terms, in the units of ``rho`` and ``w``."""
    onehot = np.zeros((labels.size, k))
    onehot[np.arange(labels.size), labels] = w
    with np.errstate(all="ignore"):
        P = onehot.T @ rho @ onehot
        Pm = onehot.T @ mag @ onehot
        s = onehot.sum(axis=0)
        total_s = float(s.sum())
        g = P / np.outer(s, s)
        gm = Pm / np.outer(s, s)
        W = float(np.sum(np.diag(P) / (2 * s)))
        Wm = float(np.sum(np.diag(Pm) / (2 * s)))
        total = float(P.sum() / (2 * total_s))
        total_m = float(Pm.sum() / (2 * total_s))
    S = total - W
    return dict(W=W, Wm=Wm, S=S, total=total, total_m=total_m, g=g, gm=gm, s=s, k=k)


def close(got: float, want: float, tol: float) -> bool:
    return bool(np.isfinite(got)) and abs(got - want) <= tol


# ============================================================================== strategies

SCALES = st.one_of(
    st.just(1.0),
    st.sampled_from([1e-300, 1e-200, 1e-170, 1e-100, 1e-20, 1e20, 1e100, 1e170, 1e200, 1e300]),
    st.integers(-300, 300).map(lambda e: 10.0**e),
)
OFFSETS = st.one_of(
    st.just(0.0), st.sampled_from([1e3, 1e6, 1e9, -1e9]), st.floats(-1e9, 1e9, allow_nan=False)
)
SIZES = st.one_of(st.integers(1, 6), st.integers(1, 40))
SEEDS = st.integers(0, 2**32 - 1)
REAL_DTYPES = ["float64", "float64", "float64", "float32", "int64", "int32", "uint8", "bool", "float16"]
LAYOUTS = ["C", "C", "F", "strided", "reversed", "readonly"]


class Chooser:
    """Draws each argument from its valid or its invalid choices.

    Mode "valid": every argument valid (extreme but legal values included); "one-bad": at most
    one argument invalid; "any": each argument independently valid or not. Without the first two
    modes almost every example would be rejected for some argument and the properties of the
    results would rarely be exercised.
    """

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.mode = data.draw(st.sampled_from(["valid", "valid", "one-bad", "any"]), label="argument mode")
        self.spent = False

    def bad(self, name: str) -> bool:
        if self.mode == "valid":
            return False
        if self.mode == "any":
            return self.data.draw(st.booleans(), label=f"invalid {name}")
        if self.spent:
            return False
        self.spent = self.data.draw(st.integers(0, 4), label=f"invalid {name}") == 0
        return self.spent

    def pick(self, name: str, valid: list[Any], invalid: list[Any]) -> Any:
        choices = invalid if invalid and self.bad(name) else valid
        return self.data.draw(st.sampled_from(choices), label=name)


def draw_dtype_layout(
    data: st.DataObject,
    values: np.ndarray,
    ch: Optional[Chooser] = None,
    name: str = "array",
    dtypes: list[str] = REAL_DTYPES,
) -> np.ndarray:
    """``values`` converted to a drawn dtype (complex/object when ``ch`` allows an invalid one)
    and presented in a drawn memory layout."""
    if ch is not None:
        dtype = ch.pick(f"{name} dtype", dtypes, ["complex128", "object"])
    else:
        dtype = data.draw(st.sampled_from(dtypes), label=f"{name} dtype")
    layout = data.draw(st.sampled_from(LAYOUTS), label=f"{name} layout")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype == "object":
            array = np.empty(values.shape, dtype=object)
            array[...] = values.tolist() if values.ndim else values.item()
        else:
            array = values.astype(dtype)
    if array.ndim == 0 or array.size == 0:
        return array
    if layout == "F":
        return np.asfortranarray(array)
    if layout == "strided":
        return _strided(array)
    if layout == "reversed":
        return _reversed(array)
    if layout == "readonly":
        return _readonly(array)
    return np.ascontiguousarray(array)


def base_points(rng: np.random.Generator, pattern: str, n: int, D: int) -> np.ndarray:
    if pattern == "normal":
        return rng.standard_normal((n, D))
    if pattern == "integers":
        return rng.integers(-3, 4, (n, D)).astype(np.float64)
    if pattern == "duplicates":
        rows = rng.standard_normal((2, D))
        return rows[rng.integers(0, 2, n)]
    if pattern == "constant":
        return np.ones((n, D))
    if pattern == "zero":
        return np.zeros((n, D))
    centers = rng.uniform(-5, 5, (3, D))  # blobs
    return centers[rng.integers(0, 3, n)] + 0.01 * rng.standard_normal((n, D))


@st.composite
def point_values(draw: Any, n: int, D: int, nonfinite: bool = False) -> np.ndarray:
    """float64 data: a pattern, times a scale, plus an offset; sometimes one extreme finite value,
    and with ``nonfinite`` one NaN or infinity."""
    rng = np.random.default_rng(draw(SEEDS, label="seed"))
    pattern = draw(st.sampled_from(["normal", "integers", "duplicates", "blobs", "constant", "zero"]))
    scale = draw(SCALES, label="scale")
    offset = draw(OFFSETS, label="offset")
    per_column = draw(st.booleans(), label="offset per column")
    with np.errstate(all="ignore"):
        shift = offset * rng.uniform(-1, 1, D) if per_column else offset
        values = base_points(rng, pattern, n, D) * scale + shift
    choices = [np.nan, np.inf, -np.inf] if nonfinite else [None] * 8 + [FLOAT_MAX, -FLOAT_MAX, 5e-324]
    special = draw(st.sampled_from(choices), label="special value")
    if special is not None and values.size:
        values.flat[draw(st.integers(0, values.size - 1))] = special
    return values


def draw_points(data: st.DataObject, ch: Chooser, n: int, D: int, name: str = "X") -> Any:
    """Data for an X-like argument (n points in D dimensions), or an invalid one."""
    shape = ch.pick(
        f"{name} shape",
        ["2d"] * 8 + ["1d", "list"],
        ["3d", "scalar", "empty-rows", "empty-cols", "nonfinite", "dtype"],
    )
    if shape == "1d":
        return draw_dtype_layout(data, data.draw(point_values(n, 1)).ravel(), None, name)
    if shape == "3d":
        return np.zeros((n, D, 2))
    if shape == "scalar":
        return np.float64(1.0)
    if shape == "list":
        return data.draw(point_values(n, D)).tolist()
    if shape == "empty-rows":
        return np.zeros((0, D))
    if shape == "empty-cols":
        return np.zeros((n, 0))
    if shape == "nonfinite":
        return draw_dtype_layout(data, data.draw(point_values(n, D, nonfinite=True)), None, name)
    if shape == "dtype":
        return draw_dtype_layout(data, data.draw(point_values(n, D)), None, name, ["complex128", "object"])
    return draw_dtype_layout(data, data.draw(point_values(n, D)), None, name)


def points_problems(X: Any, name: str = "X") -> tuple[list[str], Optional[np.ndarray]]:
    """Reasons why ``X`` is not valid data, and its float64 (n, D) values when it is real."""
    a = np.asarray(X)
    if a.dtype.kind == "c":
        return [f"{name} is complex"], None
    if a.dtype.kind not in "biuf":
        return [], None  # object: either a TypeError or a conversion is fine
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        return [f"{name} has {a.ndim} dimensions"], None
    if a.shape[0] == 0 or a.shape[1] == 0:
        return [f"{name} is empty"], None
    with np.errstate(all="ignore"):
        values = a.astype(np.float64)
    if not np.all(np.isfinite(values)):
        return [f"{name} is not finite"], values
    return [], values


def int_problems(value: Any, name: str, lo: int, hi: int) -> tuple[list[str], bool]:
    """(reasons ``value`` is not an int in [lo, hi], whether it does not fit a C integer)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return [f"{name} = {value!r} is not an integer"], False
    v = int(value)
    huge = abs(v) >= C_INT_LIMIT
    if not lo <= v <= hi:
        return [f"{name} = {v} is out of range [{lo}, {hi}]"], huge
    return [], huge


def draw_k(data: st.DataObject, ch: Chooser, n: int, name: str = "k") -> tuple[Any, list[str], bool]:
    """(k, reasons why it is invalid, whether it is too large for a C integer)."""
    valid = sorted({1, n, max(1, n - 1), min(n, 2), min(n, 3), min(n, 4)}) + [np.int64(min(n, 2))]
    invalid = [
        0,
        n + 1,
        -1,
        2**62,
        2**62 + 1,
        2**63,
        2**64 + 1,
        10**30,
        -(2**63) - 1,
        True,
        2.0,
        "2",
        None,
        np.uint64(2**63 + 1),
        np.int32(-2),
    ]
    k = ch.pick(name, valid, invalid)
    return (k, *int_problems(k, name, 1, n))


def draw_threads(data: st.DataObject, ch: Chooser) -> tuple[Any, list[str], bool]:
    t = ch.pick(
        "n_threads", [None, None, 1, 2, np.int64(2), -1, np.int64(-1)], [0, -(10**6), 1025, 2**64, True, 1.5]
    )
    if t is None:
        return None, [], False
    if not isinstance(t, (bool, np.bool_)) and isinstance(t, (int, np.integer)) and int(t) == -1:
        return t, [], False  # all cores, as None
    if not isinstance(t, (bool, np.bool_)) and isinstance(t, (int, np.integer)) and int(t) == -(10**6):
        return t, ["n_threads = -10**6 leaves no thread"], False
    return (t, *int_problems(t, "n_threads", 1, 1024))


def draw_weights(
    data: st.DataObject, ch: Chooser, n: int, strict: bool = True
) -> tuple[Any, list[str], Optional[np.ndarray]]:
    """(weights, reasons why invalid, float64 values when real and well shaped).

    ``strict``: zero weights are invalid (the core clustering); otherwise ``>= 0`` is allowed.
    """
    valid = ["none"] * 4 + ["ones", "positive", "positive", "extreme", "huge", "tiny", "int", "list"]
    invalid = ["negative", "nan", "inf", "short", "2d", "complex", "object"]
    (invalid if strict else valid).extend(["zeros", "bool"])
    kind = ch.pick("weights", valid, invalid)
    if kind == "none":
        return None, [], None
    rng = np.random.default_rng(data.draw(SEEDS, label="weights seed"))
    w: Any = rng.uniform(0.1, 10.0, n)
    if kind == "ones":
        w = np.ones(n)
    elif kind == "positive":
        w = w * data.draw(SCALES, label="weights scale")
    elif kind == "extreme":
        exponent = data.draw(st.integers(-150, 150), label="weights exponent")
        w = 10.0 ** rng.uniform(-150, 150, n) * 10.0**exponent
    elif kind == "huge":
        w = w * 1e200
    elif kind == "tiny":
        w = w * 1e-200
    elif kind in ("zeros", "negative", "nan", "inf"):
        w[rng.integers(0, n)] = {"zeros": 0.0, "negative": -1.0, "nan": np.nan, "inf": np.inf}[kind]
    elif kind == "short":
        w = w[:-1] if n > 1 else np.ones(2)
    elif kind == "2d":
        w = w.reshape(-1, 1)
    elif kind == "int":
        w = rng.integers(1, 5, n)
    elif kind == "bool":
        w = np.ones(n, dtype=bool)
        w[rng.integers(0, n)] = False
    elif kind == "complex":
        w = w.astype(np.complex128)
    elif kind == "object":
        obj = np.empty(n, dtype=object)
        obj[...] = w.tolist()
        w = obj
    elif kind == "list":
        return w.tolist(), [], w
    return weights_problems(w, n, strict)


def weights_problems(w: Any, n: int, strict: bool) -> tuple[Any, list[str], Optional[np.ndarray]]:
    a = np.asarray(w)
    if a.dtype.kind == "c":
        return w, ["weights are complex"], None
    if a.dtype.kind not in "biuf":
        return w, [], None  # object: a TypeError or a conversion are both fine
    if a.shape != (n,):
        return w, [f"weights have shape {a.shape}, not ({n},)"], None
    v = a.astype(np.float64)
    if not np.all(np.isfinite(v)):
        return w, ["weights are not finite"], v
    if np.any(v < 0):
        return w, ["weights are negative"], v
    if strict and np.any(v == 0):
        return w, ["a weight is 0"], v
    return w, [], v


def draw_labels(data: st.DataObject, ch: Chooser, n: int, k: int, name: str = "labels") -> Any:
    """Labels for n points and k clusters: valid (every cluster used) or broken in a drawn way."""
    rng = np.random.default_rng(data.draw(SEEDS, label=f"{name} seed"))
    kk = max(1, min(k, n))
    labels = rng.permutation(np.concatenate([np.arange(kk), rng.integers(0, kk, max(0, n - kk))]))
    labels = labels.astype(np.int64)
    kind = ch.pick(
        name,
        ["valid"] * 4 + ["int32", "list", "uint8"],
        ["out-of-range", "negative", "short", "long", "empty-cluster", "float", "bool", "uint64-huge", "2d"],
    )
    if kind == "out-of-range":
        labels[rng.integers(0, n)] = kk + int(rng.integers(0, 3)) * 1000
    elif kind == "negative":
        labels[rng.integers(0, n)] = -1
    elif kind == "short":
        labels = labels[:-1]
    elif kind == "long":
        labels = np.append(labels, 0)
    elif kind == "empty-cluster" and kk > 1:
        labels[labels == 0] = 1  # label 0 unused
    elif kind == "float":
        return labels.astype(np.float64)
    elif kind == "bool":
        return labels.astype(bool)
    elif kind == "uint64-huge":
        big = labels.astype(np.uint64)
        big[rng.integers(0, n)] = np.uint64(2**63 + 5)
        return big
    elif kind in ("int32", "uint8"):
        return labels.astype(kind)
    elif kind == "2d":
        return labels.reshape(-1, 1)
    elif kind == "list":
        return labels.tolist()
    return labels


def labels_problems(labels: Any, n: int, k: Optional[int] = None) -> tuple[list[str], Optional[np.ndarray]]:
    """Why ``labels`` are not n labels using exactly 0..k-1 (k = max + 1 when None), and their
    int64 values when they are."""
    a = np.asarray(labels)
    if a.dtype.kind not in "iu":
        return [f"labels of dtype {a.dtype}"], None
    if a.shape != (n,):
        return [f"labels of shape {a.shape}, not ({n},)"], None
    if a.min() < 0:
        return ["a label is negative"], None
    top = int(a.max()) + 1 if k is None else k
    if int(a.max()) >= top:
        return ["a label is >= k"], None
    if np.unique(a).size != top:
        return ["a cluster is empty"], None
    return [], a.astype(np.int64)


def draw_init(data: st.DataObject, ch: Chooser, n: int, k: Any) -> tuple[Any, list[str]]:
    """(init, reasons it is invalid for this k)."""
    choice = ch.pick("init", ["k-means++", "random", "labels", "labels"], ["bogus"])
    if choice == "bogus":
        return "kmeans", ["init is not a known method"]
    if choice != "labels":
        return choice, []
    valid_k = isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 1 <= k <= n
    labels = draw_labels(data, ch, n, int(k) if valid_k else 2, "init labels")
    problems, _ = labels_problems(labels, n, int(k) if valid_k else None)
    return labels, problems


def draw_random_state(data: st.DataObject, ch: Chooser) -> tuple[Any, list[str]]:
    choice = ch.pick(
        "random_state",
        [None, 0, 1, 2**64 - 1, 2**64, 2**100, "generator", "randomstate"],
        [-1, 1.5, "seed", True],
    )
    if choice == "generator":
        return np.random.default_rng(0), []
    if choice == "randomstate":
        return np.random.RandomState(0), []
    if choice is None:
        return None, []
    if isinstance(choice, bool) or not isinstance(choice, int):
        return choice, [f"random_state = {choice!r} is not an integer or generator"]
    if choice < 0:
        return choice, ["random_state is negative"]
    return choice, []


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int, float]] = []

    def __call__(self, start: int, sweep: int, moves: int, objective: float) -> None:
        self.calls.append((start, sweep, moves, objective))

    def __repr__(self) -> str:
        return "_Recorder()"


def _raising_progress(start: int, sweep: int, moves: int, objective: float) -> None:
    raise ValueError("stopped by the progress callback")


def draw_common(
    data: st.DataObject, ch: Chooser, explicit_init: bool, *, progress: bool = True, terminates: bool = False
) -> tuple[dict[str, Any], list[str], bool]:
    """n_init, max_iter, random_state, n_threads and progress, with the reasons they are invalid.

    ``terminates``: the algorithm stops by itself (Hartigan's method), so a huge ``max_iter`` is
    safe. Lloyd's method can cycle for ever on an indefinite kernel, so it gets a small one.
    """
    problems: list[str] = []
    n_init = ch.pick(
        "n_init",
        [1] if explicit_init else [1, 1, 2, 3],
        [0, 1_000_001, 2**64, 1.0] + ([2] if explicit_init else []),
    )
    p, huge = int_problems(n_init, "n_init", 1, 1_000_000)
    problems += p
    if explicit_init and n_init != 1 and not p:
        problems.append("n_init != 1 with explicit labels")
    max_iter = ch.pick(
        "max_iter",
        [300, 300, 1, 2] + ([2**31, 2**62, 2**64 - 1] if terminates else [50]),
        [0, -5, 2**64, 2**64 + 1, 1.0],
    )
    # max_iter has no upper bound beyond what the core's 64-bit counts hold.
    p, h = int_problems(max_iter, "max_iter", 1, 2**64 - 1)
    problems += p
    huge |= h
    random_state, p = draw_random_state(data, ch)
    problems += p
    n_threads, p, h = draw_threads(data, ch)
    problems += p
    huge |= h
    kwargs: dict[str, Any] = dict(
        n_init=n_init, max_iter=max_iter, random_state=random_state, n_threads=n_threads
    )
    if progress:
        choice = ch.pick("progress", [None, None, "recorder"], ["raises", "not-callable"])
        if choice == "recorder":
            kwargs["progress"] = _Recorder()
        elif choice == "raises":
            kwargs["progress"] = _raising_progress
            problems.append("the progress callback raises ValueError")
        elif choice == "not-callable":
            kwargs["progress"] = 42
            problems.append("progress is not callable")
    return kwargs, problems, huge


# ============================================================================== result checks


def check_labels(labels: Any, n: int, k: int, all_used: bool = True) -> None:
    assert isinstance(labels, np.ndarray), type(labels)
    assert labels.dtype == np.int64, labels.dtype
    assert labels.shape == (n,), labels.shape
    if n:
        assert labels.min() >= 0 and labels.max() < k, (labels.min(), labels.max(), k)
        if all_used:
            assert np.unique(labels).size == min(k, n), f"{np.unique(labels).size} of {k} clusters used"


def check_result(
    res: Any,
    n: int,
    k: int,
    *,
    hartigan: bool,
    G: Optional[np.ndarray] = None,
    G_log2: float = 0.0,
    mag: Optional[np.ndarray] = None,
    rel: float = 1e-9,
    w: Optional[np.ndarray] = None,
    psd: bool = False,
    max_iter: Any = None,
    approximate: bool = False,
    finite_terms: bool = True,
) -> None:
    """A ClusteringResult that looks right.

    With ``G`` (the kernel is ``G * 2**G_log2``; ``mag`` the size of the rounding in its entries,
    default ``|G|``), ``objective``, ``within`` and ``cluster_terms`` agree with a float64
    reference; ``cluster_terms`` may be infinite only where the true ``Q_j`` exceeds the float
    range. Without ``G``, ``finite_terms`` asks for finite ``cluster_terms``.
    """
    assert isinstance(res, kgroups_rs.ClusteringResult), type(res)
    check_labels(res.labels, n, k)
    assert res.approximate is approximate
    assert np.isfinite(res.objective), f"objective = {res.objective} from finite input"
    assert np.isfinite(res.within), f"within = {res.within} from finite input"
    history = np.asarray(res.objective_history)
    assert history.size >= 1 and np.all(np.isfinite(history)), f"objective_history = {history}"
    assert isinstance(res.converged, bool) and res.n_iter >= 1, (res.converged, res.n_iter)
    if isinstance(max_iter, int) and not isinstance(max_iter, bool):
        assert res.n_iter <= max_iter, (res.n_iter, max_iter)
    terms = np.asarray(res.cluster_terms)
    assert terms.shape == (k,), terms.shape
    assert not np.any(np.isnan(terms)), f"cluster_terms = {terms}"
    if hartigan:
        slack = 8 * max(n, 1) * EPS * float(np.max(np.abs(history)))
        # Below the normal range (a graph with subnormal weights) rounding is absolute: 2^-1074
        # per operation in the core's frame, the weights scaled into [1, 2).
        frame = normalized(w)[1] - 1 if w is not None else 0
        slack += float(rescale(16 * (k + 1) * 2.0**-1074, frame))
        drops = np.diff(history)
        assert np.all(drops >= -slack), f"objective_history decreases: {history.tolist()}"
    if G is None:
        if finite_terms:
            assert np.all(np.isfinite(terms)), f"cluster_terms = {terms} from finite input"
        return
    weights = np.ones(n) if w is None else w
    Gn, eg0 = normalized(G)
    eg = eg0 + G_log2
    with np.errstate(all="ignore"):
        Mn = np.abs(Gn) if mag is None else np.ldexp(np.asarray(mag, dtype=np.float64), -eg0)
    wn, ew = normalized(weights)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), res.labels] = wn
    with np.errstate(all="ignore"):
        s = onehot.sum(axis=0)
        Qj = np.einsum("ij,ik,kj->j", onehot, Gn, onehot)
        Qjm = np.einsum("ij,ik,kj->j", onehot, Mn, onehot)
        Q = float(np.sum(Qj / s))
        trace = float(np.sum(wn * np.diag(Gn)))
        magnitude = float(np.sum(Qjm / s)) + float(np.sum(wn * np.diag(Mn)))
        # The core updates each Q_j at every move (and the sums m_l(i) it uses): rounding of
        # eps times the largest terms it ever added, s * max w * max |G|, per update.
        drift = 4 * (res.n_moves + n) * EPS * float(s.sum() * np.max(wn) * np.max(Mn))
        drift_q = drift * float(np.sum(1 / s))
    log2 = eg + ew
    # The core works with the weights scaled into [1, 2) (by 2^-(ew - 1)); there a sum that
    # falls below the normal range (G with subnormal entries) is rounded to 2^-1074 absolute,
    # whatever the caller's scale: that much per update of a sum, at the caller's scale.
    subnormal = 8.0 * (n + res.n_moves + 1) * 2.0**-1074
    tol = rescale(rel * magnitude + drift_q, log2) + FLOOR
    tol += rescale(subnormal * float(np.sum(1 / (2 * s))), ew - 1)
    want_q = float(rescale(Q, log2))
    want_w = float(rescale(trace - Q, log2))
    assert close(res.objective, want_q, tol), (
        f"objective {res.objective!r}, reference {want_q!r} +- {tol:.3g}"
    )
    assert close(res.within, want_w, tol), f"within {res.within!r}, reference {want_w!r} +- {tol:.3g}"
    want_terms = rescale(Qj, eg + 2 * ew)
    term_tol = rescale(rel * Qjm + drift, eg + 2 * ew) + FLOOR + rescale(subnormal, 2 * (ew - 1))
    for j in range(k):
        if np.isfinite(term_tol[j]) and term_tol[j] < FLOAT_MAX * 1e-9:
            assert close(terms[j], want_terms[j], term_tol[j]), (
                f"cluster_terms[{j}] = {terms[j]!r}, reference {want_terms[j]!r}"
            )
    if psd:
        assert res.within >= -tol, f"W = {res.within} < 0 for a positive semi-definite kernel"


# ============================================================================== kernel matrices

VALID_G = ["energy", "energy", "features", "symmetric", "constant", "diagonal", "graph", "huge"]
INVALID_G = ["asymmetric", "antisymmetric-huge", "one-sided-huge", "nonfinite", "bad-shape"]


def draw_kernel(data: st.DataObject, ch: Chooser, n: int) -> tuple[np.ndarray, str, bool]:
    """(float64 matrix, family, positive semi-definite)."""
    family = ch.pick("G family", VALID_G, INVALID_G)
    rng = np.random.default_rng(data.draw(SEEDS, label="G seed"))
    psd = family in ("energy", "features", "constant", "diagonal", "huge")
    if family == "energy":
        X = data.draw(point_values(n, data.draw(st.integers(1, 3), label="D")))
        if not np.all(np.isfinite(X)):
            X = np.zeros_like(X)
        alpha = data.draw(st.sampled_from([1.0, 2.0, 0.5]), label="alpha")
        Gu, _, log2 = ref_gram(X, None, "power", alpha, 1.0, "origin")
        G = rescale(0.5 * (Gu + Gu.T), log2)
    elif family in ("features", "huge"):
        F = rng.standard_normal((n, data.draw(st.integers(1, 4), label="rank")))
        G = F @ F.T
        if family == "huge":
            G = G / np.max(np.abs(G)) * data.draw(st.sampled_from([1e300, 1e307, FLOAT_MAX]), label="max")
    elif family == "symmetric":
        A = rng.standard_normal((n, n))
        G = (A + A.T) / 2
    elif family == "constant":
        G = np.full((n, n), 1.0)
    elif family == "diagonal":
        G = np.diag(rng.uniform(0.1, 2.0, n))
    elif family == "graph":
        A = np.triu((rng.random((n, n)) < 0.4).astype(np.float64), 1)
        G = A + A.T
    elif family == "bad-shape":
        shape = data.draw(st.sampled_from([(n, n + 1), (n,), (n, n, 1), (0, 0), (1, 0)]), label="shape")
        return np.ones(shape), family, False
    else:
        A = rng.standard_normal((n, n))
        G = (A + A.T) / 2
        a, b = rng.integers(0, n, 2)
        if family == "asymmetric" and a != b:
            rel = data.draw(st.sampled_from([1e-15, 1e-12, 1e-10, 1e-8, 1e-6, 1e-3, 1.0]), label="asymmetry")
            G[a, b] *= 1 + rel
        elif family == "antisymmetric-huge" and n > 1:
            b = (a + 1) % n
            v = data.draw(st.sampled_from([1e200, 1e300, 1e308, FLOAT_MAX]), label="v")
            G[a, b], G[b, a] = v, -v
        elif family == "one-sided-huge" and n > 1:
            b = (a + 1) % n
            G[a, b] = data.draw(st.sampled_from([1e200, 1e300, FLOAT_MAX]), label="v")
        elif family == "nonfinite":
            G[a, b] = G[b, a] = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]), label="bad")
    if family not in ("huge", "antisymmetric-huge", "nonfinite", "one-sided-huge"):
        with np.errstate(all="ignore"):
            G = G * data.draw(SCALES, label="G scale")
    return G, family, psd


def kernel_problems(G: Any, check_symmetry: bool = True) -> tuple[list[str], Optional[np.ndarray]]:
    """(reasons the kernel is invalid, its float64 values)."""
    a = np.asarray(G) if not scipy_sparse.issparse(G) else G.toarray()
    if a.dtype.kind == "c":
        return ["G is complex"], None
    if a.dtype.kind not in "biuf":
        return ["G is not real"], None
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        return [f"G has shape {a.shape}"], None
    single = a.dtype == np.float32
    with np.errstate(all="ignore"):
        values = a.astype(np.float64)
    if not np.all(np.isfinite(values)):
        bad = ~np.isfinite(values)
        if check_symmetry or np.any(bad & bad.T):
            return ["G is not finite"], values
        # Without the check one triangle of G is read: a non-finite entry whose mirror is
        # finite makes G asymmetric, and the result for an asymmetric G is undefined (a
        # refusal or any labels), so nothing is checked.
        return [], None
    if not check_symmetry:
        return [], values
    if asymmetric(values, 1e-3 if single else 1e-6):
        return ["G is asymmetric"], values
    return [], values


def asymmetric(values: np.ndarray, threshold: float) -> bool:
    """Some pair differs by more than ``threshold`` relative to the pair and to the largest entry
    (far above every tolerance the package documents), or by more than the float range."""
    with np.errstate(all="ignore"):
        diff = np.abs(values - values.T)
        size = np.maximum(np.abs(values), np.abs(values.T))
        big = float(np.max(np.abs(values))) if values.size else 0.0
    return bool(np.any((diff > threshold * size) & (diff > threshold * big)) or np.any(np.isinf(diff)))


# ============================================================================== clustering on G

CLUSTER_METHODS = {
    "kernel_kgroups": (kgroups_rs.kernel_kgroups, {}),
    "kernel_kmeans-batch": (kgroups_rs.kernel_kmeans, {"algorithm": "lloyd"}),
    "kernel_kmeans-online": (kgroups_rs.kernel_kmeans, {"algorithm": "lloyd-online"}),
}


def draw_clustering_args(
    data: st.DataObject, ch: Chooser, n: int, hartigan: bool, with_weights: bool = True
) -> tuple[Any, Any, Any, Optional[np.ndarray], dict[str, Any], list[str], bool]:
    """k, init, weights (and their values), the common options, the reasons invalid, huge ints."""
    k, k_problems, huge = draw_k(data, ch, n)
    init, init_problems = draw_init(data, ch, n, k)
    weights, w_problems, w = draw_weights(data, ch, n) if with_weights else (None, [], None)
    kwargs, common_problems, huge2 = draw_common(data, ch, not isinstance(init, str), terminates=hartigan)
    invalid = k_problems + init_problems + w_problems + common_problems
    return k, init, weights, w, kwargs, invalid, huge or huge2


@fuzz(150)
@given(st.data())
def test_dense_kernel_clustering(data: st.DataObject) -> None:
    """kernel_kgroups / kernel_kmeans on dense matrices of every kind, dtype and layout."""
    ch = Chooser(data)
    method = data.draw(st.sampled_from(sorted(CLUSTER_METHODS)), label="method")
    fn, extra = CLUSTER_METHODS[method]
    n = data.draw(SIZES, label="n")
    G, family, psd = draw_kernel(data, ch, n)
    G = draw_dtype_layout(data, G, ch, "G", ["float64", "float64", "float32", "float32", "int64", "bool"])
    check_symmetry = data.draw(st.sampled_from([True, True, True, False]), label="check_symmetry")
    problems, values = kernel_problems(G, check_symmetry)
    k, init, weights, w, kwargs, invalid, huge = draw_clustering_args(data, ch, n, method == "kernel_kgroups")
    res = attempt(
        fn,
        G,
        k,
        init,
        weights=weights,
        check_symmetry=check_symmetry,
        **extra,
        **kwargs,
        invalid=problems + invalid,
        huge_int=huge,
    )
    if res is None or values is None:
        return
    symmetric = bool(np.array_equal(values, values.T))
    psd = psd and symmetric and np.asarray(G).dtype == np.float64  # float32 rounding may break it
    check_result(
        res,
        n,
        int(k),
        hartigan=method == "kernel_kgroups",
        G=values if symmetric else None,
        w=w,
        psd=psd,
        max_iter=kwargs["max_iter"],
        finite_terms=False,
    )


SPARSE_FORMATS = [
    "csr_array",
    "csr_matrix",
    "csc_array",
    "coo_array",
    "lil_array",
    "dok_array",
    "bsr_array",
    "csr-unsorted",
    "csr-duplicates",
    "csr-explicit-zeros",
    "csr-int64-indices",
    "csr-float32",
]


def to_sparse(data: st.DataObject, G: np.ndarray) -> Any:
    """G as a scipy.sparse matrix in a drawn format (all valid, some not canonical)."""
    name = data.draw(st.sampled_from(SPARSE_FORMATS), label="sparse format")
    n = G.shape[0]
    csr = scipy_sparse.csr_array(G)
    if hasattr(scipy_sparse, name):
        return getattr(scipy_sparse, name)(G)
    if name == "csr-unsorted":
        # Each row's entries reversed: valid CSR, not canonical.
        indptr, indices, vals = csr.indptr, csr.indices.copy(), csr.data.copy()
        for r in range(n):
            lo, hi = indptr[r], indptr[r + 1]
            indices[lo:hi] = indices[lo:hi][::-1]
            vals[lo:hi] = vals[lo:hi][::-1]
        return scipy_sparse.csr_array((vals, indices, indptr.copy()), shape=G.shape)
    if name == "csr-duplicates":
        # Every stored entry split in two halves: valid CSR with duplicates, summing to G.
        coo = scipy_sparse.coo_array(G)
        half = coo.data / 2
        rows = np.concatenate([coo.row, coo.row])
        cols = np.concatenate([coo.col, coo.col])
        vals = np.concatenate([half, coo.data - half])
        order = np.argsort(rows, kind="stable")
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
        return scipy_sparse.csr_array((vals[order], cols[order], indptr), shape=G.shape)
    if name == "csr-explicit-zeros":
        return scipy_sparse.csr_array(
            (G.ravel().copy(), np.tile(np.arange(n), n), np.arange(0, n * n + 1, n)), shape=G.shape
        )
    if name == "csr-int64-indices":
        return scipy_sparse.csr_array(
            (csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64)), shape=G.shape
        )
    return scipy_sparse.csr_array(G.astype(np.float32))


@fuzz(100)
@given(st.data())
def test_sparse_kernel_clustering(data: st.DataObject) -> None:
    """The same on scipy.sparse kernels in every format (sparse kernels are always checked)."""
    ch = Chooser(data)
    method = data.draw(st.sampled_from(sorted(CLUSTER_METHODS)), label="method")
    fn, extra = CLUSTER_METHODS[method]
    n = data.draw(SIZES, label="n")
    G, family, psd = draw_kernel(data, ch, n)
    if G.ndim != 2 or G.shape[0] != G.shape[1] or G.size == 0:
        return
    if data.draw(st.booleans(), label="sparsify"):
        with np.errstate(all="ignore"):
            G = np.where(np.abs(G) < np.median(np.abs(G)), 0.0, G)
        psd = False
    S = to_sparse(data, G)
    problems, values = kernel_problems(S)
    k, init, weights, w, kwargs, invalid, huge = draw_clustering_args(data, ch, n, method == "kernel_kgroups")
    res = attempt(
        fn, S, k, init, weights=weights, **extra, **kwargs, invalid=problems + invalid, huge_int=huge
    )
    if res is None or values is None:
        return
    symmetric = bool(np.array_equal(values, values.T))
    check_result(
        res,
        n,
        int(k),
        hartigan=method == "kernel_kgroups",
        G=values if symmetric else None,
        w=w,
        psd=psd and symmetric and S.dtype == np.float64,
        max_iter=kwargs["max_iter"],
        finite_terms=False,
    )


# ============================================================================== kernels from data


def draw_semimetric(data: st.DataObject, ch: Chooser) -> tuple[str, Any, Any]:
    semimetric = ch.pick("semimetric", ["power", "power", "exponential", "gaussian"], ["euclidean"])
    alpha = ch.pick(
        "alpha",
        [1.0, 1.0, 0.5, 2.0, 1.5, 1e-300, 5e-324] if semimetric == "power" else [1.0],
        [0.0, -1.0, 2.0000000000000004, 3.0, np.nan, np.inf, None],
    )
    sigma = ch.pick(
        "sigma",
        [None, None, 1.0, 0.1, 1e-300, 1e300, 5e-324] if semimetric != "power" else [None],
        [0.0, -1.0, np.nan, np.inf],
    )
    return semimetric, alpha, sigma


def is_default_alpha(alpha: Any) -> bool:
    """alpha = 1.0, the default, which every semimetric accepts (it cannot be told from none)."""
    return isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and float(alpha) == 1.0


def semimetric_problems(semimetric: str, alpha: Any, sigma: Any, X: Optional[np.ndarray]) -> list[str]:
    """Why the semimetric is invalid (for the data X, when given, as the default bandwidth)."""
    if semimetric not in ("power", "exponential", "gaussian"):
        return ["unknown semimetric"]
    if semimetric == "power":
        # sigma belongs to the exponential and gaussian semimetrics: refused, not ignored
        unused = [] if sigma is None else [f"sigma = {sigma!r} given with the power semimetric"]
        if alpha is None:
            return [*unused, "alpha is None"]
        a = float(alpha)
        return unused + ([] if 0 < a <= 2 else [f"alpha = {a} is outside (0, 2]"])
    if not is_default_alpha(alpha):
        return [f"alpha = {alpha!r} given with the {semimetric} semimetric"]
    if sigma is None:
        if X is not None and np.all(X == X[0]):
            return ["all points are identical, so the default bandwidth is 0"]
        return []
    s = float(sigma)
    return [] if np.isfinite(s) and s > 0 else [f"sigma = {s} is not finite and > 0"]


def effective_sigma(semimetric: str, sigma: Any, X: np.ndarray) -> tuple[float, float]:
    """(sigma, its allowed relative error)."""
    if semimetric == "power":
        return 1.0, 0.0
    if sigma is not None:
        return float(sigma), 0.0
    value, slack = ref_bandwidth(X)
    return value, slack / value if value > 0 else 0.0


def check_gram_values(
    got: np.ndarray,
    X: np.ndarray,
    Y: Optional[np.ndarray],
    semimetric: str,
    alpha: Any,
    sigma: Any,
    base: str,
    single: bool,
) -> None:
    """``got`` agrees with the float64 reference entry by entry."""
    a = 1.0 if semimetric != "power" else float(alpha)
    sig, sig_rel = effective_sigma(semimetric, sigma, X)
    Gu, Tu, log2 = ref_gram(X, Y, semimetric, a, sig, base)
    want = rescale(Gu, log2)
    mag = rescale(Tu, log2)
    rel = (1e-5 if single else 1e-9) + 2 * sig_rel
    floor = 1e-37 if single else FLOOR
    limit = float(np.finfo(np.float32).max) if single else FLOAT_MAX
    assert np.all(np.isfinite(want)) and np.all(np.abs(want) <= limit), (
        "returned a kernel whose true entries exceed the float range"
    )
    assert np.all(np.isfinite(got)), "non-finite kernel entries from finite input"
    tol = rel * np.where(np.isfinite(mag), mag, FLOAT_MAX) + floor
    if semimetric == "power":
        # The reference divides the data by 2**e (its largest value near 1): coordinates below
        # 2**(e - 1074) vanish there, so its distances are known only to sqrt(D) * 2**(e - 1074),
        # and rho = d**alpha to that resolution raised to alpha (the library is exact there).
        both = X if Y is None else np.vstack([X, Y])
        e = math.frexp(float(np.max(np.abs(both))))[1] if both.size and np.any(both) else 0
        resolution = math.sqrt(both.shape[1]) * 2.0 ** -1074
        tol = tol + float(rescale(np.asarray(resolution**a), a * e))
    else:
        # The library computes distances in the same power-of-two frame of the data (its
        # squares must not overflow), so a coordinate below 2**(e - 1074) vanishes there too
        # (1e-201 beside 1.8e308). rho changes by at most that distance over sigma, and G
        # holds three rho terms.
        both = X if Y is None else np.vstack([X, Y])
        e = math.frexp(float(np.max(np.abs(both))))[1] if both.size and np.any(both) else 0
        resolution = float(rescale(math.sqrt(both.shape[1]) * 2.0**-1074, e))
        tol = tol + 3 * resolution / sig
    bad = np.abs(got.astype(np.float64) - want) > tol
    if np.any(bad):
        i, j = np.argwhere(bad)[0]
        raise AssertionError(f"G[{i}, {j}] = {got[i, j]!r}, reference {want[i, j]!r} +- {tol[i, j]:.3g}")


@fuzz(120)
@given(st.data())
def test_energy_gram(data: st.DataObject) -> None:
    """energy_gram(X) and energy_gram(X, Y) entry by entry against a float64 reference."""
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    D = data.draw(st.integers(1, 4), label="D")
    X = draw_points(data, ch, n, D)
    with_y = data.draw(st.booleans(), label="with Y")
    Y = None
    if with_y:
        Y = draw_points(data, ch, data.draw(SIZES, label="m"), ch.pick("D of Y", [D], [D + 1]), name="Y")
    semimetric, alpha, sigma = draw_semimetric(data, ch)
    base = ch.pick(
        "base",
        ["origin", "origin"] + ([] if with_y else ["centered"]),
        ["middle"] + (["centered"] if with_y else []),
    )
    dtype = ch.pick("dtype", [np.float64, np.float32, "float32", None], [np.int64])
    n_threads, t_problems, huge = draw_threads(data, ch)
    problems, Xv = points_problems(X)
    Yv = None
    if with_y:
        py, Yv = points_problems(Y, "Y")
        problems += py
        if Xv is not None and Yv is not None and Xv.shape[1] != Yv.shape[1]:
            problems.append("X and Y have different D")
        if base == "centered":
            problems.append("base='centered' with Y")
    if base not in ("origin", "centered"):
        problems.append("unknown base")
    if dtype is np.int64:
        problems.append("dtype int64")
    problems += semimetric_problems(semimetric, alpha, sigma, Xv if not problems else None) + t_problems
    res = attempt(
        kgroups_rs.energy_gram,
        X,
        Y,
        semimetric=semimetric,
        alpha=alpha,
        sigma=sigma,
        base=base,
        dtype=dtype,
        n_threads=n_threads,
        invalid=problems,
        huge_int=huge,
    )
    if res is None or Xv is None or (with_y and Yv is None):
        return
    single = np.dtype(dtype) == np.float32
    assert isinstance(res, np.ndarray) and res.dtype == (np.float32 if single else np.float64), res.dtype
    assert res.shape == (Xv.shape[0], Xv.shape[0] if Y is None else Yv.shape[0]), res.shape
    if Y is None:
        assert np.array_equal(res, res.T), "energy_gram(X) is not exactly symmetric"
    check_gram_values(res, Xv, Yv, semimetric, alpha, sigma, base, single)


def semimetric_matrix_problems(R: Any) -> tuple[list[str], Optional[np.ndarray]]:
    a = np.asarray(R)
    if a.dtype.kind == "c":
        return ["R is complex"], None
    if a.dtype.kind not in "biuf":
        return [], None
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        return [f"R has shape {a.shape}"], None
    with np.errstate(all="ignore"):
        v = a.astype(np.float64)
    if not np.all(np.isfinite(v)):
        return ["R is not finite"], v
    big = float(np.max(np.abs(v)))
    if asymmetric(v, 1e-6):
        return ["R is asymmetric"], v
    if np.any(v < -1e-6 * big):
        return ["R is negative"], v
    if np.any(np.abs(np.diag(v)) > 1e-6 * big):
        return ["R has a non-zero diagonal"], v
    return [], v


def draw_semimetric_matrix(data: st.DataObject, ch: Chooser, n: int) -> tuple[np.ndarray, bool]:
    """(R, whether it is of negative type)."""
    kind = ch.pick(
        "R kind",
        ["data", "data", "random", "huge"],
        ["asymmetric", "negative", "diagonal", "nan", "bad-shape"],
    )
    rng = np.random.default_rng(data.draw(SEEDS, label="R seed"))
    if kind == "bad-shape":
        return np.zeros(data.draw(st.sampled_from([(n, n + 1), (n,), (0, 0)]), label="R shape")), False
    X = data.draw(point_values(n, data.draw(st.integers(1, 3), label="D")))
    if not np.all(np.isfinite(X)):
        X = np.zeros_like(X)
    Xn, e = normalized(X)
    d, e2 = normalized(pair_norms(Xn, Xn))
    alpha = data.draw(st.sampled_from([1.0, 2.0, 0.5]), label="alpha")
    R = rescale(d**alpha, alpha * (e + e2))
    if kind == "random":
        A = rng.uniform(0, 1, (n, n))
        R = A + A.T
        np.fill_diagonal(R, 0.0)
        return R, False
    if kind == "huge":
        R = R / max(float(np.max(R)), 1e-300) * data.draw(st.sampled_from([1e300, 1e308, FLOAT_MAX]))
    elif n > 1:
        a = int(rng.integers(0, n))
        b = (a + 1) % n
        big = max(float(np.max(R)), 1.0)
        if kind == "asymmetric":
            R[a, b] = R[a, b] * (1 + data.draw(st.sampled_from([1e-14, 1e-9, 1e-3, 1.0]))) + 1e-300
        elif kind == "negative":
            R[a, b] = R[b, a] = -data.draw(st.sampled_from([1e-20, 1.0])) * big
        elif kind == "diagonal":
            R[a, a] = data.draw(st.sampled_from([1e-20, 1.0])) * big
        elif kind == "nan":
            R[a, b] = R[b, a] = np.nan
    return R, True


@fuzz(80)
@given(st.data())
def test_gram_from_semimetric(data: st.DataObject) -> None:
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    R, _ = draw_semimetric_matrix(data, ch, n)
    R = draw_dtype_layout(data, R, ch, "R")
    base = ch.pick("base", ["origin", "centered"], ["middle"])
    dtype = data.draw(st.sampled_from([np.float64, np.float32]), label="dtype")
    n_threads, t_problems, huge = draw_threads(data, ch)
    problems, Rv = semimetric_matrix_problems(R)
    problems += t_problems + ([] if base in ("origin", "centered") else ["unknown base"])
    res = attempt(
        kgroups_rs.gram_from_semimetric,
        R,
        base,
        dtype=dtype,
        n_threads=n_threads,
        invalid=problems,
        huge_int=huge,
    )
    if res is None or Rv is None:
        return
    single = dtype == np.float32
    assert res.dtype == (np.float32 if single else np.float64) and res.shape == Rv.shape
    Rn, e = normalized(Rv)
    np.fill_diagonal(Rn, 0.0)  # documented: the diagonal is taken as exactly 0
    if base == "origin":
        want_u = 0.5 * (Rn[:, :1] + Rn[:1, :] - Rn)
        # |.| also of the first column: R may hold negatives of rounding size (-1e-20).
        mag_u = np.abs(Rn[:, :1]) + np.abs(Rn[:1, :]) + np.abs(Rn)
    else:
        want_u = -0.5 * (Rn - Rn.mean(axis=0)[None, :] - Rn.mean(axis=1)[:, None] + Rn.mean())
        mag_u = np.full(Rn.shape, float(np.max(np.abs(Rn))))
    want, mag = rescale(want_u, e), rescale(mag_u, e)
    limit = float(np.finfo(np.float32).max) if single else FLOAT_MAX
    assert not np.any(np.abs(want) > limit), "returned a kernel whose true entries exceed the float range"
    assert np.all(np.isfinite(res)), f"non-finite kernel from the finite R: {res}"
    tol = (1e-5 if single else 1e-9) * np.minimum(mag, FLOAT_MAX) + (1e-37 if single else FLOOR)
    bad = np.abs(res.astype(np.float64) - want) > tol
    if np.any(bad):
        i, j = np.argwhere(bad)[0]
        raise AssertionError(f"G[{i}, {j}] = {res[i, j]!r}, reference {want[i, j]!r} +- {tol[i, j]:.3g}")


@fuzz(80)
@given(st.data())
def test_bandwidth(data: st.DataObject) -> None:
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    X = draw_points(data, ch, n, data.draw(st.integers(1, 4), label="D"))
    problems, Xv = points_problems(X)
    if not problems and Xv is not None and np.all(Xv == Xv[0]):
        problems = ["all points are identical"]
    res = attempt(kgroups_rs.bandwidth, X, invalid=problems)
    if res is None or Xv is None:
        return
    want, slack = ref_bandwidth(Xv)
    assert isinstance(res, float) and close(res, want, slack), (
        f"bandwidth {res!r}, reference {want!r} +- {slack:.3g}"
    )
    assert res > 0


# ============================================================================== statistics


def stats_source(data: st.DataObject, ch: Chooser, n: int) -> tuple[str, Any, list[str], dict[str, Any]]:
    """(which source, the argument, reasons invalid, what the reference needs)."""
    which = ch.pick("source", ["X", "X", "R", "G"], ["none", "two"])
    info: dict[str, Any] = {}
    if which == "X":
        X = draw_points(data, ch, n, data.draw(st.integers(1, 3), label="D"))
        problems, info["values"] = points_problems(X)
        return which, X, problems, info
    if which == "R":
        drawn, negative_type = draw_semimetric_matrix(data, ch, n)
        R = draw_dtype_layout(data, drawn, ch, "R")
        problems, info["values"] = semimetric_matrix_problems(R)
        # A conversion to bool or small integers can change the matrix, and with it the
        # negative type (float32 rounding stays within the checks' tolerance).
        values = info["values"]
        kept = values is not None and values.shape == drawn.shape
        kept = kept and bool(np.allclose(values, drawn, rtol=1e-6, atol=0))
        info["negative_type"] = bool(negative_type and kept)
        return which, R, problems, info
    if which == "G":
        drawn, _, psd = draw_kernel(data, ch, n)
        G = draw_dtype_layout(data, drawn, ch, "G")
        problems, info["values"] = kernel_problems(G)
        # As for R: integers or bools can make the kernel indefinite (an energy kernel
        # rounded to integers).
        values = info["values"]
        kept = values is not None and values.shape == drawn.shape
        kept = kept and bool(np.allclose(values, drawn, rtol=1e-6, atol=0))
        info["psd"] = bool(psd and kept)
        return which, G, problems, info
    return which, None, ["not exactly one source"], info


def stats_reference(
    which: str,
    info: dict[str, Any],
    semimetric: str,
    alpha: Any,
    sigma: Any,
    labels: np.ndarray,
    k: int,
    w: np.ndarray,
) -> tuple[dict[str, Any], float, float, bool]:
    """(reference in units, log2 of rho's unit, relative slack, whether S, W >= 0 must hold)."""
    values = info["values"]
    slack = 0.0
    rho_res = 0.0
    if which == "X":
        a = 1.0 if semimetric != "power" else float(alpha)
        sig, slack = effective_sigma(semimetric, sigma, values)
        Xn, e = normalized(values)
        rho, log2 = ref_rho(Xn, Xn, e, semimetric, a, sig)
        mag = np.abs(rho)
        if semimetric == "power":
            # Coordinates below 2**(e - 1074) vanish in the reference's scaling (see
            # power_resolution); in rho's unit, each entry is known to that resolution.
            rho_res = power_resolution(values, a, log2)
        nonneg = True
    elif which == "R":
        rho, log2 = normalized(values)
        np.fill_diagonal(rho, 0.0)  # as the library takes it (entries of rounding size)
        mag = np.abs(rho)
        # Negative entries of rounding size are accepted, and a W of their size may be < 0.
        nonneg = bool(info["negative_type"]) and bool(np.all(rho >= 0))
    else:
        Gn, log2 = normalized(values)
        d = np.diag(Gn)
        rho = d[:, None] + d[None, :] - 2 * Gn
        mag = np.abs(d)[:, None] + np.abs(d)[None, :] + 2 * np.abs(Gn)
        # "psd" describes the drawn matrix; a conversion to a small integer dtype (uint8 wraps
        # negative values) can break it, so also require the rho it gives to be >= 0.
        nonneg = bool(info["psd"]) and bool(np.all(rho >= -1e-9 * mag))
    wn, ew = normalized(w)
    ref = ref_partition_stats(rho, mag, labels, k, wn)
    ref["ew"] = ew
    ref["rho_max"] = float(np.max(mag)) if mag.size else 0.0
    ref["rho_res"] = rho_res
    return ref, float(log2), slack, nonneg


@fuzz(120)
@given(st.data())
def test_energy_statistics(data: st.DataObject) -> None:
    """energy_statistics, within_dispersion and between_statistic against a float64 reference."""
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    which, source, problems, info = stats_source(data, ch, n)
    labels = draw_labels(data, ch, n, data.draw(st.integers(1, max(1, min(n, 4))), label="k"))
    l_problems, lv = labels_problems(labels, n)
    weights, w_problems, w = draw_weights(data, ch, n)
    semimetric, alpha, sigma = draw_semimetric(data, ch)
    n_threads, t_problems, huge = draw_threads(data, ch)
    invalid = problems + l_problems + w_problems + t_problems
    if which == "X":
        invalid += semimetric_problems(semimetric, alpha, sigma, info["values"] if not problems else None)
    elif which in ("R", "G") and (semimetric != "power" or not is_default_alpha(alpha) or sigma is not None):
        invalid.append("semimetric, alpha or sigma given with a matrix (they would be ignored)")
    kwargs: dict[str, Any] = dict(
        weights=weights, semimetric=semimetric, alpha=alpha, sigma=sigma, n_threads=n_threads
    )
    if which in ("X", "R", "G"):
        kwargs[which] = source
    elif which == "two":
        kwargs["X"], kwargs["R"] = np.zeros((n, 1)), np.zeros((n, n))
    fn_name = data.draw(st.sampled_from(["energy_statistics", "within_dispersion", "between_statistic"]))
    res = attempt(getattr(kgroups_rs, fn_name), labels, **kwargs, invalid=invalid, huge_int=huge)
    if res is None or info.get("values") is None or lv is None:
        return
    k = int(np.max(lv)) + 1
    ref, log2, slack, nonneg = stats_reference(
        which, info, semimetric, alpha, sigma, lv, k, np.ones(n) if w is None else w
    )
    unit = log2 + ref["ew"]
    rel = 1e-9 + 2 * slack
    # Both the library and the reference work with the weights scaled near 1: a product
    # w_a w_b below the normal range (weights 6e-147 and 6e21 beside 1e96) is rounded to
    # 2**-1074 absolute there, n_l**2 of them in a cluster's sum, divided by its weight s_l.
    sizes = np.bincount(lv, minlength=k).astype(np.float64)
    rho_max = ref["rho_max"]
    with np.errstate(all="ignore"):
        products = 4.0 * 2.0**-1074 * rho_max * sizes * sizes / ref["s"]
        floor_w = float(rescale(np.sum(products[sizes > 0]), unit))
        floor_t = float(rescale(4.0 * 2.0**-1074 * rho_max * n * n / np.sum(ref["s"]), unit))
        # Each rho known to rho_res (the power semimetric's reference resolution): W and the
        # total move by at most the total weight times that.
        resolution = float(rescale(ref["rho_res"] * np.sum(ref["s"]), unit))
    floor_w += resolution
    floor_t += resolution
    expected = {
        "within": (rescale(ref["W"], unit), rescale(rel * ref["Wm"], unit) + FLOOR + floor_w),
        "total": (rescale(ref["total"], unit), rescale(rel * ref["total_m"], unit) + FLOOR + floor_t),
        "between": (
            rescale(ref["S"], unit),
            rescale(rel * (2 * ref["total_m"] + k * ref["Wm"]), unit)
            + FLOOR
            + 2 * floor_t
            + k * floor_w,
        ),
    }
    if fn_name == "within_dispersion":
        stats = {"within": res}
    elif fn_name == "between_statistic":
        stats = {"between": res}
    else:
        assert isinstance(res, kgroups_rs.EnergyStatistics)
        stats = {"within": res.within, "between": res.between, "total": res.total}
        s_want = rescale(ref["s"], ref["ew"])
        assert res.cluster_weights.shape == (k,), res.cluster_weights
        assert np.allclose(res.cluster_weights, s_want, rtol=1e-12, atol=FLOOR), (res.cluster_weights, s_want)
        g = np.asarray(res.g)
        assert g.shape == (k, k) and np.all(np.isfinite(g)), f"g = {g}"
        g_want, g_tol = rescale(ref["g"], log2), rescale(rel * ref["gm"], log2) + FLOOR
        # Both the library and the reference work with the weights scaled near 1: products
        # w_a w_b below the normal range (weights 1e-106 and 1e75 beside 1e145) are rounded
        # to 2**-1074 absolute there, n**2 of them in each g_lm = P_lm / (s_l s_m).
        sn = ref["s"]
        g_tol = g_tol + rescale(4.0 * n * n * 2.0**-1074 / np.outer(sn, sn), log2)
        assert np.all(np.abs(g - g_want) <= g_tol), f"g = {g.tolist()}, reference {g_want.tolist()}"
    for key, got in stats.items():
        want, tol = expected[key]
        assert np.isfinite(want), f"returned {key} = {got!r} although the true value exceeds the float range"
        assert close(got, want, tol), f"{key} = {got!r}, reference {want!r} +- {tol:.3g}"
        if nonneg:
            assert got >= -tol, f"{key} = {got} < 0 for a semimetric of negative type"


@fuzz(80)
@given(st.data())
def test_energy_distance(data: st.DataObject) -> None:
    ch = Chooser(data)
    D = data.draw(st.integers(1, 3), label="D")
    X = draw_points(data, ch, data.draw(SIZES, label="n"), D)
    Y = draw_points(data, ch, data.draw(SIZES, label="m"), ch.pick("D of Y", [D], [D + 1]), name="Y")
    semimetric, alpha, sigma = draw_semimetric(data, ch)
    n_threads, t_problems, huge = draw_threads(data, ch)
    px, Xv = points_problems(X)
    py, Yv = points_problems(Y, "Y")
    problems = px + py + t_problems
    if Xv is not None and Yv is not None and Xv.shape[1] != Yv.shape[1]:
        problems.append("X and Y have different D")
    problems += semimetric_problems(semimetric, alpha, sigma, Xv if not px else None)
    res = attempt(
        kgroups_rs.energy_distance,
        X,
        Y,
        semimetric=semimetric,
        alpha=alpha,
        sigma=sigma,
        n_threads=n_threads,
        invalid=problems,
        huge_int=huge,
    )
    if res is None or Xv is None or Yv is None:
        return
    a = 1.0 if semimetric != "power" else float(alpha)
    sig, slack = effective_sigma(semimetric, sigma, Xv)
    XY = np.vstack([Xv, Yv])
    An, e = normalized(XY)
    rho, log2 = ref_rho(An, An, e, semimetric, a, sig)
    nx = Xv.shape[0]
    ab, aa, bb = rho[:nx, nx:], rho[:nx, :nx], rho[nx:, nx:]
    want = rescale(2 * ab.mean() - aa.mean() - bb.mean(), log2)
    tol = rescale((1e-9 + 2 * slack) * (2 * ab.mean() + aa.mean() + bb.mean()), log2) + FLOOR
    if semimetric == "power":
        # Four means of rho, each entry known to the reference's resolution.
        tol = tol + float(rescale(4 * power_resolution(XY, a, log2), log2))
    assert np.isfinite(want), f"returned {res!r} although the true value exceeds the float range"
    assert close(res, want, tol), f"energy distance {res!r}, reference {want!r} +- {tol:.3g}"
    assert res >= -tol


# ============================================================================== accuracy, 1-D


@fuzz(80)
@given(st.data())
def test_clustering_accuracy(data: st.DataObject) -> None:
    ch = Chooser(data)
    n = data.draw(st.integers(1, 30), label="n")
    rng = np.random.default_rng(data.draw(SEEDS, label="seed"))
    arrays = []
    for name in ("y_true", "y_pred"):
        kind = ch.pick(
            f"{name} kind",
            ["int", "int", "str", "float-nan", "negative", "huge-int", "bool", "list"],
            ["2d", "short", "empty", "object-mixed"],
        )
        m = n - 1 if kind == "short" else 0 if kind == "empty" else n
        base = rng.integers(0, data.draw(st.integers(1, 4), label=f"{name} clusters"), m)
        if kind == "str":
            arr: Any = np.array([f"c{v}" for v in base])
        elif kind == "float-nan":
            arr = base.astype(np.float64)
            arr[0] = np.nan
        elif kind == "negative":
            arr = base - 5
        elif kind == "huge-int":
            arr = base.astype(np.uint64) * np.uint64(2**62)
        elif kind == "bool":
            arr = base.astype(bool)
        elif kind == "object-mixed":
            arr = np.array(([1, "a"] * n)[:n], dtype=object)
        elif kind == "2d":
            arr = base.reshape(-1, 1)
        elif kind == "list":
            arr = base.tolist()
        else:
            arr = base
        arrays.append(arr)
    y_true, y_pred = arrays
    t, p = np.asarray(y_true), np.asarray(y_pred)
    invalid = []
    if t.ndim != 1 or p.ndim != 1:
        invalid.append("not 1-D")
    elif t.shape != p.shape:
        invalid.append("lengths differ")
    elif t.size == 0:
        invalid.append("empty")
    res = attempt(kgroups_rs.clustering_accuracy, y_true, y_pred, invalid=invalid)
    if res is None:
        return
    assert isinstance(res, float) and 0 < res <= 1, res
    _, ti = np.unique(t, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    ti, pi = ti.ravel(), pi.ravel()
    kt, kp = int(ti.max()) + 1, int(pi.max()) + 1
    table = np.zeros((kp, kt), dtype=np.int64)
    np.add.at(table, (pi, ti), 1)
    if kp <= kt:
        best = max(
            sum(table[r, c] for r, c in zip(range(kp), perm))
            for perm in itertools.permutations(range(kt), kp)
        )
    else:
        best = max(
            sum(table[r, c] for r, c in zip(perm, range(kt)))
            for perm in itertools.permutations(range(kp), kt)
        )
    assert res == best / t.size, (res, best / t.size)


def ref_1d_optimum(x: np.ndarray, w: np.ndarray, k: int) -> float:
    """Min W over partitions of the sorted data into k intervals (dynamic programming)."""
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], w[order]
    n = xs.size
    cost = np.full((n + 1, n + 1), np.inf)
    for i in range(n):
        for j in range(i + 1, n + 1):
            seg_w = ws[i:j]
            left = np.cumsum(seg_w)[:-1]
            # the weight right of each gap summed directly (total - left cancels for weights
            # of very different sizes)
            right = np.cumsum(seg_w[::-1])[::-1][1:]
            cost[i, j] = float(np.sum(np.diff(xs[i:j]) * left * right)) / float(seg_w.sum())
    best = np.full((k + 1, n + 1), np.inf)
    best[0, 0] = 0.0
    for j in range(1, k + 1):
        for m in range(j, n + 1):
            best[j, m] = np.min(best[j - 1, :m] + cost[:m, m])
    return float(best[k, n])


@fuzz(80)
@given(st.data())
def test_kgroups_1d(data: st.DataObject) -> None:
    """kgroups_1d: interval clusters whose W is the optimum over interval partitions."""
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    shape = ch.pick("x shape", ["1d"], ["column", "empty", "scalar", "nonfinite", "complex"])
    if shape == "1d":
        x: Any = draw_dtype_layout(
            data, data.draw(point_values(n, 1)).ravel(), None, "x", REAL_DTYPES + ["object"]
        )
    elif shape == "column":
        x = data.draw(point_values(n, 1))
    elif shape == "nonfinite":
        x = data.draw(point_values(n, 1, nonfinite=True)).ravel()
    elif shape == "complex":
        x = data.draw(point_values(n, 1)).ravel().astype(np.complex128)
    else:
        x = np.zeros(0) if shape == "empty" else 3.0
    k, k_problems, huge = draw_k(data, ch, n)
    weights, w_problems, w = draw_weights(data, ch, n)
    xa = np.asarray(x)
    problems: list[str] = k_problems + w_problems
    xv = None
    if xa.dtype.kind == "c":
        problems.append("x is complex")
    elif xa.ndim != 1:
        problems.append("x is not 1-D")
    elif xa.size == 0:
        problems.append("x is empty")
    else:
        with np.errstate(all="ignore"):
            xv = xa.astype(np.float64)
        if not np.all(np.isfinite(xv)):
            problems.append("x is not finite")
    res = attempt(kgroups_rs.kgroups_1d, x, k, weights, invalid=problems, huge_int=huge)
    if res is None or xv is None or (weights is not None and w is None):
        return
    k = int(k)
    check_labels(res.labels, n, k)
    assert np.isfinite(res.within) and np.isfinite(res.objective), (res.within, res.objective)
    assert not np.any(np.isnan(res.cluster_terms)), res.cluster_terms  # +-inf is documented
    th = np.asarray(res.thresholds)
    assert th.shape == (k - 1,) and np.all(np.isfinite(th)) and np.all(np.diff(th) >= 0), th
    order = np.argsort(xv, kind="stable")
    assert np.all(np.diff(res.labels[order]) >= 0), "clusters are not intervals of the sorted data"
    xn, ex = normalized(xv)
    wn, ew = normalized(np.ones(n) if w is None else w)
    dist = np.abs(xn[:, None] - xn[None, :])
    ref = ref_partition_stats(dist, dist, res.labels, k, wn)
    unit = ex + ew
    tol = rescale(1e-9 * (ref["Wm"] + float(np.sum(wn * np.abs(xn - xn.min())))), unit) + FLOOR
    W_want = rescale(ref["W"], unit)
    assert close(res.within, W_want, tol), f"within {res.within!r}, W of its labels {W_want!r} +- {tol:.3g}"
    opt = rescale(ref_1d_optimum(xn, wn, k), unit)
    assert res.within <= opt + tol, f"within {res.within!r} > the optimum {opt!r} over interval partitions"
    Q_want = rescale(float(np.sum(wn * np.abs(xn))) - ref["W"], unit)
    Q_tol = tol + rescale(1e-12 * float(np.sum(wn * np.abs(xn))), unit)
    assert close(res.objective, Q_want, Q_tol), f"objective {res.objective!r}, reference {Q_want!r}"


# ============================================================================== graphs


def draw_adjacency(data: st.DataObject, ch: Chooser, n: int) -> np.ndarray:
    rng = np.random.default_rng(data.draw(SEEDS, label="A seed"))
    kind = ch.pick(
        "A kind",
        ["random"] * 3 + ["weighted", "huge", "tiny", "isolated", "complete"],
        ["negative", "asymmetric", "nan"],
    )
    A = np.triu((rng.random((n, n)) < 0.5).astype(np.float64), 1)
    if kind == "complete":
        A = np.triu(np.ones((n, n)), 1)
    elif kind == "weighted":
        A *= rng.uniform(0, 1, (n, n)) * data.draw(SCALES, label="A scale")
    elif kind == "huge":
        A *= data.draw(st.sampled_from([1e200, 1e300, 1e307, FLOAT_MAX]), label="A huge")
    elif kind == "tiny":
        A *= data.draw(st.sampled_from([1e-300, 5e-324, 1e-200]), label="A tiny")
    A = A + A.T
    if n > 1:
        a, b = 0, 1 + int(rng.integers(0, n - 1))
        if kind == "negative":
            A[a, b] = A[b, a] = -1.0
        elif kind == "asymmetric":
            A[a, b], A[b, a] = 1.0, 3.0
        elif kind == "nan":
            A[a, b] = A[b, a] = np.nan
        elif kind == "isolated":
            A[a, :] = 0.0
            A[:, a] = 0.0
    return A


def adjacency_problems(Av: np.ndarray) -> list[str]:
    if not np.all(np.isfinite(Av)):
        return ["A is not finite"]
    if np.any(Av < 0):
        return ["A is negative"]
    if asymmetric(Av, 1e-6):
        return ["A is asymmetric"]
    return []


@fuzz(120)
@given(st.data())
def test_graph_partition(data: st.DataObject) -> None:
    """graph_partition (dense and sparse): its objective is the graph association of its labels."""
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    A = draw_adjacency(data, ch, n)
    sparse = data.draw(st.booleans(), label="sparse")
    Ain = to_sparse(data, A) if sparse else draw_dtype_layout(data, A, ch, "A")
    problems: list[str] = []
    Av = None
    if np.asarray(Ain).dtype.kind in "biuf" or sparse:
        with np.errstate(all="ignore"):
            Av = (Ain.toarray() if sparse else np.asarray(Ain)).astype(np.float64)
        problems = adjacency_problems(Av)
    elif np.asarray(Ain).dtype.kind == "c":
        problems = ["A is complex"]
    objective = ch.pick("objective", ["ratio_association", "normalized_cut"], ["cut"])
    algorithm = ch.pick("algorithm", ["hartigan", "hartigan", "lloyd"], ["spectral"])
    shift = ch.pick("shift", [0.0, 0.0, 1.0, -1.0, 1e300], [np.nan, np.inf])
    k, init, _, _, kwargs, invalid, huge = draw_clustering_args(data, ch, n, algorithm == "hartigan", False)
    invalid = problems + invalid
    if objective not in ("ratio_association", "normalized_cut"):
        invalid.append("unknown objective")
    if algorithm not in ("hartigan", "lloyd"):
        invalid.append("unknown algorithm")
    if not np.isfinite(shift):
        invalid.append("shift is not finite")
    if objective == "normalized_cut" and Av is not None and not problems and np.any(Av.sum(axis=1) <= 0):
        invalid.append("an isolated node with normalized_cut")
    res = attempt(
        kgroups_rs.graph_partition,
        Ain,
        k,
        objective=objective,
        algorithm=algorithm,
        init=init,
        shift=shift,
        **kwargs,
        invalid=invalid,
        huge_int=huge,
    )
    if res is None or Av is None:
        return
    k = int(k)
    An, e = normalized(Av)
    bound = rescale(float(np.sum(An)), e) + abs(shift) * max(n, float(rescale(float(np.sum(An)), e)))
    check_result(
        res,
        n,
        k,
        hartigan=algorithm == "hartigan",
        max_iter=kwargs["max_iter"],
        finite_terms=bool(bound < FLOAT_MAX / 4),
    )
    # The objective is the (shifted) graph association of the labels (a float32 adjacency may
    # have its degrees summed in float32).
    single = Ain.dtype in (np.float32, np.float16)
    rel = 1e-6 if single else 1e-9
    onehot = np.zeros((n, k))
    onehot[np.arange(n), res.labels] = 1.0
    inside = np.diag(onehot.T @ An @ onehot)
    if objective == "normalized_cut":
        degree = onehot.T @ An.sum(axis=1)
        want = float(np.sum(inside / degree)) + k * shift
        tol = rel * (k + k * abs(shift)) + 1e-12
    else:
        sizes = onehot.sum(axis=0)
        want = float(rescale(float(np.sum(inside / sizes)), e)) + k * shift
        tol = float(rescale(rel * float(np.sum(inside / sizes)), e)) + rel * k * abs(shift) + FLOOR
    assert close(res.objective, want, tol), f"objective {res.objective!r}, graph association {want!r}"


def shift_overflows(A: np.ndarray, shift: float) -> bool:
    """Whether the normalised cut's diagonal ``A_ii / d_i^2 + shift / d_i`` overflows, for
    the degrees ``d`` of ``A`` brought into ``[1, 2)`` by a power of two when its largest
    entry lies beyond ``2**+-256`` (as graph_kernel scales it)."""
    exponent = math.frexp(float(np.max(A)))[1] - 1 if A.size else 0
    if abs(exponent) > 256:
        A = np.ldexp(A, -exponent)
    inverse = 1.0 / A.sum(axis=1)
    with np.errstate(all="ignore"):
        return not np.all(np.isfinite(inverse * inverse * np.diag(A) + shift * inverse))


@fuzz(60)
@given(st.data())
def test_graph_kernel(data: st.DataObject) -> None:
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    A = draw_adjacency(data, ch, n)
    # graph_kernel checks finiteness and signs; the clustering checks symmetry.
    problems = [p for p in adjacency_problems(A) if "asymmetric" not in p]
    sparse = data.draw(st.booleans(), label="sparse")
    Ain = to_sparse(data, A) if sparse else A
    objective = ch.pick("objective", ["ratio_association", "normalized_cut"], ["cut"])
    shift = ch.pick("shift", [0.0, 1.0, 1e300], [np.nan])
    if objective == "normalized_cut" and not problems and np.any(A.sum(axis=1) <= 0):
        problems.append("an isolated node with normalized_cut")
    if objective not in ("ratio_association", "normalized_cut"):
        problems.append("unknown objective")
    if not np.isfinite(shift):
        problems.append("shift is not finite")
    if objective == "normalized_cut" and not problems and shift != 0 and shift_overflows(A, shift):
        problems.append("shift / degree overflows")
    res = attempt(kgroups_rs.graph_kernel, Ain, objective, shift=shift, invalid=problems)
    if res is None:
        return
    G, weights = res
    Gd = G.toarray() if scipy_sparse.issparse(G) else np.asarray(G)
    assert np.all(np.isfinite(Gd)), f"non-finite graph kernel from a finite adjacency: {Gd}"
    if weights is not None:
        assert np.all(np.isfinite(weights)) and np.all(weights > 0), f"node weights {weights}"


# ============================================================================== from data


@fuzz(100)
@given(st.data())
def test_kernel_kgroups_from_data(data: st.DataObject) -> None:
    """Matrix-free clustering: its W is the energy W of its labels (whatever the base point)."""
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    X = draw_points(data, ch, n, data.draw(st.integers(1, 3), label="D"))
    problems, Xv = points_problems(X)
    semimetric, alpha, sigma = draw_semimetric(data, ch)
    algorithm = ch.pick("algorithm", ["hartigan", "hartigan", "lloyd", "lloyd-online"], ["elkan"])
    k, init, weights, w, kwargs, invalid, huge = draw_clustering_args(data, ch, n, algorithm == "hartigan")
    invalid = problems + invalid + semimetric_problems(semimetric, alpha, sigma, Xv if not problems else None)
    if algorithm not in ("hartigan", "lloyd", "lloyd-online"):
        invalid.append("unknown algorithm")
    res = attempt(
        kgroups_rs.kernel_kgroups_from_data,
        X,
        k,
        init,
        semimetric=semimetric,
        alpha=alpha,
        sigma=sigma,
        algorithm=algorithm,
        weights=weights,
        **kwargs,
        invalid=invalid,
        huge_int=huge,
    )
    if res is None or Xv is None:
        return
    k = int(k)
    w_eff = np.ones(n) if w is None else w
    # The kernel with base point 0 bounds the cluster terms (the data's mean would give smaller ones).
    a = 1.0 if semimetric != "power" else float(alpha)
    sig, _ = effective_sigma(semimetric, sigma, Xv)
    _, Tu, g_log2 = ref_gram(Xv, None, semimetric, a, sig, "origin")
    wn, ew = normalized(w_eff)
    bound = rescale(float(wn @ Tu @ wn), g_log2 + 2 * ew)
    check_result(
        res,
        n,
        k,
        hartigan=algorithm == "hartigan",
        max_iter=kwargs["max_iter"],
        finite_terms=bool(bound < FLOAT_MAX / 4),
    )
    ref, log2, slack, _ = stats_reference("X", {"values": Xv}, semimetric, alpha, sigma, res.labels, k, w_eff)
    unit = log2 + ref["ew"]
    tol = rescale((1e-9 + 2 * slack) * (ref["Wm"] + ref["total_m"]), unit) + FLOOR
    # W = sum_i w_i G_ii - Q cancels terms as large as the kernel's diagonal, rho(x_i, x0) with
    # the base point x0 the (unweighted) mean of the data: allow that rounding,
    # n eps sum_i w_i G_ii, on top. With weights the mean can lie farther from the heavy
    # points than 0 does, so the bound takes the larger of the two bases.
    An, eX = normalized(Xv)
    with np.errstate(all="ignore"):
        centred = np.ldexp(An - An.mean(axis=0), eX)
    bases = [(Tu, g_log2)]
    if np.all(np.isfinite(centred)):  # (data spanning the float range overflow it)
        _, Tm, m_log2 = ref_gram(centred, None, semimetric, a, sig, "origin")
        bases.append((Tm, m_log2))
    for T, frame in bases:
        tol += rescale(16 * n * EPS * float(wn @ np.diag(T)), frame + ew)
    want = rescale(ref["W"], unit)
    assert np.isfinite(want), "returned a result although W exceeds the float range"
    assert close(res.within, want, tol), f"within {res.within!r}, W of its labels {want!r} +- {tol:.3g}"
    assert res.within >= -tol, f"W = {res.within} < 0"


@fuzz(60)
@given(st.data())
def test_nystrom(data: st.DataObject) -> None:
    """kernel_kgroups_nystrom and nystrom_features."""
    ch = Chooser(data)
    n = data.draw(SIZES, label="n")
    X = draw_points(data, ch, n, data.draw(st.integers(1, 3), label="D"))
    problems, Xv = points_problems(X)
    semimetric, alpha, sigma = draw_semimetric(data, ch)
    m = ch.pick("n_components", [1, 2, n, max(1, n // 2)], [0, n + 1, 2**64])
    landmarks = ch.pick("landmarks", ["k-means++", "uniform"], ["kmeans"])
    m_problems, huge = int_problems(m, "n_components", 1, n)
    invalid = (
        problems + m_problems + semimetric_problems(semimetric, alpha, sigma, Xv if not problems else None)
    )
    if landmarks not in ("k-means++", "uniform"):
        invalid.append("unknown landmarks")
    n_threads, t_problems, huge3 = draw_threads(data, ch)
    invalid += t_problems
    if data.draw(st.booleans(), label="nystrom_features"):
        res = attempt(
            kgroups_rs.nystrom_features,
            X,
            m,
            semimetric=semimetric,
            alpha=alpha,
            sigma=sigma,
            landmarks=landmarks,
            random_state=0,
            n_threads=n_threads,
            invalid=invalid,
            huge_int=huge or huge3,
        )
        if res is None:
            return
        Phi, chosen = res
        assert Phi.ndim == 2 and Phi.shape[0] == n and 1 <= Phi.shape[1] <= int(m), Phi.shape
        assert np.all(np.isfinite(Phi)), "non-finite Nystrom features from finite data"
        assert chosen.shape == (int(m),) and np.unique(chosen).size == int(m), chosen
        assert chosen.min() >= 0 and chosen.max() < n, chosen
        return
    k, k_problems, huge2 = draw_k(data, ch, n)
    if not k_problems and not m_problems and int(k) > int(m):
        invalid.append("k > n_components")
    weights, w_problems, w = draw_weights(data, ch, n)
    invalid += k_problems + w_problems
    res = attempt(
        kgroups_rs.kernel_kgroups_nystrom,
        X,
        k,
        n_components=m,
        semimetric=semimetric,
        alpha=alpha,
        sigma=sigma,
        landmarks=landmarks,
        weights=weights,
        random_state=1,
        n_threads=n_threads,
        invalid=invalid,
        huge_int=huge or huge2 or huge3,
    )
    if res is None:
        return
    check_result(res, n, int(k), hartigan=True, approximate=True, finite_terms=w is None)
    assert res.within >= -1e-9 * (abs(res.objective) + abs(res.within)) - FLOOR, f"W = {res.within} < 0"


@fuzz(60)
@given(st.data())
def test_knn_kernel(data: st.DataObject) -> None:
    ch = Chooser(data)
    n = data.draw(st.integers(2, 40), label="n")
    X = draw_points(data, ch, n, data.draw(st.integers(1, 3), label="D"))
    problems, Xv = points_problems(X)
    a = np.asarray(X)
    if a.ndim == 1 and not problems:
        problems = ["X is 1-D"]
    include_self = data.draw(st.booleans(), label="include_self")
    nn = ch.pick(
        "n_neighbors",
        [1, 2, 3, n - 1] + ([n] if include_self else []),
        [0, -1, 2**64] + ([] if include_self else [n]),
    )
    limit = (a.shape[0] if include_self else a.shape[0] - 1) if a.ndim >= 1 else 0
    nn_problems, huge = int_problems(nn, "n_neighbors", 1, max(limit, 0))
    mode = ch.pick("mode", ["connectivity", "gaussian", "distance"], ["cosine"])
    bw = ch.pick("bandwidth", [None, 1.0, 1e-300, 1e300], [0.0, -1.0, np.nan])
    symmetrize = ch.pick("symmetrize", ["union", "mutual", "mean"], ["max"])
    invalid = problems + ([] if problems else nn_problems)
    if mode not in ("connectivity", "gaussian", "distance"):
        invalid.append("unknown mode")
    if symmetrize not in ("union", "mutual", "mean"):
        invalid.append("unknown symmetrize")
    if bw is not None and not (np.isfinite(bw) and bw > 0):
        invalid.append("bad bandwidth")
    res = attempt(
        kgroups_rs.knn_kernel,
        X,
        nn,
        mode=mode,
        bandwidth=bw,
        symmetrize=symmetrize,
        include_self=include_self,
        invalid=invalid,
        huge_int=huge,
    )
    if res is None or Xv is None:
        return
    assert scipy_sparse.issparse(res) and res.shape == (n, n) and res.dtype == np.float64
    assert np.all(np.isfinite(res.data)), f"non-finite affinities from finite data: {res.data}"
    assert np.all(res.data >= 0), "negative affinities"
    assert (res != res.T).nnz == 0, "not exactly symmetric"
    assert res.has_canonical_format


# ============================================================================== estimators


@fuzz(100)
@given(st.data())
def test_estimators(data: st.DataObject) -> None:
    """KernelKGroups / KernelKMeans: fit, then predict on new points."""
    ch = Chooser(data)
    cls_name = data.draw(st.sampled_from(["KernelKGroups", "KernelKMeans"]), label="estimator")
    cls = getattr(kgroups_rs, cls_name)
    n = data.draw(SIZES, label="n")
    kernel = ch.pick("kernel", ["energy", "energy", "exponential", "gaussian", "precomputed"], ["linear"])
    if kernel == "precomputed":
        G, _, _ = draw_kernel(data, ch, n)
        X: Any = draw_dtype_layout(data, G, ch, "G", ["float64", "float32", "int64"])
        problems, Xv = kernel_problems(X)
        if problems == ["G is not real"]:
            # scikit-learn converts numeric object arrays (its check_dtype_object requires
            # estimators to accept them): either a TypeError or a conversion is fine.
            problems = []
    else:
        X = draw_points(data, ch, n, data.draw(st.integers(1, 3), label="D"))
        problems, Xv = points_problems(X)
        if np.asarray(X).ndim == 1 and not problems:
            problems = ["X is 1-D"]  # scikit-learn rejects 1-D data
    k, k_problems, huge = draw_k(data, ch, n, "n_clusters")
    # alpha belongs to the energy kernel and sigma to the bandwidth kernels; the other is
    # refused (an invalid draw, below), so most draws stay valid.
    alpha = ch.pick("alpha", [1.0, 0.5, 2.0] if kernel == "energy" else [1.0], [0.0, 3.0, np.nan, 0.5])
    bandwidth_kernel = kernel in ("exponential", "gaussian")
    sigma = ch.pick(
        "sigma", [None, 1.0, 1e-300, 1e300] if bandwidth_kernel else [None], [0.0, -1.0, np.nan, 1.0]
    )
    init = ch.pick("init", ["k-means++", "random"], ["bogus"])
    hartigan = cls_name == "KernelKGroups"  # its default algorithm
    kwargs, common_problems, huge2 = draw_common(data, ch, False, progress=False, terminates=hartigan)
    storage = ch.pick("kernel_storage", ["auto", "dense", "matrix-free"], ["disk"])
    params = dict(
        n_clusters=k, kernel=kernel, alpha=alpha, sigma=sigma, init=init, kernel_storage=storage, **kwargs
    )
    invalid = problems + k_problems + common_problems
    if kernel not in ("energy", "exponential", "gaussian", "precomputed"):
        invalid.append("unknown kernel")
    if kernel == "energy" and not (0 < alpha <= 2):
        invalid.append("alpha outside (0, 2]")
    if kernel in ("exponential", "gaussian", "precomputed") and not is_default_alpha(alpha):
        invalid.append("alpha given with a kernel that takes none")
    if kernel in ("energy", "precomputed") and sigma is not None:
        invalid.append("sigma given with a kernel that takes none")
    if kernel in ("exponential", "gaussian") and sigma is not None and not (np.isfinite(sigma) and sigma > 0):
        invalid.append("bad sigma")
    if init == "bogus":
        invalid.append("unknown init")
    if storage not in ("auto", "dense", "matrix-free"):
        invalid.append("unknown kernel_storage")
    sample_weight, w_problems, w = draw_weights(data, ch, n, strict=False)
    invalid += w_problems
    if w is not None and not w_problems and not np.any(w > 0):
        invalid.append("every sample weight is 0")
    n_fit = n if w is None else int(np.sum(w > 0))
    if not k_problems and int(k) > n_fit:
        invalid.append("n_clusters > the number of points with positive weight")
    if kernel in ("exponential", "gaussian") and sigma is None and Xv is not None and not problems:
        fit_points = Xv if w is None else Xv[w > 0]
        if fit_points.size and np.all(fit_points == fit_points[0]):
            pass  # documented: identical points use sigma = 1
    model = cls(**params)
    fitted = attempt(
        model.fit,
        X,
        sample_weight=sample_weight,
        name=f"kgroups_rs.{cls_name}(**{params!r}).fit",
        invalid=invalid,
        huge_int=huge or huge2,
    )
    if fitted is None or Xv is None:
        return
    k = int(k)
    check_labels(fitted.labels_, n, k)
    assert np.isfinite(fitted.objective_) and np.isfinite(fitted.within_), (fitted.objective_, fitted.within_)
    assert fitted.cluster_weights_.shape == (k,) and np.all(np.isfinite(fitted.cluster_weights_))
    assert np.all(fitted.cluster_weights_ > 0), fitted.cluster_weights_
    if kernel == "precomputed":
        new = Xv[: max(1, n // 2)]
    else:
        new = data.draw(
            point_values(data.draw(st.integers(1, 5), label="m"), Xv.shape[1]), label="new points"
        )
    new_problems = [] if np.all(np.isfinite(new)) else ["new points are not finite"]
    pred = attempt(
        fitted.predict,
        new,
        name=f"kgroups_rs.{cls_name}(**{params!r}).fit(...).predict",
        invalid=new_problems,
    )
    if pred is not None:
        check_labels(pred, new.shape[0], k, all_used=False)


# ============================================================================== targeted properties


@fuzz(80)
@given(st.data())
def test_far_from_origin_is_still_clustered(data: st.DataObject) -> None:
    """Kernel k-groups is translation and scale invariant: two tight, well-separated blobs moved
    far from the origin (offsets up to 1e9) and scaled by powers of two (down to 2**-900) are
    clustered exactly as the same points moved back next to the origin, by the same method from
    the same start.

    The blobs are separated by 1e-10 to 1e-6 |offset| (1e-2 |offset| for a float32 kernel), far
    above the resolution of the coordinates, so no decision is anywhere near a tie. (Hartigan's
    method need not separate the blobs -- from random labels with alpha = 0.5 it can stop at a
    local optimum -- so the reference is the same run near the origin, not the true blobs.)
    """
    rng = np.random.default_rng(data.draw(SEEDS, label="seed"))
    way = data.draw(
        st.sampled_from(["dense", "dense-f32", "dense-centered", "from_data", "estimator", "kgroups_1d"]),
        label="way",
    )
    D = 1 if way == "kgroups_1d" else data.draw(st.integers(1, 3), label="D")
    sizes = (data.draw(st.integers(2, 20), label="n0"), data.draw(st.integers(2, 20), label="n1"))
    offset = data.draw(st.sampled_from([0.0, 1e3, 1e6, 1e8, 1e9, -1e9]), label="offset")
    single = way == "dense-f32"
    # The gap relative to the offset: down to 1e-10 (gap 0.1 at 1e9, blobs 0.002 wide: still
    # 10^4 float64 steps); 1e-2 for a float32 kernel (whose entries are rounded to 6e-8 relative).
    gap_rel = 1e-2 if single else data.draw(st.sampled_from([1e-10, 1e-8, 1e-6]), label="gap / offset")
    gap = gap_rel * abs(offset) if offset else 1.0
    direction = rng.standard_normal(D)
    direction /= np.linalg.norm(direction)
    blobs = [rng.standard_normal((m, D)) * gap / 50 for m in sizes]
    shift = offset * rng.uniform(0.5, 1, D) * rng.choice([-1, 1], D)
    log2 = data.draw(st.sampled_from([0, 0, -600, -900, 600]), label="log2 scale")
    X_far = np.ldexp(np.vstack([blobs[0], blobs[1] + gap * direction]) + shift, log2)
    X_near = np.ldexp(X_far, -log2) - shift  # the same points (to the last bits) near the origin
    init_kind = data.draw(st.sampled_from(["k-means++", "random", "mixed"]), label="init")
    init: Any = np.arange(sum(sizes)) % 2 if init_kind == "mixed" else init_kind
    alpha = data.draw(st.sampled_from([1.0, 0.5]), label="alpha")

    def run(X: np.ndarray) -> Optional[np.ndarray]:
        if way.startswith("dense"):
            base = "centered" if way == "dense-centered" else "origin"
            dtype = np.float32 if single else np.float64
            G = attempt(kgroups_rs.energy_gram, X, alpha=alpha, base=base, dtype=dtype)
            res = None if G is None else attempt(kgroups_rs.kernel_kgroups, G, 2, init, random_state=3)
            return None if res is None else res.labels
        if way == "from_data":
            res = attempt(kgroups_rs.kernel_kgroups_from_data, X, 2, init, alpha=alpha, random_state=3)
            return None if res is None else res.labels
        if way == "estimator":
            model = kgroups_rs.KernelKGroups(2, alpha=alpha, init=init, n_init=1, random_state=3)
            name = (
                f"kgroups_rs.KernelKGroups(2, alpha={alpha}, init={fmt(init)}, n_init=1, random_state=3).fit"
            )
            fitted = attempt(model.fit, X, name=name)
            return None if fitted is None else fitted.labels_
        res = attempt(kgroups_rs.kgroups_1d, X[:, 0], 2)
        return None if res is None else res.labels

    near = run(X_near)
    far = run(X_far)
    if near is None or far is None:
        return
    assert kgroups_rs.clustering_accuracy(near, far) == 1.0, (
        f"offset {offset}, scale 2**{log2}: labels {far.tolist()}, but near the origin {near.tolist()}"
    )


@fuzz(80)
@given(st.data())
def test_scale_invariance(data: st.DataObject) -> None:
    """Scaling G or the weights by a power of two scales every sum exactly, so the labels are
    the same bits -- unless the scaled problem leaves the float range, when it must raise."""
    rng = np.random.default_rng(data.draw(SEEDS, label="seed"))
    n = data.draw(st.integers(2, 30), label="n")
    k = data.draw(st.integers(1, min(n, 4)), label="k")
    F = rng.standard_normal((n, 3))
    G = F @ F.T
    w = rng.uniform(0.5, 2, n) if data.draw(st.booleans(), label="weighted") else None
    what = data.draw(st.sampled_from(["G", "weights"]), label="scaled")
    log2 = data.draw(st.sampled_from([-1000, -900, -600, -300, 300, 600, 900, 1000]), label="log2")
    method = data.draw(st.sampled_from(sorted(CLUSTER_METHODS)), label="method")
    fn, extra = CLUSTER_METHODS[method]
    init = np.arange(n) % k
    rng.shuffle(init)
    base = fn(G, k, init, weights=w, **extra)
    ones = np.ones(n) if w is None else w
    if what == "G":
        G2, w2 = np.ldexp(G, log2), w
        exact = bool(np.all(np.ldexp(G2, -log2) == G))
    else:
        G2, w2 = G, np.ldexp(ones, log2)
        exact = bool(np.all(np.ldexp(w2, -log2) == ones))
    res = attempt(fn, G2, k, init, weights=w2, **extra)
    if res is None or not exact:
        return
    check_result(res, n, k, hartigan=method == "kernel_kgroups", G=G2, w=w2, psd=True)
    assert np.array_equal(res.labels, base.labels), "scaling by a power of two changed the labels"


@fuzz(60)
@given(st.data())
def test_symmetry_tolerance_is_consistent(data: st.DataObject) -> None:
    """Every entry point that checks a float64 kernel's symmetry accepts or rejects the same matrix."""
    rng = np.random.default_rng(data.draw(SEEDS, label="seed"))
    n = data.draw(st.integers(2, 12), label="n")
    F = rng.standard_normal((n, 3))
    G = np.abs(F @ F.T) * data.draw(SCALES, label="scale")
    rel = data.draw(
        st.sampled_from([0.0, 1e-14, 1e-12, 1e-11, 1e-10, 3e-10, 1e-9, 3e-9, 1e-8, 1e-6]),
        label="relative asymmetry",
    )
    G[0, 1 + int(rng.integers(0, n - 1))] *= 1 + rel
    labels = np.arange(n) % 2
    calls: dict[str, Callable[[], Any]] = {
        "dense-C": lambda: kgroups_rs.kernel_kgroups(G, 2, labels),
        "dense-F": lambda: kgroups_rs.kernel_kgroups(np.asfortranarray(G), 2, labels),
        "csr": lambda: kgroups_rs.kernel_kgroups(scipy_sparse.csr_array(G), 2, labels),
        "kmeans": lambda: kgroups_rs.kernel_kmeans(G, 2, labels),
        "statistics": lambda: kgroups_rs.energy_statistics(labels, G=G),
        "estimator": lambda: kgroups_rs.KernelKGroups(2, kernel="precomputed", init=labels, n_init=1).fit(G),
        "graph": lambda: kgroups_rs.graph_partition(G, 2, init=labels),
    }
    verdicts = {path: attempt(call, name=f"[{path}]") is not None for path, call in calls.items()}
    note(f"G = {fmt(G)}; labels = {fmt(labels)}")
    assert len(set(verdicts.values())) == 1, f"relative asymmetry {rel}: accepted by {verdicts}"


# ===================================================================== corrupt input (last: may crash)


TAMPERING = [
    "index-too-large",
    "index-negative",
    "index-huge",
    "indptr-decreasing",
    "indptr-short",
    "indptr-overshoot",
    "indptr-first-nonzero",
    "indptr-negative",
    "data-short",
    "false-canonical",
]


@fuzz(60)
@given(st.data())
def test_tampered_csr(data: st.DataObject) -> None:
    """A scipy CSR whose arrays were edited after construction (out-of-range or negative column
    indices, a decreasing, negative or too short indptr, data of the wrong length, a false
    "canonical" flag) raises ValueError -- it is never read out of bounds.

    Run last (the file's last test): memory corruption may crash the process later."""
    n = data.draw(st.integers(1, 12), label="n")
    rng = np.random.default_rng(data.draw(SEEDS, label="seed"))
    A = rng.standard_normal((n, n))
    G = np.abs(A @ A.T)  # non-negative, so that it is a valid adjacency matrix too
    csr = scipy_sparse.csr_array(G)
    indptr, indices, vals = csr.indptr.copy(), csr.indices.copy(), csr.data.copy()
    tamper = data.draw(st.sampled_from(TAMPERING), label="tampering")
    pos = int(rng.integers(0, indices.size))
    if tamper == "index-too-large":
        indices[pos] = n + int(rng.integers(0, 1000))
    elif tamper == "index-negative":
        indices[pos] = -1 - int(rng.integers(0, 1000))
    elif tamper == "index-huge":
        indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
        indices[pos] = 2**62
    elif tamper == "indptr-decreasing":
        row = int(rng.integers(0, n))
        indptr[row + 1] = indptr[row] - 1 - int(rng.integers(0, 3))
    elif tamper == "indptr-short":
        indptr = indptr[:-1]
    elif tamper == "indptr-overshoot":
        indptr[-1] = indptr[-1] + 5
    elif tamper == "indptr-first-nonzero":
        indptr[0] = 1
    elif tamper == "indptr-negative":
        indptr[int(rng.integers(0, n + 1))] = -3
    elif tamper == "data-short":
        vals = vals[:-1]
    elif tamper == "false-canonical" and n > 1:
        indices[n + 1] = indices[n]  # a duplicate in row 1, with the flag saying there is none
    S = scipy_sparse.csr_array((n, n))
    S.indptr, S.indices, S.data = indptr, indices, vals
    must = tamper != "false-canonical"
    if not must:
        S.has_canonical_format = True
    method = data.draw(
        st.sampled_from(["kernel_kgroups", "kernel_kmeans", "graph_partition"]), label="method"
    )
    invalid = [f"the CSR arrays are corrupt ({tamper})"] if must else []
    res = attempt(getattr(kgroups_rs, method), S, 1, "random", random_state=0, invalid=invalid)
    if res is not None:
        check_labels(res.labels, n, 1)
