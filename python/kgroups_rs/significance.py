"""Are the data one Gaussian? A calibrated Monte Carlo test of "one Gaussian" by the k groups
that kernel k-groups finds (:func:`cluster_significance`). A small p-value says "not one
Gaussian", which uniform and other non-Gaussian single clouds are too: it is not by itself
evidence of clusters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._algorithm import ALGORITHMS, Algorithm, check_algorithm
from ._kernel_options import as_points
from ._progress import ProgressBar, ProgressCallback, resolve_progress
from ._result import ClusteringResult
from ._validation import RandomState, as_count, check_n_threads, seed_from_random_state

__all__ = ["SignificanceResult", "cluster_significance"]

#: The null hypothesis the test rejects when its p-value is small.
_NULL_HYPOTHESIS = "the data are one Gaussian (any mean and covariance)"


@dataclass(frozen=True, repr=False)
class SignificanceResult:
    """The outcome of :func:`cluster_significance`: the test of "the data are one Gaussian".

    A small ``pvalue`` says the data are not one Gaussian. It does not by itself say they hold
    clusters: uniform data get small p-values too, and so can other non-Gaussian single
    clouds. :meth:`summary` says so in words.

    Attributes
    ----------
    pvalue : float
        ``(1 + #{null statistics <= statistic}) / (n_null + 1)``.
    pvalue_se : float
        Its Monte Carlo standard error, ``sqrt(pvalue (1 - pvalue) / n_null)``.
    statistic : float
        ``T = W_k / W_1`` of the data's partition (small: compact, separated groups).
    null_statistics : ndarray of shape (n_null,)
        ``T`` of each null data set, clustered as the data were.
    labels : ndarray of int64, shape (n,)
        The partition tested (the data's clustering).
    clustering : ClusteringResult
        The data's whole clustering result.
    within : float
        ``W_k``, the within-cluster energy dispersion of the partition.
    total : float
        ``W_1``, the total energy dispersion of the data.
    sample_eigenvalues : ndarray of shape (D,)
        Eigenvalues of the data's sample covariance, descending (0 beyond rank n - 1); every
        null data set has exactly these.
    """

    pvalue: float
    pvalue_se: float
    statistic: float
    null_statistics: npt.NDArray[np.float64]
    labels: npt.NDArray[np.int64]
    clustering: ClusteringResult
    within: float
    total: float
    sample_eigenvalues: npt.NDArray[np.float64]

    @property
    def n_null(self) -> int:
        """The number of null data sets."""
        return int(self.null_statistics.shape[0])

    @property
    def null_hypothesis(self) -> str:
        """What a small ``pvalue`` rejects: "the data are one Gaussian (any mean and
        covariance)"."""
        return _NULL_HYPOTHESIS

    def summary(self) -> str:
        """The test's outcome in words: the null, the p-value, and what it does not say."""
        k = self.clustering.n_clusters
        return (
            f"Test of H0: {_NULL_HYPOTHESIS}, by the energy statistic T = W_k / W_1 of a "
            f"{k}-group partition of {self.labels.size} points: T = {self.statistic:.4g}, "
            f"p = {self.pvalue:.4g} +/- {self.pvalue_se:.2g} ({self.n_null} null data sets).\n"
            "A small p says the data are not one Gaussian, not that they hold clusters: "
            "uniform data get small p-values too, and so can other non-Gaussian single clouds."
        )

    def __repr__(self) -> str:
        return (
            f"SignificanceResult(H0='one Gaussian', pvalue={self.pvalue:.6g}, "
            f"pvalue_se={self.pvalue_se:.3g}, statistic={self.statistic:.10g}, "
            f"n={self.labels.size}, k={self.clustering.n_clusters}, n_null={self.n_null})"
        )


def cluster_significance(
    X: Any,
    k: int = 2,
    *,
    n_null: int = 999,
    random_state: RandomState = None,
    n_init: int = 5,
    init: str = "k-means++",
    algorithm: Algorithm = "hartigan",
    max_iter: int = 300,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, bool, None] = None,
) -> SignificanceResult:
    """Test whether ``X`` is not one Gaussian, by how much more cleanly kernel k-groups
    splits it into k groups than it splits Gaussian data with exactly its sample mean and
    covariance (SigClust's question, Liu, Hayes, Nobel & Marron 2008, asked of the energy
    statistic).

    **What it tests.** The null hypothesis is "the n points are an i.i.d. sample of one
    Gaussian, of any mean and covariance"; a small p-value says the data are not one Gaussian.
    That is not the same as "more than one group" or "more than noise": uniform data are
    rejected as well (200 points uniform in a square get p of about 0.001 with
    ``n_null=999``), and so can be other non-Gaussian single clouds (skewed, heavy- or
    light-tailed). A small p-value is therefore not by itself evidence of clusters: look at
    the groups, and transform skewed data first (e.g. a log) when one Gaussian per group is
    the question.

    **Statistic.** ``X`` is clustered into k groups with the energy kernel of
    ``rho(x, y) = ||x - y||`` (as :func:`kernel_kgroups_from_data` does). The statistic ``T``
    is the partition's within-cluster energy dispersion divided by the data's total energy
    dispersion, ``T = W_k / W_1``: ``W_k`` sums, over the groups, the sum of the distances
    between every ordered pair of the group's points divided by twice the group's size
    (``W_k = sum_j (1 / (2 n_j)) sum_{a, b in C_j} ||x_a - x_b||``, the ``within`` of
    :func:`energy_statistics`, the W that kernel k-groups minimises), and ``W_1`` is the
    same sum over all n points as one group (``W_1 = (1 / (2 n)) sum_{a, b} ||x_a - x_b||``).
    ``T`` lies in [0, 1], is small for compact, well separated groups, and does not change
    under translation, rotation or a common scale of the data.

    **Null data sets.** The test conditions on the data's sample mean and covariance, which
    are sufficient for a Gaussian. Given them, the centred data of an i.i.d. Gaussian sample
    are a uniformly random orthonormal frame orthogonal to the ones vector times the square
    roots of ``n - 1`` times the sample covariance's eigenvalues, rotated by its eigenvectors
    (``U diag(sqrt((n - 1) lambda)) V^T``), whatever the true mean and covariance. ``T``
    depends only on the distances between points, so each null data set is a fresh random
    frame of ``min(D, n - 1)`` columns, column j times ``sqrt((n - 1) lambda_j)``: it has
    exactly the data's sample covariance, and the p-value is exactly uniform under the null
    (up to ties), for any n and D. No covariance is estimated. Every null data set is
    clustered exactly as the data were (same ``k``, ``init``, ``n_init``, ``algorithm``,
    ``max_iter``; its own seed derived up front).

    **p-value.** One plus the number of null data sets whose ``T`` is at most the data's,
    divided by ``n_null + 1``: ``p = (1 + #{i : T_i <= T}) / (n_null + 1)``, small when the
    data are split more cleanly than nearly all the null data sets. Its Monte Carlo
    standard error is ``sqrt(p (1 - p) / n_null)``; the smallest possible value is
    ``1 / (n_null + 1)``.

    **Calibration** (``benches/bench_significance.py``, documented in the user guide): under
    one Gaussian the test rejects at the nominal rate, within Monte Carlo error, for every
    shape measured (n 50 and 200, D 2, 10 and 200, isotropic and anisotropic).

    Parameters
    ----------
    X : array_like of shape (n, D) or (n,)
        The data (finite; a 1-D array holds n points on a line).
    k : int, default 2
        Groups to test, ``2 <= k <= n``.
    n_null : int, default 999
        Null data sets drawn and clustered (each costs one clustering of n points).
    random_state : None, int, numpy Generator or RandomState
        Seed of the data's clustering and, through seeds derived from it up front, of every
        null data set. The same seed gives the same result for any ``n_threads``.
    n_init : int, default 5
        Starts of every clustering (the data's and each null data set's).
    init : {"k-means++", "random"}, default "k-means++"
        How each start begins (initial labels are refused: each null data set draws its own).
    algorithm : {"hartigan", "lloyd", "lloyd-online"}, default "hartigan"
        The search of every clustering.
    max_iter : int, default 300
        Sweep limit of every start.
    n_threads : int, optional
        Threads (default: all cores). The null data sets are clustered in parallel.
    progress : callable or bool, optional
        ``progress(i, 1, 0, T_i)`` after null data set ``i`` is clustered (in any order), or
        ``True`` for a progress bar of null data sets done.

    Returns
    -------
    SignificanceResult
        ``pvalue``, ``pvalue_se``, ``statistic``, ``null_statistics``, ``labels`` and the
        sample covariance's eigenvalues; ``summary()`` states the null and what a small p
        does not say.

    Raises
    ------
    ValueError
        For k outside 2..n, ``n_null < 1``, NaN or infinity in X, points that all coincide,
        an unknown init or algorithm.
    TypeError
        For arguments of the wrong type.
    KeyboardInterrupt
        On Ctrl-C; the computation stops within a fraction of a second.

    Examples
    --------
    >>> import numpy as np, kgroups_rs
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(6, 1, (50, 2))])
    >>> result = kgroups_rs.cluster_significance(X, 2, n_null=99, random_state=0)
    >>> result.pvalue  # not one Gaussian (here: two groups; uniform data are rejected too)
    0.01
    """
    points = as_points(X)
    k = as_count(k, "k")
    n_null = as_count(n_null, "n_null")
    n_init = as_count(n_init, "n_init")
    max_iter = as_count(max_iter, "max_iter")
    if not isinstance(init, str):
        raise TypeError(
            "init must be 'k-means++' or 'random': each null data set draws its own start, so "
            "initial labels cannot be used"
        )
    if init not in ("k-means++", "random"):
        raise ValueError(f"unknown init {init!r}; use 'k-means++' or 'random'")
    search = check_algorithm(algorithm, ALGORITHMS)
    n_threads = check_n_threads(n_threads)
    callback = resolve_progress(progress, n_null, 1)
    options = _core.FitOptions(
        algorithm=search,  # type: ignore[arg-type]
        init=init,  # type: ignore[arg-type]
        n_init=n_init,
        max_iter=max_iter,
        seed=seed_from_random_state(random_state),
        n_threads=n_threads,
        progress=callback,
    )
    try:
        (statistic, within, total, clustering, null_statistics, pvalue, pvalue_se,
         sample_eigenvalues) = _core.cluster_significance(points, k, n_null, options)
    finally:
        if isinstance(callback, ProgressBar):
            callback.close()
    result = ClusteringResult._from_core(clustering)
    return SignificanceResult(
        pvalue=pvalue,
        pvalue_se=pvalue_se,
        statistic=statistic,
        null_statistics=null_statistics,
        labels=result.labels,
        clustering=result,
        within=within,
        total=total,
        sample_eigenvalues=sample_eigenvalues,
    )
