"""scipy.sparse kernels: detection, structural validation and the one conversion to CSR.

scipy is optional: it is imported only when a sparse matrix is passed.

scipy checks the index arrays of a sparse matrix when it is built, not when they are
modified in place afterwards (``A.indptr[3] = 10**9``); its C++ routines then read and write
out of bounds, and ``has_canonical_format``, ``sum_duplicates`` or a format conversion can
crash the interpreter. :func:`check_sparse_structure` validates those arrays with numpy
(O(nnz), vectorised) before scipy touches them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    # numpy < 1.22 cannot subscript its scalar types at run time (``np.integer[Any]``); the
    # aliases appear only in annotations, which ``from __future__ import annotations`` leaves
    # unevaluated.
    import numpy.typing as npt

    CsrArrays = tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.integer[Any]], npt.NDArray[Any], int]
    _IntArray = npt.NDArray[np.integer[Any]]


def is_sparse(G: Any) -> bool:
    """True for scipy.sparse matrices and arrays, without importing scipy otherwise."""
    if not type(G).__module__.startswith("scipy.sparse"):
        return False
    import scipy.sparse

    return bool(scipy.sparse.issparse(G))


def _vector(array: Any, what: str, name: str) -> npt.NDArray[Any]:
    """``array`` if it is a 1-D numpy array; ValueError naming ``what`` otherwise."""
    if not isinstance(array, np.ndarray) or array.ndim != 1:
        shape = getattr(array, "shape", None)
        raise ValueError(f"{name}: {what} must be a 1-D array, got shape {shape}")
    return array


def _index_array(array: Any, what: str, name: str) -> _IntArray:
    """``array`` if it is a 1-D numpy array of integers; ValueError naming ``what`` otherwise."""
    vector = _vector(array, what, name)
    if vector.dtype.kind not in "iu":
        raise ValueError(f"{name}: {what} must hold integers, got dtype {vector.dtype}")
    return vector


def _check_length(array: npt.NDArray[Any], length: int, what: str, name: str, needed: str) -> None:
    """ValueError unless the 1-D ``array`` has ``length`` entries (``needed`` says why)."""
    if array.shape[0] != length:
        raise ValueError(f"{name}: {what} has length {array.shape[0]} but {needed}")


def _check_pointer(indptr: Any, n_major: int, major: str, nnz: int, name: str) -> None:
    """``indptr`` of a compressed matrix: ``n_major + 1`` entries, non-decreasing, from 0 to
    ``nnz``."""
    indptr = _index_array(indptr, "indptr", name)
    _check_length(indptr, n_major + 1, "indptr", name, f"{n_major} {major} need {n_major + 1}")
    rule = (
        f"{name}: indptr must be non-decreasing, start at 0 and end at nnz = {nnz} (the "
        "number of stored entries)"
    )
    if indptr[0] != 0:
        raise ValueError(f"{rule}, but it starts at {indptr[0]}")
    drops = np.flatnonzero(indptr[1:] < indptr[:-1])
    if drops.size:
        i = int(drops[0])
        raise ValueError(
            f"{rule}, but it decreases from indptr[{i}] = {indptr[i]} to "
            f"indptr[{i + 1}] = {indptr[i + 1]}"
        )
    if indptr[-1] != nnz:
        raise ValueError(f"{rule}, but it ends at {indptr[-1]}")


def _check_indices(indices: _IntArray, bound: int, what: str, name: str) -> None:
    """Every entry of the integer array ``indices`` in ``0 .. bound - 1``."""
    if indices.size == 0:
        return
    if indices.min() >= 0 and indices.max() < bound:
        return
    position = int(np.flatnonzero((indices < 0) | (indices >= bound))[0])
    raise ValueError(
        f"{name}: {what} {indices[position]} at position {position} is outside "
        f"0..{bound - 1}"
    )


def _check_compressed(G: Any, name: str) -> None:
    """CSR or CSC: ``indptr`` over rows (columns), ``indices`` the columns (rows)."""
    n_rows, n_cols = (int(d) for d in G.shape)
    if G.format == "csr":
        n_major, major, n_minor, minor = n_rows, "rows", n_cols, "column index"
    else:
        n_major, major, n_minor, minor = n_cols, "columns", n_rows, "row index"
    nnz = int(_vector(G.data, "data", name).shape[0])
    indices = _index_array(G.indices, "indices", name)
    _check_length(indices, nnz, "indices", name, f"data has length {nnz}")
    _check_pointer(G.indptr, n_major, major, nnz, name)
    _check_indices(indices, n_minor, minor, name)


def _check_bsr(G: Any, name: str) -> None:
    """BSR: ``data`` is ``(nnz_blocks, R, C)``; ``indptr``/``indices`` over blocks."""
    n_rows, n_cols = (int(d) for d in G.shape)
    data = G.data
    if not isinstance(data, np.ndarray) or data.ndim != 3:
        raise ValueError(
            f"{name}: a BSR matrix's data must be a 3-D (blocks, R, C) array, got shape "
            f"{getattr(data, 'shape', None)}"
        )
    n_blocks, r, c = (int(d) for d in data.shape)
    if r < 1 or c < 1 or n_rows % r or n_cols % c:
        raise ValueError(
            f"{name}: blocks of {r} x {c} (the shape of data[0]) do not tile the "
            f"{n_rows} x {n_cols} matrix"
        )
    indices = _index_array(G.indices, "indices", name)
    _check_length(indices, n_blocks, "indices", name, f"data holds {n_blocks} blocks")
    _check_pointer(G.indptr, n_rows // r, "block rows", n_blocks, name)
    _check_indices(indices, n_cols // c, "block column index", name)


def _check_coo(G: Any, name: str) -> None:
    """COO: one row and one column index per stored value, each within the shape."""
    coords = getattr(G, "coords", None)
    if coords is None:  # scipy < 1.13
        coords = (G.row, G.col)
    nnz = int(_vector(G.data, "data", name).shape[0])
    if len(coords) != len(G.shape):
        raise ValueError(f"{name}: has {len(coords)} coordinate arrays for {len(G.shape)} axes")
    for axis, (index, size) in enumerate(zip(coords, G.shape)):
        what = ("row index", "column index")[axis] if len(G.shape) == 2 else f"axis {axis} index"
        array = _index_array(index, f"the {what} array", name)
        _check_length(array, nnz, f"the {what} array", name, f"data has length {nnz}")
        _check_indices(array, int(size), what, name)


def _check_dia(G: Any, name: str) -> None:
    """DIA: one offset per stored diagonal (a row of ``data``)."""
    data = G.data
    if not isinstance(data, np.ndarray) or data.ndim != 2:
        raise ValueError(
            f"{name}: a DIA matrix's data must be a 2-D (diagonals, length) array, got shape "
            f"{getattr(data, 'shape', None)}"
        )
    offsets = _index_array(G.offsets, "offsets", name)
    _check_length(offsets, int(data.shape[0]), "offsets", name,
                  f"data holds {data.shape[0]} diagonals")


def _check_lil(G: Any, name: str) -> None:
    """LIL: per row, a list of column indices and a list of as many values."""
    n_rows, n_cols = (int(d) for d in G.shape)
    rows, data = G.rows, G.data
    for what, lists in (("rows", rows), ("data", data)):
        if not isinstance(lists, np.ndarray) or lists.shape != (n_rows,):
            raise ValueError(
                f"{name}: a LIL matrix's {what} must be an array of {n_rows} lists, got shape "
                f"{getattr(lists, 'shape', None)}"
            )
    try:
        counts = np.fromiter(map(len, rows), dtype=np.int64, count=n_rows)
        values = np.fromiter(map(len, data), dtype=np.int64, count=n_rows)
    except TypeError:
        raise ValueError(f"{name}: a LIL matrix's rows and data must hold lists") from None
    unequal = np.flatnonzero(counts != values)
    if unequal.size:
        i = int(unequal[0])
        raise ValueError(
            f"{name}: row {i} of the LIL matrix has {counts[i]} column indices but "
            f"{values[i]} values"
        )
    try:
        columns = np.fromiter(
            itertools.chain.from_iterable(rows), dtype=np.int64, count=int(counts.sum())
        )
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name}: a LIL matrix's column indices must be integers") from None
    _check_indices(columns, n_cols, "column index", name)


_STRUCTURE_CHECKS: dict[str, Callable[[Any, str], None]] = {
    "csr": _check_compressed,
    "csc": _check_compressed,
    "bsr": _check_bsr,
    "coo": _check_coo,
    "dia": _check_dia,
    "lil": _check_lil,
}


def check_sparse_structure(G: Any, name: str = "G") -> None:
    """Validate the index arrays of a scipy.sparse matrix before scipy reads them.

    scipy validates its index arrays when a matrix is built, not after they are modified in
    place; a tampered matrix can crash scipy's C++ routines (a segfault). This checks, with
    numpy in O(nnz):

    - CSR/CSC: ``indptr`` has ``n_rows + 1`` (CSC: ``n_cols + 1``) integer entries, starts at
      0, never decreases and ends at nnz; ``indices`` and ``data`` have nnz entries; every
      column (CSC: row) index is in ``0 .. n - 1``.
    - BSR: the same over blocks, and blocks that tile the matrix.
    - COO: one row and one column index per value, each within the shape.
    - DIA: one offset per stored diagonal.
    - LIL: as many values as column indices in each row, the indices within the shape.

    DOK needs nothing: scipy checks its keys when converting. Sortedness and duplicates are
    not checked here (scipy sorts and sums them; the Rust core checks the result).

    Parameters
    ----------
    G : scipy.sparse matrix or array
        The matrix.
    name : str, default "G"
        The argument's name, for the messages.

    Raises
    ------
    ValueError
        Naming ``name`` and the defect, e.g. "G: indptr must be non-decreasing, start at 0
        and end at nnz = 276 (...), but it decreases from indptr[3] = 1000000 to indptr[4]
        = 41" or "G: column index 1000000000 at position 5 is outside 0..19".
    """
    check = _STRUCTURE_CHECKS.get(str(G.format))
    if check is not None:
        check(G, name)


def as_csr_arrays(G: Any) -> CsrArrays:
    """The CSR arrays ``(indptr, indices, data, n)`` of a square sparse kernel.

    A CSR matrix with int32/int64 indices, float32/float64 data, sorted indices and no
    duplicate entries is borrowed as it is. Anything else is converted once: other formats
    to CSR, duplicate entries summed, indices sorted, other real dtypes to float64. The index
    arrays are validated first (:func:`check_sparse_structure`), so a matrix whose arrays were
    modified in place raises ``ValueError`` instead of crashing scipy.
    """
    import scipy.sparse

    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square (n, n) sparse matrix, got shape {G.shape}")
    n = int(G.shape[0])
    if n == 0:
        raise ValueError("G is empty (n = 0); at least one point is needed")
    if G.dtype.kind not in "biuf":
        raise TypeError(f"G must hold real numbers, got dtype {G.dtype}")
    check_sparse_structure(G, "G")
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
