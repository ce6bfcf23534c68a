"""The demo's data sets (generated from fixed seeds, and scikit-learn's wine data) and the
records of their results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from ..datasets import (
    make_concentric_circles,
    make_lognormal_mixture,
    make_parallel_cigars,
    standardize,
)

__all__ = ["DemoProblem", "DemoResult", "demo_problems"]

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]


@dataclass
class DemoProblem:
    """One data set of the demo and the kernel kernel k-groups uses on it."""

    name: str
    X: _Float  # (n, D)
    y: _Int
    kernel: dict[str, Any]  # keyword arguments of energy_gram
    kernel_label: str
    class_names: tuple[str, ...] = ()
    log_x: bool = False

    @property
    def k(self) -> int:
        return int(self.y.max()) + 1


@dataclass
class DemoResult:
    """Accuracies and the kernel k-groups clustering of one problem."""

    problem: DemoProblem
    accuracy: dict[str, Optional[float]] = field(default_factory=dict)
    labels: Optional[_Int] = None
    thresholds: Optional[_Float] = None
    seconds: float = 0.0
    kmeans_impl: str = ""


def demo_problems(seed: int = 0) -> tuple[list[DemoProblem], list[str]]:
    """The demo's data sets, and notes on any that could not be loaded."""
    notes: list[str] = []
    x, y = make_lognormal_mixture(2000, seed)
    problems = [
        DemoProblem(
            "lognormal mixture (1D)", x[:, None], y, {"semimetric": "power", "alpha": 1.0},
            "energy ρ=|x−y|", ("e^N(0,1.5²)", "e^N(1.5,0.3²)"), log_x=True,
        ),
        DemoProblem(
            "parallel cigars", *make_parallel_cigars(800, seed),
            {"semimetric": "exponential", "sigma": 2.0}, "exponential σ=2",
            ("cigar at x₁=0", "cigar at x₁=6.5"),
        ),
        DemoProblem(
            "concentric circles", *make_concentric_circles(800, seed),
            {"semimetric": "gaussian", "sigma": 1.0}, "gaussian σ=1",
            ("inner circle (r=1)", "outer circle (r=3)"),
        ),
    ]
    try:
        from sklearn.datasets import load_wine
    except ImportError:
        notes.append('wine data set skipped: it ships with scikit-learn: pip install "kgroups_rs[sklearn]"'
                     ' (from a source checkout: pip install ".[sklearn]")')
    else:
        data = load_wine()
        problems.append(
            DemoProblem(
                "wine (standardised)", standardize(data.data), np.asarray(data.target, np.int64),
                {"semimetric": "power", "alpha": 1.0}, "energy ρ=‖x−y‖",
                tuple(f"cultivar {c[-1]}" for c in data.target_names),
            )
        )
    return problems, notes
