"""Data without structure: how often kgroups_rs's model selection answers one group.

Every set here is one distribution without clusters (true k = 1), so the only right answer is
k = 1; the benchmark reports the fraction of sets where the method found it, overall and per
family, dimension D and size n, the k it found otherwise, and the time. The goal line: k = 1 on
>= 95 % of the sets.

The method is the call that ``bench_select_k.py`` judges as ``kgroups_auto``::

    KernelKGroups(n_clusters="auto", kernel="auto", random_state=seed, n_threads=threads).fit(X)

(``select_k(X, range(1, 11), kernel="auto", random_state=seed)`` underneath; the result does not
depend on ``n_threads``). ``--energy`` adds ``select_k(X, kernel="energy", random_state=seed)``,
the energy kernel's gap alone, as a second row.

The design (:func:`design`, 208 sets, deterministic for ``--seed``): four families,

- ``uniform_isotropic``: uniform on the unit cube [0, 1]^D;
- ``uniform_axes_1_10``: uniform on an axis-aligned box with sides log-spaced from 1 to 10;
- ``gaussian_isotropic``: one standard Gaussian N(0, I_D);
- ``gaussian_cond_100``: one Gaussian N(0, Q diag(lambda) Q^T), Q a random rotation, lambda
  log-spaced from 1 to c with the condition number c log-uniform in [10, 100];

(the two anisotropic families only for D >= 2: in one dimension they are the isotropic ones
rescaled) for D = 1, 2, 3, 5, 10, 20, 50 and n = 100, 300, 1 000 (two sets each), 3 000 and
10 000 (one set each): 26 (family, D) pairs x 8 sets. ``--quick``: 30 sets, one each for
D = 1, 3, 10 and n = 100, 300, 1 000. The data of a set is drawn from a generator seeded by
(``--seed``, family, D, n, replicate), so a set does not change when the design around it does.

Every method runs single-threaded unless ``--threads`` says otherwise (``OMP_NUM_THREADS=1`` is
set before numpy loads unless the caller set it). The whole design takes about 15 minutes on
two cores. Usage::

    python benches/bench_select_null.py [--quick] [--out bench_select_null.json] [--seed 0]
        [--energy] [--threads 1] [--max-n 10000]
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
from collections import Counter  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable, Optional  # noqa: E402

import kgroups_rs  # noqa: E402
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

BENCHES = Path(__file__).resolve().parent
if str(BENCHES) not in sys.path:  # the judged call lives in bench_select_k
    sys.path.insert(0, str(BENCHES))

from bench_select_k import kgroups_auto  # noqa: E402

FloatArray = npt.NDArray[np.float64]

FAMILIES = ("uniform_isotropic", "uniform_axes_1_10", "gaussian_isotropic", "gaussian_cond_100")
ISOTROPIC = ("uniform_isotropic", "gaussian_isotropic")
DIMS = (1, 2, 3, 5, 10, 20, 50)
#: Sets per (family, D) at each n.
REPLICATES = {100: 2, 300: 2, 1_000: 2, 3_000: 1, 10_000: 1}
QUICK_DIMS = (1, 3, 10)
QUICK_NS = (100, 300, 1_000)
GOAL = 0.95


@dataclass(frozen=True)
class NullSet:
    """One structureless data set of the design (drawn by :meth:`data`)."""

    family: str
    dim: int
    n: int
    replicate: int

    @property
    def name(self) -> str:
        return f"{self.family}_d{self.dim}_n{self.n}_r{self.replicate}"

    def data(self, seed: int) -> FloatArray:
        rng = np.random.default_rng([seed, FAMILIES.index(self.family), self.dim, self.n, self.replicate])
        n, dim = self.n, self.dim
        if self.family == "uniform_isotropic":
            return rng.uniform(size=(n, dim))
        if self.family == "uniform_axes_1_10":
            return rng.uniform(size=(n, dim)) * np.geomspace(1.0, 10.0, dim)
        if self.family == "gaussian_isotropic":
            return rng.normal(size=(n, dim))
        if self.family == "gaussian_cond_100":
            condition = 10.0 ** rng.uniform(1.0, 2.0)
            q, r = np.linalg.qr(rng.normal(size=(dim, dim)))
            rotation = q * np.sign(np.diag(r))
            return np.asarray(
                (rng.normal(size=(n, dim)) * np.sqrt(np.geomspace(1.0, condition, dim))) @ rotation.T
            )
        raise ValueError(f"unknown family {self.family!r}")


def design(quick: bool = False) -> list[NullSet]:
    """The sets of the benchmark, in order of n (the small ones first)."""
    sets = []
    for n, replicates in REPLICATES.items():
        if quick and n not in QUICK_NS:
            continue
        for dim in QUICK_DIMS if quick else DIMS:
            for family in FAMILIES:
                if dim == 1 and family not in ISOTROPIC:
                    continue
                for replicate in range(1 if quick else replicates):
                    sets.append(NullSet(family, dim, n, replicate))
    return sets


# ============================================================================ the methods


def estimator_auto(X: FloatArray, seed: int, threads: Optional[int]) -> dict[str, Any]:
    found = kgroups_auto(X, 10, seed, threads)
    info = found.info or {}
    return {"k": found.k, "rule": info.get("rule"), "kernel": info.get("kernel")}


def select_energy(X: FloatArray, seed: int, threads: Optional[int]) -> dict[str, Any]:
    result = kgroups_rs.select_k(X, kernel="energy", random_state=seed, n_threads=threads)
    return {"k": int(result.k), "rule": result.rule, "kernel": result.kernel}


METHODS: dict[str, Callable[[FloatArray, int, Optional[int]], dict[str, Any]]] = {
    "kgroups_auto": estimator_auto,
    "select_k_energy": select_energy,
}


# ============================================================================ reporting


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % by default) of a binomial proportion."""
    if total == 0:
        return (math.nan, math.nan)
    p = successes / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _fraction(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ones = sum(r["k"] == 1 for r in rows)
    return {"k1_fraction": ones / len(rows) if rows else math.nan, "k1": ones, "n_sets": len(rows)}


def summarise(records: list[dict[str, Any]], method: str) -> dict[str, Any]:
    """The k = 1 fraction of ``method`` overall (with its Wilson interval) and per family, D
    and n; the k found otherwise and the sets where it was; the time."""
    rows = [r for r in records if r["method"] == method]
    out = _fraction(rows)
    out["wilson95"] = list(wilson(out["k1"], out["n_sets"]))
    for key, field in (("by_family", "family"), ("by_D", "D"), ("by_n", "n")):
        groups = sorted({r[field] for r in rows}, key=lambda v: (str(type(v)), v))
        out[key] = {str(g): _fraction([r for r in rows if r[field] == g]) for g in groups}
    wrong = [r for r in rows if r["k"] != 1]
    out["k_otherwise"] = {str(k): c for k, c in sorted(Counter(r["k"] for r in wrong).items())}
    out["rules_otherwise"] = dict(Counter(str(r["rule"]) for r in wrong))
    out["sets_otherwise"] = [f"{r['dataset']} (k = {r['k']}, {r['rule']})" for r in wrong]
    out["total_seconds"] = float(sum(r["seconds"] for r in rows))
    out["mean_seconds_by_n"] = {
        str(n): float(np.mean([r["seconds"] for r in rows if r["n"] == n]))
        for n in sorted({r["n"] for r in rows})
    }
    out["goal_met"] = bool(rows) and out["k1_fraction"] >= GOAL
    return out


def print_summary(method: str, s: dict[str, Any]) -> None:
    low, high = s["wilson95"]
    print(
        f"\n{method}: k = 1 on {s['k1']} / {s['n_sets']} sets = {s['k1_fraction']:.1%} "
        f"(95 % CI {low:.1%} ... {high:.1%})"
    )
    for key, title in (("by_family", "family"), ("by_D", "D"), ("by_n", "n")):
        cells = ", ".join(f"{g}: {v['k1']}/{v['n_sets']}" for g, v in s[key].items())
        print(f"  by {title:<6} {cells}")
    if s["sets_otherwise"]:
        ks = ", ".join(f"k = {k}: {c}" for k, c in s["k_otherwise"].items())
        print(f"  k found otherwise: {ks}; by rule: {s['rules_otherwise']}")
        for line in s["sets_otherwise"]:
            print(f"    {line}")
    times = ", ".join(f"n = {n}: {t:.2f} s" for n, t in s["mean_seconds_by_n"].items())
    print(f"  time: {s['total_seconds']:.0f} s in all; mean per set {times}")
    verdict = "met" if s["goal_met"] else "MISSED"
    print(f"  goal: k = 1 on >= {GOAL:.0%} of sets: {verdict} ({s['k1_fraction']:.1%})")


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="30 sets (D = 1, 3, 10; n = 100, 300, 1 000)")
    parser.add_argument("--out", default="bench_select_null.json", help="JSON output path")
    parser.add_argument("--seed", type=int, default=0, help="seeds the data and the method's random_state")
    parser.add_argument("--energy", action="store_true", help="also select_k(X, kernel='energy')")
    parser.add_argument("--threads", type=int, default=1, help="n_threads of the method (default 1)")
    parser.add_argument("--max-n", type=int, default=None, help="leave out the sets larger than this")
    args = parser.parse_args(argv)
    names = ["kgroups_auto"] + (["select_k_energy"] if args.energy else [])
    sets = [d for d in design(args.quick) if args.max_n is None or d.n <= args.max_n]
    print(f"{len(sets)} structureless sets, methods {names}, seed {args.seed}", file=sys.stderr, flush=True)
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    for i, d in enumerate(sets):
        X = d.data(args.seed)
        for m in names:
            start = time.perf_counter()
            found = METHODS[m](X, args.seed, args.threads)
            seconds = time.perf_counter() - start
            records.append(
                {"dataset": d.name, "family": d.family, "D": d.dim, "n": d.n, "replicate": d.replicate,
                 "method": m, **found, "seconds": seconds}
            )  # fmt: skip
        found_ks = ", ".join(f"{r['method']} k={r['k']}" for r in records[-len(names) :])
        print(f"  [{i + 1}/{len(sets)}] {d.name}: {found_ks} ({time.perf_counter() - started:.0f} s)",
              file=sys.stderr, flush=True)  # fmt: skip
    summary = {m: summarise(records, m) for m in names}
    for m in names:
        print_summary(m, summary[m])
    payload = {
        "benchmark": "select_k on data without structure",
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "kgroups_rs": kgroups_rs.__version__,
        "seed": args.seed,
        "quick": args.quick,
        "threads": args.threads,
        "max_n": args.max_n,
        "goal_k1_fraction": GOAL,
        "n_sets": len(sets),
        "records": records,
        "summary": summary,
    }
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(payload, out, indent=1)
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
