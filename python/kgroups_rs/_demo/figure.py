"""The demo's figure: the kernel k-groups clusters of every data set, one panel each."""

from __future__ import annotations

from pathlib import Path

from .problems import DemoResult


def draw_figure(results: list[DemoResult], path: Path) -> Path:
    """The kernel k-groups clusters of every problem, one panel each, written to ``path``.

    Written through :func:`kgroups_rs.plotting.save_figure`: exactly ``path``, and a failed
    write leaves an existing file intact. Returns the file written.
    """
    from .._figures import new_figure
    from ..plotting import plot_clusters, save_figure

    cols = 2
    rows = (len(results) + cols - 1) // cols
    fig, axes = new_figure(rows, cols, width=12.0, height=5.2 * rows)
    for ax, r in zip(axes.ravel(), results):
        p = r.problem
        acc = r.accuracy["kernel k-groups"]
        assert r.labels is not None
        plot_clusters(
            ax, p.X, r.labels, y_true=p.y, names=p.class_names, log_x=p.log_x,
            thresholds=r.thresholds,
            title=f"{p.name}: kernel k-groups, {p.kernel_label}\naccuracy {acc:.3f}",
        )
    for ax in axes.ravel()[len(results):]:
        ax.set_visible(False)
    fig.suptitle(
        "kgroups_rs demo: kernel k-groups clusters (colour = cluster, matched to the true "
        "class; × = point in the wrong cluster)",
        fontsize=12,
    )
    return save_figure(fig, path, dpi=110)
