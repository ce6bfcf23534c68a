"""The result type shared by every clustering function of the package.

The compiled core returns a frozen ``_core.Clustering``; :meth:`ClusteringResult._from_core`
turns it into this dataclass (sharing its arrays, no copies). The public result stays a Python
dataclass rather than the compiled class because pure-Python solvers produce it too (the 1-D
solver, with ``thresholds``), wrappers adjust it (``dataclasses.replace`` for a graph's
diagonal shift, ``approximate`` for Nyström), and a dataclass pickles, copies and prints
without any code in the binding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ._core import Clustering


@dataclass(frozen=True)
class ClusteringResult:
    """The outcome of one clustering run (the best start when ``n_init > 1``).

    Attributes
    ----------
    labels : ndarray of int64, shape (n,)
        Cluster of each point, numbered ``0 .. k-1``.
    objective : float
        The maximised objective ``Q = sum_j Q_j / s_j`` with
        ``Q_j = sum_{a,b in C_j} w_a w_b G_ab`` and ``s_j = sum_{a in C_j} w_a``.
    within : float
        The energy within-cluster dispersion ``W = sum_i w_i G_ii - Q`` (minimised).
    n_iter : int
        Sweeps over the points (Hartigan, online Lloyd) or batch iterations, counting
        the last sweep that found nothing to change.
    n_moves : int
        Points moved in total over all sweeps.
    converged : bool
        True when the last sweep changed nothing (False when ``max_iter`` stopped it, or a
        cycle: see ``cycle_length``).
    objective_history : ndarray of float64
        The objective ``Q`` after each sweep (index 0 is the initial partition).
    cluster_terms : ndarray of float64, shape (k,)
        ``Q_j = sum_{a,b in C_j} w_a w_b G_ab`` of each cluster, so that
        ``objective = sum_j Q_j / s_j``; ``Q_j / s_j**2`` is the squared norm of cluster
        ``j``'s weighted mean in feature space (what :meth:`KernelKGroups.predict` compares
        against).
    thresholds : ndarray of float64 or None
        Only for the one-dimensional solver: the cut points between consecutive clusters
        (cluster ``j`` holds ``thresholds[j-1] < x <= thresholds[j]``).
    approximate : bool
        True when the result optimises an approximation of the kernel (Nyström).
    n_distinct_clusters : int or None
        The number of distinct cluster means in feature space (clusters whose means coincide,
        up to rounding, count once). Below ``k`` when the data hold fewer than ``k`` distinct
        points; a :class:`ConvergenceWarning` says so. None where not computed (1-D solver).
    best_start : int or None
        Which of the ``n_init`` starts (0-based) produced this result. None where there are
        no starts (1-D solver).
    cycle_length : int or None
        Set when the local search stopped because its partition repeated: the labels after
        the last sweep are those of ``cycle_length`` sweeps earlier, so further sweeps would
        only go round the same partitions (``converged`` is False; a
        :class:`ConvergenceWarning` says so). Lloyd's method (batch or online) can cycle on a
        kernel that is not positive semidefinite, such as a graph's adjacency matrix;
        Hartigan's method only when rounding hides the true gains (weights spanning hundreds
        of orders of magnitude). None otherwise.
    spectral_bound : float or None
        With ``init="spectral"``: the sum of the ``k`` largest eigenvalues of
        ``W^1/2 G W^1/2`` (``G`` with its diagonal shift, if any), an upper bound on the
        objective ``Q`` of every partition into ``k`` clusters, so ``objective <=
        spectral_bound`` (equal when the kernel is ``k`` non-interacting blocks of rank one);
        ``objective / spectral_bound`` near 1 means the search found nearly the best partition
        for a positive kernel. None for the other initialisations.
    n_clusters : int
        The number of clusters ``k`` (a property: the largest label plus one; every cluster
        holds at least one point).
    """

    labels: npt.NDArray[np.int64]
    objective: float
    within: float
    n_iter: int
    n_moves: int
    converged: bool
    objective_history: npt.NDArray[np.float64] = field(
        default_factory=lambda: np.zeros(0, dtype=np.float64)
    )
    cluster_terms: npt.NDArray[np.float64] = field(
        default_factory=lambda: np.zeros(0, dtype=np.float64)
    )
    thresholds: Optional[npt.NDArray[np.float64]] = None
    approximate: bool = False
    n_distinct_clusters: Optional[int] = None
    best_start: Optional[int] = None
    cycle_length: Optional[int] = None
    spectral_bound: Optional[float] = None

    @classmethod
    def _from_core(cls, core: Clustering, *, approximate: bool = False) -> ClusteringResult:
        """The result of a compiled-core clustering call (its arrays are shared, not copied)."""
        return cls(
            labels=core.labels,
            objective=core.objective,
            within=core.within,
            n_iter=core.n_iter,
            n_moves=core.n_moves,
            converged=core.converged,
            objective_history=core.objective_history,
            cluster_terms=core.cluster_terms,
            approximate=approximate,
            n_distinct_clusters=core.n_distinct_clusters,
            best_start=core.best_start,
            cycle_length=core.cycle_length,
            spectral_bound=core.spectral_bound,
        )

    @property
    def n_clusters(self) -> int:
        """Number of clusters ``k`` (the largest label plus one)."""
        return int(self.labels.max()) + 1 if self.labels.size else 0

    def __repr__(self) -> str:
        return (
            f"ClusteringResult(n={self.labels.size}, k={self.n_clusters}, "
            f"objective={self.objective:.10g}, within={self.within:.10g}, "
            f"n_iter={self.n_iter}, n_moves={self.n_moves}, converged={self.converged}"
            + (", approximate=True" if self.approximate else "")
            + ")"
        )
