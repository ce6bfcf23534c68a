"""``kgroups-rs demo``, its data sets and its figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _cli import PNG_MAGIC, run_cli
from kgroups_rs.cli import main
from kgroups_rs.datasets import (
    make_concentric_circles,
    make_lognormal_mixture,
    make_parallel_cigars,
    standardize,
)


def test_plot_clusters_marks_the_points_in_the_wrong_cluster() -> None:
    pytest.importorskip("matplotlib")
    from kgroups_rs.plotting import match_labels, plot_clusters
    from matplotlib.figure import Figure

    y = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    pred = np.array([2, 2, 1, 0, 0, 0, 1, 1])  # clusters 2->0, 0->1, 1->2; point 2 is wrong
    np.testing.assert_array_equal(match_labels(y, pred), [0, 0, 2, 1, 1, 1, 2, 2])
    ax = Figure().add_subplot()
    X = np.arange(16, dtype=float).reshape(8, 2)
    plot_clusters(ax, X, pred, y_true=y, names=["a", "b", "c"], title="t")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["cluster: a (n = 2)", "cluster: b (n = 3)", "cluster: c (n = 3)",
                      "in the wrong cluster (1)"]
    assert ax.get_title() == "t"


def test_demo_data_sets_follow_the_paper() -> None:
    x, y = make_lognormal_mixture(20_000, seed=1)
    logs = np.log(x)
    assert logs[y == 0].mean() == pytest.approx(0.0, abs=0.05)
    assert logs[y == 0].std() == pytest.approx(1.5, rel=0.03)
    assert logs[y == 1].mean() == pytest.approx(1.5, abs=0.02)
    assert logs[y == 1].std() == pytest.approx(0.3, rel=0.03)
    X, y = make_parallel_cigars(20_000, seed=1)
    assert X[y == 1, 0].mean() - X[y == 0, 0].mean() == pytest.approx(6.5, abs=0.05)
    assert X[:, 1].var() == pytest.approx(20.0, rel=0.05)
    assert X[y == 0, 0].var() == pytest.approx(1.0, rel=0.05)
    X, y = make_concentric_circles(20_000, seed=1)
    r = np.linalg.norm(X, axis=1)
    assert r[y == 0].mean() == pytest.approx(1.0, abs=0.03)
    assert r[y == 1].mean() == pytest.approx(3.0, abs=0.03)
    assert abs(y.mean() - 0.5) < 0.02
    np.testing.assert_allclose(standardize([[1.0, 5.0], [3.0, 5.0]]), [[-1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        make_parallel_cigars(1)


@pytest.mark.slow
def test_demo_prints_the_table_and_writes_the_figure(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    out = run_cli("demo", "-o", str(tmp_path / "demo.png"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    header = next(line for line in lines if line.startswith("data set"))
    for method in ("kernel k-groups", "kernel k-means", "1D exact", "k-means", "GMM"):
        assert method in header
    rows = {line.split("  ")[0]: line for line in lines}

    def accuracies(name: str) -> list[str]:
        return [c for c in rows[name].split() if c == "—" or c.startswith(("0.", "1."))]

    # kernel k-groups, kernel k-means, 1D exact, k-means, GMM
    lognormal = accuracies("lognormal mixture (1D)")
    assert float(lognormal[0]) > 0.8 and float(lognormal[3]) < 0.6 and float(lognormal[4]) < 0.6
    assert lognormal[0] == lognormal[2]  # Hartigan reaches the exact 1D optimum here
    for name in ("parallel cigars", "concentric circles"):
        acc = accuracies(name)
        assert acc[0] == "1.000" and acc[2] == "—" and float(acc[3]) < 0.6, acc
    assert float(accuracies("wine (standardised)")[0]) > 0.9
    assert "(scikit-learn)" in out.stdout
    png = (tmp_path / "demo.png").read_bytes()
    assert png[:8] == PNG_MAGIC and len(png) > 50_000
    assert f"figure written to {tmp_path / 'demo.png'}" in out.stdout


def test_demo_without_sklearn_and_matplotlib_still_prints_the_table(tmp_path: Path) -> None:
    out = run_cli("demo", cwd=tmp_path, block=("sklearn", "matplotlib"))
    assert out.returncode == 0, out.stderr
    assert "lognormal mixture (1D)" in out.stdout and "concentric circles" in out.stdout
    assert "wine" not in out.stdout.split("note:")[0]  # no row: wine ships with scikit-learn
    assert "k-means on the raw data (numpy)" in out.stdout
    assert 'pip install "kgroups_rs[plot]"' in out.stdout
    assert 'pip install "kgroups_rs[sklearn]"' in out.stdout
    assert not list(tmp_path.iterdir())  # no figure written


def test_demo_runs_from_a_bare_install(tmp_path: Path) -> None:
    # `pip install kgroups_rs` with no extras: no scipy, scikit-learn or matplotlib. The demo
    # still runs (the accuracy needs no scipy) and says which extra adds what is skipped.
    out = run_cli("demo", cwd=tmp_path, block=("scipy", "sklearn", "matplotlib"))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert 'pip install "kgroups_rs[sklearn]"' in out.stdout
    assert 'no figure written; figures need matplotlib: pip install "kgroups_rs[plot]"' in out.stdout
    assert "kernel k-groups" in out.stdout
    assert not (tmp_path / "kgroups_demo.png").exists()



def test_demo_refuses_a_missing_figure_directory_before_computing(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    import kgroups_rs._demo

    def computed(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the demo ran before its figure path was checked")

    monkeypatch.setattr(kgroups_rs._demo, "run_demo", computed)
    missing = tmp_path / "no" / "demo.png"
    assert main(["demo", "-o", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"kgroups-rs demo: error: cannot write -o {missing}: the directory {missing.parent} "
        "does not exist\n"
    )
