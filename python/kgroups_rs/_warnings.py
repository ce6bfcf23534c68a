"""When the package warns: the checks behind :class:`~kgroups_rs.KernelInputWarning` (a
distance matrix passed as a kernel) and :class:`~kgroups_rs.ConvergenceWarning`."""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from .exceptions import ConvergenceWarning, KernelInputWarning

#: What :class:`KernelInputWarning` advises for a distance matrix passed as a kernel.
DISTANCE_MATRIX_ADVICE = (
    "Pass gram_from_semimetric({name}) instead; for a graph's adjacency matrix use graph_partition"
)

#: Up to this many rows of a matrix with a zero diagonal are read for its signs; a larger
#: matrix is judged by this many evenly spaced rows (a negative entry elsewhere is missed,
#: but a positive entry off a zero diagonal already rules out a kernel).
DISTANCE_CHECK_ROWS = 256
#: Rows read at once (a bounded temporary, whatever n).
_CHECK_BLOCK_ROWS = 16


def looks_like_distance_matrix(G: Any) -> bool:
    """True when the dense square matrix ``G`` has an all-zero diagonal and (on the rows
    read, see :data:`DISTANCE_CHECK_ROWS`) only non-negative entries, some positive.

    O(n) for any matrix with a non-zero diagonal entry (every kernel but the zero matrix);
    otherwise O(n * min(n, DISTANCE_CHECK_ROWS)). NaN anywhere read gives False (the caller
    refuses it).
    """
    if G.ndim != 2 or G.shape[0] != G.shape[1] or G.shape[0] < 2:
        return False
    n = G.shape[0]
    if np.any(np.diagonal(G) != 0):
        return False
    if G.flags.f_contiguous and not G.flags.c_contiguous:
        G = G.T  # read contiguous columns (a kernel is symmetric; the core checks it is)
    if n <= DISTANCE_CHECK_ROWS:
        rows = np.arange(n)
    else:
        rows = np.unique(np.linspace(0, n - 1, DISTANCE_CHECK_ROWS).round().astype(np.intp))
    positive = False
    for start in range(0, rows.size, _CHECK_BLOCK_ROWS):
        block = G[rows[start : start + _CHECK_BLOCK_ROWS]]
        if not np.all(block >= 0):  # a negative entry, or NaN
            return False
        positive = positive or bool(np.any(block > 0))
    return positive


def warn_if_distance_matrix(G: Any, name: str, advice: str, *, stacklevel: int) -> None:
    """Issue a :class:`KernelInputWarning` when the dense kernel ``G`` (argument ``name``)
    looks like a distance matrix (see :func:`looks_like_distance_matrix`); ``advice`` says
    what to pass instead."""
    if looks_like_distance_matrix(G):
        warnings.warn(
            f"{name} looks like a distance matrix (zero diagonal, non-negative entries), not a "
            f"kernel: a kernel with a zero diagonal is zero everywhere. {advice}",
            KernelInputWarning,
            stacklevel=stacklevel + 1,
        )


def warn_if_degenerate(
    k: int,
    max_iter: int,
    converged: bool,
    n_distinct_clusters: int,
    *,
    stacklevel: int,
    cycle_length: Optional[int] = None,
    n_iter: Optional[int] = None,
    category: type[Warning] = ConvergenceWarning,
) -> None:
    """Issue a :class:`ConvergenceWarning` (or ``category``) for a run that did not converge
    (stopped by ``max_iter`` or on a cycle of ``cycle_length`` sweeps ending at sweep
    ``n_iter``) or whose clusters coincide."""
    if cycle_length is not None:
        warnings.warn(
            f"the local search cycles: the partition after sweep {n_iter} repeats the one "
            f"{cycle_length} sweep{'s' if cycle_length != 1 else ''} earlier, so it would never "
            "converge. Lloyd's method can cycle when the kernel is not positive semidefinite: "
            "use algorithm='hartigan', or make the kernel positive semidefinite (for a graph, "
            "graph_partition's shift). Hartigan's method cycles only when rounding hides the "
            "true gains, as with weights spanning hundreds of orders of magnitude",
            category,
            stacklevel=stacklevel + 1,
        )
    elif not converged:
        warnings.warn(
            f"the local search stopped after max_iter = {max_iter} sweeps without converging "
            "(the last sweep still moved points); increase max_iter",
            category,
            stacklevel=stacklevel + 1,
        )
    if n_distinct_clusters < k:
        warnings.warn(
            f"only {n_distinct_clusters} distinct clusters were found for k = {k}: some cluster "
            "means coincide, possibly because the data hold fewer than k distinct points",
            category,
            stacklevel=stacklevel + 1,
        )
