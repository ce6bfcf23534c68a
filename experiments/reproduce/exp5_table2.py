"""Experiment 5 — TPAMI Table 2: parallel cigars (ρ̃_2) and two concentric circles (ρ̂_1),
800 points, kernel methods from random labels."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from kgroups_rs.datasets import make_concentric_circles, make_parallel_cigars

from .common import (
    ALL_METHODS,
    N_STARTS,
    RHO_HAT_1,
    RHO_TILDE_2,
    Config,
    FloatArray,
    IntArray,
    Section,
    Tally,
    fit_labels,
    md_table,
    sem_claim,
)
from .figures import figures_on, save_figure

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


def run(cfg: Config) -> Section:
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
                f"{s.mean:.3f} ± {s.sem:.3f}",
                s.fmt(),
                tally.stats((problem, method), "ari").fmt(),
            ]
            if paper:
                sec.claims.append(sem_claim("5 (Table 2)", f"{method}, {problem}", paper[0], paper[1], s))
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
    plt = figures_on(cfg)
    if plt is not None and examples:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
        for ax, (problem, (X, lab)) in zip(axes, examples.items()):
            ax.scatter(X[:, 0], X[:, 1], c=lab, s=4, cmap="coolwarm")
            ax.set_title(
                f"{problem}: kernel k-groups ({problems[problem][1].name}, random init)", fontsize=10
            )
            ax.set_aspect("equal", adjustable="datalim")
        sec.add(save_figure(cfg, fig, "fig4_table2_examples"), "")
    return sec


def findings(sec: Section) -> list[str]:
    """The Findings paragraph of RESULTS.md for this experiment."""
    out: list[str] = []
    tally5: Tally = sec.data["tally"]

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
    return out
