"""Are the groups real? A calibrated Monte Carlo test of one group against the k groups that
kernel k-groups finds (:func:`cluster_significance`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._algorithm import ALGORITHMS, Algorithm, check_algorithm
from ._kernel_options import as_points
from ._progress import ProgressBar, ProgressCallback, resolve_progress
from ._result import ClusteringResult
from ._validation import RandomState, as_count, check_n_threads, seed_from_random_state

__all__ = ["SignificanceResult", "cluster_significance"]

Covariance = Literal["conditional", "sample", "debiased", "hard-threshold"]
_COVARIANCES = ("conditional", "sample", "debiased", "hard-threshold")


@dataclass(frozen=True)
class SignificanceResult:
    """The outcome of :func:`cluster_significance`.

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
        Eigenvalues of the data's sample covariance, descending (0 beyond rank n - 1).
    null_eigenvalues : ndarray of shape (D,)
        Variances of the null Gaussian along its axes, descending (for "conditional", the
        sample eigenvalues: every null data set has exactly them).
    background_variance : float
        The background noise variance ``sigma_b^2 = (MAD / 0.6745)^2``.
    covariance : str
        The null's covariance rule.
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
    null_eigenvalues: npt.NDArray[np.float64]
    background_variance: float
    covariance: str

    @property
    def n_null(self) -> int:
        """The number of null data sets."""
        return int(self.null_statistics.shape[0])


def cluster_significance(
    X: Any,
    k: int = 2,
    *,
    n_null: int = 999,
    covariance: Covariance = "conditional",
    random_state: RandomState = None,
    n_init: int = 5,
    init: str = "k-means++",
    algorithm: Algorithm = "hartigan",
    max_iter: int = 300,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, bool, None] = None,
) -> SignificanceResult:
    """Test whether the k groups kernel k-groups finds in ``X`` are more than one Gaussian
    cut into k pieces (SigClust's idea, Liu, Hayes, Nobel & Marron 2008, on the energy
    statistic).

    **Statistic.** ``X`` is clustered into k groups with the energy kernel of
    ``rho(x, y) = ||x - y||`` (as :func:`kernel_kgroups_from_data` does); the statistic is the
    partition's within-cluster energy dispersion over the total,
    ``T = W_k / W_1``, where ``W_k = sum_j (1 / (2 n_j)) sum_{a, b in C_j} ||x_a - x_b||``
    (the ``within`` of :func:`energy_statistics`, the W kernel k-groups minimises) and
    ``W_1 = (1 / (2 n)) sum_{a, b} ||x_a - x_b||``. ``T`` lies in [0, 1], is small for
    compact, well separated groups, and does not change under translation, rotation or a
    common scale of the data.

    **Null.** One Gaussian, of any mean and covariance. ``covariance="conditional"`` (the
    default) gives an exact test: it conditions on the data's sample mean and covariance,
    which are sufficient for a Gaussian. Given them, the centred data of an i.i.d. Gaussian
    sample are ``U diag(sqrt((n - 1) lambda)) V^T`` (``lambda``, ``V``: the sample
    covariance's eigenvalues and eigenvectors) with ``U`` a uniformly random orthonormal frame
    orthogonal to the ones vector, whatever the true mean and covariance. ``T`` depends only
    on the distances between points, so each null data set is
    ``sqrt(n - 1) U diag(sqrt(lambda))`` with a fresh random frame ``U`` of ``min(D, n - 1)``
    columns: it has exactly the data's sample covariance, and the p-value is exactly uniform
    under the null (up to ties), for any n and D. No covariance is estimated.

    SigClust's own null (Liu et al. 2008) is available for comparison: n points from
    ``N(0, diag(lambda~))`` (the same test as drawing from the fitted Gaussian itself, ``T``
    being invariant under rotation and translation), with ``lambda~``

    - ``"sample"``: the sample eigenvalues (divisor n - 1);
    - ``"debiased"``: the eigenvalues whose samples of n points have, on average, the data's
      sample eigenvalues (fixed point of ``lambda <- max(0, lambda + sample - mean sample
      eigenvalues of N(0, diag(lambda)))``, 8 steps of 32 seeded draws);
    - ``"hard-threshold"``: SigClust's estimate, every sample eigenvalue below the background
      noise variance ``sigma_b^2 = (MAD / 0.6745)^2`` (MAD: the median absolute deviation of
      all n * D entries of the column-centred data) raised to it.

    These plug-in nulls are conservative: the spread of ``T`` under them includes the spread
    of the sample eigenvalues, which the observed ``T`` shares. The hard threshold is the
    exception with few dimensions of unequal variance: the MAD pools them, the null is rounder
    than the data, and a single elongated Gaussian is rejected far too often.

    Every null data set is clustered exactly as the data were (same ``k``, ``init``,
    ``n_init``, ``algorithm``, ``max_iter``; its own seed derived up front).

    **p-value.** ``p = (1 + #{i : T_i <= T}) / (n_null + 1)`` (small when the data are more
    clustered than the null's data sets), with its Monte Carlo standard error
    ``sqrt(p (1 - p) / n_null)``. The smallest possible value is ``1 / (n_null + 1)``.

    **Calibration** (``benches/bench_significance.py``): under one Gaussian the conditional
    test rejects at the nominal rate, within Monte Carlo error, for every shape measured (n 50
    and 200, D 2, 10 and 200, isotropic and anisotropic). Like every test of this null it is
    not a test of "more than one group" for data far from Gaussian: a single lognormal cloud
    is rejected as "not one Gaussian".

    Parameters
    ----------
    X : array_like of shape (n, D) or (n,)
        The data (finite; a 1-D array holds n points on a line).
    k : int, default 2
        Groups to test, ``2 <= k <= n``.
    n_null : int, default 999
        Null data sets drawn and clustered (each costs one clustering of n points).
    covariance : {"conditional", "debiased", "sample", "hard-threshold"}, default "conditional"
        The null's covariance (see above).
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
        ``pvalue``, ``pvalue_se``, ``statistic``, ``null_statistics``, ``labels``, the null's
        eigenvalues and ``background_variance``.

    Raises
    ------
    ValueError
        For k outside 2..n, ``n_null < 1``, NaN or infinity in X, points that all coincide,
        an unknown covariance, init or algorithm.
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
    >>> result.pvalue
    0.01
    """
    points = as_points(X)
    k = as_count(k, "k")
    n_null = as_count(n_null, "n_null")
    n_init = as_count(n_init, "n_init")
    max_iter = as_count(max_iter, "max_iter")
    if covariance not in _COVARIANCES:
        raise ValueError(
            f"unknown covariance {covariance!r}; use 'conditional', 'sample', 'debiased' or "
            "'hard-threshold'"
        )
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
         sample_eigenvalues, null_eigenvalues, background) = _core.cluster_significance(
            points, k, n_null, covariance, options)
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
        null_eigenvalues=null_eigenvalues,
        background_variance=background,
        covariance=covariance,
    )
