"""The README's API table names every public name of the package and of ``kgroups_rs.dask``."""

from __future__ import annotations

import re
from pathlib import Path

import kgroups_rs
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def api_table() -> str:
    """The rows of the README's "Python API" table (lines starting with ``|``)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Python API", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def named(table: str) -> set[str]:
    """Every name written as code in the table: ``name``, ``name(...)`` or ``a.b``."""
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", table))


def test_every_top_level_name_is_in_the_api_table() -> None:
    missing = sorted(set(kgroups_rs.__all__) - named(api_table()))
    assert missing == [], f"public names missing from the README's API table: {missing}"


def test_every_dask_name_is_in_the_api_table() -> None:
    pytest.importorskip("dask")
    pytest.importorskip("distributed")
    import kgroups_rs.dask as kd

    table = api_table()
    dask_rows = "\n".join(line for line in table.splitlines() if "kgroups_rs.dask" in line)
    assert dask_rows, "the README's API table has no row for kgroups_rs.dask"
    names = named(dask_rows) | set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)`", dask_rows))
    missing = sorted(set(kd.__all__) - names)
    assert missing == [], f"kgroups_rs.dask names missing from the README's API table: {missing}"
