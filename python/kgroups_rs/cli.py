"""The ``kgroups-rs`` command (also ``python -m kgroups_rs``).

``kgroups-rs demo``
    Cluster the paper's showcase data and a real data set, print an accuracy table and
    write a figure (see :mod:`kgroups_rs.demo`).
``kgroups-rs cluster DATA -k K [-o labels.csv] [--plot out.png] ...``
    Cluster the rows of a CSV/TSV/NPY file and write one label per row.

Errors in the input (a missing file, a cell that is not a number, k out of range, ...) end
the command with exit status 2 and a one-line message on stderr, without a traceback.

Outputs never lose data: every output path is checked before anything is computed (its
directory exists and is writable, it is not the input file, not even through a symlink or a
hardlink), and every file is written to a temporary file beside it and moved into place when
complete, so a failed write (a full disk) leaves an existing file intact. Files are written
under exactly the name given (``labels.NPY`` stays ``labels.NPY``).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, TextIO

import numpy as np
import numpy.typing as npt

from ._files import same_file, write_atomically, write_target
from .clustering import ProgressCallback

__all__ = ["main", "read_matrix"]

PROG = "kgroups-rs"
_KERNELS = ("energy", "exponential", "gaussian", "precomputed")
_ALGORITHMS = ("hartigan", "lloyd", "lloyd-online")
_FLOAT_BYTES = {"float64": 8, "float32": 4}


class CliError(Exception):
    """An error in the user's input: reported as one line, exit status 2."""


# ----------------------------------------------------------------------------- input / output
def _parse_cell(text: str, path: Path, line: int, column: int) -> float:
    cell = text.strip()
    try:
        value = float(cell)
    except ValueError:
        shown = repr(cell) if cell else "an empty cell"
        raise CliError(f"{path}, line {line}, column {column}: {shown} is not a number") from None
    if not np.isfinite(value):
        raise CliError(
            f"{path}, line {line}, column {column}: {cell!r} is not a finite number "
            "(NaN and infinity cannot be clustered)"
        )
    return value


def _is_number(text: str) -> bool:
    try:
        float(text.strip())
    except ValueError:
        return False
    return True


def _read_text(path: Path, delimiter: Optional[str]) -> npt.NDArray[np.float64]:
    if delimiter is None:
        delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            rows = [(i, row) for i, row in enumerate(csv.reader(handle, delimiter=delimiter), 1)]
    except UnicodeDecodeError:
        raise CliError(f"{path} is not a text (CSV) file; give a .csv, .tsv or .npy file") from None
    rows = [(i, row) for i, row in rows if any(cell.strip() for cell in row)]
    if rows and not any(_is_number(cell) for cell in rows[0][1]):
        rows = rows[1:]  # a header line: every cell is text
    if not rows:
        raise CliError(f"{path} holds no data rows")
    width = len(rows[0][1])
    data = np.empty((len(rows), width), dtype=np.float64)
    for r, (line, row) in enumerate(rows):
        if len(row) != width:
            raise CliError(
                f"{path}, line {line}: {len(row)} values, but the first data line has {width}"
            )
        data[r] = [_parse_cell(cell, path, line, c) for c, cell in enumerate(row, 1)]
    return data


def read_matrix(path: Path | str, delimiter: Optional[str] = None) -> npt.NDArray[np.float64]:
    """The data of a ``.npy`` file or a delimited text file as a float64 ``(n, D)`` array.

    Text files: comma-separated (tab-separated for ``.tsv``/``.tab``, or ``delimiter``), one
    point per line, an optional header line whose cells are all non-numeric, blank lines
    ignored. A one-dimensional ``.npy`` array is read as ``n`` points in one dimension.

    Raises
    ------
    CliError
        For a missing or unreadable file, a cell that is not a finite number, rows of
        different lengths, or an array that is not 1-D or 2-D real numbers.
    """
    p = Path(path)
    if not p.exists():
        raise CliError(f"no such file: {p}")
    if p.is_dir():
        raise CliError(f"{p} is a directory, not a data file")
    if p.suffix.lower() == ".npy":
        try:
            raw = np.load(p, allow_pickle=False)
        except ValueError as exc:
            raise CliError(f"{p} is not a readable .npy array of numbers ({exc})") from None
        if raw.dtype.kind not in "biuf":
            raise CliError(f"{p} holds {raw.dtype} data, not real numbers")
        data = np.asarray(raw, dtype=np.float64)
        if data.ndim == 1:
            data = data[:, None]
        if data.ndim != 2:
            raise CliError(f"{p} holds a {data.ndim}-D array; expected (n,) or (n, D)")
        if data.size == 0:
            raise CliError(f"{p} holds no data")
        bad = np.argwhere(~np.isfinite(data))
        if bad.size:
            row, col = (int(v) for v in bad[0])
            raise CliError(f"{p}, row {row}, column {col}: {data[row, col]} is not a finite number")
        return data
    return _read_text(p, delimiter)


def write_labels(path: str, labels: npt.NDArray[np.int64]) -> Optional[Path]:
    """Write one label per line (text), or an int64 ``.npy`` array; ``-`` is standard output.

    Parameters
    ----------
    path : str
        ``-`` for standard output; a name ending in ``.npy`` (any case) for a ``.npy`` array;
        anything else for text. The file is written under exactly this name, through a
        temporary file beside it (see :func:`kgroups_rs._files.write_atomically`), so a failed
        write leaves an existing file intact.
    labels : ndarray of int64
        The labels.

    Returns
    -------
    pathlib.Path or None
        The file written (the target of a symlink ``path``); None for standard output.

    Raises
    ------
    OSError
        When the file cannot be written; an existing file is then unchanged.
    """
    if path == "-":
        np.savetxt(sys.stdout, labels, fmt="%d")
        return None
    if path.lower().endswith(".npy"):
        return write_atomically(path, lambda handle: np.save(handle, labels, allow_pickle=False))
    return write_atomically(path, lambda handle: np.savetxt(handle, labels, fmt="%d"))


def _check_output(path: str, option: str, data: Optional[str] = None) -> None:
    """Refuse, before anything is computed, an output path that cannot be written or that
    would replace the input data file.

    Parameters
    ----------
    path : str
        The output path given with ``option``.
    option : str
        The command-line option, for the message (``-o``, ``--plot``).
    data : str, optional
        The input data file, which the output must not be (nor a link to it).

    Raises
    ------
    CliError
        If ``path`` is a directory, its directory does not exist or is not writable, it is
        an existing read-only file, or it is the input file.
    """
    target = write_target(path)
    if target.is_dir():
        raise CliError(f"cannot write {option} {path}: it is a directory; give a file name")
    directory = target.parent
    if not directory.is_dir():
        raise CliError(f"cannot write {option} {path}: the directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CliError(f"cannot write {option} {path}: the directory {directory} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise CliError(f"cannot write {option} {path}: the file is read-only")
    if data is not None and Path(data).exists() and same_file(path, data):
        raise CliError(
            f"{option} {path} is the input data file {data}; writing it would destroy the data "
            "(choose another output name)"
        )


def _check_cluster_outputs(args: argparse.Namespace) -> None:
    """Check the labels file (``-o``) and the figure (``--plot``) of ``cluster`` before any
    computation (see :func:`_check_output`); also that they are not one file and that the
    figure's format is one matplotlib can write."""
    if args.output is not None and args.output != "-":
        _check_output(args.output, "-o", args.data)
    if args.plot is None or args.kernel == "precomputed":  # no figure of a kernel matrix
        return
    _check_output(args.plot, "--plot", args.data)
    if args.output is not None and args.output != "-" and same_file(args.output, args.plot):
        raise CliError(f"-o and --plot name the same file ({args.plot}); give two names")
    from .plotting import figure_format

    try:
        figure_format(args.plot)
    except ValueError as exc:
        raise CliError(f"--plot: {exc}") from None


def _progress_printer(n_init: int, stream: TextIO, prefix: str = "") -> ProgressCallback:
    def report(start: int, sweep: int, moves: int, objective: float) -> None:
        plural = "" if moves == 1 else "s"
        print(
            f"{prefix}restart {start + 1}/{n_init}, sweep {sweep}: {moves} move{plural} in the "
            f"last sweep, objective Q = {objective:.10g}",
            file=stream,
            flush=True,
        )

    return report


def _physical_memory() -> Optional[int]:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
        return None


# ----------------------------------------------------------------------------- subcommands
def _cmd_cluster(args: argparse.Namespace) -> int:
    from . import bandwidth, energy_gram, kernel_kgroups

    if args.plot is not None:
        from .plotting import require_matplotlib

        try:
            require_matplotlib()
        except ImportError as exc:
            raise CliError(f"--plot: {exc}") from None
    _check_cluster_outputs(args)
    summary = sys.stderr if args.output == "-" else sys.stdout
    data = read_matrix(args.data, args.delimiter)
    n, dim = data.shape
    if not 1 <= args.k <= n:
        raise CliError(f"-k must be between 1 and the number of points n = {n}, got {args.k}")
    precomputed = args.kernel == "precomputed"
    if precomputed and n != dim:
        raise CliError(
            f"--kernel precomputed needs a square n x n kernel matrix, got {n} x {dim} values"
        )
    needed = n * n * _FLOAT_BYTES[args.dtype]
    memory = _physical_memory()
    if not precomputed and memory is not None and needed > 0.8 * memory:
        raise CliError(
            f"the {n} x {n} kernel matrix needs {needed / 2**30:.1f} GiB but this machine has "
            f"{memory / 2**30:.1f} GiB of memory; use --dtype float32 or fewer points"
        )

    t0 = time.perf_counter()
    kernel_note = ""
    if precomputed:
        G: Any = data
    else:
        centred = data - data.mean(axis=0)
        kwargs: dict[str, Any] = {}
        if args.kernel == "energy":
            kwargs = {"semimetric": "power", "alpha": args.alpha}
            kernel_note = f"energy, rho = ||x - y||^{args.alpha:g}"
        else:
            sigma = args.sigma if args.sigma is not None else bandwidth(centred)
            kwargs = {"semimetric": args.kernel, "sigma": sigma}
            kernel_note = f"{args.kernel}, sigma = {sigma:.6g}" + (
                " (bandwidth of the data)" if args.sigma is None else ""
            )
        G = energy_gram(centred, dtype=np.dtype(args.dtype), n_threads=args.threads, **kwargs)
    t1 = time.perf_counter()
    progress = _progress_printer(args.n_init, sys.stderr) if args.verbose else None
    common: dict[str, Any] = {
        "n_init": args.n_init,
        "max_iter": args.max_iter,
        "random_state": args.seed,
        "n_threads": args.threads,
        "progress": progress,
    }
    result = kernel_kgroups(G, args.k, args.init, algorithm=args.algorithm, **common)
    t2 = time.perf_counter()
    del G

    written: Optional[Path] = None
    if args.output is not None:
        try:
            written = write_labels(args.output, result.labels)
        except OSError as exc:
            raise CliError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    sizes = np.bincount(result.labels, minlength=args.k)
    lines = [
        f"data           {args.data}: n = {n} points, D = {dim} "
        + ("(kernel matrix)" if precomputed else "dimensions"),
        f"kernel         {kernel_note or 'precomputed'}",
        f"algorithm      {args.algorithm}, k = {args.k}, best of n_init = {args.n_init} "
        f"(seed {args.seed})",
        f"objective Q    {result.objective:.12g}",
        f"within W       {result.within:.12g}",
        f"iterations     {result.n_iter} ({'converged' if result.converged else 'max_iter reached'}), "
        f"{result.n_moves} moves",
        f"cluster sizes  {', '.join(str(int(s)) for s in sizes)}",
        f"time           {t2 - t0:.3f} s (kernel {t1 - t0:.3f} s, clustering {t2 - t1:.3f} s)",
    ]
    if written is not None:
        lines.append(f"labels         written to {_shown(args.output, written)}")
    elif args.output is None:
        lines.append("labels         not saved (give -o FILE)")
    if args.plot is not None:
        from .plotting import save_clusters_figure

        if precomputed:
            lines.append("plot           skipped: the input is a kernel matrix, not points")
        else:
            title = f"{Path(args.data).name}: {args.algorithm}, k = {args.k}, {kernel_note}"
            try:
                figure = save_clusters_figure(args.plot, data, result.labels, title=title)
            except OSError as exc:
                raise CliError(f"cannot write {args.plot}: {exc.strerror or exc}") from None
            lines.append(f"plot           written to {_shown(args.plot, figure)}")
    print("\n".join(lines), file=summary)
    return 0


def _shown(given: str, written: Path) -> str:
    """The path to report: as given, with the file really written when a symlink was followed."""
    return given if Path(given) == written else f"{given} (-> {written})"


def _check_demo_figure(path: str) -> None:
    """Check the demo's figure path before the demo runs (see :func:`_check_output`); its
    format too when matplotlib is installed (without it the demo writes no figure)."""
    _check_output(path, "-o")
    from .plotting import figure_format

    try:
        figure_format(path)
    except ImportError:
        return
    except ValueError as exc:
        raise CliError(f"-o: {exc}") from None


def _cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    def progress(name: str) -> Optional[ProgressCallback]:
        return _progress_printer(10, sys.stderr, f"[{name}] ") if args.verbose else None

    if not args.no_plot:
        _check_demo_figure(args.output)
    figure = None if args.no_plot else Path(args.output)
    try:
        demo.run_demo(figure, seed=args.seed, n_threads=args.threads, progress=progress)
    except OSError as exc:
        raise CliError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return 0


# ----------------------------------------------------------------------------- parser
def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value <= 2.0:
        raise argparse.ArgumentTypeError(f"must satisfy 0 < alpha <= 2, got {value:g}")
    return value


def _sigma(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (np.isfinite(value) and value > 0.0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``kgroups-rs``."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Kernel k-groups: energy-statistics clustering by Hartigan's method.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{demo,cluster}")
    sub.required = True

    demo = sub.add_parser(
        "demo",
        help="cluster the paper's showcase data and a real data set; table and figure",
        description="Cluster a 1D lognormal mixture, parallel cigars, concentric circles "
        "(fixed seeds) and the wine data set (with scikit-learn), print the accuracy of "
        "kernel k-groups, kernel k-means, k-means and GMM, and write a PNG figure.",
    )
    demo.add_argument("-o", "--output", default="kgroups_demo.png",
                      help="figure to write (default: kgroups_demo.png)")
    demo.add_argument("--no-plot", action="store_true", help="do not write the figure")
    demo.add_argument("--seed", type=_nonnegative_int, default=0, help="random seed (default 0)")
    demo.add_argument("--threads", type=_positive_int, default=None,
                      help="threads to use (default: all cores)")
    demo.add_argument("-v", "--verbose", action="store_true",
                      help="print progress (restart, sweep, moves) on stderr")
    demo.set_defaults(run=_cmd_demo)

    cl = sub.add_parser(
        "cluster",
        help="cluster the rows of a CSV/TSV/NPY file",
        description="Cluster the rows of DATA (CSV, TSV or .npy; one point per row; an "
        "optional header line) and write one label per row.",
    )
    cl.add_argument("data", help="data file: .csv, .tsv or .npy")
    cl.add_argument("-k", "--clusters", dest="k", type=int, required=True,
                    help="number of clusters (1 <= k <= n)")
    cl.add_argument("--kernel", choices=_KERNELS, default="energy",
                    help="energy: rho = ||x-y||^alpha (default); exponential / gaussian: "
                    "with bandwidth --sigma; precomputed: DATA is an n x n kernel matrix")
    cl.add_argument("--alpha", type=_alpha, default=1.0,
                    help="exponent of the energy kernel, 0 < alpha <= 2 (default 1)")
    cl.add_argument("--sigma", type=_sigma, default=None,
                    help="bandwidth of the exponential/gaussian kernels (default: the data's "
                    "scale, sigma^2 = mean squared distance between points)")
    cl.add_argument("--algorithm", choices=_ALGORITHMS, default="hartigan",
                    help="hartigan = kernel k-groups (default); lloyd / lloyd-online = "
                    "kernel k-means, batch / online")
    cl.add_argument("--init", choices=("k-means++", "random"), default="k-means++",
                    help="initialisation (default k-means++)")
    cl.add_argument("--n-init", type=_positive_int, default=5,
                    help="independent starts; the best is kept (default 5)")
    cl.add_argument("--max-iter", type=_positive_int, default=300,
                    help="maximum sweeps per start (default 300)")
    cl.add_argument("--seed", type=_nonnegative_int, default=0, help="random seed (default 0)")
    cl.add_argument("--dtype", choices=tuple(_FLOAT_BYTES), default="float64",
                    help="precision of the kernel matrix (float32 halves its memory)")
    cl.add_argument("--delimiter", default=None,
                    help="column separator of a text file (default: ',' or tab for .tsv)")
    cl.add_argument("--threads", type=_positive_int, default=None,
                    help="threads to use (default: all cores)")
    cl.add_argument("-o", "--output", default=None,
                    help="labels file: one label per line (.npy: an int64 array; '-': stdout, "
                    "the summary then goes to stderr)")
    cl.add_argument("--plot", default=None, metavar="PNG",
                    help="write a figure of the clusters (needs matplotlib)")
    cl.add_argument("-v", "--verbose", action="store_true",
                    help="print progress (restart, sweep, moves in the last sweep) on stderr")
    cl.set_defaults(run=_cmd_cluster)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``kgroups-rs`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except CliError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:
        message = " ".join(str(exc).split())
        print(f"{PROG} {args.command}: error: {message}", file=sys.stderr)
        return 2
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
