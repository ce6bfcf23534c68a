"""The helpers of :func:`kgroups_rs.kgroups_1d`: argument checks, the memory estimate of its
dynamic programme, and the within-cluster dispersion of an interval partition."""

from __future__ import annotations

import numbers
import os
from typing import Optional

import numpy as np
import numpy.typing as npt

Float = npt.NDArray[np.float64]
Int = npt.NDArray[np.int64]

# What kgroups_1d allocates (keep in step with kgroups_1d and kgroups::one_d::memory_bytes;
# the test-suite checks that the estimate bounds the measured peak):
# - vectors of n eight-byte entries alive while the Rust solver runs: the data, weights,
#   order, sorted and rescaled copies in kgroups_1d;
PY_VECTORS = 7
# - the Rust solver (kgroups::one_d::memory_bytes): per point (n + 1 of them) six
#   double-double prefix-sum words, two layers of the programme and one row of candidate
#   values (nine f64) and one u32 candidate index; plus the back-pointers below.
RUST_BYTES_PER_POINT = 9 * 8 + 4
# - back-pointers: (k - 2) (n - k + 1) u32 (layers 2 .. k - 1, the rows each layer needs).
BACK_POINTER_BYTES = 4



def validate(
    x: npt.ArrayLike, k: object, weights: npt.ArrayLike | None
) -> tuple[Float, Float, int]:
    xa = as_real_array(x, "x")
    if xa.ndim != 1:
        hint = (
            "; for a single column or row pass x.ravel()" if xa.ndim == 2 and 1 in xa.shape else ""
        )
        raise ValueError(
            f"x must be a 1-D array of values, got an array with shape {xa.shape}{hint}"
        )
    n = xa.shape[0]
    if n == 0:
        raise ValueError("x is empty: need at least one value")
    if not np.all(np.isfinite(xa)):
        raise ValueError("x contains NaN or infinite values")

    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    k_int = int(k)
    if k_int < 1:
        raise ValueError(f"k must be at least 1, got {k_int}")
    if k_int > n:
        raise ValueError(f"k = {k_int} is larger than the number of points n = {n}")

    if weights is None:
        wa = np.ones(n, dtype=np.float64)
    else:
        wa = as_real_array(weights, "weights")
        if wa.shape != (n,):
            raise ValueError(f"weights must have shape ({n},) like x, got shape {wa.shape}")
        if not np.all(np.isfinite(wa)):
            raise ValueError("weights contain NaN or infinite values")
        if not np.all(wa > 0.0):
            raise ValueError("weights must be strictly positive")
    return xa, wa, k_int


def dp_memory_bytes(n: int, k: int) -> tuple[int, int]:
    """Bytes that :func:`kgroups_1d` allocates for ``n`` points and ``k`` clusters.

    Parameters
    ----------
    n : int
        Number of points, ``n >= 1``.
    k : int
        Number of clusters, ``1 <= k <= n``.

    Returns
    -------
    (int, int)
        The back-pointer table of the dynamic programme, ``4 (k - 2) (n - k + 1)`` bytes (one
        uint32 per right end of every layer but the first and the last), and an upper bound on
        the working arrays alive alongside it (the Rust solver's O(n) vectors and this
        module's copies of the data). Both are 0 for ``k = 1``, which needs no dynamic
        programme.
    """
    if k <= 1:
        return 0, 0
    table = BACK_POINTER_BYTES * (k - 2) * (n - k + 1)
    working = RUST_BYTES_PER_POINT * (n + 1) + 8 * PY_VECTORS * n
    return table, working


def available_memory_bytes() -> Optional[int]:
    """Bytes of physical memory available to a new allocation, or None where unknown.

    On Linux ``MemAvailable`` of ``/proc/meminfo`` (free memory plus what the kernel can
    reclaim, such as the page cache); elsewhere ``os.sysconf("SC_AVPHYS_PAGES")`` times the
    page size (free pages); where neither exists, the total physical memory
    (``SC_PHYS_PAGES``).
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # the value is in kB
    except (OSError, ValueError, IndexError):
        pass
    for pages in ("SC_AVPHYS_PAGES", "SC_PHYS_PAGES"):
        try:
            return int(os.sysconf(pages)) * int(os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, ValueError, OSError):
            continue
    return None


def check_dp_memory(n: int, k: int) -> None:
    """Raise ``MemoryError`` with the figures when the dynamic programme for ``n`` points and
    ``k`` clusters needs more memory than is available (see :func:`dp_memory_bytes`)."""
    table, working = dp_memory_bytes(n, k)
    available = available_memory_bytes()
    if available is None or table + working <= available:
        return
    raise MemoryError(
        f"kgroups_1d with n = {n} points and k = {k} clusters needs about "
        f"{gib(table + working)} for its dynamic programme ({gib(table)} of back-pointers, "
        f"(k - 2) x (n - k + 1) uint32, plus {gib(working)} of working arrays), but only "
        f"{gib(available)} of memory is available; use a smaller k (the table grows with "
        "k x n), or fewer points (e.g. a subsample)"
    )


def gib(n_bytes: int) -> str:
    """``n_bytes`` in GiB: one decimal from 1 GiB on, two significant digits below."""
    gib = n_bytes / 2.0**30
    return f"{gib:.1f} GiB" if gib >= 1.0 else f"{gib:.2g} GiB"


def as_real_array(a: npt.ArrayLike, name: str) -> Float:
    raw = np.asarray(a)
    if raw.dtype.kind == "c":
        raise TypeError(f"{name} must contain real numbers, got complex dtype {raw.dtype}")
    if raw.dtype.kind not in "biuf":
        try:
            raw = raw.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must contain real numbers, got dtype {raw.dtype}") from exc
    return np.asarray(raw, dtype=np.float64)


def pow2_at_least(v: float) -> float:
    """The smallest power of two >= v, capped at 2^1023 (so v / result < 2); 1.0 for v == 0."""
    if v == 0.0:
        return 1.0
    mantissa, exponent = np.frexp(v)
    if mantissa == 0.5:
        return v
    return float(np.ldexp(1.0, min(int(exponent), 1023)))


def interval_within(xs: Float, ws: Float, bounds: Int) -> Float:
    """Each interval's ``W_j`` for the partition with boundaries ``bounds`` (gap form, no
    cancellation).

    For a sorted segment, ``sum_{a<b} w_a w_b (x_b - x_a) = sum_t (x_{t+1} - x_t) L_t R_t`` with
    ``L_t`` the weight of positions ``<= t`` and ``R_t`` that of positions ``> t``; then
    ``W_seg = (1 / s) * that sum`` (the double sum over ordered pairs is twice it, and W_seg
    divides by ``2 s``).
    """
    out = np.zeros(bounds.size - 1)
    for j, (a, b) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())):
        if b - a < 2:
            continue
        seg_w = ws[a:b]
        gaps = np.diff(xs[a:b])
        left = np.cumsum(seg_w)[:-1]
        right = np.cumsum(seg_w[::-1])[::-1][1:]
        s = float(left[-1] + seg_w[-1])
        out[j] = float(np.sum(gaps * left * right)) / s
    return out
