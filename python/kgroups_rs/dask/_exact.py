"""Exact kernel k-groups on a Dask cluster: matrix-free Hartigan rounds (``method="exact"``).

Dask places the data and the Rust core computes, as in xgboost.dask and lightgbm.dask.

State
-----
X is centred on the client's column means (one pass) and persisted in its row chunks. Every
chunk b keeps, on its worker, its rows' labels and their point-to-cluster kernel sums
``S_b[i, l] = m_l(i) = sum_{y in C_l} w_y G(x_i, y)`` (n_b x k), with ``G`` the energy kernel
with base point 0 of the centred data (the kernel of the single-machine matrix-free fit). The
client holds O(k) numbers: the cluster counts, weights ``s_l`` and terms
``Q_l = sum_{i in C_l} w_i m_l(i)``, and the labels never.

Passes and rounds
-----------------
* **A sums pass** builds every ``S_b`` from scratch against all the points, each pair of
  points computed once: the rows are cut into global blocks (:func:`pass_block` rows,
  fixed by n alone, not by the chunking), one task sums a block against itself and one
  task every pair of blocks (both blocks' sums against the other), and each block's sums
  are added in block order; then they are cut into the chunks. So the sums do not depend on
  the chunking. The totals come back as exactly rounded sums (``math.fsum`` per chunk, with
  the residual), so they do not depend on the chunking either. Cost: n^2 D / 2 kernel
  evaluations on the workers in G (G + 1) / 2 tasks for G blocks, 2 B k values sent back
  per task of blocks of B rows.
* **A round**: every chunk applies the previous round's moves to its sums (``O(n_b m D)``
  for m moves) and lists its rows' improving moves against the round's totals (the
  single-machine Hartigan gain and rounding tolerance), the first ``max_moves_per_round``
  in sweep order from the round's cursor, with their coordinates, weights, kernel
  diagonals, labels and sums. The client takes the first ``max_moves_per_round`` of all in
  sweep order (the same whatever the chunking), runs one sequential Hartigan pass over
  them and moves the cursor past the last it considered: each is re-evaluated exactly
  against the totals and its sums as changed by the moves accepted before it (their
  kernel values computed from the coordinates) and moved only if it still gains more than
  the rounding tolerance. So every accepted move is an exact Hartigan move
  and the objective rises with each; the accepted moves go to every chunk with the next
  round. Moves whose gain an earlier move of the round created wait for the next round, so
  the moves (and the local optimum reached) can differ from the single machine's sweep.
* **The end**: when a round proposes no move, a fresh sums pass recomputes every ``S_b`` and
  the totals from the labels; if a move still improves (rounding drift of the kept sums),
  the rounds go on from the fresh state. Otherwise the result is a Hartigan local optimum
  checked by an independent exact pass (``verified=True``), and ``verification_drift`` is
  the relative difference between the objective the client kept and the fresh one.

Starts: k-means++ or spectral on a seeded sample of at most :data:`INIT_SAMPLE_ROWS` rows (the
exact single-machine fit of the sample from that start), every point then going to the nearest
of the sample's cluster means in the kernel's feature space (one pass against the sample),
or given labels. A worker lost mid-fit: each chunk's state is a function of its chunk and
the moves, and dask recomputes lost results from their tasks; a failure dask cannot recover
from is raised as it is. Ctrl-C on the client raises KeyboardInterrupt at once and the fit's
futures are released: dask drops the tasks not yet run, a running task finishes. (They are not
cancelled: distributed's scheduler can fail an assertion cancelling a key's dependents and
drop the client's connection.)
"""

from __future__ import annotations

import math
import operator
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

import dask
import dask.array as da
import numpy as np
from dask.delayed import Delayed

from .. import _core
from .._kernel_options import SEMIMETRICS, Semimetric, check_choice, check_semimetric_parameters
from .._progress import ProgressCallback
from .._validation import check_int, check_n_threads, seed_from_random_state, splitmix
from ..large import kernel_kgroups_from_data
from ..sigma_selection import auto_sigma
from ._exact_tasks import (
    KernelSpec,
    Moves,
    Proposals,
    _add_sums,
    _centred,
    _chunk_totals,
    _column_parts,
    _commit_and_propose,
    _cross_sums,
    _diagonal,
    _nearest_means,
    _spread_parts,
    _state,
    _within_sums,
    _zeros,
    exact_sum,
    first_bad_weight,
    sweep_order,
)
from ._features import FloatArray, IntArray, first_bad
from ._inputs import as_row_chunked, as_row_vector, raise_first_bad, row_blocks

#: Rows of X brought to the client for the k-means++ start.
INIT_SAMPLE_ROWS = 4096
#: The fewest rows of a block of a sums pass.
PASS_BLOCK_MIN = 4096
#: The most rows of a block of a sums pass (a task is two such blocks).
PASS_BLOCK_MAX = 65536
#: A sums pass aims at this many blocks (G (G + 1) / 2 tasks).
PASS_BLOCKS = 16
#: Default number of candidate moves a round considers.
DEFAULT_MAX_MOVES = 1024
#: Largest allowed n_init.
_MAX_N_INIT = 1000


@dataclass(frozen=True)
class DaskExactResult:
    """The outcome of an exact distributed fit (the best start when ``n_init > 1``).

    Attributes
    ----------
    labels : dask.array.Array of int64, shape (n,)
        Cluster of each point, chunked like X's rows, held by the workers.
    objective : float
        ``Q = sum_l Q_l / s_l`` of the exact kernel, from the final independent pass.
    within : float
        ``W = sum_i w_i G_ii - Q``, the within-cluster dispersion (minimised).
    n_iter : int
        Rounds run (counting those that proposed no move).
    n_moves : int
        Moves made over all rounds.
    converged : bool
        True when a round proposed no move against freshly computed sums.
    verified : bool
        True when the final independent exact pass found no improving single move: the
        labels are a Hartigan local optimum of the exact kernel.
    verification_drift : float
        ``|Q_kept - Q_fresh| / |Q_fresh|`` at the last check: how far the objective the
        client kept through the rounds was from the recomputed one (rounding only).
    n_passes : int
        Sums passes over all pairs (the first, and one per check).
    objective_history : ndarray of float64
        The objective kept by the client, at the start and after every round.
    cluster_terms, cluster_weights : ndarray of float64, shape (k,)
        ``Q_l`` and ``s_l`` of the final pass.
    cluster_sizes : ndarray of int64, shape (k,)
    best_start : int
    round_seconds : list of float
        Wall time of every round of the best start.
    round_bytes : list of int
        Bytes of candidates received plus moves sent (counted once per chunk) per round.
    pass_seconds : list of float
        Wall time of every sums pass over all pairs of the best start (the first, then one
        per check).
    approximate : bool
        Always False.
    """

    labels: Any
    objective: float
    within: float
    n_iter: int
    n_moves: int
    converged: bool
    verified: bool
    verification_drift: float
    n_passes: int
    objective_history: FloatArray
    cluster_terms: FloatArray
    cluster_weights: FloatArray
    cluster_sizes: IntArray
    best_start: int
    round_seconds: list[float] = field(default_factory=list)
    round_bytes: list[int] = field(default_factory=list)
    pass_seconds: list[float] = field(default_factory=list)
    approximate: bool = False

    def __repr__(self) -> str:
        return (
            f"DaskExactResult(n={self.labels.shape[0]}, k={self.cluster_terms.size}, "
            f"objective={self.objective:.10g}, within={self.within:.10g}, n_iter={self.n_iter}, "
            f"n_moves={self.n_moves}, converged={self.converged}, verified={self.verified})"
        )


# ------------------------------------------------------------------------ the client's side
@dataclass
class _Data:
    """The persisted blocks the rounds run on, and their global offsets."""

    x: Any  # the centred X, a dask array
    weights: Any  # a dask array
    x_blocks: list[Delayed]
    weight_blocks: list[Delayed]
    diagonal_blocks: list[Delayed]
    offsets: list[int]
    sizes: list[int]
    k: int
    spec: KernelSpec
    n_threads: Optional[int]


def pass_block(n: int) -> int:
    """The rows of a block of a sums pass over n points: n / 16, within 4096 … 65536."""
    return min(PASS_BLOCK_MAX, max(PASS_BLOCK_MIN, -(-n // PASS_BLOCKS)))


def _sums_pass(data: _Data, labels: Any) -> list[Delayed]:
    """Every chunk's state ``(labels, S_b)`` from scratch for the labels (a dask array)."""
    n = data.x.shape[0]
    size = pass_block(n)
    bounds = list(range(0, n, size)) + [n]
    blocks = [
        (data.x[start:stop], labels[start:stop], data.weights[start:stop])
        for start, stop in zip(bounds[:-1], bounds[1:])
    ]
    # parts[p][q]: block p's sums against block q.
    parts: list[list[Any]] = [[None] * len(blocks) for _ in blocks]
    for p, (x_p, labels_p, weights_p) in enumerate(blocks):
        parts[p][p] = dask.delayed(_within_sums, pure=True)(
            x_p, labels_p, weights_p, data.k, data.spec, data.n_threads
        )
        for q in range(p + 1, len(blocks)):
            pair = dask.delayed(_cross_sums, pure=True, nout=2)(*blocks[p], *blocks[q], data.k, data.spec)
            parts[p][q], parts[q][p] = pair[0], pair[1]
    sums_blocks = []
    for p, row in enumerate(parts):
        total = row[0]
        for part in row[1:]:
            total = dask.delayed(operator.add, pure=True)(total, part)
        shape = (bounds[p + 1] - bounds[p], data.k)
        sums_blocks.append(da.from_delayed(total, shape=shape, dtype=np.float64))
    sums = da.concatenate(sums_blocks).rechunk((tuple(data.sizes), data.k))
    states = [
        dask.delayed(_state, pure=True)(labels_b, sums_b)
        for labels_b, sums_b in zip(row_blocks(labels), row_blocks(sums))
    ]
    return list(dask.persist(*states))


def _totals(data: _Data, states: list[Delayed]) -> tuple[IntArray, FloatArray, FloatArray, float]:
    """The exact totals (counts, weights, terms) and trace of the chunks' states."""
    parts = dask.compute(*[
        dask.delayed(_chunk_totals, pure=True)(state, w, d, data.k)
        for state, w, d in zip(states, data.weight_blocks, data.diagonal_blocks)
    ])
    counts = np.sum([p[0] for p in parts], axis=0).astype(np.int64)
    weights = np.array([exact_sum(v for p in parts for v in p[1][c]) for c in range(data.k)])
    terms = np.array([exact_sum(v for p in parts for v in p[2][c]) for c in range(data.k)])
    trace = exact_sum(v for p in parts for v in p[3])
    return counts, weights, terms, trace


def _labels_array(data: _Data, states: list[Delayed]) -> Any:
    blocks = [
        da.from_delayed(dask.delayed(operator.getitem)(state, 0), shape=(size,), dtype=np.int64)
        for state, size in zip(states, data.sizes)
    ]
    labels = da.concatenate(blocks) if blocks else da.zeros(0, dtype=np.int64)
    if labels.chunks[0] != tuple(data.sizes):
        labels = labels.rechunk((tuple(data.sizes),))
    return labels


def _objective(counts: IntArray, weights: FloatArray, terms: FloatArray) -> float:
    return float(sum(float(t) / float(w) for t, w, c in zip(terms, weights, counts) if c > 0))


def _merge(proposals: list[Proposals], max_moves: int, cursor: int) -> Optional[Proposals]:
    """The first ``max_moves`` candidates of all chunks in sweep order from ``cursor``."""
    rows = np.concatenate([p.rows for p in proposals])
    if rows.size == 0:
        return None
    order = sweep_order(rows, cursor)[:max_moves]

    def pick(name: str) -> Any:
        return np.ascontiguousarray(np.concatenate([getattr(p, name) for p in proposals])[order])

    return Proposals(
        rows=rows[order], points=pick("points"), weights=pick("weights"),
        diagonal=pick("diagonal"), labels=pick("labels"), sums=pick("sums"),
    )


@dataclass
class _Run:
    """One start's rounds."""

    states: list[Delayed]
    counts: IntArray
    weights: FloatArray
    terms: FloatArray
    history: list[float]
    n_iter: int = 0
    n_moves: int = 0
    n_passes: int = 1
    converged: bool = False
    verified: bool = False
    drift: float = 0.0
    round_seconds: list[float] = field(default_factory=list)
    round_bytes: list[int] = field(default_factory=list)
    pass_seconds: list[float] = field(default_factory=list)


def _current_client() -> Any:
    """The distributed client the fit runs on, or None (dask's local schedulers)."""
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _closed(client: Any) -> bool:
    return client is not None and client.status in ("closing", "closed")


def _rounds(
    data: _Data, run: _Run, start_index: int, max_iter: int, max_moves: int,
    progress: Optional[ProgressCallback],
) -> None:
    """Rounds until one proposes no move (or ``max_iter``); the last round's moves are
    applied to the chunks' states before returning."""
    commit: Optional[Moves] = None
    n_chunks = len(data.x_blocks)
    cursor = 0
    blocks = list(zip(data.x_blocks, data.weight_blocks, data.diagonal_blocks, data.offsets))
    while True:
        began = time.perf_counter()
        last = run.n_iter >= max_iter
        totals = dask.delayed((run.counts, run.weights, run.terms), pure=True)
        commit_d = dask.delayed(commit, pure=True)
        outs = list(dask.persist(*[
            dask.delayed(_commit_and_propose, pure=True)(
                x, w, d, state, commit_d, totals, offset, cursor, 0 if last else max_moves,
                data.k, data.spec, data.n_threads,
            )
            for (x, w, d, offset), state in zip(blocks, run.states)
        ]))
        run.states = [dask.delayed(operator.getitem)(out, 0) for out in outs]
        if last:
            return
        proposals = list(dask.compute(*[dask.delayed(operator.getitem)(out, 1) for out in outs]))
        sent = (commit.nbytes if commit is not None else 0) * n_chunks + sum(p.nbytes for p in proposals)
        run.n_iter += 1
        candidates = _merge(proposals, max_moves, cursor)
        moved = 0
        if candidates is not None:
            truncated = sum(p.rows.size for p in proposals) > candidates.rows.size
            cursor = int(candidates.rows[-1]) + 1 if truncated else 0
            accepted, from_, to, counts, cluster_weights, terms = _core.exact_accept(
                candidates.points, candidates.weights, candidates.diagonal, candidates.labels,
                candidates.sums, data.spec.semimetric, data.spec.alpha, data.spec.sigma,
                run.counts, run.weights, run.terms,
            )
            run.counts = np.asarray(counts, dtype=np.int64)
            run.weights = np.asarray(cluster_weights, dtype=np.float64)
            run.terms = np.asarray(terms, dtype=np.float64)
            commit = Moves(
                rows=candidates.rows[accepted], from_=np.asarray(from_, dtype=np.int64),
                to=np.asarray(to, dtype=np.int64),
                points=np.ascontiguousarray(candidates.points[accepted]),
                weights=np.ascontiguousarray(candidates.weights[accepted]),
            )
            moved = int(accepted.size)
            run.n_moves += moved
        objective = _objective(run.counts, run.weights, run.terms)
        run.history.append(objective)
        run.round_seconds.append(time.perf_counter() - began)
        run.round_bytes.append(sent)
        if progress is not None:
            progress(start_index, run.n_iter, moved, objective)
        if candidates is None:
            return


def _check(data: _Data, run: _Run) -> bool:
    """A fresh sums pass from the labels; True when no single move improves."""
    labels = _labels_array(data, run.states)
    kept = _objective(run.counts, run.weights, run.terms)
    began = time.perf_counter()
    run.states = _sums_pass(data, labels)
    run.n_passes += 1
    run.counts, run.weights, run.terms, _ = _totals(data, run.states)
    run.pass_seconds.append(time.perf_counter() - began)
    fresh = _objective(run.counts, run.weights, run.terms)
    run.drift = abs(kept - fresh) / max(abs(fresh), np.finfo(float).tiny)
    any_move = dask.compute(*[
        dask.delayed(_commit_and_propose, pure=True)(
            x, w, d, state, None, (run.counts, run.weights, run.terms), offset, 0, 1, data.k,
            data.spec, data.n_threads,
        )
        for x, w, d, state, offset in zip(
            data.x_blocks, data.weight_blocks, data.diagonal_blocks, run.states, data.offsets
        )
    ])
    return all(out[1].rows.size == 0 for out in any_move)


def _run_start(
    data: _Data, labels: Any, start_index: int, max_iter: int, max_moves: int,
    progress: Optional[ProgressCallback], init_is_given: bool,
) -> _Run:
    began = time.perf_counter()
    states = _sums_pass(data, labels)
    counts, weights, terms, _ = _totals(data, states)
    pass_seconds = [time.perf_counter() - began]
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        raise ValueError(
            f"invalid `init`: cluster {int(empty[0])} of k = {data.k} is empty"
            + ("" if init_is_given else
               " after assigning the points to the sample's cluster means (the data may hold "
               "fewer than k distinct points)")
        )
    history = [_objective(counts, weights, terms)]
    run = _Run(states, counts, weights, terms, history, pass_seconds=pass_seconds)
    while True:
        _rounds(data, run, start_index, max_iter, max_moves, progress)
        if _check(data, run):
            run.converged = run.verified = True
            return run
        if run.n_iter >= max_iter:
            return run


def _resolve_sigma(
    X: Any, mean: FloatArray, semimetric: str, sigma: Any, k: int, sample: FloatArray
) -> Optional[float]:
    if semimetric == "power":
        return None
    if sigma is None or sigma == "mean":
        parts = dask.compute(*[dask.delayed(_spread_parts, pure=True)(b, mean) for b in row_blocks(X)])
        spread = exact_sum(v for p in parts for v in p) / X.shape[0]
        return math.sqrt(2.0 * spread) if spread > 0 else 1.0
    if sigma == "median":
        return float(_core.bandwidth(sample, "median", None))
    if sigma == "auto":
        return auto_sigma(sample, k, semimetric)
    return float(sigma)


def _sample_start(
    data: _Data, method: Literal["k-means++", "spectral"], sample: FloatArray,
    sample_weights: FloatArray, seed: int, max_iter: int,
) -> Any:
    """Hartigan from ``method`` ("k-means++" or "spectral") on the sample (exact, single
    machine), then every point to the nearest of the sample's cluster means in feature space."""
    k, spec = data.k, data.spec
    fit = kernel_kgroups_from_data(
        sample, k, method, semimetric=spec.semimetric, alpha=spec.alpha, sigma=spec.sigma,
        base="origin", weights=sample_weights, n_init=1, max_iter=max_iter, random_state=seed,
    )
    sample_labels = np.asarray(fit.labels, dtype=np.int64)
    sums = _add_sums(sample, _zeros(sample.shape[0], k), sample, sample_labels, sample_weights, k, spec, None)
    own = sums[np.arange(sample.shape[0]), sample_labels] * sample_weights
    terms = np.bincount(sample_labels, weights=own, minlength=k)
    cluster_weights = np.bincount(sample_labels, weights=sample_weights, minlength=k)
    return da.concatenate([
        da.from_delayed(
            dask.delayed(_nearest_means, pure=True)(
                x, d, sample, sample_labels, sample_weights, terms, cluster_weights, k, spec,
                data.n_threads,
            ),
            shape=(size,), dtype=np.int64,
        )
        for x, d, size in zip(data.x_blocks, data.diagonal_blocks, data.sizes)
    ]).rechunk((tuple(data.sizes),)).persist()


def kernel_kgroups_exact(
    X: Any,
    k: int,
    init: Any = "k-means++",
    *,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Any = None,
    weights: Any = None,
    n_init: int = 1,
    max_iter: int = 300,
    max_moves_per_round: int = DEFAULT_MAX_MOVES,
    random_state: Any = None,
    n_threads: Optional[int] = 1,
    progress: Optional[ProgressCallback] = None,
) -> DaskExactResult:
    """Exact kernel k-groups of a dask array X on a Dask cluster (matrix-free Hartigan rounds).

    See :mod:`kgroups_rs.dask._exact` for how the rounds work. The result is a Hartigan local
    optimum of the exact kernel (``verified=True``), like the single-machine
    :func:`kgroups_rs.kernel_kgroups_from_data` (``base="origin"`` on the centred data), but
    reached by other moves (a round defers the moves its own earlier moves made improving).

    Parameters
    ----------
    X : dask.array.Array of shape (n, D)
        The data, chunked along rows only (chunks of any sizes).
    k : int
        Number of clusters, ``1 <= k <= n``.
    init : "k-means++", "spectral" or array of int of shape (n,)
        Hartigan on a seeded sample of at most 4096 rows from k-means++ or from the spectral
        start (:func:`kgroups_rs.kernel_kgroups_from_data`), every point then to the nearest
        of the sample's cluster means; or initial labels (a dask or numpy array; ``n_init``
        must be 1).
    semimetric, alpha, sigma
        The kernel, as :func:`kgroups_rs.kernel_kgroups_nystrom`.
    weights : array of shape (n,), optional
        Point weights ``w_i > 0``.
    n_init : int, default 1
        Starts; the largest objective wins.
    max_iter : int, default 300
        Rounds per start.
    max_moves_per_round : int, default 1024
        Candidate moves a round considers (each chunk sends at most this many).
    random_state : None, int, numpy Generator or RandomState
        Seed of the sample and the starts. The same seed gives the same labels whatever the
        chunking and the number of workers.
    n_threads : int or None, default 1
        Threads of each task's Rust work.
    progress : callable, optional
        ``progress(start, round, moves, objective)`` after every round.

    Returns
    -------
    DaskExactResult
    """
    n_init = check_int(n_init, "n_init", 1, _MAX_N_INIT)
    max_iter = check_int(max_iter, "max_iter", 1)
    max_moves = check_int(max_moves_per_round, "max_moves_per_round", 1)
    n_threads = check_n_threads(n_threads)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable progress(start, round, moves, objective)")
    semimetric_name = check_choice(semimetric, "semimetric", SEMIMETRICS)
    check_semimetric_parameters(semimetric_name, alpha, sigma)
    if isinstance(sigma, str):
        check_choice(sigma, "sigma", ("mean", "median", "auto"))
    elif sigma is not None and not (isinstance(sigma, (int, float, np.floating)) and float(sigma) > 0):
        raise ValueError(f"sigma must be a positive number, 'mean', 'median', 'auto' or None, got {sigma!r}")
    X = as_row_chunked(X)
    n = X.shape[0]
    k = check_int(k, "k", 1)
    if k > n:
        raise ValueError(f"k = {k} is out of range; the number of clusters must satisfy 1 <= k <= n = {n}")
    given = not isinstance(init, str)
    if not given and init not in ("k-means++", "spectral"):
        raise ValueError(f"init must be 'k-means++', 'spectral' or initial labels (an array); got {init!r}")
    if given and n_init != 1:
        raise ValueError(
            f"n_init = {n_init} but initial labels were given; with explicit labels every start "
            "is the same, so n_init must be 1"
        )
    seed = seed_from_random_state(random_state)

    # Pass 1: column means and the first non-finite value of every chunk.
    offsets = [0, *np.cumsum(X.chunks[0])[:-1].tolist()]
    bad = [dask.delayed(first_bad, pure=True)(b) for b in row_blocks(X)]
    weight_vector = (
        da.ones(n, chunks=(X.chunks[0],)) if weights is None
        else as_row_vector(weights, X, "weights", np.float64)
    )
    # (A list of delayed results and a dask array in one compute call can come back mixed up.)
    column_parts, bad_blocks, bad_weights = dask.compute(
        [dask.delayed(_column_parts, pure=True)(b) for b in row_blocks(X)], bad,
        [dask.delayed(first_bad_weight, pure=True)(b) for b in row_blocks(weight_vector)],
    )
    raise_first_bad(list(bad_blocks), [int(o) for o in offsets])
    for found, offset in zip(bad_weights, offsets):
        if found is not None:
            raise ValueError(
                f"invalid `weights`: weights[{int(offset) + found[0]}] = {found[1]}; every weight "
                "must be finite and > 0"
            )
    # Exactly rounded column sums: the same mean whatever the chunking.
    mean = np.array([
        exact_sum(v for chunk in column_parts for v in chunk[c]) for c in range(X.shape[1])
    ]) / n
    rng = np.random.default_rng(seed)
    size = min(n, INIT_SAMPLE_ROWS)
    rows = np.sort(rng.choice(n, size=size, replace=False)) if size < n else np.arange(n)
    sample = np.ascontiguousarray(np.asarray(X[rows].compute(), dtype=np.float64) - mean)
    sample_weights = np.ascontiguousarray(np.asarray(weight_vector[rows].compute(), dtype=np.float64))
    sigma_value = _resolve_sigma(X, mean, semimetric_name, sigma, k, sample)
    spec = KernelSpec(semimetric_name, float(alpha), sigma_value)

    x = X.map_blocks(_centred, mean, dtype=np.float64).persist()
    weight_vector = weight_vector.persist()
    x_blocks = row_blocks(x)
    diagonal = x.map_blocks(_diagonal, spec, dtype=np.float64, drop_axis=1, chunks=(x.chunks[0],)).persist()
    data = _Data(
        x=x, weights=weight_vector, x_blocks=x_blocks, weight_blocks=row_blocks(weight_vector),
        diagonal_blocks=row_blocks(diagonal), offsets=[int(o) for o in offsets],
        sizes=[int(s) for s in x.chunks[0]], k=k, spec=spec, n_threads=n_threads,
    )
    if given:
        labels = as_row_vector(init, X, "init", np.int64)
        low_label, high_label = dask.compute(labels.min(), labels.max())
        if int(low_label) < 0 or int(high_label) >= k:
            raise ValueError(
                f"invalid `init`: labels must lie in 0..{k - 1}, got values from {int(low_label)} "
                f"to {int(high_label)}"
            )
        starts = [labels.persist()]
    else:
        seeds = np.random.default_rng(splitmix(seed)).integers(0, 2**63, size=n_init)
        starts = [_sample_start(data, init, sample, sample_weights, int(s), max_iter) for s in seeds]

    runs: list[_Run] = []
    client = _current_client()
    try:
        for index, labels in enumerate(starts):
            runs.append(_run_start(data, labels, index, max_iter, max_moves, progress, given))
    except Exception as error:
        if _closed(client):
            # The chunks' states lived on the client's cluster: dask's local scheduler, which
            # takes over, cannot find them.
            raise RuntimeError(
                "the Dask client this fit runs on was closed during the fit; its chunks' state "
                "was on that cluster, so the fit cannot go on"
            ) from error
        raise
    best = max(
        range(len(runs)), key=lambda s: (_objective(runs[s].counts, runs[s].weights, runs[s].terms), -s)
    )
    run = runs[best]
    _, _, _, trace = _totals(data, run.states)
    objective = _objective(run.counts, run.weights, run.terms)
    return DaskExactResult(
        labels=_labels_array(data, run.states).persist(),
        objective=objective,
        within=trace - objective,
        n_iter=run.n_iter,
        n_moves=run.n_moves,
        converged=run.converged,
        verified=run.verified,
        verification_drift=run.drift,
        n_passes=run.n_passes,
        objective_history=np.asarray(run.history, dtype=np.float64),
        cluster_terms=run.terms.copy(),
        cluster_weights=run.weights.copy(),
        cluster_sizes=run.counts.copy(),
        best_start=best,
        round_seconds=list(run.round_seconds),
        round_bytes=list(run.round_bytes),
        pass_seconds=list(run.pass_seconds),
    )
