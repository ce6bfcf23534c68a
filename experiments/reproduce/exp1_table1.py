"""Experiment 1 — TPAMI Table 1 / Fig. 1: one-dimensional normal and lognormal mixtures,
n = 100 … 2 000; kernel k-groups against the exact 1-D solver, k-means and GMM; seeding."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import kgroups_rs as kg
import numpy as np
from kgroups_rs.datasets import make_lognormal_mixture

from .common import (
    N_STARTS,
    RHO_1,
    Claim,
    Config,
    FloatArray,
    IntArray,
    Section,
    Tally,
    compare_w,
    fit_labels,
    in_ci,
    in_range,
    md_table,
    mean_claim,
)
from .figures import errorbar_curve, figures_on, save_figure
from .reference import raw_kmeanspp_labels

TABLE1 = {
    ("normal", "k-means"): 0.778,
    ("lognormal", "k-means"): 0.520,
    ("normal", "GMM"): 0.887,
    ("lognormal", "GMM"): 0.542,
    ("normal", "kernel k-groups"): 0.807,
    ("lognormal", "kernel k-groups"): 0.846,
}


def run(cfg: Config) -> Section:
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
    plt = figures_on(cfg)
    if plt is not None and example:
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


def findings(sec: Section) -> list[str]:
    """The Findings paragraphs of RESULTS.md for this experiment."""
    out: list[str] = []
    d = sec.data
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
    return out
