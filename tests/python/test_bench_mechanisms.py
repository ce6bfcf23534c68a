"""The with/without benchmark's switches (benches/bench_mechanisms.py) still match the source.

Each mechanism is switched off by replacing a piece of source text; a refactor that changes that
text would silently leave the benchmark unable to build its variants. No timings here."""

from __future__ import annotations

from pathlib import Path

import pytest
from _benches import load_bench

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not (ROOT / "src").is_dir(), reason="needs the source tree")
def test_every_switch_matches_the_source() -> None:
    mechanisms = load_bench("bench_mechanisms").MECHANISMS
    assert mechanisms
    for name, (_, rows, edits) in mechanisms.items():
        assert rows, name
        for path, old, new, count in edits:
            text = (ROOT / path).read_text()
            assert text.count(old) == count, f"{name}: {path} has {text.count(old)} of {old!r}"
            assert old != new
