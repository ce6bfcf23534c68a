"""Experiment 6 — TPAMI Tables 3–4: the dermatology data (k = 6, ρ_{1/2}): Table 4, Table 3 at
the best objective, how many starts reach it, the kernel k-means diagnostics (the paper's
Algorithm 1 as printed, tslearn's rule) and the rows with a missing age."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Callable

import kgroups_rs as kg
import numpy as np
from kgroups_rs.datasets import standardize

from .common import (
    ALL_METHODS,
    N_STARTS,
    RHO_HALF,
    SAME_OPTIMUM_RTOL,
    Claim,
    Config,
    FloatArray,
    IntArray,
    Section,
    Tally,
    fit_labels,
    md_table,
    mean_claim,
    objective_q,
)
from .figures import figures_on, save_figure
from .reference import feature_kmeanspp_labels, online_lloyd_numpy, tslearn_rule

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


def run(cfg: Config) -> Section:
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
                q = objective_q(G, lab)
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
            variants[name].append(max(labs, key=lambda lab: objective_q(G, lab)))
    rows = []
    diag_tally = Tally()
    for name, labs in variants.items():
        for lab in labs:
            diag_tally.add(name, y, lab)
        qs = [objective_q(G, lab) for lab in labs]
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

    plt = figures_on(cfg)
    if plt is not None:
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


def findings(sec: Section) -> list[str]:
    """The Findings paragraphs of RESULTS.md for this experiment (none when the data are missing)."""
    out: list[str] = []
    d = sec.data
    if "best" not in d:
        return out
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
