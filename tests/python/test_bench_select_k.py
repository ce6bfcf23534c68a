"""The model-selection benchmark's suite and output (benches/bench_select_k.py); no timings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from _benches import load_bench

pytest.importorskip("sklearn", reason="the benchmark's peers are scikit-learn's")
pytest.importorskip("scipy", reason="the benchmark's spectral peer needs scipy")



@pytest.fixture(scope="module")
def bench() -> ModuleType:
    # The module sets OMP/BLAS thread counts for its own runs; keep them out of this process.
    saved = dict(os.environ)
    try:
        module = load_bench("bench_select_k")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return module


def test_suite_is_labelled_deterministic_and_large_enough(bench: ModuleType) -> None:
    sets = bench.suite()
    names = [d.name for d in sets]
    assert len(sets) >= 20 and len(set(names)) == len(names)
    for d in sets:
        assert d.X.ndim == 2 and d.X.shape[0] == d.y.shape[0] and np.isfinite(d.X).all()
        assert np.array_equal(np.unique(d.y), np.arange(d.k)), d.name
    ks = {d.name: d.k for d in sets}
    assert ks["uniform_2d"] == ks["gaussian_5d"] == 1
    assert {ks[f"blobs_k{k}"] for k in (2, 3, 8)} == {2, 3, 8}
    assert {"iris", "wine", "breast_cancer", "digits", "dermatology"} <= set(names)
    again = bench.suite()
    assert all(np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y) for a, b in zip(sets, again))
    by_name = {d.name: d for d in sets}
    other = {d.name: d for d in bench.suite(seed=1)}
    assert not np.array_equal(other["moons"].X, by_name["moons"].X)  # fresh synthetic draws
    assert np.array_equal(other["iris"].X, by_name["iris"].X)


def test_ari_of_a_one_group_truth_rewards_only_one_group(bench: ModuleType) -> None:
    y = np.zeros(50, dtype=np.int64)
    assert bench.ari(y, np.zeros(50)) == 1.0
    assert bench.ari(y, np.arange(50) % 2) == 0.0


def test_estimator_row_appears_only_when_kernel_auto_exists(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert bench.has_kernel_auto()
    assert "kgroups_auto" in bench.methods()
    monkeypatch.setattr(bench, "has_kernel_auto", lambda: False)
    assert "kgroups_auto" not in bench.methods()


def test_estimator_row_is_the_estimator_call(bench: ModuleType) -> None:
    import kgroups_rs

    sets = {d.name: d for d in bench.suite(quick=True)}
    X = sets["blobs_k3"].X
    found = bench.kgroups_auto(X, 10, 0)
    model = kgroups_rs.KernelKGroups(n_clusters="auto", kernel="auto", random_state=0, n_threads=1).fit(X)
    assert found.k == model.n_clusters_ == 3
    assert np.array_equal(found.labels, model.labels_)
    assert found.info == {"rule": "energy_gap", "kernel": "energy"}


def test_quick_run_writes_the_table_as_json(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "select.json"
    bench.main(["--quick", "--out", str(out), "--methods", "hdbscan", "spectral_eigengap",
                "--datasets", "blobs_k3", "uniform_2d"])  # fmt: skip
    payload = json.loads(out.read_text())
    assert [d["name"] for d in payload["datasets"]] == ["blobs_k3", "uniform_2d"]
    assert {(r["dataset"], r["method"]) for r in payload["records"]} == {
        (d, m) for d in ("blobs_k3", "uniform_2d") for m in ("hdbscan", "spectral_eigengap")
    }
    for r in payload["records"]:
        assert r["k"] >= 1 and -1.0 <= r["ari"] <= 1.0 and r["seconds"] >= 0
    assert set(payload["summary"]) == {"hdbscan", "spectral_eigengap"}
    blobs = [r for r in payload["records"] if r["dataset"] == "blobs_k3"]
    assert all(r["k"] == 3 and r["ari"] > 0.99 for r in blobs if r["method"] == "hdbscan")
