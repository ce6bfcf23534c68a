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

import numpy as np
import numpy.typing as npt

from . import _core
from ._one_d import (
    check_dp_memory,
    interval_within,
    pow2_at_least,
    validate,
)
from ._result import ClusteringResult

__all__ = ["kgroups_1d"]


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
    xs_in, w_in, k = validate(x, k, weights)
    n = xs_in.shape[0]
    check_dp_memory(n, k)

    order = np.argsort(xs_in, kind="stable")
    xs = xs_in[order]
    ws = w_in[order]

    # Exact power-of-two rescaling: W is homogeneous of degree 1 in x and in w, so working with
    # x / 2^a (values in [-2, 2]) and w / 2^b (weights in (0, 2)) changes no comparison
    # (barring underflow of values ~2^-1074 times smaller than the largest) and keeps the
    # intermediate products far from overflow.
    x_scale = pow2_at_least(float(max(abs(xs[0]), abs(xs[-1]))))
    w_scale = pow2_at_least(float(ws.max()))
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
    within_per_interval = interval_within(xs_n, ws_n, bounds)
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
