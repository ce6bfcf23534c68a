"""``n_clusters="auto"``, ``kernel="auto"`` and ``kernel="knn"`` of the Dask
:class:`KernelKGroups`.

They work on a seeded uniform sample of at most :data:`SELECTION_ROWS` rows brought to the
client, with :func:`kgroups_rs.select_k` exactly as the single-machine estimator does (its
helpers are reused). With the kNN graph (asked for or chosen), the sample is partitioned by
the graph and every point of X gets the 10-nearest-neighbour vote among the labelled sample
points (chunk by chunk), as the single-machine estimator's ``predict`` does for
``kernel_="knn"``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Optional

import dask
import numpy as np

from .._estimator_auto import choose_kernel, fit_knn, knn_clusters, predict_knn
from .._estimator_helpers import select_n_clusters
from .._validation import splitmix
from ..selection import SelectionResult
from ._features import FloatArray, IntArray, first_bad
from ._inputs import raise_first_bad, row_blocks

#: Rows of X the selection runs on (select_k's table costs many fits of the sample).
SELECTION_ROWS = 5_000


def selection_sample(X: Any, seed: int) -> FloatArray:
    """A uniform sample of at most :data:`SELECTION_ROWS` rows of X (sorted, drawn with
    ``seed``), after one pass that refuses NaN/inf anywhere in X."""
    offsets = [0, *np.cumsum(X.chunks[0])[:-1].tolist()]
    raise_first_bad(list(dask.compute(*[dask.delayed(first_bad)(b) for b in row_blocks(X)])), offsets)
    n = X.shape[0]
    size = min(n, SELECTION_ROWS)
    rng = np.random.default_rng(splitmix(splitmix(seed)))
    rows = np.sort(rng.choice(n, size=size, replace=False)) if size < n else np.arange(n)
    return np.ascontiguousarray(X[rows].compute(), dtype=np.float64)


def choose(
    n_clusters: Any, kernel: str, sample: FloatArray, seed: int, n_init: int, max_iter: int
) -> tuple[Optional[SelectionResult], str, int]:
    """``(selection, kernel_, k)``: for ``kernel="auto"`` :func:`choose_kernel` on the sample
    ("energy" or "knn"); for ``kernel="knn"`` :func:`knn_clusters`; else
    :func:`select_n_clusters` for ``n_clusters="auto"``."""
    holder = _holder(n_clusters, seed, n_init, max_iter)
    if kernel == "auto":
        return choose_kernel(holder, sample, None)
    if kernel == "knn":
        selection, k = knn_clusters(holder, sample, None)
        return selection, kernel, k
    selection = select_n_clusters(sample, None, kernel, seed, None)
    return selection, kernel, int(selection.k)


def _holder(n_clusters: Any, seed: int, n_init: int, max_iter: int) -> SimpleNamespace:
    """What the single-machine helpers read of an estimator (the client uses all cores)."""
    return SimpleNamespace(
        n_clusters=n_clusters, random_state=seed, n_init=n_init, max_iter=max_iter,
        _search="hartigan", _threads=_all_cores,
    )  # fmt: skip


def _all_cores() -> Optional[int]:
    return None


def knn_model(
    sample: FloatArray, k: int, selection: Optional[SelectionResult], seed: int, n_init: int,
    max_iter: int,
) -> SimpleNamespace:
    """The kNN graph's partition of the sample into k clusters and the points it labels
    (``labels_``, ``n_clusters_``, ``_knn_points``: what :func:`predict_knn` reads)."""
    model = _holder(k, seed, n_init, max_iter)
    model.n_clusters_ = k
    fit_knn(model, sample, k, selection)
    return model


def knn_vote_block(block: Any, model: SimpleNamespace) -> IntArray:
    """The 10-nearest-neighbour vote among the labelled sample points of each row."""
    return predict_knn(model, np.ascontiguousarray(block, dtype=np.float64))
