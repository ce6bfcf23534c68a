"""Exact energy clustering of one-dimensional data (TPAMI Algorithm 3 and its k-interval extension).

The semimetric is the standard energy distance ``rho(x, y) = |x - y|`` with base point
``x0 = 0``, so the kernel is ``G_ab = (|x_a| + |x_b| - |x_a - x_b|) / 2`` and ``G_ii = |x_i|``.
A cluster ``C`` with weights ``w`` and weight ``s = sum_{a in C} w_a`` contributes

    W_C = (s / 2) g(C, C) = (1 / (2 s)) sum_{a, b in C} w_a w_b |x_a - x_b|

to the within-cluster dispersion ``W = sum_j W_{C_j}``, and the objective is
``Q = sum_i w_i |x_i| - W`` (as always ``W = sum_i w_i G_ii - Q``).

Weighted segment cost (derivation)
----------------------------------
Let ``x_1 <= ... <= x_m`` be a sorted segment with weights ``w_1 .. w_m``. Every unordered pair
``a < b`` appears twice in the double sum and ``|x_a - x_b| = x_b - x_a``, so

    sum_{a,b} w_a w_b |x_a - x_b| = 2 sum_{a<b} w_a w_b (x_b - x_a)
                                  = 2 sum_l w_l x_l (Wb(l) - Wa(l)),

where ``Wb(l) = sum_{a<l} w_a`` and ``Wa(l) = sum_{b>l} w_b`` are the segment weights strictly
before and after ``l`` (collect the coefficient of ``x_l``: it is ``+w_l w_a`` for every
``a < l`` and ``-w_l w_b`` for every ``b > l``). Equal values are harmless: their pair
contributes ``w_a w_b (x_b - x_a) = 0`` whichever of them is called "first". With unit weights
``Wb(l) - Wa(l) = (l - 1) - (m - l) = 2l - 1 - m``, which is the paper's eq. 62.

Now let the whole sorted array have exclusive prefix sums (``t = 0 .. n``)

    P[t] = sum_{r<t} w_r,   A[t] = sum_{r<t} w_r x_r,   B[t] = sum_{r<t} w_r x_r (P[r] + P[r+1]),

(``B`` is the prefix of ``w x`` times the mid-point prefix of ``w``, ``P[r] + w_r / 2``, doubled).
For the segment ``[i, j)`` of sorted positions, ``Wb(l) = P[l] - P[i]`` and
``Wa(l) = P[j] - P[l+1]``, hence ``Wb(l) - Wa(l) = P[l] + P[l+1] - P[i] - P[j]`` and

    sum_{a,b in [i,j)} w_a w_b |x_a - x_b| = 2 [ (B[j] - B[i]) - (P[i] + P[j]) (A[j] - A[i]) ],

    cost(i, j) = W_[i,j) = [ (B[j] - B[i]) - (P[i] + P[j]) (A[j] - A[i]) ] / (P[j] - P[i]),

which is O(1) per segment once the three prefix sums exist.

Optimal cuts for k >= 2 (Rust, ``kgroups::one_d``)
--------------------------------------------------
The interval partition is found by the Rust core (``_core.optimal_cuts_1d``; the proofs and
the error analysis are in the rustdoc of ``src/one_d.rs``):

* the interval cost satisfies the quadrangle (Monge) inequality
  ``cost(a, c) + cost(b, d) <= cost(a, d) + cost(b, c)`` for ``a <= b``, ``c <= d``. Proof in
  one line: by the gap form below, ``cost(i, j) = sum_t (x_{t+1} - x_t) h(L_t(i), R_t(j))``
  with ``h(L, R) = L R / (L + R)``, ``L_t(i)`` the interval's weight up to ``t`` (non-increasing
  in ``i``) and ``R_t(j)`` its weight after ``t`` (non-decreasing in ``j``), and ``h`` is
  supermodular (``dh/dR = (L / (L + R))^2`` grows with ``L``);
* so the smallest optimal split of the dynamic programme
  ``D_j(m) = min_i D_{j-1}(i) + cost(i, m)`` is non-decreasing in ``m``, and each layer is
  solved by divide and conquer over the right ends ``m``: O(n log n) per layer, O(k n log n)
  in all, with ``(k - 2) (n - k + 1)`` 4-byte back-pointers;
* numerical care: the two bracketed terms above are of size ``P_total^2 * spread`` while their
  difference is of size ``s^2 * spread`` of the interval, so short intervals far into a long
  array cancel catastrophically in double precision. The prefix sums are kept in
  double-double (accumulated error-free, so each is its exact value rounded to ~106 bits,
  whatever n), the values are measured from the smallest one (``x - x_0``, exact, so offsets
  cost nothing) and the bracket is evaluated in double-double; only the candidates near each
  row's minimum need that, the others are discarded by a plain-double estimate with a proven
  error bound. Weights whose total exceeds 2^53 times the smallest weight are refused
  (ValueError), because interval weights would then be lost to rounding.

The ``within`` finally reported is recomputed from the chosen partition with the gap form
``sum_{a<b} w_a w_b (x_b - x_a) = sum_t (x_{t+1} - x_t) L_t R_t`` (``L_t``, ``R_t``: the
segment weight up to and including ``t``, and after ``t``), a sum of non-negative terms.
"""

from __future__ import annotations

import numbers
import os
from typing import Optional

import numpy as np
import numpy.typing as npt

from . import _core
from ._result import ClusteringResult

__all__ = ["kgroups_1d"]

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]

# Candidates whose W is within this relative distance of the minimum count as tied; ties go to
# the smallest cut index (the Rust solver uses the same rule, kgroups::one_d::TIE_RTOL). Only the
# quadratic reference programme below reads it.
_TIE_RTOL = 1e-12
# Elements per temporary matrix in the quadratic reference programme.
_BLOCK_ELEMENTS = 1 << 19

# What kgroups_1d allocates (keep in step with kgroups_1d and kgroups::one_d::memory_bytes;
# the test-suite checks that the estimate bounds the measured peak):
# - vectors of n eight-byte entries alive while the Rust solver runs: the data, weights,
#   order, sorted and rescaled copies in kgroups_1d;
_PY_VECTORS = 7
# - the Rust solver (kgroups::one_d::memory_bytes): per point (n + 1 of them) six
#   double-double prefix-sum words, two layers of the programme and one row of candidate
#   values (nine f64) and one u32 candidate index; plus the back-pointers below.
_RUST_BYTES_PER_POINT = 9 * 8 + 4
# - back-pointers: (k - 2) (n - k + 1) u32 (layers 2 .. k - 1, the rows each layer needs).
_BACK_POINTER_BYTES = 4


def kgroups_1d(
    x: npt.ArrayLike,
    k: int = 2,
    weights: npt.ArrayLike | None = None,
) -> ClusteringResult:
    """Exact energy clustering of one-dimensional data into ``k`` intervals.

    Minimises the energy within-cluster dispersion for ``rho(x, y) = |x - y|`` (base point 0)

        W = sum_j (s_j / 2) g(C_j, C_j) = sum_j (1 / (2 s_j)) sum_{a,b in C_j} w_a w_b |x_a - x_b|

    over all partitions of the *sorted* data into ``k`` non-empty contiguous intervals, and
    reports the equivalent maximised objective ``Q = sum_i w_i |x_i| - W``.

    What "exact" means: the result is the global optimum over partitions into ``k`` intervals
    of the sorted data (up to floating-point rounding between near-equal candidates). It is not
    proven to be optimal over *all* partitions. For ``k = 2`` the best
    threshold split was the global optimum over all 2-partitions in every case tried
    (exhaustive enumeration up to n = 14, an LP argument up to 16 points, and no Hartigan or
    Lloyd run ever beating it) -- strong evidence, not a theorem. The test-suite repeats the
    exhaustive check for n <= 12, weighted and unweighted.

    Parameters
    ----------
    x : array_like of real numbers, shape (n,)
        The data. Converted with ``np.asarray(x, dtype=np.float64)``. It must be one-dimensional:
        an ``(n, 1)`` column is rejected (pass ``x.ravel()``) rather than silently flattened,
        because a 2-D array more often means multivariate data, which this solver cannot handle.
        Must be non-empty and finite.
    k : int, default 2
        Number of clusters, ``1 <= k <= n``. A Python or numpy integer (``bool`` is rejected).
    weights : array_like of shape (n,), optional
        Positive finite point weights ``w_i`` (default: all 1).

    Returns
    -------
    ClusteringResult
        ``labels`` (int64, in the order of the input ``x``) numbered so that cluster 0 holds the
        smallest values, cluster 1 the next interval, and so on; ``within`` = W;
        ``objective`` = Q = ``sum_i w_i |x_i| - W``; ``thresholds`` = the ``k - 1`` cut values,
        each the midpoint between the last (largest) value of cluster ``j`` and the first
        (smallest) value of cluster ``j + 1``; ``n_iter = 1``, ``n_moves = 0``,
        ``converged = True``, ``objective_history = [Q]``, ``cluster_terms`` = each interval's
        ``Q_j = s_j (sum_{a in C_j} w_a |x_a| - W_j)``.

    Raises
    ------
    TypeError
        If ``x`` or ``weights`` cannot be read as real numbers, or ``k`` is not an integer.
    ValueError
        If ``x`` is empty, not 1-D, or contains NaN/inf; if ``k < 1`` or ``k > n``; if
        ``weights`` has the wrong shape, is not finite, or is not strictly positive; if ``Q``,
        ``W`` or a ``Q_j`` (which scales like the weights squared) is beyond the float range.
        ValueError also if the weights are so spread that their total exceeds ``2^53`` times the
        smallest weight (``k >= 2``: interval weights would be lost to rounding).
    MemoryError
        Before anything large is allocated, if the dynamic programme would need more memory
        than is available: about ``132 n`` bytes of working arrays plus ``4 (k - 2) (n - k + 1)``
        bytes of back-pointers (e.g. 931 GiB for ``n = 10^6``, ``k = n / 2``). "Available" is
        ``MemAvailable`` of ``/proc/meminfo`` on Linux, else ``os.sysconf("SC_AVPHYS_PAGES")``
        pages, else the total physical memory. The message gives the figures; use a smaller
        ``k`` or fewer points.
    KeyboardInterrupt
        On Ctrl-C (the solver checks every few milliseconds).

    Notes
    -----
    Algorithm. The data are sorted once (stable argsort). A partition into intervals is given by
    cut indices ``0 < c_1 < ... < c_{k-1} < n`` of the sorted order (cluster ``j`` is sorted
    positions ``[c_j, c_{j+1})``); every interval's W is an O(1) expression in prefix sums of
    ``w``, ``w x`` and ``w x (prefix of w)`` (derivation in the module docstring).

    * ``k = 2`` (TPAMI Algorithm 3): W of every one of the ``n - 1`` threshold splits in O(1)
      each, so O(n log n) time (the sort) and O(n) memory in total.
    * ``k > 2``: dynamic programming ``D_j(m) = min_i D_{j-1}(i) + cost(i, m)`` over the number
      of clusters ``j`` and the end ``m`` of the last interval. The interval cost is Monge (proof
      in the module docstring), so the best split is monotone in ``m`` and each layer is solved
      by divide and conquer: O(n log n) per layer, O(k n log n) time and O(n + k n) memory in
      all (Rust, with the GIL released). n = 2 000 000, k = 5 takes about 2 s. ``k = 1`` is
      O(n log n).

    Ties. Candidates whose W agrees with the minimum to a relative ``1e-12`` are treated as
    tied, and the smallest cut index wins (for ``k > 2`` the backtracking fixes the last cut
    first, then the one before, each time taking the smallest optimal index). For the cuts
    before the last, "smallest" is among the splits the divide and conquer examines for that
    end, a range that contains the smallest exactly optimal split; a split outside it can only
    be one within ``1e-12`` of the optimum. So the clusters are as far "left-heavy" as
    optimality allows; e.g. constant data give cluster sizes ``1, 1, ..., n - k + 1``.

    Equal values. Cuts are positions in the sorted order, so a run of equal values *may* be
    split across two clusters; which copies go left then follows the stable sort (input order),
    the threshold equals the shared value, and the labels -- not the rule
    ``thresholds[j-1] < x <= thresholds[j]`` -- are authoritative. Such a split is never
    strictly better than cutting at an end of the run: moving ``c`` copies of a value ``v`` into
    a cluster ``L`` gives ``W(c) = (S_L + 2 c w T_L) / (2 (s_L + c w))`` with
    ``T_L = sum_{a in L} w_a |x_a - v|`` and ``S_L <= 2 s_L T_L`` (triangle inequality), a
    concave function of ``c``; so W is concave along the cuts inside a run. In practice runs
    are split only when forced (``k`` larger than the number of distinct values, e.g. constant
    data) or at a numerical tie. Thresholds between distinct neighbouring values always
    separate the clusters strictly.

    Examples
    --------
    >>> r = kgroups_1d([0.0, 10.0, 0.5, 10.5, 1.0], k=2)
    >>> r.labels.tolist()
    [0, 1, 0, 1, 0]
    >>> float(r.thresholds[0])
    5.5
    """
    xs_in, w_in, k = _validate(x, k, weights)
    n = xs_in.shape[0]
    _check_dp_memory(n, k)

    order = np.argsort(xs_in, kind="stable")
    xs = xs_in[order]
    ws = w_in[order]

    # Exact power-of-two rescaling: W is homogeneous of degree 1 in x and in w, so working with
    # x / 2^a (values in [-2, 2]) and w / 2^b (weights in (0, 2)) changes no comparison
    # (barring underflow of values ~2^-1074 times smaller than the largest) and keeps the
    # intermediate products far from overflow.
    x_scale = _pow2_at_least(float(max(abs(xs[0]), abs(xs[-1]))))
    w_scale = _pow2_at_least(float(ws.max()))
    xs_n = xs / x_scale
    ws_n = ws / w_scale
    if np.any(ws_n == 0.0):
        raise ValueError(
            "weights span too many orders of magnitude: the smallest underflows to 0 relative "
            "to the largest"
        )

    cuts = (
        np.zeros(0, dtype=np.int64)
        if k == 1
        else np.asarray(_core.optimal_cuts_1d(xs_n, ws_n, k), dtype=np.int64)
    )

    bounds = np.concatenate(([0], cuts, [n])).astype(np.int64)
    within_per_interval = _within_per_interval(xs_n, ws_n, bounds)
    within_n = float(np.sum(within_per_interval))
    total_n = float(np.sum(ws_n * np.abs(xs_n)))
    scale = x_scale * w_scale
    within = within_n * scale
    objective = (total_n - within_n) * scale
    # Q_j = s_j (sum_{a in C_j} w_a |x_a| - W_j) for G_ab = (|x_a| + |x_b| - |x_a - x_b|) / 2.
    starts = bounds[:-1]
    interval_weights = np.add.reduceat(ws_n, starts)
    interval_trace = np.add.reduceat(ws_n * np.abs(xs_n), starts)
    # Q_j scales like w^2 x, so it can leave the float range where W (w x) does not; the
    # factors are applied one at a time so that a zero term stays 0 (never 0 * inf).
    with np.errstate(over="ignore", under="ignore"):
        cluster_terms = interval_weights * (interval_trace - within_per_interval) * x_scale * w_scale
        cluster_terms = cluster_terms * w_scale
    if not (np.isfinite(objective) and np.isfinite(within) and np.all(np.isfinite(cluster_terms))):
        raise ValueError(
            "x and weights are so large that the objective, W or the cluster terms "
            "Q_j = sum w_a w_b G_ab are beyond the range of float64; divide x or the weights "
            "by a common factor (the partition does not change)"
        )

    sizes = np.diff(bounds)
    labels_sorted = np.repeat(np.arange(k, dtype=np.int64), sizes)
    labels = np.empty(n, dtype=np.int64)
    labels[order] = labels_sorted

    lo = xs[cuts - 1]
    hi = xs[cuts]
    with np.errstate(over="ignore"):
        gap = hi - lo  # inf only for gaps beyond the float range, e.g. -1e308 .. 1e308
        thresholds = np.where(np.isfinite(gap), lo + 0.5 * gap, 0.5 * lo + 0.5 * hi)

    return ClusteringResult(
        labels=labels,
        objective=float(objective),
        within=float(within),
        n_iter=1,
        n_moves=0,
        converged=True,
        objective_history=np.array([objective], dtype=np.float64),
        cluster_terms=cluster_terms,
        thresholds=thresholds,
        approximate=False,
    )


# --------------------------------------------------------------------------- validation


def _validate(
    x: npt.ArrayLike, k: object, weights: npt.ArrayLike | None
) -> tuple[_Float, _Float, int]:
    xa = _as_real_array(x, "x")
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
        wa = _as_real_array(weights, "weights")
        if wa.shape != (n,):
            raise ValueError(f"weights must have shape ({n},) like x, got shape {wa.shape}")
        if not np.all(np.isfinite(wa)):
            raise ValueError("weights contain NaN or infinite values")
        if not np.all(wa > 0.0):
            raise ValueError("weights must be strictly positive")
    return xa, wa, k_int


def _dp_memory_bytes(n: int, k: int) -> tuple[int, int]:
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
    table = _BACK_POINTER_BYTES * (k - 2) * (n - k + 1)
    working = _RUST_BYTES_PER_POINT * (n + 1) + 8 * _PY_VECTORS * n
    return table, working


def _available_memory_bytes() -> Optional[int]:
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


def _check_dp_memory(n: int, k: int) -> None:
    """Raise ``MemoryError`` with the figures when the dynamic programme for ``n`` points and
    ``k`` clusters needs more memory than is available (see :func:`_dp_memory_bytes`)."""
    table, working = _dp_memory_bytes(n, k)
    available = _available_memory_bytes()
    if available is None or table + working <= available:
        return
    raise MemoryError(
        f"kgroups_1d with n = {n} points and k = {k} clusters needs about "
        f"{_gib(table + working)} for its dynamic programme ({_gib(table)} of back-pointers, "
        f"(k - 2) x (n - k + 1) uint32, plus {_gib(working)} of working arrays), but only "
        f"{_gib(available)} of memory is available; use a smaller k (the table grows with "
        "k x n), or fewer points (e.g. a subsample)"
    )


def _gib(n_bytes: int) -> str:
    """``n_bytes`` in GiB: one decimal from 1 GiB on, two significant digits below."""
    gib = n_bytes / 2.0**30
    return f"{gib:.1f} GiB" if gib >= 1.0 else f"{gib:.2g} GiB"


def _as_real_array(a: npt.ArrayLike, name: str) -> _Float:
    raw = np.asarray(a)
    if raw.dtype.kind == "c":
        raise TypeError(f"{name} must contain real numbers, got complex dtype {raw.dtype}")
    if raw.dtype.kind not in "biuf":
        try:
            raw = raw.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must contain real numbers, got dtype {raw.dtype}") from exc
    return np.asarray(raw, dtype=np.float64)


def _pow2_at_least(v: float) -> float:
    """The smallest power of two >= v, capped at 2^1023 (so v / result < 2); 1.0 for v == 0."""
    if v == 0.0:
        return 1.0
    mantissa, exponent = np.frexp(v)
    if mantissa == 0.5:
        return v
    return float(np.ldexp(1.0, min(int(exponent), 1023)))


# ---------------------------------------------------------- the quadratic reference programme
# The former O(k n^2) numpy dynamic programme (before the Rust solver), kept as an independent
# reference: the test-suite compares the two, and benches/bench_one_d.py times them side by
# side. kgroups_1d does not use it.


def _quadratic_reference_cuts(
    x: npt.ArrayLike, k: int, weights: npt.ArrayLike | None = None
) -> _Int:
    """The cut indices (positions in the stable sorted order) that the former O(k n^2)
    dynamic programme of this module finds for :func:`kgroups_1d`'s problem."""
    xs_in, w_in, k = _validate(x, k, weights)
    order = np.argsort(xs_in, kind="stable")
    xs, ws = xs_in[order], w_in[order]
    xs_n = xs / _pow2_at_least(float(max(abs(xs[0]), abs(xs[-1]))))
    ws_n = ws / _pow2_at_least(float(ws.max()))
    return _optimal_cuts(xs_n, ws_n, k)


def _prefix_costs(u: _Float, v: _Float) -> _Float:
    """``C[..., q-1]`` = W of the first ``q`` entries along the last axis.

    ``u`` must be ascending along the last axis over the entries that matter (entries with
    ``v == 0`` contribute nothing); the first entry must have ``v > 0``. With inclusive
    prefix sums ``P_q``, ``A_q = sum v u``, ``B_q = sum v u (P_excl + P_incl)``, the module
    docstring's formula with ``i = 0`` reads ``W = (B_q - P_q A_q) / P_q``.
    """
    p_incl = np.cumsum(v, axis=-1)
    p_excl = p_incl - v
    vu = v * u
    a = np.cumsum(vu, axis=-1)
    b = np.cumsum(vu * (p_excl + p_incl), axis=-1)
    out: _Float = (b - p_incl * a) / p_incl
    return out


def _first_near_min(vals: _Float) -> tuple[_Int, _Float]:
    """Per row: the first column within ``_TIE_RTOL`` of the row minimum, and its value."""
    vmin = vals.min(axis=-1)
    near = vals <= (vmin + _TIE_RTOL * np.abs(vmin))[..., None]
    idx = np.argmax(near, axis=-1).astype(np.int64)
    chosen = np.take_along_axis(vals, idx[..., None], axis=-1)[..., 0]
    return idx, chosen


def _layer(
    xs: _Float,
    ws: _Float,
    d_prev: _Float,
    ends: _Int,
) -> tuple[_Float, _Int]:
    """``D(m) = min_i d_prev[i] + cost(i, m)`` for every right end ``m`` in ``ends`` (ascending).

    ``d_prev[i]`` is the best W of the first ``i`` sorted points with one cluster fewer
    (``inf`` where infeasible). Returns the minima and the chosen split ``i`` (the smallest
    within the tie tolerance).

    The right ends are processed in blocks. A block ending at ``e`` (its largest ``m``) uses
    prefix sums of the reversed, negated data ``u_r = x[e-1] - x[e-1-r]``, ``v_r = w[e-1-r]``
    (ascending in ``r``; ``|x - y|`` and hence every cost is unchanged), taken from ``e``
    downwards. Segment ``[i, m)`` is ``r in [e - m, e - i)`` there, so the module docstring's
    formula gives, with ``Pi = P[e - i]``, ``Pm = P[e - m]`` and likewise for ``A``, ``B``,

        cost(i, m) = ((Bi - Bm) - (Pi + Pm) (Ai - Am)) / (Pi - Pm).

    Restarting the sums at the block's end keeps ``Pm`` no larger than the block's weight, so
    the cancellation in the numerator stays small; the block itself is one broadcast
    expression, O(block x e) with no gathers.
    """
    n_ends = ends.shape[0]
    out_val = np.empty(n_ends, dtype=np.float64)
    out_arg = np.empty(n_ends, dtype=np.int64)
    start = 0
    while start < n_ends:
        e_guess = int(ends[-1])
        rows = max(1, _BLOCK_ELEMENTS // max(e_guess, 1))
        stop = min(n_ends, start + rows)
        m = ends[start:stop]
        e = int(m[-1])
        # Reversed prefix sums over r = 0..e-1 (position e-1-r), exclusive, length e+1.
        u = xs[e - 1] - xs[e - 1 :: -1]
        v = ws[e - 1 :: -1]
        p_incl = np.cumsum(v)
        p = np.concatenate(([0.0], p_incl))
        vu = v * u
        a = np.concatenate(([0.0], np.cumsum(vu)))
        b = np.concatenate(([0.0], np.cumsum(vu * (p[:-1] + p_incl))))
        # Columns: split points i = 0..e-1 -> reversed index e - i; rows: right ends m.
        ri = e - np.arange(e, dtype=np.int64)
        pi, ai, bi = p[ri], a[ri], b[ri]
        rm = e - m
        pm, am, bm = p[rm][:, None], a[rm][:, None], b[rm][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            costs = ((bi[None, :] - bm) - (pi[None, :] + pm) * (ai[None, :] - am)) / (
                pi[None, :] - pm
            )
        vals = costs + d_prev[None, :e]
        vals = np.where(np.arange(e)[None, :] < m[:, None], vals, np.inf)
        col, best = _first_near_min(vals)
        out_arg[start:stop] = col
        out_val[start:stop] = best
        start = stop
    return out_val, out_arg


def _optimal_cuts(xs: _Float, ws: _Float, k: int) -> _Int:
    """Cut indices ``0 < c_1 < ... < c_{k-1} < n`` of an optimal interval partition."""
    n = xs.shape[0]
    if k == 1:
        return np.zeros(0, dtype=np.int64)
    # Layer 1: D_1(m) = cost(0, m), m = 1..n, from the left end (u = x - x_0 >= 0).
    d_prev = np.full(n + 1, np.inf)
    d_prev[1:] = _prefix_costs(xs - xs[0], ws)
    back: list[_Int] = []
    for j in range(2, k + 1):
        # Layer j needs m >= j points and must leave k - j points for the remaining clusters;
        # the last layer only needs m = n (O(n) work, so k = 2 costs O(n) after the sort).
        ends = (
            np.arange(j, n - (k - j) + 1, dtype=np.int64)
            if j < k
            else np.array([n], dtype=np.int64)
        )
        vals, args = _layer(xs, ws, d_prev, ends)
        d_next = np.full(n + 1, np.inf)
        d_next[ends] = vals
        arg_full = np.full(n + 1, -1, dtype=np.int64)
        arg_full[ends] = args
        back.append(arg_full)
        d_prev = d_next
    cuts = np.empty(k - 1, dtype=np.int64)
    end = n
    for j in range(k - 1, 0, -1):
        end = int(back[j - 1][end])
        if end < 1:
            # A segment's weight is a difference of prefix sums: with weights that span more
            # than the float precision, it cancels to 0 and the costs become NaN.
            raise ValueError(
                f"weights span {float(ws.max() / ws.min()):.1e} (largest / smallest), beyond the "
                "precision of the interval dynamic programme (about 1e15): merge or drop points "
                "of negligible weight, or use kernel_kgroups"
            )
        cuts[j - 1] = end
    return cuts


def _within_per_interval(xs: _Float, ws: _Float, bounds: _Int) -> _Float:
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
