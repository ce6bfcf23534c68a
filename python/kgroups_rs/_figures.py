"""What the figures need before drawing: matplotlib (or how to install it), the file format
of an output path, and a blank figure (used by :mod:`kgroups_rs.plotting`, the command line
and the demo)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["INSTALL_HINT", "figure_format", "new_figure", "require_matplotlib"]

#: What to run to get the figures.
INSTALL_HINT = 'pip install "kgroups_rs[plot]" (from a source checkout: pip install ".[plot]")'


def require_matplotlib() -> None:
    """Raise ``ImportError`` with the install command when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"figures need matplotlib: {INSTALL_HINT}") from exc


def figure_format(path: Union[str, Path]) -> str:
    """The file format of a figure written to ``path``.

    The suffix of ``path`` (case-insensitive), or matplotlib's default
    (``rcParams["savefig.format"]``, normally ``png``) when it has none.

    Raises
    ------
    ValueError
        If matplotlib cannot write that format; the message lists the formats it can write.
    ImportError
        If matplotlib is not installed.
    """
    require_matplotlib()
    import matplotlib
    from matplotlib.backend_bases import FigureCanvasBase

    fmt = Path(path).suffix[1:].lower() or str(matplotlib.rcParams["savefig.format"])
    supported = FigureCanvasBase.get_supported_filetypes()
    if fmt not in supported:
        raise ValueError(
            f"unknown figure format {fmt!r} (the suffix of {path}); use one of "
            + ", ".join(f".{name}" for name in sorted(supported))
        )
    return fmt


def new_figure(rows: int, cols: int, *, width: float, height: float) -> tuple[Figure, Any]:
    """A matplotlib Figure (no pyplot, constrained layout) and its grid of Axes."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(rows, cols, squeeze=False)
