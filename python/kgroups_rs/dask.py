"""Kernel k-groups on a Dask cluster: Nyström features and Hartigan rounds on dask arrays.

``kernel_kgroups_nystrom(X, k)`` here is the distributed counterpart of
:func:`kgroups_rs.kernel_kgroups_nystrom` for a ``dask.array`` X chunked along its rows; the
:class:`KernelKGroups` estimator wraps it. It runs on whatever scheduler dask uses (a
``distributed.Client`` when one is active, else dask's local schedulers). Install with
``pip install "kgroups_rs[dask]"`` (from a source checkout: ``pip install ".[dask]"``).

How it works, and why
---------------------
The kernel is the Nyström approximation ``G ~ Phi Phi^T`` with ``Phi = K(X, L) W^(-1/2)``,
``W = K(L, L)`` for m landmarks ``L``, exactly as on one machine. Then:

1. **One pass over X** computes the column means (the data are centred, as on one machine),
   finds the first NaN or infinity in any chunk (reported as a ValueError naming its row and
   column) and, for a Gaussian or exponential semimetric without ``sigma``, a second pass the
   bandwidth ``sigma^2 = 2 mean_i ||x_i - xbar||^2`` (the mean over all pairs, as on one
   machine).
2. **Landmarks on a uniform sample brought to the client** (at most 20 000 rows, or all
   when n is smaller), chosen on it by the single-machine rule (k-means++ D^2 sampling in the
   kernel's feature space, or uniform). Why not k-means||: the landmarks only have to span
   the kernel's dominant eigenspace, which a uniform sample of thousands of points already
   covers for every cluster holding more than a few thousandths of the data; k-means|| would
   cost several more passes over X for no gain in the clustering. ``W^(-1/2)`` (m x m,
   rank-truncated like the single-machine features) is formed on the client.
3. **Features per chunk**: ``Phi_b = K(X_b, L) W^(-1/2)`` in ``map_blocks`` (the Rust energy
   kernel, then a matrix product), persisted on the workers when they fit in a quarter of
   the cluster's memory, else recomputed from X in every round (trading one O(n m D) pass
   per round for 8 n r bytes of worker memory).
4. **Start**: Hartigan's method from feature-space k-means++ on the sample's features, run on
   the client; each point is then assigned to the nearest of the sample's k cluster means in
   one distributed pass. Or given initial labels (a dask array).
5. **Rounds**: the client broadcasts the k x m cluster feature sums ``S_l = sum_{y in C_l}
   w_y phi_y``, the cluster weights and counts. Every chunk runs one sequential Hartigan
   sweep over its own points in Rust against its own copy of that state (the single-machine
   sweep: the same gain and rounding tolerance), and returns only its copy of the sums and
   its partial cluster weights and counts; its new labels stay on its worker. The client
   forms the combined state ``S = S_old + sum_b (S_b - S_old)`` and its objective
   ``Q = sum_l ||S_l||^2 / s_l``. If Q did not fall, every chunk's moves are kept. If it
   fell (moves of different chunks that were each good alone can conflict), the chunks are
   merged one at a time in chunk order, each kept only if Q does not fall; a chunk whose
   moves are refused keeps its old labels. The first chunk with moves is always kept (its
   moves are a sequential Hartigan sweep), so every round makes progress, the objective
   history never decreases, and the result is deterministic for a ``random_state`` and a
   chunking. Rounds stop when no chunk proposes a move. ``algorithm="lloyd"`` replaces the
   sweep by a batch nearest-mean assignment (kernel k-means) with the same verified merge.

With a single chunk a round is exactly one single-machine Hartigan sweep on the same
features: the same labels and the same objective history.

Cost per round (n points, k clusters, r <= m feature columns, c chunks): work O(n k r) on
the workers; data moved O(c k r) (the state out, each chunk's sums back); client work
O(c k r) (O(c^2 k r) in a fallback round). The client holds O(k r + m^2 + m D) numbers and
the sample, never X, the features or the labels.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

import numpy as np
import numpy.typing as npt

try:
    import dask
    import dask.array as da
    from dask.delayed import Delayed
except ImportError as error:  # pragma: no cover - exercised without dask installed
    raise ImportError(
        "kgroups_rs.dask needs dask[array] and distributed: "
        'pip install "kgroups_rs[dask]" (from a source checkout: pip install ".[dask]")'
    ) from error

from . import _core
from ._validation import RandomState, check_int, check_n_threads, seed_from_random_state
from .clustering import Init, ProgressCallback
from .gram import _SEMIMETRICS, Semimetric, _check_choice, check_semimetric_parameters, energy_gram
from .large import _LANDMARKS, Landmarks, splitmix

__all__ = ["DaskClusteringResult", "KernelKGroups", "kernel_kgroups_features", "kernel_kgroups_nystrom"]

#: The searches of the distributed path.
DaskAlgorithm = Literal["hartigan", "lloyd"]
_ALGORITHMS: tuple[DaskAlgorithm, ...] = ("hartigan", "lloyd")

#: Rows of X brought to the client to choose the landmarks and the starts.
_SAMPLE_ROWS = 20_000
#: Features are persisted when they take at most this share of the workers' memory.
_PERSIST_SHARE = 0.25
#: Largest allowed n_init (each start keeps its labels on the workers).
_MAX_N_INIT = 1000

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


# ---------------------------------------------------------------------------------------
# The feature map (what a fitted model needs to compute features of new points)


@dataclass(frozen=True)
class NystromMap:
    """The Nyström feature map ``phi(x) = K(x - mean, L) W^(-1/2)`` (all arrays small)."""

    mean: FloatArray
    anchors: FloatArray
    transform: FloatArray
    semimetric: Semimetric
    alpha: float
    sigma: Optional[float]

    def features(self, block: Any, n_threads: Optional[int] = 1) -> FloatArray:
        """The features of the rows of ``block`` (run inside a dask task)."""
        points = np.asarray(block, dtype=np.float64)
        if points.shape[0] == 0:
            return np.zeros((0, self.transform.shape[1]))
        centred = np.ascontiguousarray(points - self.mean)
        kernel = energy_gram(
            centred, self.anchors, semimetric=self.semimetric, alpha=self.alpha, sigma=self.sigma,
            base="origin", n_threads=n_threads,
        )
        return np.ascontiguousarray(kernel @ self.transform)


def _nearest(phi: FloatArray, centres: FloatArray) -> IntArray:
    """``argmin_l ||phi_i - c_l||^2`` (ties to the lowest index) for each row of ``phi``."""
    if phi.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    cost = np.einsum("ij,ij->i", centres, centres)[None, :] - 2.0 * (phi @ centres.T)
    return np.asarray(np.argmin(cost, axis=1), dtype=np.int64)


def _predict_block(
    block: Any, feature_map: NystromMap, centres: FloatArray, n_threads: Optional[int]
) -> IntArray:
    return _nearest(feature_map.features(block, n_threads), centres)


def _features_block(block: Any, feature_map: NystromMap, n_threads: Optional[int]) -> FloatArray:
    return feature_map.features(block, n_threads)


def _first_bad(block: Any) -> FloatArray:
    """``[[row, column, value]]`` of the first NaN/inf of a block (row local), or 0 x 3."""
    values = np.asarray(block, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size == 0:
        return np.zeros((0, 3))
    row, col = divmod(int(bad[0]), values.shape[1])
    return np.array([[row, col, values[row, col]]])


def _aligned(array: Any, dtype: Any) -> Any:
    """``array`` C-contiguous and aligned (arrays unpickled by dask may be unaligned views of
    a message buffer, which the core cannot borrow); copied only when needed."""
    return None if array is None else np.require(array, dtype, ["C", "A"])


def _chunk_sums(
    phi: FloatArray, labels: IntArray, weights: Optional[FloatArray], k: int, n_threads: Optional[int]
) -> tuple[FloatArray, FloatArray, IntArray, float]:
    return _core.dask_chunk_sums(
        _aligned(phi, np.float64), _aligned(labels, np.int64), _aligned(weights, np.float64), k,
        n_threads=n_threads,
    )


def _chunk_round(
    phi: FloatArray,
    labels: IntArray,
    weights: Optional[FloatArray],
    state: tuple[FloatArray, FloatArray, IntArray],
    algorithm: DaskAlgorithm,
    n_threads: Optional[int],
) -> tuple[IntArray, tuple[int, FloatArray, FloatArray, FloatArray, IntArray, IntArray]]:
    """One round on a chunk: ``(new_labels, summary)``; only the summary goes to the client."""
    sums, sizes, counts = state
    new_labels, moves, local, sizes_before, sizes_after, before, after = _core.dask_chunk_round(
        _aligned(phi, np.float64), _aligned(labels, np.int64), _aligned(weights, np.float64),
        _aligned(sums, np.float64), _aligned(sizes, np.float64), _aligned(counts, np.int64),
        algorithm, n_threads=n_threads,
    )
    return new_labels, (moves, local, sizes_before, sizes_after, before, after)


# ---------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class DaskClusteringResult:
    """The outcome of a distributed clustering run (the best start when ``n_init > 1``).

    Attributes
    ----------
    labels : dask.array.Array of int64, shape (n,)
        Cluster of each point, ``0 .. k-1``; lazy, chunked like X's rows, held by the
        workers (``labels.compute()`` brings them to the client).
    objective : float
        The maximised objective ``Q = sum_l ||S_l||^2 / s_l`` of the Nyström kernel, with
        ``S_l`` the weighted sum of cluster l's features and ``s_l`` its weight.
    within : float
        The within-cluster dispersion ``W = sum_i w_i ||phi_i||^2 - Q`` (minimised).
    n_iter : int
        Rounds run, counting the last one in which no move was kept.
    n_moves : int
        Moves kept over all rounds.
    converged : bool
        True when the last round kept no move (False when ``max_iter`` stopped the rounds).
    objective_history : ndarray of float64
        ``Q`` of the initial partition and after every round; never decreases.
    cluster_terms : ndarray of float64, shape (k,)
        ``Q_l = ||S_l||^2``, so that ``objective = sum_l Q_l / s_l``.
    cluster_weights : ndarray of float64, shape (k,)
        ``s_l``, the total weight of each cluster.
    approximate : bool
        Always True: the objective is that of the Nyström approximation of the kernel.
    best_start : int
        Which of the ``n_init`` starts (0-based) produced this result.
    n_rejected : int
        Chunk proposals refused by the verified merge (their moves would have lowered Q).
    n_fallback_rounds : int
        Rounds whose combined moves lowered Q and were merged one chunk at a time.
    feature_map : NystromMap
        The feature map (column means, landmarks and ``W^(-1/2)``) used to predict.
    centres : ndarray of float64, shape (k, r)
        The clusters' weighted feature means ``S_l / s_l``.
    """

    labels: Any
    objective: float
    within: float
    n_iter: int
    n_moves: int
    converged: bool
    objective_history: FloatArray
    cluster_terms: FloatArray
    cluster_weights: FloatArray
    approximate: bool
    best_start: int
    n_rejected: int
    n_fallback_rounds: int
    feature_map: Optional[NystromMap]
    centres: FloatArray

    def __repr__(self) -> str:
        return (
            f"DaskClusteringResult(n={self.labels.shape[0]}, k={self.cluster_terms.size}, "
            f"objective={self.objective:.10g}, within={self.within:.10g}, n_iter={self.n_iter}, "
            f"n_moves={self.n_moves}, converged={self.converged}, approximate=True)"
        )


# ---------------------------------------------------------------------------------------
# Input checks


def _as_row_chunked(X: Any, name: str = "X") -> Any:
    """X as a 2-D float dask array chunked along rows only, with known chunk sizes."""
    if not isinstance(X, da.Array):
        array = np.asarray(X)
        if array.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
        chunks = {0: "auto", 1: -1} if array.ndim == 2 else "auto"
        X = da.from_array(array.astype(np.float64, copy=False), chunks=chunks)
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}")
    if any(isinstance(c, float) and math.isnan(c) for dim in X.chunks for c in dim):
        raise ValueError(
            f"{name} has unknown chunk sizes (e.g. after boolean indexing); call "
            f"{name}.compute_chunk_sizes() first"
        )
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n, D) or 1-D, got {X.ndim} dimensions")
    if len(X.chunks[1]) > 1:
        raise ValueError(
            f"{name} is split into {len(X.chunks[1])} chunks along its columns; every chunk must "
            f"hold whole rows: use {name}.rechunk({{1: -1}})"
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} has no points (shape {X.shape})")
    return X.astype(np.float64) if X.dtype != np.float64 else X


def _as_row_vector(values: Any, X: Any, name: str, dtype: Any) -> Any:
    """``values`` (n,) as a dask array chunked like X's rows."""
    vector = values if isinstance(values, da.Array) else da.from_array(np.asarray(values))
    if vector.ndim != 1 or vector.shape[0] != X.shape[0]:
        raise ValueError(f"{name} must have shape ({X.shape[0]},), got {vector.shape}")
    if any(isinstance(c, float) and math.isnan(c) for c in vector.chunks[0]):
        raise ValueError(f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first")
    if vector.dtype.kind not in ("iu" if dtype == np.int64 else "iuf"):
        raise TypeError(f"{name} must be of {np.dtype(dtype).name}-compatible dtype, got {vector.dtype}")
    return vector.astype(dtype).rechunk((X.chunks[0],))


def _blocks(array: Any) -> list[Delayed]:
    return list(array.to_delayed().ravel())


def _raise_first_bad(bad_blocks: list[FloatArray], offsets: list[int]) -> None:
    for found, offset in zip(bad_blocks, offsets):
        if found.shape[0]:
            row, col, value = found[0]
            raise ValueError(
                f"invalid `X`: X contains NaN or infinity at row {offset + int(row)}, column "
                f"{int(col)} (value {value}); all values must be finite"
            )


def _worker_memory() -> Optional[float]:
    """Total memory limit of the active distributed cluster's workers, if there is one."""
    try:
        from distributed import get_client

        info = get_client().scheduler_info()
    except (ImportError, ValueError):
        return None
    limits = [w.get("memory_limit") or 0 for w in info.get("workers", {}).values()]
    return float(sum(limits)) or None


# ---------------------------------------------------------------------------------------
# Rounds


@dataclass
class _Start:
    """One start's state: labels (per-chunk delayed blocks on the workers) and sums."""

    labels: list[Delayed]
    #: What holds each chunk's labels on the workers (a persisted collection keeps its
    #: results alive only while the Python object lives).
    owners: list[Any]
    sums: FloatArray
    sizes: FloatArray
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
        sizes = np.zeros_like(start.sizes)
        counts = np.zeros_like(start.counts)
        for c, (_, _, size_before, size_after, before, after) in enumerate(summaries):
            sizes += size_after if c in kept else size_before
            counts += after if c in kept else before
        if np.any(counts <= 0) or np.any(sizes <= 0):
            return -math.inf, sums, sizes, counts
        return float(_core.dask_feature_objective(_aligned(sums, np.float64), sizes)), sums, sizes, counts

    if not moved:
        return [], start.objective, start.sums, start.sizes, start.counts, False
    objective, sums, sizes, counts = combine(moved)
    if objective >= start.objective:
        return moved, objective, sums, sizes, counts, False
    kept: list[int] = []
    best = (start.objective, start.sums, start.sizes, start.counts)
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
            state = dask.delayed((start.sums, start.sizes, start.counts), pure=True)
            proposals.append([
                dask.delayed(_chunk_round, pure=True)(phi, labels, w, state, algorithm, n_threads)
                for phi, labels, w in zip(phi_blocks, start.labels, weight_blocks)
            ])
        flat = [p for chunk_proposals in proposals for p in chunk_proposals]
        persisted = list(dask.persist(*flat))
        summaries = dask.compute(*[dask.delayed(operator.getitem)(p, 1) for p in persisted])
        c = len(phi_blocks)
        for s_index, start in enumerate(active):
            mine = persisted[s_index * c:(s_index + 1) * c]
            kept, objective, sums, sizes, counts, fell_back = _merge(
                start, list(summaries[s_index * c:(s_index + 1) * c])
            )
            moved = sum(1 for summary in summaries[s_index * c:(s_index + 1) * c] if summary[0] > 0)
            moves = int(sum(summaries[s_index * c + b][0] for b in kept))
            start.labels = [
                dask.delayed(operator.getitem)(mine[b], 0) if b in kept else start.labels[b]
                for b in range(c)
            ]
            start.owners = [mine[b] if b in kept else start.owners[b] for b in range(c)]
            start.sums, start.sizes, start.counts, start.objective = sums, sizes, counts, objective
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
        [dask.delayed(_chunk_sums, pure=True)(phi, labels, w, k, n_threads)
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
        sizes = np.zeros(k)
        counts = np.zeros(k, dtype=np.int64)
        start_trace = 0.0
        for b, (part_sums, part_sizes, part_counts, part_trace) in enumerate(mine):
            if b:
                sums += part_sums
            sizes += part_sizes
            counts += part_counts
            start_trace += part_trace
        states.append((sums, sizes, counts))
        trace = start_trace
    return states, trace


# ---------------------------------------------------------------------------------------
# Public functions


def _check_common(
    algorithm: Any, n_init: Any, max_iter: Any, progress: Any
) -> tuple[DaskAlgorithm, int, int]:
    if algorithm == "hartigan" or algorithm == "lloyd":
        search: DaskAlgorithm = algorithm
    else:
        raise ValueError(f"algorithm must be one of 'hartigan', 'lloyd'; got {algorithm!r}")
    n_init = check_int(n_init, "n_init", 1, _MAX_N_INIT)
    max_iter = check_int(max_iter, "max_iter", 1)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable progress(start, round, moves, objective)")
    return search, n_init, max_iter


def _cluster(
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
    phi_blocks = _blocks(phi)
    weight_vector = None if weights is None else _as_row_vector(weights, phi, "weights", np.float64)
    weight_blocks: list[Optional[Delayed]] = [None] * len(phi_blocks)
    if weight_vector is not None:
        weight_blocks = list(_blocks(weight_vector))
    owners: list[Any] = []
    if isinstance(init, str):
        if init != "k-means++":
            raise ValueError(f"init must be 'k-means++' or initial labels (a dask array); got {init!r}")
        if sample_phi is None:
            raise ValueError("init='k-means++' needs a sample of the features")  # pragma: no cover
        seeds = np.random.default_rng(splitmix(seed)).integers(0, 2**63, size=n_init)
        label_blocks = []
        for start_seed in seeds:
            options = _core.FitOptions(
                algorithm="hartigan" if algorithm == "hartigan" else "lloyd",
                init="k-means++", n_init=1, max_iter=max_iter, seed=int(start_seed), n_threads=None,
            )
            sample = _core.cluster_features(_aligned(sample_phi, np.float64), k, options)
            labels = np.asarray(sample.labels)
            centres = np.stack([sample_phi[labels == c].mean(axis=0) for c in range(k)])
            assigned = phi.map_blocks(
                _nearest, centres, dtype=np.int64, drop_axis=1, chunks=(phi.chunks[0],)
            ).persist()
            label_blocks.append(_blocks(assigned))
            owners.append(assigned)
    else:
        if n_init != 1:
            raise ValueError(
                f"n_init = {n_init} but initial labels were given; with explicit labels every start "
                "is the same, so n_init must be 1"
            )
        given = _as_row_vector(init, phi, "init", np.int64).persist()
        label_blocks = [_blocks(given)]
        owners.append(given)
    states, trace = _initial_state(label_blocks, phi_blocks, weight_blocks, k, n_threads)
    starts: list[_Start] = []
    for sums, sizes, counts in states:
        empty = np.flatnonzero(counts == 0)
        if empty.size:
            raise ValueError(
                f"invalid `init`: cluster {int(empty[0])} of k = {k} is empty"
                + ("" if not isinstance(init, str) else
                   " after assigning the points to the sample's cluster means (the data may hold "
                   "fewer than k distinct points)")
            )
        objective = float(
            _core.dask_feature_objective(_aligned(sums, np.float64), _aligned(sizes, np.float64))
        )
        blocks = label_blocks[len(starts)]
        owner = owners[len(starts)]
        starts.append(
            _Start(list(blocks), [owner] * len(blocks), sums, sizes, counts, objective, [objective])
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
        cluster_weights=winner.sizes.copy(),
        approximate=True,
        best_start=best,
        n_rejected=winner.n_rejected,
        n_fallback_rounds=winner.n_fallback_rounds,
        feature_map=feature_map,
        centres=winner.sums / winner.sizes[:, None],
    )


def kernel_kgroups_features(
    features: Any,
    k: int,
    init: Any,
    *,
    algorithm: DaskAlgorithm = "hartigan",
    weights: Any = None,
    max_iter: int = 300,
    n_threads: Optional[int] = 1,
    progress: Optional[ProgressCallback] = None,
) -> DaskClusteringResult:
    """Distributed kernel k-groups for the low-rank kernel ``G = Phi Phi^T`` of given features.

    The rounds of :func:`kernel_kgroups_nystrom` on features ``Phi`` (a dask array, n x r,
    chunked along rows) from given initial labels: each chunk makes one sequential Hartigan
    sweep against the broadcast cluster feature sums ``S_l = sum_{y in C_l} w_y phi_y``, and
    the client keeps the chunks' moves only while the objective ``Q = sum_l ||S_l||^2 / s_l``
    does not fall. With one chunk this is the single-machine search on the same features.

    Parameters
    ----------
    features : dask.array.Array of shape (n, r)
        The features (finite), chunked along rows only.
    k : int
        Number of clusters, ``1 <= k <= n``.
    init : dask.array.Array of int of shape (n,)
        Initial labels in ``0..k-1``, no cluster empty (rechunked like the features' rows).
    algorithm, weights, max_iter, n_threads, progress
        As in :func:`kernel_kgroups_nystrom`.

    Returns
    -------
    DaskClusteringResult
        Without a feature map (``feature_map`` is None).
    """
    search, _, max_iter = _check_common(algorithm, 1, max_iter, progress)
    n_threads = check_n_threads(n_threads)
    phi = _as_row_chunked(features, "features")
    k = check_int(k, "k", 1)
    if k > phi.shape[0]:
        raise ValueError(
            f"k = {k} is out of range; the number of clusters must satisfy 1 <= k <= n = {phi.shape[0]}"
        )
    if isinstance(init, str):
        raise ValueError("init must be initial labels (a dask array of int) for given features")
    return _cluster(
        phi, k, init, algorithm=search, weights=weights, n_init=1, max_iter=max_iter, seed=0,
        progress=progress, sample_phi=None, feature_map=None, n_threads=n_threads,
    )


def kernel_kgroups_nystrom(
    X: Any,
    k: int,
    init: Init = "k-means++",
    *,
    n_components: int = 256,
    semimetric: Semimetric = "power",
    alpha: float = 1.0,
    sigma: Union[float, Literal["mean", "median"], None] = None,
    landmarks: Landmarks = "k-means++",
    algorithm: DaskAlgorithm = "hartigan",
    weights: Any = None,
    n_init: int = 1,
    max_iter: int = 300,
    random_state: RandomState = None,
    n_threads: Optional[int] = 1,
    persist_features: Optional[bool] = None,
    progress: Optional[ProgressCallback] = None,
) -> DaskClusteringResult:
    """Approximate kernel k-groups of a dask array with a Nyström low-rank kernel.

    The distributed counterpart of :func:`kgroups_rs.kernel_kgroups_nystrom`. The kernel is
    ``Phi Phi^T`` with ``Phi = K(X - mean, L) W^(-1/2)`` for m = ``n_components`` landmarks
    L chosen on a uniform sample of X; the objective ``Q = sum_l ||S_l||^2 / s_l`` over the
    clusters' weighted feature sums ``S_l`` is maximised by rounds in which every chunk makes
    a sequential Hartigan sweep of its points against the current sums, and the client keeps
    the chunks' moves only while Q does not fall (see the module's description). X, the
    features and the labels never leave the workers.

    Parameters
    ----------
    X : dask.array.Array of shape (n, D) or (n,)
        Data, chunked along rows only (one chunk spans all columns), with known chunk sizes.
        A numpy array is wrapped with dask's automatic chunks.
    k : int
        Number of clusters, ``1 <= k <= n``.
    init : "k-means++" or dask.array.Array of int, default "k-means++"
        "k-means++": Hartigan's method from feature-space k-means++ on a sample of the
        features, then each point goes to the nearest of the sample's cluster means; or the
        n initial labels in ``0..k-1`` (then ``n_init`` must be 1).
    n_components : int, default 256
        Number of landmarks m, ``k <= m <= n`` (and at most the sample size, 20 000).
    semimetric, alpha, sigma, landmarks
        As in :func:`kgroups_rs.nystrom_features` (``sigma=None`` or ``"mean"``: the root
        mean squared distance of X, from one pass over X; ``"median"``: the median rule on
        the uniform sample brought to the client, so for n above 20 000 it is drawn from
        other points than on one machine).
    algorithm : {"hartigan", "lloyd"}, default "hartigan"
        Kernel k-groups (one Hartigan sweep per chunk and round) or kernel k-means (one batch
        nearest-mean assignment per round).
    weights : dask.array.Array of shape (n,), optional
        Point weights ``w_i > 0`` (default all 1).
    n_init : int, default 1
        Starts, run together (their tasks share each round); the largest objective wins.
    max_iter : int, default 300
        Maximum number of rounds per start.
    random_state : None, int, numpy Generator or RandomState
        Seed of the sample, the landmarks and the starts. The same seed and chunking give the
        same result.
    n_threads : int or None, default 1
        Threads each task's Rust work uses on its worker (the features' kernel, the sweeps'
        bookkeeping). 1 suits dask's one task per worker thread; None uses all of the worker
        machine's cores. The client's own work (landmarks, the sample's start) uses all of its
        cores.
    persist_features : bool, optional
        Keep the features on the workers (8 n r bytes) or recompute them from X in every
        round. Default: persist when they take at most a quarter of the workers' memory.
    progress : callable, optional
        ``progress(start, round, moves, objective)`` after every round.

    Returns
    -------
    DaskClusteringResult
        ``labels`` (a lazy dask array), ``objective``, ``within``, ``objective_history``,
        ``n_iter``, ``n_moves``, ``converged``, ``approximate=True``.

    Raises
    ------
    ValueError
        For NaN/inf in X, k out of range, ``n_components < k``, X chunked along its columns
        or with unknown chunk sizes, bad labels or weights.
    """
    search, n_init, max_iter = _check_common(algorithm, n_init, max_iter, progress)
    n_threads = check_n_threads(n_threads)
    semimetric_name = _check_choice(semimetric, "semimetric", _SEMIMETRICS)
    check_semimetric_parameters(semimetric_name, alpha, sigma)
    if landmarks not in _LANDMARKS:
        raise ValueError(f"landmarks must be 'k-means++' or 'uniform', got {landmarks!r}")
    X = _as_row_chunked(X)
    n = X.shape[0]
    k = check_int(k, "k", 1)
    if k > n:
        raise ValueError(f"k = {k} is out of range; the number of clusters must satisfy 1 <= k <= n = {n}")
    m = check_int(n_components, "n_components", 1)
    if m < k:
        raise ValueError(f"n_components = {m} is smaller than k = {k}; use k <= n_components <= n")
    if m > min(n, _SAMPLE_ROWS):
        raise ValueError(
            f"n_components = {m} exceeds the number of points n = {n} (or the sample of "
            f"{_SAMPLE_ROWS} rows the landmarks are chosen from)"
        )
    if isinstance(sigma, str):
        _check_choice(sigma, "sigma", ("mean", "median"))
    elif sigma is not None and not (isinstance(sigma, (int, float, np.floating)) and float(sigma) > 0):
        raise ValueError(f"sigma must be a positive number, 'mean', 'median' or None, got {sigma!r}")
    if isinstance(init, str) and init != "k-means++":
        raise ValueError(f"init must be 'k-means++' or initial labels (a dask array); got {init!r}")
    seed = seed_from_random_state(random_state)

    # Pass 1: column means and the first non-finite value of every chunk.
    offsets = [0, *np.cumsum(X.chunks[0])[:-1].tolist()]
    bad = [dask.delayed(_first_bad, pure=True)(b) for b in _blocks(X)]
    mean, *bad_blocks = dask.compute(X.mean(axis=0), *bad)
    _raise_first_bad(bad_blocks, offsets)
    mean = np.asarray(mean, dtype=np.float64)
    sigma_value = None if sigma is None or isinstance(sigma, str) else float(sigma)
    if sigma_value is None and sigma != "median" and semimetric_name != "power":
        spread = float(((X - mean) ** 2).sum(axis=1).mean().compute())
        sigma_value = math.sqrt(2.0 * spread) if spread > 0 else 1.0

    # The sample, the landmarks and W^(-1/2) on the client.
    rng = np.random.default_rng(seed)
    size = min(n, _SAMPLE_ROWS)
    rows = np.sort(rng.choice(n, size=size, replace=False)) if size < n else np.arange(n)
    raw_sample = np.asarray(X[rows].compute(), dtype=np.float64)
    sample = np.ascontiguousarray(raw_sample - mean)
    if sigma == "median" and semimetric_name != "power":
        # The median rule on the client's uniform sample (the rule itself uses at most 2000
        # points, drawn with a fixed seed), so X is read no further.
        sigma_value = float(_core.bandwidth(sample, "median", None))
    chosen = _core.select_landmarks(
        sample, m, landmarks, semimetric_name, float(alpha), sigma_value, seed, n_threads=None
    )
    anchors = np.ascontiguousarray(sample[np.asarray(chosen)])
    W = energy_gram(anchors, semimetric=semimetric_name, alpha=alpha, sigma=sigma_value, base="origin")
    eigenvalues, eigenvectors = np.linalg.eigh(W)
    keep = eigenvalues > 1e-10 * max(float(eigenvalues.max()), 0.0)
    if not np.any(keep):
        raise ValueError("the landmark kernel has no positive eigenvalue; choose other landmarks")
    transform = np.ascontiguousarray(eigenvectors[:, keep] / np.sqrt(eigenvalues[keep]))
    feature_map = NystromMap(mean, anchors, transform, semimetric_name, float(alpha), sigma_value)
    r = transform.shape[1]

    phi = X.map_blocks(
        _features_block, feature_map, n_threads, dtype=np.float64, chunks=(X.chunks[0], (r,))
    )
    if persist_features is None:
        memory = _worker_memory()
        persist_features = memory is None or 8.0 * n * r <= _PERSIST_SHARE * memory
    if persist_features:
        phi = phi.persist()
    sample_phi = feature_map.features(raw_sample, None)
    return _cluster(
        phi, k, init, algorithm=search, weights=weights, n_init=n_init, max_iter=max_iter,
        seed=seed, progress=progress, sample_phi=sample_phi, feature_map=feature_map,
        n_threads=n_threads,
    )


# ---------------------------------------------------------------------------------------
# Estimator


class KernelKGroups:
    """Distributed kernel k-groups (Nyström) as a scikit-learn style estimator on dask arrays.

    ``fit`` runs :func:`kernel_kgroups_nystrom`; ``labels_`` is a lazy dask array. ``predict``
    maps new points to features with the fitted Nyström map and assigns each to the nearest
    cluster mean in feature space, ``argmin_l ||phi(x) - mu_l||^2`` with ``mu_l = S_l / s_l``,
    chunk by chunk (``map_blocks``), returning a dask array; nothing is gathered.

    Parameters
    ----------
    n_clusters : int, default 2
        Number of clusters k.
    n_components, semimetric, alpha, sigma, landmarks, algorithm, init, n_init, max_iter,
    random_state, n_threads, persist_features
        As in :func:`kernel_kgroups_nystrom`.

    Attributes
    ----------
    labels_ : dask.array.Array of int64
    objective_, within_ : float
    n_iter_ : int
    converged_ : bool
    cluster_centers_ : ndarray of shape (k, r)
        The clusters' feature-space means.
    result_ : DaskClusteringResult
    """

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        n_components: int = 256,
        semimetric: Semimetric = "power",
        alpha: float = 1.0,
        sigma: Union[float, Literal["mean", "median"], None] = None,
        landmarks: Landmarks = "k-means++",
        algorithm: DaskAlgorithm = "hartigan",
        init: Init = "k-means++",
        n_init: int = 1,
        max_iter: int = 300,
        random_state: RandomState = None,
        n_threads: Optional[int] = 1,
        persist_features: Optional[bool] = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.semimetric = semimetric
        self.alpha = alpha
        self.sigma = sigma
        self.landmarks = landmarks
        self.algorithm = algorithm
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_threads = n_threads
        self.persist_features = persist_features

    _PARAMS = (
        "n_clusters", "n_components", "semimetric", "alpha", "sigma", "landmarks", "algorithm",
        "init", "n_init", "max_iter", "random_state", "n_threads", "persist_features",
    )

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters."""
        return {name: getattr(self, name) for name in self._PARAMS}

    def set_params(self, **params: Any) -> KernelKGroups:
        """Set constructor parameters; unknown names raise ValueError."""
        for name, value in params.items():
            if name not in self._PARAMS:
                raise ValueError(f"invalid parameter {name!r} for KernelKGroups")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        return f"KernelKGroups(n_clusters={self.n_clusters!r}, n_components={self.n_components!r})"

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> KernelKGroups:
        """Cluster X (a dask array chunked along rows); ``y`` is ignored."""
        result = kernel_kgroups_nystrom(
            X, self.n_clusters, self.init, n_components=self.n_components,
            semimetric=self.semimetric, alpha=self.alpha, sigma=self.sigma,
            landmarks=self.landmarks, algorithm=self.algorithm, weights=sample_weight,
            n_init=self.n_init, max_iter=self.max_iter, random_state=self.random_state,
            n_threads=self.n_threads, persist_features=self.persist_features,
        )
        self.result_ = result
        self.labels_ = result.labels
        self.objective_ = result.objective
        self.within_ = result.within
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.cluster_centers_ = result.centres
        return self

    def predict(self, X: Any) -> Any:
        """The nearest cluster mean in feature space of every row of X, as a dask array."""
        if not hasattr(self, "result_"):
            raise ValueError("this KernelKGroups is not fitted yet; call fit first")
        feature_map = self.result_.feature_map
        assert feature_map is not None
        X = _as_row_chunked(X)
        if X.shape[1] != feature_map.mean.shape[0]:
            raise ValueError(
                f"X has {X.shape[1]} features but the model was fitted on {feature_map.mean.shape[0]}"
            )
        return X.map_blocks(
            _predict_block, feature_map, self.result_.centres, check_n_threads(self.n_threads),
            dtype=np.int64, drop_axis=1,
            chunks=(X.chunks[0],),
        )

    def fit_predict(self, X: Any, y: Any = None, sample_weight: Any = None) -> Any:
        """``fit(X).labels_``."""
        return self.fit(X, sample_weight=sample_weight).labels_

