"""What the subcommands share: the error type, the program name, progress lines."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from .._progress import ProgressCallback

PROG = "kgroups-rs"


class CliError(Exception):
    """An error in the user's input: reported as one line, exit status 2."""


def progress_printer(n_init: int, stream: TextIO, prefix: str = "") -> ProgressCallback:
    """A ``progress`` callback printing one line per sweep: restart, sweep, moves, objective."""

    def report(start: int, sweep: int, moves: int, objective: float) -> None:
        plural = "" if moves == 1 else "s"
        print(
            f"{prefix}restart {start + 1}/{n_init}, sweep {sweep}: {moves} move{plural} in the "
            f"last sweep, objective Q = {objective:.10g}",
            file=stream,
            flush=True,
        )

    return report


def shown(given: str, written: Path) -> str:
    """The path to report: as given, with the file really written when a symlink was followed."""
    return given if Path(given) == written else f"{given} (-> {written})"
