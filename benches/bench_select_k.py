"""Choosing k without being told it: a labelled suite, five peers, and kgroups_rs's estimator
``KernelKGroups(n_clusters="auto", kernel="auto")``.

Every method gets the data only (never the true k) and returns a partition; the table reports,
for each data set and method, the number of groups found, the adjusted Rand index (ARI) against
the true classes and the seconds taken, then per method and per split the fraction of data sets
where the true k was found and the mean ARI, and the margin of ``kgroups_auto`` over the best
peer (the judgement: true k on >= 75 % of the suite and a mean ARI >= 0.10 above the best peer).

Two splits. ``kgroups_auto``'s rule (which statistics, which thresholds, which kernel when) was
chosen by looking at the **development** split only. The **held-out** split was added after the
rule was fixed, from generators that played no part in choosing it, so that its numbers show the
rule on data it was not tuned on; a change to the rule made after looking at the held-out
numbers spends them, and should add fresh held-out families. Every data set has a ``family``
(its generator) and a ``split`` (``--split`` picks one).

The development split (:func:`development_suite`, deterministic seeds, 25 sets, 20 synthetic
and 5 real):

- blobs with k = 2 ... 8 (2-D and 10-D, equal or varied spread, imbalanced sizes; centres
  drawn with a minimum separation so that the true k is unambiguous), anisotropic blobs
  (scikit-learn's example), scikit-learn's circles and moons, the TPAMI paper's parallel
  cigars and concentric circles, the conference paper's three rings, the TPAMI mixtures of
  eq. 56 (D = 10), eq. 59 (unbalanced, m = 100) and the lognormal version of eq. 58 (D = 20),
  the one-dimensional lognormal mixture of Fig. 1b, a 1-D mixture of three Gaussians, and two
  sets with no structure (uniform on a square, one Gaussian in 5-D) whose true k is 1;
- real sets: iris, wine, breast cancer, digits (scikit-learn) and dermatology
  (``tests/data/dermatology.csv``, missing ages imputed by the mean). The features of every
  real set are standardised (mean 0, standard deviation 1 per column; constant columns only
  centred); synthetic sets are used as generated.

The held-out split (:func:`held_out_suite`, 27 synthetic sets, seeds of their own; none over
10 000 points unless ``--large``):

- ``student_t_blobs``: multivariate Student-t blobs (3 degrees of freedom: k = 3 in 2-D and
  k = 5 in 5-D; 2 degrees of freedom, infinite variance: k = 4 in 2-D), centres >= 15 or 20
  apart;
- ``unequal_blobs``: Gaussian blobs of unequal sizes (40 ... 400) and spreads (standard
  deviations 0.5 ... 2) in 3-D, 5-D and 20-D, k = 2, 4, 6, 9, 11, centres >= 12 apart;
- ``rotated_anisotropic``: Gaussians with axis standard deviations 0.4 ... 2 (ratio 5) under
  a random rotation each, k = 3 (2-D), 4 (3-D), 5 (10-D), centres >= 14 apart;
- ``far_blobs``: unit-variance blobs whose centres are >= 20 standard deviations apart, 2-D,
  k = 2, 3, 5, 8, 10, 12 (100 points each);
- ``tight_blobs``: six blobs of standard deviation 0.05, centres >= 20 apart, sizes 15 ... 60;
- ``make_blobs``: ``make_blobs(n, centers=4, random_state=1000 * seed)`` at n = 1 000 and
  10 000 (and 100 000 with ``--large``), overlapping blobs whose labels are the true classes;
- ``curved``: three interleaved spirals, two interleaved half-rings of unequal sizes and noise,
  a blob inside a ring (2-D) and a blob inside a spherical shell (3-D);
- structureless sets (true k = 1): uniform in a 3-D cube, an anisotropic Gaussian in 10-D
  (standard deviations 1 ... 10, rotated), uniform on a 20-D box (sides 1 ... 4).

No real held-out set: the labelled sets that ship with scikit-learn (iris, wine, breast cancer,
digits) and ``tests/data`` (dermatology) are all in the development split, and the benchmark
downloads nothing.

The k range. The estimator's ``n_clusters="auto"`` searches k = 1 ... 10 (``--k-max`` sets the
peers' range only), so on the two held-out sets with true k = 11 and 12 (``unequal_k11_5d``,
``far_k12``) only HDBSCAN, which has no k range, can find the true k at the default
``--k-max``; they stay in the split (they show what the fixed range costs, and the ARI still
says how close a method came) and the table marks their k with ``!``.

ARI when the truth is one group: scikit-learn's ``adjusted_rand_score`` of the all-zero truth
against a labelling is 1.0 when the labelling is one group too and 0.0 otherwise, so a method
scores 1 on a set without structure only by answering k = 1.

The peers, each on a k range of 1 ... 10 where the method allows k = 1 (``--k-max``):

- ``hdbscan``: :class:`sklearn.cluster.HDBSCAN` with ``min_cluster_size = max(5, n // 50)``
  and scikit-learn's other defaults: of 5 (scikit-learn's default, which splits noisy sets
  into dozens of groups), n // 100, n // 50 and n // 20, n // 50 scored best on this suite
  (seed 0), so the peer gets the benefit of that choice. It finds k itself; noise points (label -1) form
  one more label for the ARI, and the k reported is the number of clusters excluding noise,
  or 1 when every point is noise (no cluster found).
- ``gmm_bic``: :class:`sklearn.mixture.GaussianMixture` (full covariances, k-means start,
  ``n_init=2``) for k = 1 ... 10; the k of the smallest BIC.
- ``kmeans_silhouette``: :class:`sklearn.cluster.KMeans` (``n_init=4``) for k = 2 ... 10 (the
  silhouette needs two groups, so this peer never answers 1); the k of the largest
  silhouette (on a subsample of at most 2 000 points).
- ``kmeans_gap``: the gap statistic of Tibshirani, Walther & Hastie (2001) on KMeans's
  log W_k (W_k the inertia), ``B = 10`` references uniform on the box of the data's principal
  components (their recommended reference), k = 1 ... 10, and their rule: the smallest k with
  Gap(k) >= Gap(k+1) - s_{k+1}, ``s = sd * sqrt(1 + 1/B)`` (k = 10 when no k qualifies).
- ``spectral_eigengap``: von Luxburg's recipe (2007, section 8): the symmetrised kNN graph
  (``n_neighbors=10``, connectivity, ``(A + A^T) / 2`` as in scikit-learn's
  ``affinity="nearest_neighbors"``), the 11 smallest eigenvalues of the normalised Laplacian
  ``I - D^-1/2 A D^-1/2``, k the position of the largest gap ``lambda_{k+1} - lambda_k`` for
  k = 1 ... 10; the partition is :class:`sklearn.cluster.SpectralClustering` on the same
  affinity with that k (one group when k = 1). The spectrum is dense for n <= 3 000 and
  scipy's ``eigsh`` (largest eigenvalues of ``D^-1/2 A D^-1/2``) beyond.
- ``kgroups_auto`` (only when the installed ``KernelKGroups`` takes ``kernel="auto"``):
  ``KernelKGroups(n_clusters="auto", kernel="auto", random_state=seed, n_threads=1).fit(X)``,
  reading ``n_clusters_`` and ``labels_`` (``select_k`` on k = 1 ... 10 whatever ``--k-max``;
  with the energy kernel the estimator's own fit at that k, with the kNN graph select_k's
  partition); see :func:`kgroups_auto`.

Every method runs single-threaded where it offers the choice (``OMP_NUM_THREADS=1`` is set
before numpy loads unless the caller set it) so that times compare like with like. Usage::

    python benches/bench_select_k.py [--quick] [--out bench_select_k.json] [--seed 0]
        [--split {development,held_out,all}] [--large]
        [--methods hdbscan gmm_bic ...] [--datasets blobs_k2 moons ...] [--k-max 10]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable, Optional  # noqa: E402

import kgroups_rs  # noqa: E402
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from kgroups_rs.datasets import (  # noqa: E402
    make_concentric_circles,
    make_lognormal_mixture,
    make_parallel_cigars,
    standardize,
)

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the paper's generators live in experiments/reproduce
    sys.path.insert(0, str(ROOT))

from experiments.reproduce.synthetic import make_eq56, make_eq58, make_eq59, make_rings  # noqa: E402

BENCHES = Path(__file__).resolve().parent
if str(BENCHES) not in sys.path:  # the peers live beside this script
    sys.path.insert(0, str(BENCHES))

from select_peers import Found, has_kernel_auto, kgroups_auto, methods  # noqa: E402, F401

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
DERMATOLOGY = ROOT / "tests" / "data" / "dermatology.csv"


@dataclass
class DataSet:
    """One labelled data set of the suite: ``X`` of shape (n, D), classes ``y`` in 0..k-1."""

    name: str
    X: FloatArray
    y: IntArray
    kind: str  # "synthetic" or "real"
    note: str
    family: str = ""  # the generator (or source) of the set
    split: str = "development"  # "development" (the rule was chosen on it) or "held_out"

    @property
    def k(self) -> int:
        return int(np.unique(self.y).size)


# ============================================================================ the suite


def _separated_centres(rng: np.random.Generator, k: int, dim: int, min_sep: float, box: float) -> FloatArray:
    """k centres uniform in [-box, box]^dim, redrawn until every pair is >= min_sep apart."""
    for _ in range(10_000):
        centres = rng.uniform(-box, box, size=(k, dim))
        gaps = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
        if gaps[np.triu_indices(k, 1)].min() >= min_sep:
            return centres
    raise RuntimeError("could not place separated centres; enlarge the box")


def _blobs(
    seed: int,
    sizes: list[int],
    stds: list[float],
    dim: int = 2,
    min_sep: float = 7.0,
    box: float = 10.0,
) -> tuple[FloatArray, IntArray]:
    """Isotropic Gaussian blobs with the given sizes and standard deviations, shuffled."""
    rng = np.random.default_rng(seed)
    centres = _separated_centres(rng, len(sizes), dim, min_sep, box)
    y = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    X = centres[y] + rng.normal(size=(y.size, dim)) * np.asarray(stds)[y, None]
    order = rng.permutation(y.size)
    return X[order], y[order]


def _load_dermatology() -> tuple[FloatArray, IntArray]:
    raw = np.genfromtxt(DERMATOLOGY, delimiter=",", skip_header=1, missing_values="?", filling_values=np.nan)
    X, y = raw[:, :-1], raw[:, -1].astype(np.int64) - 1
    X = np.where(np.isnan(X), np.nanmean(X, axis=0), X)
    return X, y


#: The generator (or source) of each development set.
FAMILIES = {
    **dict.fromkeys(
        ("blobs_k2", "blobs_k3", "blobs_k4_spread", "blobs_k5_imbalanced", "blobs_k6_10d", "blobs_k8",
         "blobs_k7_overlap"), "gaussian_blobs"),
    "aniso_k3": "sklearn_anisotropic",
    "circles_sklearn": "sklearn_circles",
    "moons": "sklearn_moons",
    "cigars_paper": "paper_cigars",
    "circles_paper": "paper_circles",
    "rings3_paper": "paper_rings",
    **dict.fromkeys(("eq56_d10", "eq59_m100", "eq58_lognormal"), "paper_mixtures"),
    "lognormal_1d": "paper_lognormal_1d",
    "gauss_1d_k3": "gaussian_1d",
    "uniform_2d": "uniform_square",
    "gaussian_5d": "gaussian_isotropic",
    **dict.fromkeys(("iris", "wine", "breast_cancer", "digits"), "sklearn_real"),
    "dermatology": "uci_real",
}  # fmt: skip
SPLITS = ("development", "held_out")
#: The largest k that KernelKGroups(n_clusters="auto") searches (select_k on k = 1 ... 10).
ESTIMATOR_K_MAX = 10


def _data_set(name: str, X: Any, y: Any, kind: str, note: str, family: str, split: str) -> DataSet:
    """A :class:`DataSet` with ``X`` as float64 (n, D) and ``y`` renumbered to 0..k-1."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    labels = np.unique(np.asarray(y), return_inverse=True)[1].astype(np.int64).ravel()
    return DataSet(name, X, labels, kind, note, family, split)


def development_suite(quick: bool = False, seed: int = 0) -> list[DataSet]:
    """The development split (deterministic for a ``seed``); ``quick``: 8 small sets."""
    from sklearn import datasets as skd

    s = seed * 1000
    sets: list[DataSet] = []

    def add(name: str, X: Any, y: Any, kind: str, note: str) -> None:
        sets.append(_data_set(name, X, y, kind, note, FAMILIES[name], "development"))

    scale = 0.5 if quick else 1.0

    def n(count: int) -> int:
        return max(60, int(count * scale))

    add("blobs_k2", *_blobs(s + 1, [n(300)] * 2, [1.0, 1.0]), "synthetic", "2-D, equal spread")
    add("blobs_k3", *_blobs(s + 2, [n(250)] * 3, [1.0] * 3), "synthetic", "2-D, equal spread")
    add("blobs_k4_spread", *_blobs(s + 3, [n(200)] * 4, [0.5, 1.0, 1.5, 2.0], min_sep=9.0, box=12.0),
        "synthetic", "2-D, standard deviations 0.5 ... 2")  # fmt: skip
    add("blobs_k5_imbalanced", *_blobs(s + 4, [n(n_) for n_ in (400, 200, 100, 60, 40)], [1.0] * 5),
        "synthetic", "2-D, sizes 400/200/100/60/40")  # fmt: skip
    add("blobs_k6_10d", *_blobs(s + 5, [n(150)] * 6, [1.0] * 6, dim=10, min_sep=6.0, box=5.0),
        "synthetic", "10-D")  # fmt: skip
    add("blobs_k8", *_blobs(s + 6, [n(120)] * 8, [1.0] * 8, min_sep=6.0, box=14.0), "synthetic", "2-D")
    Xa, ya = skd.make_blobs(n_samples=n(600), centers=3, random_state=170 + s)
    add("aniso_k3", Xa @ np.array([[0.6, -0.6], [-0.4, 0.8]]), ya, "synthetic",
        "scikit-learn's anisotropic blobs")  # fmt: skip
    Xc, yc = skd.make_circles(n_samples=n(800), factor=0.5, noise=0.05, random_state=s + 7)
    add("circles_sklearn", Xc, yc, "synthetic", "make_circles(factor=0.5, noise=0.05)")
    Xm, ym = skd.make_moons(n_samples=n(800), noise=0.08, random_state=s + 8)
    add("moons", Xm, ym, "synthetic", "make_moons(noise=0.08)")
    add("cigars_paper", *make_parallel_cigars(n(800), seed=s + 9), "synthetic", "TPAMI Fig. 4a")
    add("circles_paper", *make_concentric_circles(n(800), seed=s + 10), "synthetic", "TPAMI Fig. 4b")
    add("rings3_paper", *make_rings([1.0, 3.0, 5.0], n(250), np.random.default_rng(s + 11)), "synthetic",
        "conference paper Fig. 4c, radii 1, 3, 5")  # fmt: skip
    add("eq56_d10", *make_eq56(n(600), 10, np.random.default_rng(s + 12)), "synthetic",
        "TPAMI eq. 56, D = 10 (overlapping)")  # fmt: skip
    add("eq59_m100", *make_eq59(100, np.random.default_rng(s + 13)), "synthetic",
        "TPAMI eq. 59, 200 + 400 points in 4-D")  # fmt: skip
    X58, y58 = make_eq58(n(600), np.random.default_rng(s + 14))
    add("eq58_lognormal", np.exp(X58), y58, "synthetic", "TPAMI Fig. 3d: exp of eq. 58, D = 20")
    add("lognormal_1d", *make_lognormal_mixture(n(1000), seed=s + 15), "synthetic", "TPAMI Fig. 1b")
    rng = np.random.default_rng(s + 16)
    y1 = np.repeat(np.arange(3), [n(400), n(300), n(300)])
    add("gauss_1d_k3", rng.normal(np.array([0.0, 5.0, 10.0])[y1], np.array([1.0, 0.8, 1.2])[y1]), y1,
        "synthetic", "1-D, means 0/5/10")  # fmt: skip
    rng = np.random.default_rng(s + 17)
    add("uniform_2d", rng.uniform(size=(n(600), 2)), np.zeros(n(600)), "synthetic",
        "no structure: uniform on a square")  # fmt: skip
    rng = np.random.default_rng(s + 18)
    add("gaussian_5d", rng.normal(size=(n(600), 5)), np.zeros(n(600)), "synthetic",
        "no structure: one Gaussian")  # fmt: skip
    add("blobs_k7_overlap", *_blobs(s + 19, [n(150)] * 7, [1.5] * 7, min_sep=6.0, box=12.0), "synthetic",
        "2-D, std 1.5 at separation >= 6")  # fmt: skip
    for name, loader in (("iris", skd.load_iris), ("wine", skd.load_wine),
                         ("breast_cancer", skd.load_breast_cancer), ("digits", skd.load_digits)):  # fmt: skip
        bunch = loader()
        add(name, standardize(bunch.data), bunch.target, "real", "scikit-learn, standardised")
    if DERMATOLOGY.exists():
        Xd, yd = _load_dermatology()
        add("dermatology", standardize(Xd), yd, "real", "UCI, missing ages imputed, standardised")
    if quick:
        keep = ("blobs_k3", "blobs_k5_imbalanced", "moons", "circles_paper", "lognormal_1d", "uniform_2d",
                "iris", "wine")  # fmt: skip
        sets = [d for d in sets if d.name in keep]
    return sets


# ---------------------------------------------------------------------------- held out


def _spread_centres(rng: np.random.Generator, k: int, dim: int, min_sep: float, box: float) -> FloatArray:
    """k centres uniform in [-box, box]^dim, placed one at a time, each redrawn until it is >=
    min_sep from those placed (works for many centres, where redrawing all at once does not)."""
    centres: list[FloatArray] = []
    for _ in range(100_000):
        c = rng.uniform(-box, box, size=dim)
        if all(float(np.linalg.norm(c - other)) >= min_sep for other in centres):
            centres.append(c)
            if len(centres) == k:
                return np.array(centres)
    raise RuntimeError("could not place separated centres; enlarge the box")


def _rotation(rng: np.random.Generator, dim: int) -> FloatArray:
    """A uniformly random orthogonal matrix (QR of a Gaussian matrix, signs fixed)."""
    q, r = np.linalg.qr(rng.normal(size=(dim, dim)))
    return np.asarray(q * np.sign(np.diag(r)), dtype=np.float64)


def _shuffled(rng: np.random.Generator, X: FloatArray, y: IntArray) -> tuple[FloatArray, IntArray]:
    order = rng.permutation(y.size)
    return X[order], y[order]


def student_t_blobs(
    seed: int, k: int, dim: int, size: int, df: float, min_sep: float, box: float
) -> tuple[FloatArray, IntArray]:
    """k multivariate Student-t blobs (scale 1, ``df`` degrees of freedom) of ``size`` points."""
    rng = np.random.default_rng(seed)
    centres = _spread_centres(rng, k, dim, min_sep, box)
    y = np.repeat(np.arange(k, dtype=np.int64), size)
    radial = np.sqrt(df / rng.chisquare(df, size=y.size))
    X = centres[y] + rng.normal(size=(y.size, dim)) * radial[:, None]
    return _shuffled(rng, X, y)


def unequal_blobs(seed: int, k: int, dim: int, scale: float = 1.0) -> tuple[FloatArray, IntArray]:
    """k Gaussian blobs, sizes 40 ... 400 and standard deviations 0.5 ... 2 drawn per blob,
    centres >= 12 apart."""
    rng = np.random.default_rng(seed)
    sizes = np.maximum(20, (rng.integers(40, 401, size=k) * scale).astype(np.int64))
    stds = rng.uniform(0.5, 2.0, size=k)
    centres = _spread_centres(rng, k, dim, 12.0, 15.0)
    y = np.repeat(np.arange(k, dtype=np.int64), sizes)
    X = centres[y] + rng.normal(size=(y.size, dim)) * stds[y, None]
    return _shuffled(rng, X, y)


def rotated_anisotropic(seed: int, k: int, dim: int, size: int) -> tuple[FloatArray, IntArray]:
    """k Gaussians with axis standard deviations log-spaced 0.4 ... 2, each under a random
    rotation of its own, centres >= 14 apart."""
    rng = np.random.default_rng(seed)
    centres = _spread_centres(rng, k, dim, 14.0, 16.0)
    axes = np.geomspace(0.4, 2.0, dim)
    y = np.repeat(np.arange(k, dtype=np.int64), size)
    X = np.empty((y.size, dim))
    for j in range(k):
        X[y == j] = centres[j] + (rng.normal(size=(size, dim)) * axes) @ _rotation(rng, dim).T
    return _shuffled(rng, X, y)


def far_blobs(seed: int, k: int, size: int) -> tuple[FloatArray, IntArray]:
    """k unit-variance 2-D blobs whose centres are >= 20 standard deviations apart."""
    rng = np.random.default_rng(seed)
    centres = _spread_centres(rng, k, 2, 20.0, 12.0 * math.sqrt(k))
    y = np.repeat(np.arange(k, dtype=np.int64), size)
    return _shuffled(rng, centres[y] + rng.normal(size=(y.size, 2)), y)


def tight_blobs(seed: int) -> tuple[FloatArray, IntArray]:
    """Six 2-D blobs of standard deviation 0.05, centres >= 20 apart, sizes 15 ... 60."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(15, 61, size=6)
    centres = _spread_centres(rng, 6, 2, 20.0, 30.0)
    y = np.repeat(np.arange(6, dtype=np.int64), sizes)
    return _shuffled(rng, centres[y] + 0.05 * rng.normal(size=(y.size, 2)), y)


def spirals(seed: int, arms: int, size: int, noise: float) -> tuple[FloatArray, IntArray]:
    """``arms`` interleaved 2-D spirals r = t, angle t + 2 pi j / arms, t in [1, 4 pi]."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(arms, dtype=np.int64), size)
    t = rng.uniform(1.0, 4.0 * math.pi, size=y.size)
    angle = t + 2.0 * math.pi * y / arms
    X = np.column_stack([t * np.cos(angle), t * np.sin(angle)]) + noise * rng.normal(size=(y.size, 2))
    return _shuffled(rng, X, y)


def half_rings(seed: int, sizes: tuple[int, int], noises: tuple[float, float]) -> tuple[FloatArray, IntArray]:
    """Two interleaved half-rings of radius 1 (the upper one centred at 0, the lower at
    (1, 0.5)), each with its own size and Gaussian noise."""
    rng = np.random.default_rng(seed)
    parts = []
    for j, (count, noise) in enumerate(zip(sizes, noises)):
        angle = rng.uniform(0.0, math.pi, size=count)
        ring = np.column_stack([np.cos(angle), np.sin(angle)])
        if j == 1:
            ring = np.array([1.0, 0.5]) - ring
        parts.append(ring + noise * rng.normal(size=(count, 2)))
    y = np.repeat(np.arange(2, dtype=np.int64), sizes)
    return _shuffled(rng, np.vstack(parts), y)


def blob_in_shell(
    seed: int, dim: int, blob: int, shell: int, radius: float, noise: float
) -> tuple[FloatArray, IntArray]:
    """A Gaussian blob (standard deviation 0.3) at the centre of a sphere of ``radius`` (a ring
    in 2-D) with radial Gaussian noise."""
    rng = np.random.default_rng(seed)
    inner = 0.3 * rng.normal(size=(blob, dim))
    direction = rng.normal(size=(shell, dim))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    outer = direction * (radius + noise * rng.normal(size=(shell, 1)))
    y = np.repeat(np.arange(2, dtype=np.int64), [blob, shell])
    return _shuffled(rng, np.vstack([inner, outer]), y)


def held_out_suite(quick: bool = False, seed: int = 0, large: bool = False) -> list[DataSet]:
    """The held-out split: families that played no part in choosing the rule (deterministic for
    a ``seed``, seeds apart from the development ones); ``quick``: 7 small sets; ``large``:
    also ``make_blobs`` at n = 100 000."""
    from sklearn.datasets import make_blobs

    s = seed * 1000 + 100
    scale = 0.5 if quick else 1.0
    sets: list[DataSet] = []

    def n(count: int) -> int:
        return max(30, int(count * scale))

    def add(name: str, data: tuple[Any, Any], family: str, note: str) -> None:
        sets.append(_data_set(name, data[0], data[1], "synthetic", note, family, "held_out"))

    add("t3_k3_2d", student_t_blobs(s + 1, 3, 2, n(250), 3.0, 15.0, 15.0), "student_t_blobs",
        "2-D, 3 degrees of freedom, centres >= 15 apart")  # fmt: skip
    add("t2_k4_2d", student_t_blobs(s + 2, 4, 2, n(200), 2.0, 20.0, 20.0), "student_t_blobs",
        "2-D, 2 degrees of freedom (infinite variance), centres >= 20 apart")  # fmt: skip
    add("t3_k5_5d", student_t_blobs(s + 3, 5, 5, n(200), 3.0, 15.0, 12.0), "student_t_blobs",
        "5-D, 3 degrees of freedom, centres >= 15 apart")  # fmt: skip
    for i, (k, dim) in enumerate(((2, 3), (4, 20), (6, 5), (9, 3), (11, 5))):
        add(f"unequal_k{k}_{dim}d", unequal_blobs(s + 10 + i, k, dim, scale), "unequal_blobs",
            f"{dim}-D, sizes 40 ... 400, standard deviations 0.5 ... 2")  # fmt: skip
    for i, (k, dim) in enumerate(((3, 2), (4, 3), (5, 10))):
        add(f"rotated_k{k}_{dim}d", rotated_anisotropic(s + 20 + i, k, dim, n(200)), "rotated_anisotropic",
            f"{dim}-D, axis standard deviations 0.4 ... 2, random rotations")  # fmt: skip
    for i, k in enumerate((2, 3, 5, 8, 10, 12)):
        add(f"far_k{k}", far_blobs(s + 30 + i, k, n(100)), "far_blobs",
            "2-D, unit variance, centres >= 20 standard deviations apart")  # fmt: skip
    add("tight6", tight_blobs(s + 40), "tight_blobs", "2-D, standard deviation 0.05, sizes 15 ... 60")
    for size in (1_000, 10_000) + ((100_000,) if large else ()):
        add(f"make_blobs4_n{size}", make_blobs(size, centers=4, random_state=seed * 1000), "make_blobs",
            f"make_blobs({size}, centers=4, random_state={seed * 1000})")  # fmt: skip
    add("spirals3", spirals(s + 50, 3, n(300), 0.2), "curved", "three interleaved spirals, noise 0.2")
    add("half_rings_unequal", half_rings(s + 51, (n(400), n(200)), (0.05, 0.15)), "curved",
        "interleaved half-rings, 400 points (noise 0.05) and 200 (noise 0.15)")  # fmt: skip
    add("blob_in_ring", blob_in_shell(s + 52, 2, n(200), n(400), 3.0, 0.2), "curved",
        "2-D: a blob (sd 0.3) inside a ring of radius 3")  # fmt: skip
    add("blob_in_shell_3d", blob_in_shell(s + 53, 3, n(200), n(600), 3.0, 0.15), "curved",
        "3-D: a blob (sd 0.3) inside a spherical shell of radius 3")  # fmt: skip
    rng = np.random.default_rng(s + 60)
    add("uniform_cube_3d", (rng.uniform(size=(n(800), 3)), np.zeros(n(800))), "uniform_cube",
        "no structure: uniform in a cube")  # fmt: skip
    rng = np.random.default_rng(s + 61)
    X = (rng.normal(size=(n(800), 10)) * np.geomspace(1.0, 10.0, 10)) @ _rotation(rng, 10).T
    add("gaussian_aniso_10d", (X, np.zeros(n(800))), "gaussian_anisotropic",
        "no structure: one Gaussian, standard deviations 1 ... 10, rotated")  # fmt: skip
    rng = np.random.default_rng(s + 62)
    add("uniform_box_20d", (rng.uniform(size=(n(800), 20)) * np.linspace(1.0, 4.0, 20), np.zeros(n(800))),
        "uniform_box", "no structure: uniform on a box with sides 1 ... 4")  # fmt: skip
    if quick:
        keep = ("t3_k3_2d", "unequal_k6_5d", "far_k5", "tight6", "make_blobs4_n1000", "blob_in_ring",
                "uniform_cube_3d")  # fmt: skip
        sets = [d for d in sets if d.name in keep]
    return sets


def suite(quick: bool = False, seed: int = 0, split: str = "all", large: bool = False) -> list[DataSet]:
    """The labelled data sets of ``split`` ("development", "held_out" or "all": development
    first), deterministic for a ``seed``; ``quick``: the small subset of each split."""
    if split not in (*SPLITS, "all"):
        raise ValueError(f"split must be one of {(*SPLITS, 'all')}, got {split!r}")
    sets: list[DataSet] = []
    if split in ("development", "all"):
        sets += development_suite(quick, seed)
    if split in ("held_out", "all"):
        sets += held_out_suite(quick, seed, large)
    return sets


# ============================================================================ running


def ari(y: IntArray, labels: npt.ArrayLike) -> float:
    """Adjusted Rand index; with a one-group truth it is 1 exactly when ``labels`` is one group."""
    from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(y, np.asarray(labels)))


def run_one(
    method: Callable[[FloatArray, int, int], Found], data: DataSet, k_max: int, seed: int
) -> dict[str, Any]:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of the peers' larger k
        found = method(data.X, k_max, seed)
    seconds = time.perf_counter() - start
    return {"k": found.k, "ari": ari(data.y, found.labels), "seconds": seconds, "info": found.info}


def summarise(records: list[dict[str, Any]], names: list[str]) -> dict[str, dict[str, float]]:
    """Per method: the fraction of the records' data sets with the true k, the mean ARI, the
    total seconds and the number of data sets (NaN fractions when there are none)."""
    out = {}
    for m in names:
        rows = [r for r in records if r["method"] == m]
        out[m] = {
            "true_k_fraction": float(np.mean([r["k"] == r["true_k"] for r in rows])) if rows else math.nan,
            "mean_ari": float(np.mean([r["ari"] for r in rows])) if rows else math.nan,
            "total_seconds": float(np.sum([r["seconds"] for r in rows])),
            "n_datasets": len(rows),
        }
    return out


def summarise_by_split(
    records: list[dict[str, Any]], names: list[str]
) -> dict[str, dict[str, dict[str, float]]]:
    """:func:`summarise` of each split that has records."""
    present = [s for s in SPLITS if any(r["split"] == s for r in records)]
    return {s: summarise([r for r in records if r["split"] == s], names) for s in present}


def margins(summary: dict[str, dict[str, float]]) -> Optional[dict[str, Any]]:
    """kgroups_auto's true-k fraction and mean ARI minus the best peer's (the best peer chosen
    per measure), or None without kgroups_auto or without a peer."""
    peers = [m for m in summary if m != "kgroups_auto"]
    if "kgroups_auto" not in summary or not peers:
        return None
    ours = summary["kgroups_auto"]
    out: dict[str, Any] = {}
    for measure in ("true_k_fraction", "mean_ari"):
        best = max(peers, key=lambda m: summary[m][measure])
        out[measure] = {"best_peer": best, "margin": ours[measure] - summary[best][measure]}
    return out


def print_table(
    sets: list[DataSet],
    records: list[dict[str, Any]],
    names: list[str],
    summary: dict[str, dict[str, float]],
    by_split: Optional[dict[str, dict[str, dict[str, float]]]] = None,
    k_max: int = ESTIMATOR_K_MAX,
) -> None:
    width = 20
    head = f"{'data set':<20} {'n':>6} {'D':>3} {'k':>3} | " + " | ".join(
        f"{m[:width]:^{width}}" for m in names
    )
    sub = f"{'':<20} {'':>6} {'':>3} {'':>3} | " + " | ".join(
        f"{'k':>3} {'ARI':>6} {'s':>8}  " for _ in names
    )
    print(head)
    print(sub)
    cell = {(r["dataset"], r["method"]): r for r in records}
    reach = min(k_max, ESTIMATOR_K_MAX)
    split = None
    for d in sets:
        if d.split != split:
            split = d.split
            print("-" * len(head))
            print(f"[{split}]")
        parts = []
        for m in names:
            r = cell[(d.name, m)]
            mark = "*" if r["k"] == d.k else " "
            parts.append(f"{r['k']:>3}{mark}{r['ari']:6.3f} {r['seconds']:8.2f}  ")
        true_k = f"{d.k}!" if d.k > reach else f"{d.k} "
        print(f"{d.name[:20]:<20} {d.X.shape[0]:>6} {d.X.shape[1]:>3} {true_k:>3} | " + " | ".join(parts))
    print("-" * len(head))
    groups = [(s, by_split[s]) for s in SPLITS if by_split and s in by_split]
    if len(groups) != 1:
        groups.append(("all", summary))
    label = 36
    for split_name, table in groups:
        print(
            f"{split_name + ': true k fraction':<{label}} | "
            + " | ".join(f"{table[m]['true_k_fraction']:>{width}.3f}" for m in names)
        )
        print(
            f"{split_name + ': mean ARI':<{label}} | "
            + " | ".join(f"{table[m]['mean_ari']:>{width}.3f}" for m in names)
        )
        print(
            f"{split_name + ': total seconds':<{label}} | "
            + " | ".join(f"{table[m]['total_seconds']:>{width}.1f}" for m in names)
        )
    for split_name, table in groups:
        margin = margins(table)
        if margin is not None:
            tk, ar = margin["true_k_fraction"], margin["mean_ari"]
            print(
                f"{split_name}: kgroups_auto minus the best peer: true k fraction {tk['margin']:+.3f} "
                f"(best {tk['best_peer']}), mean ARI {ar['margin']:+.3f} (best {ar['best_peer']})"
            )
    print("(* = true k found)")
    if any(d.k > reach for d in sets):
        print(
            f"(! = true k above kgroups_auto's k range 1 ... {ESTIMATOR_K_MAX} or the peers' 1 ... {k_max}; "
            "hdbscan has no range)"
        )


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small subset of each split (8 + 7 sets)")
    parser.add_argument("--out", default="bench_select_k.json", help="JSON output path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--k-max",
        type=int,
        default=10,
        help="the peers' k range 1 ... k_max (kgroups_auto always searches 1 ... 10, the estimator's range)",
    )
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all", help="which split to run")
    parser.add_argument(
        "--large", action="store_true", help="add make_blobs at n = 100 000 to the held-out split"
    )
    parser.add_argument("--methods", nargs="+", help="subset of the methods (default: all available)")
    parser.add_argument("--datasets", nargs="+", help="subset of the data sets (default: all)")
    args = parser.parse_args(argv)
    available = methods()
    names = args.methods or list(available)
    unknown = [m for m in names if m not in available]
    if unknown:
        parser.error(f"unknown or unavailable methods {unknown}; available: {list(available)}")
    sets = suite(quick=args.quick, seed=args.seed, split=args.split, large=args.large)
    if args.datasets:
        sets = [d for d in sets if d.name in args.datasets]
    if "kgroups_auto" not in available:
        print("KernelKGroups(kernel='auto') not available: peers only")
    records: list[dict[str, Any]] = []
    for d in sets:
        for m in names:
            r = run_one(available[m], d, args.k_max, args.seed)
            records.append(
                {"dataset": d.name, "family": d.family, "split": d.split, "method": m, "true_k": d.k, **r}
            )
        print(f"  {d.name}: " + ", ".join(f"{r['method']} k={r['k']}" for r in records[-len(names):]),
              file=sys.stderr, flush=True)  # fmt: skip
    summary = summarise(records, names)
    by_split = summarise_by_split(records, names)
    print_table(sets, records, names, summary, by_split, args.k_max)
    payload = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "kgroups_rs": kgroups_rs.__version__,
        "seed": args.seed,
        "k_max": args.k_max,
        "estimator_k_max": ESTIMATOR_K_MAX,
        "quick": args.quick,
        "split": args.split,
        "large": args.large,
        "datasets": [
            {
                "name": d.name,
                "family": d.family,
                "split": d.split,
                "n": int(d.X.shape[0]),
                "D": int(d.X.shape[1]),
                "true_k": d.k,
                "kind": d.kind,
                "note": d.note,
            }
            for d in sets
        ],  # fmt: skip
        "records": records,
        "summary": summary,
        "summary_by_split": by_split,
        "margin_by_split": {s: margins(table) for s, table in by_split.items()},
        "margin": margins(summary),
    }
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(payload, out, indent=1)
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
