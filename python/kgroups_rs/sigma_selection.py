"""Choosing the bandwidth σ of the exponential and gaussian semimetrics from the data:
:func:`choose_sigma` (``sigma="auto"``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional

import numpy as np
import numpy.typing as npt

from . import _core
from ._validation import RandomState, check_int, check_n_threads, seed_from_random_state

__all__ = ["SigmaSelection", "choose_sigma"]

#: The candidates are scored on a seeded subsample of this many points beyond it.
MAX_POINTS = 2000
#: The largest k considered when k is not given.
K_MAX = 10


@dataclass(frozen=True)
class SigmaSelection:
    """The outcome of :func:`choose_sigma`.

    Attributes
    ----------
    sigma : float
        The chosen bandwidth.
    k : int
        The number of groups it was chosen for: the given k, or (k not given) the chosen
        candidate's eigen-gap k.
    chosen : int or None
        The row of ``table`` chosen; None when the "mean" rule's σ was returned as the
        fall-back (k = 1, or every candidate degenerate).
    table : dict of str to array
        One entry per candidate: ``sigma``; ``source`` (``"median*2^j"`` or ``"mean"``);
        ``k`` (the k its statistics are taken at); ``neighbour_mass`` (mean kernel mass of a
        point's other points, ``mean(d) - 1``); ``next_eigenvalue`` (λ_{k+1} of the
        normalised kernel's Laplacian); ``eigengap`` (relative eigen-gap at k, what chooses
        k when it is not given); ``knn_cut`` (the kNN-graph normalised cut per group of
        kernel k-groups' partition: the score, the smallest wins); ``degenerate`` (never
        chosen).
    n_points : int
        The number of points the candidates were scored on.
    """

    sigma: float
    k: int
    chosen: Optional[int]
    table: dict[str, Any]
    n_points: int

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame, one row per candidate (needs pandas)."""
        import pandas as pd  # type: ignore[import-untyped]

        return pd.DataFrame(self.table)


def choose_sigma(
    X: Any,
    k: Optional[int] = None,
    *,
    semimetric: Literal["gaussian", "exponential"] = "gaussian",
    random_state: RandomState = None,
    n_threads: Optional[int] = None,
) -> SigmaSelection:
    """Choose the bandwidth σ of the gaussian (or exponential) semimetric from the data.

    This is what ``sigma="auto"`` computes wherever a bandwidth rule is accepted.

    Candidates, on a seeded subsample of at most 2000 points: ``m * 2**j`` for
    ``j = -4, ..., 1`` (``m`` the median distance between the subsample's points), and the
    "mean" rule's σ (:func:`bandwidth`), last. Each is scored from the data alone: kernel
    k-groups partitions the subsample with that σ's kernel ``K = 1 - rho / 2`` (10
    k-means++ starts), and the score is the normalised cut that partition makes in the
    data's 10-nearest-neighbour graph (which needs no σ), divided by k: the mean, over the
    groups, of the fraction of the edge weight at a group's points that goes to other
    groups. The smallest score wins.

    When ``k`` is None, each candidate's k is the one in 2 .. 10 with the largest relative
    eigen-gap ``(λ_{k+1} - λ_k) / λ_{k+1}`` (``λ = 1 - μ``, ``μ`` the eigenvalues of the
    normalised kernel ``D^-1/2 K D^-1/2``, ``d = K 1`` the degrees), and its score is taken
    at that k (so the choice is over σ and k). Every statistic is reported in ``table``.

    Degenerate candidates are reported but never chosen: a kernel that is nearly the
    identity (less than one neighbour's worth of kernel mass per point, every eigenvalue
    near 1) or that falls apart into more than k pieces (``λ_{k+1} < 1e-6``). Scores within
    1e-3 of the best are ties, won by the largest σ. When every candidate is degenerate, or
    ``k=1``, the "mean" rule's σ is returned (``chosen`` None).

    Parameters
    ----------
    X : array_like of shape (n, D) or (n,)
        The data (finite).
    k : int, optional
        The number of groups, when known (1 <= k <= n).
    semimetric : {"gaussian", "exponential"}, default "gaussian"
        The semimetric the bandwidth is for.
    random_state : int, numpy Generator or None
        Seed of the subsample, the eigenvector starts and the fits. None: the fixed seed 0,
        so that σ is a function of the data alone (as ``sigma="auto"`` uses it).
    n_threads : int, optional
        Threads (default: all cores); the result does not depend on it.

    Returns
    -------
    SigmaSelection

    Raises
    ------
    ValueError
        Fewer than 2 points, NaN or infinity in ``X``, every point the same, k outside
        1 .. n, an unknown ``semimetric``.

    Examples
    --------
    >>> import numpy as np, kgroups_rs
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, (40, 2)) for c in (0, 5)])
    >>> result = kgroups_rs.choose_sigma(X, 2)
    >>> len(result.table["sigma"]), result.k
    (7, 2)
    """
    if semimetric not in ("gaussian", "exponential"):
        raise ValueError(f"semimetric must be 'gaussian' or 'exponential', got {semimetric!r}")
    array = np.asarray(X)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"X must hold real numbers, got dtype {array.dtype}")
    data = np.ascontiguousarray(array, dtype=np.float64)
    if data.ndim == 1:
        data = data.reshape(-1, 1)
    if data.ndim != 2:
        raise ValueError(f"X must be a 1-D or 2-D (n, D) array, got shape {data.shape}")
    n = data.shape[0]
    if n < 2:
        raise ValueError(f"choosing sigma needs at least 2 points in X, got {n}")
    if not np.all(np.isfinite(data)):
        raise ValueError("X contains NaN or infinity; all values must be finite")
    if k is not None:
        k = check_int(k, "k", 1)
        if k > n:
            raise ValueError(f"k = {k} is beyond the number of points n = {n}")
    threads = check_n_threads(n_threads)
    seed = 0 if random_state is None else seed_from_random_state(random_state)
    raw = _core.choose_sigma(data, k, K_MAX, semimetric, MAX_POINTS, 10, seed, threads)
    table: dict[str, Any] = dict(raw.table)
    return SigmaSelection(
        sigma=float(raw.sigma),
        k=int(raw.k),
        chosen=None if raw.chosen is None else int(raw.chosen),
        table=table,
        n_points=int(raw.n_points),
    )


def auto_sigma(points: npt.NDArray[np.float64], k: Optional[int], semimetric: str) -> float:
    """σ for ``sigma="auto"``: :func:`choose_sigma` with the default seed."""
    if semimetric not in ("gaussian", "exponential"):
        raise ValueError(f"sigma='auto' is for the gaussian and exponential semimetrics, got {semimetric!r}")
    kind: Literal["gaussian", "exponential"] = "gaussian" if semimetric == "gaussian" else "exponential"
    return choose_sigma(points, k, semimetric=kind).sigma
