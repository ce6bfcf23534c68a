#!/usr/bin/env python3
"""Reproduce the numerical experiments of the kernel k-groups paper (TPAMI, §5) with kgroups_rs.

França, Rizzo & Vogelstein, "Kernel k-Groups via Hartigan's Method", IEEE TPAMI
(``../shared/papers/kernel_kgroups_tpami.txt``). Every experiment is regenerated from fixed seeds
with the library (kernel k-groups = Hartigan, kernel k-means = batch Lloyd on the same kernel,
the exact 1-D solver) and the scikit-learn peers (k-means, Gaussian mixture, spectral
clustering), and ``RESULTS.md`` puts each number beside the paper's.

Protocol (paper §5, and issue 6)
--------------------------------
* Every method gets the same data in every trial.
* Kernel k-groups and kernel k-means run 5 starts (k-means++ in feature space unless stated)
  and keep the best objective; both are given the same seed, so the 5 initial partitions are
  identical for the two algorithms.
* k-means: scikit-learn ``KMeans`` with k-means++ and 5 starts. GMM: ``GaussianMixture`` (full
  covariances) initialised from k-means, 5 starts. Spectral clustering: ``SpectralClustering``
  with the same energy kernel as affinity (negative entries, possible for the Gaussian
  semimetric, clipped to 0), 5 k-means starts in the embedding.
* Accuracy is the paper's eq. 55 (best label permutation, :func:`kgroups_rs.clustering_accuracy`);
  the adjusted Rand index is reported beside it. Results are the mean ± the half-width of a
  95 % t-interval over the Monte Carlo trials; the number of trials is always stated.

Experiments (``--only N``)
--------------------------
1. Table 1 / Fig. 1: one-dimensional normal and lognormal mixtures, n = 100 .. 2 000.
2. Fig. 3a: eq. 56 in D = 10 .. 200 (200 points).
3. Fig. 3b: eq. 57 (unequal covariances), same sweep.
4. Fig. 3e: unbalanced clusters, eq. 59, m = 0 .. 240.
5. Table 2: parallel cigars and concentric circles (800 points, random initialisation).
6. Tables 3-4: the dermatology data (k = 6, rho_1/2), restarts needed, diagnostics.
7. Real data bundled with scikit-learn (wine, breast cancer, digits), Hartigan vs Lloyd from
   the same initialisations.

Usage::

    python experiments/reproduce_paper.py            # full run, writes experiments/RESULTS.md
    python experiments/reproduce_paper.py --quick    # < 3 minutes, writes RESULTS-quick.md
    python experiments/reproduce_paper.py --only 6 --out /tmp/exp

Needs numpy, scipy and scikit-learn; matplotlib for the figures (skipped without it).
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import kgroups_rs as kg
import numpy as np
import numpy.typing as npt
from kgroups_rs.datasets import (
    make_concentric_circles,
    make_lognormal_mixture,
    make_parallel_cigars,
    standardize,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
T = TypeVar("T")

#: Starts of every method (paper §5: "We run every algorithm 5 times ... best objective").
N_STARTS = 5
ALL_METHODS = ("kernel k-groups", "kernel k-means", "spectral", "k-means", "GMM")
#: Relative tolerance under which two objective values count as the same local optimum.
SAME_OPTIMUM_RTOL = 1e-9
#: The paper prints 3 decimals; a paper value within this of our interval counts as inside.
PAPER_ROUNDING = 5e-4

#: The UCI dermatology data, vendored with the tests (``tests/data/README.md``).
DEFAULT_DERMATOLOGY = Path(__file__).resolve().parents[1] / "tests" / "data" / "dermatology.csv"


# ============================================================================ configuration


@dataclass
class Config:
    """Run settings shared by the experiments."""

    quick: bool
    seed: int
    out: Path
    figures: bool
    n_threads: Optional[int]
    dermatology: Path

    def pick(self, full: T, quick: T) -> T:
        """The full-run or the quick-run value of a setting."""
        return quick if self.quick else full

    def seed_for(self, *keys: int) -> int:
        """A 32-bit seed derived from the run seed and the given keys (experiment, setting, trial)."""
        state = np.random.SeedSequence([self.seed, *keys]).generate_state(1, dtype=np.uint32)
        return int(state[0])

    @property
    def suffix(self) -> str:
        return "-quick" if self.quick else ""


# ============================================================================ statistics


@dataclass(frozen=True)
class Stats:
    """Mean and 95 % intervals of per-trial values."""

    values: FloatArray

    @staticmethod
    def of(values: Sequence[float]) -> Stats:
        return Stats(np.asarray(values, dtype=np.float64))

    @property
    def n(self) -> int:
        return int(self.values.size)

    @property
    def mean(self) -> float:
        return float(self.values.mean())

    @property
    def sd(self) -> float:
        return float(self.values.std(ddof=1)) if self.n > 1 else 0.0

    @property
    def half(self) -> float:
        """Half-width of the 95 % t-interval of the mean."""
        if self.n < 2:
            return 0.0
        from scipy.stats import t as student_t

        return float(student_t.ppf(0.975, self.n - 1)) * self.sd / math.sqrt(self.n)

    @property
    def lo(self) -> float:
        return self.mean - self.half

    @property
    def hi(self) -> float:
        return self.mean + self.half

    @property
    def q_lo(self) -> float:
        """2.5th percentile of the single trials."""
        return float(np.percentile(self.values, 2.5))

    @property
    def q_hi(self) -> float:
        return float(np.percentile(self.values, 97.5))

    def fmt(self, digits: int = 3) -> str:
        return f"{self.mean:.{digits}f} ± {self.half:.{digits}f}"

    def range_fmt(self, digits: int = 3) -> str:
        return f"[{self.q_lo:.{digits}f}, {self.q_hi:.{digits}f}]"


def in_ci(paper: float, s: Stats) -> bool:
    return s.lo - PAPER_ROUNDING <= paper <= s.hi + PAPER_ROUNDING


def in_range(paper: float, s: Stats) -> bool:
    return s.q_lo - PAPER_ROUNDING <= paper <= s.q_hi + PAPER_ROUNDING


class Tally:
    """Accuracy and adjusted Rand index per key, appended trial by trial."""

    def __init__(self) -> None:
        self.acc: dict[Any, list[float]] = defaultdict(list)
        self.ari: dict[Any, list[float]] = defaultdict(list)

    def add(self, key: Any, y: IntArray, labels: npt.ArrayLike) -> tuple[float, float]:
        from sklearn.metrics import adjusted_rand_score

        a = kg.clustering_accuracy(y, labels)
        r = float(adjusted_rand_score(y, labels))
        self.acc[key].append(a)
        self.ari[key].append(r)
        return a, r

    def stats(self, key: Any, metric: str = "acc") -> Stats:
        return Stats.of((self.acc if metric == "acc" else self.ari)[key])

    def has(self, key: Any) -> bool:
        return key in self.acc


# ============================================================================ report pieces


@dataclass
class Claim:
    """One paper number (or statement) beside ours."""

    experiment: str
    quantity: str
    paper: str
    ours: str
    interval: str
    verdict: str


@dataclass
class Section:
    """One experiment's part of RESULTS.md, with its numbers for programmatic use."""

    number: int
    title: str
    body: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    seconds: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)

    def add(self, *lines: str) -> None:
        self.body.extend(lines)


def md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A GitHub markdown table."""
    out = ["| " + " | ".join(str(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out + [""]


def mean_claim(experiment: str, quantity: str, paper: float, s: Stats, *, single_draw: bool = False) -> Claim:
    """Paper value against our mean ± CI (and, for single-draw paper numbers, the trial range)."""
    inside = in_ci(paper, s)
    interval = f"{'yes' if inside else 'no'} (CI [{s.lo:.3f}, {s.hi:.3f}])"
    if inside:
        verdict = "reproduced"
    elif single_draw and in_range(paper, s):
        verdict = (
            f"consistent: the paper's number is one sample and lies inside the central 95 % of our "
            f"single trials {s.range_fmt()}"
        )
    else:
        verdict = f"**not reproduced** (single trials {s.range_fmt()})"
    return Claim(experiment, quantity, f"{paper:.3f}", f"{s.fmt()} ({s.n} trials)", interval, verdict)


# ============================================================================ methods and kernels


@dataclass(frozen=True)
class Kernel:
    """A semimetric of negative type and the energy kernel it generates (base point 0)."""

    semimetric: str = "power"
    alpha: float = 1.0
    sigma: Optional[float] = None

    @property
    def name(self) -> str:
        if self.semimetric == "power":
            return "ρ_1" if self.alpha == 1.0 else ("ρ_{1/2}" if self.alpha == 0.5 else f"ρ_{self.alpha:g}")
        mark = "ρ̃" if self.semimetric == "exponential" else "ρ̂"
        return f"{mark}_{self.sigma:g}"

    def gram(self, X: npt.ArrayLike, cfg: Config) -> FloatArray:
        G = kg.energy_gram(
            X, semimetric=self.semimetric, alpha=self.alpha, sigma=self.sigma, n_threads=cfg.n_threads
        )
        return np.asarray(G, dtype=np.float64)


RHO_1 = Kernel()
RHO_HALF = Kernel(alpha=0.5)
RHO_TILDE_2 = Kernel("exponential", sigma=2.0)
RHO_HAT_1 = Kernel("gaussian", sigma=1.0)


def as_2d(X: npt.ArrayLike) -> FloatArray:
    A = np.asarray(X, dtype=np.float64)
    return A.reshape(-1, 1) if A.ndim == 1 else A


def fit_labels(
    method: str,
    X: npt.ArrayLike,
    G: Optional[FloatArray],
    k: int,
    seed: int,
    cfg: Config,
    kernel_init: str = "k-means++",
) -> IntArray:
    """Labels of one method under the paper's protocol (5 starts, best objective)."""
    from sklearn.cluster import KMeans, SpectralClustering
    from sklearn.mixture import GaussianMixture

    data = as_2d(X)
    with warnings.catch_warnings():
        # Convergence and "graph not fully connected" warnings of the peers are expected here.
        warnings.simplefilter("ignore")
        if method == "kernel k-groups":
            assert G is not None
            return kg.kernel_kgroups(
                G, k, kernel_init, n_init=N_STARTS, random_state=seed, n_threads=cfg.n_threads
            ).labels
        if method == "kernel k-means":
            assert G is not None
            return kg.kernel_kmeans(
                G,
                k,
                kernel_init,
                algorithm="lloyd",
                n_init=N_STARTS,
                random_state=seed,
                n_threads=cfg.n_threads,
            ).labels
        if method == "spectral":
            assert G is not None
            model = SpectralClustering(
                n_clusters=k, affinity="precomputed", n_init=N_STARTS, random_state=seed
            )
            return np.asarray(model.fit_predict(np.maximum(G, 0.0)), dtype=np.int64)
        if method == "spectral (RBF affinity)":
            model = SpectralClustering(n_clusters=k, n_init=N_STARTS, random_state=seed)
            return np.asarray(model.fit_predict(data), dtype=np.int64)
        if method == "k-means":
            km = KMeans(n_clusters=k, init="k-means++", n_init=N_STARTS, random_state=seed)
            return np.asarray(km.fit_predict(data), dtype=np.int64)
        if method == "GMM":
            gmm = GaussianMixture(n_components=k, init_params="kmeans", n_init=N_STARTS, random_state=seed)
            return np.asarray(gmm.fit(data).predict(data), dtype=np.int64)
        if method == "1D exact":
            return kg.kgroups_1d(np.asarray(X, dtype=np.float64).ravel(), k).labels
    raise ValueError(f"unknown method {method!r}")


def objective(G: FloatArray, labels: IntArray) -> float:
    """Q = sum_j (sum_{a,b in C_j} G_ab) / |C_j| (unit weights)."""
    total = 0.0
    for j in np.unique(labels):
        idx = np.flatnonzero(labels == j)
        total += float(G[np.ix_(idx, idx)].sum()) / idx.size
    return total


def compare_w(w_h: float, w_l: float) -> int:
    """+1 when Hartigan's W is lower (better) than Lloyd's, 0 when equal, -1 when higher."""
    scale = max(abs(w_h), abs(w_l), 1e-300)
    if w_l - w_h > SAME_OPTIMUM_RTOL * scale:
        return 1
    if w_h - w_l > SAME_OPTIMUM_RTOL * scale:
        return -1
    return 0


def raw_kmeanspp_labels(X: npt.ArrayLike, k: int, seed: int) -> IntArray:
    """k-means++ seeded on the raw data (squared Euclidean), each point to its nearest centre."""
    from sklearn.cluster import kmeans_plusplus

    data = as_2d(X)
    centres, idx = kmeans_plusplus(data, n_clusters=k, random_state=seed)
    d2 = ((data[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    labels = np.asarray(d2.argmin(axis=1), dtype=np.int64)
    labels[np.asarray(idx)] = np.arange(k)
    return labels


def feature_kmeanspp_labels(G: FloatArray, k: int, rng: np.random.Generator) -> IntArray:
    """Greedy k-means++ in feature space (d² = G_ii + G_cc − 2 G_ic), numpy version."""
    n = G.shape[0]
    diag = np.diag(G)

    def d2(c: int) -> FloatArray:
        return np.asarray(np.maximum(diag + diag[c] - 2.0 * G[c], 0.0), dtype=np.float64)

    centres = [int(rng.integers(n))]
    closest = d2(centres[0])
    trials = 2 + int(math.log(k))
    for _ in range(1, k):
        total = closest.sum()
        p = closest / total if total > 0 else np.full(n, 1.0 / n)
        candidates = rng.choice(n, size=trials, p=p)
        best = min((int(c) for c in candidates), key=lambda c: float(np.minimum(closest, d2(c)).sum()))
        centres.append(best)
        closest = np.minimum(closest, d2(best))
    dist = np.stack([d2(c) for c in centres], axis=1)
    labels = np.asarray(dist.argmin(axis=1), dtype=np.int64)
    labels[np.asarray(centres)] = np.arange(k)
    return labels


def online_lloyd_numpy(
    G: FloatArray, labels0: IntArray, k: int, *, literal: bool, max_sweeps: int = 100
) -> IntArray:
    """The paper's Algorithm 1 (online kernel k-means), independent numpy implementation.

    ``literal=True`` uses lines 12-13 exactly as printed, ``q_j -= 2 Q_j(x_i)`` and
    ``q_j* += 2 Q_j*(x_i)``, without the ``+ G_ii`` term (SPEC, "Differences from the papers",
    item 1), so the tracked cluster costs drift from the true ones. ``literal=False`` applies
    the corrected updates and must agree with ``kernel_kmeans(algorithm="lloyd-online")``.
    """
    labels: IntArray = np.array(labels0, dtype=np.int64)
    n = G.shape[0]
    onehot = np.zeros((n, k))
    onehot[np.arange(n), labels] = 1.0
    M = G @ onehot  # M[i, l] = sum_{y in C_l} G_iy
    s = onehot.sum(axis=0)
    q = np.einsum("il,il->l", M, onehot)
    diag = np.diag(G)
    for _ in range(max_sweeps):
        moved = 0
        for i in range(n):
            j = int(labels[i])
            if s[j] <= 1.0:
                continue  # a point alone in its cluster never moves (s_j - 1 = 0 otherwise)
            cost = q / s**2 - 2.0 * M[i] / s
            best = int(np.argmin(cost))
            if cost[best] < cost[j]:
                extra = 0.0 if literal else diag[i]
                q[j] = q[j] - 2.0 * M[i, j] + extra
                q[best] = q[best] + 2.0 * M[i, best] + extra
                s[j] -= 1.0
                s[best] += 1.0
                M[:, j] -= G[:, i]
                M[:, best] += G[:, i]
                labels[i] = best
                moved += 1
        if moved == 0:
            break
    return labels


def tslearn_rule(G: FloatArray, labels0: IntArray, k: int, max_iter: int = 50) -> IntArray:
    """The assignment rule of tslearn's KernelKMeans: argmin_j 2 − 2·mean_{y∈C_j} K(x, y).

    tslearn drops ``K(x, x)`` and the centre's squared norm ``‖μ_j‖² = Q_j / s_j²`` because it
    assumes a normalised kernel; on the energy kernel that is not kernel k-means.
    """
    labels: IntArray = np.array(labels0, dtype=np.int64)
    for _ in range(max_iter):
        counts = np.bincount(labels, minlength=k).astype(np.float64)
        if (counts == 0).any():
            break  # tslearn raises EmptyClusterError and restarts
        onehot = np.zeros((labels.size, k))
        onehot[np.arange(labels.size), labels] = 1.0
        dist = 2.0 - 2.0 * (G @ onehot) / counts
        new = np.asarray(dist.argmin(axis=1), dtype=np.int64)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


# ============================================================================ figures


def errorbar_curve(ax: Any, xs: list[Any], stats: Sequence[Stats], label: str) -> None:
    """One method's mean accuracy against x, with its 95 % intervals as error bars."""
    means, halves = [s.mean for s in stats], [s.half for s in stats]
    ax.errorbar(xs, means, yerr=halves, marker="o", ms=3, capsize=2, label=label)


def pyplot() -> Any:
    """matplotlib.pyplot with the Agg backend, or None when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save_figure(cfg: Config, fig: Any, name: str) -> str:
    """Save under OUT/figures and return the markdown image line."""
    plt = pyplot()
    folder = cfg.out / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}{cfg.suffix}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    if plt is not None:
        plt.close(fig)
    return f"![{name}](figures/{path.name})"


def plot_sweep(
    cfg: Config,
    tally: Tally,
    xs: Sequence[Any],
    methods: Sequence[str],
    name: str,
    title: str,
    xlabel: str,
    bayes: Optional[Sequence[float]] = None,
    extra: Optional[tuple[str, Sequence[str]]] = None,
) -> Optional[str]:
    """Mean accuracy ± 95 % CI against the swept parameter (one panel, or two with ``extra``)."""
    plt = pyplot()
    if plt is None or not cfg.figures:
        return None
    panels = 2 if extra else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.0 * panels, 4.2), squeeze=False)
    groups = [(title, methods)] + ([extra] if extra else [])
    for ax, (panel_title, panel_methods) in zip(axes[0], groups):
        for method in panel_methods:
            errorbar_curve(ax, list(xs), [tally.stats((x, method)) for x in xs], method)
        if bayes is not None:
            ax.plot(list(xs), list(bayes), "k--", lw=1, label="Bayes")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("accuracy (eq. 55)")
        ax.set_title(panel_title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return save_figure(cfg, fig, name)


# ============================================================================ experiment 1


TABLE1 = {
    ("normal", "k-means"): 0.778,
    ("lognormal", "k-means"): 0.520,
    ("normal", "GMM"): 0.887,
    ("lognormal", "GMM"): 0.542,
    ("normal", "kernel k-groups"): 0.807,
    ("lognormal", "kernel k-groups"): 0.846,
}


def experiment_1(cfg: Config) -> Section:
    """Table 1 / Fig. 1: two-class 1-D mixtures, normal and lognormal (same draws, exp(·))."""
    sec = Section(1, "Table 1 / Fig. 1 — one-dimensional normal and lognormal mixtures")
    ns = cfg.pick([100, 200, 500, 1000, 1500, 2000], [100, 500, 2000])
    trials = cfg.pick(100, 10)
    n_max = ns[-1]
    methods = ("kernel k-groups", "1D exact", "k-means", "GMM")
    seeding = (
        "feature-space k-means++, 5 starts (default)",
        "feature-space k-means++, 1 start",
        "raw-data k-means++, 5 starts",
        "raw-data k-means++, 1 start",
    )
    tally = Tally()
    same_optimum: dict[str, list[bool]] = defaultdict(list)
    versus_exact: dict[int, int] = {1: 0, 0: 0, -1: 0}
    example: dict[str, tuple[FloatArray, IntArray, dict[str, IntArray]]] = {}
    for ni, n in enumerate(ns):
        for t in range(trials):
            seed = cfg.seed_for(1, ni, t)
            x_ln, y = make_lognormal_mixture(n, seed=seed)
            for dist, x in (("normal", np.log(x_ln)), ("lognormal", x_ln)):
                G = RHO_1.gram(x, cfg)
                res = kg.kernel_kgroups(G, 2, n_init=N_STARTS, random_state=seed, n_threads=cfg.n_threads)
                exact = kg.kgroups_1d(x, 2)
                labels = {
                    "kernel k-groups": res.labels,
                    "1D exact": exact.labels,
                    "k-means": fit_labels("k-means", x, None, 2, seed, cfg),
                    "GMM": fit_labels("GMM", x, None, 2, seed, cfg),
                }
                for method, lab in labels.items():
                    tally.add((dist, n, method), y, lab)
                versus_exact[compare_w(res.within, exact.within)] += 1
                if n != n_max:
                    continue
                same_optimum[dist].append(compare_w(res.within, exact.within) == 0)
                one = kg.kernel_kgroups(G, 2, n_init=1, random_state=seed, n_threads=cfg.n_threads)
                raw = [
                    kg.kernel_kgroups(G, 2, raw_kmeanspp_labels(x, 2, seed + s), n_threads=cfg.n_threads)
                    for s in range(N_STARTS)
                ]
                best_raw = max(raw, key=lambda r: r.objective)
                for name, lab in zip(seeding, (res.labels, one.labels, best_raw.labels, raw[0].labels)):
                    tally.add((dist, "seeding", name), y, lab)
                if t == 0:
                    example[dist] = (x, y, labels)

    # --- Table 1
    rows = []
    for method in ("k-means", "GMM", "kernel k-groups", "1D exact"):
        row: list[Any] = [method]
        for dist in ("normal", "lognormal"):
            s = tally.stats((dist, n_max, method))
            paper = TABLE1.get((dist, method))
            row += [f"{paper:.3f}" if paper is not None else "—", s.fmt(), s.range_fmt()]
            if paper is not None:
                sec.claims.append(
                    mean_claim("1 (Table 1)", f"{method}, {dist}, n = {n_max}", paper, s, single_draw=True)
                )
        rows.append(row)
    sec.add(
        f'Data: x ~ ½N(0, 1.5²) + ½N(1.5, 0.3²) ("normal") and exp(x) ("lognormal"): the '
        "lognormal sample of each trial is `kgroups_rs.datasets.make_lognormal_mixture` and the "
        "normal sample is its logarithm, so both columns see the same draws. Kernel k-groups uses "
        f"ρ_1 = |x − y| (base point 0), {N_STARTS} starts. {trials} Monte Carlo trials per n.",
        "",
        f"**Table 1** (n = {n_max}; accuracy, mean ± 95 % CI over {trials} trials, and the central "
        "95 % of single trials):",
        "",
    )
    sec.add(
        *md_table(
            [
                "method",
                "paper normal",
                "ours normal",
                "single trials",
                "paper lognormal",
                "ours lognormal",
                "single trials",
            ],
            rows,
        )
    )
    sec.add(
        "The paper's Table 1 comes from *one* sample of 2 000 points (Fig. 1c-d), so it is compared "
        "with the spread of single trials as well as with the interval of our mean.",
        "",
    )

    # --- accuracy and ARI against n
    for metric, label in (("acc", "accuracy"), ("ari", "adjusted Rand index")):
        rows = []
        for n in ns:
            row = [str(n)]
            for dist in ("normal", "lognormal"):
                row += [tally.stats((dist, n, m), metric).fmt() for m in methods]
            rows.append(row)
        heads = ["n"] + [f"{m} ({d[:4]}.)" for d in ("normal", "lognormal") for m in methods]
        sec.add(f"**Fig. 1a-b** — {label} against n ({trials} trials each):", "", *md_table(heads, rows))

    # --- exact solver vs kernel k-groups, and seeding
    agree = {d: float(np.mean(v)) for d, v in same_optimum.items()}
    sec.data["same_optimum"] = agree
    sec.data["versus_exact"] = versus_exact
    sec.add(
        '**Kernel k-groups against the exact 1-D solver** (paper: "kernel k-groups in this '
        f'one-dimensional example performed the same as the exact deterministic Algorithm 3"): at '
        f"n = {n_max} kernel k-groups ({N_STARTS} starts) reached the exact optimum of W in "
        f"{100 * agree['normal']:.0f} % of the normal and {100 * agree['lognormal']:.0f} % of the "
        "lognormal trials. Over all sizes and both mixtures "
        f"({sum(versus_exact.values())} runs), kernel k-groups ended at the exact solver's W in "
        f"{versus_exact[0]}, at a higher W (a worse local optimum) in {versus_exact[-1]} and at a lower W "
        f"in {versus_exact[1]} — the exact solver was never beaten, as SPEC.md expects of the best "
        "threshold split.",
        "",
    )
    sec.claims.append(
        Claim(
            "1 (§5.1)",
            "kernel k-groups = exact 1-D solver",
            "same performance",
            f"same optimum in {100 * agree['normal']:.0f} % / {100 * agree['lognormal']:.0f} % of trials",
            "—",
            "reproduced" if min(agree.values()) >= 0.95 else "**partly**: see experiment 1",
        )
    )
    rows = []
    for name in seeding:
        rows.append(
            [name]
            + [
                tally.stats((d, "seeding", name), metric).fmt()
                for d in ("normal", "lognormal")
                for metric in ("acc", "ari")
            ]
        )
    sec.add(
        f'**Initialisation of kernel k-groups** (n = {n_max}, same data and kernel; "raw-data" '
        "seeds k-means++ with squared Euclidean distances on x, then assigns every point to its "
        'nearest centre; "feature-space" is the library\'s k-means++ on d² = ρ):',
        "",
        *md_table(["seeding", "acc. normal", "ARI normal", "acc. lognormal", "ARI lognormal"], rows),
    )
    fs = tally.stats(("lognormal", "seeding", seeding[0]))
    raw1 = tally.stats(("lognormal", "seeding", seeding[3]))
    raw5 = tally.stats(("lognormal", "seeding", seeding[2]))
    sec.data["seeding"] = {name: tally.stats(("lognormal", "seeding", name)) for name in seeding}
    sec.add(
        f"Issue 6 quotes an independent reimplementation: feature-space k-means++ gives the paper's "
        f"0.846 on the lognormal mixture, raw-data seeding about 0.76. Here feature-space seeding "
        f"gives {fs.fmt()}, raw-data seeding {raw1.fmt()} with one start and {raw5.fmt()} when the best "
        f"of {N_STARTS} raw-data starts is kept.",
        "",
    )
    sec.claims.append(
        Claim(
            "1 (issue)",
            "lognormal, raw-data k-means++ seeding",
            "≈ 0.76 (reimplementation)",
            f"1 start {raw1.fmt()}; best of 5 {raw5.fmt()}",
            "—",
            "reproduced"
            if raw1.lo <= 0.76 <= raw1.hi or raw5.lo <= 0.76 <= raw5.hi
            else "direction reproduced (raw seeding is worse); 0.76 is outside both our intervals",
        )
    )
    sec.data["table1"] = {
        (dist, m): tally.stats((dist, n_max, m)) for dist in ("normal", "lognormal") for m in methods
    }

    # --- parameterisation: is the second argument of N(·, ·) a standard deviation or a variance?
    var_trials = cfg.pick(30, 5)
    var_tally = Tally()
    for t in range(var_trials):
        seed = cfg.seed_for(1, 500, t)
        rng = np.random.default_rng(seed)
        y = rng.integers(0, 2, size=n_max).astype(np.int64)
        z = rng.normal(np.where(y == 0, 0.0, 1.5), np.sqrt(np.where(y == 0, 1.5, 0.3)))
        for dist, x in (("normal", z), ("lognormal", np.exp(z))):
            for method in ("k-means", "GMM", "1D exact"):
                var_tally.add((dist, method), y, fit_labels(method, x, None, 2, seed, cfg))
    rows = []
    for method, label in (
        ("k-means", "k-means"),
        ("GMM", "GMM"),
        ("1D exact", "kernel k-groups (= 1D exact)"),
    ):
        row = [label]
        for dist in ("normal", "lognormal"):
            paper = TABLE1[(dist, "kernel k-groups" if method == "1D exact" else method)]
            row += [
                f"{paper:.3f}",
                tally.stats((dist, n_max, method)).fmt(),
                var_tally.stats((dist, method)).fmt(),
            ]
        rows.append(row)
    sec.add(
        "**Parameterisation check.** The paper writes N(0, 1.5) and N(1.5, 0.3) but uses N(μ, Σ) with a "
        "covariance elsewhere. Reading the second argument as a *variance* (σ = √1.5, √0.3; "
        f"{var_trials} trials, n = {n_max}) instead of a standard deviation:",
        "",
        *md_table(
            [
                "method",
                "paper normal",
                "ours, σ = 1.5 / 0.3",
                "ours, σ² = 1.5 / 0.3",
                "paper lognormal",
                "ours, σ = 1.5 / 0.3",
                "ours, σ² = 1.5 / 0.3",
            ],
            rows,
        ),
    )
    kg_var = var_tally.stats(("lognormal", "1D exact"))
    gmm_var = var_tally.stats(("normal", "GMM"))
    sec.add(
        f"With variances, kernel k-groups would give {kg_var.fmt()} on the lognormal mixture (paper 0.846) "
        f"and GMM {gmm_var.fmt()} on the normal one (paper 0.887): the paper's numbers fit the "
        "standard-deviation reading, which `make_lognormal_mixture` uses.",
        "",
    )
    sec.data["variance_reading"] = {key: var_tally.stats(key) for key in var_tally.acc}
    sec.data["n_max"] = n_max
    sec.data["trials"] = trials

    # --- figure
    plt = pyplot()
    if plt is not None and cfg.figures and example:
        fig, axes = plt.subplots(2, 2, figsize=(11, 8))
        for col, dist in enumerate(("normal", "lognormal")):
            ax = axes[0, col]
            for method in methods:
                errorbar_curve(ax, list(ns), [tally.stats((dist, n, method)) for n in ns], method)
            ax.set_title(f"({'ab'[col]}) {dist} mixture: accuracy vs n ({trials} trials)", fontsize=10)
            ax.set_xlabel("n")
            ax.set_ylabel("accuracy")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
            _density_panel(axes[1, col], dist, *example[dist], seed=cfg.seed_for(1, len(ns) - 1, 0))
        sec.add(save_figure(cfg, fig, "fig1_one_dimensional"), "")
    return sec


def _density_panel(
    ax: Any, dist: str, x: FloatArray, y: IntArray, labels: dict[str, IntArray], seed: int
) -> None:
    """Fig. 1c-d: a KDE per kernel k-groups cluster, a Gaussian per k-means / GMM cluster."""
    from scipy.stats import gaussian_kde, norm

    lo, hi = (float(np.percentile(x, 0.5)), float(np.percentile(x, 99.5)))
    if dist == "lognormal":
        lo, hi = 0.0, min(hi, 12.0)
    grid = np.linspace(lo, hi, 400)
    ax.hist(x, bins=120, range=(lo, hi), density=True, color="0.85", label="data")
    styles = {"kernel k-groups": "-", "k-means": "--", "GMM": ":"}
    colours = ("tab:blue", "tab:red")
    for method, style in styles.items():
        lab = labels[method]
        acc = kg.clustering_accuracy(y, lab)
        for j in range(2):
            xs = x[lab == j]
            weight = xs.size / x.size
            if xs.size < 2:
                continue
            if method == "kernel k-groups":
                dens = weight * gaussian_kde(xs)(grid)
            else:
                dens = weight * norm.pdf(grid, xs.mean(), xs.std() + 1e-12)
            ax.plot(
                grid,
                dens,
                style,
                color=colours[j],
                lw=1.2,
                label=f"{method} (acc {acc:.3f})" if j == 0 else None,
            )
    ax.set_xlim(lo, hi)
    ax.set_title(f"({'cd'[dist == 'lognormal']}) one {dist} sample, n = {x.size}", fontsize=10)
    ax.legend(fontsize=7)


# ============================================================================ experiments 2-4


SIGMA57 = np.array([1.367, 3.175, 3.247, 4.403, 1.249, 1.969, 4.035, 4.237, 2.813, 3.637])


def make_eq56(n: int, D: int, rng: np.random.Generator) -> tuple[FloatArray, IntArray]:
    """Eq. 56: ½N(0, I_D) + ½N(μ₂, I_D), μ₂ = 0.7·(1 ×10, 0 ×(D−10))."""
    y = rng.integers(0, 2, size=n).astype(np.int64)
    X = rng.normal(size=(n, D))
    X[y == 1, :10] += 0.7
    return X, y


def make_eq57(n: int, D: int, rng: np.random.Generator) -> tuple[FloatArray, IntArray]:
    """Eq. 57: ½N(0, I_D) + ½N(μ₂, Σ₂), μ₂ = (1 ×10, 0 ...), Σ₂ = diag(Σ̃₁₀, I_{D−10})."""
    y = rng.integers(0, 2, size=n).astype(np.int64)
    X = rng.normal(size=(n, D))
    X[y == 1, :10] = 1.0 + X[y == 1, :10] * np.sqrt(SIGMA57)
    return X, y


def make_eq59(m: int, rng: np.random.Generator, N: int = 300) -> tuple[FloatArray, IntArray]:
    """Eq. 59: n₁ = N − m points of N(0, I₄), n₂ = N + m of N(1.5(1,1,0,0), diag(½,½,1,1)), shuffled."""
    n1, n2 = N - m, N + m
    X1 = rng.normal(size=(n1, 4))
    X2 = rng.normal(size=(n2, 4)) * np.sqrt([0.5, 0.5, 1.0, 1.0]) + np.array([1.5, 1.5, 0.0, 0.0])
    X = np.vstack([X1, X2])
    y = np.concatenate([np.zeros(n1, dtype=np.int64), np.ones(n2, dtype=np.int64)])
    order = rng.permutation(n1 + n2)
    return X[order], y[order]


def bayes_eq57(rng: np.random.Generator, n: int = 400_000) -> float:
    """Bayes accuracy of eq. 57 by Monte Carlo (only the first 10 coordinates differ)."""
    X, y = make_eq57(n, 10, rng)
    var = SIGMA57
    llr = (-0.5 * np.log(var) - (X - 1.0) ** 2 / (2 * var) + X**2 / 2).sum(axis=1)
    return float(np.mean((llr > 0) == (y == 1)))


def bayes_eq59(m: int, rng: np.random.Generator, reps: int = 400, N: int = 300) -> float:
    """Bayes accuracy of eq. 59 (priors n₁/2N, n₂/2N) by Monte Carlo."""
    parts = [make_eq59(m, rng, N) for _ in range(reps)]
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    var2 = np.array([0.5, 0.5, 1.0, 1.0])
    mu2 = np.array([1.5, 1.5, 0.0, 0.0])
    ll0 = -0.5 * (X**2).sum(axis=1) + math.log((N - m) / (2 * N))
    ll1 = (-0.5 * np.log(var2) - (X - mu2) ** 2 / (2 * var2)).sum(axis=1) + math.log((N + m) / (2 * N))
    return float(np.mean((ll1 > ll0) == (y == 1)))


def _paired(tally: Tally, key_a: Any, key_b: Any) -> Stats:
    """Per-trial accuracy difference a − b (same data in each trial)."""
    return Stats.of(np.subtract(tally.acc[key_a], tally.acc[key_b]).tolist())


def _sweep(
    cfg: Config,
    number: int,
    xs: Sequence[int],
    trials: int,
    make: Callable[[int, np.random.Generator], tuple[FloatArray, IntArray]],
) -> tuple[Tally, dict[int, list[int]]]:
    """All five methods plus Hartigan/Lloyd from one shared start, on the same data per trial."""
    tally = Tally()
    better: dict[int, list[int]] = defaultdict(list)
    for xi, x_value in enumerate(xs):
        for t in range(trials):
            seed = cfg.seed_for(number, xi, t)
            X, y = make(x_value, np.random.default_rng(seed))
            G = RHO_1.gram(X, cfg)
            for method in ALL_METHODS:
                tally.add((x_value, method), y, fit_labels(method, X, G, 2, seed, cfg))
            h = kg.kernel_kgroups(G, 2, n_init=1, random_state=seed, n_threads=cfg.n_threads)
            lloyd = kg.kernel_kmeans(G, 2, n_init=1, random_state=seed, n_threads=cfg.n_threads)
            assert h.objective_history[0] == lloyd.objective_history[0], "starts differ"
            tally.add((x_value, "Hartigan, 1 start"), y, h.labels)
            tally.add((x_value, "Lloyd, 1 start"), y, lloyd.labels)
            better[x_value].append(compare_w(h.within, lloyd.within))
    return tally, better


def _sweep_tables(
    sec: Section,
    tally: Tally,
    better: dict[int, list[int]],
    xs: Sequence[int],
    xname: str,
    trials: int,
    bayes: Sequence[float],
) -> None:
    sec.data["better"] = better
    sec.data["xs"] = list(xs)
    methods = (*ALL_METHODS, "Hartigan, 1 start", "Lloyd, 1 start")
    for metric, label in (("acc", "Accuracy"), ("ari", "Adjusted Rand index")):
        rows = []
        for x_value, b in zip(xs, bayes):
            row = [str(x_value)] + [tally.stats((x_value, m), metric).fmt() for m in methods]
            if metric == "acc":
                row.append(f"{b:.3f}")
            rows.append(row)
        heads = [xname, *methods] + (["Bayes"] if metric == "acc" else [])
        sec.add(f"**{label}** (mean ± 95 % CI, {trials} trials per {xname}):", "", *md_table(heads, rows))
    rows = []
    for x_value in xs:
        v = np.asarray(better[x_value])
        rows.append(
            [
                str(x_value),
                f"{100 * np.mean(v == 1):.0f} %",
                f"{100 * np.mean(v == 0):.0f} %",
                f"{100 * np.mean(v == -1):.0f} %",
            ]
        )
    sec.add(
        "**Hartigan vs Lloyd from the same single start** (k-means++ in feature space, same seed; "
        "share of trials where Hartigan ends at a lower W / the same W / a higher W):",
        "",
        *md_table([xname, "Hartigan better", "equal", "Lloyd better"], rows),
    )


def _superiority(
    sec: Section, tally: Tally, x_value: int, others: Sequence[str], label: str
) -> dict[str, Stats]:
    diffs = {m: _paired(tally, (x_value, "kernel k-groups"), (x_value, m)) for m in others}
    rows = [
        [m, d.fmt(), "yes" if d.lo > 0 else ("no (CI contains 0)" if d.hi >= 0 else "no (worse)")]
        for m, d in diffs.items()
    ]
    sec.add(
        f"**Paired differences at {label}** (accuracy of kernel k-groups minus each method, same "
        "data in each trial):",
        "",
        *md_table(["method", "kernel k-groups − method", "kernel k-groups significantly better?"], rows),
    )
    return diffs


def experiment_2(cfg: Config) -> Section:
    """Fig. 3a: eq. 56 in D = 10 .. 200."""
    sec = Section(2, "Fig. 3a — Gaussian mixture eq. 56, D = 10 … 200")
    Ds = cfg.pick([10, 25, 50, 100, 150, 200], [10, 100, 200])
    trials = cfg.pick(100, 10)
    n = 200
    bayes = [float(_norm_cdf(0.35 * math.sqrt(10)))] * len(Ds)
    tally, better = _sweep(cfg, 2, Ds, trials, lambda D, rng: make_eq56(n, D, rng))
    sec.add(
        f"n = {n} points per trial, ρ_1 for the kernel methods and spectral clustering (affinity = "
        f"the energy kernel), {N_STARTS} starts. Bayes accuracy Φ(0.35·√10) = {bayes[0]:.3f} (paper ≈ 0.86).",
        "",
    )
    _sweep_tables(sec, tally, better, Ds, "D", trials, bayes)
    d_max = Ds[-1]
    diffs = _superiority(sec, tally, d_max, ("spectral", "kernel k-means", "k-means", "GMM"), f"D = {d_max}")
    close = abs(diffs["spectral"].mean) <= 0.02 or (diffs["spectral"].lo <= 0 <= diffs["spectral"].hi)
    sup = all(diffs[m].lo > 0 for m in ("kernel k-means", "k-means", "GMM"))
    sec.claims.append(
        Claim(
            "2 (Fig. 3a)",
            f"kernel k-groups ≈ spectral > kernel k-means, k-means, GMM (D = {d_max})",
            "stated (plot only)",
            ", ".join(f"{m}: {d.fmt()}" for m, d in diffs.items()),
            "paired Δ accuracy",
            (
                "reproduced"
                if close and sup
                else "**partly**: "
                + ("not close to spectral; " if not close else "")
                + ("not better than all of kernel k-means, k-means, GMM" if not sup else "")
            ),
        )
    )
    h = tally.stats((d_max, "Hartigan, 1 start"))
    lloyd = tally.stats((d_max, "Lloyd, 1 start"))
    sec.claims.append(
        Claim(
            "2 (issue)",
            f"Hartigan vs Lloyd from the same start, D = {d_max}",
            "≈ 0.68 vs 0.57 (reimpl.)",
            f"{h.fmt()} vs {lloyd.fmt()}",
            f"{'yes' if in_ci(0.68, h) else 'no'} / {'yes' if in_ci(0.57, lloyd) else 'no'}",
            "reproduced"
            if in_ci(0.68, h) and in_ci(0.57, lloyd)
            else (
                "direction reproduced (Hartigan better)"
                if _paired(tally, (d_max, "Hartigan, 1 start"), (d_max, "Lloyd, 1 start")).lo > 0
                else "**not reproduced**"
            ),
        )
    )
    sec.data["tally"] = tally
    line = plot_sweep(
        cfg,
        tally,
        Ds,
        ALL_METHODS,
        "fig3a_eq56",
        f"eq. 56, n = {n} ({trials} trials)",
        "D",
        bayes,
        ("Hartigan vs Lloyd, same single start", ("Hartigan, 1 start", "Lloyd, 1 start")),
    )
    if line:
        sec.add(line, "")
    return sec


def _norm_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def experiment_3(cfg: Config) -> Section:
    """Fig. 3b: eq. 57 in D = 10 .. 200."""
    sec = Section(3, "Fig. 3b — Gaussian mixture eq. 57 (unequal covariances), D = 10 … 200")
    Ds = cfg.pick([10, 25, 50, 100, 150, 200], [10, 100, 200])
    trials = cfg.pick(100, 10)
    n = 200
    b = bayes_eq57(np.random.default_rng(cfg.seed_for(3, 999)), cfg.pick(400_000, 100_000))
    tally, better = _sweep(cfg, 3, Ds, trials, lambda D, rng: make_eq57(n, D, rng))
    sec.add(
        f"n = {n} points per trial, ρ_1, {N_STARTS} starts. Σ̃₁₀ entries are variances. Bayes accuracy "
        f"(Monte Carlo, quadratic rule with the true parameters) = {b:.3f} (paper ≈ 0.95).",
        "",
    )
    _sweep_tables(sec, tally, better, Ds, "D", trials, [b] * len(Ds))
    d_min, d_max = Ds[0], Ds[-1]
    low = [tally.stats((d_min, m)).mean for m in ALL_METHODS]
    _superiority(sec, tally, d_max, ("spectral", "kernel k-means", "k-means", "GMM"), f"D = {d_max}")
    drops: dict[str, tuple[float, float]] = {}
    for m in ALL_METHODS:
        a, b_ = tally.stats((d_min, m)), tally.stats((d_max, m))
        se = math.hypot(a.sd / math.sqrt(a.n), b_.sd / math.sqrt(b_.n))
        drops[m] = (a.mean - b_.mean, se)
    kg_drop, kg_se = drops["kernel k-groups"]
    less: dict[str, bool] = {}
    rows = []
    for m, (drop, se) in drops.items():
        if m != "kernel k-groups":
            less[m] = drop - kg_drop > 1.96 * math.hypot(se, kg_se)
        rows.append(
            [
                m,
                f"{drop:+.3f} ± {1.96 * se:.3f}",
                "—" if m == "kernel k-groups" else ("yes" if less[m] else "no"),
            ]
        )
    sec.add(
        f"**Accuracy lost from D = {d_min} to D = {d_max}** (difference of means ± 95 % interval; "
        "independent samples):",
        "",
        *md_table(["method", "loss", "kernel k-groups loses significantly less?"], rows),
    )
    not_less = [m for m, v in less.items() if not v]
    sec.claims.append(
        Claim(
            "3 (Fig. 3b)",
            f"all similar at D = {d_min}; kernel k-groups much more stable up to D = {d_max}",
            "stated (plot only)",
            f"D = {d_min}: {min(low):.3f} … {max(low):.3f}; loss of kernel k-groups {kg_drop:.3f}, others "
            + ", ".join(f"{m} {drops[m][0]:.3f}" for m in less),
            "—",
            "reproduced"
            if not not_less
            else "**partly**: kernel k-groups loses significantly less than "
            + (", ".join(m for m, v in less.items() if v) or "no method")
            + ", but not less than "
            + ", ".join(not_less),
        )
    )
    sec.data["drops"] = drops
    sec.data["tally"] = tally
    line = plot_sweep(
        cfg,
        tally,
        Ds,
        ALL_METHODS,
        "fig3b_eq57",
        f"eq. 57, n = {n} ({trials} trials)",
        "D",
        [b] * len(Ds),
        ("Hartigan vs Lloyd, same single start", ("Hartigan, 1 start", "Lloyd, 1 start")),
    )
    if line:
        sec.add(line, "")
    return sec


def experiment_4(cfg: Config) -> Section:
    """Fig. 3e: unbalanced clusters, eq. 59."""
    sec = Section(4, "Fig. 3e — unbalanced clusters, eq. 59, m = 0 … 240")
    ms = cfg.pick([0, 40, 80, 120, 160, 200, 240], [0, 120, 240])
    trials = cfg.pick(100, 10)
    rng = np.random.default_rng(cfg.seed_for(4, 999))
    bayes = [bayes_eq59(m, rng, cfg.pick(400, 100)) for m in ms]
    tally, better = _sweep(cfg, 4, ms, trials, lambda m, r: make_eq59(m, r))
    sec.add(
        "n₁ = 300 − m points from N(0, I₄) and n₂ = 300 + m from N(1.5·(1,1,0,0), diag(½,½,1,1)) "
        "(600 points, shuffled; the paper's eq. 59 prints the first component twice, the text and "
        f"Fig. 2e make the second one clear). ρ_1, {N_STARTS} starts. Bayes accuracy by Monte Carlo "
        "with the priors n₁/600, n₂/600.",
        "",
    )
    _sweep_tables(sec, tally, better, ms, "m", trials, bayes)
    m_max = ms[-1]
    gmm_vs = {m: _paired(tally, (m_max, "GMM"), (m_max, m)) for m in ALL_METHODS if m != "GMM"}
    rows = [[m, d.fmt(), "yes" if d.lo > 0 else "no"] for m, d in gmm_vs.items()]
    sec.add(
        f"**Paired differences at m = {m_max}** (GMM minus each method):",
        "",
        *md_table(["method", "GMM − method", "GMM significantly better?"], rows),
    )
    others = [tally.stats((m_max, m)).mean for m in ALL_METHODS if m != "GMM"]
    sec.claims.append(
        Claim(
            "4 (Fig. 3e)",
            f"highly unbalanced (m = {m_max}): GMM beats the others, which are similar",
            "stated (plot only)",
            f"GMM {tally.stats((m_max, 'GMM')).fmt()}; others {min(others):.3f} … {max(others):.3f}",
            "paired Δ",
            "reproduced" if all(d.lo > 0 for d in gmm_vs.values()) else "**partly / not reproduced**",
        )
    )
    sec.data["tally"] = tally
    line = plot_sweep(
        cfg, tally, ms, ALL_METHODS, "fig3e_eq59", f"eq. 59, N = 300 ({trials} trials)", "m", bayes
    )
    if line:
        sec.add(line, "")
    return sec


# ============================================================================ experiment 5


TABLE2 = {
    "cigars": {
        "k-means": (0.533, 0.005),
        "GMM": (0.929, 0.029),
        "spectral": (0.577, 0.010),
        "kernel k-means": (1.000, 0.000),
        "kernel k-groups": (1.000, 0.000),
    },
    "circles": {
        "k-means": (0.521, 0.003),
        "GMM": (0.533, 0.004),
        "spectral": (0.725, 0.003),
        "kernel k-means": (1.000, 0.000),
        "kernel k-groups": (1.000, 0.000),
    },
}


def table2_claim(problem: str, method: str, paper: float, sem: float, s: Stats) -> Claim:
    """Paper mean ± SEM (30 trials) against ours: |Δ| within 1.96·√(SE² + SEM²)."""
    se = s.sd / math.sqrt(s.n) if s.n > 1 else 0.0
    combined = 1.96 * math.sqrt(se**2 + sem**2) + PAPER_ROUNDING
    inside = in_ci(paper, s)
    agrees = abs(s.mean - paper) <= combined
    verdict = (
        "reproduced"
        if inside or agrees
        else (f"**not reproduced** (Δ = {s.mean - paper:+.3f}, allowed ±{combined:.3f} from both SEs)")
    )
    if not inside and agrees:
        verdict = "reproduced (agrees within both standard errors)"
    return Claim(
        "5 (Table 2)",
        f"{method}, {problem}",
        f"{paper:.3f} ± {sem:.3f} (SEM)",
        f"{s.fmt()} ({s.n} trials)",
        f"{'yes' if inside else 'no'} (CI [{s.lo:.3f}, {s.hi:.3f}])",
        verdict,
    )


def experiment_5(cfg: Config) -> Section:
    """Table 2: parallel cigars (ρ̃_2) and concentric circles (ρ̂_1), random initialisation."""
    sec = Section(5, "Table 2 — parallel cigars and concentric circles (800 points)")
    trials = cfg.pick(30, 5)
    problems = {
        "cigars": (make_parallel_cigars, RHO_TILDE_2),
        "circles": (make_concentric_circles, RHO_HAT_1),
    }
    methods = (*ALL_METHODS, "spectral (RBF affinity)")
    tally = Tally()
    negative: dict[str, list[float]] = defaultdict(list)
    examples: dict[str, tuple[FloatArray, IntArray]] = {}
    for pi, (problem, (make, kernel)) in enumerate(problems.items()):
        for t in range(trials):
            seed = cfg.seed_for(5, pi, t)
            X, y = make(800, seed=seed)
            G = kernel.gram(X, cfg)
            negative[problem].append(float(np.mean(G < 0)))
            for method in methods:
                tally.add((problem, method), y, fit_labels(method, X, G, 2, seed, cfg, kernel_init="random"))
            if t == 0:
                examples[problem] = (X, fit_labels("kernel k-groups", X, G, 2, seed, cfg, "random"))
    rows = []
    for method in methods:
        row: list[Any] = [method]
        for problem in problems:
            s = tally.stats((problem, method))
            paper = TABLE2[problem].get(method)
            row += [
                f"{paper[0]:.3f} ± {paper[1]:.3f}" if paper else "—",
                f"{s.mean:.3f} ± {s.sd / math.sqrt(s.n):.3f}",
                s.fmt(),
                tally.stats((problem, method), "ari").fmt(),
            ]
            if paper:
                sec.claims.append(table2_claim(problem, method, paper[0], paper[1], s))
        rows.append(row)
    sec.add(
        f"800 points per trial, {trials} trials (the paper: 30). Cigars: ½N((0,0), diag(1,20)) + "
        "½N((6.5,0), diag(1,20)) with ρ̃_2; circles: radii 1 and 3, noise 0.2·N(0, I₂), with ρ̂_1 "
        f"(`kgroups_rs.datasets`). Kernel methods: random initial labels, {N_STARTS} starts, best "
        "objective. Spectral clustering uses the same energy kernel as affinity (as the paper "
        "states); the RBF row is scikit-learn's default affinity, an investigation, not the "
        "paper's method.",
        "",
        *md_table(
            [
                "method",
                "paper 4a (± SEM)",
                "ours 4a (± SEM)",
                "ours 4a ± 95 % CI",
                "ARI 4a",
                "paper 4b (± SEM)",
                "ours 4b (± SEM)",
                "ours 4b ± 95 % CI",
                "ARI 4b",
            ],
            rows,
        ),
    )
    neg = float(np.mean(negative["circles"]))
    sec.add(
        f"Share of negative entries of the ρ̂_1 kernel (base point 0) on the circles: {100 * neg:.1f} % "
        "(clipped to 0 for the spectral affinity; the ρ̃_2 kernel has none: ρ̃ is a metric, so "
        "K(x,y) = ½[ρ(x,0)+ρ(y,0)−ρ(x,y)] ≥ 0 by the triangle inequality).",
        "",
    )
    sec.data["tally"] = tally
    plt = pyplot()
    if plt is not None and cfg.figures and examples:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
        for ax, (problem, (X, lab)) in zip(axes, examples.items()):
            ax.scatter(X[:, 0], X[:, 1], c=lab, s=4, cmap="coolwarm")
            ax.set_title(
                f"{problem}: kernel k-groups ({problems[problem][1].name}, random init)", fontsize=10
            )
            ax.set_aspect("equal", adjustable="datalim")
        sec.add(save_figure(cfg, fig, "fig4_table2_examples"), "")
    return sec


# ============================================================================ experiment 6


TABLE4 = {
    "k-means": (0.713, 0.690),
    "GMM": (0.877, 0.840),
    "spectral": (0.954, 0.912),
    "kernel k-means": (0.751, 0.851),
    "kernel k-groups": (0.962, 0.936),
}
TABLE3 = np.array(
    [
        [112, 0, 0, 0, 0, 0],
        [0, 50, 0, 11, 0, 0],
        [0, 0, 72, 0, 0, 0],
        [0, 2, 0, 47, 0, 0],
        [0, 0, 0, 1, 51, 0],
        [0, 0, 0, 0, 0, 20],
    ]
)


def load_dermatology(path: Path, missing: str = "impute") -> tuple[FloatArray, IntArray]:
    """Dermatology with every column standardised; classes 0..5.

    ``missing``: ``"impute"`` (the paper's Tables 3-4: missing ages replaced by the column mean),
    ``"drop-then-standardise"`` (rows with a missing age removed, the rest standardised) or
    ``"standardise-then-drop"`` (impute and standardise all 366 rows, then remove the 8).
    """
    raw = np.genfromtxt(path, delimiter=",", skip_header=1, missing_values="?", filling_values=np.nan)
    X, y = raw[:, :-1], raw[:, -1].astype(np.int64) - 1
    absent = np.isnan(X).any(axis=1)
    if missing == "drop-then-standardise":
        return standardize(X[~absent]), y[~absent]
    X = standardize(np.where(np.isnan(X), np.nanmean(X, axis=0), X))
    if missing == "standardise-then-drop":
        return X[~absent], y[~absent]
    if missing != "impute":
        raise ValueError(f"unknown missing-value handling {missing!r}")
    return X, y


def confusion(y: IntArray, labels: IntArray, k: int) -> IntArray:
    """Rows: true class; columns: predicted clusters relabelled by the best matching."""
    from scipy.optimize import linear_sum_assignment

    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, (y, labels), 1)
    rows, cols = linear_sum_assignment(table, maximize=True)
    order = np.empty(k, dtype=np.int64)
    order[rows] = cols
    return table[:, order]


def starts_needed(p: float, reliability: float) -> str:
    if p <= 0:
        return "∞ (never reached)"
    if p >= 1:
        return "1"
    return str(math.ceil(math.log(1 - reliability) / math.log(1 - p)))


def experiment_6(cfg: Config) -> Section:
    """Tables 3-4: dermatology, k = 6, ρ_1/2."""
    from sklearn.metrics import adjusted_rand_score

    sec = Section(6, "Tables 3–4 — dermatology (k = 6, ρ_{1/2})")
    if not cfg.dermatology.exists():
        sec.add(f"`{cfg.dermatology}` not found: experiment skipped.", "")
        return sec
    X, y = load_dermatology(cfg.dermatology)
    k = 6
    G = RHO_HALF.gram(X, cfg)
    seeds = cfg.pick(50, 10)
    singles = cfg.pick(1000, 100)
    tally = Tally()
    best_obj: dict[str, tuple[float, IntArray]] = {}
    for r in range(seeds):
        seed = cfg.seed_for(6, 0, r)
        for method in ALL_METHODS:
            lab = fit_labels(method, X, G, k, seed, cfg)
            tally.add(method, y, lab)
            if method.startswith("kernel"):
                q = objective(G, lab)
                if method not in best_obj or q > best_obj[method][0]:
                    best_obj[method] = (q, lab)

    # --- single starts: how many are needed to reach the best objective
    algos: dict[str, Callable[[int], kg.ClusteringResult]] = {
        "Hartigan (kernel k-groups)": lambda s: kg.kernel_kgroups(
            G, k, random_state=s, n_threads=cfg.n_threads
        ),
        "batch Lloyd (kernel k-means)": lambda s: kg.kernel_kmeans(
            G, k, random_state=s, n_threads=cfg.n_threads
        ),
        "online Lloyd": lambda s: kg.kernel_kmeans(
            G, k, algorithm="lloyd-online", random_state=s, n_threads=cfg.n_threads
        ),
    }
    objs: dict[str, FloatArray] = {}
    accs: dict[str, FloatArray] = {}
    aris: dict[str, FloatArray] = {}
    single_best: dict[str, tuple[float, IntArray]] = {}
    for name, run in algos.items():
        results = [run(cfg.seed_for(6, 1, s)) for s in range(singles)]
        objs[name] = np.array([res.objective for res in results])
        accs[name] = np.array([kg.clustering_accuracy(y, res.labels) for res in results])
        aris[name] = np.array([adjusted_rand_score(y, res.labels) for res in results])
        top = max(results, key=lambda res: res.objective)
        single_best[name] = (top.objective, top.labels)
    q_star = max(float(v.max()) for v in objs.values())
    for q, _ in best_obj.values():
        q_star = max(q_star, q)
    reach = {name: objs[name] >= q_star * (1 - SAME_OPTIMUM_RTOL) for name in algos}
    best_labels = single_best["Hartigan (kernel k-groups)"][1]
    if best_obj["kernel k-groups"][0] > single_best["Hartigan (kernel k-groups)"][0]:
        best_labels = best_obj["kernel k-groups"][1]
    best_acc = kg.clustering_accuracy(y, best_labels)
    best_ari = float(adjusted_rand_score(y, best_labels))

    # --- Table 4
    rows = []
    for method in ALL_METHODS:
        acc, ari = tally.stats(method), tally.stats(method, "ari")
        paper_pair = TABLE4[method]
        at_best = ""
        if method in best_obj:
            lab = best_obj[method][1]
            at_best = f"{kg.clustering_accuracy(y, lab):.3f} / {adjusted_rand_score(y, lab):.3f}"
        rows.append(
            [
                method,
                f"{paper_pair[0]:.3f} / {paper_pair[1]:.3f}",
                acc.fmt(),
                acc.range_fmt(),
                ari.fmt(),
                ari.range_fmt(),
                at_best or "—",
            ]
        )
    sec.add(
        "366 patients, 34 attributes; the 8 missing ages are replaced by the column mean and every "
        f"column is standardised (mean 0, variance 1). Every method follows the protocol ({N_STARTS} "
        f"starts, best objective); it is repeated with {seeds} different seeds (the data are fixed, "
        "only the initialisations vary), so the intervals describe the spread over seeds.",
        "",
        "**Table 4** (accuracy / aRand):",
        "",
        *md_table(
            [
                "method",
                "paper acc / aRand",
                "ours acc (mean ± CI)",
                "acc, central 95 % of seeds",
                "ours aRand (mean ± CI)",
                "aRand, central 95 % of seeds",
                f"at the best objective of the {seeds} seeds",
            ],
            rows,
        ),
    )
    sec.add(
        f"Best objective found over all runs: Q* = {q_star:.6f}. Kernel k-groups at Q*: accuracy "
        f"{best_acc:.4f}, aRand {best_ari:.4f} (paper: 0.962 / 0.936).",
        "",
    )
    for method in ALL_METHODS:
        acc, ari = tally.stats(method), tally.stats(method, "ari")
        pa, pr = TABLE4[method]
        for metric, paper, s in (("accuracy", pa, acc), ("aRand", pr, ari)):
            claim = mean_claim("6 (Table 4)", f"{method}, {metric}", paper, s, single_draw=True)
            if method == "kernel k-groups":
                value = best_acc if metric == "accuracy" else best_ari
                claim.ours += f"; at Q*: {value:.3f}"
                if abs(round(value, 3) - paper) <= 1e-3 + 1e-12:
                    claim.verdict = "reproduced exactly at the best objective (Q*)"
            if method == "kernel k-means" and not claim.verdict.startswith("reproduced"):
                # The two numbers are one result: judged alone each may fit, the pair does not.
                claim.verdict += "; the pair (0.751, 0.851) is not reproduced: see experiment 6"
            sec.claims.append(claim)

    # --- Table 3
    table = confusion(y, best_labels, k)
    rows = []
    for c in range(k):
        rows.append([str(c + 1)] + [str(v) for v in table[c]] + [str(table[c].sum())])
    rows.append(["total"] + [str(v) for v in table.sum(axis=0)] + [str(table.sum())])
    same_cells = int((table == TABLE3).sum())
    sec.data["table3_cells"] = same_cells
    sec.add(
        "**Table 3** — kernel k-groups at Q* (rows: true class; columns: clusters, matched to the "
        "classes by the best permutation):",
        "",
        *md_table(["class", "1", "2", "3", "4", "5", "6", "# cases"], rows),
        f"The paper's Table 3 and ours agree in {same_cells} of 36 cells"
        + (
            " — identical"
            if same_cells == 36
            else "; differing cells (ours vs paper): "
            + ", ".join(
                f"({i + 1},{j + 1}) {table[i, j]} vs {TABLE3[i, j]}"
                for i, j in zip(*np.nonzero(table != TABLE3))
            )
        )
        + ".",
        "",
    )
    sec.claims.append(
        Claim(
            "6 (Table 3)",
            "confusion table of kernel k-groups",
            "Table 3",
            f"{same_cells}/36 cells equal",
            "—",
            "reproduced exactly" if same_cells == 36 else "**differs**: see experiment 6",
        )
    )

    # --- starts needed
    rows = []
    for name in algos:
        p = float(np.mean(reach[name]))
        rows.append(
            [
                name,
                f"{100 * p:.1f} %",
                f"{accs[name].mean():.3f}",
                f"{np.median(accs[name]):.3f}",
                starts_needed(p, 0.95),
                starts_needed(p, 0.99),
                f"{100 * (1 - (1 - p) ** N_STARTS):.0f} %",
            ]
        )
    p_h = float(np.mean(reach["Hartigan (kernel k-groups)"]))
    sec.data["p_best"] = p_h
    sec.data["starts95"] = starts_needed(p_h, 0.95)
    sec.data["p_lloyd"] = {name: float(np.mean(reach[name])) for name in algos if "Lloyd" in name}
    sec.data["singles"] = singles
    sec.add(
        f"**How many starts reach Q* reliably** ({singles} independent single starts per algorithm, "
        "k-means++ in feature space; a start reaches Q* when its objective is within a relative "
        f"{SAME_OPTIMUM_RTOL:g} of it; starts needed = ⌈ln(1 − r)/ln(1 − p)⌉):",
        "",
        *md_table(
            [
                "algorithm",
                "p (one start reaches Q*)",
                "mean accuracy of one start",
                "median",
                "starts for 95 %",
                "starts for 99 %",
                f"P(best of {N_STARTS} reaches Q*)",
            ],
            rows,
        ),
    )
    distinct, counts = np.unique(np.round(objs["Hartigan (kernel k-groups)"], 6), return_counts=True)
    order = np.argsort(distinct)[::-1][:5]
    rows = []
    for i in order:
        mask = np.isclose(objs["Hartigan (kernel k-groups)"], distinct[i], rtol=0, atol=5e-7)
        rows.append(
            [
                f"{distinct[i]:.6f}",
                f"{100 * counts[i] / singles:.1f} %",
                f"{accs['Hartigan (kernel k-groups)'][mask].mean():.3f}",
            ]
        )
    sec.add(
        "The five best local optima reached by single Hartigan starts:",
        "",
        *md_table(["objective Q", "share of starts", "accuracy"], rows),
    )
    sec.claims.append(
        Claim(
            "6 (issue)",
            "starts for kernel k-groups to reach Q* with 95 % / 99 % probability",
            "—",
            f"{starts_needed(p_h, 0.95)} / {starts_needed(p_h, 0.99)} (p = {p_h:.3f} per start)",
            "—",
            "measured",
        )
    )

    # --- diagnostics: why kernel k-means differs from the paper, and tslearn's rule
    diag_seeds = cfg.pick(20, 4)
    variants: dict[str, list[IntArray]] = defaultdict(list)
    agree_online = 0
    total_online = 0
    for r in range(diag_seeds):
        rng = np.random.default_rng(cfg.seed_for(6, 2, r))
        inits = [feature_kmeanspp_labels(G, k, rng) for _ in range(N_STARTS)]
        runs: dict[str, list[IntArray]] = defaultdict(list)
        for init in inits:
            runs["paper's Algorithm 1 as printed (no G_ii term)"].append(
                online_lloyd_numpy(G, init, k, literal=True)
            )
            corrected = online_lloyd_numpy(G, init, k, literal=False)
            runs["Algorithm 1 corrected (numpy)"].append(corrected)
            lib = kg.kernel_kmeans(G, k, init, algorithm="lloyd-online", n_threads=cfg.n_threads).labels
            runs["library online Lloyd"].append(lib)
            agree_online += int(np.array_equal(lib, corrected))
            total_online += 1
            runs["library batch Lloyd"].append(
                kg.kernel_kmeans(G, k, init, algorithm="lloyd", n_threads=cfg.n_threads).labels
            )
            runs["tslearn-style rule (drops ‖μ_j‖²)"].append(tslearn_rule(G, init, k))
            runs["library Hartigan"].append(kg.kernel_kgroups(G, k, init, n_threads=cfg.n_threads).labels)
        for name, labs in runs.items():
            variants[name].append(max(labs, key=lambda lab: objective(G, lab)))
    rows = []
    diag_tally = Tally()
    for name, labs in variants.items():
        for lab in labs:
            diag_tally.add(name, y, lab)
        qs = [objective(G, lab) for lab in labs]
        rows.append(
            [name, diag_tally.stats(name).fmt(), diag_tally.stats(name, "ari").fmt(), f"{np.mean(qs):.3f}"]
        )
    sec.add(
        f"**Diagnostics for kernel k-means** ({diag_seeds} seeds × {N_STARTS} shared numpy k-means++ "
        "starts, best true objective kept):",
        "",
        *md_table(["variant", "accuracy", "aRand", "mean objective Q"], rows),
        f"The independent numpy implementation of the corrected Algorithm 1 gives the same labels as "
        f'`kernel_kmeans(algorithm="lloyd-online")` in {agree_online} of {total_online} starts.',
        "",
    )
    sec.data["diagnostics"] = {name: diag_tally.stats(name) for name in variants}
    sec.data["online_agreement"] = (agree_online, total_online)

    # --- without the rows with missing age (two readings of the paper's sentence)
    drop_starts = cfg.pick(400, 60)
    rows = []
    best_pairs: dict[str, tuple[float, float]] = {}
    for mode in ("drop-then-standardise", "standardise-then-drop"):
        Xd, yd = load_dermatology(cfg.dermatology, missing=mode)
        Gd = RHO_HALF.gram(Xd, cfg)
        drop_runs = [
            kg.kernel_kgroups(Gd, k, random_state=cfg.seed_for(6, 3, s), n_threads=cfg.n_threads)
            for s in range(drop_starts)
        ]
        q_all = np.array([run.objective for run in drop_runs])
        levels = np.unique(np.round(q_all, 6))[::-1][:2]
        for rank, level in enumerate(levels):
            idx = [i for i in range(drop_starts) if abs(q_all[i] - level) < 5e-7]
            lab = drop_runs[idx[0]].labels
            pair = (kg.clustering_accuracy(yd, lab), float(adjusted_rand_score(yd, lab)))
            if rank == 0:
                best_pairs[mode] = pair
            rows.append(
                [
                    mode,
                    "best" if rank == 0 else "second best",
                    f"{level:.6f}",
                    f"{100 * len(idx) / drop_starts:.1f} %",
                    f"{pair[0]:.4f}",
                    f"{pair[1]:.4f}",
                ]
            )
    sec.add(
        f"**Rows with a missing age removed** ({yd.size} patients; paper: accuracy 0.9637, aRand 0.9396). "
        f"The two best local optima of {drop_starts} single kernel k-groups starts, for the two ways of "
        "combining standardisation and removal:",
        "",
        *md_table(["preprocessing", "optimum", "objective Q", "share of starts", "accuracy", "aRand"], rows),
    )
    sec.data["dropped"] = best_pairs
    for metric, paper, pos in (("accuracy", 0.9637, 0), ("aRand", 0.9396, 1)):
        exact = {mode: abs(pair[pos] - paper) < 5e-5 for mode, pair in best_pairs.items()}
        sec.claims.append(
            Claim(
                "6 (Table 4 caption)",
                f"kernel k-groups without the 8 rows, {metric}",
                f"{paper:.4f}",
                "; ".join(f"{mode}: {pair[pos]:.4f}" for mode, pair in best_pairs.items())
                + " (at the best Q)",
                "—",
                "reproduced exactly (standardise, then drop)"
                if exact["standardise-then-drop"]
                else (
                    "reproduced exactly (drop, then standardise)"
                    if exact["drop-then-standardise"]
                    else "**differs**: see experiment 6"
                ),
            )
        )

    # --- the paper's kernel k-means pair (0.751, 0.851): is it a local optimum we can reach?
    rows = []
    for name in algos:
        gaps = aris[name] - accs[name]
        dist = np.abs(accs[name] - 0.751) + np.abs(aris[name] - 0.851)
        i = int(np.argmin(dist))
        rows.append([name, f"{gaps.max():+.3f}", f"({accs[name][i]:.3f}, {aris[name][i]:.3f})"])
    sec.add(
        "**The paper's kernel k-means pair** (accuracy 0.751 with aRand 0.851, aRand − accuracy = +0.100) "
        f"against all {singles} single starts of each algorithm above:",
        "",
        *md_table(
            ["algorithm", "largest aRand − accuracy", "closest (accuracy, aRand) to (0.751, 0.851)"], rows
        ),
    )
    sec.data["max_ari_minus_acc"] = {name: float((aris[name] - accs[name]).max()) for name in algos}
    sec.data["tally"] = tally
    sec.data["best"] = (best_acc, best_ari)

    plt = pyplot()
    if plt is not None and cfg.figures:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        n_axis = np.arange(1, 41)
        for name in algos:
            p = float(np.mean(reach[name]))
            axes[0].plot(n_axis, 1 - (1 - p) ** n_axis, label=f"{name} (p = {p:.3f})")
            axes[1].scatter(objs[name], accs[name], s=6, alpha=0.5, label=name)
        axes[0].axvline(N_STARTS, color="0.5", ls=":", lw=1)
        axes[0].set_xlabel("number of starts")
        axes[0].set_ylabel("P(best start reaches Q*)")
        axes[0].set_title("dermatology: starts needed", fontsize=10)
        axes[0].legend(fontsize=8)
        axes[0].grid(alpha=0.3)
        axes[1].set_xlabel("objective Q of one start")
        axes[1].set_ylabel("accuracy")
        axes[1].set_title(f"{singles} single starts per algorithm", fontsize=10)
        axes[1].legend(fontsize=8)
        axes[1].grid(alpha=0.3)
        sec.add(save_figure(cfg, fig, "fig_dermatology_starts"), "")
    return sec


# ============================================================================ experiment 7


def experiment_7(cfg: Config) -> Section:
    """scikit-learn's bundled real data: wine, breast cancer, digits; Hartigan vs Lloyd."""
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    sec = Section(7, "Real data bundled with scikit-learn — wine, breast cancer, digits")
    data = {
        "wine": (load_wine, 3),
        "breast cancer": (load_breast_cancer, 2),
        "digits": (load_digits, 10),
    }
    kernels = (RHO_1, RHO_HALF)
    seeds = cfg.pick(20, 3)
    pairs = cfg.pick(100, 10)
    tally = Tally()
    comparison: dict[tuple[str, str, str], list[tuple[int, float, float, float]]] = defaultdict(list)
    for di, (name, (loader, k)) in enumerate(data.items()):
        X_raw, y_raw = loader(return_X_y=True)
        X = standardize(X_raw)
        y = np.asarray(y_raw, dtype=np.int64)
        for r in range(seeds):
            seed = cfg.seed_for(7, di, r)
            for method in ("k-means", "GMM"):
                tally.add((name, "—", method), y, fit_labels(method, X, None, k, seed, cfg))
        for kernel in kernels:
            G = kernel.gram(X, cfg)
            for r in range(seeds):
                seed = cfg.seed_for(7, di, r)
                for method in ("kernel k-groups", "kernel k-means", "spectral"):
                    tally.add((name, kernel.name, method), y, fit_labels(method, X, G, k, seed, cfg))
            for s in range(pairs):
                seed = cfg.seed_for(7, di, 1000 + s)
                h = kg.kernel_kgroups(G, k, random_state=seed, n_threads=cfg.n_threads)
                acc_h = kg.clustering_accuracy(y, h.labels)
                for variant in ("batch", "online"):
                    lloyd = kg.kernel_kmeans(
                        G, k, variant=variant, random_state=seed, n_threads=cfg.n_threads
                    )
                    assert h.objective_history[0] == lloyd.objective_history[0], "starts differ"
                    gap = (lloyd.within - h.within) / lloyd.within
                    comparison[(name, kernel.name, variant)].append(
                        (
                            compare_w(h.within, lloyd.within),
                            gap,
                            acc_h,
                            kg.clustering_accuracy(y, lloyd.labels),
                        )
                    )
    rows = []
    for name, (loader, k) in data.items():
        X_raw, _ = loader(return_X_y=True)
        for kernel_name in ("—", *(kern.name for kern in kernels)):
            methods = (
                ("k-means", "GMM")
                if kernel_name == "—"
                else ("kernel k-groups", "kernel k-means", "spectral")
            )
            for method in methods:
                key = (name, kernel_name, method)
                rows.append(
                    [
                        f"{name} (n = {X_raw.shape[0]}, D = {X_raw.shape[1]}, k = {k})",
                        kernel_name,
                        method,
                        tally.stats(key).fmt(),
                        tally.stats(key, "ari").fmt(),
                    ]
                )
    sec.add(
        f"Columns standardised (constant columns of digits only centred). {N_STARTS} starts per method, "
        f"repeated over {seeds} seeds (the data are fixed). No paper numbers exist for these data.",
        "",
        *md_table(["data", "kernel", "method", "accuracy", "aRand"], rows),
    )
    rows = []
    for (name, kernel_name, variant), entries in comparison.items():
        v = np.array([e[0] for e in entries])
        gaps = np.array([e[1] for e in entries])
        better_gaps = gaps[v == 1]
        rows.append(
            [
                name,
                kernel_name,
                variant,
                f"{100 * np.mean(v == 1):.0f} %",
                f"{100 * np.mean(v == 0):.0f} %",
                f"{100 * np.mean(v == -1):.0f} %",
                f"{100 * np.median(better_gaps):.3f} %" if better_gaps.size else "—",
                f"{100 * gaps.max():.3f} %",
                f"{100 * gaps.mean():+.3f} %",
                f"{np.mean([e[2] for e in entries]):.3f} / {np.mean([e[3] for e in entries]):.3f}",
            ]
        )
    sec.add(
        f"**Hartigan vs Lloyd from the same initialisations** ({pairs} single starts per data set and "
        "kernel; the same seed gives the same feature-space k-means++ partition to both algorithms, "
        "checked through the initial objective). Gap = (W_Lloyd − W_Hartigan)/W_Lloyd:",
        "",
        *md_table(
            [
                "data",
                "kernel",
                "Lloyd variant",
                "Hartigan lower W",
                "equal",
                "Lloyd lower W",
                "median gap when Hartigan wins",
                "largest gap",
                "mean gap",
                "accuracy H / L",
            ],
            rows,
        ),
    )
    sec.data["comparison"] = comparison
    summary: dict[tuple[str, str, str], dict[str, float]] = {}
    for key, entries in comparison.items():
        v = np.array([e[0] for e in entries])
        gaps = np.array([e[1] for e in entries])
        summary[key] = {
            "better": 100.0 * float(np.mean(v == 1)),
            "equal": 100.0 * float(np.mean(v == 0)),
            "worse": 100.0 * float(np.mean(v == -1)),
            "max_gap": float(gaps.max()),
            "mean_gap": float(gaps.mean()),
            "acc_h": float(np.mean([e[2] for e in entries])),
            "acc_l": float(np.mean([e[3] for e in entries])),
        }
        sk = summary[key]
        if key[2] == "batch":
            sec.claims.append(
                Claim(
                    "7 (issue)",
                    f"Hartigan vs batch Lloyd, same starts: {key[0]}, {key[1]}",
                    "—",
                    f"Hartigan lower W in {sk['better']:.0f} %, equal {sk['equal']:.0f} %, "
                    f"higher {sk['worse']:.0f} % of {len(entries)} starts; mean gap "
                    f"{100 * sk['mean_gap']:+.3f} % of W, largest {100 * sk['max_gap']:.3f} %",
                    "—",
                    "measured",
                )
            )
    sec.data["summary"] = summary
    sec.data["tally"] = tally
    plt = pyplot()
    if plt is not None and cfg.figures:
        keys = [key for key in comparison if key[2] == "batch"]
        fig, ax = plt.subplots(figsize=(9, 4.2))
        gaps_list = [100 * np.array([e[1] for e in comparison[key]]) for key in keys]
        ax.boxplot(gaps_list, showfliers=True)
        ax.set_xticks(range(1, len(keys) + 1), [f"{key[0]}\n{key[1]}" for key in keys], fontsize=8)
        ax.axhline(0, color="0.5", lw=1)
        ax.set_ylabel("(W_Lloyd − W_Hartigan) / W_Lloyd  [%]")
        ax.set_title(
            "Hartigan vs batch Lloyd from the same k-means++ starts (> 0: Hartigan better)", fontsize=10
        )
        ax.grid(alpha=0.3)
        sec.add(save_figure(cfg, fig, "fig_hartigan_vs_lloyd_real"), "")
    return sec


# ============================================================================ findings and report


EXPERIMENTS: dict[int, Callable[[Config], Section]] = {
    1: experiment_1,
    2: experiment_2,
    3: experiment_3,
    4: experiment_4,
    5: experiment_5,
    6: experiment_6,
    7: experiment_7,
}


def _share(values: Sequence[int], sign: int) -> float:
    return 100.0 * float(np.mean(np.asarray(values) == sign))


def findings(sections: dict[int, Section]) -> list[str]:
    """Short, number-driven explanations of what reproduces and what does not."""
    out: list[str] = []
    if 1 in sections:
        d = sections[1].data
        t1 = d["table1"]
        kgl, kgn = t1[("lognormal", "kernel k-groups")], t1[("normal", "kernel k-groups")]
        same = d["same_optimum"]
        peers = []
        for dist in ("normal", "lognormal"):
            for method in ("k-means", "GMM"):
                s = t1[(dist, method)]
                paper = TABLE1[(dist, method)]
                where = (
                    "inside our CI"
                    if in_ci(paper, s)
                    else (
                        "inside the single-trial range"
                        if in_range(paper, s)
                        else "outside the single-trial range"
                    )
                )
                peers.append(f"{method} {dist} {s.fmt()} vs {paper:.3f} ({where})")
        var = d["variance_reading"]
        out.append(
            f"* **Table 1 / Fig. 1.** Kernel k-groups reproduces the paper: lognormal {kgl.fmt()} vs 0.846, "
            f"normal {kgn.fmt()} vs 0.807; it ends at the exact optimum of the 1-D solver in "
            f"{100 * same['normal']:.0f} % / {100 * same['lognormal']:.0f} % of the trials, as the paper "
            "remarks. The peers: " + "; ".join(peers) + ". The paper's Table 1 is one sample of 2 000 "
            "points, so the single-trial range is the fair yardstick; k-means and GMM sit close to 0.5 on "
            "the lognormal mixture (they split off the long right tail), where a few hundredths depend on "
            "the draw and on scikit-learn's version (the paper used a 2017-era release). Reading N(μ, 1.5) "
            "as a variance instead of a standard deviation would give kernel k-groups "
            f"{var[('lognormal', '1D exact')].fmt()} on the lognormal mixture and GMM "
            f"{var[('normal', 'GMM')].fmt()} on the normal one, far from the paper: the data generation "
            "(standard deviations 1.5 and 0.3) is right."
        )
        seeding = d["seeding"]
        names = list(seeding)
        fs5, fs1, raw5, raw1 = (seeding[n] for n in names)
        tail = 100.0 * float(np.mean(raw1.values < 0.6))
        tail_fs = 100.0 * float(np.mean(fs1.values < 0.6))
        out.append(
            "* **Initialisation (lognormal, n = 2 000).** Feature-space k-means++ (the library's default, "
            f"which samples ∝ ρ = |x − y|) gives {fs5.fmt()} with 5 starts and {fs1.fmt()} with one; "
            f"k-means++ on the raw data (∝ squared distance) gives {raw1.fmt()} with one start and "
            f"{raw5.fmt()} with the best of 5. A single raw-data start ends in the bad local optimum "
            f"that splits off the right tail (accuracy < 0.6) in {tail:.0f} % of the trials, a single "
            f'feature-space start in {tail_fs:.0f} %. The issue\'s "raw seeding ≈ 0.76" is therefore '
            + (
                "inside our interval."
                if raw1.lo <= 0.76 <= raw1.hi or raw5.lo <= 0.76 <= raw5.hi
                else "confirmed in direction (raw-data seeding is clearly worse) but not in size: 0.76 lies "
                "outside both of our intervals. The value depends on the number of starts and on how often "
                "the squared-distance seeding picks a tail point; the per-trial accuracy is bimodal "
                "(≈ 0.85 or ≈ 0.5), so a modest change of that probability moves the mean a lot."
            )
        )
    for number, fig in ((2, "Fig. 3a"), (3, "Fig. 3b")):
        if number not in sections:
            continue
        d = sections[number].data
        tally, better, xs = d["tally"], d["better"], d["xs"]
        x_hi, x_lo = xs[-1], xs[0]
        h, lloyd = tally.stats((x_hi, "Hartigan, 1 start")), tally.stats((x_hi, "Lloyd, 1 start"))
        sp = _paired(tally, (x_hi, "kernel k-groups"), (x_hi, "spectral"))
        kk = _paired(tally, (x_hi, "kernel k-groups"), (x_hi, "kernel k-means"))
        text = (
            f"* **{fig}.** At D = {x_hi}: kernel k-groups {tally.stats((x_hi, 'kernel k-groups')).fmt()}, "
            f"spectral {tally.stats((x_hi, 'spectral')).fmt()} (paired Δ {sp.fmt()}), kernel k-means "
            f"{tally.stats((x_hi, 'kernel k-means')).fmt()} (Δ {kk.fmt()}), k-means "
            f"{tally.stats((x_hi, 'k-means')).fmt()}, GMM {tally.stats((x_hi, 'GMM')).fmt()}. From the same "
            f"single start, Hartigan ends at a lower W than Lloyd in {_share(better[x_lo], 1):.0f} % of the "
            f"trials at D = {x_lo} and {_share(better[x_hi], 1):.0f} % at D = {x_hi} (Lloyd lower: "
            f"{_share(better[x_hi], -1):.0f} %), with accuracy {h.fmt()} vs {lloyd.fmt()} at D = {x_hi}"
        )
        if number == 2:
            text += (
                ' — the issue\'s "≈ 0.68 vs 0.57" is '
                + ("reproduced" if in_ci(0.68, h) and in_ci(0.57, lloyd) else "matched in direction")
                + ". Lloyd's loss in high dimension is the local optimum, not the objective: Hartigan on the "
                "same kernel and from the same partition keeps improving W where Lloyd's batch "
                "reassignment has stalled."
            )
        else:
            drops = d["drops"]
            kg_drop, kg_se = drops["kernel k-groups"]
            rivals = [m for m in drops if m != "kernel k-groups"]
            not_less = [m for m in rivals if drops[m][0] - kg_drop <= 1.96 * math.hypot(drops[m][1], kg_se)]
            less = [m for m in rivals if m not in not_less]
            text += (
                '. The paper says kernel k-groups is "much more stable" than the other methods as D '
                "grows; we "
                f"find a loss of {kg_drop:.3f} for kernel k-groups against "
                + ", ".join(f"{m} {drops[m][0]:.3f}" for m in rivals)
                + ". "
                + (
                    "The claim holds against every method."
                    if not not_less
                    else "The claim holds against "
                    + (", ".join(less) or "no method")
                    + "; "
                    + ", ".join(not_less)
                    + " do not lose significantly more in our runs, so that part of the statement (read "
                    "off a plot, without numbers) does not hold here. Spectral clustering with the energy "
                    f"kernel starts lower at D = {x_lo} ({tally.stats((x_lo, 'spectral')).mean:.3f})."
                )
            )
        out.append(text)
    if 4 in sections:
        d = sections[4].data
        tally, xs = d["tally"], d["xs"]
        m_hi, m_lo = xs[-1], xs[0]
        others = {m: tally.stats((m_hi, m)).mean for m in ALL_METHODS if m != "GMM"}
        out.append(
            f"* **Fig. 3e.** Balanced (m = {m_lo}), kernel k-groups, kernel k-means, k-means and GMM agree "
            f"(≈ {tally.stats((m_lo, 'kernel k-groups')).mean:.3f}) while spectral clustering on the energy "
            f"kernel trails ({tally.stats((m_lo, 'spectral')).mean:.3f}). At m = {m_hi} "
            f"(n₁ = {300 - m_hi}, n₂ = {300 + m_hi}) GMM keeps {tally.stats((m_hi, 'GMM')).fmt()} and all "
            f"other methods fall to {min(others.values()):.3f} … {max(others.values()):.3f}: the paper's "
            "limitation of kernel k-groups on highly unbalanced clusters is reproduced (the energy "
            "objective, like k-means', tends to prefer clusters of comparable size)."
        )
    if 5 in sections:
        tally5: Tally = sections[5].data["tally"]

        gmm_cig = tally5.stats(("cigars", "GMM")).values

        def mean5(problem: str, method: str) -> float:
            return tally5.stats((problem, method)).mean

        energy_closer = all(
            abs(mean5(pr, "spectral") - TABLE2[pr]["spectral"][0])
            < abs(mean5(pr, "spectral (RBF affinity)") - TABLE2[pr]["spectral"][0])
            for pr in ("cigars", "circles")
        )

        out.append(
            "* **Table 2.** Kernel k-groups and kernel k-means reach "
            f"{mean5('cigars', 'kernel k-groups'):.4f} / {mean5('circles', 'kernel k-groups'):.4f} "
            f"(paper 1.000 / 1.000). The {800 * (1 - mean5('cigars', 'kernel k-groups')):.2f} points per "
            "trial that kernel k-groups loses on the cigars lie where the two Gaussians overlap (6.5 "
            "apart with unit standard deviation, the Bayes rule itself misclassifies Φ(−3.25) ≈ 0.06 %, "
            "0.46 points of 800). "
            "Spectral clustering with the energy kernel as affinity gives "
            f"{mean5('cigars', 'spectral'):.3f} / {mean5('circles', 'spectral'):.3f} (paper 0.577 / 0.725); "
            "scikit-learn's default RBF affinity would give "
            f"{mean5('cigars', 'spectral (RBF affinity)'):.3f} / "
            f"{mean5('circles', 'spectral (RBF affinity)'):.3f}"
            + (
                ", so the paper's numbers point to the energy kernel (base point 0) as spectral clustering's "
                "affinity, as its text says."
                if energy_closer
                else "; neither affinity matches the paper's spectral numbers closely."
            )
            + " The match is close but not within the standard errors; spectral clustering's result also "
            "depends on the eigen-solver and the k-means in the embedding, which changed across "
            "scikit-learn releases, and on clipping the few negative kernel entries (circles)."
            + f" k-means gives {mean5('cigars', 'k-means'):.3f} / {mean5('circles', 'k-means'):.3f} (paper "
            f"0.533 / 0.521) and GMM {mean5('cigars', 'GMM'):.3f} / {mean5('circles', 'GMM'):.3f} (paper "
            "0.929 / 0.533). On the circles any split by a line through the centre scores ≈ 0.5 plus "
            "sampling noise (about +0.014 on average for 800 points), so k-means and GMM numbers of "
            '0.50–0.53 all mean "no structure found". '
            + (
                f"GMM on the cigars is bimodal: {100 * float(np.mean(gmm_cig > 0.9)):.0f} % of our trials "
                "find "
                f"both cigars (> 0.9), {100 * float(np.mean(gmm_cig < 0.6)):.0f} % keep a cut across them "
                "(< 0.6); the share of each kind sets the mean and depends on the draws and on "
                "scikit-learn's initialisation details."
                if float(np.mean(gmm_cig < 0.6)) > 0
                else "GMM found both cigars in all our trials; the paper's 0.929 ± 0.029 implies that a few "
                "of its 30 trials kept the k-means cut across them (accuracy ≈ 0.53), which depends on the "
                "draws and on scikit-learn's initialisation details."
            )
        )
    if 6 in sections and "best" in sections[6].data:
        d = sections[6].data
        diag = d["diagnostics"]
        lit = diag["paper's Algorithm 1 as printed (no G_ii term)"]
        bat = diag["library batch Lloyd"]
        ts = diag["tslearn-style rule (drops ‖μ_j‖²)"]
        gaps = d["max_ari_minus_acc"]
        dropped = d["dropped"]
        agree, total = d["online_agreement"]
        out.append(
            f"* **Dermatology (Tables 3–4).** At the best objective Q*, kernel k-groups gives accuracy "
            f"{d['best'][0]:.4f} and aRand {d['best'][1]:.4f} — the paper's 0.962 / 0.936 — and a confusion "
            f"table equal to Table 3 in {d['table3_cells']} of 36 cells. A single start reaches Q* with "
            f"probability {d['p_best']:.2f}, so 5 starts find it only "
            f"{100 * (1 - (1 - d['p_best']) ** N_STARTS):.0f} % of the time, which is why our mean over "
            f"seeds is lower than the paper's number; {d['starts95']} starts reach it with 95 % probability. "
            + (
                f"Batch and online Lloyd never reached Q* in {d['singles']} starts each. "
                if max(d["p_lloyd"].values()) == 0
                else "Lloyd reaches Q* with probability "
                + " / ".join(f"{v:.3f}" for v in d["p_lloyd"].values())
                + " (batch / online). "
            )
            + "Without the 8 rows with a missing age, the paper's 0.9637 / 0.9396 is the best optimum when "
            "the data are standardised *before* the rows are removed (standardise-then-drop gives "
            f"{dropped['standardise-then-drop'][0]:.4f} / {dropped['standardise-then-drop'][1]:.4f}; "
            f"re-standardising after removal gives {dropped['drop-then-standardise'][0]:.4f} / "
            f"{dropped['drop-then-standardise'][1]:.4f} at its best optimum). Spectral clustering gives "
            f"{d['tally'].stats('spectral').fmt()} vs the paper's 0.954 (one patient is 0.0027)."
        )
        out.append(
            "* **Kernel k-means on dermatology.** Our batch Lloyd (best of 5 starts, the diagnostics' "
            f"{bat.n} seeds) gives {bat.fmt()} accuracy, "
            "above the paper's 0.751. The paper's Algorithm 1 run exactly as printed (cluster costs updated "
            f"without the G_ii term) gives {lit.fmt()}"
            + (
                ", close to the paper's number: the published baseline was probably hurt by that error."
                if abs(lit.mean - 0.751) < 0.03
                else ", so that misprint does not explain the paper's number either."
            )
            + " The accuracy 0.751 alone lies inside the spread of our seeds (kernel k-means depends "
            "heavily on its starts), but not together with aRand 0.851: that aRand exceeds the accuracy by "
            "0.100, while over all our single starts aRand − accuracy never exceeds "
            f"{max(gaps.values()):+.3f} for any algorithm — no local optimum we reach looks like it. We "
            "could not find which implementation or settings produced the pair, so we count it as not "
            "reproduced. "
            f"(Our independent numpy version of the corrected Algorithm 1 matches the library's online "
            f"Lloyd in {agree} of {total} starts; tslearn's rule gives {ts.fmt()}.)"
        )
    if 7 in sections:
        summary = sections[7].data["summary"]
        parts = []
        for data_name in ("wine", "breast cancer", "digits"):
            keys = [key for key in summary if key[0] == data_name and key[2] == "batch"]
            parts.append(
                f"{data_name} "
                + " / ".join(f"{summary[key]['better']:.0f} %" for key in keys)
                + " (largest gap "
                + " / ".join(f"{100 * summary[key]['max_gap']:.2f} %" for key in keys)
                + " of W)"
            )
        worst = max(v["worse"] for key, v in summary.items() if key[2] == "batch")
        mean_gaps = [100 * v["mean_gap"] for key, v in summary.items() if key[2] == "batch"]
        mean_lo, mean_hi = min(mean_gaps), max(mean_gaps)
        acc_parts = [
            f"{key[0]} {key[1]} {v['acc_h']:.3f} vs {v['acc_l']:.3f}"
            for key, v in summary.items()
            if key[2] == "batch"
        ]
        out.append(
            "* **Hartigan vs Lloyd on real data (same initialisations).** Share of single k-means++ starts "
            "where Hartigan ends at a lower W than batch Lloyd started from the same partition (ρ_1 / "
            "ρ_{1/2}): " + "; ".join(parts) + f". Lloyd ends lower in at most {worst:.0f} % of the starts. "
            f"The mean gain is a fraction of a percent of W ({mean_lo:.3f} … {mean_hi:.3f} %), but "
            "systematic, and now and then large, when Lloyd stalls in a poor partition that Hartigan's "
            "single-point moves escape; where both reach the same optimum (breast cancer with ρ_1, k = 2) "
            "there is nothing to gain. Hartigan's accuracy from the same start: " + "; ".join(acc_parts) + "."
        )
    out.append(
        "* **tslearn.** tslearn's `KernelKMeans` assigns a point to argmin_j 2 − 2·mean_{y∈C_j} K(x, y) "
        '(tslearn/clustering/kmeans.py, `KernelKMeans._compute_dist`, commented "we use a normalized '
        "kernel so k(x,x) = 1 for all x (including the centroid)\"): it drops the centre's squared norm "
        "‖μ_j‖² = Q_j/s_j², which differs between clusters even for a normalised kernel. On the energy "
        "kernel (k(x,x) = ρ(x,0) varies too) it is therefore not kernel k-means and does not minimise the "
        "energy within-cluster dispersion W; compare with `kgroups_rs.kernel_kmeans`, not with tslearn. "
        "It also starts from uniformly random labels, not k-means++."
    )
    return out


def write_results(cfg: Config, sections: dict[int, Section], total: float, argv: Sequence[str]) -> Path:
    """Write RESULTS.md (or RESULTS-quick.md / RESULTS-expN.md for partial runs)."""
    only = [n for n in EXPERIMENTS if n in sections]
    if len(only) == len(EXPERIMENTS):
        name = f"RESULTS{cfg.suffix}.md"
    else:
        name = f"RESULTS-exp{'-'.join(map(str, only))}{cfg.suffix}.md"
    lines = [
        "# Reproducing the kernel k-groups paper (TPAMI §5) with kgroups_rs",
        "",
        f"Generated by `{' '.join(['python experiments/reproduce_paper.py', *argv])}` "
        f"({'quick' if cfg.quick else 'full'} run, seed {cfg.seed}) on {platform.machine()} with "
        f"{_cpu_count()} logical cores, Python {platform.python_version()}, kgroups_rs {kg.__version__}"
        f"{_versions()}. Total run time {total:.0f} s.",
        "",
        "## Protocol",
        "",
        "* Every method sees the same data in every trial.",
        f"* Kernel k-groups (Hartigan, `kernel_kgroups`) and kernel k-means (batch Lloyd, "
        f"`kernel_kmeans`) run {N_STARTS} starts on the same energy kernel (base point 0) and keep the "
        "best objective; they get the same seed, hence the same initial partitions. Initialisation: "
        "k-means++ in feature space, random labels for Table 2 (as the paper).",
        f"* k-means: scikit-learn `KMeans`, k-means++, {N_STARTS} starts. GMM: `GaussianMixture`, full "
        f"covariances, initialised from k-means, {N_STARTS} starts. Spectral clustering: "
        '`SpectralClustering(affinity="precomputed")` on the same energy kernel (negative entries '
        f"clipped to 0), {N_STARTS} k-means starts in the embedding. 1D exact: `kgroups_1d`.",
        "* Accuracy: eq. 55 (best permutation, Hungarian algorithm); adjusted Rand index (aRand) beside "
        "it. Numbers are mean ± half-width of the 95 % t-interval of the mean over the stated number "
        'of Monte Carlo trials; "single trials" is the central 95 % (2.5th–97.5th percentile) of the '
        "per-trial values, the right yardstick for a paper number that comes from one sample.",
        f"* A paper number counts as inside an interval when it is within {PAPER_ROUNDING} of it (the "
        "paper rounds to 3 decimals). Table 2 gives a SEM: a number also agrees when the difference is "
        "within 1.96·√(SE² + SEM²).",
        "* scikit-learn runs single-threaded (threadpoolctl), the library uses its own threads; no "
        "multiprocessing.",
    ]
    if cfg.quick:
        lines += ["", "**Quick run**: fewer trials and settings than the full run; intervals are wide."]
    lines += ["", "## Every paper number beside ours", ""]
    claims = [c for n in only for c in sections[n].claims]
    lines += md_table(
        ["exp.", "quantity", "paper", "ours", "paper inside our 95 % CI?", "verdict"],
        [[c.experiment, c.quantity, c.paper, c.ours, c.interval, c.verdict] for c in claims],
    )
    lines += ["## Findings", "", *findings(sections), ""]
    for n in only:
        sec = sections[n]
        lines += [f"## Experiment {n}: {sec.title}", "", f"Run time {sec.seconds:.0f} s.", "", *sec.body]
    lines += ["## Run times", ""]
    lines += md_table(
        ["experiment", "seconds"],
        [[f"{n}: {sections[n].title}", f"{sections[n].seconds:.0f}"] for n in only]
        + [["total", f"{total:.0f}"]],
    )
    cfg.out.mkdir(parents=True, exist_ok=True)
    path = cfg.out / name
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _cpu_count() -> int:
    import os

    return os.cpu_count() or 1


def _versions() -> str:
    parts = []
    for module in ("numpy", "scipy", "sklearn", "matplotlib"):
        try:
            parts.append(f"{module} {__import__(module).__version__}")
        except ImportError:
            continue
    return (", " + ", ".join(parts)) if parts else ""


# ============================================================================ entry point


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="few trials and settings (< 3 minutes)")
    parser.add_argument(
        "--only",
        type=int,
        action="append",
        choices=sorted(EXPERIMENTS),
        help="run only experiment N (repeatable)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent,
        help="output folder for RESULTS*.md and figures/ (default: experiments/)",
    )
    parser.add_argument("--seed", type=int, default=20240606, help="base seed of every trial")
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    parser.add_argument("--n-threads", type=int, default=None, help="threads of kgroups_rs (default: all)")
    parser.add_argument(
        "--dermatology", type=Path, default=DEFAULT_DERMATOLOGY, help="path of dermatology.csv (experiment 6)"
    )
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> dict[int, Section]:
    """Run the selected experiments, write the report, return the sections (with their numbers)."""
    args = parse_args(argv)
    cfg = Config(
        quick=args.quick,
        seed=args.seed,
        out=args.out,
        figures=not args.no_figures,
        n_threads=args.n_threads,
        dermatology=args.dermatology,
    )
    selected = sorted(set(args.only)) if args.only else sorted(EXPERIMENTS)
    # Load scikit-learn's native libraries (OpenMP, BLAS) first: threadpoolctl only limits the
    # libraries already loaded when the context is entered.
    import sklearn.cluster  # noqa: F401
    import sklearn.mixture  # noqa: F401
    from threadpoolctl import threadpool_limits

    sections: dict[int, Section] = {}
    start = time.perf_counter()
    with threadpool_limits(limits=1):
        for n in selected:
            t0 = time.perf_counter()
            print(f"experiment {n} ...", file=sys.stderr, flush=True)
            sec = EXPERIMENTS[n](cfg)
            sec.seconds = time.perf_counter() - t0
            sections[n] = sec
            print(f"experiment {n} done in {sec.seconds:.1f} s", file=sys.stderr, flush=True)
    total = time.perf_counter() - start
    shown = list(argv) if argv is not None else sys.argv[1:]
    path = write_results(cfg, sections, total, shown)
    print(f"wrote {path} ({total:.0f} s)", file=sys.stderr)
    return sections


if __name__ == "__main__":
    main()
