"""scipy.sparse kernels: detection and the one conversion to canonical CSR.

scipy is optional: it is imported only when a sparse matrix is passed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

CsrArrays = tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.integer[Any]], npt.NDArray[Any], int]


def is_sparse(G: Any) -> bool:
    """True for scipy.sparse matrices and arrays, without importing scipy otherwise."""
    if not type(G).__module__.startswith("scipy.sparse"):
        return False
    import scipy.sparse

    return bool(scipy.sparse.issparse(G))


def as_csr_arrays(G: Any) -> CsrArrays:
    """The CSR arrays ``(indptr, indices, data, n)`` of a square sparse kernel.

    A CSR matrix with int32/int64 indices, float32/float64 data, sorted indices and no
    duplicate entries is borrowed as it is. Anything else is converted once: other formats
    to CSR, duplicate entries summed, indices sorted, other real dtypes to float64.
    """
    import scipy.sparse

    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square (n, n) sparse matrix, got shape {G.shape}")
    n = int(G.shape[0])
    if n == 0:
        raise ValueError("G is empty (n = 0); at least one point is needed")
    if G.dtype.kind not in "biuf":
        raise TypeError(f"G must hold real numbers, got dtype {G.dtype}")
    csr = G if G.format == "csr" else scipy.sparse.csr_array(G)
    if csr.dtype not in (np.float64, np.float32):
        csr = csr.astype(np.float64)
    # has_canonical_format: sorted indices and no duplicates (scipy checks and caches it).
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    indptr, indices = csr.indptr, csr.indices
    if indptr.dtype not in (np.int32, np.int64) or indices.dtype != indptr.dtype:
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
    return (
        np.ascontiguousarray(indptr),
        np.ascontiguousarray(indices),
        np.ascontiguousarray(csr.data),
        n,
    )
