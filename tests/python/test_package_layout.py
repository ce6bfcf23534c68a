"""The package's layout: each public module exports exactly its ``__all__``, the modules import
no helper from a public module (helpers live in private ``_`` modules), no library module
imports from the command line, and no source file is too long to read."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import kgroups_rs
import pytest

PACKAGE = Path(kgroups_rs.__file__).resolve().parent

#: The public modules and what each exports.
PUBLIC = {
    "accuracy": ["clustering_accuracy"],
    "clustering": ["kernel_kgroups", "kernel_kmeans"],
    "datasets": ["make_concentric_circles", "make_lognormal_mixture", "make_parallel_cigars", "standardize"],
    "exceptions": ["ConvergenceWarning", "KernelInputWarning"],
    "gram": ["bandwidth", "energy_gram", "gram_from_semimetric"],
    "graph": ["graph_kernel", "graph_partition"],
    "large": ["kernel_kgroups_from_data", "kernel_kgroups_nystrom", "nystrom_features"],
    "neighbors": ["knn_kernel"],
    "one_d": ["kgroups_1d"],
    "significance": ["SignificanceResult", "cluster_significance"],
    "scoring": ["choose_k_by_prediction_strength", "prediction_strength_score"],
    "stats": [
        "EnergyStatistics", "between_statistic", "energy_distance", "energy_statistics", "within_dispersion",
    ],
    "estimator": [
        "CHECKS_NOT_GUARANTEED", "DENSE_KERNEL_MAX_BYTES", "EstimatorConvergenceWarning", "KernelKGroups",
        "KernelKMeans", "MATRIX_FREE_MAX_DIM", "expected_failed_checks",
    ],
    "plotting": ["match_labels", "plot_clusters", "save_clusters_figure", "save_figure"],
    "dask": [
        "DaskClusteringResult",
        "DaskExactResult",
        "KernelKGroups",
        "kernel_kgroups_exact",
        "kernel_kgroups_features",
        "kernel_kgroups_nystrom",
    ],
}

#: The longest a source file of the package may be.
MAX_LINES = 800


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_from(path: Path) -> list[tuple[str, list[str]]]:
    """``(absolute module, names)`` of every ``from ... import ...`` in ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, [alias.name for alias in node.names]))
    return found


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_public_module_exports_exactly_its_public_names(name: str) -> None:
    if name == "estimator":
        pytest.importorskip("sklearn")
    if name == "dask":
        pytest.importorskip("dask.array")
    module = importlib.import_module(f"kgroups_rs.{name}")
    assert sorted(module.__all__) == sorted(PUBLIC[name])
    for exported in module.__all__:
        assert hasattr(module, exported), exported


def test_no_module_imports_a_helper_from_a_public_module() -> None:
    """A name imported from a public module is one of its public names (a helper that two
    modules share lives in a private module)."""
    wrong = []
    for path in sources():
        for target, names in imports_from(path):
            public = target.removeprefix("kgroups_rs.")
            if target.startswith("kgroups_rs.") and public in PUBLIC:
                wrong += [f"{path.name}: {target}.{n}" for n in names if n not in PUBLIC[public]]
    assert wrong == []


def test_no_library_module_imports_from_the_command_line() -> None:
    wrong = []
    for path in sources():
        if module_name(path).startswith("kgroups_rs.cli") or path.name == "__main__.py":
            continue  # the command line itself, and ``python -m kgroups_rs`` running it
        for target, _ in imports_from(path):
            if target == "kgroups_rs.cli" or target.startswith("kgroups_rs.cli."):
                wrong.append(f"{module_name(path)} imports {target}")
    assert wrong == []


def test_no_source_file_is_over_the_line_limit() -> None:
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in sources()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_quadratic_one_d_programme_left_the_package() -> None:
    """The former numpy 1-D solver is the tests' reference (one_d_reference.py), not product
    code: kgroups_1d runs the Rust solver."""
    one_d = importlib.import_module("kgroups_rs.one_d")
    text = Path(one_d.__file__).read_text(encoding="utf-8")
    assert "optimal_cuts_1d" in text
    assert not any("reference" in name for name in vars(one_d))
