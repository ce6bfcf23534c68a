"""Type stubs for the native module built from the Rust crate (src/python.rs)."""

from typing import Any, Callable, Optional, Union

import numpy as np
import numpy.typing as npt

__all__ = [
    "check_kernel",
    "cluster_dense",
    "cluster_csr",
    "cluster_data",
    "cluster_features",
    "select_landmarks",
    "energy_gram",
    "gram_from_semimetric",
    "bandwidth",
    "energy_statistics",
    "energy_distance",
    "optimal_cuts_1d",
    "_panic_for_tests",
    "_sleep_for_tests",
    "__version__",
]

__version__: str

# Private aliases: stub-only names (stubtest checks that every public name exists at runtime).
_ProgressCallback = Callable[[int, int, int, float], None]
# labels, objective, within, n_iter, n_moves, converged, objective_history, cluster_terms,
# n_distinct_clusters
_ClusterTuple = tuple[
    npt.NDArray[np.int64],
    float,
    float,
    int,
    int,
    bool,
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    int,
]

def cluster_dense(
    g: Union[npt.NDArray[np.float64], npt.NDArray[np.float32]],
    k: int,
    algorithm: str,
    init: str,
    init_labels: Optional[npt.NDArray[np.int64]],
    weights: Optional[npt.NDArray[np.float64]],
    n_init: int,
    max_iter: int,
    seed: int,
    n_threads: Optional[int] = None,
    progress: Optional[_ProgressCallback] = None,
    check_symmetry: bool = True,
) -> _ClusterTuple: ...
def _panic_for_tests() -> None: ...
def _sleep_for_tests(seconds: float) -> None: ...
def cluster_csr(
    indptr: npt.NDArray[np.integer[Any]],
    indices: npt.NDArray[np.integer[Any]],
    data: Union[npt.NDArray[np.float64], npt.NDArray[np.float32]],
    n: int,
    k: int,
    algorithm: str,
    init: str,
    init_labels: Optional[npt.NDArray[np.int64]],
    weights: Optional[npt.NDArray[np.float64]],
    n_init: int,
    max_iter: int,
    seed: int,
    n_threads: Optional[int] = None,
    progress: Optional[_ProgressCallback] = None,
) -> _ClusterTuple: ...
def energy_gram(
    x: npt.NDArray[np.float64],
    y: Optional[npt.NDArray[np.float64]],
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    base: str,
    single_precision: bool,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.floating[Any]]: ...
def gram_from_semimetric(
    r: npt.NDArray[np.float64],
    base: str,
    single_precision: bool,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.floating[Any]]: ...
def bandwidth(x: npt.NDArray[np.float64]) -> float: ...
def check_kernel(g: npt.NDArray[np.float64], n_threads: Optional[int] = None) -> None: ...
def energy_statistics(
    labels: npt.NDArray[np.int64],
    k: int,
    x: Optional[npt.NDArray[np.float64]],
    r: Optional[npt.NDArray[np.float64]],
    g: Optional[npt.NDArray[np.float64]],
    weights: Optional[npt.NDArray[np.float64]],
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    with_g: bool = True,
    n_threads: Optional[int] = None,
) -> tuple[float, float, float, npt.NDArray[np.float64], Optional[npt.NDArray[np.float64]]]: ...
def energy_distance(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    n_threads: Optional[int] = None,
) -> float: ...
def cluster_data(
    x: npt.NDArray[np.float64],
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    base: str,
    k: int,
    algorithm: str,
    init: str,
    init_labels: Optional[npt.NDArray[np.int64]],
    weights: Optional[npt.NDArray[np.float64]],
    n_init: int,
    max_iter: int,
    seed: int,
    n_threads: Optional[int] = None,
    progress: Optional[_ProgressCallback] = None,
) -> _ClusterTuple: ...
def cluster_features(
    features: npt.NDArray[np.float64],
    k: int,
    algorithm: str,
    init: str,
    init_labels: Optional[npt.NDArray[np.int64]],
    weights: Optional[npt.NDArray[np.float64]],
    n_init: int,
    max_iter: int,
    seed: int,
    n_threads: Optional[int] = None,
    progress: Optional[_ProgressCallback] = None,
) -> _ClusterTuple: ...
def select_landmarks(
    x: npt.NDArray[np.float64],
    m: int,
    method: str,
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    seed: int,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.int64]: ...
def optimal_cuts_1d(
    x: npt.NDArray[np.float64],
    weights: Optional[npt.NDArray[np.float64]],
    k: int,
) -> npt.NDArray[np.int64]: ...
