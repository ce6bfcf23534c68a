"""The demo of ``kgroups-rs demo``: the paper's showcase data and a real data set, clustered and
compared (``problems``: the data; ``methods``: what is compared; ``figure``: the figure).

Four problems, all generated from fixed seeds (nothing is downloaded):

============================  =====  ==  =  =========================================
data                              n   D  k  kernel of kernel k-groups
============================  =====  ==  =  =========================================
lognormal mixture (TPAMI T.1)  2000   1  2  energy, rho = |x - y|
parallel cigars (TPAMI T.2)     800   2  2  exponential, sigma = 2
concentric circles (T.2)        800   2  2  gaussian, sigma = 1
wine (scikit-learn)             178  13  3  energy, rho = ||x - y||, standardised data
============================  =====  ==  =  =========================================

Each is clustered by kernel k-groups (Hartigan), kernel k-means (batch Lloyd, same kernel),
the exact one-dimensional solver (lognormal only), k-means on the raw data (scikit-learn's
``KMeans`` when installed, else a numpy Lloyd with k-means++ seeding), and a Gaussian mixture
(scikit-learn only). The accuracy (TPAMI eq. 55) of each is printed as a table, and a figure
of the kernel k-groups clusters is written when matplotlib is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Optional, TextIO

from .._progress import ProgressCallback
from .figure import draw_figure
from .methods import METHODS, N_INIT, numpy_kmeans, run_problem
from .problems import DemoProblem, DemoResult, demo_problems

__all__ = [
    "METHODS",
    "DemoProblem",
    "DemoResult",
    "demo_problems",
    "draw_figure",
    "format_table",
    "numpy_kmeans",
    "run_demo",
    "run_problem",
]


def format_table(results: list[DemoResult]) -> str:
    """The accuracy table as aligned plain text (one row per data set)."""
    header = ["data set", "n", "D", "k", "kernel (k-groups, k-means)", *METHODS, "time"]
    rows = [header]
    for r in results:
        p = r.problem
        rows.append(
            [p.name, str(p.X.shape[0]), str(p.X.shape[1]), str(p.k), p.kernel_label]
            + ["—" if r.accuracy.get(m) is None else f"{r.accuracy[m]:.3f}" for m in METHODS]
            + [f"{r.seconds:.2f} s"]
        )
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    lines = []
    for i, row in enumerate(rows):
        cells = [
            cell.ljust(widths[c]) if c in (0, 4) else cell.rjust(widths[c])
            for c, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def run_demo(
    figure: Optional[Path] = Path("kgroups_demo.png"),
    *,
    seed: int = 0,
    n_threads: Optional[int] = None,
    progress: Optional[Callable[[str], Optional[ProgressCallback]]] = None,
    stream: TextIO = sys.stdout,
) -> list[DemoResult]:
    """Run the whole demo: print the table to ``stream`` and write the figure (if asked)."""
    problems, notes = demo_problems(seed)
    results = [run_problem(p, seed, n_threads, progress) for p in problems]
    print(
        "Clustering accuracy (fraction of points in the right cluster under the best matching "
        "of clusters to classes, TPAMI eq. 55)\n",
        file=stream,
    )
    print(format_table(results), file=stream)
    print(
        f"\nkernel k-groups = Hartigan's method, kernel k-means = batch Lloyd, both on the "
        f"kernel shown, best of {N_INIT} k-means++ starts (seed {seed}); 1D exact = optimal "
        f"threshold split (TPAMI Algorithm 3); k-means on the raw data ({results[0].kmeans_impl}); "
        "GMM = scikit-learn GaussianMixture; time = kernel + kernel k-groups.",
        file=stream,
    )
    for note in notes:
        print(f"note: {note}", file=stream)
    if all(r.accuracy.get("GMM") is None for r in results):
        print('note: GMM needs scikit-learn: pip install "kgroups_rs[sklearn]"'
              ' (from a source checkout: pip install ".[sklearn]")', file=stream)
    if figure is not None:
        try:
            from .._figures import require_matplotlib

            require_matplotlib()
        except ImportError as exc:
            print(f"note: no figure written; {exc}", file=stream)
        else:
            draw_figure(results, figure)
            print(f"figure written to {figure}", file=stream)
    return results
