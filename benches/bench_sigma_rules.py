"""Kernel k-groups' accuracy under the bandwidth rules, side by side in one run, on the labelled
suite of ``benches/bench_select_k.py`` with the TRUE k given: the gaussian semimetric with
``sigma="mean"`` (the default), ``"median"``, and ``"auto"`` (:func:`kgroups_rs.choose_sigma`:
the candidate whose kernel k-groups partition cuts the kNN graph least), plus the self-tuning
kernel (the locally scaled affinity of ``kernel="auto"``'s probe, partitioned
as a normalised cut from a spectral start) for reference. The table in the user guide
("Choosing the bandwidth") is its output.

    python benches/bench_sigma_rules.py [--quick] [--seed 0] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import kgroups_rs
import numpy as np
from scipy.spatial.distance import cdist
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_select_k import suite  # noqa: E402

N_INIT = 10
RULES = ("mean", "median", "auto", "self_tuning")


def self_tuning(X: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Zelnik-Manor & Perona's affinity (7th-neighbour scales), normalised cut."""
    D = cdist(X, X)
    scale = np.sort(D, axis=1)[:, min(7, len(X) - 1)]
    scale = np.maximum(scale, 1e-12)
    A = np.exp(-(D**2) / np.outer(scale, scale))
    np.fill_diagonal(A, 0.0)
    result = kgroups_rs.graph_partition(
        A, k, "spectral", objective="normalized_cut", n_init=N_INIT, random_state=seed
    )
    return np.asarray(result.labels)


def sigma_of(rule: str, X: np.ndarray, k: int) -> float:
    if rule in ("mean", "median"):
        return float(kgroups_rs.bandwidth(X, rule))  # type: ignore[arg-type]
    return kgroups_rs.choose_sigma(X, k).sigma


def run(quick: bool, seed: int) -> list[dict[str, Any]]:
    records = []
    for data in suite(quick=quick, seed=seed):
        if data.k < 2:
            continue  # the sets with no structure: every rule gives ARI 0 at k = 1
        row: dict[str, Any] = {"data": data.name, "n": len(data.X), "k": data.k}
        for rule in RULES:
            start = time.perf_counter()
            if rule == "self_tuning":
                labels = self_tuning(data.X, data.k, seed)
                sigma = float("nan")
            else:
                sigma = sigma_of(rule, data.X, data.k)
                labels = kgroups_rs.kernel_kgroups_from_data(
                    data.X, data.k, semimetric="gaussian", sigma=sigma, n_init=N_INIT, random_state=seed
                ).labels
            row[rule] = {"sigma": sigma, "ari": float(adjusted_rand_score(data.y, labels)),
                         "seconds": time.perf_counter() - start}
        records.append(row)
        print(data.name, " ".join(f"{r}={row[r]['ari']:.3f}" for r in RULES), flush=True)
    return records


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for rule in RULES:
        ari = np.array([r[rule]["ari"] for r in records])
        out[rule] = {"mean_ari": float(ari.mean())}
        for base in ("mean", "median"):
            other = np.array([r[base]["ari"] for r in records])
            out[rule][f"wins_vs_{base}"] = int((ari > other + 0.01).sum())
            out[rule][f"losses_vs_{base}"] = int((ari < other - 0.01).sum())
    return out


def print_table(records: list[dict[str, Any]], totals: dict[str, Any]) -> None:
    def cell(r: dict[str, Any], rule: str) -> str:
        v = r[rule]
        return f"{v['ari']:.2f}" if rule == "self_tuning" else f"{v['ari']:.2f} ({v['sigma']:.3g})"

    print("| data | k | " + " | ".join(RULES) + " |")
    print("|---|---|" + "---|" * len(RULES))
    for r in records:
        print(f"| {r['data']} | {r['k']} | " + " | ".join(cell(r, rule) for rule in RULES) + " |")
    print("| **mean ARI** | | " + " | ".join(f"**{totals[rule]['mean_ari']:.3f}**" for rule in RULES) + " |")
    print("| wins/losses vs mean | | " + " | ".join(
        f"{totals[rule]['wins_vs_mean']}/{totals[rule]['losses_vs_mean']}" for rule in RULES) + " |")
    print("| wins/losses vs median | | " + " | ".join(
        f"{totals[rule]['wins_vs_median']}/{totals[rule]['losses_vs_median']}" for rule in RULES) + " |")


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="the 8 small sets of bench_select_k --quick")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="write the records and summary here")
    args = parser.parse_args(argv)
    records = run(args.quick, args.seed)
    totals = summary(records)
    print_table(records, totals)
    if args.json is not None:
        args.json.write_text(json.dumps({"seed": args.seed, "records": records, "summary": totals}, indent=1))


if __name__ == "__main__":
    main()
