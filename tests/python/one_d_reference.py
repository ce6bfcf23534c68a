"""The former O(k n^2) numpy dynamic programme of :func:`kgroups_rs.kgroups_1d` (before the
Rust solver ``_core.optimal_cuts_1d``), kept as an independent reference: ``test_one_d.py``
compares the two, and ``benches/bench_one_d.py`` times them side by side."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from kgroups_rs._one_d import pow2_at_least, validate

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]

# Candidates whose W is within this relative distance of the minimum count as tied; ties go to
# the smallest cut index (the Rust solver uses the same rule, kgroups::one_d::TIE_RTOL).
_TIE_RTOL = 1e-12
# Elements per temporary matrix in the quadratic reference programme.
_BLOCK_ELEMENTS = 1 << 19


def quadratic_reference_cuts(
    x: npt.ArrayLike, k: int, weights: npt.ArrayLike | None = None
) -> _Int:
    """The cut indices (positions in the stable sorted order) that the former O(k n^2)
    dynamic programme finds for :func:`kgroups_1d`'s problem."""
    xs_in, w_in, k = validate(x, k, weights)
    order = np.argsort(xs_in, kind="stable")
    xs, ws = xs_in[order], w_in[order]
    xs_n = xs / pow2_at_least(float(max(abs(xs[0]), abs(xs[-1]))))
    ws_n = ws / pow2_at_least(float(ws.max()))
    return _optimal_cuts(xs_n, ws_n, k)


def _prefix_costs(u: _Float, v: _Float) -> _Float:
    """``C[..., q-1]`` = W of the first ``q`` entries along the last axis.

    ``u`` must be ascending along the last axis over the entries that matter (entries with
    ``v == 0`` contribute nothing); the first entry must have ``v > 0``. With inclusive
    prefix sums ``P_q``, ``A_q = sum v u``, ``B_q = sum v u (P_excl + P_incl)``, the formula of
    :mod:`kgroups_rs.one_d`'s docstring with ``i = 0`` reads ``W = (B_q - P_q A_q) / P_q``.
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
    downwards. Segment ``[i, m)`` is ``r in [e - m, e - i)`` there, so the formula of
    :mod:`kgroups_rs.one_d`'s docstring gives, with ``Pi = P[e - i]``, ``Pm = P[e - m]`` and
    likewise for ``A``, ``B``,

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
