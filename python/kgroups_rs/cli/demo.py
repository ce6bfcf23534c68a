"""``kgroups-rs demo``: the paper's showcase data and a real data set, clustered and compared
(the data, the table and the figure are :mod:`kgroups_rs._demo`'s)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from .._progress import ProgressCallback
from ._common import CliError, progress_printer
from ._files import check_output


def _check_figure(path: str) -> None:
    """Check the demo's figure path before the demo runs (see :func:`check_output`); its
    format too when matplotlib is installed (without it the demo writes no figure)."""
    check_output(path, "-o")
    from .._figures import figure_format

    try:
        figure_format(path)
    except ImportError:
        return
    except ValueError as exc:
        raise CliError(f"-o: {exc}") from None


def run(args: argparse.Namespace) -> int:
    """Run ``kgroups-rs demo`` with the parsed arguments; return the exit status."""
    from .. import _demo

    def progress(name: str) -> Optional[ProgressCallback]:
        return progress_printer(10, sys.stderr, f"[{name}] ") if args.verbose else None

    if not args.no_plot:
        _check_figure(args.output)
    figure = None if args.no_plot else Path(args.output)
    try:
        _demo.run_demo(figure, seed=args.seed, n_threads=args.threads, progress=progress)
    except OSError as exc:
        raise CliError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return 0
