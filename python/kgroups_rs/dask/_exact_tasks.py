"""The work of the tasks of exact distributed kernel k-groups (see :mod:`._exact`): what
runs on the workers, chunk by chunk, and the records they exchange with the client."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .. import _core
from .._kernel_options import Semimetric
from ._features import FloatArray, IntArray


@dataclass(frozen=True)
class KernelSpec:
    """The semimetric of the kernel, its bandwidth resolved."""

    semimetric: Semimetric
    alpha: float
    sigma: Optional[float]


@dataclass(frozen=True)
class Proposals:
    """A chunk's first candidate moves in sweep order (global rows)."""

    rows: IntArray
    points: FloatArray
    weights: FloatArray
    diagonal: FloatArray
    labels: IntArray
    sums: FloatArray

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in (self.rows, self.points, self.weights,
                                           self.diagonal, self.labels, self.sums))


@dataclass(frozen=True)
class Moves:
    """A round's accepted moves, in the order they were made: global rows, the clusters left
    and joined, the points and their weights."""

    rows: IntArray
    from_: IntArray
    to: IntArray
    points: FloatArray
    weights: FloatArray

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in (self.rows, self.from_, self.to, self.points, self.weights))


def _aligned(array: Any, dtype: Any) -> Any:
    return np.require(array, dtype, ["C", "A"])


def _centred(block: Any, mean: FloatArray) -> FloatArray:
    return np.ascontiguousarray(np.asarray(block, dtype=np.float64) - mean)


def _diagonal(x: FloatArray, spec: KernelSpec) -> FloatArray:
    if x.shape[0] == 0:
        return np.zeros(0)
    return np.asarray(_core.exact_diagonal(_aligned(x, np.float64), spec.semimetric, spec.alpha, spec.sigma))


def _add_sums(
    x: FloatArray, start: FloatArray, other: Any, labels: Any, weights: Any, k: int,
    spec: KernelSpec, n_threads: Optional[int],
) -> FloatArray:
    """``start`` plus the sums of the rows of ``x`` against ``other`` (in ``other``'s order)."""
    other = np.asarray(other)
    if x.shape[0] == 0 or other.shape[0] == 0:
        return start
    return np.asarray(_core.exact_cluster_sums(
        _aligned(x, np.float64), _aligned(other, np.float64), _aligned(labels, np.int64),
        _aligned(weights, np.float64), k, spec.semimetric, spec.alpha, spec.sigma,
        start=_aligned(start, np.float64), n_threads=n_threads,
    ))


def _within_sums(
    x: Any, labels: Any, weights: Any, k: int, spec: KernelSpec, n_threads: Optional[int]
) -> FloatArray:
    """The sums of a block of points against itself."""
    x = np.asarray(x)
    if x.shape[0] == 0:
        return np.zeros((0, k))
    return np.asarray(_core.exact_within_sums(
        _aligned(x, np.float64), _aligned(labels, np.int64), _aligned(weights, np.float64), k,
        spec.semimetric, spec.alpha, spec.sigma, n_threads=n_threads,
    ))


def _cross_sums(
    x_a: Any, labels_a: Any, weights_a: Any, x_b: Any, labels_b: Any, weights_b: Any, k: int,
    spec: KernelSpec,
) -> tuple[FloatArray, FloatArray]:
    """The sums of two blocks of points against each other."""
    a, b = _core.exact_cross_sums(
        _aligned(x_a, np.float64), _aligned(labels_a, np.int64), _aligned(weights_a, np.float64),
        _aligned(x_b, np.float64), _aligned(labels_b, np.int64), _aligned(weights_b, np.float64),
        k, spec.semimetric, spec.alpha, spec.sigma,
    )
    return np.asarray(a), np.asarray(b)


def _zeros(n: int, k: int) -> FloatArray:
    return np.zeros((n, k))


def exact_sum(values: Any) -> float:
    """``math.fsum``, its overflow a ValueError naming ``X``."""
    try:
        return math.fsum(values)
    except OverflowError:
        raise ValueError(
            "invalid `X`: the sums of the data overflow float64 (values too large to add up); "
            "rescale X"
        ) from None


def _exact_parts(values: FloatArray) -> tuple[float, float]:
    """``(hi, lo)``: the exactly rounded sum and the exactly rounded rest (``math.fsum``), so
    that adding the parts of several chunks with ``fsum`` does not depend on the chunking."""
    listed = values.tolist()
    hi = exact_sum(listed)
    return hi, exact_sum(itertools.chain(listed, (-hi,)))


def _column_parts(block: Any) -> list[tuple[float, float]]:
    """The exact parts (:func:`_exact_parts`) of every column sum of a block (zeros for a
    block holding NaN or infinity, which the caller refuses by its first bad value)."""
    values = np.asarray(block, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        return [(0.0, 0.0)] * values.shape[1]
    return [_exact_parts(np.ascontiguousarray(values[:, c])) for c in range(values.shape[1])]


def first_bad_weight(weights: Any) -> Optional[tuple[int, float]]:
    """``(row, weight)`` of the block's first weight that is not finite and > 0 (row local)."""
    values = np.asarray(weights, dtype=np.float64)
    bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)))
    return (int(bad[0]), float(values[bad[0]])) if bad.size else None


def _spread_parts(block: Any, mean: FloatArray) -> tuple[float, float]:
    """The exact parts of ``sum_i ||x_i - mean||^2`` over a block."""
    return _exact_parts(((np.asarray(block, dtype=np.float64) - mean) ** 2).sum(axis=1))


def _chunk_totals(
    state: tuple[IntArray, FloatArray], weights: FloatArray, diagonal: FloatArray, k: int
) -> tuple[IntArray, list[tuple[float, float]], list[tuple[float, float]], tuple[float, float]]:
    """A chunk's counts, and the exact parts of its cluster weights, terms and trace."""
    labels, sums = state
    counts = np.bincount(labels, minlength=k).astype(np.int64)
    own = sums[np.arange(labels.shape[0]), labels] * weights if labels.shape[0] else np.zeros(0)
    weight_parts = [_exact_parts(weights[labels == c]) for c in range(k)]
    term_parts = [_exact_parts(own[labels == c]) for c in range(k)]
    return counts, weight_parts, term_parts, _exact_parts(weights * diagonal)


def _state(labels: Any, sums: FloatArray) -> tuple[IntArray, FloatArray]:
    return np.array(labels, dtype=np.int64), sums


def _nearest_means(
    x: FloatArray, diagonal: FloatArray, sample: FloatArray, sample_labels: IntArray,
    sample_weights: FloatArray, terms: FloatArray, cluster_weights: FloatArray, k: int,
    spec: KernelSpec, n_threads: Optional[int],
) -> IntArray:
    """The nearest of the sample's cluster means in feature space for every row of ``x``:
    ``argmin_l G_ii - 2 m_l(i) / s_l + Q_l / s_l^2`` (ties to the lowest index)."""
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    sums = _add_sums(x, _zeros(x.shape[0], k), sample, sample_labels, sample_weights, k, spec, n_threads)
    cost = (diagonal[:, None] - 2.0 * sums / cluster_weights) + terms / cluster_weights**2
    return np.asarray(np.argmin(cost, axis=1), dtype=np.int64)


def sweep_order(rows: IntArray, cursor: int) -> IntArray:
    """The order of a sweep over global rows from row ``cursor`` on, wrapping round to row 0."""
    return np.lexsort((rows, rows < cursor))


def _commit_and_propose(
    x: FloatArray, weights: FloatArray, diagonal: FloatArray, state: tuple[IntArray, FloatArray],
    commit: Optional[Moves], totals: tuple[IntArray, FloatArray, FloatArray], offset: int,
    cursor: int, max_moves: int, k: int, spec: KernelSpec, n_threads: Optional[int],
) -> tuple[tuple[IntArray, FloatArray], Proposals]:
    """A round on a chunk: apply the previous round's moves to the sums and labels, then list
    the rows' first ``max_moves`` improving moves against the totals in sweep order from
    ``cursor``."""
    labels, sums = state
    n_b = labels.shape[0]
    if commit is not None and n_b and commit.rows.size:
        f, i = np.float64, np.int64
        sums = np.asarray(_core.exact_apply_moves(
            _aligned(x, f), _aligned(sums, f), _aligned(commit.points, f), _aligned(commit.weights, f),
            _aligned(commit.from_, i), _aligned(commit.to, i), spec.semimetric, spec.alpha, spec.sigma,
            n_threads=n_threads,
        ))
        mine = (commit.rows >= offset) & (commit.rows < offset + n_b)
        if np.any(mine):
            labels = labels.copy()
            labels[commit.rows[mine] - offset] = commit.to[mine]
    if n_b == 0 or max_moves == 0:
        rows = np.zeros(0, dtype=np.int64)
    else:
        counts, cluster_weights, terms = totals
        found, _, _, _ = _core.exact_propose(
            _aligned(sums, np.float64), _aligned(labels, np.int64), _aligned(weights, np.float64),
            _aligned(diagonal, np.float64), _aligned(counts, np.int64),
            _aligned(cluster_weights, np.float64), _aligned(terms, np.float64),
        )
        rows = np.asarray(found, dtype=np.int64)
        rows = rows[sweep_order(rows + offset, cursor)[:max_moves]]
    proposals = Proposals(
        rows=rows + offset, points=np.ascontiguousarray(x[rows]),
        weights=np.ascontiguousarray(weights[rows]), diagonal=np.ascontiguousarray(diagonal[rows]),
        labels=np.ascontiguousarray(labels[rows]), sums=np.ascontiguousarray(sums[rows]),
    )
    return (labels, sums), proposals
