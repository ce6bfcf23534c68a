"""Running a clustering on the compiled core: the kernel-matrix call and the options shared
by every public clustering function (:mod:`kgroups_rs.clustering`, :mod:`kgroups_rs.graph`,
:mod:`kgroups_rs.large`)."""

from __future__ import annotations

import functools
from typing import Any, Callable, Literal, Optional, Union, cast

import numpy as np
import numpy.typing as npt

from . import _core
from ._algorithm import ALGORITHMS, Algorithm, check_algorithm
from ._progress import ProgressBar, ProgressCallback, resolve_progress
from ._result import ClusteringResult
from ._sparse_input import as_csr_arrays, is_sparse
from ._validation import (
    InitMethod,
    RandomState,
    as_count,
    as_init,
    as_kernel_matrix,
    as_weights,
    check_n_threads,
    seed_from_random_state,
)
from ._warnings import DISTANCE_MATRIX_ADVICE, warn_if_degenerate, warn_if_distance_matrix

#: A compiled-core clustering call with its kernel bound: ``run(k, options)``.
CoreRun = Callable[[int, _core.FitOptions], _core.Clustering]

#: Whether a sparse kernel is renumbered for the local search: ``"auto"``, True or False.
Reorder = Union[bool, Literal["auto"]]


def reorder_mode(reorder: Any) -> Literal["auto", "always", "never"]:
    """The core's name for a ``reorder`` argument ("auto", True or False)."""
    if isinstance(reorder, (bool, np.bool_)):
        return "always" if reorder else "never"
    if isinstance(reorder, str):
        if reorder == "auto":
            return "auto"
        raise ValueError(f"reorder must be 'auto', True or False, got {reorder!r}")
    raise TypeError(f"reorder must be 'auto', True or False, got {type(reorder).__name__}")


def prepare_kernel(
    G: Any, check_symmetry: bool = True, reorder: Any = "auto", *, check_distance: bool = True
) -> CoreRun:
    """The core call for a dense or sparse kernel matrix (``reorder`` is checked for both,
    used for sparse ones). With ``check_distance``, a dense G that looks like a distance
    matrix gets a :class:`KernelInputWarning` (attributed to the caller's caller: call this
    from the public function only); :func:`graph_partition` passes False."""
    mode = reorder_mode(reorder)
    if is_sparse(G):
        indptr, indices, data, n = as_csr_arrays(G)
        return functools.partial(_core.cluster_csr, indptr, indices, data, n, reorder=mode)
    matrix = as_kernel_matrix(G)
    if check_distance:
        warn_if_distance_matrix(matrix, "G", DISTANCE_MATRIX_ADVICE.format(name="G"), stacklevel=3)
    return functools.partial(_core.cluster_dense, matrix, check_symmetry=bool(check_symmetry))


def run_clustering(
    run: CoreRun,
    k: int,
    init: Any,
    *,
    algorithm: str,
    weights: Any,
    n_init: int,
    max_iter: int,
    random_state: RandomState,
    n_threads: Optional[int],
    progress: Union[ProgressCallback, bool, None],
    approximate: bool = False,
    shift: float = 0.0,
) -> ClusteringResult:
    """Convert the shared options, call the core through ``run`` once with them and wrap
    the result. The core checks their values (k within 1..n, n_init, max_iter, the labels
    and weights against n and k, the shift) and names the argument in its error.

    ``algorithm`` is one of the public names ("hartigan", "lloyd", "lloyd-online").
    ``shift`` is the diagonal shift: the search runs on ``G + shift * W^-1`` without
    adding it to G (see :func:`kgroups_rs.graph_partition`).
    """
    search = cast(Algorithm, check_algorithm(algorithm, ALGORITHMS))
    k = as_count(k, "k")
    n_init = as_count(n_init, "n_init")
    max_iter = as_count(max_iter, "max_iter")
    n_threads = check_n_threads(n_threads)
    progress = resolve_progress(progress, n_init, max_iter)
    method, labels = as_init(init)
    # check_algorithm and as_init have checked the names.
    init_choice: Union[InitMethod, npt.NDArray[np.int64]] = (
        cast(InitMethod, method) if labels is None else labels
    )
    options = _core.FitOptions(
        algorithm=search,
        init=init_choice,
        weights=as_weights(weights),
        n_init=n_init,
        max_iter=max_iter,
        seed=seed_from_random_state(random_state),
        n_threads=n_threads,
        progress=progress,
        shift=float(shift),
    )
    try:
        result = run(k, options)
    finally:
        if isinstance(progress, ProgressBar):
            progress.close()  # also when a start's last event did not finish the bar
    warn_if_degenerate(
        k,
        max_iter,
        result.converged,
        result.n_distinct_clusters,
        stacklevel=3,
        cycle_length=result.cycle_length,
        n_iter=result.n_iter,
    )
    return ClusteringResult._from_core(result, approximate=approximate)
