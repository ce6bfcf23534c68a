"""Shared pieces of every experiment: run settings, statistics, paper claims, report tables and
the clustering methods under the paper's protocol."""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, TypeVar

import kgroups_rs as kg
import numpy as np
import numpy.typing as npt

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

#: The repository root (``experiments/reproduce/common.py`` is two folders below it).
ROOT = Path(__file__).resolve().parents[2]
#: Where RESULTS.md and figures/ go by default.
DEFAULT_OUT = ROOT / "experiments"
#: The UCI dermatology data, vendored with the tests (``tests/data/README.md``).
DEFAULT_DERMATOLOGY = ROOT / "tests" / "data" / "dermatology.csv"


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
    def sem(self) -> float:
        """Standard error of the mean."""
        return self.sd / math.sqrt(self.n) if self.n > 1 else 0.0

    @property
    def half(self) -> float:
        """Half-width of the 95 % t-interval of the mean."""
        if self.n < 2:
            return 0.0
        from scipy.stats import t as student_t

        return float(student_t.ppf(0.975, self.n - 1)) * self.sem

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

    def paired(self, key_a: Any, key_b: Any) -> Stats:
        """Per-trial accuracy difference a − b (same data in each trial)."""
        return Stats.of(np.subtract(self.acc[key_a], self.acc[key_b]).tolist())


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
    #: CPU time of the process (every thread, the library's included): robust to a busy machine.
    cpu_seconds: float = 0.0
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


def sem_claim(
    experiment: str, quantity: str, paper: float, paper_sem: float, s: Stats, digits: int = 3
) -> Claim:
    """A paper mean ± SEM against ours: agrees when |Δ| is within 1.96·√(SE² + SEM²)."""
    combined = 1.96 * math.sqrt(s.sem**2 + paper_sem**2) + PAPER_ROUNDING
    inside = in_ci(paper, s)
    agrees = abs(s.mean - paper) <= combined
    if inside:
        verdict = "reproduced"
    elif agrees:
        verdict = "reproduced (agrees within both standard errors)"
    else:
        verdict = f"**not reproduced** (Δ = {s.mean - paper:+.3f}, allowed ±{combined:.3f} from both SEs)"
    return Claim(
        experiment,
        quantity,
        f"{paper:.{digits}f} ± {paper_sem:.{digits}f} (SEM)",
        f"{s.fmt()} ({s.n} trials)",
        f"{'yes' if inside else 'no'} (CI [{s.lo:.3f}, {s.hi:.3f}])",
        verdict,
    )


# ============================================================================ kernels and methods


@dataclass(frozen=True)
class Kernel:
    """A semimetric of negative type and the energy kernel it generates, with the paper's base
    point x0 = 0 (eq. 7). ``sigma=None`` uses the paper's bandwidth rule
    σ² = (1/n²) Σ_ab ‖x_a − x_b‖² of the data (``kgroups_rs.bandwidth``)."""

    semimetric: str = "power"
    alpha: float = 1.0
    sigma: Optional[float] = None

    @property
    def name(self) -> str:
        if self.semimetric == "power":
            return "ρ_1" if self.alpha == 1.0 else ("ρ_{1/2}" if self.alpha == 0.5 else f"ρ_{self.alpha:g}")
        mark = "ρ̃" if self.semimetric == "exponential" else "ρ̂"
        return f"{mark}_{'σ' if self.sigma is None else f'{self.sigma:g}'}"

    def gram(self, X: npt.ArrayLike, cfg: Config) -> FloatArray:
        # base="origin": the paper's x0 = 0. The labels and W do not depend on the base, but
        # spectral clustering uses G itself as its affinity, and that does.
        G = kg.energy_gram(
            X,
            semimetric=self.semimetric,
            alpha=self.alpha,
            sigma=self.sigma,
            base="origin",
            n_threads=cfg.n_threads,
        )
        return np.asarray(G, dtype=np.float64)


RHO_1 = Kernel()
RHO_HALF = Kernel(alpha=0.5)
RHO_TILDE_1 = Kernel("exponential", sigma=1.0)
RHO_TILDE_2 = Kernel("exponential", sigma=2.0)
RHO_HAT_1 = Kernel("gaussian", sigma=1.0)
RHO_HAT_2 = Kernel("gaussian", sigma=2.0)


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
    *,
    kmeans_init: str = "k-means++",
    gmm_init: str = "kmeans",
) -> IntArray:
    """Labels of one method under the paper's protocol (5 starts, best objective).

    ``kernel_init`` is the initialisation of kernel k-groups and kernel k-means; ``kmeans_init``
    and ``gmm_init`` those of scikit-learn's ``KMeans`` and ``GaussianMixture`` (the paper's
    default: k-means++, and GMM initialised from k-means).
    """
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
            km = KMeans(n_clusters=k, init=kmeans_init, n_init=N_STARTS, random_state=seed)
            return np.asarray(km.fit_predict(data), dtype=np.int64)
        if method == "GMM":
            gmm = GaussianMixture(n_components=k, init_params=gmm_init, n_init=N_STARTS, random_state=seed)
            return np.asarray(gmm.fit(data).predict(data), dtype=np.int64)
        if method == "1D exact":
            return kg.kgroups_1d(np.asarray(X, dtype=np.float64).ravel(), k).labels
    raise ValueError(f"unknown method {method!r}")


def within_w(G: FloatArray, labels: npt.ArrayLike) -> float:
    """The within-cluster dispersion W of a partition on the kernel G (unit weights), from
    ``kgroups_rs.within_dispersion``; empty clusters are dropped (labels renumbered 0..k'−1)."""
    _, compact = np.unique(np.asarray(labels), return_inverse=True)
    return kg.within_dispersion(np.asarray(compact, dtype=np.int64).ravel(), G=G)


def objective_q(G: FloatArray, labels: npt.ArrayLike) -> float:
    """The clustering objective Q = Σ_j Q_j / n_j of a partition (unit weights), from the library:
    Q = Σ_i G_ii − W (SPEC, eqs. 41–42) with W from :func:`within_w`."""
    return float(np.trace(G)) - within_w(G, labels)


def compare_w(w_h: float, w_l: float) -> int:
    """+1 when Hartigan's W is lower (better) than Lloyd's, 0 when equal, -1 when higher."""
    scale = max(abs(w_h), abs(w_l), 1e-300)
    if w_l - w_h > SAME_OPTIMUM_RTOL * scale:
        return 1
    if w_h - w_l > SAME_OPTIMUM_RTOL * scale:
        return -1
    return 0


def share(values: Sequence[int], sign: int) -> float:
    """Percentage of entries equal to ``sign`` (+1, 0, −1 from :func:`compare_w`)."""
    return 100.0 * float(np.mean(np.asarray(values) == sign))
