"""Lloyd's method stops at the first sweep whose partition repeats an earlier one and reports
the true length of the cycle (issue 32, item 4): checked against a reference that keeps every
partition of the run exactly, over many small indefinite kernels."""

from __future__ import annotations

import warnings
from typing import Optional

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest

_Float = npt.NDArray[np.float64]
_Int = npt.NDArray[np.int64]


def labels_after(G: _Float, k: int, init: _Int, algorithm: str, sweeps: int) -> tuple[int, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = kgroups_rs.kernel_kgroups(
            G, k, init, algorithm=algorithm, max_iter=sweeps, n_threads=1
        )
    return tuple(int(label) for label in result.labels)


def first_repeat(partitions: list[tuple[int, ...]]) -> Optional[tuple[int, int]]:
    """The first sweep whose partition equals an earlier one's, and the distance to it."""
    seen: dict[tuple[int, ...], int] = {}
    for sweep, labels in enumerate(partitions):
        if labels in seen:
            return sweep, sweep - seen[labels]
        seen[labels] = sweep
    return None


@pytest.mark.parametrize("algorithm", ["lloyd", "lloyd-online"])
def test_the_reported_cycle_is_the_first_repeat(algorithm: str) -> None:
    cycles = 0
    lengths = set()
    for seed in range(120):
        rng = np.random.default_rng(seed)
        n, k = 4 + seed % 3, 2 + seed % 2
        A = rng.normal(size=(n, n))
        G = (A + A.T) / 2  # indefinite: Lloyd's method may cycle
        init = np.arange(n) % k
        rng.shuffle(init)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = kgroups_rs.kernel_kgroups(
                G, k, init, algorithm=algorithm, max_iter=500, n_threads=1
            )
        if result.cycle_length is None:
            continue
        cycles += 1
        lengths.add(result.cycle_length)
        partitions = [tuple(int(label) for label in init)] + [
            labels_after(G, k, init, algorithm, sweeps) for sweeps in range(1, result.n_iter + 1)
        ]
        assert first_repeat(partitions) == (result.n_iter, result.cycle_length), (
            f"seed {seed}: stopped at sweep {result.n_iter} with a cycle of "
            f"{result.cycle_length}; partitions {partitions}"
        )
    assert cycles >= 40, cycles
    assert len(lengths) >= 2, lengths


def test_a_period_two_cycle_stops_at_its_first_repeat() -> None:
    """A 4-point kernel on which batch Lloyd from [0, 0, 1, 1] goes [0, 1, 1, 0], then
    [1, 0, 1, 1] and [0, 1, 0, 0] for ever: a cycle of 2 sweeps, first repeated at sweep 4
    (the run used to stop at sweep 6)."""
    G = np.array(
        [
            [0.18730049, 1.40844202, 0.21464711, -0.6414241],
            [1.40844202, -0.66370362, 0.45848584, -0.23908067],
            [0.21464711, 0.45848584, 1.93144976, -0.26103358],
            [-0.6414241, -0.23908067, -0.26103358, -1.2068547],
        ]
    )
    init = np.array([0, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = kgroups_rs.kernel_kgroups(G, 2, init, algorithm="lloyd", max_iter=100)
    assert (result.n_iter, result.cycle_length) == (4, 2)
    assert list(labels_after(G, 2, init, "lloyd", 2)) == [1, 0, 1, 1]
    assert list(result.labels) == [1, 0, 1, 1]


def test_a_period_two_cycle_is_not_reported_longer() -> None:
    """[1, 0, 1, 0] and [0, 1, 0, 1] hashed alike: this run, in that period-2 cycle from
    sweep 2 on, used to be reported as a cycle of 4 sweeps at sweep 11; it is one of 2,
    first repeated at sweep 4."""
    G = np.array(
        [
            [-0.35966846, 0.80890465, 0.19921843, -0.16136726],
            [0.80890465, -0.4895498, 0.00754206, -0.99408892],
            [0.19921843, 0.00754206, -0.05629192, -0.53683754],
            [-0.16136726, -0.99408892, -0.53683754, -0.84156918],
        ]
    )
    init = np.array([1, 1, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = kgroups_rs.kernel_kgroups(G, 2, init, algorithm="lloyd", max_iter=100)
    assert (result.n_iter, result.cycle_length) == (4, 2)
    assert list(labels_after(G, 2, init, "lloyd", 2)) == [1, 0, 1, 0]
    assert list(labels_after(G, 2, init, "lloyd", 3)) == [0, 1, 0, 1]
