"""``kgroups-rs cluster DATA -k K``: the rows of a data file clustered by
:class:`~kgroups_rs.KernelKGroups`, one label per row written, a summary printed.

Data on standard output, diagnostics on standard error, as Unix tools do: the labels go to
standard output unless ``-o FILE`` names a file; the summary, progress and warnings always
go to standard error. ``-`` as DATA reads standard input.

The estimator holds the training kernel as it would for any caller (``--kernel-storage
auto``): a dense n x n matrix while it stays within 2 GiB (and 80% of the machine's memory),
matrix-free above, so large inputs run instead of being refused; the labels are the same
either way. The estimator, and so this command, needs scikit-learn, except where
``--kernel auto`` (the default with ``-k auto``) writes :func:`~kgroups_rs.select_k`'s
partition (``-k auto``) or the normalised cut of its kNN graph (a number for ``-k``; see
``_select``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Optional, TextIO

import numpy as np
import numpy.typing as npt

from .._estimator_auto import knn_labels, resolved_kernel
from .._progress import ProgressBar, ProgressCallback
from ._common import CliError, progress_printer, shown
from ._files import STDIN, check_output, numeric_id_column, read_input, same_file, write_labels
from ._select import check_options, run_selection, selection_lines

if TYPE_CHECKING:
    from ..selection import SelectionResult
    from ._model import CommandLineKGroups


def _physical_memory() -> Optional[int]:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
        return None


def _gib(size: float) -> str:
    return f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.1f} MiB"


def _check_outputs(args: argparse.Namespace) -> None:
    """Check the labels file (``-o``) and the figure (``--plot``) before any computation (see
    :func:`check_output`); also that they are not one file and that the figure's format is
    one matplotlib can write."""
    data = None if args.data == STDIN else args.data
    if args.output is not None and args.output != STDIN:
        check_output(args.output, "-o", data)
    if args.plot is None or args.kernel == "precomputed":  # no figure of a kernel matrix
        return
    check_output(args.plot, "--plot", data)
    if args.output is not None and args.output != STDIN and same_file(args.output, args.plot):
        raise CliError(f"-o and --plot name the same file ({args.plot}); give two names")
    from .._figures import figure_format

    try:
        figure_format(args.plot)
    except ValueError as exc:
        raise CliError(f"--plot: {exc}") from None


def _model(args: argparse.Namespace, kernel: Optional[Literal["energy"]] = None) -> CommandLineKGroups:
    """The estimator the arguments describe, with the energy kernel in place of ``--kernel``
    when ``kernel`` says so (ImportError without scikit-learn)."""
    from ._model import CommandLineKGroups

    model = CommandLineKGroups(
        args.k,
        kernel=args.kernel if kernel is None else kernel,
        alpha=args.alpha,
        sigma=args.sigma,
        algorithm=args.algorithm,
        init=args.init,
        n_init=args.n_init,
        max_iter=args.max_iter,
        random_state=args.seed,
        n_threads=args.threads,
        kernel_storage=args.kernel_storage,
    )
    progress = _progress(args, sys.stderr)
    return model.configure(dtype=args.dtype, progress=progress, memory_bytes=_physical_memory())


def _progress(args: argparse.Namespace, stream: TextIO) -> Optional[ProgressCallback]:
    """Lines per sweep with ``-v``; otherwise a progress bar when ``stream`` is a terminal and
    tqdm is installed (the bar of ``progress=True``), unless ``--no-progress``."""
    if args.verbose:
        return progress_printer(args.n_init, stream)
    if args.no_progress or not stream.isatty() or importlib.util.find_spec("tqdm") is None:
        return None
    return ProgressBar(args.n_init, args.max_iter, stream, use_tqdm=True)


def standardize(data: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], list[int]]:
    """``(x - mean) / std`` per column (population standard deviation), and the indices of
    the constant columns, which become 0."""
    mean = data.mean(axis=0)
    std = data.std(axis=0)
    constant = [int(c) for c in np.flatnonzero(std == 0)]
    return (data - mean) / np.where(std == 0, 1.0, std), constant


def _kernel_note(
    args: argparse.Namespace, model: CommandLineKGroups, selection: Optional[SelectionResult]
) -> str:
    if args.kernel == "auto":  # the energy kernel fitted for -k
        assert selection is not None
        if model.n_clusters_ == 1:
            why = "one group: the kernel does not matter"
        else:
            why = {"energy": "chosen by select_k", None: "select_k saw no structure"}.get(
                selection.kernel, "chosen by select_k"
            )
        return f"energy, rho = ||x - y|| ({why})"
    if args.kernel == "precomputed":
        return "precomputed"
    if args.kernel == "energy":
        return f"energy, rho = ||x - y||^{args.alpha:g}"
    default = {None: " (mean rule)", "mean": " (mean rule)", "median": " (median rule)",
               "auto": " (auto rule)"}.get(
        args.sigma if isinstance(args.sigma, str) or args.sigma is None else "", ""
    )
    return f"{args.kernel}, sigma = {model.sigma_:.6g}{default}"


def _storage_note(args: argparse.Namespace, model: CommandLineKGroups, n: int) -> str:
    if args.kernel == "precomputed":
        return "the kernel matrix given"
    size = _gib(model.dense_kernel_bytes(n))
    if model.kernel_storage_ == "dense":
        return f"dense {n} x {n} {args.dtype} kernel matrix ({size})"
    return f"matrix-free, kernel rows computed from the data (a dense matrix would take {size})"


def _time_note(model: CommandLineKGroups) -> str:
    total = model.kernel_seconds + model.cluster_seconds
    if model.kernel_storage_ == "matrix-free":
        return f"{total:.3f} s (matrix-free: kernel rows computed while clustering)"
    return (
        f"{total:.3f} s (kernel {model.kernel_seconds:.3f} s, clustering "
        f"{model.cluster_seconds:.3f} s)"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``kgroups-rs cluster`` with the parsed arguments; return the exit status."""
    if args.plot is not None:
        from .._figures import require_matplotlib

        try:
            require_matplotlib()
        except ImportError as exc:
            raise CliError(f"--plot: {exc}") from None
    check_options(args)
    args.kernel = resolved_kernel(args.kernel, args.k)  # --kernel left out: the estimator's default
    auto_kernel = args.kernel == "auto"
    model = None if auto_kernel else _model(args)
    _check_outputs(args)
    table = read_input(args.data, args.delimiter, args.columns)
    data, names = table.data, table.names
    n, dim = data.shape
    if args.k != "auto" and not 1 <= args.k <= n:
        raise CliError(f"-k must be between 1 and the number of points n = {n}, got {args.k}")
    precomputed = args.kernel == "precomputed"
    if precomputed and n != dim:
        raise CliError(
            f"--kernel precomputed needs a square n x n kernel matrix, got {n} x {dim} values"
        )
    if (not precomputed and model is not None and args.kernel_storage == "dense"
            and not model.fits_in_memory(n)):
        raise CliError(
            f"the {n} x {n} kernel matrix needs {_gib(model.dense_kernel_bytes(n))} but this "
            f"machine has {_gib(model.memory_bytes or 0)} of memory; use --kernel-storage auto "
            "or matrix-free"
        )
    if args.log_x and (precomputed or dim != 1 or np.any(data <= 0)):
        raise CliError(
            "--log-x is for one column of positive values (the figure's x axis); "
            f"the data have {dim} columns" + ("" if dim != 1 else " and values <= 0")
        )
    if args.columns is None and not precomputed:
        _warn_of_an_id_column(args, data, names)
    clustered = data
    constant: list[int] = []
    if args.standardize:
        if precomputed:
            raise CliError("--standardize scales data columns; it does not apply to a kernel matrix")
        clustered, constant = standardize(data)
    started = time.perf_counter()
    selection = (
        run_selection(args, clustered, sys.stderr) if args.k == "auto" or auto_kernel else None
    )
    selection_seconds = time.perf_counter() - started
    k = selection.k if args.k == "auto" and selection is not None else args.k
    knn_chosen = selection is not None and selection.kernel == "knn" and k > 1
    if auto_kernel and args.k != "auto" and not knn_chosen:
        model = _model(args, kernel="energy")  # --kernel auto chose the energy kernel for -k
    if model is None:  # --kernel auto: select_k's own partition, or its kNN graph's into k
        assert selection is not None
        labels = selection.labels if args.k == "auto" else knn_labels(
            clustered, k, selection, random_state=args.seed, n_threads=args.threads
        )
    else:
        model.set_params(n_clusters=k)
        model.fit(clustered)
        labels = model.labels_

    output = STDIN if args.output is None else args.output
    try:
        written = write_labels(output, labels, table.id_name, table.ids)
    except BrokenPipeError:
        if output != STDIN:
            raise CliError(f"cannot write {output}: broken pipe") from None
        raise  # standard output's reader left: main stops quietly
    except OSError as exc:
        raise CliError(f"cannot write {output}: {exc.strerror or exc}") from None
    data_line = (
        f"data           {_data_name(args)}: n = {n} points, D = {dim} "
        + ("(kernel matrix)" if precomputed else "dimensions")
        + ("" if args.columns is None else f" (columns {', '.join(names)})")
        + ("" if not args.standardize else ", standardized"
           + ("" if not constant else f"; constant, set to 0: {', '.join(names[c] for c in constant)}"))
    )
    lines = [data_line]
    if selection is not None:
        lines += selection_lines(selection, precomputed)
    if model is None:
        assert selection is not None
        kernel_note = _selected_kernel_note(selection)
        lines.append(f"kernel         {kernel_note}")
    else:
        kernel_note = _kernel_note(args, model, selection)
        lines += _fit_lines(args, model, n, k, kernel_note)
    sizes = np.bincount(labels, minlength=k)
    lines += [
        # named as the labels file numbers the clusters (0-based), like the figure's legend
        f"cluster sizes  {', '.join(f'{j}: {int(size)}' for j, size in enumerate(sizes))}",
        "time           "
        + (_time_note(model) if model is not None and selection is None
           else f"{time.perf_counter() - started:.3f} s (choosing "
           f"{'k' if args.k == 'auto' else 'the kernel'} {selection_seconds:.3f} s)"),
    ]
    key = "label" if table.id_name is None else f"{table.id_name},label"
    where = "standard output" if written is None else shown(output, written)
    lines.append(f"labels         written to {where} ({key})")
    if args.plot is not None:
        lines.append(_plot(args, data, names, labels, k, kernel_note))
    print("\n".join(lines), file=sys.stderr)
    return 0


def _fit_lines(
    args: argparse.Namespace, model: CommandLineKGroups, n: int, k: int, kernel_note: str
) -> list[str]:
    """The summary's lines on the estimator's fit."""
    result = model.result
    assert result is not None  # set by every fit
    if model.converged_:
        converged = "converged"
    elif result.cycle_length is not None:
        converged = f"stopped on a cycle of {result.cycle_length} sweeps"
    else:
        converged = "max_iter reached"
    return [
        f"kernel         {kernel_note}",
        f"storage        {_storage_note(args, model, n)}",
        f"algorithm      {args.algorithm}, k = {k}, best of n_init = {args.n_init} "
        f"(seed {args.seed})",
        f"objective Q    {model.objective_:.12g}",
        f"within W       {model.within_:.12g}",
        f"iterations     {model.n_iter_} ({converged}), {result.n_moves} moves",
    ]


def _selected_kernel_note(selection: SelectionResult) -> str:
    if selection.kernel == "energy":
        return "energy, rho = ||x - y|| (chosen by select_k)"
    if selection.kernel == "knn":
        return "kNN graph, normalised cut (chosen by select_k)"
    return "none: one group (select_k saw no structure)"


def _warn_of_an_id_column(
    args: argparse.Namespace, data: npt.NDArray[np.float64], names: list[str]
) -> None:
    """Warn when the first column counts the rows (0..n-1 or 1..n): an id clustered as a
    coordinate splits the data into ranges of ids."""
    first = numeric_id_column(data)
    if first is None:
        return
    rest = ",".join(name if not name.startswith("column ") else name.split()[1] for name in names[1:])
    warnings.warn(
        f"the first column of {_data_name(args)} ({names[0]}) holds the row numbers {first} to "
        f"{data.shape[0] - 1 + first}, an id rather than a measurement, and is clustered as a "
        f"coordinate; leave it out with --columns {rest}",
        UserWarning,
        stacklevel=2,
    )


def _data_name(args: argparse.Namespace) -> str:
    return "standard input" if args.data == STDIN else str(args.data)


def _plot(
    args: argparse.Namespace,
    data: npt.NDArray[np.float64],
    names: list[str],
    labels: npt.NDArray[np.int64],
    k: int,
    kernel_note: str,
) -> str:
    """Write the figure of the clusters; the summary line saying so."""
    if args.kernel == "precomputed":
        return "plot           skipped: the input is a kernel matrix, not points"
    from ..plotting import save_clusters_figure

    source = "stdin" if args.data == STDIN else Path(args.data).name
    method = "select_k" if args.kernel == "auto" else args.algorithm
    title = f"{source}: {method}, k = {k}, {kernel_note}"
    try:
        figure = save_clusters_figure(
            args.plot, data, labels, title=title, feature_names=names, log_x=args.log_x,
            # standardized columns are in different units: no common scale on the axes
            equal_aspect=not args.standardize,
        )
    except OSError as exc:
        raise CliError(f"cannot write {args.plot}: {exc.strerror or exc}") from None
    return f"plot           written to {shown(args.plot, figure)}"
