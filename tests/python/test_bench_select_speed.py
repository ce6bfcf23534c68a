"""The select_k speed benchmark (benches/bench_select_speed.py) runs and reports what it
claims to; no timing is asserted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import kgroups_rs
import numpy as np
import pytest

pytest.importorskip("sklearn", reason="the benchmark's data sets are scikit-learn's")

ROOT = Path(__file__).resolve().parents[2]


def load() -> ModuleType:
    path = ROOT / "benches" / "bench_select_speed.py"
    spec = importlib.util.spec_from_file_location("bench_select_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_select_speed"] = module
    spec.loader.exec_module(module)
    return module


def test_the_record_is_the_selection_and_the_best_times() -> None:
    bench = load()
    sets = bench.data_sets(300, seed=1)
    assert sorted(sets) == ["blobs_k4", "circles", "moons", "uniform"]
    assert all(X.shape == (300, 2) for X in sets.values())
    record = bench.measure(sets["blobs_k4"], repeats=2, seed=1, threads=1)
    expected = kgroups_rs.select_k(sets["blobs_k4"], range(1, 11), random_state=1, n_threads=1)
    assert (record["k"], record["kernel"], record["rule"]) == (expected.k, expected.kernel, expected.rule)
    assert record["fit_k"] == max(expected.k, 2)
    assert len(record["select_seconds"]) == len(record["fit_seconds"]) == 2
    assert record["ratio"] == pytest.approx(min(record["select_seconds"]) / min(record["fit_seconds"]))
    assert np.isfinite(record["ratio"]) and record["ratio"] > 0
