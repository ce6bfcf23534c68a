"""Warnings of the package."""

from __future__ import annotations

import warnings
from typing import Optional


class ConvergenceWarning(UserWarning):
    """A clustering run ended somewhere its result deserves a second look.

    Issued (like scikit-learn's ``ConvergenceWarning`` for ``KMeans``) when a run stopped at
    ``max_iter`` sweeps before the local search converged, when it stopped on a cycle of
    partitions (Lloyd's method on a kernel that is not positive semidefinite), or when it
    found fewer distinct clusters than ``k`` (the data hold fewer than ``k`` distinct points,
    so some clusters coincide). Silence it with
    ``warnings.simplefilter("ignore", ConvergenceWarning)``.
    """


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
