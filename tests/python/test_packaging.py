"""The installed distribution: its version, its licence metadata and the licence file it carries."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
from pathlib import Path

import kgroups_rs
import pytest
from packaging.version import Version

# The distribution metadata describe the package only when it is the one imported, not a
# source tree put first on the path beside another installed build.
installed = pytest.mark.skipif(
    "site-packages" not in kgroups_rs.__file__,
    reason="kgroups_rs is imported from a source tree, not from an installed wheel",
)


def test_version_is_normalised_pep440() -> None:
    # Cargo's `0.2.0-dev.0` must read `0.2.0.dev0`, the form pip and the wheel's name use.
    assert str(Version(kgroups_rs.__version__)) == kgroups_rs.__version__


@installed
def test_version_matches_the_distribution() -> None:
    assert kgroups_rs.__version__ == importlib.metadata.version("kgroups_rs")


@installed
def test_licence_travels_with_the_wheel() -> None:
    dist = importlib.metadata.distribution("kgroups_rs")
    assert dist.metadata["License-Expression"] == "MIT"
    licences = [f for f in dist.files or [] if f.parent.name == "licenses" and f.name == "LICENSE"]
    assert len(licences) == 1, dist.files
    text = Path(str(licences[0].locate())).read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "The kgroups_rs developers" in text


def test_missing_extras_say_how_to_install_them() -> None:
    # Each message names the extra for an index install and for a source checkout (the only
    # one that works before the first release).
    code = textwrap.dedent(
        """
        import sys
        for name in ("sklearn", "matplotlib", "dask", "dask.array"):
            sys.modules[name] = None  # as if not installed
        import kgroups_rs, kgroups_rs.plotting

        def message(call):
            try:
                call()
            except ImportError as exc:
                return str(exc)
            raise AssertionError(f"{call} ran without its extra")

        def dask():
            import kgroups_rs.dask

        messages = {
            "sklearn": [message(lambda: kgroups_rs.KernelKGroups),
                        message(lambda: kgroups_rs.knn_kernel([[0.0], [1.0]], 1))],
            "plot": [message(kgroups_rs.plotting.require_matplotlib)],
            "dask": [message(dask)],
        }
        for extra, texts in messages.items():
            for text in texts:
                hint = f'pip install "kgroups_rs[{extra}]" (from a source checkout: pip install ".[{extra}]")'
                assert hint in text, text
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)
