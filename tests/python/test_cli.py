"""``kgroups-rs cluster``: the rows of a file clustered by the estimator ``KernelKGroups``."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import kgroups_rs
import numpy as np
import pytest
from _cli import PNG_MAGIC, run_cli
from kgroups_rs.cli import main
from kgroups_rs.datasets import make_concentric_circles, make_lognormal_mixture

# The command runs the scikit-learn estimator (its message without scikit-learn is tested
# below, in a subprocess that hides it).
pytest.importorskip("sklearn")


def labels_from_text(text: str, key: str | None = None) -> np.ndarray:
    """The labels of a labels table (the command's text output): its header is ``label``, or
    ``KEY,label`` with the row key first."""
    lines = text.splitlines()
    assert lines[0] == ("label" if key is None else f"{key},label"), lines[:2]
    return np.array([line.rsplit(",", 1)[-1] for line in lines[1:]], dtype=np.int64)


def read_labels(path: Path, key: str | None = None) -> np.ndarray:
    return labels_from_text(path.read_text(), key)


@pytest.fixture
def circles_csv(tmp_path: Path) -> tuple[Path, np.ndarray]:
    X, _ = make_concentric_circles(200, seed=3)
    path = tmp_path / "circles.csv"
    np.savetxt(path, X, delimiter=",", header="x1,x2", comments="")
    return path, X


# ----------------------------------------------------------------------------- cluster


def test_cluster_writes_labels_and_prints_the_summary(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, X = circles_csv
    out = tmp_path / "labels.csv"
    rc = main(["cluster", str(path), "-k", "2", "--kernel", "gaussian", "--sigma", "1",
               "--n-init", "3", "--seed", "4", "-o", str(out)])
    assert rc == 0
    labels = read_labels(out)
    G = kgroups_rs.energy_gram(X - X.mean(axis=0), semimetric="gaussian", sigma=1.0)
    ref = kgroups_rs.kernel_kgroups(G, 2, n_init=3, random_state=4)
    np.testing.assert_array_equal(labels, ref.labels)
    text = capsys.readouterr().err
    assert f"objective Q    {ref.objective:.12g}" in text
    assert f"within W       {ref.within:.12g}" in text
    assert f"iterations     {ref.n_iter} (converged)" in text
    assert "time " in text and "n = 200 points, D = 2" in text


@pytest.mark.parametrize(
    ("options", "function"),
    [
        (["--algorithm", "lloyd"], lambda G: kgroups_rs.kernel_kmeans(G, 3, n_init=5, random_state=0)),
        (
            ["--algorithm", "lloyd-online", "--init", "random", "--n-init", "2"],
            lambda G: kgroups_rs.kernel_kmeans(
                G, 3, "random", algorithm="lloyd-online", n_init=2, random_state=0
            ),
        ),
    ],
)
def test_cluster_algorithms_and_npy_input(tmp_path: Path, options: list[str], function: Any) -> None:
    X = np.random.default_rng(1).normal(size=(80, 3))
    np.save(tmp_path / "x.npy", X)
    rc = main(["cluster", str(tmp_path / "x.npy"), "-k", "3", "--alpha", "0.5", *options,
               "-o", str(tmp_path / "labels.npy")])
    assert rc == 0
    G = kgroups_rs.energy_gram(X - X.mean(axis=0), alpha=0.5)
    np.testing.assert_array_equal(np.load(tmp_path / "labels.npy"), function(G).labels)


def test_cluster_one_dimensional_tsv_without_header(tmp_path: Path, capsys: Any) -> None:
    x, _ = make_lognormal_mixture(300, seed=2)
    path = tmp_path / "x.tsv"
    path.write_text("\n".join(f"{v:.17g}" for v in x) + "\n\n")
    assert main(["cluster", str(path), "-k", "2", "-o", "-"]) == 0
    captured = capsys.readouterr()
    labels = labels_from_text(captured.out)  # labels on stdout ...
    assert "objective Q" in captured.err  # ... and the summary on stderr
    G = kgroups_rs.energy_gram(x[:, None] - x.mean())
    np.testing.assert_array_equal(labels, kgroups_rs.kernel_kgroups(G, 2, n_init=5, random_state=0).labels)


def test_cluster_precomputed_kernel(tmp_path: Path) -> None:
    X = np.random.default_rng(2).normal(size=(40, 2))
    G = kgroups_rs.energy_gram(X)
    np.savetxt(tmp_path / "G.csv", G, delimiter=",")
    assert main(["cluster", str(tmp_path / "G.csv"), "-k", "2", "--kernel", "precomputed",
                 "-o", str(tmp_path / "l.csv")]) == 0
    G_read = np.loadtxt(tmp_path / "G.csv", delimiter=",")
    ref = kgroups_rs.kernel_kgroups(G_read, 2, n_init=5, random_state=0)
    np.testing.assert_array_equal(read_labels(tmp_path / "l.csv"), ref.labels)


def test_cluster_summary_says_a_lloyd_run_stopped_on_a_cycle(tmp_path: Path, capsys: Any) -> None:
    """A graph's adjacency matrix is indefinite; Lloyd cycles on this one (seed 0), and the
    summary says so instead of "max_iter reached"."""
    rng = np.random.default_rng(0)
    upper = np.triu(rng.random((60, 60)) < 0.1, 1)
    A = (upper | upper.T).astype(np.float64)
    np.savetxt(tmp_path / "A.csv", A, delimiter=",")
    rc = main(["cluster", str(tmp_path / "A.csv"), "-k", "4", "--kernel", "precomputed",
               "--algorithm", "lloyd", "--n-init", "1", "--max-iter", "100000", "--seed", "0"])
    assert rc == 0
    err = capsys.readouterr().err
    with pytest.warns(Warning, match="the local search cycles"):
        ref = kgroups_rs.kernel_kmeans(A, 4, random_state=0, max_iter=100_000)
    assert ref.cycle_length is not None
    assert f"iterations     {ref.n_iter} (stopped on a cycle of {ref.cycle_length} sweeps)" in err
    # the warning is one clean line, without Python's source file and line
    warning = [line for line in err.splitlines() if "warning" in line.lower()]
    assert all(line.startswith("kgroups-rs cluster: warning: ") for line in warning), err
    assert any("the local search cycles" in line for line in warning), err
    assert ".py:" not in err and "warn(" not in err and "Warning" not in err


def test_verbose_prints_restart_sweep_and_moves(circles_csv: tuple[Path, np.ndarray], capsys: Any) -> None:
    path, _ = circles_csv
    assert main(["cluster", str(path), "-k", "2", "--n-init", "2", "-v"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert any(line.startswith("restart 1/2, sweep 1: ") for line in err), err
    assert any(line.startswith("restart 2/2, sweep 1: ") for line in err), err
    progress = [line for line in err if line.startswith("restart ")]
    assert all("in the last sweep, objective Q = " in line for line in progress)
    assert err[len(progress)].startswith("data ")  # then the summary, on stderr too
    assert any(" 0 moves in the last sweep" in line for line in progress)  # the converging sweep


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("content", "k", "message"),
    [
        (None, "2", "no such file: "),
        ("x,y\n1,2\n3,abc\n", "2", "line 3, column 2: 'abc' is not a number"),
        ("1,2\n3,\n", "1", "line 2, column 2: an empty cell is not a number"),
        ("1,2\n3,nan\n", "1", "line 2, column 2: 'nan' is not a finite number"),
        ("1,2\n3,4,5\n", "1", "line 2: 3 values, but the first data line has 2"),
        ("a,b\n", "1", "holds no data rows"),
        ("1,2\n3,4\n5,6\n", "4", "-k must be between 1 and the number of points n = 3, got 4"),
        ("1,2\n3,4\n5,6\n", "0", "-k must be between 1 and the number of points n = 3, got 0"),
    ],
)
def test_cluster_input_errors_are_one_line_with_status_2(
    tmp_path: Path, capsys: Any, content: str | None, k: str, message: str
) -> None:
    path = tmp_path / "data.csv"
    if content is not None:
        path.write_text(content)
    assert main(["cluster", str(path), "-k", k]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("kgroups-rs cluster: error: ") and message in err, err


@pytest.mark.slow
def test_cluster_errors_from_a_fresh_process(tmp_path: Path) -> None:
    missing = run_cli("cluster", str(tmp_path / "missing.csv"), "-k", "2")
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"kgroups-rs cluster: error: no such file: {tmp_path / 'missing.csv'}"
    not_numeric = run_cli("cluster", write(tmp_path / "d.csv", "1,2\nx,4\n"), "-k", "1")
    assert not_numeric.returncode == 2 and "Traceback" not in not_numeric.stderr
    assert "line 2, column 1: 'x' is not a number" in not_numeric.stderr
    np.save(tmp_path / "s.npy", np.array(["a", "b"]))
    strings = run_cli("cluster", str(tmp_path / "s.npy"), "-k", "1")
    assert strings.returncode == 2 and "not real numbers" in strings.stderr


def test_cluster_other_errors(tmp_path: Path, capsys: Any) -> None:
    data = write(tmp_path / "d.csv", "1,2\n3,4\n5,6\n")
    assert main(["cluster", data, "-k", "2", "--kernel", "precomputed"]) == 2
    assert "square n x n kernel matrix, got 3 x 2" in capsys.readouterr().err
    assert main(["cluster", str(tmp_path), "-k", "2"]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert main(["cluster", data, "-k", "2", "-o", str(tmp_path / "no" / "dir" / "l.csv")]) == 2
    assert "cannot write" in capsys.readouterr().err
    for bad in (["--alpha", "3"], ["--sigma", "-1"], ["--n-init", "0"], ["--kernel", "rbf"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["cluster", data, "-k", "2", *bad])
        assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main([])


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / ("kgroups-rs.exe" if os.name == "nt" else "kgroups-rs")
    if not script.exists():
        pytest.skip(f"no console script next to {sys.executable}")
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and kgroups_rs.__version__ in out.stdout


# ----------------------------------------------------------------------------- kernel storage


def _no_dense_training_kernel(monkeypatch: Any) -> None:
    """Fail the test if the estimator builds the n x n training kernel (cross kernels pass)."""
    from kgroups_rs import estimator

    def no_dense_gram(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and "Y" not in kwargs:
            raise AssertionError("the command built the dense kernel matrix")
        return kgroups_rs.energy_gram(*args, **kwargs)

    monkeypatch.setattr(estimator, "energy_gram", no_dense_gram)


def test_an_input_above_the_dense_limit_runs_matrix_free(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    # Today's limit is a 2 GiB kernel (n > 16 384); lowered here so that 300 points exceed it.
    # The command used to build the dense matrix (or refuse); now it clusters matrix-free,
    # with the labels and objective of the dense kernel.
    from kgroups_rs import estimator

    X = np.random.default_rng(5).normal(size=(300, 3))
    np.save(tmp_path / "x.npy", X)
    monkeypatch.setattr(estimator, "DENSE_KERNEL_MAX_BYTES", 8 * 300 * 300 - 1)
    _no_dense_training_kernel(monkeypatch)
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(tmp_path / "x.npy"), "-k", "3", "--seed", "2", "-o", str(out)]) == 0
    text = capsys.readouterr().err
    assert "storage        matrix-free, kernel rows computed from the data" in text, text
    assert "time " in text and "matrix-free" in text.split("time ")[1]
    monkeypatch.undo()
    G = kgroups_rs.energy_gram(X - X.mean(axis=0))
    ref = kgroups_rs.kernel_kgroups(G, 3, n_init=5, random_state=2)
    np.testing.assert_array_equal(read_labels(out), ref.labels)
    assert f"objective Q    {ref.objective:.12g}" in text


@pytest.mark.parametrize("kernel", ["energy", "gaussian"])
def test_kernel_storage_option_gives_the_same_labels(tmp_path: Path, capsys: Any, kernel: str) -> None:
    X, _ = make_concentric_circles(150, seed=8)
    np.save(tmp_path / "x.npy", X)
    labels = {}
    for storage in ("dense", "matrix-free"):
        out = tmp_path / f"{storage}.npy"
        assert main(["cluster", str(tmp_path / "x.npy"), "-k", "2", "--kernel", kernel,
                     "--kernel-storage", storage, "-o", str(out)]) == 0
        assert f"storage        {storage}" in capsys.readouterr().err
        labels[storage] = np.load(out)
    np.testing.assert_array_equal(labels["matrix-free"], labels["dense"])


def test_float32_dense_kernel(tmp_path: Path, capsys: Any) -> None:
    X = np.random.default_rng(6).normal(size=(120, 2))
    np.save(tmp_path / "x.npy", X)
    assert main(["cluster", str(tmp_path / "x.npy"), "-k", "3", "--dtype", "float32",
                 "-o", str(tmp_path / "l.npy")]) == 0
    assert "dense 120 x 120 float32 kernel matrix" in capsys.readouterr().err
    G = kgroups_rs.energy_gram(X - X.mean(axis=0), dtype=np.float32)
    ref = kgroups_rs.kernel_kgroups(G, 3, n_init=5, random_state=0)
    np.testing.assert_array_equal(np.load(tmp_path / "l.npy"), ref.labels)


def test_a_dense_kernel_larger_than_memory(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    # A machine with 1 MiB of memory: 400 points need a 1.2 MiB kernel. --kernel-storage
    # dense is refused before any computation; auto goes matrix-free instead.
    from kgroups_rs.cli import cluster

    X = np.random.default_rng(7).normal(size=(400, 2))
    np.save(tmp_path / "x.npy", X)
    monkeypatch.setattr(cluster, "_physical_memory", lambda: 2**20)
    args = ["cluster", str(tmp_path / "x.npy"), "-k", "2"]
    assert main([*args, "--kernel-storage", "dense"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "kgroups-rs cluster: error: the 400 x 400 kernel matrix needs 1.2 MiB but this machine "
        "has 1.0 MiB of memory; use --kernel-storage auto or matrix-free\n"
    )
    _no_dense_training_kernel(monkeypatch)
    assert main(args) == 0
    assert "storage        matrix-free" in capsys.readouterr().err


def test_cluster_without_sklearn_says_how_to_get_it(circles_csv: tuple[Path, np.ndarray]) -> None:
    path, _ = circles_csv
    out = run_cli("cluster", str(path), "-k", "2", block=("sklearn",))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith("kgroups-rs cluster: error: ")
    assert 'pip install "kgroups_rs[sklearn]"' in out.stderr


# ----------------------------------------------------------------------------- plots


def test_cluster_plot(circles_csv: tuple[Path, np.ndarray], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path, _ = circles_csv
    png = tmp_path / "clusters.png"
    assert main(["cluster", str(path), "-k", "2", "--kernel", "gaussian", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 10_000


def test_cluster_plot_without_matplotlib_says_how_to_get_it(circles_csv: tuple[Path, np.ndarray],
                                                            tmp_path: Path) -> None:
    path, _ = circles_csv
    out = run_cli("cluster", str(path), "-k", "2", "--plot", str(tmp_path / "p.png"), block=("matplotlib",))
    assert out.returncode == 2
    assert 'pip install "kgroups_rs[plot]"' in out.stderr and "Traceback" not in out.stderr


# ----------------------------------------------------------------------------- outputs never lose data


def _forbid_computation(monkeypatch: Any) -> None:
    """Make any kernel or clustering computation fail the test: outputs must be checked first."""
    from kgroups_rs import estimator

    def computed(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the command computed before checking its output paths")

    for name in ("energy_gram", "kernel_kgroups", "kernel_kmeans"):
        monkeypatch.setattr(kgroups_rs, name, computed)
    # where the estimator, and so the command, computes
    for name in ("energy_gram", "kernel_kgroups", "kernel_kgroups_from_data"):
        monkeypatch.setattr(estimator, name, computed)
    monkeypatch.setattr(estimator.KernelKGroups, "fit", computed)


def _output_aliases(kind: str, data: Path, tmp_path: Path) -> Path:
    """An output path that names the input file ``data``: itself, a symlink or a hardlink."""
    if kind == "same":
        return data
    alias = tmp_path / "alias.png"
    try:
        (os.symlink if kind == "symlink" else os.link)(data, alias)
    except (OSError, NotImplementedError) as exc:  # pragma: no cover - e.g. no links on this FS
        pytest.skip(f"cannot make a {kind}: {exc}")
    return alias


@pytest.mark.parametrize("option", ["-o", "--plot"])
@pytest.mark.parametrize("kind", ["same", "symlink", "hardlink"])
def test_an_output_that_is_the_input_file_is_refused(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any, monkeypatch: Any,
    option: str, kind: str,
) -> None:
    if option == "--plot":
        pytest.importorskip("matplotlib")  # without it, --plot is refused for that first
    path, _ = circles_csv
    before = path.read_bytes()
    out = _output_aliases(kind, path, tmp_path)
    _forbid_computation(monkeypatch)
    assert main(["cluster", str(path), "-k", "2", option, str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kgroups-rs cluster: error: ") and "Traceback" not in err
    assert f"{option} {out} is the input data file" in err, err
    assert path.read_bytes() == before


def test_labels_and_plot_to_the_same_file_are_refused(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    pytest.importorskip("matplotlib")  # without it, --plot is refused for that first
    path, _ = circles_csv
    _forbid_computation(monkeypatch)
    out = str(tmp_path / "out.png")
    assert main(["cluster", str(path), "-k", "2", "-o", out, "--plot", out]) == 2
    assert "-o and --plot name the same file" in capsys.readouterr().err
    assert not (tmp_path / "out.png").exists()


@pytest.mark.parametrize("option", ["-o", "--plot"])
def test_a_missing_output_directory_is_refused_before_clustering(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any, monkeypatch: Any,
    option: str,
) -> None:
    if option == "--plot":
        pytest.importorskip("matplotlib")  # without it, --plot is refused for that first
    path, _ = circles_csv
    missing = tmp_path / "no" / "dir" / "out.png"
    labels = tmp_path / "labels.csv"
    extra = ["-o", str(labels)] if option == "--plot" else []
    _forbid_computation(monkeypatch)
    assert main(["cluster", str(path), "-k", "2", *extra, option, str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"cannot write {option} {missing}: the directory {missing.parent} does not exist" in err
    assert not labels.exists()  # nothing was written


def test_an_unknown_figure_format_is_refused_before_clustering(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    pytest.importorskip("matplotlib")
    path, _ = circles_csv
    _forbid_computation(monkeypatch)
    assert main(["cluster", str(path), "-k", "2", "--plot", str(tmp_path / "f.xyz")]) == 2
    assert "unknown figure format 'xyz'" in capsys.readouterr().err


def test_npy_labels_are_written_under_exactly_the_name_given(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, _ = circles_csv
    out = tmp_path / "labels.NPY"
    assert main(["cluster", str(path), "-k", "2", "-o", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["circles.csv", "labels.NPY"]
    labels = np.load(out)
    assert labels.dtype == np.int64 and labels.shape == (200,)
    assert f"labels         written to {out}" in capsys.readouterr().err


def test_a_figure_without_suffix_is_written_under_exactly_the_name_given(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    path, _ = circles_csv
    assert main(["cluster", str(path), "-k", "2", "--plot", str(tmp_path / "figure")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["circles.csv", "figure"]
    assert (tmp_path / "figure").read_bytes()[:8] == PNG_MAGIC  # matplotlib's default format


@pytest.mark.parametrize(("name", "writer"), [("labels.csv", "fsync"), ("labels.npy", "save")])
def test_a_failed_write_keeps_the_old_labels_file_and_leaves_no_temporary_file(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any, monkeypatch: Any,
    name: str, writer: str,
) -> None:
    path, _ = circles_csv
    out = tmp_path / name
    out.write_bytes(b"the labels of yesterday\n")

    def disk_full(fname: Any, *args: Any, **kwargs: Any) -> None:
        """Write part of the labels, then fail as on a full disk."""
        if isinstance(fname, (str, os.PathLike)):
            with open(fname, "wb") as handle:
                handle.write(b"0\n1\n")
        else:
            fname.write(b"0\n1\n")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def fsync_disk_full(fd: int) -> None:
        """The text was written; flushing it to disk fails (a full disk, a quota)."""
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if writer == "fsync":
        monkeypatch.setattr(os, "fsync", fsync_disk_full)
    else:
        monkeypatch.setattr(np, writer, disk_full)
    assert main(["cluster", str(path), "-k", "2", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"cannot write {out}: {os.strerror(errno.ENOSPC)}" in err
    assert out.read_bytes() == b"the labels of yesterday\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["circles.csv", name]


def test_a_rewritten_labels_file_keeps_its_permissions(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path
) -> None:
    path, _ = circles_csv
    out = tmp_path / "labels.csv"
    out.write_text("old\n")
    out.chmod(0o640)
    assert main(["cluster", str(path), "-k", "2", "-o", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert read_labels(out).shape == (200,)




# ----------------------------------------------------------------------------- real files


@pytest.fixture
def table_csv(tmp_path: Path) -> tuple[Path, np.ndarray]:
    """An id column of text, two measured columns in different units, a header."""
    rng = np.random.default_rng(8)
    X = np.vstack([
        rng.normal([1.7, 60.0], [0.05, 3.0], (40, 2)),
        rng.normal([1.2, 25.0], [0.05, 3.0], (40, 2)),
    ])
    path = tmp_path / "people.csv"
    with path.open("w") as handle:
        handle.write("id,height,weight\n")
        for i, (h, w) in enumerate(X):
            handle.write(f"p{i:03d},{float(h)!r},{float(w)!r}\n")
    return path, X


@pytest.mark.parametrize("columns", ["height,weight", "1,2", "height,2"])
def test_columns_by_name_or_index_leave_out_an_id_column(
    table_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any, columns: str
) -> None:
    path, X = table_csv
    out = tmp_path / "labels.txt"
    assert main(["cluster", str(path), "-k", "2", "--columns", columns, "-o", str(out), "--seed", "1"]) == 0
    summary = capsys.readouterr().err
    assert "(columns height, weight)" in summary
    expected = kgroups_rs.KernelKGroups(2, random_state=1).fit(X).labels_
    assert np.array_equal(read_labels(out, "id"), expected)
    # the id column that --columns left out is carried through, so the rows join back
    ids = [line.split(",")[0] for line in out.read_text().splitlines()[1:]]
    assert ids == [f"p{i:03d}" for i in range(80)]
    sizes = np.bincount(expected, minlength=2)
    assert f"cluster sizes  0: {sizes[0]}, 1: {sizes[1]}" in summary


def test_columns_errors(table_csv: tuple[Path, np.ndarray], capsys: Any) -> None:
    path, _ = table_csv
    assert main(["cluster", str(path), "-k", "2", "--columns", "age"]) == 2
    err = capsys.readouterr().err
    assert "--columns: no column named 'age'" in err and "'height'" in err
    assert main(["cluster", str(path), "-k", "2", "--columns", "7"]) == 2
    assert "column 7 does not exist" in capsys.readouterr().err
    assert main(["cluster", str(path), "-k", "2", "--columns", "1,height"]) == 2
    assert "given twice" in capsys.readouterr().err
    # without --columns the text id column is not a number
    assert main(["cluster", str(path), "-k", "2"]) == 2
    assert "'p000' is not a number" in capsys.readouterr().err


def test_columns_of_an_npy_file(tmp_path: Path) -> None:
    X = np.random.default_rng(9).normal(size=(30, 3))
    X[:, 0] = np.arange(30)  # an id column
    path = tmp_path / "d.npy"
    np.save(path, X)
    out = tmp_path / "l.txt"
    assert main(["cluster", str(path), "-k", "2", "--columns", "1,2", "-o", str(out), "--seed", "0"]) == 0
    expected = kgroups_rs.KernelKGroups(2, random_state=0).fit(X[:, 1:]).labels_
    assert np.array_equal(read_labels(out, "id"), expected)
    assert [line.split(",")[0] for line in out.read_text().splitlines()[1:]] == [str(i) for i in range(30)]


def test_standardize(table_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any) -> None:
    path, X = table_csv
    out = tmp_path / "labels.txt"
    args = ["cluster", str(path), "-k", "2", "--columns", "height,weight", "-o", str(out), "--seed", "0"]
    assert main([*args, "--standardize"]) == 0
    assert "standardized" in capsys.readouterr().err
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    expected = kgroups_rs.KernelKGroups(2, random_state=0).fit(Z).labels_
    assert np.array_equal(read_labels(out, "id"), expected)
    # a constant column becomes 0 and is named in the summary
    const = tmp_path / "const.csv"
    np.savetxt(const, np.column_stack([X[:, 0], np.full(80, 3.0)]), delimiter=",", header="a,b", comments="")
    assert main(["cluster", str(const), "-k", "2", "--standardize"]) == 0
    assert "constant, set to 0: b" in capsys.readouterr().err


def test_log_x_needs_one_positive_column(
    table_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, _ = table_csv
    assert main(["cluster", str(path), "-k", "2", "--columns", "1,2", "--log-x"]) == 2
    assert "--log-x is for one column of positive values" in capsys.readouterr().err
    negative = tmp_path / "neg.csv"
    np.savetxt(negative, np.linspace(-1, 1, 20))
    assert main(["cluster", str(negative), "-k", "2", "--log-x"]) == 2
    assert "values <= 0" in capsys.readouterr().err


def test_sigma_rule_and_threads_options(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, X = circles_csv
    out = tmp_path / "l.txt"
    assert main(["cluster", str(path), "-k", "2", "--kernel", "gaussian", "--sigma", "median",
                 "--threads", "-1", "-o", str(out)]) == 0
    summary = capsys.readouterr().err
    sigma = kgroups_rs.bandwidth(X, "median")
    assert f"sigma = {sigma:.6g} (median rule)" in summary
    assert main(["cluster", str(path), "-k", "2", "--threads", "0"]) == 2
    assert "'n_threads' parameter" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["cluster", str(path), "-k", "2", "--kernel", "gaussian", "--sigma", "mode"])
    assert exit_info.value.code == 2
    assert "'mode' is not a number, 'mean', 'median' or 'auto'" in capsys.readouterr().err


def test_figure_axes_and_legend_follow_the_file(table_csv: tuple[Path, np.ndarray]) -> None:
    pytest.importorskip("matplotlib")
    from kgroups_rs.plotting import plot_clusters
    from matplotlib.figure import Figure

    _, X = table_csv
    labels = (X[:, 1] < 40).astype(np.int64)
    ax = Figure().add_subplot()
    plot_clusters(ax, X, labels, feature_names=["height", "weight"], equal_aspect=False)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("height", "weight")
    assert ax.get_aspect() == "auto"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["cluster 0 (n = 40)", "cluster 1 (n = 40)"]  # as in the labels file
    # one skewed positive column: a histogram on a log axis, named by the header
    ax = Figure().add_subplot()
    plot_clusters(ax, np.exp(X[:, 1] / 10), labels, feature_names=["income"], log_x=True)
    assert ax.get_xlabel() == "income (log scale)" and ax.get_xscale() == "log"
    # wide data on a line: no second principal component of 0% variance
    t = np.linspace(0, 1, 50)
    line = np.outer(t, np.arange(1, 6))
    ax = Figure().add_subplot()
    plot_clusters(ax, line, (t > 0.5).astype(np.int64))
    assert ax.get_xlabel().startswith("principal component 1 (100% of variance)")
    assert ax.get_ylabel() == "number of points"


def test_plot_option_draws_with_header_names(table_csv: tuple[Path, np.ndarray], tmp_path: Path,
                                             monkeypatch: Any) -> None:
    pytest.importorskip("matplotlib")
    import kgroups_rs.plotting

    seen: dict[str, Any] = {}
    real = kgroups_rs.plotting.save_clusters_figure

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(kgroups_rs.plotting, "save_clusters_figure", spy)
    path, _ = table_csv
    png = tmp_path / "f.png"
    assert main(["cluster", str(path), "-k", "2", "--columns", "weight", "--log-x", "--plot", str(png)]) == 0
    assert seen["feature_names"] == ["weight"] and seen["log_x"] is True
    assert png.read_bytes().startswith(PNG_MAGIC)
    assert main(["cluster", str(path), "-k", "2", "--columns", "height,weight", "--standardize",
                 "--plot", str(png)]) == 0
    assert seen["feature_names"] == ["height", "weight"] and seen["equal_aspect"] is False


# ----------------------------------------------------------------------------- progress bar


class _Terminal:
    """A stream that says it is a terminal."""

    def __init__(self) -> None:
        self.text: list[str] = []

    def write(self, s: str) -> int:
        self.text.append(s)
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only() -> None:
    import argparse

    from kgroups_rs._progress import ProgressBar
    from kgroups_rs.cli.cluster import _progress

    args = argparse.Namespace(verbose=False, no_progress=False, n_init=3, max_iter=10)
    pytest.importorskip("tqdm")
    assert isinstance(_progress(args, _Terminal()), ProgressBar)
    assert _progress(args, sys.stderr if not sys.stderr.isatty() else open(os.devnull, "w")) is None
    args.no_progress = True
    assert _progress(args, _Terminal()) is None


@pytest.mark.parametrize("use_tqdm", [False, True])
def test_progress_bar_counts_finished_starts(use_tqdm: bool) -> None:
    if use_tqdm:
        pytest.importorskip("tqdm")
    from kgroups_rs._progress import ProgressBar

    stream = _Terminal()
    bar = ProgressBar(2, 5, stream, use_tqdm=use_tqdm)
    bar(0, 1, 4, 1.0)
    bar(1, 1, 3, 2.0)
    bar(0, 2, 0, 1.5)  # start 0 converged
    assert bar.finished == {0} and bar.best == 2.0
    bar(1, 5, 2, 2.5)  # start 1 reached max_iter
    assert bar.finished == {0, 1}
    bar.close()  # again, as the clustering functions do: nothing more is drawn
    bar(0, 3, 0, 9.0)
    text = "".join(stream.text)
    assert "2/2" in text and "9.0" not in text
    if not use_tqdm:
        assert "best Q = 2.5" in text and text.endswith("\n") and text.count("\n") == 1


def test_progress_bar_is_closed_when_the_run_ends(capsys: Any) -> None:
    # A run that stops at max_iter = 1: every start's last event finishes it, or the
    # function closes the bar; either way the line ends.
    X = np.random.default_rng(11).normal(size=(300, 2))
    G = kgroups_rs.energy_gram(X)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kgroups_rs.ConvergenceWarning)
        kgroups_rs.kernel_kgroups(G, 5, n_init=2, max_iter=1, init="random", random_state=0, progress=True)
    err = capsys.readouterr().err
    assert err.endswith("\n") and "2/2" in err


def test_progress_true_in_the_library(capsys: Any) -> None:
    X = np.random.default_rng(10).normal(size=(200, 2))
    G = kgroups_rs.energy_gram(X)
    quiet = kgroups_rs.kernel_kgroups(G, 3, n_init=3, random_state=4)
    shown = kgroups_rs.kernel_kgroups(G, 3, n_init=3, random_state=4, progress=True)
    assert np.array_equal(quiet.labels, shown.labels)
    assert "3/3" in capsys.readouterr().err
    with pytest.raises(TypeError, match="progress must be True"):
        kgroups_rs.kernel_kgroups(G, 3, progress="yes")


# ----------------------------------------------------------------------------- streams and row ids


def _blobs_with_row_ids(first: int) -> tuple[np.ndarray, np.ndarray]:
    """Three blobs whose rows are numbered first, first + 1, ... in a leading column."""
    rng = np.random.default_rng(12)
    y = rng.integers(0, 3, size=150)
    X = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])[y] + rng.normal(size=(150, 2))
    return np.column_stack([np.arange(first, first + 150), X]), y


@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize("header", [True, False])
def test_a_numeric_row_id_column_is_warned_of(
    tmp_path: Path, capsys: Any, first: int, header: bool
) -> None:
    # An id column 0..n-1 (or 1..n) clustered as a coordinate splits the data by id ranges.
    data, _ = _blobs_with_row_ids(first)
    path = tmp_path / "ids.csv"
    np.savetxt(path, data, delimiter=",", fmt=["%d", "%.17g", "%.17g"],
               header="id,x,y" if header else "", comments="")
    assert main(["cluster", str(path), "-k", "3"]) == 0
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if line.startswith("kgroups-rs cluster: warning: ")]
    assert len(warning) == 1, err
    assert f"holds the row numbers {first} to {149 + first}" in warning[0]
    assert ("--columns x,y" if header else "--columns 1,2") in warning[0]
    # as the warning says: no warning, and the id carried into the labels table
    assert main(["cluster", str(path), "-k", "3", "--columns", "x,y" if header else "1,2"]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    ids = [line.split(",")[0] for line in captured.out.splitlines()[1:]]
    assert ids == [str(i) for i in range(first, first + 150)]


def test_the_row_id_warning_names_the_columns_of_an_npy_file(tmp_path: Path, capsys: Any) -> None:
    data, _ = _blobs_with_row_ids(0)
    np.save(tmp_path / "ids.npy", data)
    assert main(["cluster", str(tmp_path / "ids.npy"), "-k", "3"]) == 0
    assert "leave it out with --columns 1,2" in capsys.readouterr().err


@pytest.mark.parametrize(
    "first_column",
    [
        np.linspace(0.5, 20.0, 150),  # increasing, not integers: a measurement
        np.arange(2, 152, dtype=np.float64),  # consecutive integers from 2, not a row number
        np.arange(0, 300, 2, dtype=np.float64),  # integers, step 2
        np.random.default_rng(0).permutation(150).astype(np.float64),  # 0..n-1 out of order
    ],
)
def test_other_first_columns_are_not_warned_of(
    tmp_path: Path, capsys: Any, first_column: np.ndarray
) -> None:
    data, _ = _blobs_with_row_ids(0)
    data[:, 0] = first_column
    np.save(tmp_path / "d.npy", data)
    assert main(["cluster", str(tmp_path / "d.npy"), "-k", "3"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_text_id_column_error_names_the_columns_option(
    table_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, _ = table_csv
    assert main(["cluster", str(path), "-k", "2"]) == 2
    err = capsys.readouterr().err
    assert "'p000' is not a number" in err and "--columns height,weight" in err, err
    # a single bad cell in a column of numbers is a typo, not an id column: no such advice
    typo = write(tmp_path / "typo.csv", "a,b\n1,2\n3,x\n5,6\n")
    assert main(["cluster", typo, "-k", "2"]) == 2
    err = capsys.readouterr().err
    assert "line 3, column 2: 'x' is not a number" in err and "--columns" not in err


def test_without_output_the_labels_table_goes_to_stdout(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, _ = circles_csv
    assert main(["cluster", str(path), "-k", "2", "--seed", "3"]) == 0
    captured = capsys.readouterr()
    labels = labels_from_text(captured.out)  # data only on stdout ...
    assert "objective Q" in captured.err and "objective" not in captured.out  # ... the rest on stderr
    assert "labels         written to standard output (label)" in captured.err
    out = tmp_path / "l.csv"
    assert main(["cluster", str(path), "-k", "2", "--seed", "3", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    np.testing.assert_array_equal(read_labels(out), labels)
    assert out.read_text().splitlines()[0] == "label"
    # tab-separated input: the id column and the labels, tab-separated when the name says so
    tsv = tmp_path / "d.tsv"
    rows_in = (f"r{i}\t{float(x)!r}\t{float(y)!r}\n" for i, (x, y) in enumerate(circles_csv[1]))
    tsv.write_text("name\tx\ty\n" + "".join(rows_in))
    out_tsv = tmp_path / "l.tsv"
    assert main(["cluster", str(tsv), "-k", "2", "--seed", "3", "--columns", "x,y", "-o", str(out_tsv)]) == 0
    rows = [line.split("\t") for line in out_tsv.read_text().splitlines()]
    assert rows[0] == ["name", "label"] and rows[1][0] == "r0"
    np.testing.assert_array_equal(np.array([r[1] for r in rows[1:]], dtype=np.int64), labels)


class _Stdin:
    """``sys.stdin`` with bytes behind ``buffer``."""

    def __init__(self, content: bytes) -> None:
        import io

        self.buffer = io.BytesIO(content)


def test_dash_reads_standard_input(
    circles_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    path, X = circles_csv
    assert main(["cluster", str(path), "-k", "2", "-o", str(tmp_path / "ref.csv")]) == 0
    expected = read_labels(tmp_path / "ref.csv")
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", _Stdin(path.read_bytes()))
    assert main(["cluster", "-", "-k", "2"]) == 0
    captured = capsys.readouterr()
    np.testing.assert_array_equal(labels_from_text(captured.out), expected)
    assert "data           standard input: n = 200 points, D = 2" in captured.err
    # a .npy array on standard input, recognised by its magic bytes
    np.save(tmp_path / "x.npy", X)
    monkeypatch.setattr(sys, "stdin", _Stdin((tmp_path / "x.npy").read_bytes()))
    assert main(["cluster", "-", "-k", "2"]) == 0
    np.testing.assert_array_equal(labels_from_text(capsys.readouterr().out), expected)
    # errors name standard input
    monkeypatch.setattr(sys, "stdin", _Stdin(b"1,2\n3,x\n"))
    assert main(["cluster", "-", "-k", "1"]) == 2
    assert "<stdin>, line 2, column 2: 'x' is not a number" in capsys.readouterr().err


@pytest.mark.slow
def test_stdin_to_stdout_in_a_pipe_with_a_clean_warning(tmp_path: Path) -> None:
    """A fresh process as in a shell pipe: ``cat ids.csv | kgroups-rs cluster - -k 3``."""
    data, _ = _blobs_with_row_ids(1)
    text = "id,x,y\n" + "".join(f"{int(i)},{float(x)!r},{float(y)!r}\n" for i, x, y in data)
    code = "import runpy, sys; sys.argv = ['kgroups-rs', 'cluster', '-', '-k', '3']; " \
           "runpy.run_module('kgroups_rs', run_name='__main__')"
    out = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True,
                         text=True, check=False, timeout=300)
    assert out.returncode == 0, out.stderr
    assert len(labels_from_text(out.stdout)) == 150
    warnings = [line for line in out.stderr.splitlines() if "warning" in line.lower()]
    assert warnings == [line for line in warnings if line.startswith("kgroups-rs cluster: warning: ")]
    assert len(warnings) == 1 and "--columns x,y" in warnings[0], out.stderr
    assert ".py:" not in out.stderr and "warnings.warn" not in out.stderr


@pytest.mark.slow
def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """``kgroups-rs cluster data.csv -k 2 | head -0``: standard output's reader is gone before
    the labels are written. The command stops with 141 (128 + SIGPIPE, as a shell reports a
    tool killed by the broken pipe) and prints no error or traceback."""
    rng = np.random.default_rng(3)
    data = tmp_path / "data.csv"
    data.write_text("x,y\n" + "".join(f"{a:.6f},{b:.6f}\n" for a, b in rng.normal(size=(200, 2))))
    code = (
        "import runpy, sys; sys.argv = ['kgroups-rs', 'cluster', sys.argv[1], '-k', '2']; "
        "runpy.run_module('kgroups_rs', run_name='__main__')"
    )
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left before anything is written
    try:
        out = subprocess.run(
            [sys.executable, "-c", code, str(data)], stdout=write_end, stderr=subprocess.PIPE,
            text=True, check=False, timeout=300,
        )
    finally:
        os.close(write_end)
    assert out.returncode == 141, out.stderr
    assert "error" not in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert "BrokenPipeError" not in out.stderr, out.stderr


# ----------------------------------------------------------------------------- -k auto


@pytest.fixture
def blobs_csv(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    """Three well-separated groups of 50 points."""
    rng = np.random.default_rng(11)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    X = np.vstack([rng.normal(c, 0.5, (50, 2)) for c in centres])
    path = tmp_path / "blobs.csv"
    np.savetxt(path, X, delimiter=",", header="x,y", comments="")
    return path, X, np.repeat(np.arange(3), 50)


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two labelings are one partition up to the names of the groups."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_k_auto_finds_three_blobs_and_prints_the_table(
    blobs_csv: tuple[Path, np.ndarray, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, X, truth = blobs_csv
    out = tmp_path / "labels.csv"
    rc = main(["cluster", str(path), "-k", "auto", "--kernel", "energy", "--seed", "2", "-o", str(out)])
    assert rc == 0
    labels = read_labels(out)
    assert same_partition(labels, truth)
    summary = capsys.readouterr().err
    assert "choice of k    k = 3, kernel energy, rule energy_gap, k = 1 .. 10" in summary
    assert "Gap (PC box) ± s_k" in summary and "stability" in summary and "rel. eigen-gap" in summary
    selection = kgroups_rs.select_k(X, range(1, 11), kernel="energy", random_state=2)
    # the chosen row is marked and shows select_k's W_k and gap; the estimator then fits k = 3
    row = next(line.split() for line in summary.splitlines() if line.strip().startswith("3*"))
    assert row[1] == f"{selection.table['within'][2]:.6g}"
    assert row[2] == f"{selection.table['gap_pc'][2]:.4f}"
    assert "algorithm      hartigan, k = 3" in summary
    expected = kgroups_rs.KernelKGroups(3, random_state=2).fit(X).labels_
    np.testing.assert_array_equal(labels, expected)


def test_k_auto_without_a_kernel_chooses_the_kernel_too(tmp_path: Path, capsys: Any) -> None:
    """-k auto alone is KernelKGroups(n_clusters="auto"), whose default kernel is chosen from
    the data: two rings are two groups (the kNN graph), as with --kernel auto."""
    from sklearn.datasets import make_circles

    X, y = make_circles(300, factor=0.5, noise=0.05, random_state=0)
    path = tmp_path / "rings.csv"
    np.savetxt(path, X, delimiter=",")
    outputs = []
    for kernel in ([], ["--kernel", "auto"]):
        out = tmp_path / f"labels{len(kernel)}.csv"
        assert main(["cluster", str(path), "-k", "auto", *kernel, "--seed", "0", "-o", str(out)]) == 0
        outputs.append(out.read_text())
        assert "kernel knn" in capsys.readouterr().err
    assert outputs[0] == outputs[1]
    assert same_partition(read_labels(tmp_path / "labels0.csv"), y)
    model = kgroups_rs.KernelKGroups(n_clusters="auto", random_state=0).fit(X)
    assert model.kernel_ == "knn"
    np.testing.assert_array_equal(read_labels(tmp_path / "labels0.csv"), model.labels_)


def test_kernel_auto_writes_select_ks_partition(
    blobs_csv: tuple[Path, np.ndarray, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, X, truth = blobs_csv
    out = tmp_path / "labels.csv"
    rc = main(["cluster", str(path), "-k", "auto", "--kernel", "auto", "--k-range", "1:6",
               "--seed", "5", "--threads", "1", "-o", str(out)])
    assert rc == 0
    selection = kgroups_rs.select_k(X, range(1, 7), random_state=5)
    np.testing.assert_array_equal(read_labels(out), selection.labels)
    assert same_partition(selection.labels, truth)
    summary = capsys.readouterr().err
    assert f"rule {selection.rule}, k = 1 .. 6" in summary
    assert "kernel         energy, rho = ||x - y|| (chosen by select_k)" in summary
    # the same answer on another thread count
    out2 = tmp_path / "labels2.csv"
    rc = main(["cluster", str(path), "-k", "auto", "--kernel", "auto", "--k-range", "1:6",
               "--seed", "5", "--threads", "2", "-o", str(out2)])
    assert rc == 0
    assert out2.read_text() == out.read_text()


def test_kernel_auto_with_a_given_k_fits_the_energy_kernel_it_chose(
    blobs_csv: tuple[Path, np.ndarray, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, X, _ = blobs_csv
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(path), "-k", "2", "--kernel", "auto", "--seed", "4",
                 "--threads", "1", "-o", str(out)]) == 0
    selection = kgroups_rs.select_k(X, range(1, 11), random_state=4, n_threads=1)
    assert selection.kernel == "energy" and selection.k == 3  # the kernel chosen; k is given
    model = kgroups_rs.KernelKGroups(2, kernel="auto", random_state=4, n_threads=1).fit(X)
    assert model.kernel_ == "energy"
    assert kgroups_rs.clustering_accuracy(read_labels(out), model.labels_) == 1.0
    summary = capsys.readouterr().err
    assert "kernel         energy, rho = ||x - y|| (chosen by select_k)" in summary
    assert "algorithm      hartigan, k = 2" in summary and "(choosing the kernel " in summary


def test_kernel_auto_with_a_given_k_cuts_the_knn_graph_it_chose(tmp_path: Path, capsys: Any) -> None:
    rng = np.random.default_rng(7)
    angle = rng.uniform(0, 2 * np.pi, 300)
    radius = np.repeat([1.0, 3.0], 150) + rng.normal(0, 0.05, 300)
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    path = tmp_path / "rings.csv"
    np.savetxt(path, X, delimiter=",")
    selection = kgroups_rs.select_k(X, range(1, 11), random_state=1, n_threads=1)
    assert (selection.kernel, selection.k) == ("knn", 2)
    for k in (2, 3):  # the kernel chosen at k, then the graph's normalised cut into k
        out = tmp_path / f"labels{k}.csv"
        assert main(["cluster", str(path), "-k", str(k), "--kernel", "auto", "--seed", "1",
                     "--threads", "1", "-o", str(out)]) == 0
        model = kgroups_rs.KernelKGroups(k, kernel="auto", random_state=1, n_threads=1).fit(X)
        assert model.kernel_ == "knn"
        np.testing.assert_array_equal(read_labels(out), model.labels_)
        assert np.unique(read_labels(out)).size == k
        summary = capsys.readouterr().err
        assert "kernel         kNN graph, normalised cut (chosen by select_k)" in summary
    # k given compares the kernels at k alone: the same rings as select_k's range found
    assert kgroups_rs.clustering_accuracy(read_labels(tmp_path / "labels2.csv"), selection.labels) == 1.0
    # one group given: nothing to cut, every point in it
    out = tmp_path / "labels1.csv"
    assert main(["cluster", str(path), "-k", "1", "--kernel", "auto", "--seed", "1", "-o", str(out)]) == 0
    assert set(read_labels(out).tolist()) == {0}
    assert "(one group: the kernel does not matter)" in capsys.readouterr().err


def test_k_auto_on_uniform_noise_gives_one_group(tmp_path: Path, capsys: Any) -> None:
    # select_k's own test data (on 150 uniform points its structure test sees two groups in
    # about one data set of five)
    X = np.random.default_rng(1).uniform(size=(300, 2))
    path = tmp_path / "noise.csv"
    np.savetxt(path, X, delimiter=",")
    for kernel in ("auto", "energy"):
        out = tmp_path / f"labels-{kernel}.csv"
        assert main(["cluster", str(path), "-k", "auto", "--kernel", kernel, "--k-range", "1:5",
                     "--seed", "0", "-o", str(out)]) == 0
        assert set(read_labels(out).tolist()) == {0}
        summary = capsys.readouterr().err
        assert "choice of k    k = 1" in summary
        assert "rule no_structure" in summary


def test_k_auto_on_identical_rows_gives_one_group(tmp_path: Path, capsys: Any) -> None:
    """Identical rows: one group, the labels, a summary without a table and exit status 0."""
    path = tmp_path / "same.csv"
    np.savetxt(path, np.tile([1.0, 2.0], (6, 1)), delimiter=",")
    for kernel in ("auto", "energy"):
        out = tmp_path / f"labels-{kernel}.csv"
        assert main(["cluster", str(path), "-k", "auto", "--kernel", kernel, "-o", str(out)]) == 0
        assert read_labels(out).tolist() == [0] * 6
        summary = capsys.readouterr().err
        assert "choice of k    k = 1, kernel none (one group), rule no_structure, k = 1 .. 6" in summary
        assert "no statistics per k: every point is the same" in summary


def test_k_auto_standardizes_and_reports_progress(
    table_csv: tuple[Path, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    path, X = table_csv
    out = tmp_path / "labels.txt"
    rc = main(["cluster", str(path), "-k", "auto", "--kernel", "energy", "--columns", "height,weight",
               "--standardize", "--k-range", "1:5", "--seed", "3", "-v", "-o", str(out)])
    assert rc == 0
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    selection = kgroups_rs.select_k(Z, range(1, 6), kernel="energy", random_state=3)
    assert selection.k == 2
    expected = kgroups_rs.KernelKGroups(2, random_state=3).fit(Z).labels_
    np.testing.assert_array_equal(read_labels(out, "id"), expected)
    err = capsys.readouterr().err
    assert "choosing k: part 1/" in err and "standardized" in err
    assert "restart 1/5, sweep 1" in err  # the fit at the chosen k reports as before


def test_k_auto_with_a_precomputed_kernel_uses_stability(
    blobs_csv: tuple[Path, np.ndarray, np.ndarray], tmp_path: Path, capsys: Any
) -> None:
    _, X, truth = blobs_csv
    G = kgroups_rs.energy_gram(X)
    path = tmp_path / "gram.npy"
    np.save(path, G)
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(path), "-k", "auto", "--kernel", "precomputed", "--k-range", "1:5",
                 "--seed", "0", "-o", str(out)]) == 0
    assert same_partition(read_labels(out), truth)
    assert "kernel precomputed, rule stability" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["-k", "auto", "--kernel", "gaussian"],
         "-k auto chooses k with --kernel energy, auto or precomputed"),
        (["-k", "auto", "--kernel", "exponential", "--sigma", "1"], "not exponential"),
        (["-k", "auto", "--kernel", "energy", "--alpha", "0.5"], "energy kernel of alpha 1"),
        (["-k", "auto", "--alpha", "0.5"],
         "-k auto without --kernel chooses the kernel too (as --kernel auto), which leaves the "
         "kernel and the fit to select_k; --alpha does not apply"),
        (["-k", "3", "--kernel", "auto", "--n-init", "2"], "--n-init does not apply"),
        (["-k", "3", "--k-range", "1:4"], "--k-range is the range of -k auto"),
        (["-k", "auto", "--kernel", "auto", "--algorithm", "lloyd", "--n-init", "2"],
         "--algorithm, --n-init do not apply"),
        (["-k", "auto", "--k-range", "1:500"], "--k-range reaches 500, beyond the number of points n = 150"),
    ],
)
def test_k_auto_refuses_what_it_cannot_honour(
    blobs_csv: tuple[Path, np.ndarray, np.ndarray], capsys: Any, options: list[str], message: str
) -> None:
    path, _, _ = blobs_csv
    assert main(["cluster", str(path), *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroups-rs cluster: error: ") and message in lines[0]


@pytest.mark.parametrize("text", ["0:4", "3:3", "a:b", "1:2:3"])
def test_a_bad_k_range_is_a_usage_error(blobs_csv: tuple[Path, np.ndarray, np.ndarray], text: str) -> None:
    path, _, _ = blobs_csv
    with pytest.raises(SystemExit) as exit_info:
        main(["cluster", str(path), "-k", "auto", "--k-range", text])
    assert exit_info.value.code == 2


def test_kernel_auto_runs_without_scikit_learn(blobs_csv: tuple[Path, np.ndarray, np.ndarray]) -> None:
    path, _, truth = blobs_csv
    out = run_cli("cluster", str(path), "-k", "auto", "--kernel", "auto", "--k-range", "1:5",
                  block=("sklearn",))
    assert out.returncode == 0, out.stderr
    assert same_partition(labels_from_text(out.stdout), truth)


def test_the_choice_of_k_draws_a_bar_of_parts() -> None:
    pytest.importorskip("tqdm")
    import io

    from kgroups_rs.cli._select import PartsProgress

    stream = io.StringIO()
    bar = PartsProgress(stream, lines=False)
    for done in (1, 2, 3):
        bar(0, done, 3, float("nan"))
    bar.close()
    text = stream.getvalue()
    assert "choosing k" in text and "3/3" in text
