"""``kgroups-rs cluster -k auto``: the number of groups (and, with ``--kernel auto``, the
kernel) chosen by :func:`~kgroups_rs.select_k`.

What ``-k auto`` can honour:

- no ``--kernel``: the kernel of ``KernelKGroups(n_clusters="auto")``, the default
  ``kernel=None``: chosen from the data, as ``--kernel auto`` (see below), whose rules apply
  (:func:`~kgroups_rs._estimator_auto.resolved_kernel` says so for the estimators and here).
- ``--kernel auto``: ``select_k`` chooses the kernel and k, and its partition is written; the
  options that configure one estimator fit (``--alpha``, ``--sigma``, ``--algorithm``,
  ``--init``, ``--n-init``, ``--max-iter``, ``--dtype``, ``--kernel-storage``) do not apply
  and are refused. With a number for ``-k``, ``--kernel auto`` chooses the kernel only, as
  ``KernelKGroups(k, kernel="auto")`` does: ``select_k`` runs over k = 1 ... max(10, k),
  and the k groups are the normalised cut of its kNN graph when it chose that graph, else a
  fit of the energy kernel with the command's defaults.
- ``--kernel energy`` (``--alpha 1``, the only energy kernel ``select_k`` uses) or
  ``--kernel precomputed``: ``select_k`` chooses k with that kernel, then the estimator fits
  k groups with every option, as ``KernelKGroups(n_clusters="auto", kernel="energy")`` does.
- ``--kernel gaussian`` / ``exponential``: refused; ``select_k``'s gap statistic keeps the
  kernel fixed across reference sets, which a bandwidth fitted to the data does not.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
from typing import Any, Optional, TextIO

import numpy as np

from .._estimator_auto import resolved_kernel
from .._progress import ProgressCallback
from ..selection import SelectionResult, default_k_range, select_k
from ._common import CliError

#: The options of one estimator fit, their defaults, and how the error names them.
FIT_OPTIONS = (
    ("alpha", 1.0, "--alpha"),
    ("sigma", None, "--sigma"),
    ("algorithm", "hartigan", "--algorithm"),
    ("init", "k-means++", "--init"),
    ("n_init", 5, "--n-init"),
    ("max_iter", 300, "--max-iter"),
    ("dtype", "float64", "--dtype"),
    ("kernel_storage", "auto", "--kernel-storage"),
)


def k_range(text: str) -> tuple[int, int]:
    """``--k-range``: ``MIN:MAX`` (two integers, ``1 <= MIN < MAX``) or ``MAX`` (from 1)."""
    parts = text.split(":")
    if len(parts) > 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not MIN:MAX (such as 1:10)")
    try:
        bounds = [int(part) for part in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not MIN:MAX with two integers (such as 1:10)"
        ) from None
    k_min, k_max = (1, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    if k_min < 1 or k_max <= k_min:
        raise argparse.ArgumentTypeError(f"needs 1 <= MIN < MAX, got {k_min}:{k_max}")
    return k_min, k_max


def k_option(text: str) -> int | str:
    """``-k``: a positive integer or ``auto``."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither an integer nor 'auto'") from None


def check_options(args: argparse.Namespace) -> None:
    """Refuse, before any work, the combinations that ``-k``, ``--kernel`` and
    ``--k-range`` cannot honour (one line each). ``--kernel`` left out is the estimator's
    default (:func:`resolved_kernel`)."""
    auto_k = args.k == "auto"
    if not auto_k and args.k_range is not None:
        raise CliError("--k-range is the range of -k auto; give -k auto or leave --k-range out")
    kernel = resolved_kernel(args.kernel, args.k)
    if kernel == "auto":
        given = [name for attr, default, name in FIT_OPTIONS if getattr(args, attr) != default]
        if given:
            named = "--kernel auto" if args.kernel is not None else (
                "-k auto without --kernel chooses the kernel too (as --kernel auto), which"
            )
            raise CliError(
                f"{named} leaves the kernel and the fit to select_k; {', '.join(given)} "
                f"{'does' if len(given) == 1 else 'do'} not apply (name a kernel, such as "
                "--kernel energy, to fit with them)"
            )
    if not auto_k:
        return
    if kernel in ("gaussian", "exponential"):
        raise CliError(
            f"-k auto chooses k with --kernel energy, auto or precomputed, not {args.kernel} "
            "(a bandwidth fitted to the data does not carry over to the gap statistic's "
            f"reference sets); give a number for -k with --kernel {args.kernel}"
        )
    if kernel == "energy" and args.alpha != 1.0:
        raise CliError(
            f"-k auto chooses k with the energy kernel of alpha 1 (rho = ||x - y||); "
            f"--alpha {args.alpha:g} needs a number for -k"
        )


def selection_kernel(args: argparse.Namespace) -> str:
    """The ``kernel`` argument of :func:`select_k` for the command's ``--kernel``."""
    return "auto" if args.kernel == "auto" else ("precomputed" if args.kernel == "precomputed" else "energy")


class PartsProgress:
    """A ``select_k`` progress callback: one line per part with ``-v``, else a tqdm bar of
    parts (``progress(0, parts_done, parts_planned, nan)``)."""

    def __init__(self, stream: TextIO, lines: bool) -> None:
        self.stream = stream
        self.lines = lines
        self._bar: Any = None

    def __call__(self, start: int, done: int, planned: int, objective: float) -> None:
        if self.lines:
            print(f"choosing k: part {done}/{planned}", file=self.stream, flush=True)
            return
        if self._bar is None:
            tqdm = importlib.import_module("tqdm").tqdm
            self._bar = tqdm(total=planned, unit="part", file=self.stream, leave=True,
                             desc="choosing k", dynamic_ncols=True)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def parts_progress(args: argparse.Namespace, stream: TextIO) -> Optional[PartsProgress]:
    """Lines with ``-v``; a bar on a terminal with tqdm installed unless ``--no-progress``."""
    if args.verbose:
        return PartsProgress(stream, lines=True)
    if args.no_progress or not stream.isatty() or importlib.util.find_spec("tqdm") is None:
        return None
    return PartsProgress(stream, lines=False)


def run_selection(args: argparse.Namespace, data: np.ndarray, stream: TextIO) -> SelectionResult:
    """:func:`select_k` on ``data`` (points, or the kernel matrix) with the command's range
    (with a number for ``-k``: that k, the kernel alone), kernel, seed, threads and progress."""
    n = data.shape[0]
    if n < 2:
        option = "-k auto" if args.k == "auto" else "--kernel auto"
        raise CliError(f"{option} needs at least 2 points, got n = {n}")
    k: Any
    if args.k != "auto":  # --kernel auto for a given k: the kernel alone, at that k
        if args.k > n:
            raise CliError(f"-k {args.k} is beyond the number of points n = {n}")
        k = args.k
    elif args.k_range is None:
        k = default_k_range(n)
    else:
        k_min, k_max = args.k_range
        if k_max > n:
            raise CliError(f"--k-range reaches {k_max}, beyond the number of points n = {n}")
        k = range(k_min, k_max + 1)
    progress = parts_progress(args, stream)
    callback: Optional[ProgressCallback] = progress
    try:
        return select_k(
            data, k, kernel=selection_kernel(args),  # type: ignore[arg-type]
            random_state=args.seed, n_threads=args.threads, progress=callback,
        )
    finally:
        if progress is not None:
            progress.close()


def _cell(value: float, digits: int = 4) -> str:
    return "-" if not math.isfinite(value) else f"{value:.{digits}g}"


def selection_lines(selection: SelectionResult, precomputed: bool) -> list[str]:
    """The summary's selection: the chosen k, kernel and rule, then the per-k table
    (``*`` marks the chosen k)."""
    table = selection.table
    ks = np.asarray(table["k"], dtype=np.int64)
    shown = np.flatnonzero(~np.isnan(np.asarray(table["within"], dtype=np.float64)))
    rows = [("k", "W_k", "Gap (PC box) ± s_k", "stability", "rel. eigen-gap")]
    for i in shown:
        gap, se = float(table["gap_pc"][i]), float(table["se_pc"][i])
        rows.append((
            f"{int(ks[i])}{'*' if int(ks[i]) == selection.k else ''}",
            _cell(float(table["within"][i]), 6),
            "-" if not math.isfinite(gap) else f"{gap:.4f} ± {_cell(se, 3)}",
            _cell(float(table["stability"][i]), 3),
            _cell(float(table["relative_eigengap"][i]), 3),
        ))
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    body = ["  ".join(cell.rjust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    subsample = "" if selection.n_statistics == len(selection.labels) else (
        f", statistics on a subsample of {selection.n_statistics} points"
    )
    kernel = selection.kernel or ("precomputed" if precomputed else "none (one group)")
    # No k has statistics when every point is the same: the range asked for, and no table.
    span = shown if shown.size else np.arange(ks.size)
    head = (
        f"choice of k    k = {selection.k}, kernel {kernel}"
        f", rule {selection.rule}, k = {int(ks[span[0]])} .. {int(ks[span[-1]])}{subsample}"
    )
    if not shown.size:
        body = ["no statistics per k: every point is the same"]
    return [head, *(f"               {line}" for line in body)]
