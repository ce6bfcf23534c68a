"""The arguments of ``kgroups-rs`` and their checks (bad values end with exit status 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from .._algorithm import ALGORITHMS
from . import cluster
from . import demo as demo_command
from ._common import PROG
from ._select import k_option, k_range

KERNELS = ("energy", "exponential", "gaussian", "precomputed", "auto")
STORAGES = ("auto", "dense", "matrix-free")


def _int_at_least(minimum: int) -> Callable[[str], int]:
    """An argument type: an integer ``>= minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    return parse


_positive_int = _int_at_least(1)
_nonnegative_int = _int_at_least(0)


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value <= 2.0:
        raise argparse.ArgumentTypeError(f"must satisfy 0 < alpha <= 2, got {value:g}")
    return value


def _threads(text: str) -> int:
    """``--threads``: an integer; -1 is all cores, -2 all but one, ... (checked when used)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def _sigma(text: str) -> float | str:
    if text in ("mean", "median", "auto"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number, 'mean', 'median' or 'auto'") from None
    if not (np.isfinite(value) and value > 0.0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``kgroups-rs``."""
    from .. import __version__

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
    demo.add_argument("--threads", type=_threads, default=None,
                      help="threads to use (default: all cores; -1: all cores, -2: all but one, ...)")
    demo.add_argument("-v", "--verbose", action="store_true",
                      help="print progress (restart, sweep, moves) on stderr")
    demo.set_defaults(run=demo_command.run)

    cl = sub.add_parser(
        "cluster",
        help="cluster the rows of a CSV/TSV/NPY file",
        description="Cluster the rows of DATA (CSV, TSV or .npy; one point per row; an "
        "optional header line) and write one label per row: a table with a header (label, "
        "or ID,label with the id column that --columns leaves out), to standard output "
        "unless -o names a file. The summary, progress and warnings go to standard error.",
    )
    cl.add_argument("data", help="data file: .csv, .tsv or .npy; '-': standard input")
    cl.add_argument("-k", "--clusters", dest="k", type=k_option, required=True,
                    help="number of clusters (1 <= k <= n), or 'auto': chosen by select_k "
                    "(the energy kernel's gap statistic; by stability for --kernel "
                    "precomputed), the choice and its per-k table printed in the summary")
    cl.add_argument("--k-range", type=k_range, default=None, metavar="MIN:MAX",
                    help="the k that -k auto considers (default 1:10, at most n); MIN = 1 "
                    "allows the answer 'one group'")
    cl.add_argument("--kernel", choices=KERNELS, default=None,
                    help="energy: rho = ||x-y||^alpha (the default with a number for -k); "
                    "exponential / gaussian: with bandwidth --sigma; precomputed: DATA is an "
                    "n x n kernel matrix; auto (the default with -k auto): select_k chooses "
                    "the energy kernel or the kNN graph (with -k auto, together with k, and "
                    "its partition is written; with a number for -k, the k groups of the "
                    "kernel chosen)")
    cl.add_argument("--alpha", type=_alpha, default=1.0,
                    help="exponent of the energy kernel, 0 < alpha <= 2 (default 1)")
    cl.add_argument("--sigma", type=_sigma, default=None,
                    help="bandwidth of the exponential/gaussian kernels: a positive number, "
                    "'mean' (default: sigma^2 = mean squared distance between points) or "
                    "'median' (the median distance between points) or 'auto' (chosen among "
                    "candidates from the data for k groups, see kgroups_rs.choose_sigma)")
    cl.add_argument("--algorithm", choices=ALGORITHMS, default="hartigan",
                    help="hartigan = kernel k-groups (default); lloyd / lloyd-online = "
                    "kernel k-means, batch / online")
    cl.add_argument("--init", choices=("k-means++", "random", "spectral"), default="k-means++",
                    help="initialisation (default k-means++)")
    cl.add_argument("--n-init", type=_positive_int, default=5,
                    help="independent starts; the best is kept (default 5)")
    cl.add_argument("--max-iter", type=_positive_int, default=300,
                    help="maximum sweeps per start (default 300)")
    cl.add_argument("--seed", type=_nonnegative_int, default=0, help="random seed (default 0)")
    cl.add_argument("--dtype", choices=("float64", "float32"), default="float64",
                    help="precision of a dense kernel matrix (float32 halves its memory)")
    cl.add_argument("--kernel-storage", choices=STORAGES, default="auto",
                    help="dense: build the n x n kernel matrix (fastest while it fits in "
                    "memory); matrix-free: recompute kernel rows from the data (memory O(n D), "
                    "the same labels); auto (default): dense up to a 2 GiB matrix "
                    "(n <= 16384 in float64), matrix-free above")
    cl.add_argument("--delimiter", default=None,
                    help="column separator of a text file (default: ',' or tab for .tsv)")
    cl.add_argument("--threads", type=_threads, default=None,
                    help="threads to use (default: all cores; -1: all cores, -2: all but one, ...)")
    cl.add_argument("--columns", default=None, metavar="COLS",
                    help="cluster only these columns, comma-separated header names or 0-based "
                    "indices (e.g. to leave out an id column): --columns x,y or --columns 1,2")
    cl.add_argument("--standardize", action="store_true",
                    help="scale every column to mean 0 and standard deviation 1 before "
                    "clustering (columns in different units); a constant column becomes 0")
    cl.add_argument("--log-x", action="store_true",
                    help="logarithmic x axis in the figure of one-dimensional positive data "
                    "(skewed data such as incomes)")
    cl.add_argument("--no-progress", action="store_true",
                    help="no progress bar (shown on a terminal when tqdm is installed)")
    cl.add_argument("-o", "--output", default=None,
                    help="labels file: a header line, then one label per row, after the "
                    "id column that --columns leaves out (.npy: an int64 array of the labels; "
                    "default or '-': standard output)")
    cl.add_argument("--plot", default=None, metavar="PNG",
                    help="write a figure of the clusters (needs matplotlib)")
    cl.add_argument("-v", "--verbose", action="store_true",
                    help="print progress (restart, sweep, moves in the last sweep) on stderr")
    cl.set_defaults(run=cluster.run)
    return parser
