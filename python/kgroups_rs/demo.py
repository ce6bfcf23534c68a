"""``kgroups-rs demo``: the paper's showcase data and a real data set, clustered and compared.

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

import contextlib
import importlib
import sys
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, TextIO

import numpy as np
import numpy.typing as npt

from . import energy_gram, kernel_kgroups, kernel_kmeans
from .accuracy import clustering_accuracy
from .clustering import ProgressCallback
from .datasets import (
    make_concentric_circles,
    make_lognormal_mixture,
    make_parallel_cigars,
    standardize,
)
from .one_d import kgroups_1d

__all__ = ["DemoProblem", "DemoResult", "demo_problems", "run_demo", "format_table"]

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]

#: Methods in table order.
METHODS = ("kernel k-groups", "kernel k-means", "1D exact", "k-means", "GMM")
_N_INIT = 10


@dataclass
class DemoProblem:
    """One data set of the demo and the kernel kernel k-groups uses on it."""

    name: str
    X: _Float  # (n, D)
    y: _Int
    kernel: dict[str, Any]  # keyword arguments of energy_gram
    kernel_label: str
    class_names: tuple[str, ...] = ()
    log_x: bool = False

    @property
    def k(self) -> int:
        return int(self.y.max()) + 1


@dataclass
class DemoResult:
    """Accuracies and the kernel k-groups clustering of one problem."""

    problem: DemoProblem
    accuracy: dict[str, Optional[float]] = field(default_factory=dict)
    labels: Optional[_Int] = None
    thresholds: Optional[_Float] = None
    seconds: float = 0.0
    kmeans_impl: str = ""


def demo_problems(seed: int = 0) -> tuple[list[DemoProblem], list[str]]:
    """The demo's data sets, and notes on any that could not be loaded."""
    notes: list[str] = []
    x, y = make_lognormal_mixture(2000, seed)
    problems = [
        DemoProblem(
            "lognormal mixture (1D)", x[:, None], y, {"semimetric": "power", "alpha": 1.0},
            "energy ρ=|x−y|", ("e^N(0,1.5²)", "e^N(1.5,0.3²)"), log_x=True,
        ),
        DemoProblem(
            "parallel cigars", *make_parallel_cigars(800, seed),
            {"semimetric": "exponential", "sigma": 2.0}, "exponential σ=2",
            ("cigar at x₁=0", "cigar at x₁=6.5"),
        ),
        DemoProblem(
            "concentric circles", *make_concentric_circles(800, seed),
            {"semimetric": "gaussian", "sigma": 1.0}, "gaussian σ=1",
            ("inner circle (r=1)", "outer circle (r=3)"),
        ),
    ]
    try:
        from sklearn.datasets import load_wine
    except ImportError:
        notes.append('wine data set skipped: it ships with scikit-learn (pip install "kgroups_rs[sklearn]")')
    else:
        data = load_wine()
        problems.append(
            DemoProblem(
                "wine (standardised)", standardize(data.data), np.asarray(data.target, np.int64),
                {"semimetric": "power", "alpha": 1.0}, "energy ρ=‖x−y‖",
                tuple(f"cultivar {c[-1]}" for c in data.target_names),
            )
        )
    return problems, notes


def numpy_kmeans(X: _Float, k: int, seed: int, n_init: int = 10, max_iter: int = 300) -> _Int:
    """Plain Lloyd k-means on the rows of ``X`` (k-means++ seeding), best of ``n_init``."""
    rng = np.random.default_rng(seed)
    best: tuple[float, _Int] = (np.inf, np.zeros(X.shape[0], dtype=np.int64))
    for _ in range(n_init):
        centres = X[[int(rng.integers(X.shape[0]))]]
        for _ in range(1, k):
            d2 = ((X[:, None, :] - centres[None]) ** 2).sum(-1).min(axis=1)
            p = d2 / d2.sum() if d2.sum() > 0 else np.full(X.shape[0], 1 / X.shape[0])
            centres = np.vstack([centres, X[rng.choice(X.shape[0], p=p)]])
        labels = np.zeros(X.shape[0], dtype=np.int64)
        for it in range(max_iter):
            d2 = ((X[:, None, :] - centres[None]) ** 2).sum(-1)
            new = np.argmin(d2, axis=1).astype(np.int64)
            if it > 0 and np.array_equal(new, labels):
                break
            labels = new
            centres = np.array(
                [X[labels == j].mean(0) if np.any(labels == j) else centres[j] for j in range(k)]
            )
        cost = float(((X - centres[labels]) ** 2).sum())
        if cost < best[0]:
            best = (cost, labels)
    return best[1]


def _one_thread() -> AbstractContextManager[Any]:
    """Limit OpenMP/BLAS to one thread: the baselines' data are small, and scikit-learn's
    OpenMP k-means slows down by orders of magnitude when other processes load the cores."""
    try:
        threadpoolctl: Any = importlib.import_module("threadpoolctl")  # comes with scikit-learn
    except ImportError:
        return contextlib.nullcontext()
    return threadpoolctl.threadpool_limits(limits=1)  # type: ignore[no-any-return]


def _kmeans(X: _Float, k: int, seed: int) -> tuple[_Int, str]:
    try:
        from sklearn.cluster import KMeans
    except ImportError:
        return numpy_kmeans(X, k, seed, n_init=_N_INIT), "numpy"
    model = KMeans(n_clusters=k, n_init=_N_INIT, random_state=seed)
    with _one_thread():
        return np.asarray(model.fit_predict(X), dtype=np.int64), "scikit-learn"


def _gmm(X: _Float, k: int, seed: int) -> Optional[_Int]:
    try:
        from sklearn.mixture import GaussianMixture
    except ImportError:
        return None
    model = GaussianMixture(n_components=k, n_init=3, random_state=seed)
    with _one_thread():
        return np.asarray(model.fit_predict(X), dtype=np.int64)


def run_problem(
    problem: DemoProblem,
    seed: int = 0,
    n_threads: Optional[int] = None,
    progress: Optional[Callable[[str], Optional[ProgressCallback]]] = None,
) -> DemoResult:
    """Cluster one problem with every method available; see the module docstring."""
    X, y, k = problem.X, problem.y, problem.k
    out = DemoResult(problem)
    callback = progress(problem.name) if progress is not None else None
    start = time.perf_counter()
    G = energy_gram(X - X.mean(axis=0), n_threads=n_threads, **problem.kernel)
    res = kernel_kgroups(G, k, n_init=_N_INIT, random_state=seed, n_threads=n_threads,
                         progress=callback)
    out.seconds = time.perf_counter() - start
    out.labels = res.labels
    out.accuracy["kernel k-groups"] = clustering_accuracy(y, res.labels)
    lloyd = kernel_kmeans(G, k, n_init=_N_INIT, random_state=seed, n_threads=n_threads)
    out.accuracy["kernel k-means"] = clustering_accuracy(y, lloyd.labels)
    del G
    if X.shape[1] == 1 and problem.kernel.get("semimetric") == "power" \
            and problem.kernel.get("alpha") == 1.0:
        exact = kgroups_1d(X[:, 0], k)
        out.accuracy["1D exact"] = clustering_accuracy(y, exact.labels)
        out.thresholds = exact.thresholds
    else:
        out.accuracy["1D exact"] = None
    km, out.kmeans_impl = _kmeans(X, k, seed)
    out.accuracy["k-means"] = clustering_accuracy(y, km)
    gmm = _gmm(X, k, seed)
    out.accuracy["GMM"] = None if gmm is None else clustering_accuracy(y, gmm)
    return out


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


def draw_figure(results: list[DemoResult], path: Path) -> Path:
    """The kernel k-groups clusters of every problem, one panel each, written to ``path``.

    Written through :func:`kgroups_rs.plotting.save_figure`: exactly ``path``, and a failed
    write leaves an existing file intact. Returns the file written.
    """
    from .plotting import new_figure, plot_clusters, save_figure

    cols = 2
    rows = (len(results) + cols - 1) // cols
    fig, axes = new_figure(rows, cols, width=12.0, height=5.2 * rows)
    for ax, r in zip(axes.ravel(), results):
        p = r.problem
        acc = r.accuracy["kernel k-groups"]
        assert r.labels is not None
        plot_clusters(
            ax, p.X, r.labels, y_true=p.y, names=p.class_names, log_x=p.log_x,
            thresholds=r.thresholds,
            title=f"{p.name}: kernel k-groups, {p.kernel_label}\naccuracy {acc:.3f}",
        )
    for ax in axes.ravel()[len(results):]:
        ax.set_visible(False)
    fig.suptitle(
        "kgroups_rs demo: kernel k-groups clusters (colour = cluster, matched to the true "
        "class; × = point in the wrong cluster)",
        fontsize=12,
    )
    return save_figure(fig, path, dpi=110)


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
        f"kernel shown, best of {_N_INIT} k-means++ starts (seed {seed}); 1D exact = optimal "
        f"threshold split (TPAMI Algorithm 3); k-means on the raw data ({results[0].kmeans_impl}); "
        "GMM = scikit-learn GaussianMixture; time = kernel + kernel k-groups.",
        file=stream,
    )
    for note in notes:
        print(f"note: {note}", file=stream)
    if all(r.accuracy.get("GMM") is None for r in results):
        print('note: GMM needs scikit-learn (pip install "kgroups_rs[sklearn]")', file=stream)
    if figure is not None:
        try:
            from .plotting import require_matplotlib

            require_matplotlib()
        except ImportError as exc:
            print(f"note: no figure written; {exc}", file=stream)
        else:
            draw_figure(results, figure)
            print(f"figure written to {figure}", file=stream)
    return results
