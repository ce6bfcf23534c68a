""":class:`~kgroups_rs.KernelKGroups` as ``kgroups-rs cluster`` runs it.

Imported only by that command: it needs scikit-learn, like the estimator.
"""

from __future__ import annotations

import time
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from .._progress import ProgressCallback
from .._result import ClusteringResult
from ..estimator import KernelKGroups

#: The share of the machine's memory that a dense kernel may take.
MEMORY_SHARE = 0.8


class CommandLineKGroups(KernelKGroups):
    """:class:`KernelKGroups` plus what the command shows: a progress line per sweep, the
    precision of a dense kernel (``--dtype``), the kernel and clustering times and the whole
    :class:`~kgroups_rs.ClusteringResult` (its moves).

    The parameters are :class:`KernelKGroups`'; :meth:`configure` sets the rest.
    """

    progress: Optional[ProgressCallback] = None
    memory_bytes: Optional[int] = None
    result: Optional[ClusteringResult] = None
    kernel_seconds: float = 0.0
    cluster_seconds: float = 0.0
    _fit_started: float = 0.0

    def configure(
        self, *, dtype: str, progress: Optional[ProgressCallback], memory_bytes: Optional[int]
    ) -> CommandLineKGroups:
        """Set the dense kernel's precision, the progress callback and the machine's memory
        (with ``kernel_storage="auto"`` the dense kernel must also fit in 80% of it)."""
        self._kernel_dtype = np.dtype(dtype)
        self.progress = progress
        self.memory_bytes = memory_bytes
        return self

    def dense_kernel_bytes(self, n: int) -> int:
        """The size of the dense n x n training kernel in the configured precision."""
        return self._kernel_dtype.itemsize * n * n

    def fits_in_memory(self, n: int) -> bool:
        """Whether the dense kernel of ``n`` points fits in the memory share (or is unknown)."""
        memory = self.memory_bytes
        return memory is None or self.dense_kernel_bytes(n) <= MEMORY_SHARE * memory

    def fit(
        self, X: Any, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None
    ) -> CommandLineKGroups:
        self._fit_started = time.perf_counter()
        return super().fit(X, y, sample_weight)

    def _storage(self, n_fit: int) -> str:
        storage = super()._storage(n_fit)
        if storage == "dense" and self.kernel_storage == "auto" and not self.fits_in_memory(n_fit):
            return "matrix-free"
        return storage

    def _core_options(self, seed: Any) -> dict[str, Any]:
        return {**super()._core_options(seed), "progress": self.progress}

    def _cluster(
        self, data: Any, k: int, init: Any, weights: Any, seed: Any, matrix_free: bool
    ) -> ClusteringResult:
        started = time.perf_counter()
        self.result = super()._cluster(data, k, init, weights, seed, matrix_free)
        self.kernel_seconds = started - self._fit_started
        self.cluster_seconds = time.perf_counter() - started
        return self.result
