"""The sweep shared by experiments 2–4 (TPAMI Fig. 3a, 3b, 3e): every method, plus Hartigan and
Lloyd from one shared start, on the same data in each trial, over one parameter (D or m)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Callable

import kgroups_rs as kg
import numpy as np

from .common import (
    ALL_METHODS,
    RHO_1,
    Config,
    FloatArray,
    IntArray,
    Section,
    Stats,
    Tally,
    compare_w,
    fit_labels,
    md_table,
    share,
)

Maker = Callable[[int, np.random.Generator], tuple[FloatArray, IntArray]]


def run_sweep(
    cfg: Config, number: int, xs: Sequence[int], trials: int, make: Maker
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


def sweep_tables(
    sec: Section,
    tally: Tally,
    better: dict[int, list[int]],
    xs: Sequence[int],
    xname: str,
    trials: int,
    bayes: Sequence[float],
) -> None:
    """Accuracy and aRand against the swept parameter, and Hartigan vs Lloyd from one start."""
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
        v = better[x_value]
        rows.append([str(x_value), *(f"{share(v, sign):.0f} %" for sign in (1, 0, -1))])
    sec.add(
        "**Hartigan vs Lloyd from the same single start** (k-means++ in feature space, same seed; "
        "share of trials where Hartigan ends at a lower W / the same W / a higher W):",
        "",
        *md_table([xname, "Hartigan better", "equal", "Lloyd better"], rows),
    )


def superiority(
    sec: Section, tally: Tally, x_value: int, others: Sequence[str], label: str
) -> dict[str, Stats]:
    """Paired accuracy differences of kernel k-groups against ``others`` at one setting."""
    diffs = {m: tally.paired((x_value, "kernel k-groups"), (x_value, m)) for m in others}
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


def dimension_summary(sec: Section, fig: str) -> str:
    """The first part of the Findings paragraph of Fig. 3a and 3b (the largest D, Hartigan vs Lloyd)."""
    d = sec.data
    tally, better, xs = d["tally"], d["better"], d["xs"]
    x_hi, x_lo = xs[-1], xs[0]
    h, lloyd = tally.stats((x_hi, "Hartigan, 1 start")), tally.stats((x_hi, "Lloyd, 1 start"))
    sp = tally.paired((x_hi, "kernel k-groups"), (x_hi, "spectral"))
    kk = tally.paired((x_hi, "kernel k-groups"), (x_hi, "kernel k-means"))
    return (
        f"* **{fig}.** At D = {x_hi}: kernel k-groups {tally.stats((x_hi, 'kernel k-groups')).fmt()}, "
        f"spectral {tally.stats((x_hi, 'spectral')).fmt()} (paired Δ {sp.fmt()}), kernel k-means "
        f"{tally.stats((x_hi, 'kernel k-means')).fmt()} (Δ {kk.fmt()}), k-means "
        f"{tally.stats((x_hi, 'k-means')).fmt()}, GMM {tally.stats((x_hi, 'GMM')).fmt()}. From the same "
        f"single start, Hartigan ends at a lower W than Lloyd in {share(better[x_lo], 1):.0f} % of the "
        f"trials at D = {x_lo} and {share(better[x_hi], 1):.0f} % at D = {x_hi} (Lloyd lower: "
        f"{share(better[x_hi], -1):.0f} %), with accuracy {h.fmt()} vs {lloyd.fmt()} at D = {x_hi}"
    )
