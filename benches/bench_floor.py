"""The floor rows: each library call beside its numpy floor, this build beside another, in one run.

Each row is one library call on deterministic inputs (seeded numpy generators, so both builds
see the same data). ``--baseline-python PY`` names the interpreter of the other build (for
example the previous release installed in another virtual environment): for every row, one
worker process per build prepares the inputs once, then the two workers time the call in
turn, ``--repeat`` times (the order flips every repetition), so that before and after are
measured side by side under the same machine load. ``--baseline-commit REV`` builds a commit
of this repository instead (``git archive`` of REV, ``maturin build --release`` as its own
``pyproject.toml`` says, the wheel unpacked with ``pip install --target`` into
``~/.cache/kgroups_rs/baselines/<sha>/``, outside the repository's cargo workspace, kept for
the next run) and times it with this interpreter, the build on ``PYTHONPATH``. Without
either only this build is timed. The floor rows (numpy passes over the same arrays) are timed
in this build's worker.

Rows (``--rows``, default all but ``matrix_free``, which takes about 20 s a call, and
``dense_n16384_k5``, which needs 2 GiB per worker):

- ``gram_d100``: ``energy_gram(X)``, n = 10 000, D = 100, float64, ρ = ‖x − y‖;
- ``gram_d10``: the same with D = 10;
- ``gram_exponential`` / ``gram_gaussian``: D = 10 with ρ = 2 − 2 exp(−‖x−y‖/(2σ)) and
  2 − 2 exp(−‖x−y‖²/(2σ²)), σ = 1;
- ``dense_default``: ``kernel_kgroups(G, 2)`` with the default symmetry check, G the energy
  Gram matrix of the paper's eq. 56 data (two Gaussians in D = 10, the second shifted by 0.7
  in every coordinate), one k-means++ start, ``random_state=0``; beside it two floors: ``numpy
  G.sum()``, one pass over G on one core (the floor), and the same pass split over
  every core (numpy's sums of row blocks in threads: where one core cannot draw all of the
  memory bandwidth, one core's pass flatters the library's parallel passes); the ``gram_*``
  rows are timed beside ``numpy ones((n, n))``, the first touch and one write of the output;
- ``sparse_sbm``: ``graph_partition(A, 10)`` (ratio association, Hartigan from random labels),
  A a stochastic block model with n = 10⁶ nodes in random order, average degree 20
  (``benches/bench_sparse.py``'s generator);
- ``one_d``: ``kgroups_1d(x, 5)``, n = 2·10⁶ standard normal values;
- ``matrix_free``: ``kernel_kgroups_from_data(X, 2)``, eq. 56 data, n = 100 000;
- ``dense_n16384_k5``: ``kernel_kgroups(G, 5)`` as ``dense_default`` with n = 16 384 (a 2 GiB
  G; the dense move paths change with n, see ``benches/PERFORMANCE.md``).

Every call's result is checked against the other build's: labels must agree (the same
partition up to the cluster numbering) or, where the builds may visit points in another order,
the objective is printed for both.

Usage::

    python benches/bench_floor.py [--baseline-python PY | --baseline-commit REV]
        [--rows ROW ...] [--repeat 3] [--json bench_floor.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

#: The worker: prepares one row's inputs, then times the call once per line read.
WORKER = r"""
import json, os, sys, time
import numpy as np
import kgroups_rs

row = sys.argv[1]
benches = sys.argv[2]

def eq56(n):
    rng = np.random.default_rng(0)
    truth = np.repeat([0, 1], [n - n // 2, n // 2])
    return rng.normal(size=(n, 10)) + 0.7 * truth[:, None]

def normal(n, d):
    return np.random.default_rng(0).normal(size=(n, d))

floor = None
floor_all_cores = None
if row == "gram_d100":
    X = normal(10_000, 100)
    call = lambda: kgroups_rs.energy_gram(X)
elif row == "gram_d10":
    X = normal(10_000, 10)
    call = lambda: kgroups_rs.energy_gram(X)
elif row in ("gram_exponential", "gram_gaussian"):
    X = normal(10_000, 10)
    kind = row.split("_")[1]
    call = lambda: kgroups_rs.energy_gram(X, semimetric=kind, sigma=1.0)
elif row == "dense_default":
    G = kgroups_rs.energy_gram(eq56(10_000))
    call = lambda: kgroups_rs.kernel_kgroups(G, 2, random_state=0)
    floor = lambda: G.sum()
    from concurrent.futures import ThreadPoolExecutor
    cores = os.cpu_count() or 1
    pool = ThreadPoolExecutor(cores)
    blocks = [G[i * len(G) // cores:(i + 1) * len(G) // cores] for i in range(cores)]
    floor_all_cores = lambda: sum(pool.map(np.sum, blocks))
elif row == "dense_n16384_k5":
    G = kgroups_rs.energy_gram(eq56(16_384))
    call = lambda: kgroups_rs.kernel_kgroups(G, 5, random_state=0)
elif row == "sparse_sbm":
    import scipy.sparse
    sys.path.insert(0, benches)
    from bench_sparse import stochastic_block_model
    n = 1_000_000
    indptr, indices, _ = stochastic_block_model(n, 10, 20.0, 0.8, 0)
    A = scipy.sparse.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    call = lambda: kgroups_rs.graph_partition(A, 10, random_state=0)
elif row == "one_d":
    x = np.random.default_rng(0).normal(size=2_000_000)
    call = lambda: kgroups_rs.kgroups_1d(x, 5)
elif row == "matrix_free":
    X = eq56(100_000)
    call = lambda: kgroups_rs.kernel_kgroups_from_data(X, 2, random_state=0)
else:
    raise SystemExit(f"unknown row {row}")
if row.startswith("gram_"):
    # The first touch and one write of the n x n output (numpy backs it with huge pages, as
    # it does the Gram matrix the library returns).
    floor = lambda: np.ones((10_000, 10_000))

def summary(result):
    labels = getattr(result, "labels", None)
    if labels is None:
        return None
    return {"labels": np.asarray(labels).tolist(), "objective": float(result.objective)}

print("ready", flush=True)
for line in sys.stdin:
    which = line.strip()
    if which in ("floor", "floor_all_cores"):
        start = time.perf_counter()
        (floor if which == "floor" else floor_all_cores)()
        print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)
        continue
    start = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - start
    out = {"seconds": seconds}
    if which == "last":
        out["summary"] = summary(result)
    print(json.dumps(out), flush=True)
"""

ROWS = ["gram_d100", "gram_d10", "gram_exponential", "gram_gaussian", "dense_default",
        "sparse_sbm", "one_d", "matrix_free", "dense_n16384_k5"]
DEFAULT_ROWS = [row for row in ROWS if row not in ("matrix_free", "dense_n16384_k5")]
#: The rows timed beside a numpy floor, and what that floor is.
FLOORS = {
    "gram_d100": "numpy ones(n, n)",
    "gram_d10": "numpy ones(n, n)",
    "gram_exponential": "numpy ones(n, n)",
    "gram_gaussian": "numpy ones(n, n)",
    "dense_default": "numpy G.sum()",
}
#: The rows also timed beside the same pass split over every core.
FLOORS_ALL_CORES = {"dense_default": "numpy G.sum() on all cores"}


#: Where ``--baseline-commit`` keeps its builds, one folder per commit: outside the
#: repository, whose cargo workspace would claim a source tree unpacked inside it.
BASELINES = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kgroups_rs"
BASELINES = BASELINES / "baselines"


def build_commit(rev: str) -> Path:
    """Build commit ``rev`` of this repository into its own folder; returns the folder to
    put on ``PYTHONPATH`` (the unpacked wheel). A build already made is reused."""
    repo = Path(__file__).resolve().parent.parent
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    home = BASELINES / sha
    site = home / "site"
    if (home / "complete").exists():
        return site
    if home.exists():
        shutil.rmtree(home)
    source = home / "source"
    source.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(repo), "archive", sha], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(source)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError(f"git archive {sha} failed")
    maturin = shutil.which("maturin") or shutil.which("maturin", path=str(Path(sys.executable).parent))
    if maturin is None:
        raise SystemExit("--baseline-commit needs maturin (pip install maturin)")
    print(f"building {rev} ({sha[:12]}) into {home} ...", flush=True)
    with tempfile.TemporaryDirectory() as wheels:
        env = dict(os.environ, CARGO_TARGET_DIR=str(home / "target"))
        subprocess.run([maturin, "build", "--release", "--out", wheels], cwd=source, env=env,
                       check=True)
        (wheel,) = Path(wheels).glob("*.whl")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--target", str(site), str(wheel)], check=True)
    (home / "complete").touch()
    return site


class Worker:
    """One build's worker process for one row: ``python`` with ``path`` (a build's folder,
    or None for the interpreter's installed package) first on its import path."""

    def __init__(self, python: str, row: str, path: Optional[Path] = None) -> None:
        benches = str(Path(__file__).resolve().parent)
        env = dict(os.environ)
        if path is not None:
            env["PYTHONPATH"] = str(path)
        else:
            env.pop("PYTHONPATH", None)
        self.proc = subprocess.Popen(
            [python, "-c", WORKER, row, benches],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd="/",  # not the repository: import the installed package or the build's
            env=env,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the worker for {row} ({python}) did not start")

    def ask(self, what: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(what + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def same_partition(a: list[int], b: list[int]) -> bool:
    """Whether two labelings are the same partition up to the numbering of the clusters."""
    forward: dict[int, int] = {}
    backward: dict[int, int] = {}
    for x, y in zip(a, b):
        if forward.setdefault(x, y) != y or backward.setdefault(y, x) != x:
            return False
    return len(a) == len(b)


def run_row(
    row: str, repeat: int, baseline: Optional[str], baseline_path: Optional[Path] = None
) -> dict[str, Any]:
    builds = {"new": sys.executable}
    if baseline:
        builds["baseline"] = baseline
    workers = {
        name: Worker(python, row, baseline_path if name == "baseline" else None)
        for name, python in builds.items()
    }
    times: dict[str, list[float]] = {name: [] for name in builds}
    floor: list[float] = []
    floor_all_cores: list[float] = []
    summaries: dict[str, Any] = {}
    try:
        for rep in range(repeat):
            order = list(builds) if rep % 2 == 0 else list(reversed(builds))
            for name in order:
                answer = workers[name].ask("last" if rep == repeat - 1 else "time")
                times[name].append(answer["seconds"])
                if "summary" in answer:
                    summaries[name] = answer["summary"]
            if row in FLOORS:
                floor.append(workers["new"].ask("floor")["seconds"])
            if row in FLOORS_ALL_CORES:
                floor_all_cores.append(workers["new"].ask("floor_all_cores")["seconds"])
    finally:
        for worker in workers.values():
            worker.close()
    record: dict[str, Any] = {"row": row, "repeat": repeat}
    for name, values in times.items():
        record[f"{name}_best_s"] = min(values)
        record[f"{name}_all_s"] = values
    if floor:
        record["floor_best_s"] = min(floor)
    if floor_all_cores:
        record["floor_all_cores_best_s"] = min(floor_all_cores)
    if baseline and summaries.get("new") and summaries.get("baseline"):
        new, old = summaries["new"], summaries["baseline"]
        record["same_partition"] = same_partition(new["labels"], old["labels"])
        record["objective_new"] = new["objective"]
        record["objective_baseline"] = old["objective"]
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--baseline-python", default=None)
    group.add_argument("--baseline-commit", default=None)
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=DEFAULT_ROWS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default="bench_floor.json")
    args = parser.parse_args()
    baseline_path = None
    if args.baseline_commit:
        baseline_path = build_commit(args.baseline_commit)
        args.baseline_python = sys.executable

    load_before = os.getloadavg()
    print(f"load average before: {load_before}; best of {args.repeat}")
    if args.baseline_commit:
        print(f"baseline: commit {args.baseline_commit} ({baseline_path})")
    elif args.baseline_python:
        print(f"baseline: {args.baseline_python}")
    header = f"{'row':18s} {'new s':>8s}"
    if args.baseline_python:
        header += f" {'baseline s':>11s} {'speed-up':>9s}  same partition (objective new / baseline)"
    print(header)
    records = []
    for row in args.rows:
        record = run_row(row, args.repeat, args.baseline_python, baseline_path)
        records.append(record)
        line = f"{row:18s} {record['new_best_s']:8.3f}"
        if args.baseline_python:
            speed_up = record["baseline_best_s"] / record["new_best_s"]
            line += f" {record['baseline_best_s']:11.3f} {speed_up:8.2f}x"
            if "same_partition" in record:
                line += (f"  {record['same_partition']} ({record['objective_new']:.10g} / "
                         f"{record['objective_baseline']:.10g})")
        if "floor_best_s" in record:
            line += f"  [{FLOORS[row]}: {record['floor_best_s']:.3f} s, new / floor "
            line += f"{record['new_best_s'] / record['floor_best_s']:.2f}]"
        if "floor_all_cores_best_s" in record:
            seconds = record["floor_all_cores_best_s"]
            line += f"  [{FLOORS_ALL_CORES[row]}: {seconds:.3f} s, new / floor "
            line += f"{record['new_best_s'] / seconds:.2f}]"
        print(line, flush=True)
    load_after = os.getloadavg()
    print(f"load average after: {load_after}")
    with open(args.json, "w", encoding="utf-8") as out:
        json.dump(
            {
                "machine": platform.platform(),
                "cpus": os.cpu_count(),
                "load_before": load_before,
                "load_after": load_after,
                "baseline_python": args.baseline_python,
                "baseline_commit": args.baseline_commit,
                "records": records,
            },
            out,
            indent=2,
        )
    print(f"table written to {args.json}")


if __name__ == "__main__":
    main()
