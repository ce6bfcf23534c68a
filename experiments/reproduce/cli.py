"""The command line: ``python -m experiments.reproduce [--quick] [--only N] ...``."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Optional

from . import (
    exp1_table1,
    exp2_fig3a,
    exp3_fig3b,
    exp4_fig3e,
    exp5_table2,
    exp6_dermatology,
    exp7_real_data,
    exp8_fig3cd,
    exp9_conference_table1,
)
from .common import DEFAULT_DERMATOLOGY, DEFAULT_OUT, Config, Section
from .report import results_name, write_results

#: Every experiment: a module with ``run(cfg) -> Section`` and ``findings(section) -> list[str]``.
EXPERIMENTS: dict[int, ModuleType] = {
    1: exp1_table1,
    2: exp2_fig3a,
    3: exp3_fig3b,
    4: exp4_fig3e,
    5: exp5_table2,
    6: exp6_dermatology,
    7: exp7_real_data,
    8: exp8_fig3cd,
    9: exp9_conference_table1,
}


def load_average() -> Optional[float]:
    """The 1-minute load average of the machine (None where the system has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.reproduce",
        description="Reproduce the numerical experiments of the kernel k-groups papers with kgroups_rs.",
    )
    parser.add_argument("--quick", action="store_true", help="few trials and settings (a few minutes)")
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
        default=DEFAULT_OUT,
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
    load_before = load_average()
    start = time.perf_counter()
    with threadpool_limits(limits=1):
        for n in selected:
            t0, c0 = time.perf_counter(), time.process_time()
            print(f"experiment {n} ...", file=sys.stderr, flush=True)
            sec = EXPERIMENTS[n].run(cfg)
            sec.seconds, sec.cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
            sections[n] = sec
            print(f"experiment {n} done in {sec.seconds:.1f} s", file=sys.stderr, flush=True)
    total = time.perf_counter() - start
    load = (load_before, load_average())
    findings = [line for n in selected for line in EXPERIMENTS[n].findings(sections[n])]
    shown = list(argv) if argv is not None else sys.argv[1:]
    name = results_name(cfg, selected, sorted(EXPERIMENTS))
    path = write_results(cfg, sections, findings, name, total, shown, load)
    print(f"wrote {path} ({total:.0f} s)", file=sys.stderr)
    return sections
