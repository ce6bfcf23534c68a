"""``sigma="auto"`` (:func:`kgroups_rs.choose_sigma`): the candidate table, the choice on
data whose scale is known, thread-count independence, errors, and every entry point that
takes a bandwidth rule giving what the chosen number gives."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import kgroups_rs
import numpy as np
import pytest
from kgroups_rs.cli import main
from sklearn.metrics import adjusted_rand_score


def rings(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two well-separated rings (radii 1 and 4, thin)."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, n)
    y = np.arange(n) % 2
    r = np.where(y == 0, 1.0, 4.0) + rng.normal(0, 0.05, n)
    return np.column_stack([r * np.cos(t), r * np.sin(t)]), y


def test_rings_get_a_sigma_that_separates_them() -> None:
    X, y = rings()
    result = kgroups_rs.choose_sigma(X, 2)
    assert result.chosen is not None and result.k == 2
    # the global rules cut both rings in half
    mean_labels = kgroups_rs.kernel_kgroups_from_data(X, 2, semimetric="gaussian", n_init=10,
                                                      random_state=0).labels
    assert adjusted_rand_score(y, mean_labels) < 0.5
    labels = kgroups_rs.kernel_kgroups_from_data(X, 2, semimetric="gaussian", sigma=result.sigma,
                                                 n_init=10, random_state=0).labels
    assert adjusted_rand_score(y, labels) == 1.0


def test_table_shape_and_columns() -> None:
    X, _ = rings(200, 1)
    result = kgroups_rs.choose_sigma(X, 2)
    table = result.table
    assert list(table) == ["sigma", "source", "k", "neighbour_mass", "next_eigenvalue", "eigengap",
                           "knn_cut", "degenerate"]
    assert all(len(v) == 7 for v in table.values())
    assert table["source"][-1] == "mean" and table["source"][0] == "median*2^-4"
    assert table["sigma"][-1] == kgroups_rs.bandwidth(X)
    assert np.allclose(table["sigma"][1:6] / table["sigma"][:5], 2.0)
    assert result.sigma == table["sigma"][result.chosen]
    # the smallest kNN cut among the candidates that are not degenerate, ties to the largest σ
    cut = np.where(~np.asarray(table["degenerate"]), table["knn_cut"], np.nan)
    ties = np.flatnonzero(cut <= np.nanmin(cut) + 1e-3)
    assert result.chosen == ties[np.argmax(table["sigma"][ties])]
    # k unknown: each candidate's k in 2 .. 10, and the chosen candidate's k is returned
    free = kgroups_rs.choose_sigma(X)
    assert set(free.table["k"]) <= set(range(2, 11))
    assert free.chosen is not None and free.k == free.table["k"][free.chosen]


def test_table_to_pandas() -> None:
    pytest.importorskip("pandas")
    X, _ = rings(200, 1)
    result = kgroups_rs.choose_sigma(X, 2)
    frame = result.to_pandas()
    assert frame.shape == (7, 8)
    assert list(frame.columns) == list(result.table)


def test_thread_count_independence() -> None:
    code = (
        "import numpy as np, kgroups_rs\n"
        "X = np.random.default_rng(3).normal(size=(2500, 3))\n"
        "r = kgroups_rs.choose_sigma(X, 3, random_state=4)\n"
        "print(repr(r.sigma), r.chosen, repr(list(r.table['knn_cut'])), repr(list(r.table['eigengap'])))\n"
    )
    values = set()
    for threads in ("1", "3"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                             text=True, timeout=600)
        values.add(out.stdout.strip())
    assert len(values) == 1, values


def test_errors_name_the_argument() -> None:
    X, _ = rings(50)
    with pytest.raises(ValueError, match="X contains NaN"):
        kgroups_rs.choose_sigma(np.array([[0.0], [np.nan], [1.0]]), 2)
    with pytest.raises(ValueError, match="at least 2 points in X"):
        kgroups_rs.choose_sigma([[1.0, 2.0]])
    with pytest.raises(ValueError, match="k = 51 is beyond the number of points n = 50"):
        kgroups_rs.choose_sigma(X, 51)
    with pytest.raises(ValueError, match="k"):
        kgroups_rs.choose_sigma(X, 0)
    # there is one rule, the kNN cut: no criterion to choose
    with pytest.raises(TypeError, match="criterion"):
        kgroups_rs.choose_sigma(X, 2, criterion="knn_cut")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="semimetric must be 'gaussian' or 'exponential'"):
        kgroups_rs.choose_sigma(X, 2, semimetric="power")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="every point is the same"):
        kgroups_rs.choose_sigma(np.ones((5, 2)), 2)
    # k = 1: every sigma gives one group; the mean rule's sigma is returned
    one = kgroups_rs.choose_sigma(X, 1)
    assert one.chosen is None and one.sigma == kgroups_rs.bandwidth(X)


@pytest.mark.parametrize("semimetric", ["gaussian", "exponential"])
def test_every_entry_point_accepts_auto(semimetric: str) -> None:
    X, _ = rings(120, 4)
    Y = X[:40] + 0.5
    free = kgroups_rs.choose_sigma(X, semimetric=semimetric).sigma  # type: ignore[arg-type]
    for_k = kgroups_rs.choose_sigma(X, 2, semimetric=semimetric).sigma  # type: ignore[arg-type]

    def same(value: float, **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        return {**kw, "sigma": "auto"}, {**kw, "sigma": value}

    a, b = same(free, semimetric=semimetric)
    assert np.array_equal(kgroups_rs.energy_gram(X, **a), kgroups_rs.energy_gram(X, **b))
    fa = kgroups_rs.nystrom_features(X, 20, random_state=0, **a)
    fb = kgroups_rs.nystrom_features(X, 20, random_state=0, **b)
    assert np.array_equal(fa[0], fb[0])
    labels = (X[:, 0] > 0).astype(np.int64)
    within = [kgroups_rs.energy_statistics(labels, X=X, **kw).within for kw in (a, b)]
    assert within[0] == within[1]
    assert kgroups_rs.energy_distance(X, Y, **a) == kgroups_rs.energy_distance(X, Y, **b)
    a, b = same(for_k, semimetric=semimetric)
    la = kgroups_rs.kernel_kgroups_from_data(X, 2, random_state=1, **a).labels
    lb = kgroups_rs.kernel_kgroups_from_data(X, 2, random_state=1, **b).labels
    assert np.array_equal(la, lb)
    na = kgroups_rs.kernel_kgroups_nystrom(X, 2, n_components=20, random_state=1, **a).labels
    nb = kgroups_rs.kernel_kgroups_nystrom(X, 2, n_components=20, random_state=1, **b).labels
    assert np.array_equal(na, nb)
    for cls in (kgroups_rs.KernelKGroups, kgroups_rs.KernelKMeans):
        model = cls(2, kernel=semimetric, sigma="auto", random_state=0).fit(X)
        # the estimator centres X first; the choice is translation invariant
        assert model.sigma_ == pytest.approx(for_k, rel=1e-9)
        assert model.sigma_selection_ is not None and model.sigma_selection_.sigma == model.sigma_
        explicit = cls(2, kernel=semimetric, sigma=model.sigma_, random_state=0).fit(X)
        assert np.array_equal(model.labels_, explicit.labels_)
        assert explicit.sigma_selection_ is None


def test_power_semimetric_refuses_auto_like_the_other_rules() -> None:
    X = np.random.default_rng(5).normal(size=(20, 2))
    with pytest.raises(ValueError, match="semimetric='power' takes alpha, not a bandwidth"):
        kgroups_rs.energy_gram(X, sigma="auto")
    with pytest.raises(ValueError, match="kernel='energy'"):
        kgroups_rs.KernelKGroups(2, kernel="energy", sigma="auto").fit(X)
    with pytest.raises(ValueError, match=r"sigma must be one of \('mean', 'median', 'auto'\), got 'knn'"):
        kgroups_rs.energy_gram(X, semimetric="gaussian", sigma="knn")


def test_cli_sigma_auto(tmp_path: Any, capsys: Any) -> None:
    X, _ = rings(100, 6)
    path = tmp_path / "x.csv"
    np.savetxt(path, X, delimiter=",")
    assert main(["cluster", str(path), "-k", "2", "--kernel", "gaussian", "--sigma", "auto"]) == 0
    out = capsys.readouterr()
    text = out.out + out.err
    assert "(auto rule)" in text
    model = kgroups_rs.KernelKGroups(2, kernel="gaussian", sigma="auto").fit(X)
    assert f"{model.sigma_:.6g}" in text


def test_dask_accepts_auto() -> None:
    da = pytest.importorskip("dask.array")
    kgd = pytest.importorskip("kgroups_rs.dask")
    X, _ = rings(300, 7)
    Xd = da.from_array(X, chunks=100)
    result = kgd.kernel_kgroups_nystrom(Xd, 2, semimetric="gaussian", sigma="auto", n_components=20,
                                        random_state=0)
    explicit = kgd.kernel_kgroups_nystrom(Xd, 2, semimetric="gaussian",
                                          sigma=kgroups_rs.choose_sigma(X, 2).sigma, n_components=20,
                                          random_state=0)
    assert np.array_equal(np.asarray(result.labels), np.asarray(explicit.labels))
    with pytest.raises(ValueError, match="sigma must be one of"):
        kgd.kernel_kgroups_nystrom(Xd, 2, semimetric="gaussian", sigma="knn")
