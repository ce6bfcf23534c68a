"""The select_k speed benchmark (benches/bench_select_speed.py) runs and reports what it
claims to; no timing is asserted."""

from __future__ import annotations

import kgroups_rs
import numpy as np
import pytest
from _benches import load_bench

pytest.importorskip("sklearn", reason="the benchmark's data sets are scikit-learn's")


def test_the_record_is_the_selection_and_the_best_times() -> None:
    bench = load_bench("bench_select_speed")
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
