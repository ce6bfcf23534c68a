"""Type stubs for the native module built from the Rust crate kgroups-python (bindings/python/)."""

from typing import Any, Callable, Literal, Optional, Union, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Clustering",
    "FitOptions",
    "check_kernel",
    "check_csr_kernel",
    "cluster_dense",
    "cluster_csr",
    "cluster_data",
    "cluster_features",
    "cluster_significance",
    "SelectionResult",
    "SigmaSelectionResult",
    "choose_sigma",
    "select_defaults",
    "select_k",
    "select_k_precomputed",
    "knn_affinity",
    "knn_vote",
    "symmetric_eigen",
    "select_landmarks",
    "energy_gram",
    "gram_from_semimetric",
    "bandwidth",
    "linear_assignment",
    "energy_statistics",
    "energy_distance",
    "optimal_cuts_1d",
    "dask_chunk_sums",
    "dask_chunk_round",
    "dask_feature_objective",
    "exact_accept",
    "exact_apply_moves",
    "exact_cluster_sums",
    "exact_cross_sums",
    "exact_diagonal",
    "exact_propose",
    "exact_within_sums",
    "__version__",
]

__version__: str

# Private aliases: stub-only names (stubtest checks that every public name exists at runtime).
_ProgressCallback = Callable[[int, int, int, float], None]
_Algorithm = Literal["hartigan", "lloyd", "lloyd-online"]
_InitMethod = Literal["k-means++", "random", "spectral"]
_Semimetric = Literal["power", "exponential", "gaussian"]
_Base = Literal["mean", "origin", "centered"]
_Landmarks = Literal["k-means++", "uniform"]
_BandwidthRule = Literal["mean", "median", "auto"]
_FloatMatrix = Union[npt.NDArray[np.float64], npt.NDArray[np.float32]]

@final
class FitOptions:
    """The options of one clustering call, converted once; every ``cluster_*`` takes one."""

    def __new__(
        cls,
        *,
        algorithm: _Algorithm = "hartigan",
        init: Union[_InitMethod, npt.NDArray[np.int64], None] = None,
        weights: Optional[npt.NDArray[np.float64]] = None,
        n_init: int = 1,
        max_iter: int = 300,
        seed: int = 0,
        n_threads: Optional[int] = None,
        progress: Optional[_ProgressCallback] = None,
        shift: float = 0.0,
    ) -> FitOptions: ...

@final
class Clustering:
    """The outcome of one clustering call (the best start), as the core returns it."""

    @property
    def labels(self) -> npt.NDArray[np.int64]: ...
    @property
    def objective(self) -> float: ...
    @property
    def within(self) -> float: ...
    @property
    def n_iter(self) -> int: ...
    @property
    def n_moves(self) -> int: ...
    @property
    def converged(self) -> bool: ...
    @property
    def cycle_length(self) -> Optional[int]: ...
    @property
    def objective_history(self) -> npt.NDArray[np.float64]: ...
    @property
    def cluster_terms(self) -> npt.NDArray[np.float64]: ...
    @property
    def best_start(self) -> int: ...
    @property
    def n_distinct_clusters(self) -> int: ...
    @property
    def spectral_bound(self) -> Optional[float]: ...

def cluster_dense(
    g: _FloatMatrix, k: int, options: FitOptions, check_symmetry: bool = True
) -> Clustering: ...
def cluster_csr(
    indptr: npt.NDArray[np.integer[Any]],
    indices: npt.NDArray[np.integer[Any]],
    data: Union[npt.NDArray[np.float64], npt.NDArray[np.float32]],
    n: int,
    k: int,
    options: FitOptions,
    reorder: Literal["auto", "always", "never"] = "auto",
) -> Clustering: ...
def cluster_data(
    x: npt.NDArray[np.float64],
    semimetric: _Semimetric,
    alpha: float,
    sigma: Optional[float],
    base: _Base,
    k: int,
    options: FitOptions,
) -> Clustering: ...
def cluster_features(features: npt.NDArray[np.float64], k: int, options: FitOptions) -> Clustering: ...
def cluster_significance(
    x: npt.NDArray[np.float64],
    k: int,
    n_null: int,
    options: FitOptions,
) -> tuple[
    float,
    float,
    float,
    Clustering,
    npt.NDArray[np.float64],
    float,
    float,
    npt.NDArray[np.float64],
]: ...
def check_kernel(g: npt.NDArray[np.float64], n_threads: Optional[int] = None) -> None: ...
def check_csr_kernel(
    indptr: npt.NDArray[np.integer[Any]],
    indices: npt.NDArray[np.integer[Any]],
    data: Union[npt.NDArray[np.float64], npt.NDArray[np.float32]],
    n: int,
    n_threads: Optional[int] = None,
) -> None: ...
def select_landmarks(
    x: npt.NDArray[np.float64],
    m: int,
    method: _Landmarks,
    semimetric: _Semimetric,
    alpha: float,
    sigma: Optional[float],
    seed: int,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.int64]: ...
def energy_gram(
    x: npt.NDArray[np.float64],
    y: Optional[npt.NDArray[np.float64]],
    semimetric: _Semimetric,
    alpha: float,
    sigma: Optional[float],
    base: _Base,
    single_precision: bool,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.floating[Any]]: ...
def gram_from_semimetric(
    r: npt.NDArray[np.float64],
    base: _Base,
    single_precision: bool,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.floating[Any]]: ...
def bandwidth(
    x: npt.NDArray[np.float64],
    rule: _BandwidthRule = "mean",
    weights: Optional[npt.NDArray[np.float64]] = None,
) -> float: ...
def linear_assignment(
    cost: npt.NDArray[np.float64], maximize: bool = False
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def energy_statistics(
    labels: npt.NDArray[np.int64],
    k: int,
    x: Optional[npt.NDArray[np.float64]],
    r: Optional[npt.NDArray[np.float64]],
    g: Optional[npt.NDArray[np.float64]],
    weights: Optional[npt.NDArray[np.float64]],
    semimetric: _Semimetric,
    alpha: float,
    sigma: Optional[float],
    with_g: bool = True,
    n_threads: Optional[int] = None,
) -> tuple[float, float, float, npt.NDArray[np.float64], Optional[npt.NDArray[np.float64]]]: ...
def energy_distance(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    semimetric: _Semimetric,
    alpha: float,
    sigma: Optional[float],
    n_threads: Optional[int] = None,
) -> float: ...
def optimal_cuts_1d(
    x: npt.NDArray[np.float64],
    weights: Optional[npt.NDArray[np.float64]],
    k: int,
) -> npt.NDArray[np.int64]: ...

# The per-chunk kernels of kgroups_rs.dask.
def dask_chunk_sums(
    features: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    weights: Optional[npt.NDArray[np.float64]],
    k: int,
    n_threads: Optional[int] = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64], float]: ...
def dask_chunk_round(
    features: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    weights: Optional[npt.NDArray[np.float64]],
    sums: npt.NDArray[np.float64],
    cluster_weights: npt.NDArray[np.float64],
    counts: npt.NDArray[np.int64],
    algorithm: Literal["hartigan", "lloyd"],
    n_threads: Optional[int] = None,
) -> tuple[
    npt.NDArray[np.int64],
    int,
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]: ...
def dask_feature_objective(
    sums: npt.NDArray[np.float64], cluster_weights: npt.NDArray[np.float64]
) -> float: ...

# The exact distributed path (kgroups_rs.dask, method="exact").
def exact_cluster_sums(
    x: npt.NDArray[np.float64],
    other: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    k: int,
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    start: Optional[npt.NDArray[np.float64]] = None,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.float64]: ...
def exact_within_sums(
    x: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    k: int,
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.float64]: ...
def exact_cross_sums(
    a: npt.NDArray[np.float64],
    labels_a: npt.NDArray[np.int64],
    weights_a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    labels_b: npt.NDArray[np.int64],
    weights_b: npt.NDArray[np.float64],
    k: int,
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def exact_diagonal(
    x: npt.NDArray[np.float64], semimetric: str, alpha: float, sigma: Optional[float]
) -> npt.NDArray[np.float64]: ...
def exact_propose(
    sums: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    diagonal: npt.NDArray[np.float64],
    counts: npt.NDArray[np.int64],
    cluster_weights: npt.NDArray[np.float64],
    terms: npt.NDArray[np.float64],
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]
]: ...
def exact_accept(
    candidates: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    diagonal: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    sums: npt.NDArray[np.float64],
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    counts: npt.NDArray[np.int64],
    cluster_weights: npt.NDArray[np.float64],
    terms: npt.NDArray[np.float64],
    n_threads: Optional[int] = None,
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]: ...
def exact_apply_moves(
    x: npt.NDArray[np.float64],
    sums: npt.NDArray[np.float64],
    moved: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    from_: npt.NDArray[np.int64],
    to: npt.NDArray[np.int64],
    semimetric: str,
    alpha: float,
    sigma: Optional[float],
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.float64]: ...

# Choosing k and the kernel (kgroups_rs.select_k).
@final
class SelectionResult:
    @property
    def k(self) -> int: ...
    @property
    def labels(self) -> npt.NDArray[np.int64]: ...
    @property
    def kernel(self) -> Optional[str]: ...
    @property
    def rule(self) -> str: ...
    @property
    def table(self) -> dict[str, npt.NDArray[Any]]: ...
    @property
    def energy_structure(self) -> float: ...
    @property
    def self_tuning_structure(self) -> Optional[float]: ...
    @property
    def cut_ratio(self) -> Optional[float]: ...
    @property
    def at_range_end(self) -> bool: ...
    @property
    def n_statistics(self) -> int: ...

def select_defaults() -> dict[str, int]: ...
def select_k(
    x: npt.NDArray[np.float64],
    k_min: int,
    k_max: int,
    kernel: str,
    n_refs: int,
    n_init: int,
    n_pairs: int,
    max_statistics_points: int,
    seed: int,
    n_threads: Optional[int] = None,
    progress: Optional[Callable[[int, int, int, float], None]] = None,
    warm_start: bool = True,
) -> SelectionResult: ...
def select_k_precomputed(
    g: npt.NDArray[np.float64],
    k_min: int,
    k_max: int,
    n_init: int,
    n_pairs: int,
    seed: int,
    n_threads: Optional[int] = None,
    progress: Optional[Callable[[int, int, int, float], None]] = None,
    warm_start: bool = True,
) -> SelectionResult: ...

# Choosing the bandwidth (kgroups_rs.choose_sigma, sigma="auto").
@final
class SigmaSelectionResult:
    @property
    def sigma(self) -> float: ...
    @property
    def k(self) -> int: ...
    @property
    def chosen(self) -> Optional[int]: ...
    @property
    def table(self) -> dict[str, Any]: ...
    @property
    def n_points(self) -> int: ...

def choose_sigma(
    x: npt.NDArray[np.float64],
    k: Optional[int],
    k_max: int,
    semimetric: str,
    max_points: int,
    n_init: int,
    seed: int,
    n_threads: Optional[int] = None,
) -> SigmaSelectionResult: ...
def knn_affinity(
    x: npt.NDArray[np.float64], n_neighbors: int, n_threads: Optional[int] = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
def knn_vote(
    x: npt.NDArray[np.float64],
    labelled: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    k: int,
    n_neighbors: int,
    n_threads: Optional[int] = None,
) -> npt.NDArray[np.int64]: ...
def symmetric_eigen(
    a: npt.NDArray[np.float64], n_threads: Optional[int] = None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
