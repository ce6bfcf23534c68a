"""Every optimisation with and without it: the table of ``benches/PERFORMANCE.md``.

Each mechanism below is switched off by a small source edit (``EDITS``); the edit leaves
every result the same and changes only how fast it comes. ``build`` applies one edit at a
time to a scratch git worktree of this repository, builds the extension with the release
profile and stages the package under ``--builds`` (one directory per mechanism, plus
``base``, the unedited tree). ``run`` times, for each mechanism, the ``bench_floor.py`` rows
it targets in both builds side by side, in one run: one worker process per build, the two
timed in turn with the order flipped every repetition (``bench_floor.run_row``), best of
``--repeat``. A mechanism earns its place with a speed-up of at least 1.1 on a row users meet.

Usage::

    git worktree add /tmp/kg-mech HEAD
    python benches/bench_mechanisms.py build --worktree /tmp/kg-mech --builds /tmp/kg-builds
    python benches/bench_mechanisms.py run --builds /tmp/kg-builds --repeat 5 \\
        --json bench_mechanisms.json

The mechanisms measured and removed (the helper thread, software prefetch, the deferred
updates of sparse moves, the i8/i16 sums, the dense strips) are no longer in the tree; their
rows stay in ``PERFORMANCE.md``. The transposed mirror copy gave way to the checked pass's
copy of the tile, which is how that pass works rather than a switch (measured before and
after in ``PERFORMANCE.md``).

``--mechanisms NAME ...`` restricts either step (``build`` also takes ``base``); ``run`` needs
the ``base`` build and one per mechanism it times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_floor import run_row  # noqa: E402

#: mechanism -> (what it is, the rows it targets, the edits that switch it off: (file, old, new,
#: how many times ``old`` occurs)).
MECHANISMS: dict[str, tuple[str, list[str], list[tuple[str, str, str, int]]]] = {
    "streaming_stores": (
        "the f64 Gram matrix written by non-temporal stores",
        ["gram_d100", "gram_d10", "gram_gaussian"],
        [("src/gram/stream.rs",
          '    #[cfg(target_arch = "x86_64")]\n    {\n        use std::arch::x86_64::{_mm_loadu_pd',
          '    #[cfg(any())]\n    {\n        use std::arch::x86_64::{_mm_loadu_pd', 1),
         ("src/gram/stream.rs",
          '    #[cfg(not(target_arch = "x86_64"))]\n    dst.copy_from_slice(values);',
          "    dst.copy_from_slice(values);", 1),
         ("src/gram/stream.rs", '    #[cfg(target_arch = "x86_64")]\n    // SAFETY: SSE2 (sfence)',
          "    #[cfg(any())]\n    // SAFETY: SSE2 (sfence)", 1)],
    ),
    "avx512_copy": (
        "the pair kernel's AVX-512 copy (else its AVX2 copy)",
        ["gram_d100", "gram_d10", "gram_gaussian"],
        [("src/distance/simd.rs",
          "    cpu_runs(VectorPath::Avx512) && tests_allow(VectorPath::Avx512)",
          "    false && cpu_runs(VectorPath::Avx512) && tests_allow(VectorPath::Avx512)", 1)],
    ),
    "batched_dense_moves": (
        "dense Hartigan moves applied by batches of eight, in parallel over chunks of points",
        ["dense_default", "dense_n16384_k5"],
        [("src/kernel/dense.rs",
          "    fn move_batch(&self) -> Option<usize> {\n        Some(8)\n    }",
          "    fn move_batch(&self) -> Option<usize> {\n        None\n    }", 1)],
    ),
}


def apply_edits(worktree: Path, mechanism: str) -> None:
    """Switches ``mechanism`` off in ``worktree`` (raises if an edit no longer matches)."""
    for path, old, new, count in MECHANISMS[mechanism][2]:
        file = worktree / path
        text = file.read_text()
        if text.count(old) != count:
            raise SystemExit(f"{mechanism}: {path} no longer has {count} of {old!r}")
        file.write_text(text.replace(old, new))


def build(worktree: Path, builds: Path, names: list[str]) -> None:
    """Builds each of ``names`` (``base``: the tree as it is; a mechanism: the tree with it
    switched off), staged as ``builds/<name>/kgroups_rs`` with a launcher ``builds/python-<name>``."""
    for name in names:
        subprocess.run(["git", "checkout", "-q", "--", "src"], cwd=worktree, check=True)
        if name != "base":
            apply_edits(worktree, name)
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "kgroups-python"],
                       cwd=worktree, check=True)
        staged = builds / name
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(worktree / "python" / "kgroups_rs", staged / "kgroups_rs",
                        ignore=shutil.ignore_patterns("_core*.so", "__pycache__"))
        suffix = ".pyd" if sys.platform == "win32" else ".so"
        library = {"linux": "libkgroups_python.so", "darwin": "libkgroups_python.dylib",
                   "win32": "kgroups_python.dll"}[sys.platform]
        shutil.copy(worktree / "target" / "release" / library,
                    staged / "kgroups_rs" / f"_core.abi3{suffix}")
        launcher = builds / f"python-{name}"
        launcher.write_text(f'#!/bin/sh\nPYTHONPATH={staged} exec {sys.executable} "$@"\n')
        launcher.chmod(0o755)
        print(f"built {name}", flush=True)
    subprocess.run(["git", "checkout", "-q", "--", "src"], cwd=worktree, check=True)


def run(builds: Path, names: list[str], repeat: int, json_path: str) -> None:
    """Times each mechanism's rows with (``base``) and without it, side by side."""
    load_before = os.getloadavg()
    print(f"load average before: {load_before}; best of {repeat}")
    print(f"{'mechanism':18s} {'row':18s} {'with s':>8s} {'without s':>10s} {'speed-up':>9s}")
    records: list[dict[str, Any]] = []
    # run_row's "new" worker is this interpreter, which its environment points at the base build.
    os.environ["PYTHONPATH"] = str(builds / "base")
    for name in names:
        for row in MECHANISMS[name][1]:
            record = run_row(row, repeat, str(builds / f"python-{name}"))
            with_s, without_s = record["new_best_s"], record["baseline_best_s"]
            record.update(mechanism=name, with_best_s=with_s, without_best_s=without_s,
                          speed_up=without_s / with_s)
            records.append(record)
            same = record.get("same_partition")
            print(f"{name:18s} {row:18s} {with_s:8.3f} {without_s:10.3f} "
                  f"{without_s / with_s:8.2f}x" + ("" if same is None else f"  same: {same}"),
                  flush=True)
    load_after = os.getloadavg()
    print(f"load average after: {load_after}")
    with open(json_path, "w", encoding="utf-8") as out:
        json.dump({"machine": platform.platform(), "cpus": os.cpu_count(),
                   "load_before": load_before, "load_after": load_after,
                   "records": records}, out, indent=2)
    print(f"table written to {json_path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    b = sub.add_parser("build")
    b.add_argument("--worktree", type=Path, required=True)
    b.add_argument("--builds", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("--builds", type=Path, required=True)
    r.add_argument("--repeat", type=int, default=5)
    r.add_argument("--json", default="bench_mechanisms.json")
    b.add_argument("--mechanisms", nargs="+", choices=["base", *MECHANISMS],
                   default=["base", *MECHANISMS])
    r.add_argument("--mechanisms", nargs="+", choices=list(MECHANISMS), default=list(MECHANISMS))
    args = parser.parse_args()
    if args.step == "build":
        build(args.worktree.resolve(), args.builds.resolve(), args.mechanisms)
    else:
        run(args.builds.resolve(), args.mechanisms, args.repeat, args.json)


if __name__ == "__main__":
    main()
