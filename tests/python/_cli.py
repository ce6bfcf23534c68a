"""Running ``kgroups-rs`` in a fresh interpreter, for the command-line tests."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_cli(
    *args: str, cwd: Path | None = None, block: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``python -m kgroups_rs ARGS`` in a fresh interpreter, optionally with modules blocked
    (as if they were not installed)."""
    code = textwrap.dedent(
        f"""
        import runpy, sys
        for name in {list(block)!r}:
            sys.modules[name] = None
        sys.argv = ["kgroups-rs", *{list(args)!r}]
        runpy.run_module("kgroups_rs", run_name="__main__")
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, check=False,
        timeout=300,
    )
