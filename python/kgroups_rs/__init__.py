"""kgroups_rs: kernel k-groups (energy-statistics clustering) with a Rust core.

- Clustering: :func:`kernel_kgroups` (Hartigan's method, the paper's kernel k-groups),
  :func:`kernel_kmeans` (Lloyd's method), :func:`kgroups_1d` (exact 1-D solver),
  :func:`graph_partition` (graphs), :func:`kernel_kgroups_from_data` (exact, matrix-free)
  and :func:`kernel_kgroups_nystrom` (low-rank, millions of points), all returning a
  :class:`ClusteringResult`.
- Kernels: :func:`energy_gram`, :func:`gram_from_semimetric`, :func:`bandwidth`.
- Choosing k and the kernel: :func:`select_k`; for ``GridSearchCV``,
  :func:`prediction_strength_score` and :func:`choose_k_by_prediction_strength`.
- Statistics: :func:`energy_statistics`, :func:`within_dispersion`,
  :func:`between_statistic`, :func:`energy_distance`, :func:`clustering_accuracy`;
  :func:`cluster_significance` tests whether the data are not one Gaussian (uniform data are
  rejected too, so a small p-value is not by itself evidence of clusters).
- scikit-learn estimators :class:`KernelKGroups` and :class:`KernelKMeans` (imported on
  first use, so the package works without scikit-learn).
"""

from typing import TYPE_CHECKING, Any

from ._core import __version__
from ._result import ClusteringResult
from .accuracy import clustering_accuracy
from .clustering import kernel_kgroups, kernel_kmeans
from .exceptions import ConvergenceWarning, KernelInputWarning
from .gram import bandwidth, energy_gram, gram_from_semimetric
from .graph import graph_kernel, graph_partition
from .large import kernel_kgroups_from_data, kernel_kgroups_nystrom, nystrom_features
from .neighbors import knn_kernel
from .one_d import kgroups_1d
from .scoring import choose_k_by_prediction_strength, prediction_strength_score
from .selection import SelectionResult, select_k
from .sigma_selection import SigmaSelection, choose_sigma
from .significance import SignificanceResult, cluster_significance
from .stats import (
    EnergyStatistics,
    between_statistic,
    energy_distance,
    energy_statistics,
    within_dispersion,
)

if TYPE_CHECKING:
    from .estimator import KernelKGroups, KernelKMeans

_LAZY_ESTIMATORS = ("KernelKGroups", "KernelKMeans")

__all__ = [
    "ClusteringResult",
    "ConvergenceWarning",
    "EnergyStatistics",
    "KernelKGroups",
    "KernelInputWarning",
    "KernelKMeans",
    "SignificanceResult",
    "SelectionResult",
    "SigmaSelection",
    "__version__",
    "bandwidth",
    "between_statistic",
    "choose_k_by_prediction_strength",
    "choose_sigma",
    "cluster_significance",
    "clustering_accuracy",
    "energy_distance",
    "energy_gram",
    "energy_statistics",
    "graph_kernel",
    "graph_partition",
    "gram_from_semimetric",
    "kernel_kgroups",
    "kernel_kgroups_from_data",
    "kernel_kgroups_nystrom",
    "kernel_kmeans",
    "kgroups_1d",
    "knn_kernel",
    "nystrom_features",
    "prediction_strength_score",
    "select_k",
    "within_dispersion",
]


if not TYPE_CHECKING:  # type checkers see the imports above instead

    def __getattr__(name: str) -> Any:
        if name in _LAZY_ESTIMATORS:
            from . import estimator  # raises ImportError saying how to install scikit-learn

            return getattr(estimator, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_ESTIMATORS))
