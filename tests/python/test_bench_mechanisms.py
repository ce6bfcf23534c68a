"""The with/without benchmark's switches (benches/bench_mechanisms.py) still match the source.

Each mechanism is switched off by replacing a piece of source text; a refactor that changes that
text would silently leave the benchmark unable to build its variants. No timings here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_module():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "benches"))
    spec = importlib.util.spec_from_file_location(
        "bench_mechanisms", ROOT / "benches" / "bench_mechanisms.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not (ROOT / "src").is_dir(), reason="needs the source tree")
def test_every_switch_matches_the_source() -> None:
    mechanisms = load_module().MECHANISMS
    assert mechanisms
    for name, (_, rows, edits) in mechanisms.items():
        assert rows, name
        for path, old, new, count in edits:
            text = (ROOT / path).read_text()
            assert text.count(old) == count, f"{name}: {path} has {text.count(old)} of {old!r}"
            assert old != new
