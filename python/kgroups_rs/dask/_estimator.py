"""The Dask estimator :class:`KernelKGroups`."""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

import numpy as np

from .._kernel_options import Landmarks, Semimetric
from .._validation import Init, RandomState, check_n_threads
from ._features import DaskAlgorithm, predict_block
from ._functions import kernel_kgroups_nystrom
from ._inputs import as_row_chunked


class KernelKGroups:
    """Distributed kernel k-groups (Nyström) as a scikit-learn style estimator on dask arrays.

    ``fit`` runs :func:`kernel_kgroups_nystrom`; ``labels_`` is a lazy dask array. ``predict``
    maps new points to features with the fitted Nyström map and assigns each to the nearest
    cluster mean in feature space, ``argmin_l ||phi(x) - mu_l||^2`` with ``mu_l = S_l / s_l``,
    chunk by chunk (``map_blocks``), returning a dask array; nothing is gathered.

    Parameters
    ----------
    n_clusters : int, default 2
        Number of clusters k.
    n_components, semimetric, alpha, sigma, landmarks, algorithm, init, n_init, max_iter,
    random_state, n_threads, persist_features
        As in :func:`kernel_kgroups_nystrom`.

    Attributes
    ----------
    labels_ : dask.array.Array of int64
    objective_, within_ : float
    n_iter_ : int
    converged_ : bool
    cluster_centers_ : ndarray of shape (k, r)
        The clusters' feature-space means.
    result_ : DaskClusteringResult
    """

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        n_components: int = 256,
        semimetric: Semimetric = "power",
        alpha: float = 1.0,
        sigma: Union[float, Literal["mean", "median"], None] = None,
        landmarks: Landmarks = "k-means++",
        algorithm: DaskAlgorithm = "hartigan",
        init: Init = "k-means++",
        n_init: int = 1,
        max_iter: int = 300,
        random_state: RandomState = None,
        n_threads: Optional[int] = 1,
        persist_features: Optional[bool] = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.semimetric = semimetric
        self.alpha = alpha
        self.sigma = sigma
        self.landmarks = landmarks
        self.algorithm = algorithm
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_threads = n_threads
        self.persist_features = persist_features

    _PARAMS = (
        "n_clusters", "n_components", "semimetric", "alpha", "sigma", "landmarks", "algorithm",
        "init", "n_init", "max_iter", "random_state", "n_threads", "persist_features",
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
        result = kernel_kgroups_nystrom(
            X, self.n_clusters, self.init, n_components=self.n_components,
            semimetric=self.semimetric, alpha=self.alpha, sigma=self.sigma,
            landmarks=self.landmarks, algorithm=self.algorithm, weights=sample_weight,
            n_init=self.n_init, max_iter=self.max_iter, random_state=self.random_state,
            n_threads=self.n_threads, persist_features=self.persist_features,
        )
        self.result_ = result
        self.labels_ = result.labels
        self.objective_ = result.objective
        self.within_ = result.within
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.cluster_centers_ = result.centres
        return self

    def predict(self, X: Any) -> Any:
        """The nearest cluster mean in feature space of every row of X, as a dask array."""
        if not hasattr(self, "result_"):
            raise ValueError("this KernelKGroups is not fitted yet; call fit first")
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

