"""Experiment 9 — the conference paper's Table 1 ("Clustering via Generalized Energy Statistics",
Fig. 4a–c): parallel cigars (200 points each), two concentric circles and three concentric
circles (400 points each), kernel k-groups (the paper's E^H-clustering) with four semimetrics,
spectral clustering with the best one, k-means and GMM; 10 trials in the paper.

The paper gives the cigars and circles only in words and pictures. The cigars are TPAMI's Fig. 4a
(N((0,0), diag(1,20)) and N((6.5,0), diag(1,20))); the circles have noise 0.2·N(0, I₂) and radii
1, 3 (TPAMI Fig. 4b) and 1, 3, 5 for three circles (the authors' experiment script,
``cigars_circles`` in their public code, uses these radii and noise). The paper initialises every
algorithm with k-means++ on the cigars and at random on the circles.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .common import (
    N_STARTS,
    RHO_1,
    RHO_HALF,
    RHO_HAT_1,
    RHO_HAT_2,
    RHO_TILDE_1,
    RHO_TILDE_2,
    SAME_OPTIMUM_RTOL,
    Claim,
    Config,
    FloatArray,
    IntArray,
    Kernel,
    Section,
    Tally,
    fit_labels,
    md_table,
    sem_claim,
    within_w,
)
from .figures import figures_on, save_figure
from .synthetic import make_cigars_balanced, make_rings


@dataclass(frozen=True)
class Problem:
    """One column of the paper's Table 1."""

    label: str
    description: str
    make: Callable[[np.random.Generator], tuple[FloatArray, IntArray]]
    k: int
    init: str
    kernels: tuple[Kernel, ...]
    spectral: Kernel
    #: The paper's numbers: mean and SEM per row (kernel name, "spectral", "k-means", "GMM").
    paper: dict[str, tuple[float, float]]


PROBLEMS = (
    Problem(
        "4a",
        "parallel cigars, 200 points each",
        lambda rng: make_cigars_balanced(200, rng),
        2,
        "k-means++",
        (RHO_1, RHO_HALF, RHO_TILDE_2, RHO_HAT_2),
        RHO_TILDE_2,
        {
            "ρ_1": (0.705, 0.065),
            "ρ_{1/2}": (0.952, 0.048),
            "ρ̃_2": (0.9987, 0.0008),
            "ρ̂_2": (0.956, 0.020),
            "spectral": (0.557, 0.014),
            "k-means": (0.550, 0.011),
            "GMM": (0.903, 0.064),
        },
    ),
    Problem(
        "4b",
        "two concentric circles (radii 1, 3), 400 points each",
        lambda rng: make_rings((1.0, 3.0), 400, rng),
        2,
        "random",
        (RHO_1, RHO_HALF, RHO_TILDE_1, RHO_HAT_1),
        RHO_HAT_1,
        {
            "ρ_1": (0.521, 0.005),
            "ρ_{1/2}": (0.522, 0.004),
            "ρ̃_1": (0.778, 0.075),
            "ρ̂_1": (1.0, 0.0),
            "spectral": (0.732, 0.002),
            "k-means": (0.522, 0.004),
            "GMM": (0.595, 0.011),
        },
    ),
    Problem(
        "4c",
        "three concentric circles (radii 1, 3, 5), 400 points each",
        lambda rng: make_rings((1.0, 3.0, 5.0), 400, rng),
        3,
        "random",
        (RHO_1, RHO_HALF, RHO_TILDE_2, RHO_HAT_2),
        RHO_HAT_2,
        {
            "ρ_1": (0.393, 0.020),
            "ρ_{1/2}": (0.486, 0.040),
            "ρ̃_2": (0.666, 0.007),
            "ρ̂_2": (0.676, 0.002),
            "spectral": (0.364, 0.004),
            "k-means": (0.368, 0.005),
            "GMM": (0.465, 0.030),
        },
    ),
)


def rows_of(problem: Problem) -> list[tuple[str, str]]:
    """(row label, tally key) of the paper's rows, in its order."""
    rows = [(f"E^H {kern.name}", f"kernel k-groups {kern.name}") for kern in problem.kernels]
    return rows + [(f"spectral {problem.spectral.name}", "spectral"), ("k-means", "k-means"), ("GMM", "GMM")]


def paper_key(problem: Problem, key: str) -> str:
    return key.removeprefix("kernel k-groups ")


def run(cfg: Config) -> Section:
    """The conference paper's Table 1: every row of every column, trial by trial on the same data."""
    sec = Section(9, "Conference paper, Table 1 — parallel cigars, two and three concentric circles")
    trials = cfg.pick(30, 4)
    tally = Tally()
    # Per (data set, kernel): did the partition found have a W no larger than the true classes'?
    prefers_found: dict[tuple[str, str], list[bool]] = defaultdict(list)
    examples: dict[str, tuple[FloatArray, IntArray, float]] = {}
    for pi, problem in enumerate(PROBLEMS):
        init = problem.init
        peer_init = {"kmeans_init": "random", "gmm_init": "random"} if init == "random" else {}
        for t in range(trials):
            seed = cfg.seed_for(9, pi, t)
            X, y = problem.make(np.random.default_rng(seed))
            for kern in problem.kernels:
                G = kern.gram(X, cfg)
                labels = fit_labels("kernel k-groups", X, G, problem.k, seed, cfg, kernel_init=init)
                acc, _ = tally.add((problem.label, f"kernel k-groups {kern.name}"), y, labels)
                w_found, w_true = within_w(G, labels), within_w(G, y)
                prefers_found[(problem.label, kern.name)].append(w_found <= w_true * (1 + SAME_OPTIMUM_RTOL))
                if kern == problem.spectral:
                    tally.add(
                        (problem.label, "spectral"), y, fit_labels("spectral", X, G, problem.k, seed, cfg)
                    )
                    if t == 0:
                        examples[problem.label] = (X, labels, acc)
            for method in ("k-means", "GMM"):
                tally.add(
                    (problem.label, method), y, fit_labels(method, X, None, problem.k, seed, cfg, **peer_init)
                )

    heads = ["method"]
    for problem in PROBLEMS:
        heads += [
            f"paper {problem.label} (± SEM)",
            f"ours {problem.label} (± SEM)",
            f"ours {problem.label} ± 95 % CI",
        ]
    rows: list[list[Any]] = []
    for i in range(len(rows_of(PROBLEMS[0]))):
        row: list[Any] = [" / ".join(dict.fromkeys(rows_of(p)[i][0] for p in PROBLEMS))]
        for problem in PROBLEMS:
            label, key = rows_of(problem)[i]
            s = tally.stats((problem.label, key))
            mean, sem = problem.paper[paper_key(problem, key)]
            digits = 4 if sem and sem < 1e-3 else 3
            row += [f"{mean:.{digits}f} ± {sem:.{digits}f}", f"{s.mean:.3f} ± {s.sem:.3f}", s.fmt()]
            sec.claims.append(
                sem_claim("9 (conf. Table 1)", f"{label}, Fig. {problem.label}", mean, sem, s, digits)
            )
        rows.append(row)
    sec.add(
        f"{trials} trials per data set (the paper: 10), {N_STARTS} starts per method, best objective. "
        "4a: N((0,0), diag(1,20)) and N((6.5,0), diag(1,20)), exactly 200 points each, k-means++ for "
        "every method (kernel methods in feature space). 4b: circles of radii 1 and 3, 4c: radii 1, 3 "
        "and 5, noise 0.2·N(0, I₂), exactly 400 points each; every method initialised at random "
        '(kernel k-groups from uniform random labels, `KMeans(init="random")`, '
        '`GaussianMixture(init_params="random")`). Kernel k-groups (E^H) with the four semimetrics the '
        "paper lists for each data set (σ as printed), spectral clustering on the paper's kernel "
        "(negative entries of ρ̂ clipped to 0). The radii 1, 3, 5 of 4c come from the authors' script; "
        "the paper does not print them.",
        "",
        "**Table 1** (accuracy; the paper's ± is the standard error of its 10 trials):",
        "",
        *md_table(heads, rows),
    )
    rows = []
    for i in range(len(rows_of(PROBLEMS[0]))):
        row = [" / ".join(dict.fromkeys(rows_of(p)[i][0] for p in PROBLEMS))]
        row += [tally.stats((p.label, rows_of(p)[i][1]), "ari").fmt() for p in PROBLEMS]
        rows.append(row)
    sec.add("**Adjusted Rand index** (not in the paper):", "", *md_table(["method", "4a", "4b", "4c"], rows))
    rows = []
    for i in range(len(PROBLEMS[0].kernels)):
        row = [" / ".join(dict.fromkeys(p.kernels[i].name for p in PROBLEMS))]
        for p in PROBLEMS:
            share_found = 100.0 * float(np.mean(prefers_found[(p.label, p.kernels[i].name)]))
            row += [
                f"{share_found:.0f} %",
                f"{tally.stats((p.label, f'kernel k-groups {p.kernels[i].name}')).mean:.3f}",
            ]
        rows.append(row)
    sec.add(
        "**Search or objective?** Share of trials in which the partition kernel k-groups found has a "
        "within-cluster dispersion W no larger than that of the true classes (W from "
        "`kgroups_rs.within_dispersion` on the same kernel), beside the accuracy. Near 100 % with a low "
        "accuracy means the energy objective of that kernel prefers a wrong partition (the kernel, not "
        "the search, fails); near 0 % means a better partition — the truth — was missed.",
        "",
        *md_table(
            ["kernel", *(h for p in PROBLEMS for h in (f"{p.label}: W ≤ W(truth)", f"{p.label}: accuracy"))],
            rows,
        ),
    )

    # --- "E^H has superior performance in every example, in particular better than spectral"
    best: dict[str, str] = {}
    verdict_rows = []
    beaten: list[str] = []
    for problem in PROBLEMS:
        keys = [f"kernel k-groups {kern.name}" for kern in problem.kernels]
        top = max(keys, key=lambda key: tally.stats((problem.label, key)).mean)
        best[problem.label] = top
        for rival in ("spectral", "k-means", "GMM"):
            d = tally.paired((problem.label, top), (problem.label, rival))
            verdict_rows.append([problem.label, top.removeprefix("kernel k-groups "), rival, d.fmt()])
            if d.lo <= 0:
                beaten.append(f"{rival} on {problem.label} (Δ {d.fmt()})")
    sec.add(
        "**Best kernel k-groups metric against the other methods** (paired accuracy difference on the "
        "same data):",
        "",
        *md_table(["data", "E^H metric", "method", "E^H − method"], verdict_rows),
    )
    sec.claims.append(
        Claim(
            "9 (conf. §5)",
            "E^H (best metric) better than spectral, k-means and GMM in every example",
            "stated",
            "; ".join(f"{p}: {k.removeprefix('kernel k-groups ')}" for p, k in best.items()),
            "paired Δ accuracy",
            "reproduced" if not beaten else "**partly**: not significantly better than " + ", ".join(beaten),
        )
    )
    sec.data.update(
        tally=tally,
        trials=trials,
        best=best,
        prefers_found={key: float(np.mean(v)) for key, v in prefers_found.items()},
        prefers_found_trials={key: np.asarray(v) for key, v in prefers_found.items()},
    )
    plt = figures_on(cfg)
    if plt is not None and examples:
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
        for ax, problem in zip(axes, PROBLEMS):
            X, labels, acc = examples[problem.label]
            ax.scatter(X[:, 0], X[:, 1], c=labels, s=4, cmap="viridis")
            ax.set_title(
                f"{problem.label}: kernel k-groups {problem.spectral.name}, {problem.init} init "
                f"(acc {acc:.3f})",
                fontsize=10,
            )
            ax.set_aspect("equal", adjustable="datalim")
        sec.add(save_figure(cfg, fig, "fig4_conference_table1"), "")
    return sec


def findings(sec: Section) -> list[str]:
    """The Findings paragraph of RESULTS.md for this experiment."""
    tally: Tally = sec.data["tally"]
    found = sec.data["prefers_found"]
    cells = [c for c in sec.claims if c.experiment == "9 (conf. Table 1)"]
    failed = [c for c in cells if not c.verdict.startswith("reproduced")]
    text = (
        f"* **Conference paper, Table 1.** {len(cells) - len(failed)} of {len(cells)} cells reproduce "
        f"(our {sec.data['trials']} trials against the paper's 10, judged with both standard errors)"
    )
    if failed:
        text += "; not reproduced: " + ", ".join(
            f"{c.quantity} (paper {c.paper.split(' ±')[0]}, ours {c.ours.split(' ±')[0]})" for c in failed
        )
        if all(c.quantity.startswith("spectral") for c in failed):
            text += (
                " — only spectral clustering, as in TPAMI Table 2 (experiment 5): its result depends on the "
                "eigen-solver, the k-means run in the embedding and how the energy kernel is turned into an "
                "affinity (we clip negative entries), none of which the paper pins down, and scikit-learn "
                "changed since"
            )
            ranking = next(c for c in sec.claims if c.experiment == "9 (conf. §5)")
            if ranking.verdict == "reproduced":
                text += (
                    "; it stays significantly below the best kernel k-groups metric on every data set, so "
                    "the paper's ranking holds"
                )
    rho1 = tally.stats(("4a", "kernel k-groups ρ_1")).values
    low = rho1 <= 0.9
    text += (
        ". Kernel k-groups with ρ_1 on the cigars is bimodal: "
        f"{100 * float(np.mean(~low)):.0f} % of our trials separate the cigars (accuracy > 0.9), the "
        f"others score {float(rho1[low].mean()) if low.any() else float('nan'):.2f} on average (a cut "
        "across them)"
    )
    if low.any():
        cut_preferred = float(np.mean(sec.data["prefers_found_trials"][("4a", "ρ_1")][low]))
        text += f", and in {100 * cut_preferred:.0f} % of those the cut has the lower W" + (
            ": whether the energy of ρ_1 prefers the cigars or the cut depends on the sample"
            if cut_preferred >= 0.9
            else " (in the others the search missed the cigars)"
        )
    text += ", so its mean (paper 0.705 ± 0.065) swings with the draws. "
    hat, tilde = found[("4c", "ρ̂_2")], found[("4c", "ρ̃_2")]
    acc_hat = tally.stats(("4c", "kernel k-groups ρ̂_2")).mean
    shares = (
        f"the partition kernel k-groups finds has a within-cluster dispersion W no larger than the true "
        f"classes' in {100 * hat:.0f} % of the trials with ρ̂_2 and {100 * tilde:.0f} % with ρ̃_2"
    )
    if min(hat, tilde) >= 0.9:
        text += (
            f"On three circles the kernel, not the search, limits kernel k-groups: {shares} (accuracy "
            f"{acc_hat:.3f} with ρ̂_2, paper 0.676; in the figure's example the inner circle is found and the "
            "two outer rings are cut into halves), so no better search would recover the rings with "
            "σ = 2 — the paper's remark that the kernel choice is more sensitive on the circles."
        )
    else:
        text += f"On three circles {shares}: part of the loss is the search, part the kernel."
    return [text]
