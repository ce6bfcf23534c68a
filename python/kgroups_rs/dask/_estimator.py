"""The Dask estimator :class:`KernelKGroups`."""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

import numpy as np

from .._estimator_auto import naming_the_default_kernel, resolved_kernel
from .._kernel_options import KERNEL_SEMIMETRICS, Landmarks, Sigma, check_semimetric_parameters
from .._validation import Init, RandomState, check_int, check_n_threads, seed_from_random_state
from ..selection import SelectionResult
from ._auto import choose, knn_model, knn_vote_block, selection_sample
from ._exact import DEFAULT_MAX_MOVES, DaskExactResult, kernel_kgroups_exact
from ._features import DaskAlgorithm, predict_block
from ._functions import kernel_kgroups_nystrom
from ._inputs import as_row_chunked
from ._result import DaskClusteringResult

#: The kernels of the Dask estimator: those of :class:`kgroups_rs.KernelKGroups` built from
#: points ("precomputed" needs the n x n matrix, which the distributed path never forms).
#: "knn" is the kNN graph and "auto" chooses between the energy kernel and it (see the class
#: docstring); None, the default, is "energy", or "auto" with n_clusters="auto".
DaskKernel = Literal["energy", "exponential", "gaussian", "knn", "auto"]


class KernelKGroups:
    """Distributed kernel k-groups (Nyström) as a scikit-learn style estimator on dask arrays.

    The parameters are those of the single-machine :class:`kgroups_rs.KernelKGroups` (same
    names, same defaults, except ``n_threads``: see below), plus the Nyström approximation's
    ``n_components`` and ``landmarks`` and the Dask-only ``persist_features``. ``fit`` runs
    :func:`kernel_kgroups_nystrom`; ``labels_`` is a lazy dask array. ``predict`` maps new
    points to features with the fitted Nyström map and assigns each to the nearest cluster
    mean in feature space, ``argmin_l ||phi(x) - mu_l||^2`` with ``mu_l = S_l / s_l``, chunk
    by chunk (``map_blocks``), returning a dask array; nothing is gathered.

    ``n_clusters="auto"`` and ``kernel="auto"`` choose on the client, with
    :func:`kgroups_rs.select_k` run exactly as by the single-machine estimator, on a seeded
    uniform sample of at most 5 000 rows of X (all of X when n <= 5 000); X is read once
    more to refuse NaN/inf anywhere. When the energy kernel is chosen, X is then fitted by
    the Nyström path with the chosen k. With the kNN graph (``kernel="knn"``, or chosen:
    ``kernel_ == "knn"``), no distributed kNN graph of all n points is built: the sample is
    partitioned by the normalised cut of its 10-nearest-neighbour graph (select_k's
    partition when it chose the same k) and every row of X, in ``fit`` as in ``predict``,
    takes the majority label of its 10 nearest sample points (``map_blocks``; ties to the
    label of the nearest tied point), as the single-machine ``predict`` does for
    ``kernel_="knn"``; ``result_``, ``objective_``, ``within_``, ``n_iter_``, ``converged_``
    and ``cluster_centers_`` are then absent.

    Parameters
    ----------
    n_clusters : int or "auto", default 2
        Number of clusters k, ``1 <= k <= n_components``; or "auto": chosen by
        :func:`kgroups_rs.select_k` (k = 1 ... 10) on the selection sample (see above), with
        kernel "energy", "knn" or "auto" (the default's) only. Takes no ``sample_weight``,
        nor do "knn" and "auto".
    kernel : {"energy", "exponential", "gaussian", "knn", "auto"} or None, default None
        The kernel, as in :class:`kgroups_rs.KernelKGroups`. None (the default): "energy"
        when ``n_clusters`` is a number, "auto" with ``n_clusters="auto"``.
        "energy" ``rho = ||x - y||**alpha``;
        "exponential" ``2 - 2 exp(-||x - y|| / (2 sigma))``; "gaussian"
        ``2 - 2 exp(-||x - y||**2 / (2 sigma**2))``. ("precomputed" is not offered: the
        distributed path never forms an n x n matrix.) "knn": the normalised cut of the
        10-nearest-neighbour graph of the selection sample and the vote (see above).
        "auto": the energy kernel or the kNN graph, chosen by :func:`kgroups_rs.select_k`
        (``kernel="auto"``: with a number of clusters the kernel alone, at that k) on the
        selection sample (see above). With "knn" and "auto", ``alpha`` and ``sigma`` must keep their defaults.
    alpha : float, default 1.0
        Exponent of the "energy" kernel, ``0 < alpha <= 2``. With the other kernels a value
        other than 1.0 raises ValueError in ``fit`` rather than being ignored.
    sigma : float, "mean", "median" or "auto", optional
        Bandwidth of the "exponential" and "gaussian" kernels: a positive number, or a rule.
        "mean" (also ``None``, the default): the root mean squared distance between points,
        from one pass over X; "median" and "auto" (:func:`kgroups_rs.choose_sigma` for
        ``n_clusters`` groups): on the uniform sample of at most 20 000 rows brought to
        the client (see :func:`kernel_kgroups_nystrom`). With "energy", any sigma raises
        ValueError in
        ``fit``.
    algorithm : {"hartigan", "lloyd"}, default "hartigan"
        "hartigan": kernel k-groups (one sequential Hartigan sweep per chunk and round);
        "lloyd": kernel k-means (one batch nearest-mean assignment per round). The
        single-machine "lloyd-online" has no distributed counterpart.
    init : "k-means++", "spectral" or dask.array.Array of int, default "k-means++"
        "k-means++": Hartigan's method from feature-space k-means++ on a sample of the
        features, then each point goes to the nearest of the sample's cluster means;
        "spectral": the spectral embedding of the Nyström kernel, rounded on the client's
        sample (see :func:`kernel_kgroups_nystrom`); or the n initial labels (then
        ``n_init`` must be 1).
    n_init : int, default 5
        Independent starts; the largest objective wins. They run together: each round's
        tasks of every start go to the scheduler at once, and the starts share the features.
        Each start keeps 8 n bytes of labels on the workers.
    max_iter : int, default 300
        Maximum number of rounds per start.
    random_state : None, int, numpy Generator or RandomState
        Seed of the sample, the landmarks and the starts. The same seed and chunking give the
        same result.
    n_threads : int or None, default 1
        Threads each dask task's Rust work uses on its worker (the features' kernel, the
        sweeps' bookkeeping); ``None`` or -1: all of the worker machine's cores; -2, -3, ...:
        all but 1, 2, .... The default differs from the single-machine estimator's (all
        cores) for a distributed reason: dask already runs one task per worker thread, and a
        machine's workers together hold one thread per core by default, so all cores per
        task would run cores x cores threads on every machine (dask's nannies pin the BLAS
        libraries to one thread for the same reason). Raise it for workers with fewer
        threads than cores.
    n_components : int, default 256
        Number of Nyström landmarks m, ``n_clusters <= m <= n`` and at most 20 000.
    landmarks : {"k-means++", "uniform"}, default "k-means++"
        How the landmarks are chosen on the client's sample (see
        :func:`kgroups_rs.nystrom_features`).
    persist_features : bool, optional
        Keep the features on the workers (8 n r bytes) or recompute them from X in every
        round. Default: persist when they take at most a quarter of the workers' memory.
    method : {"nystrom", "exact"}, default "nystrom"
        "nystrom": the Nyström approximation above. "exact": exact matrix-free kernel
        k-groups (:func:`kgroups_rs.dask.kernel_kgroups_exact`): every chunk keeps its rows'
        kernel sums to every cluster, each round makes a batch of exact Hartigan moves
        (re-validated one by one on the client), and the result is a Hartigan local optimum
        of the exact kernel, checked by an independent pass (``verified_``). Needs a number
        ``n_clusters`` and the kernel "energy", "exponential" or "gaussian"; ``init``
        "k-means++" or "spectral" (on a sample of at most 4096 rows) or labels;
        ``n_components``, ``landmarks``, ``persist_features`` and ``algorithm="lloyd"`` do
        not apply. Costs n^2 D / 2 kernel evaluations per pass over all pairs (the first and
        the final check) plus n D per move.
    max_moves_per_round : int, default 1024
        With ``method="exact"``: the candidate moves a round considers.

    Attributes
    ----------
    labels_ : dask.array.Array of int64
    n_clusters_ : int
        The number of clusters fitted (chosen with ``n_clusters="auto"``).
    kernel_ : str
        The kernel used, one of the values ``kernel`` accepts: ``kernel``, or for "auto"
        (and the default with ``n_clusters="auto"``) the one chosen, "energy" or "knn".
    selection_ : SelectionResult or None
        select_k's table with either "auto" (on the selection sample), else None.
    objective_, within_ : float
    n_iter_ : int
    converged_ : bool
    cluster_centers_ : ndarray of shape (k, r)
        The clusters' feature-space means.
    result_ : DaskClusteringResult or DaskExactResult
    verified_ : bool
        With ``method="exact"``: True when the final independent exact pass found no
        improving single move (a Hartigan local optimum).
    """

    def __init__(
        self,
        n_clusters: Union[int, Literal["auto"]] = 2,
        *,
        kernel: Optional[DaskKernel] = None,
        alpha: float = 1.0,
        sigma: Sigma = None,
        algorithm: DaskAlgorithm = "hartigan",
        init: Init = "k-means++",
        n_init: int = 5,
        max_iter: int = 300,
        random_state: RandomState = None,
        n_threads: Optional[int] = 1,
        n_components: int = 256,
        landmarks: Landmarks = "k-means++",
        persist_features: Optional[bool] = None,
        method: Literal["nystrom", "exact"] = "nystrom",
        max_moves_per_round: int = DEFAULT_MAX_MOVES,
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
        self.n_components = n_components
        self.landmarks = landmarks
        self.persist_features = persist_features
        self.method = method
        self.max_moves_per_round = max_moves_per_round

    _PARAMS = (
        "n_clusters", "kernel", "alpha", "sigma", "algorithm", "init", "n_init", "max_iter",
        "random_state", "n_threads", "n_components", "landmarks", "persist_features", "method",
        "max_moves_per_round",
    )

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters."""
        return {name: getattr(self, name) for name in self._PARAMS}

    def set_params(self, **params: Any) -> KernelKGroups:
        """Set constructor parameters; unknown names raise ValueError."""
        for name, value in params.items():
            if name not in self._PARAMS:
                raise ValueError(f"invalid parameter {name!r} for KernelKGroups")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        return f"KernelKGroups(n_clusters={self.n_clusters!r}, n_components={self.n_components!r})"

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> KernelKGroups:
        """Cluster X (a dask array chunked along rows); ``y`` is ignored."""
        kernel: Any = resolved_kernel(self.kernel, self.n_clusters)
        semimetric = KERNEL_SEMIMETRICS.get(kernel) if isinstance(kernel, str) else None
        if semimetric is None and kernel not in ("knn", "auto"):
            raise ValueError(
                f"kernel must be one of {(*KERNEL_SEMIMETRICS, 'knn', 'auto')} or None, got {kernel!r}"
                + (" (the distributed path never forms the n x n kernel matrix)"
                   if kernel == "precomputed" else "")
            )
        if kernel != "auto":
            check_semimetric_parameters(
                semimetric, self.alpha, self.sigma, parameter="kernel", shown=kernel,
                power_name="energy",
            )  # fmt: skip
        if self.method not in ("nystrom", "exact"):
            raise ValueError(f"method must be 'nystrom' or 'exact', got {self.method!r}")
        auto_k = isinstance(self.n_clusters, str)
        if self.method == "exact":
            return self._fit_exact(X, kernel, semimetric, sample_weight)
        if auto_k and self.n_clusters != "auto":
            raise ValueError(f"n_clusters must be a positive int or 'auto', got {self.n_clusters!r}")
        k: int = 0 if auto_k else check_int(self.n_clusters, "n_clusters", 1)
        self.selection_: Optional[SelectionResult] = None
        self.kernel_: str = kernel
        seed: Any = self.random_state
        if auto_k or kernel in ("knn", "auto"):
            with naming_the_default_kernel(self.kernel, self.n_clusters):
                if sample_weight is not None:
                    raise ValueError(
                        "n_clusters='auto', kernel='auto' and kernel='knn' do not take "
                        "sample_weight (select_k and the kNN graph have no weights); give "
                        "n_clusters and a kernel such as kernel='energy'"
                    )
                if kernel == "auto" and (self.alpha != 1.0 or self.sigma is not None):
                    raise ValueError(
                        "kernel='auto' chooses the kernel itself: leave alpha at 1.0 and sigma at None"
                    )
            X = as_row_chunked(X)
            # One seed for the sample, the selection and the fit (a Generator is drawn once).
            seed = seed_from_random_state(self.random_state)
            sample = selection_sample(X, seed)
            n_init, max_iter = check_int(self.n_init, "n_init", 1), check_int(self.max_iter, "max_iter", 1)
            self.selection_, self.kernel_, k = choose(
                self.n_clusters, kernel, sample, seed, n_init, max_iter
            )
            if self.kernel_ == "knn":
                self._fit_knn(X, sample, k, seed, n_init, max_iter)
                return self
            semimetric = "power"
        self.n_clusters_: int = k
        self.__dict__.pop("_knn", None)
        assert semimetric is not None
        result = kernel_kgroups_nystrom(
            X, k, self.init, n_components=self.n_components,
            semimetric=semimetric, alpha=self.alpha, sigma=self.sigma,
            landmarks=self.landmarks, algorithm=self.algorithm, weights=sample_weight,
            n_init=self.n_init, max_iter=self.max_iter, random_state=seed,
            n_threads=self.n_threads, persist_features=self.persist_features,
        )
        self.result_: Union[DaskClusteringResult, DaskExactResult] = result
        self.__dict__.pop("verified_", None)
        self.labels_ = result.labels
        self.objective_ = result.objective
        self.within_ = result.within
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.cluster_centers_ = result.centres
        return self

    def _fit_exact(self, X: Any, kernel: Any, semimetric: Any, sample_weight: Any) -> KernelKGroups:
        """method="exact": :func:`kernel_kgroups_exact`."""
        if kernel in ("knn", "auto") or semimetric is None or isinstance(self.n_clusters, str):
            raise ValueError(
                "method='exact' needs a number n_clusters and kernel 'energy', 'exponential' or "
                f"'gaussian'; got n_clusters={self.n_clusters!r}, kernel={kernel!r}"
            )
        if self.algorithm != "hartigan":
            raise ValueError(
                f"method='exact' runs Hartigan's method; algorithm={self.algorithm!r} is not offered"
            )
        for name in ("cluster_centers_", "_knn"):
            self.__dict__.pop(name, None)
        self.selection_ = None
        self.kernel_ = kernel
        k = check_int(self.n_clusters, "n_clusters", 1)
        self.n_clusters_ = k
        result = kernel_kgroups_exact(
            X, k, self.init, semimetric=semimetric, alpha=self.alpha, sigma=self.sigma,
            weights=sample_weight, n_init=self.n_init, max_iter=self.max_iter,
            max_moves_per_round=self.max_moves_per_round, random_state=self.random_state,
            n_threads=self.n_threads,
        )
        self.result_ = result
        self.labels_ = result.labels
        self.objective_ = result.objective
        self.within_ = result.within
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.verified_: bool = result.verified
        return self

    def _fit_knn(self, X: Any, sample: Any, k: int, seed: int, n_init: int, max_iter: int) -> None:
        """kernel_="knn": the graph partition of the sample, and every row of X labelled by
        the 10-nearest-neighbour vote among the sample's points."""
        for name in ("result_", "objective_", "within_", "n_iter_", "converged_", "cluster_centers_"):
            self.__dict__.pop(name, None)
        self.n_clusters_ = k
        self._knn = knn_model(sample, k, self.selection_, seed, n_init, max_iter)
        self.labels_ = self._predict_knn(X).persist()

    def _predict_knn(self, X: Any) -> Any:
        return X.map_blocks(
            knn_vote_block, self._knn, dtype=np.int64, drop_axis=1, chunks=(X.chunks[0],)
        )

    def predict(self, X: Any) -> Any:
        """The nearest cluster mean in feature space of every row of X, as a dask array."""
        if getattr(self, "kernel_", None) == "knn":
            X = as_row_chunked(X)
            if X.shape[1] != self._knn._knn_points.shape[1]:
                raise ValueError(
                    f"X has {X.shape[1]} features but the model was fitted on "
                    f"{self._knn._knn_points.shape[1]}"
                )
            return self._predict_knn(X)
        if not hasattr(self, "result_"):
            raise ValueError("this KernelKGroups is not fitted yet; call fit first")
        if isinstance(self.result_, DaskExactResult):
            raise NotImplementedError(
                "predict is not offered with method='exact' (it would read every training "
                "point for every new one); use labels_, or method='nystrom'"
            )
        feature_map = self.result_.feature_map
        assert feature_map is not None
        X = as_row_chunked(X)
        if X.shape[1] != feature_map.mean.shape[0]:
            raise ValueError(
                f"X has {X.shape[1]} features but the model was fitted on {feature_map.mean.shape[0]}"
            )
        return X.map_blocks(
            predict_block, feature_map, self.result_.centres, check_n_threads(self.n_threads),
            dtype=np.int64, drop_axis=1,
            chunks=(X.chunks[0],),
        )

    def fit_predict(self, X: Any, y: Any = None, sample_weight: Any = None) -> Any:
        """``fit(X).labels_``."""
        return self.fit(X, sample_weight=sample_weight).labels_
