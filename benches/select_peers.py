"""The methods that ``bench_select_k.py`` and ``bench_select_null.py`` judge: five peers that
choose k themselves and kgroups_rs's own call (the list and what each does: the docstring of
``bench_select_k.py``). Each takes ``(X, k_max, seed)`` and returns a :class:`Found`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

import kgroups_rs
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass
class Found:
    """What a method returns: the k it chose and its labels (any integers; -1 allowed)."""

    k: int
    labels: npt.NDArray[np.int64]
    info: Optional[dict[str, Any]] = None


def hdbscan(X: FloatArray, k_max: int, seed: int) -> Found:
    from sklearn.cluster import HDBSCAN

    labels = HDBSCAN(min_cluster_size=max(5, X.shape[0] // 50), copy=True).fit_predict(X)
    k = int(np.unique(labels[labels >= 0]).size)
    return Found(max(k, 1), labels, {"noise_fraction": float(np.mean(labels < 0))})


def gmm_bic(X: FloatArray, k_max: int, seed: int) -> Found:
    from sklearn.mixture import GaussianMixture

    best: Optional[tuple[float, int, Any]] = None
    bics = []
    for k in range(1, k_max + 1):
        model = GaussianMixture(k, covariance_type="full", n_init=2, random_state=seed).fit(X)
        bic = float(model.bic(X))
        bics.append(bic)
        if best is None or bic < best[0]:
            best = (bic, k, model)
    assert best is not None
    return Found(best[1], best[2].predict(X), {"bic": bics})


def _kmeans(X: FloatArray, k: int, seed: int, n_init: int) -> Any:
    from sklearn.cluster import KMeans

    return KMeans(k, n_init=n_init, random_state=seed).fit(X)


def kmeans_silhouette(X: FloatArray, k_max: int, seed: int) -> Found:
    from sklearn.metrics import silhouette_score

    best: Optional[tuple[float, int, Any]] = None
    scores = []
    for k in range(2, k_max + 1):
        model = _kmeans(X, k, seed, 4)
        score = float(
            silhouette_score(X, model.labels_, sample_size=min(2000, X.shape[0]), random_state=seed)
        )
        scores.append(score)
        if best is None or score > best[0]:
            best = (score, k, model)
    assert best is not None
    return Found(best[1], best[2].labels_, {"silhouette": scores})


def kmeans_gap(X: FloatArray, k_max: int, seed: int, n_refs: int = 10) -> Found:
    rng = np.random.default_rng(seed)
    centred = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    rotated = centred @ vt.T
    low, high = rotated.min(axis=0), rotated.max(axis=0)
    refs = [rng.uniform(low, high, size=rotated.shape) @ vt + X.mean(axis=0) for _ in range(n_refs)]
    log_w, ref_mean, ref_sd, models = [], [], [], []
    for k in range(1, k_max + 1):
        model = _kmeans(X, k, seed, 4)
        models.append(model)
        log_w.append(math.log(max(model.inertia_, 1e-300)))
        ref_logs = [math.log(max(_kmeans(R, k, seed, 2).inertia_, 1e-300)) for R in refs]
        ref_mean.append(float(np.mean(ref_logs)))
        ref_sd.append(float(np.std(ref_logs)) * math.sqrt(1.0 + 1.0 / n_refs))
    gap = np.array(ref_mean) - np.array(log_w)
    chosen = k_max
    for i in range(k_max - 1):
        if gap[i] >= gap[i + 1] - ref_sd[i + 1]:
            chosen = i + 1
            break
    return Found(chosen, models[chosen - 1].labels_, {"gap": gap.tolist(), "s": ref_sd})


def knn_affinity(X: FloatArray, n_neighbors: int = 10) -> Any:
    from sklearn.neighbors import kneighbors_graph

    A = kneighbors_graph(X, n_neighbors=min(n_neighbors, X.shape[0] - 1), include_self=True)
    return 0.5 * (A + A.T)


#: Up to this many points the spectral peer's eigenvalues come from a dense solver.
DENSE_SPECTRUM_MAX_N = 3000


def normalized_laplacian_spectrum(A: Any, count: int) -> FloatArray:
    """The ``count`` smallest eigenvalues of ``I - D^-1/2 A D^-1/2`` (dense for n <= 3000,
    scipy's ``eigsh`` on the sparse ``D^-1/2 A D^-1/2`` beyond)."""
    import scipy.linalg
    import scipy.sparse
    import scipy.sparse.linalg

    A = scipy.sparse.csr_array(A)
    d = np.asarray(A.sum(axis=1)).ravel()
    inv = 1.0 / np.sqrt(np.maximum(d, 1e-300))
    M = scipy.sparse.csr_array(A.multiply(inv[:, None]).multiply(inv[None, :]))
    n = M.shape[0]
    if n <= DENSE_SPECTRUM_MAX_N:
        top = scipy.linalg.eigh(M.toarray(), eigvals_only=True, subset_by_index=[n - count, n - 1])
    else:
        v0 = np.sqrt(np.maximum(d, 1e-300))  # the top eigenvector of a connected graph: a fixed start
        top = scipy.sparse.linalg.eigsh(
            M, k=count, which="LA", v0=v0 / np.linalg.norm(v0), return_eigenvectors=False
        )
    return np.sort(1.0 - np.asarray(top, dtype=np.float64))


def spectral_eigengap(X: FloatArray, k_max: int, seed: int) -> Found:
    from sklearn.cluster import SpectralClustering

    A = knn_affinity(X)
    eig = normalized_laplacian_spectrum(A, k_max + 1)
    k = int(np.argmax(np.diff(eig))) + 1
    if k == 1:
        return Found(1, np.zeros(X.shape[0], dtype=np.int64), {"eigenvalues": eig.tolist()})
    labels = SpectralClustering(k, affinity="precomputed", random_state=seed).fit_predict(A)
    return Found(k, labels, {"eigenvalues": eig.tolist()})


def kgroups_auto(X: FloatArray, k_max: int, seed: int, threads: Optional[int] = 1) -> Found:
    """kgroups_rs's one call for data it knows nothing about, the call this benchmark (and
    ``bench_select_null.py``) judges: the estimator with ``n_clusters="auto"`` and
    ``kernel="auto"`` (its k range is 1 ... 10, not ``k_max``). One thread, as the peers
    (``threads`` for other uses; the result does not depend on it). The detail records the
    kernel chosen and the rule that gave k."""
    model = kgroups_rs.KernelKGroups(n_clusters="auto", kernel="auto", random_state=seed, n_threads=threads)
    model.fit(X)
    rule = None if model.selection_ is None else model.selection_.rule
    return Found(int(model.n_clusters_), np.asarray(model.labels_), {"rule": rule, "kernel": model.kernel_})


def has_kernel_auto() -> bool:
    """Whether the installed ``KernelKGroups`` takes ``kernel="auto"`` (and scikit-learn is there)."""
    try:
        constraint = kgroups_rs.KernelKGroups._parameter_constraints["kernel"][0]
    except (ImportError, AttributeError, KeyError, IndexError):
        return False
    return "auto" in getattr(constraint, "options", ())


PEERS: dict[str, Callable[[FloatArray, int, int], Found]] = {
    "hdbscan": hdbscan,
    "gmm_bic": gmm_bic,
    "kmeans_silhouette": kmeans_silhouette,
    "kmeans_gap": kmeans_gap,
    "spectral_eigengap": spectral_eigengap,
}


def methods() -> dict[str, Callable[[FloatArray, int, int], Found]]:
    """The peers, plus kgroups_rs's estimator call when the installed package has it."""
    table = dict(PEERS)
    if has_kernel_auto():
        table["kgroups_auto"] = kgroups_auto
    return table
