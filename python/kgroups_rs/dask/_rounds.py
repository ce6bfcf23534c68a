"""The rounds: starts, the per-chunk Hartigan (or Lloyd) proposals and the verified merge.

See the description of :mod:`kgroups_rs.dask` for what a round does and why.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Optional

import dask
import dask.array as da
import numpy as np
from dask.delayed import Delayed

from .. import _core
from .._progress import ProgressCallback
from .._validation import splitmix
from ._features import (
    DaskAlgorithm,
    FloatArray,
    IntArray,
    NystromMap,
    aligned,
    chunk_round,
    chunk_sums,
    nearest,
)
from ._inputs import as_row_vector, row_blocks
from ._result import DaskClusteringResult
from ._spectral import spectral_starts


@dataclass
class _Start:
    """One start's state: labels (per-chunk delayed blocks on the workers) and sums."""

    labels: list[Delayed]
    #: What holds each chunk's labels on the workers (a persisted collection keeps its
    #: results alive only while the Python object lives).
    owners: list[Any]
    sums: FloatArray
    cluster_weights: FloatArray
    counts: IntArray
    objective: float
    history: list[float]
    n_iter: int = 0
    n_moves: int = 0
    converged: bool = False
    n_rejected: int = 0
    n_fallback_rounds: int = 0


def _merge(
    start: _Start, summaries: list[tuple[int, FloatArray, FloatArray, FloatArray, IntArray, IntArray]]
) -> tuple[list[int], float, FloatArray, FloatArray, IntArray, bool]:
    """The chunks whose moves are kept and the state they give (see the module docstring)."""
    moved = [c for c, summary in enumerate(summaries) if summary[0] > 0]

    def combine(kept: list[int]) -> tuple[float, FloatArray, FloatArray, IntArray]:
        sums = summaries[kept[0]][1].copy()
        for c in kept[1:]:
            sums += summaries[c][1] - start.sums
        cluster_weights = np.zeros_like(start.cluster_weights)
        counts = np.zeros_like(start.counts)
        for c, (_, _, weight_before, weight_after, before, after) in enumerate(summaries):
            cluster_weights += weight_after if c in kept else weight_before
            counts += after if c in kept else before
        if np.any(counts <= 0) or np.any(cluster_weights <= 0):
            return -math.inf, sums, cluster_weights, counts
        objective = float(_core.dask_feature_objective(aligned(sums, np.float64), cluster_weights))
        return objective, sums, cluster_weights, counts

    if not moved:
        return [], start.objective, start.sums, start.cluster_weights, start.counts, False
    objective, sums, cluster_weights, counts = combine(moved)
    if objective >= start.objective:
        return moved, objective, sums, cluster_weights, counts, False
    kept: list[int] = []
    best = (start.objective, start.sums, start.cluster_weights, start.counts)
    for c in moved:
        trial = combine([*kept, c])
        if trial[0] >= best[0]:
            kept.append(c)
            best = trial
    return kept, best[0], best[1], best[2], best[3], True


def _run_rounds(
    starts: list[_Start],
    phi_blocks: list[Delayed],
    weight_blocks: list[Optional[Delayed]],
    algorithm: DaskAlgorithm,
    max_iter: int,
    progress: Optional[ProgressCallback],
    n_threads: Optional[int],
) -> None:
    """Run rounds for every start together (their tasks share each scheduler call)."""
    for round_number in range(1, max_iter + 1):
        active = [s for s in starts if not s.converged]
        if not active:
            return
        proposals = []
        for start in active:
            state = dask.delayed((start.sums, start.cluster_weights, start.counts), pure=True)
            proposals.append([
                dask.delayed(chunk_round, pure=True)(phi, labels, w, state, algorithm, n_threads)
                for phi, labels, w in zip(phi_blocks, start.labels, weight_blocks)
            ])
        flat = [p for chunk_proposals in proposals for p in chunk_proposals]
        persisted = list(dask.persist(*flat))
        summaries = dask.compute(*[dask.delayed(operator.getitem)(p, 1) for p in persisted])
        c = len(phi_blocks)
        for s_index, start in enumerate(active):
            mine = persisted[s_index * c:(s_index + 1) * c]
            kept, objective, sums, cluster_weights, counts, fell_back = _merge(
                start, list(summaries[s_index * c:(s_index + 1) * c])
            )
            moved = sum(1 for summary in summaries[s_index * c:(s_index + 1) * c] if summary[0] > 0)
            moves = int(sum(summaries[s_index * c + b][0] for b in kept))
            start.labels = [
                dask.delayed(operator.getitem)(mine[b], 0) if b in kept else start.labels[b]
                for b in range(c)
            ]
            start.owners = [mine[b] if b in kept else start.owners[b] for b in range(c)]
            start.sums, start.cluster_weights, start.counts = sums, cluster_weights, counts
            start.objective = objective
            start.history.append(objective)
            start.n_iter = round_number
            start.n_moves += moves
            start.n_rejected += moved - len(kept)
            start.n_fallback_rounds += int(fell_back)
            start.converged = moves == 0
            if progress is not None:
                progress(starts.index(start), round_number, moves, objective)


def _initial_state(
    label_blocks: list[list[Delayed]],
    phi_blocks: list[Delayed],
    weight_blocks: list[Optional[Delayed]],
    k: int,
    n_threads: Optional[int],
) -> tuple[list[tuple[FloatArray, FloatArray, IntArray]], float]:
    """Each start's summed state and the weighted trace ``sum_i w_i ||phi_i||^2``."""
    tasks = [
        [dask.delayed(chunk_sums, pure=True)(phi, labels, w, k, n_threads)
         for phi, labels, w in zip(phi_blocks, blocks, weight_blocks)]
        for blocks in label_blocks
    ]
    parts = dask.compute(*[t for start in tasks for t in start])
    c = len(phi_blocks)
    states = []
    trace = 0.0
    for s_index in range(len(label_blocks)):
        mine = parts[s_index * c:(s_index + 1) * c]
        sums = mine[0][0].copy()
        cluster_weights = np.zeros(k)
        counts = np.zeros(k, dtype=np.int64)
        start_trace = 0.0
        for b, (part_sums, part_weights, part_counts, part_trace) in enumerate(mine):
            if b:
                sums += part_sums
            cluster_weights += part_weights
            counts += part_counts
            start_trace += part_trace
        states.append((sums, cluster_weights, counts))
        trace = start_trace
    return states, trace


def cluster(
    phi: Any,
    k: int,
    init: Any,
    *,
    algorithm: DaskAlgorithm,
    weights: Any,
    n_init: int,
    max_iter: int,
    seed: int,
    progress: Optional[ProgressCallback],
    sample_phi: Optional[FloatArray],
    feature_map: Optional[NystromMap],
    n_threads: Optional[int],
) -> DaskClusteringResult:
    """Starts, rounds and the result, on row-chunked features ``phi`` (persisted or not)."""
    phi_blocks = row_blocks(phi)
    weight_vector = None if weights is None else as_row_vector(weights, phi, "weights", np.float64)
    weight_blocks: list[Optional[Delayed]] = [None] * len(phi_blocks)
    if weight_vector is not None:
        weight_blocks = list(row_blocks(weight_vector))
    owners: list[Any] = []
    bound: Optional[float] = None
    if isinstance(init, str) and init == "spectral":
        seeds = np.random.default_rng(splitmix(seed)).integers(0, 2**63, size=n_init)
        owners, bound = spectral_starts(phi, weight_vector, k, sample_phi, seeds, max_iter)
        label_blocks = [row_blocks(start) for start in owners]
    elif isinstance(init, str):
        if init != "k-means++":
            raise ValueError(
                f"init must be 'k-means++', 'spectral' or initial labels (a dask array); got {init!r}"
            )
        if sample_phi is None:
            raise ValueError("init='k-means++' needs a sample of the features")  # pragma: no cover
        seeds = np.random.default_rng(splitmix(seed)).integers(0, 2**63, size=n_init)
        label_blocks = []
        for start_seed in seeds:
            options = _core.FitOptions(
                algorithm="hartigan" if algorithm == "hartigan" else "lloyd",
                init="k-means++", n_init=1, max_iter=max_iter, seed=int(start_seed), n_threads=None,
            )
            sample = _core.cluster_features(aligned(sample_phi, np.float64), k, options)
            labels = np.asarray(sample.labels)
            centres = np.stack([sample_phi[labels == c].mean(axis=0) for c in range(k)])
            assigned = phi.map_blocks(
                nearest, centres, dtype=np.int64, drop_axis=1, chunks=(phi.chunks[0],)
            ).persist()
            label_blocks.append(row_blocks(assigned))
            owners.append(assigned)
    else:
        if n_init != 1:
            raise ValueError(
                f"n_init = {n_init} but initial labels were given; with explicit labels every start "
                "is the same, so n_init must be 1"
            )
        given = as_row_vector(init, phi, "init", np.int64).persist()
        label_blocks = [row_blocks(given)]
        owners.append(given)
    states, trace = _initial_state(label_blocks, phi_blocks, weight_blocks, k, n_threads)
    starts: list[_Start] = []
    for sums, cluster_weights, counts in states:
        empty = np.flatnonzero(counts == 0)
        if empty.size:
            raise ValueError(
                f"invalid `init`: cluster {int(empty[0])} of k = {k} is empty"
                + ("" if not isinstance(init, str) else
                   " after assigning the points to the sample's cluster means (the data may hold "
                   "fewer than k distinct points)")
            )
        objective = float(
            _core.dask_feature_objective(aligned(sums, np.float64), aligned(cluster_weights, np.float64))
        )
        blocks = label_blocks[len(starts)]
        owner = owners[len(starts)]
        starts.append(
            _Start(list(blocks), [owner] * len(blocks), sums, cluster_weights, counts, objective, [objective])
        )
    _run_rounds(starts, phi_blocks, weight_blocks, algorithm, max_iter, progress, n_threads)
    best = max(range(len(starts)), key=lambda s: (starts[s].objective, -s))
    winner = starts[best]
    # Persisted now, while what the blocks come from is alive; they stay on the workers.
    # (concatenate drops empty blocks; the rechunk restores X's row chunks exactly.)
    labels = da.concatenate([
        da.from_delayed(block, shape=(size,), dtype=np.int64)
        for block, size in zip(winner.labels, phi.chunks[0])
    ])
    if labels.chunks[0] != phi.chunks[0]:
        labels = labels.rechunk((phi.chunks[0],))
    labels = labels.persist()
    terms = np.einsum("ij,ij->i", winner.sums, winner.sums)
    return DaskClusteringResult(
        labels=labels,
        objective=winner.objective,
        within=trace - winner.objective,
        n_iter=winner.n_iter,
        n_moves=winner.n_moves,
        converged=winner.converged,
        objective_history=np.asarray(winner.history, dtype=np.float64),
        cluster_terms=terms,
        cluster_weights=winner.cluster_weights.copy(),
        approximate=True,
        best_start=best,
        n_rejected=winner.n_rejected,
        n_fallback_rounds=winner.n_fallback_rounds,
        feature_map=feature_map,
        centres=winner.sums / winner.cluster_weights[:, None],
        spectral_bound=bound,
    )


