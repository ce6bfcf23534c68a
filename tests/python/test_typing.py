"""mypy rejects a misspelt string option (``kernel="rbf"``): the options are ``Literal`` types.

Skipped without mypy. The checked file is typing_checks/options.py.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import kgroups_rs
import pytest

pytest.importorskip("mypy")
pytest.importorskip("sklearn")  # the estimators' module imports it

HERE = Path(__file__).parent


@pytest.mark.slow
def test_mypy_rejects_misspelt_options(tmp_path: Path) -> None:
    package_root = Path(kgroups_rs.__file__).resolve().parent.parent
    env = dict(os.environ)
    # The package under test: an installed one is found in site-packages; a source tree
    # (PYTHONPATH) through MYPYPATH, which must not name site-packages.
    installed = {Path(p).resolve() for p in site.getsitepackages()}
    installed |= {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    if package_root not in installed:
        env["MYPYPATH"] = str(package_root)
    command = [
        sys.executable, "-m", "mypy", "--strict", "--warn-unused-ignores",
        "--config-file", os.devnull, "--cache-dir", str(tmp_path / "cache"),
        "--ignore-missing-imports", "--follow-imports", "silent",
        str(HERE / "typing_checks" / "options.py"),
    ]
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                         check=False, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
