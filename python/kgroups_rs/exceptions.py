"""Warnings of the package."""

from __future__ import annotations

__all__ = ["ConvergenceWarning", "KernelInputWarning"]


class ConvergenceWarning(UserWarning):
    """A clustering run ended somewhere its result deserves a second look.

    Issued (like scikit-learn's ``ConvergenceWarning`` for ``KMeans``) when a run stopped at
    ``max_iter`` sweeps before the local search converged, when it stopped on a cycle of
    partitions (Lloyd's method on a kernel that is not positive semidefinite), or when it
    found fewer distinct clusters than ``k`` (the data hold fewer than ``k`` distinct points,
    so some clusters coincide). Silence it with
    ``warnings.simplefilter("ignore", ConvergenceWarning)``.
    """


class KernelInputWarning(UserWarning):
    """A matrix passed as a kernel (Gram) matrix looks like something else.

    Issued by :func:`kernel_kgroups`, :func:`kernel_kmeans`, ``KernelKGroups`` /
    ``KernelKMeans`` with ``kernel="precomputed"`` and :func:`energy_statistics` (``G=``) for a
    dense matrix whose diagonal is entirely zero while its entries are non-negative and not all
    zero: the signature of a distance (semimetric) matrix. Such a matrix is not a kernel (a
    positive semi-definite matrix with a zero diagonal is zero everywhere, since
    ``|G_ab| <= sqrt(G_aa G_bb)``); clustering it gives meaningless clusters, often a single
    one. Convert a distance matrix with :func:`gram_from_semimetric`; partition a graph's
    adjacency matrix (which has the same signature) with :func:`graph_partition`, which never
    issues this warning. Sparse matrices are not checked (a sparse matrix with a zero
    diagonal is almost always a graph). Silence it with
    ``warnings.simplefilter("ignore", KernelInputWarning)``.
    """
