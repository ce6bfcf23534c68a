"""Figures of clusterings (matplotlib, the optional extra ``plot``).

matplotlib is imported only when a figure is drawn; without it the functions raise an
``ImportError`` that says how to install it. Figures are drawn on
:class:`matplotlib.figure.Figure` objects directly (no ``pyplot``), so no GUI backend is
needed and nothing global is changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
import numpy.typing as npt

from ._atomic import write_atomically
from ._figures import figure_format, require_matplotlib

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["match_labels", "plot_clusters", "save_clusters_figure", "save_figure"]

# Colour-blind-safe qualitative palette (Okabe & Ito), then matplotlib's tab20.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")


def _colour(j: int) -> Any:
    if j < len(_PALETTE):
        return _PALETTE[j]
    from matplotlib import colormaps

    return colormaps["tab20"]((j - len(_PALETTE)) % 20)


def match_labels(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """``y_pred`` renumbered so that each cluster carries the label of the class it matches.

    The matching maximises the number of points whose cluster and class agree (Hungarian
    algorithm on the contingency table, as in :func:`kgroups_rs.accuracy.clustering_accuracy`),
    so the points with ``match_labels(y_true, y_pred) != y_true`` are exactly those counted as
    errors by the accuracy. Both inputs must be integer labels ``>= 0``. Clusters left without
    a class (more clusters than classes) get labels after the largest class label.
    """
    from . import _core

    t = np.asarray(y_true, dtype=np.int64)
    p = np.asarray(y_pred, dtype=np.int64)
    k_t, k_p = int(t.max()) + 1, int(p.max()) + 1
    table = np.zeros((k_p, k_t), dtype=np.int64)
    np.add.at(table, (p, t), 1)
    rows, cols = _core.linear_assignment(table.astype(np.float64), maximize=True)
    mapping = np.full(k_p, -1, dtype=np.int64)
    mapping[rows] = cols
    unmatched = np.flatnonzero(mapping < 0)
    mapping[unmatched] = k_t + np.arange(unmatched.size)
    return mapping[p]


def _pca_2d(X: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The first two principal components of ``X`` and the fraction of variance of each."""
    centred = X - X.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    var = s**2
    frac = var[:2] / var.sum() if var.sum() > 0 else np.zeros(2)
    return centred @ vt[:2].T, frac


def plot_clusters(
    ax: Axes,
    X: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    y_true: Optional[npt.ArrayLike] = None,
    title: Optional[str] = None,
    names: Optional[Sequence[str]] = None,
    log_x: bool = False,
    thresholds: Optional[npt.ArrayLike] = None,
    feature_names: Optional[Sequence[str]] = None,
    equal_aspect: bool = True,
) -> None:
    """Draw a clustering on ``ax``: one colour per cluster and a legend.

    One-dimensional data are drawn as a stacked histogram (one colour per cluster),
    two-dimensional data as a scatter plot, and higher-dimensional data as a scatter plot of
    their first two principal components -- or, when the second component carries
    essentially none of the variance (below 0.1%: the points lie on a line), as a histogram
    of the first. Clusters are named as their labels are numbered, ``cluster 0`` to
    ``cluster k-1``.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    X : array_like of shape (n,) or (n, D)
        The data.
    labels : array_like of int, shape (n,)
        The cluster of each point, ``0 .. k-1``.
    y_true : array_like of int, shape (n,), optional
        True classes. The clusters are then renumbered to match the classes (so colours
        agree with ``names``), and in scatter plots the points whose cluster does not match
        their class are marked with a black cross.
    title : str, optional
        Axes title.
    names : sequence of str, optional
        Legend names of the classes (with ``y_true``) or clusters.
    log_x : bool, default False
        Logarithmic x axis (histograms of positive, skewed data).
    thresholds : array_like of float, optional
        Cut points to mark with dashed vertical lines (one-dimensional data).
    feature_names : sequence of str, optional
        Names of the columns of ``X`` (for one- and two-dimensional data, the axis labels).
    equal_aspect : bool, default True
        One unit the same length on both axes of a two-dimensional scatter plot (pass False
        for columns in different units).
    """
    A = np.asarray(X, dtype=np.float64)
    if A.ndim == 1:
        A = A[:, None]
    lab = np.asarray(labels, dtype=np.int64)
    wrong = np.zeros(lab.shape[0], dtype=bool)
    if y_true is not None:
        truth = np.asarray(y_true, dtype=np.int64)
        lab = match_labels(truth, lab)
        wrong = lab != truth
    clusters = np.unique(lab)

    def base_name(j: int) -> str:
        return names[j] if names is not None and j < len(names) else f"cluster {j}"

    def name(j: int) -> str:
        prefix = "cluster: " if y_true is not None and names is not None else ""
        return f"{prefix}{base_name(j)} (n = {int(np.sum(lab == j))})"

    x_label = feature_names[0] if feature_names is not None and A.shape[1] == 1 else "x"
    if A.shape[1] > 2:
        projected, frac = _pca_2d(A)
        if frac[1] < 1e-3:  # the points lie on a line: a histogram of it
            A = projected[:, :1]
            x_label = f"principal component 1 ({100 * frac[0]:.0f}% of variance)"
    if A.shape[1] == 1:
        x = A[:, 0]
        bins: Any
        if log_x:
            if np.any(x <= 0):
                raise ValueError("log_x needs positive data")
            bins = np.geomspace(x.min(), x.max(), 60)
            ax.set_xscale("log")
        else:
            bins = np.linspace(x.min(), x.max(), 60) if x.max() > x.min() else 10
        ax.hist(
            [x[lab == j] for j in clusters],
            bins=bins,
            stacked=True,
            color=[_colour(int(j)) for j in clusters],
            label=[name(int(j)) for j in clusters],
            edgecolor="white",
            linewidth=0.3,
        )
        if y_true is not None:
            for i, j in enumerate(np.unique(truth)):
                ax.hist(
                    x[truth == j], bins=bins, histtype="step", color="black",
                    linestyle=("-", ":", "-.", "--")[i % 4], linewidth=1.3,
                    label=f"true class: {base_name(int(j))} (n = {int(np.sum(truth == j))})",
                )
        for i, t in enumerate(np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
                              if thresholds is not None else []):
            ax.axvline(t, color="#D55E00", linestyle="--", linewidth=1.5,
                       label="1D exact threshold" if i == 0 else None)
        ax.set_xlabel(f"{x_label} (log scale)" if log_x else x_label)
        ax.set_ylabel("number of points")
    else:
        if A.shape[1] == 2:
            P = A
            x_name, y_name = feature_names[:2] if feature_names is not None else ("x₁", "x₂")
            ax.set_xlabel(x_name)
            ax.set_ylabel(y_name)
        else:
            P = projected
            ax.set_xlabel(f"principal component 1 ({100 * frac[0]:.0f}% of variance)")
            ax.set_ylabel(f"principal component 2 ({100 * frac[1]:.0f}% of variance)")
        size = float(np.clip(6000.0 / max(1, A.shape[0]), 4.0, 30.0))
        for j in clusters:
            members = lab == j
            ax.scatter(P[members, 0], P[members, 1], s=size, color=_colour(int(j)),
                       alpha=0.8, linewidths=0, label=name(int(j)))
        if wrong.any():
            ax.scatter(P[wrong, 0], P[wrong, 1], s=size * 1.6, marker="x", color="black",
                       linewidths=0.9, label=f"in the wrong cluster ({int(wrong.sum())})")
        if A.shape[1] == 2 and equal_aspect:
            ax.set_aspect("equal", adjustable="datalim")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best", framealpha=0.9, markerscale=2.0)


def save_clusters_figure(
    path: Union[str, Path],
    X: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    title: Optional[str] = None,
    dpi: int = 120,
    feature_names: Optional[Sequence[str]] = None,
    log_x: bool = False,
    equal_aspect: bool = True,
) -> Path:
    """Write a PNG (or any format matplotlib knows from the suffix) of one clustering.

    Returns the path written. See :func:`plot_clusters` for how the data are drawn (and
    ``feature_names``, ``log_x``, ``equal_aspect``).
    """
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 6), layout="constrained")
    plot_clusters(
        fig.add_subplot(), X, labels, title=title, feature_names=feature_names, log_x=log_x,
        equal_aspect=equal_aspect,
    )
    return save_figure(fig, path, dpi=dpi)


def save_figure(fig: Figure, path: Union[str, Path], *, dpi: int = 120) -> Path:
    """Write ``fig`` to exactly ``path``, in the format of its suffix (see :func:`figure_format`).

    The figure is written to a temporary file beside ``path`` and moved into place when
    complete, so a failed write leaves an existing file intact. Unlike
    ``Figure.savefig(path)``, no suffix is ever appended to ``path``.

    Returns
    -------
    pathlib.Path
        The file written (the target, when ``path`` is a symlink).

    Raises
    ------
    ValueError
        For a format matplotlib cannot write.
    OSError
        When the file cannot be written.
    """
    fmt = figure_format(path)
    return write_atomically(path, lambda handle: fig.savefig(handle, format=fmt, dpi=dpi))
