"""Warnings of the package."""

from __future__ import annotations

import warnings


class ConvergenceWarning(UserWarning):
    """A clustering run ended somewhere its result deserves a second look.

    Issued (like scikit-learn's ``ConvergenceWarning`` for ``KMeans``) when a run stopped at
    ``max_iter`` sweeps before the local search converged, or when it found fewer distinct
    clusters than ``k`` (the data hold fewer than ``k`` distinct points, so some clusters
    coincide). Silence it with ``warnings.simplefilter("ignore", ConvergenceWarning)``.
    """


def warn_if_degenerate(
    k: int,
    max_iter: int,
    converged: bool,
    n_distinct_clusters: int,
    *,
    stacklevel: int,
    category: type[Warning] = ConvergenceWarning,
) -> None:
    """Issue a :class:`ConvergenceWarning` (or ``category``) for a run that did not converge
    or whose clusters coincide."""
    if not converged:
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
