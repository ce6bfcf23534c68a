"""Graph partitioning as weighted kernel k-groups (paper §3.1)."""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._algorithm import Algorithm, check_algorithm
from ._progress import ProgressCallback
from ._result import ClusteringResult
from ._run import Reorder, prepare_kernel, run_clustering
from ._sparse_input import as_csr_arrays, check_sparse_structure, is_sparse
from ._validation import Init, RandomState, as_float_array

__all__ = ["graph_kernel", "graph_partition"]

#: The graph objectives: ratio association, normalised cut.
Objective = Literal["ratio_association", "normalized_cut"]
_OBJECTIVES = ("ratio_association", "normalized_cut")


#: Rows of a sparse adjacency scaled per chunk (bounds the temporary memory of the
#: normalised-cut kernel to about this many stored entries).
_CHUNK_NNZ = 1 << 20

#: Adjacencies whose largest entry is beyond 2**±this are rescaled for the normalised cut.
_SAFE_EXPONENT = 256


def _canonical_csr(A: Any) -> Any:
    """``A`` as a CSR matrix with sorted indices and no duplicates (borrowed when it is one)."""
    import scipy.sparse

    csr = A if A.format == "csr" else scipy.sparse.csr_array(A)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    return csr


def _scaled_csr(csr: Any, inverse: npt.NDArray[np.float64]) -> Any:
    """``D^-1 A D^-1`` for a canonical CSR ``A``: a new data array, sharing ``A``'s indices.

    Entry ``(i, j)`` is ``a_ij * (inverse_i * inverse_j)``: the product of the two scales
    is formed first, so a bitwise-symmetric ``A`` gives a bitwise-symmetric result.
    """
    import scipy.sparse

    indptr, indices, values = csr.indptr, csr.indices, csr.data
    counts = np.diff(indptr)
    data = np.empty(values.shape[0], dtype=np.float64)
    n = counts.shape[0]
    row = 0
    while row < n:
        # Whole rows, about _CHUNK_NNZ entries at a time (at least one row).
        stop = int(np.searchsorted(indptr, indptr[row] + _CHUNK_NNZ, side="right")) - 1
        stop = min(max(stop, row + 1), n)
        lo, hi = int(indptr[row]), int(indptr[stop])
        scale = np.repeat(inverse[row:stop], counts[row:stop])
        scale *= inverse[indices[lo:hi]]
        np.multiply(values[lo:hi], scale, out=data[lo:hi])
        row = stop
    G = scipy.sparse.csr_array((data, indices, indptr), shape=csr.shape, copy=False)
    G.has_canonical_format = True
    return G


def _check_symmetric(G: Any) -> None:
    """Refuse an asymmetric kernel by the core's symmetry rule, before a diagonal shift is
    added: the rule judges each pair against its diagonal entries, so a large shift would
    hide any asymmetry of ``A``."""
    if is_sparse(G):
        indptr, indices, data, n = as_csr_arrays(G)
        _core.check_csr_kernel(indptr, indices, data, n)
    else:
        _core.check_kernel(np.ascontiguousarray(G, dtype=np.float64))


def graph_kernel(
    A: Any, objective: Objective = "ratio_association", *, shift: float = 0.0
) -> tuple[Any, Optional[npt.NDArray[np.float64]]]:
    """The kernel matrix and node weights that turn a graph objective into kernel k-groups.

    - ``"ratio_association"``: ``G = A + shift * I`` with unit weights; maximising
      ``Q = sum_j A(C_j, C_j) / |C_j|`` is ratio association.
    - ``"normalized_cut"``: ``G = D^-1 A D^-1 + shift * D^-1`` with node weights
      ``w = d`` (degrees); then ``Q = sum_j A(C_j, C_j) / d(C_j)`` is the normalised
      association, and maximising it minimises the normalised cut ``k - Q``. An ``A`` whose
      largest entry lies outside ``[2**-256, 2**256]`` is first divided by a power of two
      that brings it into ``[1, 2)`` (exact; the normalised cut does not depend on the
      scale of ``A``), so adjacencies of any magnitude give a usable kernel; ``w`` are then
      the degrees of the scaled ``A``.

    A sparse ``A`` has its index arrays validated (``ValueError`` for arrays modified in
    place into an invalid structure, see :func:`kgroups_rs._sparse_input.check_sparse_structure`)
    and is converted once to canonical CSR (duplicates summed); with
    ``shift = 0`` ratio association returns it as it is, and normalised cut returns a CSR
    matrix that shares its index arrays (one new data array; entries are
    ``a_ij * (1/(d_i d_j))``, so a bitwise-symmetric ``A`` gives a bitwise-symmetric ``G``).

    With ``shift != 0`` the unshifted kernel is first checked to be symmetric (the check
    of a clustering judges each pair against its diagonal entries, which a large shift
    inflates), and a shift whose ``shift / d_i`` overflows float64 is refused.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix, shape (n, n)
        Symmetric adjacency matrix with non-negative finite weights.
    objective : {"ratio_association", "normalized_cut"}, default "ratio_association"
        The graph objective.
    shift : float, default 0
        The diagonal shift ``shift * W^-1`` (``W`` the node weights) added to the kernel.

    Returns
    -------
    G : ndarray or scipy.sparse.csr_array, shape (n, n)
        The kernel matrix (sparse when ``A`` is).
    weights : ndarray of shape (n,) or None
        The node weights: the degrees for the normalised cut, None (all 1) for ratio
        association.
    """
    if objective not in _OBJECTIVES:
        raise ValueError(f"objective must be one of {_OBJECTIVES}, got {objective!r}")
    shift = float(shift)
    if not np.isfinite(shift):
        raise ValueError(f"shift must be finite, got {shift}")
    sparse = is_sparse(A)
    if not sparse:
        A = as_float_array(A, "A")
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be a square (n, n) adjacency matrix, got shape {A.shape}")
    else:
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be a square (n, n) adjacency matrix, got shape {A.shape}")
        if A.dtype.kind not in "biuf":
            raise TypeError(f"A must hold real numbers, got dtype {A.dtype}")
        check_sparse_structure(A, "A")
        A = _canonical_csr(A)
    values = A.data if sparse else A
    if values.size and not np.all(np.isfinite(values)):
        raise ValueError("A contains NaN or infinity; adjacency weights must be finite")
    if values.size and np.min(values) < 0:
        raise ValueError("A has negative entries; adjacency weights must be >= 0")
    n = A.shape[0]
    if objective == "ratio_association":
        if shift == 0.0:
            return A, None
        _check_symmetric(A)
        if sparse:
            import scipy.sparse

            return scipy.sparse.csr_array(A + shift * scipy.sparse.identity(n, format="csr")), None
        return A + shift * np.eye(n), None
    # The normalised cut does not change when A is scaled, while D^-1 A D^-1 under- or
    # overflows for extreme scales (adjacency ~1e300): such an A is first divided by a power
    # of two that brings its largest entry into [1, 2) (exact).
    exponent = int(np.frexp(np.max(values))[1]) - 1 if values.size else 0
    if abs(exponent) > _SAFE_EXPONENT:
        if sparse:
            A = A.copy()
            A.data = np.ldexp(A.data, -exponent)
        else:
            A = np.ldexp(A, -exponent)
    degrees = np.asarray(A.sum(axis=1), dtype=np.float64).ravel()
    isolated = np.flatnonzero(degrees <= 0)
    if isolated.size:
        raise ValueError(
            f"normalized_cut needs every node to have a positive degree; {isolated.size} node(s) "
            f"are isolated (first: node {int(isolated[0])}); remove them or use ratio_association"
        )
    inverse = 1.0 / degrees
    if sparse:
        G = _scaled_csr(A, inverse)
        if shift != 0.0:
            import scipy.sparse

            _check_symmetric(G)
            with np.errstate(over="ignore"):  # refused just below
                G = scipy.sparse.csr_array(G + scipy.sparse.diags(shift * inverse, format="csr"))
            _check_shifted_diagonal(G.diagonal(), shift, degrees)
    else:
        G = np.outer(inverse, inverse)
        G *= A
        if shift != 0.0:
            _check_symmetric(G)
            with np.errstate(over="ignore"):  # refused just below
                G[np.diag_indices(n)] += shift * inverse
            _check_shifted_diagonal(np.diagonal(G), shift, degrees)
    return G, degrees


def _check_shifted_diagonal(diagonal: Any, shift: float, degrees: npt.NDArray[np.float64]) -> None:
    """Refuse a normalised-cut kernel whose diagonal ``G_ii + shift / d_i`` overflows."""
    if not np.all(np.isfinite(diagonal)):
        raise ValueError(
            f"shift = {shift:g} makes the diagonal shift * D^-1 overflow float64 (the smallest "
            f"degree is {float(np.min(degrees)):g}); use a smaller shift"
        )


def graph_partition(
    A: Any,
    k: int,
    init: Init = "random",
    *,
    objective: Objective = "ratio_association",
    algorithm: Algorithm = "hartigan",
    shift: float = 0.0,
    n_init: int = 1,
    max_iter: int = 300,
    random_state: RandomState = None,
    n_threads: Optional[int] = None,
    progress: Union[ProgressCallback, bool, None] = None,
    reorder: Reorder = "auto",
) -> ClusteringResult:
    """Partition a graph by weighted kernel k-groups (paper §3.1).

    ``A`` is a symmetric non-negative adjacency matrix (dense, or scipy.sparse for large
    graphs: the sparse path costs O(k * nnz) per sweep and never forms a dense matrix). The
    graph objective becomes kernel k-groups through :func:`graph_kernel`:
    ratio association (``G = A``, unit weights) or normalised cut (``G = D^-1 A D^-1``,
    node weights = degrees ``d``).

    The diagonal shift ``shift * W^-1`` (``W`` the node weights) that makes ``G`` positive
    semi-definite for large enough ``shift`` adds exactly ``k * shift`` to the objective of
    every partition, ``(n - k) * shift`` to ``W`` and ``shift * s_j`` to each cluster term,
    so Hartigan's method (which compares objectives) gives the same partition with or
    without it. Lloyd's method compares distances to means, which the shift changes (point
    ``i`` is ``shift / s_l`` farther from every other cluster's mean and ``shift / s_j``
    nearer its own cluster ``j``'s), so its result depends on the shift. Either way the
    shift enters the formulas and is never added to the kernel's entries, so a shift far
    larger or smaller than the adjacency's weights is not lost to rounding; k-means++ draws
    its seeds on the unshifted kernel.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix, shape (n, n)
        Symmetric adjacency matrix with non-negative finite weights.
    k : int
        Number of parts.
    init : {"random", "k-means++", "spectral"} or array of labels, default "random"
        Random labels are the default: on an adjacency matrix (zero diagonal) feature-space
        k-means++ degenerates (``d2(i, c) = -2 A_ic``) and seeds badly; from random labels
        Hartigan recovers planted partitions. "spectral" starts from the spectral embedding
        of ``W^1/2 G W^1/2`` (for normalised cut, ``D^-1/2 A D^-1/2``: Ng, Jordan and
        Weiss), the usual choice for non-convex shapes such as rings.
    objective : {"ratio_association", "normalized_cut"}, default "ratio_association"
        The graph objective to maximise.
    algorithm : {"hartigan", "lloyd", "lloyd-online"}
        Kernel k-groups (default), or batch or online kernel k-means.
    shift : float, default 0
        Diagonal shift ``shift * W^-1`` of the kernel (finite; applied in the formulas,
        see above).
    n_init, max_iter, random_state, n_threads, progress
        As in :func:`kernel_kgroups`.
    reorder : {"auto", True, False}, default "auto"
        For a sparse ``A``: renumber the nodes in breadth-first order before the local search
        and map the labels back ("auto": from 200 000 nodes, when the graph has locality),
        as in :func:`kernel_kgroups`.
        The start is the same as without renumbering; the result is the same up to the
        order in which the sweeps visit the nodes (another local optimum can be found).

    Returns
    -------
    ClusteringResult
        ``objective`` is the (shifted) graph objective: ratio or normalised association.
    """
    G, weights = graph_kernel(A, objective)
    return run_clustering(
        prepare_kernel(G, reorder=reorder, check_distance=False),
        k,
        init,
        algorithm=check_algorithm(algorithm),
        weights=weights,
        n_init=n_init,
        max_iter=max_iter,
        random_state=random_state,
        n_threads=n_threads,
        progress=progress,
        shift=shift,
    )
