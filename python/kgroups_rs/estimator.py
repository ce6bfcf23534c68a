"""scikit-learn estimators: :class:`KernelKGroups` (Hartigan) and :class:`KernelKMeans` (Lloyd).

scikit-learn (>= 1.6) is an optional dependency; this module is imported only when one of the
two classes is first used (``kgroups_rs.KernelKGroups``), so ``import kgroups_rs`` works
without it.

How the estimators use the kernel. For ``kernel="energy"``, ``"exponential"`` or
``"gaussian"`` the training data are first translated by their (weighted) mean ``shift_``.
The semimetric ``rho`` does not change under translation, so neither does the clustering, but
the base point of the kernel ``K(x, y) = ½[rho(x, 0) + rho(y, 0) - rho(x, y)]`` then sits at
the centre of the data, which keeps the kernel entries small and well conditioned.
``predict`` assigns a new point ``x`` to the cluster with the nearest weighted feature-space
mean (SPEC, "Kernel k-means"):

    argmin_l ||phi(x) - mu_l||^2 = argmin_l [ ||mu_l||^2 - (2 / s_l) sum_{y in C_l} w_y K(x, y) ],

(``K(x, x)`` is the same for every cluster and is dropped), with ``||mu_l||^2 = Q_l / s_l^2``
stored at fit time (``Q_l`` comes with the clustering result), so it only needs the kernel
between the new and the training points.

Kernel storage. ``fit`` either builds the dense n x n kernel matrix (fast, 8 n^2 bytes) or
clusters matrix-free with :func:`kgroups_rs.kernel_kgroups_from_data` (the same result for the
same start, memory O(n D + n k), each kernel row recomputed when needed). The parameter
``kernel_storage`` chooses; ``"auto"`` goes matrix-free when the dense matrix would exceed
:data:`DENSE_KERNEL_MAX_BYTES` (2 GiB, n > 16 384).
"""

from __future__ import annotations

import numbers
from typing import Any, Optional, TypeVar, cast

import numpy as np
import numpy.typing as npt

try:
    from sklearn.base import BaseEstimator, ClusterMixin
    from sklearn.utils import check_random_state
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "KernelKGroups and KernelKMeans need scikit-learn >= 1.6: "
        'pip install "kgroups_rs[sklearn]"'
    ) from exc

from . import _core, energy_gram
from ._algorithm import LLOYD_ALGORITHMS, Algorithm, algorithm_from_variant, check_algorithm
from ._result import ClusteringResult
from ._sparse_input import check_sparse_structure, is_sparse
from ._validation import RandomState, check_int, check_n_threads
from .clustering import kernel_kgroups
from .large import kernel_kgroups_from_data

__all__ = ["KernelKGroups", "KernelKMeans", "DENSE_KERNEL_MAX_BYTES"]

_KERNELS = ("energy", "exponential", "gaussian", "precomputed")
_SEMIMETRICS = {"energy": "power", "exponential": "exponential", "gaussian": "gaussian"}
# Kernel entries per block when multiplying kernel rows (bounds the temporary memory: 32 MiB).
_BLOCK_ELEMENTS = 1 << 22
_STORAGES = ("auto", "dense", "matrix-free")
#: With ``kernel_storage="auto"``, the largest dense training kernel (8 n^2 bytes) that ``fit``
#: builds; above it, it clusters matrix-free.
DENSE_KERNEL_MAX_BYTES = 2 * 1024**3

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]
_Self = TypeVar("_Self", bound="_KernelClustering")


def _kernel_times(K: Any, A: _Float) -> _Float:
    """``K @ A`` in float64 for a dense (f64/f32) or scipy.sparse ``K``, in row blocks."""
    if not isinstance(K, np.ndarray):  # scipy.sparse
        return np.asarray(K @ A, dtype=np.float64)
    out = np.empty((K.shape[0], A.shape[1]), dtype=np.float64)
    step = max(1, _BLOCK_ELEMENTS // max(1, K.shape[1]))
    for start in range(0, K.shape[0], step):
        block = K[start : start + step]
        out[start : start + step] = np.asarray(block, dtype=np.float64) @ A
    return out


def _check_real(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} ({value!r})")
    result = float(value)
    if not np.isfinite(result):
        raise ValueError(f"{name} must be finite, got {result}")
    return result


class _KernelClustering(ClusterMixin, BaseEstimator):  # type: ignore[misc]
    """Machinery shared by :class:`KernelKGroups` and :class:`KernelKMeans`.

    Subclasses store their parameters in ``__init__`` and implement :meth:`_run` (dense or
    precomputed kernel) and :meth:`_data_algorithm` (matrix-free).
    """

    n_clusters: int
    kernel: str
    alpha: float
    sigma: Optional[float]
    init: Any
    n_init: int
    max_iter: int
    random_state: RandomState
    n_threads: Optional[int]
    kernel_storage: str
    # Fitted attributes (documented in the subclasses) and the private state of predict.
    labels_: _Int
    objective_: float
    within_: float
    n_iter_: int
    converged_: bool
    cluster_weights_: _Float
    sigma_: float
    shift_: _Float
    kernel_storage_: str
    _X_fit: _Float  # translated training points of positive weight (not for "precomputed")
    _support: Optional[_Int]  # indices of the points of positive weight; None: all of them
    _assign: _Float  # (n_fit, k): w_i [label_i = l] / s_l
    _mean_sq_norms: _Float  # (k,): ||mu_l||^2 = Q_l / s_l^2
    _search: Algorithm  # the checked algorithm of this fit

    # ----------------------------------------------------------------------------- hooks
    def _algorithm(self) -> Algorithm:
        """The checked search ("hartigan", "lloyd" or "lloyd-online"); subclass specific."""
        raise NotImplementedError

    def _run(self, G: Any, k: int, init: Any, weights: Optional[_Float], seed: Any) -> ClusteringResult:
        return kernel_kgroups(
            G,
            k,
            init,
            algorithm=self._search,
            weights=weights,
            n_init=self.n_init,
            max_iter=self.max_iter,
            random_state=seed,
            n_threads=self.n_threads,
        )

    # ----------------------------------------------------------------------------- helpers
    def _check_params(self) -> None:
        if self.kernel not in _KERNELS:
            raise ValueError(
                f"kernel must be one of {', '.join(map(repr, _KERNELS))}, got {self.kernel!r}"
            )
        check_int(self.n_clusters, "n_clusters", 1)
        check_int(self.n_init, "n_init", 1)
        check_int(self.max_iter, "max_iter", 1)
        check_n_threads(self.n_threads)
        if self.kernel_storage not in _STORAGES:
            raise ValueError(
                f"kernel_storage must be one of {', '.join(map(repr, _STORAGES))}, "
                f"got {self.kernel_storage!r}"
            )
        if self.kernel == "energy":
            alpha = _check_real(self.alpha, "alpha")
            if not 0.0 < alpha <= 2.0:
                raise ValueError(
                    f"alpha must satisfy 0 < alpha <= 2 (rho = ||x - y||**alpha is then of "
                    f"negative type), got {alpha}"
                )
        if self.kernel in ("exponential", "gaussian") and self.sigma is not None:
            if _check_real(self.sigma, "sigma") <= 0.0:
                raise ValueError(f"sigma must be > 0 (or None for the bandwidth), got {self.sigma}")
        if isinstance(self.init, str) and self.init not in ("k-means++", "random"):
            raise ValueError(
                f"init must be 'k-means++', 'random' or an array of n_samples initial labels, "
                f"got {self.init!r}"
            )
        self._search = self._algorithm()

    def _validate_X(self, X: Any, reset: bool) -> Any:
        precomputed = self.kernel == "precomputed"
        if precomputed and is_sparse(X):
            # scipy reads the index arrays below; tampered ones would crash it.
            check_sparse_structure(X, "X")
        X = validate_data(
            self,
            X,
            reset=reset,
            accept_sparse=("csr", "csc") if precomputed else False,
            dtype=(np.float64, np.float32) if precomputed else np.float64,
        )
        if precomputed and reset and X.shape[0] != X.shape[1]:
            raise ValueError(
                "with kernel='precomputed', X must be the square (n_samples, n_samples) kernel "
                f"matrix of the training points, got shape {X.shape}"
            )
        return X

    @staticmethod
    def _check_sample_weight(sample_weight: Any, n: int) -> Optional[_Float]:
        """``None`` (unit weights) or a float64 vector of ``n`` finite weights ``>= 0``."""
        if sample_weight is None:
            return None
        if isinstance(sample_weight, numbers.Real):
            w = np.full(n, float(sample_weight))
        else:
            if np.asarray(sample_weight).dtype.kind == "c":
                raise TypeError("sample_weight must hold real numbers, got complex values")
            w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (n,):
            raise ValueError(
                f"sample_weight must have shape (n_samples,) = ({n},), got {w.shape}"
            )
        if not np.all(np.isfinite(w)):
            raise ValueError("sample_weight must be finite (no NaN or inf)")
        if np.any(w < 0):
            raise ValueError("sample_weight must be non-negative")
        if not np.any(w > 0):
            raise ValueError("sample_weight is zero for every sample; at least one weight must be positive")
        return w

    def _storage(self, n_fit: int) -> str:
        """``"dense"`` or ``"matrix-free"``: how ``fit`` holds the training kernel."""
        if self.kernel_storage != "auto":
            return str(self.kernel_storage)
        return "dense" if 8 * n_fit * n_fit <= DENSE_KERNEL_MAX_BYTES else "matrix-free"

    def _semimetric_kwargs(self) -> dict[str, Any]:
        # The training data are already centred (shift_), so base 0 is their (weighted) mean;
        # fit, the matrix-free fit and predict all use it.
        kwargs: dict[str, Any] = {"semimetric": _SEMIMETRICS[self.kernel], "base": "origin"}
        if self.kernel == "energy":
            kwargs["alpha"] = float(self.alpha)
        else:
            kwargs["sigma"] = self.sigma_
        return kwargs

    def _cross_kernel(self, Xc: _Float) -> _Float:
        """Kernel between the (translated) rows of ``Xc`` and the retained training points."""
        return np.asarray(
            energy_gram(Xc, self._X_fit, n_threads=self.n_threads, **self._semimetric_kwargs()),
            dtype=np.float64,
        )

    def _nearest_mean(self, K: Any) -> _Int:
        """Labels from the kernel rows ``K`` (n_new x n_fit) to the retained training points."""
        scores = self._mean_sq_norms[None, :] - 2.0 * _kernel_times(K, self._assign)
        return np.asarray(np.argmin(scores, axis=1), dtype=np.int64)

    def _nearest_mean_of_points(self, Xc: _Float) -> _Int:
        """Labels of the (translated) points ``Xc``, the cross kernel built in row blocks so
        that its memory stays bounded (``_BLOCK_ELEMENTS`` entries) whatever ``len(Xc)``."""
        out = np.empty(Xc.shape[0], dtype=np.int64)
        step = max(1, _BLOCK_ELEMENTS // max(1, self._X_fit.shape[0]))
        for start in range(0, Xc.shape[0], step):
            rows = slice(start, start + step)
            out[rows] = self._nearest_mean(self._cross_kernel(Xc[rows]))
        return out

    # ----------------------------------------------------------------------------- API
    def fit(
        self: _Self, X: Any, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None
    ) -> _Self:
        """Cluster ``X``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features), or (n_samples, n_samples)
            The training data, or with ``kernel="precomputed"`` their symmetric kernel
            (Gram) matrix, dense (float64/float32) or scipy.sparse.
        y : ignored
            Present for API consistency.
        sample_weight : array_like of shape (n_samples,), optional
            Point weights ``w_i >= 0`` (default 1). Points of weight 0 do not take part in the
            clustering; each is then given the cluster with the nearest mean, as by
            :meth:`predict`.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._check_params()
        X = self._validate_X(X, reset=True)
        n = X.shape[0]
        w = self._check_sample_weight(sample_weight, n)
        support = None if w is None or bool(np.all(w > 0)) else np.flatnonzero(w > 0)
        n_fit = n if support is None else support.size
        k = int(self.n_clusters)
        if k > n_fit:
            extra = "" if support is None else " with positive sample_weight"
            raise ValueError(
                f"n_clusters = {k} must be <= n_samples = {n_fit} (the number of "
                f"samples{extra})"
            )
        w_fit = None if w is None else (w if support is None else w[support])
        init = self.init
        if not isinstance(init, str):
            init = np.asarray(init)
            if init.shape != (n,):
                raise ValueError(
                    f"init labels must have shape (n_samples,) = ({n},), got {init.shape}"
                )
            init = init if support is None else init[support]

        precomputed = self.kernel == "precomputed"
        if precomputed:
            self._support = support
            if support is None:
                G = X
            else:
                # Only the positive-weight block is clustered, but the kernel passed must obey
                # the one symmetry rule as a whole (its other rows label the zero-weight points).
                if not is_sparse(X):
                    _core.check_kernel(np.ascontiguousarray(X, dtype=np.float64), self.n_threads)
                G = X[support][:, support]
        else:
            self.shift_ = np.average(X, axis=0, weights=w)
            Xc = X - self.shift_
            self._X_fit = Xc if support is None else Xc[support]
            if self.kernel != "energy":
                if self.sigma is None:
                    # sigma^2 = sum_ab w_a w_b ||x_a - x_b||^2 / s^2 = 2 sum_a w_a ||x_a - m||^2 / s
                    w_or_1 = np.ones(n_fit) if w_fit is None else w_fit
                    sq = np.einsum("ij,ij->i", self._X_fit, self._X_fit)
                    self.sigma_ = float(np.sqrt(2.0 * (w_or_1 @ sq) / w_or_1.sum()))
                    if self.sigma_ == 0.0:
                        self.sigma_ = 1.0  # all points identical: any bandwidth works
                else:
                    self.sigma_ = float(self.sigma)

        # The clustering does not depend on a common scale of the weights, while the cluster
        # terms sum_ab w_a w_b K_ab would leave the range of float64 for extreme scales: run
        # with the weights divided by a power of two near the largest (exact), and scale the
        # reported figures back.
        exponent = 0 if w_fit is None else int(np.frexp(w_fit.max())[1]) - 1
        w_run = None if w_fit is None else np.ldexp(w_fit, -exponent)
        all_ones = w_run is None or bool(np.all(w_run == 1.0))
        weights_arg = None if all_ones else w_run
        seed = check_random_state(None) if self.random_state is None else self.random_state
        self.kernel_storage_ = "dense" if precomputed else self._storage(n_fit)
        if precomputed:
            result = self._run(G, k, init, weights_arg, seed)
        elif self.kernel_storage_ == "dense":
            G = energy_gram(self._X_fit, n_threads=self.n_threads, **self._semimetric_kwargs())
            result = self._run(G, k, init, weights_arg, seed)
        else:
            result = kernel_kgroups_from_data(
                self._X_fit,
                k,
                init,
                algorithm=self._search,
                weights=weights_arg,
                n_init=self.n_init,
                max_iter=self.max_iter,
                random_state=seed,
                n_threads=self.n_threads,
                **self._semimetric_kwargs(),
            )

        labels = np.asarray(result.labels, dtype=np.int64)

        # Per-cluster weight s_l and squared norm of the mean ||mu_l||^2 = Q_l / s_l^2, with
        # Q_l from the clustering (no further pass over the kernel).
        weights = np.ones(n_fit) if w_run is None else w_run
        A = np.zeros((n_fit, k))
        A[np.arange(n_fit), labels] = weights
        s = A.sum(axis=0)
        self.cluster_weights_ = np.ldexp(s, exponent)
        self._mean_sq_norms = np.asarray(result.cluster_terms, dtype=np.float64) / s**2
        self._assign = A / s

        if support is not None:
            rest = np.flatnonzero(w == 0)
            full = np.empty(n, dtype=np.int64)
            full[support] = labels
            if precomputed:
                full[rest] = self._nearest_mean(X[rest][:, support])
            else:
                full[rest] = self._nearest_mean_of_points(Xc[rest])
            labels = full
        self.labels_ = labels
        objective = float(np.ldexp(result.objective, exponent))
        within = float(np.ldexp(result.within, exponent))
        if not (np.isfinite(objective) and np.isfinite(within)):
            raise ValueError(
                "sample_weight and the kernel are so large that the objective or W overflows "
                "float64; divide sample_weight by a common factor (the clustering does not change)"
            )
        self.objective_ = objective
        self.within_ = within
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        return self

    def fit_predict(
        self, X: Any, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None
    ) -> _Int:
        """Cluster ``X`` and return ``labels_`` (see :meth:`fit`)."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X: Any) -> _Int:
        """Assign each point to the cluster with the nearest weighted feature-space mean.

        ``label(x) = argmin_l ||phi(x) - mu_l||^2`` computed from the kernel between ``x``
        and the training points (ties go to the lowest label). On the training data this
        reproduces ``labels_`` whenever the fit converged: a partition that Hartigan's
        method (or Lloyd's) cannot improve has every point nearest its own cluster's mean
        (Hartigan's move criterion is the stricter of the two), up to rounding in exact ties.

        Parameters
        ----------
        X : array_like of shape (n_new, n_features), or (n_new, n_samples)
            New points, or with ``kernel="precomputed"`` the kernel ``K(x_new, x_train)``
            between the new and *all* training points (dense or scipy.sparse).

        Returns
        -------
        ndarray of int64, shape (n_new,)
            The cluster of each new point.
        """
        check_is_fitted(self, "labels_")
        X = self._validate_X(X, reset=False)
        if self.kernel == "precomputed":
            return self._nearest_mean(X if self._support is None else X[:, self._support])
        return self._nearest_mean_of_points(X - self.shift_)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        precomputed = self.kernel == "precomputed"
        tags.input_tags.pairwise = precomputed
        tags.input_tags.sparse = precomputed
        return tags


_PARAMS_DOC = """
    n_clusters : int, default 2
        Number of clusters ``k``, ``1 <= k <= n_samples``.
    kernel : {"energy", "exponential", "gaussian", "precomputed"}, default "energy"
        The semimetric of negative type generating the kernel (SPEC "Semimetrics"):
        "energy" ``rho = ||x - y||**alpha``; "exponential" ``2 - 2 exp(-||x - y|| / (2 sigma))``;
        "gaussian" ``2 - 2 exp(-||x - y||**2 / (2 sigma**2))``; "precomputed": ``X`` is the
        kernel (Gram) matrix itself, and ``predict`` takes the kernel between new and
        training points.
    alpha : float, default 1.0
        Exponent of the "energy" kernel, ``0 < alpha <= 2`` (1 is the standard energy
        distance; 2 gives ordinary k-means). Ignored by the other kernels.
    sigma : float, optional
        Bandwidth of the "exponential" and "gaussian" kernels. ``None`` uses the data's
        scale, ``sigma**2 = mean_ab ||x_a - x_b||**2`` over the training points (weighted
        by ``sample_weight``); the value used is ``sigma_``. Ignored by the other kernels.
    init : {"k-means++", "random"} or array_like of shape (n_samples,), default "k-means++"
        Initial partition: feature-space k-means++, uniform random labels, or the initial
        labels themselves (then ``n_init`` must be 1).
    n_init : int, default 5
        Independent starts, run in parallel; the best objective wins.
    max_iter : int, default 300
        Maximum number of sweeps (iterations) per start.
    random_state : None, int, numpy Generator or RandomState
        Seed of the initialisations. ``None`` draws from numpy's global random state, as in
        scikit-learn. The same seed gives the same result for any number of threads.
    n_threads : int, optional
        Threads for building the kernel and for the starts (default: all cores).
    kernel_storage : {"auto", "dense", "matrix-free"}, default "auto"
        How ``fit`` holds the training kernel (not for ``kernel="precomputed"``): "dense"
        builds the n x n matrix (8 n^2 bytes; fastest while it fits in memory);
        "matrix-free" never stores it and recomputes kernel rows from the data when needed
        (:func:`kgroups_rs.kernel_kgroups_from_data`: memory O(n D + n k), the same result for
        the same start); "auto" is dense up to ``DENSE_KERNEL_MAX_BYTES`` = 2 GiB (n <= 16 384)
        and matrix-free above. The choice made is ``kernel_storage_``."""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_samples,)
        Cluster of each training point, ``0 .. n_clusters - 1``.
    objective_ : float
        The maximised objective ``Q = sum_j Q_j / s_j`` (SPEC eq. 41).
    within_ : float
        The energy within-cluster dispersion ``W = sum_i w_i K(x_i, x_i) - Q`` (minimised).
    n_iter_ : int
        Sweeps (iterations) of the best start.
    converged_ : bool
        Whether the best start converged before ``max_iter``.
    cluster_weights_ : ndarray of float64, shape (n_clusters,)
        Total sample weight ``s_l`` of each cluster (its size for unit weights).
    shift_ : ndarray of float64, shape (n_features,)
        The weighted mean of the training data, subtracted before building kernels (not set
        for ``kernel="precomputed"``).
    sigma_ : float
        The bandwidth used (only for the "exponential" and "gaussian" kernels).
    kernel_storage_ : str
        "dense" or "matrix-free": how ``fit`` held the training kernel.
    n_features_in_ : int
        Number of features seen in ``fit`` (``n_samples`` for "precomputed").
    feature_names_in_ : ndarray of str
        Feature names, when ``X`` has string column names."""


class KernelKGroups(_KernelClustering):
    __doc__ = (
        """Kernel k-groups: energy-statistics clustering by Hartigan's method.

    Partitions the data so as to minimise the energy within-cluster dispersion ``W``
    (equivalently maximise the between-cluster energy statistic), moving one point at a time
    whenever that strictly improves the objective (TPAMI Algorithm 2; see
    :func:`kgroups_rs.kernel_kgroups`). The training kernel is held as a dense matrix
    (8 n_samples**2 bytes) or, for large data, never stored (``kernel_storage``).

    Parameters
    ----------"""
        + _PARAMS_DOC
        + """
    algorithm : {"hartigan", "lloyd", "lloyd-online"}, default "hartigan"
        "hartigan": kernel k-groups; "lloyd": batch kernel k-means; "lloyd-online": online
        kernel k-means (see :class:`KernelKMeans`).
"""
        + _ATTRIBUTES_DOC
        + """

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups_rs import KernelKGroups
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0]])
    >>> model = KernelKGroups(n_clusters=2, random_state=0).fit(X)
    >>> bool(model.labels_[0] == model.labels_[1] == model.labels_[2] != model.labels_[3])
    True
    >>> int(model.predict([[4.9, 5.2]])[0]) == int(model.labels_[3])
    True
    """
    )

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: str = "energy",
        alpha: float = 1.0,
        sigma: Optional[float] = None,
        algorithm: Algorithm = "hartigan",
        init: Any = "k-means++",
        n_init: int = 5,
        max_iter: int = 300,
        random_state: RandomState = None,
        n_threads: Optional[int] = None,
        kernel_storage: str = "auto",
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.alpha = alpha
        self.sigma = sigma
        self.algorithm = algorithm
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_threads = n_threads
        self.kernel_storage = kernel_storage

    def _algorithm(self) -> Algorithm:
        return cast(Algorithm, check_algorithm(self.algorithm))


class KernelKMeans(_KernelClustering):
    __doc__ = (
        """Kernel k-means: Lloyd's method in the feature space of an energy kernel.

    Minimises the same ``W`` as :class:`KernelKGroups` by reassigning points to the nearest
    feature-space mean (see :func:`kgroups_rs.kernel_kmeans`); usually a worse local optimum.

    Parameters
    ----------"""
        + _PARAMS_DOC
        + """
    algorithm : {"lloyd", "lloyd-online"}, default "lloyd"
        "lloyd": all points are reassigned from the same means, then the means are updated;
        "lloyd-online": a point moves at once (TPAMI Algorithm 1, corrected).
    variant : {"batch", "online"}, optional
        Deprecated since 0.2.0 (removed in 0.3.0): ``variant="batch"`` is
        ``algorithm="lloyd"``, ``variant="online"`` is ``algorithm="lloyd-online"``.
"""
        + _ATTRIBUTES_DOC
    )

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: str = "energy",
        alpha: float = 1.0,
        sigma: Optional[float] = None,
        algorithm: Algorithm = "lloyd",
        init: Any = "k-means++",
        n_init: int = 5,
        max_iter: int = 300,
        random_state: RandomState = None,
        n_threads: Optional[int] = None,
        kernel_storage: str = "auto",
        variant: Optional[str] = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.alpha = alpha
        self.sigma = sigma
        self.algorithm = algorithm
        self.variant = variant
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_threads = n_threads
        self.kernel_storage = kernel_storage

    def _algorithm(self) -> Algorithm:
        algorithm = check_algorithm(self.algorithm, LLOYD_ALGORITHMS)
        return cast(Algorithm, algorithm_from_variant(algorithm, self.variant, "KernelKMeans"))

