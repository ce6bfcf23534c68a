"""Loading a benchmark script of ``benches/`` as a module, for the tests of its pieces (the
folder is not a package and not on ``sys.path`` when the suite runs against the wheel)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHES = Path(__file__).resolve().parents[2] / "benches"


def load_bench(name: str) -> ModuleType:
    """``benches/<name>.py`` imported as the module ``name`` (registered in ``sys.modules``,
    with ``benches/`` on ``sys.path`` for the scripts that import each other)."""
    if str(BENCHES) not in sys.path:
        sys.path.insert(0, str(BENCHES))
    spec = importlib.util.spec_from_file_location(name, BENCHES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
