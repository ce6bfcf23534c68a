"""The result of a distributed clustering run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ._features import FloatArray, NystromMap


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
    spectral_bound : float or None
        With ``init="spectral"``: ``lambda_1 + ... + lambda_k``, the sum of the k largest
        eigenvalues of ``W^(1/2) Phi Phi^T W^(1/2)``, an upper bound on ``objective``; None
        for the other initialisations.
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
    spectral_bound: Optional[float] = None

    def __repr__(self) -> str:
        return (
            f"DaskClusteringResult(n={self.labels.shape[0]}, k={self.cluster_terms.size}, "
            f"objective={self.objective:.10g}, within={self.within:.10g}, n_iter={self.n_iter}, "
            f"n_moves={self.n_moves}, converged={self.converged}, approximate=True)"
        )

