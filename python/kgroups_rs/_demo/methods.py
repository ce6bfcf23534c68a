"""The methods the demo compares on each data set: kernel k-groups and kernel k-means on the
problem's kernel, the exact 1-D solver, k-means and a Gaussian mixture on the raw data."""

from __future__ import annotations

import contextlib
import importlib
import time
from contextlib import AbstractContextManager
from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt

from .._progress import ProgressCallback
from ..accuracy import clustering_accuracy
from ..clustering import kernel_kgroups, kernel_kmeans
from ..gram import energy_gram
from ..one_d import kgroups_1d
from .problems import DemoProblem, DemoResult

__all__ = ["METHODS", "N_INIT", "numpy_kmeans", "run_problem"]

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]

#: Methods in table order.
METHODS = ("kernel k-groups", "kernel k-means", "1D exact", "k-means", "GMM")
#: Starts of every method that restarts.
N_INIT = 10


def numpy_kmeans(X: _Float, k: int, seed: int, n_init: int = 10, max_iter: int = 300) -> _Int:
    """Plain Lloyd k-means on the rows of ``X`` (k-means++ seeding), best of ``n_init``."""
    rng = np.random.default_rng(seed)
    best: tuple[float, _Int] = (np.inf, np.zeros(X.shape[0], dtype=np.int64))
    for _ in range(n_init):
        centres = X[[int(rng.integers(X.shape[0]))]]
        for _ in range(1, k):
            d2 = ((X[:, None, :] - centres[None]) ** 2).sum(-1).min(axis=1)
            p = d2 / d2.sum() if d2.sum() > 0 else np.full(X.shape[0], 1 / X.shape[0])
            centres = np.vstack([centres, X[rng.choice(X.shape[0], p=p)]])
        labels = np.zeros(X.shape[0], dtype=np.int64)
        for it in range(max_iter):
            d2 = ((X[:, None, :] - centres[None]) ** 2).sum(-1)
            new = np.argmin(d2, axis=1).astype(np.int64)
            if it > 0 and np.array_equal(new, labels):
                break
            labels = new
            centres = np.array(
                [X[labels == j].mean(0) if np.any(labels == j) else centres[j] for j in range(k)]
            )
        cost = float(((X - centres[labels]) ** 2).sum())
        if cost < best[0]:
            best = (cost, labels)
    return best[1]


def _one_thread() -> AbstractContextManager[Any]:
    """Limit OpenMP/BLAS to one thread: the baselines' data are small, and scikit-learn's
    OpenMP k-means slows down by orders of magnitude when other processes load the cores."""
    try:
        threadpoolctl: Any = importlib.import_module("threadpoolctl")  # comes with scikit-learn
    except ImportError:
        return contextlib.nullcontext()
    return threadpoolctl.threadpool_limits(limits=1)  # type: ignore[no-any-return]


def _kmeans(X: _Float, k: int, seed: int) -> tuple[_Int, str]:
    try:
        from sklearn.cluster import KMeans
    except ImportError:
        return numpy_kmeans(X, k, seed, n_init=N_INIT), "numpy"
    model = KMeans(n_clusters=k, n_init=N_INIT, random_state=seed)
    with _one_thread():
        return np.asarray(model.fit_predict(X), dtype=np.int64), "scikit-learn"


def _gmm(X: _Float, k: int, seed: int) -> Optional[_Int]:
    try:
        from sklearn.mixture import GaussianMixture
    except ImportError:
        return None
    model = GaussianMixture(n_components=k, n_init=3, random_state=seed)
    with _one_thread():
        return np.asarray(model.fit_predict(X), dtype=np.int64)


def run_problem(
    problem: DemoProblem,
    seed: int = 0,
    n_threads: Optional[int] = None,
    progress: Optional[Callable[[str], Optional[ProgressCallback]]] = None,
) -> DemoResult:
    """Cluster one problem with every method available; see the module docstring."""
    X, y, k = problem.X, problem.y, problem.k
    out = DemoResult(problem)
    callback = progress(problem.name) if progress is not None else None
    start = time.perf_counter()
    G = energy_gram(X - X.mean(axis=0), n_threads=n_threads, **problem.kernel)
    res = kernel_kgroups(G, k, n_init=N_INIT, random_state=seed, n_threads=n_threads,
                         progress=callback)
    out.seconds = time.perf_counter() - start
    out.labels = res.labels
    out.accuracy["kernel k-groups"] = clustering_accuracy(y, res.labels)
    lloyd = kernel_kmeans(G, k, n_init=N_INIT, random_state=seed, n_threads=n_threads)
    out.accuracy["kernel k-means"] = clustering_accuracy(y, lloyd.labels)
    del G
    if X.shape[1] == 1 and problem.kernel.get("semimetric") == "power" \
            and problem.kernel.get("alpha") == 1.0:
        exact = kgroups_1d(X[:, 0], k)
        out.accuracy["1D exact"] = clustering_accuracy(y, exact.labels)
        out.thresholds = exact.thresholds
    else:
        out.accuracy["1D exact"] = None
    km, out.kmeans_impl = _kmeans(X, k, seed)
    out.accuracy["k-means"] = clustering_accuracy(y, km)
    gmm = _gmm(X, k, seed)
    out.accuracy["GMM"] = None if gmm is None else clustering_accuracy(y, gmm)
    return out
