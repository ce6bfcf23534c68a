"""Checks of the dask arrays a caller passes, and the blocks the rounds run on."""

from __future__ import annotations

import math
from typing import Any, Optional

import dask.array as da
import numpy as np
from dask.delayed import Delayed

from ._features import FloatArray


def as_row_chunked(X: Any, name: str = "X") -> Any:
    """X as a 2-D float dask array chunked along rows only, with known chunk sizes."""
    if not isinstance(X, da.Array):
        array = np.asarray(X)
        if array.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
        chunks = {0: "auto", 1: -1} if array.ndim == 2 else "auto"
        X = da.from_array(array.astype(np.float64, copy=False), chunks=chunks)
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}")
    if any(isinstance(c, float) and math.isnan(c) for dim in X.chunks for c in dim):
        raise ValueError(
            f"{name} has unknown chunk sizes (e.g. after boolean indexing); call "
            f"{name}.compute_chunk_sizes() first"
        )
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n, D) or 1-D, got {X.ndim} dimensions")
    if len(X.chunks[1]) > 1:
        raise ValueError(
            f"{name} is split into {len(X.chunks[1])} chunks along its columns; every chunk must "
            f"hold whole rows: use {name}.rechunk({{1: -1}})"
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} has no points (shape {X.shape})")
    return X.astype(np.float64) if X.dtype != np.float64 else X


def as_row_vector(values: Any, X: Any, name: str, dtype: Any) -> Any:
    """``values`` (n,) as a dask array chunked like X's rows."""
    vector = values if isinstance(values, da.Array) else da.from_array(np.asarray(values))
    if vector.ndim != 1 or vector.shape[0] != X.shape[0]:
        raise ValueError(f"{name} must have shape ({X.shape[0]},), got {vector.shape}")
    if any(isinstance(c, float) and math.isnan(c) for c in vector.chunks[0]):
        raise ValueError(f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first")
    if vector.dtype.kind not in ("iu" if dtype == np.int64 else "iuf"):
        raise TypeError(f"{name} must be of {np.dtype(dtype).name}-compatible dtype, got {vector.dtype}")
    return vector.astype(dtype).rechunk((X.chunks[0],))


def row_blocks(array: Any) -> list[Delayed]:
    return list(array.to_delayed().ravel())


def raise_first_bad(bad_blocks: list[FloatArray], offsets: list[int]) -> None:
    for found, offset in zip(bad_blocks, offsets):
        if found.shape[0]:
            row, col, value = found[0]
            raise ValueError(
                f"invalid `X`: X contains NaN or infinity at row {offset + int(row)}, column "
                f"{int(col)} (value {value}); all values must be finite"
            )


def worker_memory() -> Optional[float]:
    """Total memory limit of the active distributed cluster's workers, if there is one."""
    try:
        from distributed import get_client

        info = get_client().scheduler_info()
    except (ImportError, ValueError):
        return None
    limits = [w.get("memory_limit") or 0 for w in info.get("workers", {}).values()]
    return float(sum(limits)) or None

