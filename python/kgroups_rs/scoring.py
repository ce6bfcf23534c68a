"""Scoring clusterings for scikit-learn's model selection: prediction strength.

:func:`prediction_strength_score` is a scorer (``scoring=`` of ``GridSearchCV``) whose value
is comparable across the number of clusters and across kernels;
:func:`choose_k_by_prediction_strength` applies Tibshirani & Walther's threshold rule to
``GridSearchCV``'s ``cv_results_`` (``refit=``). scikit-learn is imported on use.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral
from typing import Any

import numpy as np
import numpy.typing as npt

from ._estimator_auto import resolved_kernel

__all__ = ["choose_k_by_prediction_strength", "prediction_strength_score"]


def _prediction_strength(test_labels: npt.ArrayLike, predicted_labels: npt.ArrayLike) -> float:
    """The prediction strength of ``predicted_labels`` for the partition ``test_labels``.

    The minimum, over the groups j of ``test_labels`` with ``n_j >= 2`` points, of the
    fraction of the ``n_j (n_j - 1)`` ordered pairs of distinct points of group j that
    ``predicted_labels`` also puts in one group. NaN when every group has one point.

    Parameters
    ----------
    test_labels, predicted_labels : array_like of int, shape (n,)
        Two labelings of the same points.

    Returns
    -------
    float
        A proportion in [0, 1] (or NaN).
    """
    test = np.asarray(test_labels).ravel()
    predicted = np.asarray(predicted_labels).ravel()
    if test.shape != predicted.shape:
        raise ValueError(
            f"test_labels and predicted_labels must have one label per point, got "
            f"{test.shape[0]} and {predicted.shape[0]}"
        )
    _, test_codes = np.unique(test, return_inverse=True)
    _, predicted_codes = np.unique(predicted, return_inverse=True)
    # counts[j, c]: points of test group j that the prediction puts in group c
    counts = np.zeros((int(test_codes.max(initial=-1)) + 1, int(predicted_codes.max(initial=-1)) + 1))
    np.add.at(counts, (test_codes, predicted_codes), 1.0)
    sizes = counts.sum(axis=1)
    groups = sizes >= 2
    if not np.any(groups):
        return float("nan")
    together = (counts[groups] * (counts[groups] - 1.0)).sum(axis=1)
    return float(np.min(together / (sizes[groups] * (sizes[groups] - 1.0))))


def prediction_strength_score(estimator: Any, X: Any, y: Any = None) -> float:
    """Prediction strength (Tibshirani & Walther 2005) of a fitted clusterer on ``X``: a
    scorer for scikit-learn's ``GridSearchCV`` (``scoring=prediction_strength_score``).

    ``estimator`` has been fitted on the training fold; ``X`` is the evaluation fold.

    1. The **test partition**: a clone of ``estimator`` (the same parameters, with
       ``n_clusters`` set to the fitted ``n_clusters_``; the default ``kernel=None`` set to
       what it meant for the fit, "auto" after ``n_clusters="auto"``) is fitted on ``X``.
    2. The **prediction**: ``estimator.predict(X)``, each evaluation point given a cluster of
       the training fold's model.
    3. The score: for each test cluster j with ``n_j >= 2`` points, the fraction of its
       ``n_j (n_j - 1)`` ordered pairs of distinct points that the prediction also puts in
       one cluster; the score is the minimum of these fractions over j.

    It is a proportion computed on the same points whatever the number of clusters or the
    kernel, so candidates of a grid over both can be compared; larger is better (1: the
    training model reproduces every test cluster).

    Parameters
    ----------
    estimator : fitted clusterer
        A fitted :class:`~kgroups_rs.KernelKGroups`, :class:`~kgroups_rs.KernelKMeans` (or any
        scikit-learn clusterer with ``n_clusters``, ``predict`` and ``labels_``).
    X : array_like of shape (n, D)
        The evaluation fold.
    y : ignored
        Present for the scorer signature.

    Returns
    -------
    float
        The prediction strength, in [0, 1]; NaN when every test cluster has one point.

    Notes
    -----
    The score falls as k grows even when the data have k groups (more clusters, more pairs
    split by chance), and it is 1 for k = 1; so **do not take the k of the largest score**.
    Tibshirani & Walther choose the *largest* k whose prediction strength is at least a
    threshold (0.8 to 0.9); :func:`choose_k_by_prediction_strength` applies that rule to
    ``cv_results_`` and serves as ``GridSearchCV``'s ``refit``::

        from sklearn.model_selection import GridSearchCV, KFold
        search = GridSearchCV(
            KernelKGroups(), {"n_clusters": range(1, 9), "kernel": ["energy", "gaussian"]},
            scoring=prediction_strength_score, refit=choose_k_by_prediction_strength,
            cv=KFold(3, shuffle=True, random_state=0),
        ).fit(X)
        search.best_params_

    Shuffle the folds (``KFold(shuffle=True)``) when the rows are ordered by group: unshuffled
    folds may hold whole groups. Each evaluation fold must hold enough points per cluster
    (Tibshirani & Walther use two folds). Fitting each candidate once more per fold, on the
    evaluation fold, doubles the cost of the search.

    How often the threshold rule (0.8) found the true k: ``KernelKGroups(random_state=0)``,
    ``n_clusters`` 1 ... 8, ``KFold(3, shuffle=True, random_state=0)``, standardised data;
    ``make_blobs(300, centers=k, random_state=k)`` in 2-D. "+ gaussian": the grid also over
    ``kernel=["energy", "gaussian"]``. For comparison, :func:`~kgroups_rs.select_k`'s k and
    the adjusted Rand index of the energy fit at the true k (how separable the groups are).

    ===========  ======  =========  ==========  ========  ===========
    data         true k  PS energy  + gaussian  select_k  ARI at true
    ===========  ======  =========  ==========  ========  ===========
    blobs        2       2          2           2         0.97
    blobs        3       3          3           3         1.00
    blobs        4       3          3           3         0.68
    blobs        5       4          4           4         0.75
    blobs        6       6          6           6         0.95
    iris         3       2          2           3         0.61
    wine         3       3          3           3         0.91
    ===========  ======  =========  ==========  ========  ===========

    5 of 7 for the rule; where it misses, groups overlap (blobs 4 and 5: ARI 0.68, 0.75 at
    the true k; iris: two species overlap) and a test fold's clusters do not reproduce.

    References
    ----------
    R. Tibshirani and G. Walther, "Cluster validation by prediction strength", Journal of
    Computational and Graphical Statistics 14(3), 511-528, 2005.
    """
    from sklearn.base import clone

    data = np.asarray(X)
    predicted = estimator.predict(data)
    test_model = clone(estimator)
    k = getattr(estimator, "n_clusters_", None)
    params = test_model.get_params()
    if k is not None and "n_clusters" in params:
        k = min(int(k), data.shape[0])
        fixed: dict[str, Any] = {"n_clusters": k}
        if "kernel" in params and params["kernel"] is None:
            # The default kernel follows n_clusters: keep the kernel rule of the fit.
            fixed["kernel"] = resolved_kernel(None, params["n_clusters"])
        test_model.set_params(**fixed)
    test_model.fit(data)
    return _prediction_strength(test_model.labels_, predicted)


def choose_k_by_prediction_strength(
    cv_results: Mapping[str, Any], threshold: float = 0.8, *, score: str = "score"
) -> int:
    """Tibshirani & Walther's rule on ``GridSearchCV``'s ``cv_results_``: the candidate with
    the largest ``n_clusters`` whose mean prediction strength reaches ``threshold``.

    Among candidates with that ``n_clusters`` (other kernels, say) the one with the highest
    mean score wins. When no candidate reaches the threshold (and the grid has no
    ``n_clusters=1``, whose strength is 1), the candidate with the highest mean score.

    Use it as ``GridSearchCV(..., scoring=prediction_strength_score,
    refit=choose_k_by_prediction_strength)``; for another threshold,
    ``refit=functools.partial(choose_k_by_prediction_strength, threshold=0.9)``.

    Parameters
    ----------
    cv_results : mapping
        ``GridSearchCV.cv_results_``; its ``params`` hold an integer ``n_clusters``.
    threshold : float, default 0.8
        The least mean prediction strength, in (0, 1].
    score : str, default "score"
        The scorer's name: the column ``mean_test_<score>`` is read (``"score"`` for a single
        scorer, the key of ``prediction_strength_score`` in a dict of scorers).

    Returns
    -------
    int
        The index of the chosen candidate in ``cv_results`` (``best_index_``).
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    column = f"mean_test_{score}"
    if column not in cv_results:
        raise ValueError(f"cv_results has no {column!r} column; pass score= the scorer's name")
    scores = np.asarray(cv_results[column], dtype=np.float64)
    params = list(cv_results["params"])
    ks: list[int] = []
    for candidate in params:
        k = candidate.get("n_clusters")
        if not isinstance(k, Integral) or isinstance(k, bool):
            raise ValueError(
                f"every candidate needs an integer n_clusters in its params, got {candidate!r}"
            )
        ks.append(int(k))
    valid = ~np.isnan(scores)
    if not np.any(valid):
        raise ValueError("every candidate's mean prediction strength is NaN")
    passing = [i for i in range(len(params)) if valid[i] and scores[i] >= threshold]
    if passing:
        return max(passing, key=lambda i: (ks[i], scores[i], -i))
    candidates = [int(i) for i in np.flatnonzero(valid)]
    return max(candidates, key=lambda i: (scores[i], -ks[i], -i))
