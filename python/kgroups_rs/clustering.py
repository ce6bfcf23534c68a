"""Kernel k-groups (Hartigan) and kernel k-means (Lloyd) on a precomputed kernel matrix."""

from __future__ import annotations

from typing import Any, Optional, Union

from ._algorithm import (
    LLOYD_ALGORITHMS,
    Algorithm,
    algorithm_from_variant,
    check_algorithm,
)
from ._progress import ProgressCallback
from ._result import ClusteringResult
from ._run import Reorder, prepare_kernel, run_clustering
from ._validation import Init, RandomState

__all__ = ["kernel_kgroups", "kernel_kmeans"]


def kernel_kgroups(
    G: Any,
    k: int,
    init: Init = "k-means++",
    *,
    algorithm: Algorithm = "hartigan",
    weights: Any = None,
    n_init: int = 1,
    max_iter: int = 300,
    random_state: RandomState = None,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, bool, None] = None,
    check_symmetry: bool = True,
    reorder: Reorder = "auto",
) -> ClusteringResult:
    """Kernel k-groups: energy clustering by Hartigan's method on a kernel matrix.

    Maximises ``Q = sum_j Q_j / s_j`` with ``Q_j = sum_{a,b in C_j} w_a w_b G_ab`` and
    ``s_j = sum_{a in C_j} w_a``, equivalently minimises the energy within-cluster
    dispersion ``W = sum_i w_i G_ii - Q``. Points are visited in index order; point ``i``
    in cluster ``j`` moves to ``argmax_l dQ(j -> l)`` when the gain

        dQ = w_i [ s_j/(s_j - w_i) d_j(i) - s_l/(s_l + w_i) d_l(i) ],
        d_l(i) = ||phi_i - mu_l||^2 = G_ii - 2 m_l(i)/s_l + Q_l/s_l^2,

    (exactly the change of ``Q``) exceeds its rounding error: 64 units of rounding times
    the size of the per-point terms it is computed from, so the search neither cycles nor
    refuses a real improvement, however far the data lie from the origin or however the
    weights are spread. ``m_l(i) = sum_{y in C_l} w_y G_iy`` is kept up to date (O(k) per
    point, O(n) per move). A point alone in its cluster never moves. Sweeps repeat until
    none moves a point; a :class:`ConvergenceWarning` says when ``max_iter`` stopped them,
    or when fewer than ``k`` distinct clusters were found. The result does not depend on a
    common scale of the weights.

    Parameters
    ----------
    G : array_like of shape (n, n) or scipy.sparse matrix
        Symmetric kernel (Gram) matrix, e.g. from :func:`energy_gram` (for a distance
        matrix, :func:`gram_from_semimetric`; see Warns). float64 and float32
        arrays in C or F order are used without copying (sums are accumulated in float64);
        other real dtypes are converted to float64 and strided views copied once. Symmetry
        is checked by the package's one rule: ``|G_ab - G_ba| <= tol * max(|G_ab|, |G_ba|,
        sqrt(|G_aa| |G_bb|))`` with ``tol`` = 1e-9 for float64 and 1e-5 for float32 (the same
        verdict for C order, F order, scipy.sparse and :func:`energy_statistics`). A
        scipy.sparse matrix runs the sparse path, O(k * nnz) per sweep. ``G`` is borrowed,
        not copied: do not modify it (or ``weights``) from another thread while the call
        runs — the result would be meaningless (though never a crash).
    k : int
        Number of clusters, ``1 <= k <= n``.
    init : {"k-means++", "random", "spectral"} or array_like of int, default "k-means++"
        "k-means++": weighted greedy k-means++ in feature space, ``d2(i, c) = G_ii + G_cc
        - 2 G_ic``; "random": uniform labels with no cluster empty; "spectral": the rows
        of the top-k eigenvectors of ``W^1/2 G W^1/2``, normalised to unit length (Ng,
        Jordan and Weiss), rounded by k-means++ and Lloyd there (the eigenvectors are
        computed once, each start rounds with its own seed; the result's
        ``spectral_bound`` bounds the objective); or the n initial labels in ``0..k-1``
        with every cluster non-empty (then ``n_init`` must be 1).
    algorithm : {"hartigan", "lloyd", "lloyd-online"}, default "hartigan"
        The search: "hartigan" is kernel k-groups as described above; "lloyd" and
        "lloyd-online" are kernel k-means (see :func:`kernel_kmeans`), which minimise the
        same W by a search that usually stops at a worse local optimum.
    weights : array_like of shape (n,), optional
        Point weights ``w_i > 0`` (default all 1).
    n_init : int, default 1
        Independent starts, run in parallel; the largest objective wins (ties: first start).
        One start by default, deliberately: this function is a building block whose cost the
        caller sees and composes. The estimators default to 5, since a single start is often
        a worse local optimum (on overlapping blobs, one start ended below the best of five
        for 17 of 20 seeds; see :class:`KernelKGroups`); pass ``n_init=5`` or more when the
        best partition matters more than time.
    max_iter : int, default 300
        Maximum number of sweeps per start.
    random_state : None, int, numpy Generator or RandomState
        Seed of all starts. The same seed gives the same result for any ``n_threads``.
    n_threads : int, optional
        Threads to use (default: all cores).
    progress : callable or bool, optional
        ``progress(start, sweep, moves_in_sweep, objective)`` after every sweep, or ``True``
        for a progress bar on standard error: starts finished out of ``n_init``, sweeps
        done and the best objective so far (drawn by tqdm when it is installed, otherwise
        as one line rewritten in place).
    check_symmetry : bool, default True
        Check that a dense G is finite and symmetric: one read of G in row order, hashing
        each entry with its position, recognises an exactly symmetric matrix (about the
        time of one numpy pass over G); any other is judged pair by pair against the
        tolerance rule (with one start, in the pass that builds the first cluster sums).
        Pass False only for a matrix built symmetric,
        e.g. by :func:`energy_gram`; on an asymmetric G the result is then meaningless.
        Non-finite entries are detected either way; without the check, only those in the
        triangle of G that the clustering reads (for a symmetric G, all of them; a
        non-finite entry whose mirror is finite makes G asymmetric). Sparse kernels are
        always checked.
    reorder : {"auto", True, False}, default "auto"
        Used only for a scipy.sparse ``G``. True renumbers the points in breadth-first order of
        the graph of ``G``'s stored entries before the local search (a copy of ``G`` as large
        as its arrays, built in one pass over it), so that a sweep's updates hit the cache,
        and maps the labels back. "auto" does so from 200 000 points, and only when a
        breadth-first probe finds locality (narrow levels, as in a k-nearest-neighbour
        graph); a random graph such as a stochastic block model has none and is clustered
        as it is. Below 200 000 points the sums fit in the cache and renumbering only costs
        time. Every start is drawn exactly as without
        renumbering (the same labels for a seed), but the sweeps then visit the points in
        the new order, and since Hartigan's moves depend on the visiting order, the result
        is the same only up to that order: another local optimum of the same ``G`` can be
        found. The labels are in the caller's numbering and the objective is theirs on ``G``
        (up to the order of summation). False gives exactly the result of previous versions.

    Returns
    -------
    ClusteringResult
        ``labels`` (int64), ``objective`` (Q), ``within`` (W), ``n_iter``, ``n_moves``,
        ``converged`` and ``objective_history``.

    Raises
    ------
    ValueError
        For NaN/inf, a non-square or asymmetric G, k out of range, bad labels or weights.
    TypeError
        For arguments of the wrong type (e.g. a complex G, a float k).
    KeyboardInterrupt
        On Ctrl-C; the computation stops within a fraction of a second.

    Warns
    -----
    KernelInputWarning
        When a dense G looks like a distance matrix: its diagonal is all zero and its
        entries non-negative, not all zero (read in full up to 256 rows, otherwise on 256
        evenly spaced rows). No kernel looks like that (a positive semi-definite matrix with
        a zero diagonal is zero), and the clustering is meaningless, often a single cluster:
        pass ``gram_from_semimetric(G)``, or for a graph's adjacency matrix use
        :func:`graph_partition`. Issued before the run, so before any
        :class:`ConvergenceWarning` of the run. Sparse G is not checked.
    ConvergenceWarning
        When ``max_iter`` stopped the sweeps, or fewer than ``k`` distinct clusters were
        found.

    Examples
    --------
    >>> import numpy as np, kgroups_rs
    >>> x = np.array([0.0, 0.1, 0.2, 5.0, 5.1])
    >>> G = 0.5 * (np.abs(x)[:, None] + np.abs(x)[None, :] - np.abs(x[:, None] - x[None, :]))
    >>> kgroups_rs.kernel_kgroups(G, 2, random_state=0).labels.tolist() in ([0, 0, 0, 1, 1], [1, 1, 1, 0, 0])
    True
    """
    run = prepare_kernel(G, check_symmetry, reorder)
    return run_clustering(
        run,
        k,
        init,
        algorithm=algorithm,
        weights=weights,
        n_init=n_init,
        max_iter=max_iter,
        random_state=random_state,
        n_threads=n_threads,
        progress=progress,
    )


def kernel_kmeans(
    G: Any,
    k: int,
    init: Init = "k-means++",
    *,
    algorithm: Algorithm = "lloyd",
    weights: Any = None,
    n_init: int = 1,
    max_iter: int = 300,
    random_state: RandomState = None,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, bool, None] = None,
    check_symmetry: bool = True,
    variant: Optional[str] = None,
    reorder: Reorder = "auto",
) -> ClusteringResult:
    """Kernel k-means: Lloyd's method in feature space on a kernel matrix.

    Point ``i`` goes to the nearest weighted feature-space mean,
    ``argmin_l ||phi(x_i) - mu_l||^2 = argmin_l [Q_l / s_l^2 - 2 m_l(i) / s_l]`` (a tie keeps
    the current cluster). This minimises the same ``W = sum_i w_i ||phi(x_i) - mu_c(i)||^2
    = sum_i w_i G_ii - Q`` as :func:`kernel_kgroups`, but by a different search, which
    usually stops at a worse local optimum.

    Parameters
    ----------
    G, k, init, weights, n_init, max_iter, random_state, n_threads, progress, check_symmetry, reorder
        As in :func:`kernel_kgroups` (batch Lloyd does not depend on the visiting order, so
        ``reorder`` changes its result only by rounding).
    algorithm : {"lloyd", "lloyd-online"}, default "lloyd"
        "lloyd" (batch): all points are reassigned from the same means, then the means are
        updated; ``W`` never increases when G is positive semi-definite. If the reassignment
        would leave a cluster empty, the old member closest to that cluster's old mean stays
        in it. "lloyd-online": the paper's Algorithm 1 (with corrected updates): a point
        moves at once and the sums are updated; a point alone in its cluster never moves.
    variant : {"batch", "online"}, optional
        Deprecated since 0.2.0 (removed in 0.3.0): ``variant="batch"`` is
        ``algorithm="lloyd"``, ``variant="online"`` is ``algorithm="lloyd-online"``.

    Returns
    -------
    ClusteringResult
        As in :func:`kernel_kgroups`; ``n_iter`` counts batch iterations or online sweeps.
    """
    search = algorithm_from_variant(check_algorithm(algorithm, LLOYD_ALGORITHMS), variant, "kernel_kmeans")
    run = prepare_kernel(G, check_symmetry, reorder)
    return run_clustering(
        run,
        k,
        init,
        algorithm=search,
        weights=weights,
        n_init=n_init,
        max_iter=max_iter,
        random_state=random_state,
        n_threads=n_threads,
        progress=progress,
    )
