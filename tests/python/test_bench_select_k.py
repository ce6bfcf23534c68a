"""The model-selection benchmark's suite and output (benches/bench_select_k.py); no timings."""

from __future__ import annotations

import json
import os
import sys
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


def test_every_set_has_a_family_and_a_split(bench: ModuleType) -> None:
    sets = bench.suite()
    assert {d.split for d in sets} == {"development", "held_out"}
    assert all(d.family for d in sets)
    development = [d for d in sets if d.split == "development"]
    held_out = [d for d in sets if d.split == "held_out"]
    assert [d.name for d in development] == [d.name for d in bench.suite(split="development")]
    assert [d.name for d in held_out] == [d.name for d in bench.suite(split="held_out")]
    assert len(development) == 25 and 25 <= len(held_out) <= 35
    # held-out families are generators of their own, and no set is over 10 000 points by default
    assert not {d.family for d in development} & {d.family for d in held_out}
    assert max(d.X.shape[0] for d in held_out) <= 10_000
    assert {d.k for d in held_out} >= {1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12}
    assert "make_blobs4_n100000" in {d.name for d in bench.suite(split="held_out", large=True)}
    again = bench.suite(split="held_out")
    assert all(np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y) for a, b in zip(held_out, again))
    for d in held_out:
        assert d.X.ndim == 2 and d.X.shape[0] == d.y.shape[0] and np.isfinite(d.X).all()
        assert np.array_equal(np.unique(d.y), np.arange(d.k)), d.name
    quick = bench.suite(quick=True)
    assert {d.split for d in quick} == {"development", "held_out"}
    with pytest.raises(ValueError, match="split"):
        bench.suite(split="test")


def test_margin_is_over_the_best_peer_per_measure(bench: ModuleType) -> None:
    summary = {
        "a": {"true_k_fraction": 0.5, "mean_ari": 0.7},
        "b": {"true_k_fraction": 0.6, "mean_ari": 0.4},
        "kgroups_auto": {"true_k_fraction": 0.9, "mean_ari": 0.8},
    }
    margin = bench.margins(summary)
    assert margin["true_k_fraction"]["best_peer"] == "b"
    assert margin["true_k_fraction"]["margin"] == pytest.approx(0.3)
    assert margin["mean_ari"]["best_peer"] == "a"
    assert margin["mean_ari"]["margin"] == pytest.approx(0.1)
    assert bench.margins({"a": summary["a"]}) is None


def test_ari_of_a_one_group_truth_rewards_only_one_group(bench: ModuleType) -> None:
    y = np.zeros(50, dtype=np.int64)
    assert bench.ari(y, np.zeros(50)) == 1.0
    assert bench.ari(y, np.arange(50) % 2) == 0.0


def test_estimator_row_appears_only_when_kernel_auto_exists(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert bench.has_kernel_auto()
    assert "kgroups_auto" in bench.methods()
    # The methods live in select_peers (imported by the bench script): its check decides.
    monkeypatch.setattr(sys.modules["select_peers"], "has_kernel_auto", lambda: False)
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
                "--datasets", "blobs_k3", "uniform_2d", "far_k5"])  # fmt: skip
    payload = json.loads(out.read_text())
    assert [d["name"] for d in payload["datasets"]] == ["blobs_k3", "uniform_2d", "far_k5"]
    assert [d["split"] for d in payload["datasets"]] == ["development", "development", "held_out"]
    assert {(r["dataset"], r["method"]) for r in payload["records"]} == {
        (d, m) for d in ("blobs_k3", "uniform_2d", "far_k5") for m in ("hdbscan", "spectral_eigengap")
    }
    assert set(payload["summary_by_split"]) == {"development", "held_out"}
    assert payload["summary_by_split"]["held_out"]["hdbscan"]["n_datasets"] == 1
    assert payload["margin"] is None  # no kgroups_auto in this run
    for r in payload["records"]:
        assert r["k"] >= 1 and -1.0 <= r["ari"] <= 1.0 and r["seconds"] >= 0
    assert set(payload["summary"]) == {"hdbscan", "spectral_eigengap"}
    blobs = [r for r in payload["records"] if r["dataset"] == "blobs_k3"]
    assert all(r["k"] == 3 and r["ari"] > 0.99 for r in blobs if r["method"] == "hdbscan")
