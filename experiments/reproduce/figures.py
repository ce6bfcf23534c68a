"""Figures: matplotlib (Agg backend) when it is installed; every function is a no-op without it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from .common import Config, Stats, Tally


def pyplot() -> Any:
    """matplotlib.pyplot with the Agg backend, or None when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def figures_on(cfg: Config) -> Any:
    """pyplot when figures are wanted and matplotlib is there, else None."""
    return pyplot() if cfg.figures else None


def save_figure(cfg: Config, fig: Any, name: str) -> str:
    """Save under OUT/figures and return the markdown image line."""
    plt = pyplot()
    folder = cfg.out / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}{cfg.suffix}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    if plt is not None:
        plt.close(fig)
    return f"![{name}](figures/{path.name})"


def errorbar_curve(ax: Any, xs: list[Any], stats: Sequence[Stats], label: str, **style: Any) -> None:
    """One method's mean accuracy against x, with its 95 % intervals as error bars."""
    means, halves = [s.mean for s in stats], [s.half for s in stats]
    ax.errorbar(xs, means, yerr=halves, marker="o", ms=3, capsize=2, label=label, **style)


def plot_sweep(
    cfg: Config,
    tally: Tally,
    xs: Sequence[Any],
    methods: Sequence[str],
    name: str,
    title: str,
    xlabel: str,
    bayes: Optional[Sequence[float]] = None,
    extra: Optional[tuple[str, Sequence[str]]] = None,
) -> Optional[str]:
    """Mean accuracy ± 95 % CI against the swept parameter (one panel, or two with ``extra``)."""
    plt = figures_on(cfg)
    if plt is None:
        return None
    panels = 2 if extra else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.0 * panels, 4.2), squeeze=False)
    groups = [(title, methods)] + ([extra] if extra else [])
    for ax, (panel_title, panel_methods) in zip(axes[0], groups):
        for method in panel_methods:
            errorbar_curve(ax, list(xs), [tally.stats((x, method)) for x in xs], method)
        if bayes is not None:
            ax.plot(list(xs), list(bayes), "k--", lw=1, label="Bayes")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("accuracy (eq. 55)")
        ax.set_title(panel_title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return save_figure(cfg, fig, name)
