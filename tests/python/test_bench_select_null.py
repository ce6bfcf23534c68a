"""The null-data benchmark's design (benches/bench_select_null.py); no timings, no full run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from _benches import load_bench

pytest.importorskip("sklearn", reason="the benchmark imports bench_select_k, whose peers are scikit-learn's")


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    # The module sets OMP/BLAS thread counts for its own runs; keep them out of this process.
    saved = dict(os.environ)
    try:
        module = load_bench("bench_select_null")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return module


def test_design_is_large_deterministic_and_structureless(bench: ModuleType) -> None:
    sets = bench.design()
    names = [d.name for d in sets]
    assert len(sets) >= 200 and len(set(names)) == len(names)
    assert len(bench.design(quick=True)) == 30
    assert {d.dim for d in sets} == {1, 2, 3, 5, 10, 20, 50}
    assert {d.n for d in sets} == {100, 300, 1_000, 3_000, 10_000}
    assert sum(d.n == 10_000 for d in sets) < sum(d.n == 1_000 for d in sets)
    for d in sets[:: len(sets) // 12]:
        if d.n > 1_000:
            continue
        X = d.data(0)
        assert X.shape == (d.n, d.dim) and np.isfinite(X).all()
        assert np.array_equal(X, d.data(0)) and not np.array_equal(X, d.data(1))


def test_wilson_interval_brackets_the_fraction(bench: ModuleType) -> None:
    low, high = bench.wilson(95, 100)
    assert low < 0.95 < high and 0.0 <= low and high <= 1.0
    assert bench.wilson(10, 10)[1] == 1.0


def test_tiny_run_writes_the_summary(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "null.json"
    bench.main(["--quick", "--max-n", "100", "--out", str(out)])
    payload = json.loads(out.read_text())
    assert payload["n_sets"] == 10 and len(payload["records"]) == 10
    summary = payload["summary"]["kgroups_auto"]
    assert summary["n_sets"] == 10 and 0.0 <= summary["k1_fraction"] <= 1.0
    assert set(summary["by_D"]) == {"1", "3", "10"}
    assert all(r["k"] >= 1 and r["seconds"] >= 0 for r in payload["records"])
