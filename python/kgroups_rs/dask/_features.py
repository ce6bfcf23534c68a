"""The Nyström feature map and the work each dask task does on one chunk of rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional

import numpy as np
import numpy.typing as npt

from .. import _core
from .._kernel_options import Semimetric
from ..gram import energy_gram

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The searches of the distributed path.
DaskAlgorithm = Literal["hartigan", "lloyd"]


@dataclass(frozen=True)
class NystromMap:
    """The Nyström feature map ``phi(x) = K(x - mean, L) W^(-1/2)`` (all arrays small)."""

    mean: FloatArray
    anchors: FloatArray
    transform: FloatArray
    semimetric: Semimetric
    alpha: float
    sigma: Optional[float]

    def features(self, block: Any, n_threads: Optional[int] = 1) -> FloatArray:
        """The features of the rows of ``block`` (run inside a dask task)."""
        points = np.asarray(block, dtype=np.float64)
        if points.shape[0] == 0:
            return np.zeros((0, self.transform.shape[1]))
        centred = np.ascontiguousarray(points - self.mean)
        kernel = energy_gram(
            centred, self.anchors, semimetric=self.semimetric, alpha=self.alpha, sigma=self.sigma,
            base="origin", n_threads=n_threads,
        )
        return np.ascontiguousarray(kernel @ self.transform)


def nearest(phi: FloatArray, centres: FloatArray) -> IntArray:
    """``argmin_l ||phi_i - c_l||^2`` (ties to the lowest index) for each row of ``phi``."""
    if phi.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    cost = np.einsum("ij,ij->i", centres, centres)[None, :] - 2.0 * (phi @ centres.T)
    return np.asarray(np.argmin(cost, axis=1), dtype=np.int64)


def predict_block(
    block: Any, feature_map: NystromMap, centres: FloatArray, n_threads: Optional[int]
) -> IntArray:
    return nearest(feature_map.features(block, n_threads), centres)


def features_block(block: Any, feature_map: NystromMap, n_threads: Optional[int]) -> FloatArray:
    return feature_map.features(block, n_threads)


def first_bad(block: Any) -> FloatArray:
    """``[[row, column, value]]`` of the first NaN/inf of a block (row local), or 0 x 3."""
    values = np.asarray(block, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size == 0:
        return np.zeros((0, 3))
    row, col = divmod(int(bad[0]), values.shape[1])
    return np.array([[row, col, values[row, col]]])


def aligned(array: Any, dtype: Any) -> Any:
    """``array`` C-contiguous and aligned (arrays unpickled by dask may be unaligned views of
    a message buffer, which the core cannot borrow); copied only when needed."""
    return None if array is None else np.require(array, dtype, ["C", "A"])


def chunk_sums(
    phi: FloatArray, labels: IntArray, weights: Optional[FloatArray], k: int, n_threads: Optional[int]
) -> tuple[FloatArray, FloatArray, IntArray, float]:
    return _core.dask_chunk_sums(
        aligned(phi, np.float64), aligned(labels, np.int64), aligned(weights, np.float64), k,
        n_threads=n_threads,
    )


def chunk_round(
    phi: FloatArray,
    labels: IntArray,
    weights: Optional[FloatArray],
    state: tuple[FloatArray, FloatArray, IntArray],
    algorithm: DaskAlgorithm,
    n_threads: Optional[int],
) -> tuple[IntArray, tuple[int, FloatArray, FloatArray, FloatArray, IntArray, IntArray]]:
    """One round on a chunk: ``(new_labels, summary)``; only the summary goes to the client."""
    sums, cluster_weights, counts = state
    new_labels, moves, local, weights_before, weights_after, before, after = _core.dask_chunk_round(
        aligned(phi, np.float64), aligned(labels, np.int64), aligned(weights, np.float64),
        aligned(sums, np.float64), aligned(cluster_weights, np.float64), aligned(counts, np.int64),
        algorithm, n_threads=n_threads,
    )
    return new_labels, (moves, local, weights_before, weights_after, before, after)

