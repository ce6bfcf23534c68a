"""The ``kgroups-rs`` command (also ``python -m kgroups_rs``).

``kgroups-rs demo``
    Cluster the paper's showcase data and a real data set, print an accuracy table and
    write a figure (:mod:`kgroups_rs.cli.demo`).
``kgroups-rs cluster DATA -k K [-o labels.csv] [--plot out.png] ...``
    Cluster the rows of a CSV/TSV/NPY file (``-``: standard input) with
    :class:`~kgroups_rs.KernelKGroups` and write one label per row, to standard output
    without ``-o`` (:mod:`kgroups_rs.cli.cluster`); large inputs run matrix-free. ``-k auto``
    lets :func:`~kgroups_rs.select_k` choose k (and the kernel too unless ``--kernel`` names
    one) and prints its per-k table (:mod:`kgroups_rs.cli._select`).

Errors in the input (a missing file, a cell that is not a number, k out of range, ...) end
the command with exit status 2 and a one-line message on stderr, without a traceback;
warnings are one line on stderr too (``kgroups-rs cluster: warning: ...``). When the reader of
standard output leaves early (``kgroups-rs cluster data.csv -k 3 | head``), the command stops
quietly with status 141 (128 + SIGPIPE), as Unix tools do.

Outputs never lose data: every output path is checked before anything is computed (its
directory exists and is writable, it is not the input file, not even through a symlink or a
hardlink), and every file is written to a temporary file beside it and moved into place when
complete, so a failed write (a full disk) leaves an existing file intact. Files are written
under exactly the name given (``labels.NPY`` stays ``labels.NPY``).

Modules: ``_parser`` (the arguments), ``cluster`` and ``demo`` (one per subcommand),
``_files`` (reading the data, writing outputs), ``_select`` (``-k auto``), ``_model`` (the
estimator as ``cluster`` runs it), ``_common`` (the error type, progress lines).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Optional, TextIO

from ._common import PROG, CliError
from ._files import read_matrix, write_labels
from ._parser import build_parser

__all__ = ["CliError", "build_parser", "main", "read_matrix", "write_labels"]


def _warning_printer(prefix: str) -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints a warning as one line on stderr, after
    ``prefix``, without the source file and line that Python adds."""

    def show(
        message: Warning | str, category: type[Warning], filename: str, lineno: int,
        file: Optional[TextIO] = None, line: Optional[str] = None,
    ) -> None:
        text = " ".join(str(message).split())
        print(f"{prefix}{text}", file=sys.stderr if file is None else file, flush=True)

    return show


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``kgroups-rs`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_printer(f"{PROG} {args.command}: warning: ")
            status: int = args.run(args)
    except CliError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:
        message = " ".join(str(exc).split())
        print(f"{PROG} {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader of standard output went away (`kgroups-rs cluster x.csv | head`): stop
        # quietly, as Unix tools do, and keep Python's final flush from failing again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, the status a shell reports for a tool killed by SIGPIPE
    except ImportError as exc:  # an optional dependency that this command needs
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the system refused something not checked beforehand
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
