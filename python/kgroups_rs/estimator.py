"""scikit-learn estimators: :class:`KernelKGroups` (Hartigan) and :class:`KernelKMeans` (Lloyd).

scikit-learn (>= 1.6) is an optional dependency; this module is imported only when one of the
two classes is first used (``kgroups_rs.KernelKGroups``), so ``import kgroups_rs`` works
without it.

How the estimators use the kernel. For ``kernel="energy"``, ``"exponential"`` or
``"gaussian"`` the training data are first translated by their (weighted) mean ``mean_``.
The semimetric ``rho`` does not change under translation, so neither does the clustering, but
the base point of the kernel ``K(x, y) = ½[rho(x, 0) + rho(y, 0) - rho(x, y)]`` then sits at
the centre of the data, which keeps the kernel entries small and well conditioned.
``predict`` assigns a new point ``x`` to the cluster with the nearest weighted feature-space
mean:

    argmin_l ||phi(x) - mu_l||^2 = argmin_l [ ||mu_l||^2 - (2 / s_l) sum_{y in C_l} w_y K(x, y) ],

(``K(x, x)`` is the same for every cluster and is dropped), with ``||mu_l||^2 = Q_l / s_l^2``
stored at fit time (``Q_l`` comes with the clustering result), so it only needs the kernel
between the new and the training points.

Kernel storage. ``fit`` either builds the dense n x n kernel matrix (fast, 8 n^2 bytes) or
clusters matrix-free with :func:`kgroups_rs.kernel_kgroups_from_data` (the same result for the
same start, memory O(n D + n k), each kernel row recomputed when needed). The parameter
``kernel_storage`` chooses; ``"auto"`` goes matrix-free when the dense matrix would exceed
:data:`DENSE_KERNEL_MAX_BYTES` (2 GiB, n > 16 384), and also when that is expected to be
faster: a single Hartigan start (``n_init=1``) on at most :data:`MATRIX_FREE_MAX_DIM` (32)
features, where building the Gram matrix alone costs about as much as the matrix-free run.
With several starts the dense matrix is built once and reused, and is faster.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, Literal, Optional, TypeVar, Union, cast

import numpy as np
import numpy.typing as npt

try:
    from sklearn.base import (
        BaseEstimator,
        ClassNamePrefixFeaturesOutMixin,
        ClusterMixin,
        TransformerMixin,
        _fit_context,
    )
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
    from sklearn.utils import TransformerTags, check_random_state
    from sklearn.utils._available_if import available_if
    from sklearn.utils._param_validation import Interval, StrOptions
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "KernelKGroups and KernelKMeans need scikit-learn >= 1.6: "
        'pip install "kgroups_rs[sklearn]" (from a source checkout: pip install ".[sklearn]")'
    ) from exc

from . import _core
from ._algorithm import _VARIANTS, ALGORITHMS, LLOYD_ALGORITHMS, Algorithm, algorithm_from_variant
from ._estimator_auto import (
    KNN_HAS_NO_KERNEL,
    choose_kernel,
    fit_knn,
    knn_clusters,
    naming_the_default_kernel,
    predict_knn,
    resolved_kernel,
)
from ._estimator_checks import CHECKS_NOT_GUARANTEED, expected_failed_checks
from ._estimator_docs import ATTRIBUTES_DOC, PARAMS_DOC
from ._estimator_helpers import (
    BLOCK_ELEMENTS,
    check_sample_weight,
    cluster_means,
    default_sigma,
    mean_distances,
    nearest_mean,
    power_of_two_scale,
    select_n_clusters,
)
from ._kernel_options import KERNEL_SEMIMETRICS, Sigma, check_semimetric_parameters
from ._result import ClusteringResult
from ._sparse_input import check_sparse_structure, is_sparse
from ._validation import MAX_THREADS, Init, RandomState, as_count, check_n_threads
from ._warnings import DISTANCE_MATRIX_ADVICE, warn_if_degenerate, warn_if_distance_matrix
from .clustering import kernel_kgroups
from .exceptions import ConvergenceWarning, KernelInputWarning
from .gram import energy_gram
from .large import kernel_kgroups_from_data
from .selection import SelectionResult
from .sigma_selection import SigmaSelection, choose_sigma

__all__ = [
    "KernelKGroups",
    "KernelKMeans",
    "DENSE_KERNEL_MAX_BYTES",
    "MATRIX_FREE_MAX_DIM",
    "EstimatorConvergenceWarning",
    "CHECKS_NOT_GUARANTEED",
    "expected_failed_checks",
]


class EstimatorConvergenceWarning(ConvergenceWarning, SklearnConvergenceWarning):  # type: ignore[misc]
    """The estimators' convergence warning: both the package's :class:`ConvergenceWarning`
    and scikit-learn's ``sklearn.exceptions.ConvergenceWarning``, so a filter on either
    catches it."""

#: The estimators' ``kernel`` (or None, the default: "energy", or "auto" with
#: ``n_clusters="auto"``).
Kernel = Literal["energy", "exponential", "gaussian", "precomputed", "knn", "auto"]
#: The estimators' ``kernel_storage``.
KernelStorage = Literal["auto", "dense", "matrix-free"]
_KERNELS = ("energy", "exponential", "gaussian", "precomputed", "knn", "auto")
_STORAGES = ("auto", "dense", "matrix-free")
#: With ``kernel_storage="auto"``, the largest dense training kernel (8 n^2 bytes) that ``fit``
#: builds; above it, it clusters matrix-free.
DENSE_KERNEL_MAX_BYTES = 2 * 1024**3
#: With ``kernel_storage="auto"``, ``n_init=1`` and Hartigan's method, the most features for
#: which ``fit`` clusters matrix-free even when the dense kernel would fit: about twice as
#: fast for D <= 10, even at D = 50, slower at D = 100 (measured at n = 2 000 to 20 000).
MATRIX_FREE_MAX_DIM = 32

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]
_Self = TypeVar("_Self", bound="_KernelClustering")
_Method = TypeVar("_Method", bound=Callable[..., Any])


def _validated_fit(fit: _Method) -> _Method:
    """scikit-learn's ``_fit_context``: ``fit`` first checks every parameter against
    ``_parameter_constraints`` (``InvalidParameterError``, a ValueError and a TypeError)."""
    return cast(_Method, _fit_context(prefer_skip_nested_validation=True)(fit))


def _has_points(estimator: Any) -> bool:
    """``transform`` and ``score`` exist (``hasattr``) only for kernels built from points:
    they need ``K(x, x)`` of new points, which a precomputed cross kernel lacks, and a kernel
    at all, which the kNN graph (``kernel="knn"``) is not."""
    return estimator.kernel not in ("precomputed", "knn")


#: ``available_if(_has_points)``, typed. Which methods exist depends on the parameters
#: alone, never on what a fit chose, so that a pipeline checked before ``fit`` holds after it.
_if_points = cast(Callable[[_Method], _Method], available_if(_has_points))


class _KernelClustering(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):  # type: ignore[misc]  # noqa: E501
    """Machinery shared by :class:`KernelKGroups` and :class:`KernelKMeans`.

    As scikit-learn's ``KMeans``, a transformer whose output columns (``transform``: the
    distances to the cluster means) are named ``kernelkgroups0``, ``kernelkgroups1``, ...
    (``get_feature_names_out``), so ``set_output(transform="pandas")`` works.

    Subclasses store their parameters in ``__init__``, add the constraints of ``algorithm``
    (and their own parameters) to ``_parameter_constraints`` and implement :meth:`_algorithm`.
    """

    # Checked by scikit-learn before every fit (``_validated_fit``), as ``_BaseKMeans`` does.
    # What depends on the data (n_clusters <= n_samples, the shape of initial labels, the
    # weights, a square precomputed kernel) or on two parameters together (init labels need
    # n_init = 1; a deprecated variant must agree with algorithm) is checked in fit.
    _parameter_constraints: dict[str, list[Any]] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        # None (the default): "energy", or "auto" with n_clusters="auto" (resolved_kernel).
        "kernel": [StrOptions(set(_KERNELS)), None],
        # Checked whatever the kernel, as scikit-learn checks every parameter; the default
        # (1.0) and None are always valid.
        "alpha": [Interval(Real, 0, 2, closed="right")],
        "sigma": [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"mean", "median", "auto"}), None],
        "init": [StrOptions({"k-means++", "random", "spectral"}), "array-like"],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        # Not scikit-learn's "random_state" (ints < 2**32, RandomState, None): the core takes
        # 64-bit seeds and numpy Generators as well.
        "random_state": [
            Interval(Integral, 0, None, closed="left"),
            np.random.RandomState,
            np.random.Generator,
            None,
        ],
        # None and -1: all cores; -2, -3, ...: all but 1, 2, ... (joblib's convention).
        "n_threads": [
            Interval(Integral, 1, MAX_THREADS, closed="both"),
            Interval(Integral, None, -1, closed="right"),
            None,
        ],
        "kernel_storage": [StrOptions(set(_STORAGES))],
    }

    n_clusters: Union[int, Literal["auto"]]
    kernel: Optional[Kernel]
    alpha: float
    sigma: Sigma
    init: Init
    n_init: int
    max_iter: int
    random_state: RandomState
    n_threads: Optional[int]
    kernel_storage: KernelStorage
    # Precision of the dense training kernel that fit builds (the command line's --dtype).
    _kernel_dtype: np.dtype[Any] = np.dtype(np.float64)
    # Fitted attributes (documented in the subclasses) and the private state of predict.
    n_clusters_: int
    kernel_: str  # the kernel fitted: kernel, or for "auto" (and None) the one used
    selection_: Optional[SelectionResult]
    labels_: _Int
    objective_: float
    within_: float
    n_iter_: int
    converged_: bool
    cluster_weights_: _Float
    cluster_sizes_: _Int
    sigma_: float
    sigma_selection_: Optional[SigmaSelection]
    mean_: _Float
    kernel_storage_: str
    _X_fit: _Float  # translated training points of positive weight (not for "precomputed")
    _support: Optional[_Int]  # indices of the points of positive weight; None: all of them
    _assign: _Float  # (n_fit, k): w_i [label_i = l] / s_l
    _mean_sq_norms: _Float  # (k,): ||mu_l||^2 = Q_l / s_l^2
    _search: Algorithm  # the algorithm of this fit (a deprecated variant resolved)
    _n_features_out: int  # n_clusters: the columns of transform

    # ----------------------------------------------------------------------------- hooks
    def _algorithm(self) -> Algorithm:
        """The search of this fit ("hartigan", "lloyd" or "lloyd-online"); subclass specific."""
        raise NotImplementedError

    def _core_options(self, seed: Any) -> dict[str, Any]:
        """Keyword arguments of the clustering call, the same for every kernel storage."""
        return {
            "algorithm": self._search,
            # as_count refuses bools, which scikit-learn's Interval(Integral) admits.
            "n_init": as_count(self.n_init, "n_init"),
            "max_iter": as_count(self.max_iter, "max_iter"),
            "random_state": seed,
            "n_threads": self._threads(),
        }

    def _threads(self) -> Optional[int]:
        """``n_threads`` as the core takes it (None: all cores)."""
        return check_n_threads(self.n_threads)

    def _cluster(
        self, data: Any, k: int, init: Any, weights: Optional[_Float], seed: Any, matrix_free: bool
    ) -> ClusteringResult:
        """Cluster the kernel matrix ``data``, or with ``matrix_free`` the points ``data``."""
        options = self._core_options(seed)
        if init is self._selected_start:
            options["n_init"] = 1  # select_k's partition is the one start
        with warnings.catch_warnings():
            # Reissued below as scikit-learn's ConvergenceWarning (a subclass of both).
            warnings.simplefilter("ignore", ConvergenceWarning)
            # Issued by fit, naming X.
            warnings.simplefilter("ignore", KernelInputWarning)
            if matrix_free:
                result = kernel_kgroups_from_data(
                    data, k, init, weights=weights, **options, **self._semimetric_kwargs()
                )
            else:
                result = kernel_kgroups(data, k, init, weights=weights, **options)
        warn_if_degenerate(
            k, int(self.max_iter), result.converged, result.n_distinct_clusters or k,
            stacklevel=4, cycle_length=result.cycle_length, n_iter=result.n_iter,
            category=EstimatorConvergenceWarning,
        )
        return result

    # ----------------------------------------------------------------------------- helpers
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

    def _storage(self, n_fit: int) -> str:
        """``"dense"`` or ``"matrix-free"``: how ``fit`` holds the training kernel.

        ``"auto"``: matrix-free when the dense matrix would exceed
        :data:`DENSE_KERNEL_MAX_BYTES`, or when it is expected to be faster: one Hartigan start
        (``n_init=1``) on at most :data:`MATRIX_FREE_MAX_DIM` features, where building the
        Gram matrix costs as much as the whole matrix-free run (which evaluates each pair
        about once); otherwise dense, which pays for the kernel once and reuses it across
        starts (``benches/bench_storage.py`` measures the crossover).
        """
        if self.kernel_storage != "auto":
            return str(self.kernel_storage)
        dense_bytes = self._kernel_dtype.itemsize * n_fit * n_fit
        if dense_bytes > DENSE_KERNEL_MAX_BYTES:
            return "matrix-free"
        one_start = int(self.n_init) == 1 and self._search == "hartigan"
        few_features = self._X_fit.shape[1] <= MATRIX_FREE_MAX_DIM
        return "matrix-free" if one_start and few_features else "dense"

    def _semimetric_kwargs(self) -> dict[str, Any]:
        # The training data are already centred (mean_), so base 0 is their (weighted) mean;
        # fit, the matrix-free fit and predict all use it.
        kwargs: dict[str, Any] = {"semimetric": KERNEL_SEMIMETRICS[self.kernel_], "base": "origin"}
        if self.kernel_ == "energy":
            kwargs["alpha"] = float(self.alpha)
        else:
            kwargs["sigma"] = self.sigma_
        return kwargs

    def _bandwidth(self, w_fit: Optional[_Float], k: int) -> float:
        """``sigma_``: the number given, or the rule's bandwidth of the (centred) training
        points of positive weight, weighted by their sample weights ("auto": chosen by
        :func:`choose_sigma` on those points, unweighted, for k groups, or with k unknown
        when ``n_clusters="auto"``; its table is ``sigma_selection_``)."""
        self.sigma_selection_ = None
        if self.sigma == "auto":
            n = self._X_fit.shape[0]
            if n < 2:
                raise ValueError(f"sigma='auto' needs at least 2 samples, got n_samples = {n}")
            known_k = None if isinstance(self.n_clusters, str) else k
            semimetric: Literal["gaussian", "exponential"] = (
                "gaussian" if self.kernel_ == "gaussian" else "exponential"
            )
            self.sigma_selection_ = choose_sigma(self._X_fit, known_k, semimetric=semimetric)
            return self.sigma_selection_.sigma
        if self.sigma is None or self.sigma == "mean":
            return default_sigma(self._X_fit, w_fit, "mean")
        if self.sigma == "median":
            return default_sigma(self._X_fit, w_fit, "median")
        return float(self.sigma)

    def _self_kernel(self, Xc: _Float) -> _Float:
        """``K(x, x) = rho(x, 0)`` of the (translated) rows of ``Xc``: the kernel's base point
        is the origin of the translated data."""
        r = np.linalg.norm(Xc, axis=1)
        if self.kernel_ == "energy":
            return np.asarray(r ** float(self.alpha), dtype=np.float64)
        if self.kernel_ == "exponential":
            return np.asarray(-2.0 * np.expm1(-r / (2.0 * self.sigma_)), dtype=np.float64)
        return np.asarray(-2.0 * np.expm1(-(r**2) / (2.0 * self.sigma_**2)), dtype=np.float64)

    def _cross_kernel(self, Xc: _Float) -> _Float:
        """Kernel between the (translated) rows of ``Xc`` and the retained training points."""
        return np.asarray(
            energy_gram(Xc, self._X_fit, n_threads=self._threads(), **self._semimetric_kwargs()),
            dtype=np.float64,
        )

    def _nearest_mean(self, K: Any) -> _Int:
        """Labels from the kernel rows ``K`` (n_new x n_fit) to the retained training points."""
        return nearest_mean(K, self._assign, self._mean_sq_norms)

    def _nearest_mean_of_points(self, Xc: _Float) -> _Int:
        """Labels of the (translated) points ``Xc``, the cross kernel built in row blocks so
        that its memory stays bounded (``BLOCK_ELEMENTS`` entries) whatever ``len(Xc)``."""
        out = np.empty(Xc.shape[0], dtype=np.int64)
        step = max(1, BLOCK_ELEMENTS // max(1, self._X_fit.shape[0]))
        for start in range(0, Xc.shape[0], step):
            rows = slice(start, start + step)
            out[rows] = self._nearest_mean(self._cross_kernel(Xc[rows]))
        return out

    # ----------------------------------------------------------------------------- API
    @_validated_fit
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
        self._search = self._algorithm()
        kernel = resolved_kernel(self.kernel, self.n_clusters)
        semimetric = KERNEL_SEMIMETRICS.get(kernel)  # None for "precomputed", "knn", "auto"
        with naming_the_default_kernel(self.kernel, self.n_clusters):
            check_semimetric_parameters(
                semimetric, self.alpha, self.sigma, parameter="kernel", shown=kernel, power_name="energy"
            )
        X = self._validate_X(X, reset=True)
        n = X.shape[0]
        w = check_sample_weight(sample_weight, n)
        support = None if w is None or bool(np.all(w > 0)) else np.flatnonzero(w > 0)
        n_fit = n if support is None else support.size
        # "auto" (the only string the constraints admit) asks select_k; as_count refuses the
        # True that scikit-learn's Interval(Integral) admits.
        self.selection_, self.kernel_ = None, kernel
        self._selected_start: Optional[_Int] = None
        if kernel == "auto":
            with naming_the_default_kernel(self.kernel, self.n_clusters):
                self.selection_, self.kernel_, k = choose_kernel(self, X, w)
        elif kernel == "knn":
            self.selection_, k = knn_clusters(self, X, w)
        else:
            if isinstance(self.n_clusters, str):
                self.selection_ = select_n_clusters(
                    X, w, kernel, self.random_state, self._threads(), alpha=self.alpha
                )
            k = as_count(self.n_clusters, "n_clusters") if self.selection_ is None else self.selection_.k
        self.n_clusters_ = self._n_features_out = k  # transform's columns (get_feature_names_out)
        if self.kernel_ == "knn":
            fit_knn(self, X, k, self.selection_)
            return self
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
        elif self.selection_ is not None and self.selection_.k == k and k > 1:
            # The partition select_k chose starts the fit, so labels_ is that partition
            # (refined to a local optimum of the fitted kernel, where it already is).
            init = self._selected_start = np.asarray(self.selection_.labels, dtype=np.int64)

        # Run with the weights at a power-of-two scale near 1 and scale the figures back.
        w_run, exponent = power_of_two_scale(w_fit)
        weights_arg = None if w_run is None or bool(np.all(w_run == 1.0)) else w_run
        seed = check_random_state(None) if self.random_state is None else self.random_state
        if self.kernel == "precomputed":
            if not is_sparse(X):
                warn_if_distance_matrix(X, "X", DISTANCE_MATRIX_ADVICE.format(name="X"), stacklevel=3)
            self._support = support
            self.kernel_storage_ = "dense"
            result = self._cluster(self._training_kernel(X, support), k, init, weights_arg, seed, False)
        else:
            self.mean_ = np.average(X, axis=0, weights=w)
            X = X - self.mean_  # centred: see the module's docstring
            self._X_fit = X if support is None else X[support]
            if self.kernel_ != "energy":
                self.sigma_ = self._bandwidth(w_fit, k)
            self.kernel_storage_ = self._storage(n_fit)
            if self.kernel_storage_ == "dense":
                G = energy_gram(
                    self._X_fit, dtype=self._kernel_dtype, n_threads=self._threads(),
                    **self._semimetric_kwargs(),
                )
                result = self._cluster(G, k, init, weights_arg, seed, False)
            else:
                result = self._cluster(self._X_fit, k, init, weights_arg, seed, True)
        self._store_result(result, w_run, exponent)
        self._selected_start = None
        self.labels_ = self._label_zero_weights(X, w, support, self.labels_)
        self.cluster_sizes_ = np.bincount(self.labels_, minlength=k).astype(np.int64)
        return self

    def _training_kernel(self, X: Any, support: Optional[_Int]) -> Any:
        """The precomputed kernel of the points of positive weight."""
        if support is None:
            return X
        # Only the positive-weight block is clustered, but the kernel passed must obey the one
        # symmetry rule as a whole (its other rows label the zero-weight points).
        if not is_sparse(X):
            _core.check_kernel(np.ascontiguousarray(X, dtype=np.float64), self._threads())
        return X[support][:, support]

    def _store_result(self, result: ClusteringResult, w_run: Optional[_Float], exponent: int) -> None:
        """The fitted attributes of ``result``, run with the weights ``w_run * 2**-exponent``."""
        labels = np.asarray(result.labels, dtype=np.int64)
        s, self._assign, self._mean_sq_norms = cluster_means(
            labels, w_run, result.cluster_terms, self.n_clusters_
        )
        objective = float(np.ldexp(result.objective, exponent))
        within = float(np.ldexp(result.within, exponent))
        if not (np.isfinite(objective) and np.isfinite(within)):
            raise ValueError(
                "sample_weight and the kernel are so large that the objective or W overflows "
                "float64; divide sample_weight by a common factor (the clustering does not change)"
            )
        self.cluster_weights_ = np.ldexp(s, exponent)
        self.labels_ = labels
        self.objective_ = objective
        self.within_ = within
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged

    def _label_zero_weights(
        self, X: Any, w: Optional[_Float], support: Optional[_Int], labels: _Int
    ) -> _Int:
        """The labels of all points: those clustered, and the nearest mean for weight 0.

        ``X`` is the precomputed kernel, or the centred points."""
        if support is None or w is None:
            return labels
        rest = np.flatnonzero(w == 0)
        full = np.empty(w.size, dtype=np.int64)
        full[support] = labels
        if self.kernel == "precomputed":
            full[rest] = self._nearest_mean(X[rest][:, support])
        else:
            full[rest] = self._nearest_mean_of_points(X[rest])
        return full

    def fit_predict(
        self, X: Any, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None
    ) -> _Int:
        """Cluster ``X`` and return ``labels_`` (see :meth:`fit`)."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X: Any) -> _Int:
        """Assign each point to the cluster with the nearest weighted feature-space mean.

        ``label(x) = argmin_l ||phi(x) - mu_l||^2`` computed from the kernel between ``x``
        and the training points (ties go to the lowest label); with the kNN graph
        (``kernel_ == "knn"``), the majority label of the 10 nearest training points (see
        ``kernel``). With a kernel, on the training data this
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
        if self.kernel_ == "knn":
            return predict_knn(self, X)
        if self.kernel == "precomputed":
            return self._nearest_mean(X if self._support is None else X[:, self._support])
        return self._nearest_mean_of_points(X - self.mean_)

    @_if_points
    def transform(self, X: Any) -> _Float:
        """Squared feature-space distance of each point to each cluster's weighted mean.

        ``D[i, l] = ||phi(x_i) - mu_l||^2 = K(x_i, x_i) - (2 / s_l) sum_{y in C_l} w_y K(x_i, y)
        + ||mu_l||^2``, the mean ``mu_l`` of cluster ``l`` weighted by ``sample_weight`` and
        ``s_l`` its weight (``cluster_weights_``). ``argmin_l D[i, l]`` is :meth:`predict`'s
        label. Values that rounding would make slightly negative are set to 0.

        Not available for ``kernel="precomputed"`` (the attribute does not exist then): the
        kernel between new and training points lacks ``K(x, x)`` of the new points
        (:meth:`predict` works without it); nor for ``kernel="knn"``, whose graph defines no
        distance from a new point to a cluster. When ``kernel="auto"`` chose the kNN graph
        (``kernel_ == "knn"``) it raises ``ValueError`` (as :meth:`score` and
        :meth:`fit_transform` do); the method exists either way, so what a pipeline may call
        depends on the parameters alone, never on the data.

        Parameters
        ----------
        X : array_like of shape (n_new, n_features)
            New points.

        Returns
        -------
        ndarray of float64, shape (n_new, n_clusters)
            The squared distances.
        """
        check_is_fitted(self, "labels_")
        return self._distances(self._validate_X(X, reset=False))

    def _distances(self, X: _Float) -> _Float:
        """:meth:`transform` of validated points, as an array whatever ``set_output`` says."""
        if self.kernel_ == "knn":
            raise ValueError(KNN_HAS_NO_KERNEL)
        Xc = X - self.mean_
        out = np.empty((Xc.shape[0], self.n_clusters_), dtype=np.float64)
        step = max(1, BLOCK_ELEMENTS // max(1, self._X_fit.shape[0]))
        for start in range(0, Xc.shape[0], step):
            rows = slice(start, start + step)
            out[rows] = mean_distances(
                self._cross_kernel(Xc[rows]), self._assign, self._mean_sq_norms,
                self._self_kernel(Xc[rows]),
            )
        return out

    @_if_points
    def fit_transform(
        self, X: Any, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None
    ) -> _Float:
        """Cluster ``X`` and return :meth:`transform` of ``X``."""
        self.fit(X, sample_weight=sample_weight)
        return self._distances(self._validate_X(X, reset=False))

    @_if_points
    def score(self, X: Any, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None) -> float:
        """Opposite of the within-cluster dispersion of ``X`` under the fitted clusters.

        ``score = - sum_i w_i min_l ||phi(x_i) - mu_l||^2``: each point goes to its nearest
        fitted mean (:meth:`predict`) and contributes its weighted squared feature-space
        distance to that mean (the row minimum of :meth:`transform`), as
        ``KMeans.score`` is minus the inertia. The means stay those of the fit, so on the
        training data of a converged fit the score is ``-within_`` (up to rounding). Larger
        is better.

        Parameters
        ----------
        X : array_like of shape (n_new, n_features)
            Points (not for ``kernel="precomputed"`` or ``"knn"``; ``ValueError`` when
            ``kernel="auto"`` chose the kNN graph, see :meth:`transform`).
        y : ignored
            Present for API consistency.
        sample_weight : array_like of shape (n_new,), optional
            Point weights ``w_i >= 0`` (default 1).

        Returns
        -------
        float
            The score, ``<= 0``.
        """
        check_is_fitted(self, "labels_")
        D = self._distances(self._validate_X(X, reset=False))
        w = check_sample_weight(sample_weight, D.shape[0])
        nearest = D.min(axis=1)
        return -float(nearest.sum() if w is None else w @ nearest)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        precomputed = self.kernel == "precomputed"
        tags.input_tags.pairwise = precomputed
        tags.input_tags.sparse = precomputed
        # transform (the distances to the cluster means) only for kernels built from points
        # (see _has_points).
        tags.transformer_tags = (
            TransformerTags(preserves_dtype=["float64"]) if _has_points(self) else None
        )
        return tags


# TransformerMixin (its set_output machinery) replaced transform and fit_transform by plain
# functions wrapping their output; make them again exist only for kernels built from points.
for _name in ("transform", "fit_transform"):
    setattr(_KernelClustering, _name, _if_points(getattr(_KernelClustering, _name)))


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
        + PARAMS_DOC
        + """
    algorithm : {"hartigan", "lloyd", "lloyd-online"}, default "hartigan"
        "hartigan": kernel k-groups; "lloyd": batch kernel k-means; "lloyd-online": online
        kernel k-means (see :class:`KernelKMeans`).
"""
        + ATTRIBUTES_DOC
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
        n_clusters: Union[int, Literal["auto"]] = 2,
        *,
        kernel: Optional[Kernel] = None,
        alpha: float = 1.0,
        sigma: Sigma = None,
        algorithm: Algorithm = "hartigan",
        init: Init = "k-means++",
        n_init: int = 5,
        max_iter: int = 300,
        random_state: RandomState = None,
        n_threads: Optional[int] = None,
        kernel_storage: KernelStorage = "auto",
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

    _parameter_constraints: dict[str, list[Any]] = {
        **_KernelClustering._parameter_constraints,
        "algorithm": [StrOptions(set(ALGORITHMS))],
    }

    def _algorithm(self) -> Algorithm:
        return self.algorithm


class KernelKMeans(_KernelClustering):
    __doc__ = (
        """Kernel k-means: Lloyd's method in the feature space of an energy kernel.

    Minimises the same ``W`` as :class:`KernelKGroups` by reassigning points to the nearest
    feature-space mean (see :func:`kgroups_rs.kernel_kmeans`); usually a worse local optimum.

    Parameters
    ----------"""
        + PARAMS_DOC
        + """
    algorithm : {"lloyd", "lloyd-online"}, default "lloyd"
        "lloyd": all points are reassigned from the same means, then the means are updated;
        "lloyd-online": a point moves at once (TPAMI Algorithm 1, corrected).
    variant : {"batch", "online"}, optional
        Deprecated since 0.2.0 (removed in 0.3.0): ``variant="batch"`` is
        ``algorithm="lloyd"``, ``variant="online"`` is ``algorithm="lloyd-online"``.
"""
        + ATTRIBUTES_DOC
    )

    def __init__(
        self,
        n_clusters: Union[int, Literal["auto"]] = 2,
        *,
        kernel: Optional[Kernel] = None,
        alpha: float = 1.0,
        sigma: Sigma = None,
        algorithm: Algorithm = "lloyd",
        init: Init = "k-means++",
        n_init: int = 5,
        max_iter: int = 300,
        random_state: RandomState = None,
        n_threads: Optional[int] = None,
        kernel_storage: KernelStorage = "auto",
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

    _parameter_constraints: dict[str, list[Any]] = {
        **_KernelClustering._parameter_constraints,
        "algorithm": [StrOptions(set(LLOYD_ALGORITHMS))],
        "variant": [StrOptions(set(_VARIANTS), deprecated=set(_VARIANTS)), None],
    }

    def _algorithm(self) -> Algorithm:
        # The FutureWarning of a deprecated variant, and its agreement with algorithm.
        return cast(Algorithm, algorithm_from_variant(self.algorithm, self.variant, "KernelKMeans"))

