"""kgroups_rs: kernel k-groups (energy-statistics clustering) with a Rust core.

The main entry points:

- :func:`kernel_kgroups` — Hartigan's method on a kernel matrix (the paper's kernel k-groups);
- :func:`kernel_kmeans` — Lloyd's method (kernel k-means), batch or online;
- :class:`ClusteringResult` — what both return.
"""

from ._core import __version__
from ._result import ClusteringResult
from .clustering import kernel_kgroups, kernel_kmeans

__all__ = [
    "ClusteringResult",
    "__version__",
    "kernel_kgroups",
    "kernel_kmeans",
]
