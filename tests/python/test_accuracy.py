"""Tests of ``kgroups_rs.accuracy.clustering_accuracy`` (TPAMI eq. 55)."""

from __future__ import annotations

import itertools
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kgroups_rs import _core
from kgroups_rs.accuracy import clustering_accuracy


def brute_accuracy(y_true: list[int], y_pred: list[int]) -> float:
    """Eq. 55 by enumeration: the best injective map from predicted to true labels.

    Both label sets are padded with dummy labels to a common size K; a permutation of K
    labels then covers every injective map (points mapped to a dummy count as errors).
    """
    t_vals = sorted(set(y_true))
    p_vals = sorted(set(y_pred))
    big_k = max(len(t_vals), len(p_vals))
    t_idx = [t_vals.index(v) for v in y_true]
    p_idx = [p_vals.index(v) for v in y_pred]
    best = 0
    for perm in itertools.permutations(range(big_k)):
        best = max(best, sum(perm[p] == t for p, t in zip(p_idx, t_idx)))
    return best / len(y_true)


labelings = st.integers(min_value=1, max_value=14).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(min_value=-2, max_value=3), min_size=n, max_size=n),
        st.lists(st.integers(min_value=10, max_value=14), min_size=n, max_size=n),
    )
)


@settings(deadline=None, max_examples=300)
@given(labelings)
def test_equals_brute_force_over_permutations(pair: tuple[list[int], list[int]]) -> None:
    y_true, y_pred = pair
    acc = clustering_accuracy(y_true, y_pred)
    assert acc == pytest.approx(brute_accuracy(y_true, y_pred), abs=1e-15)
    assert 0.0 < acc <= 1.0
    # Symmetric: the contingency table is just transposed.
    assert clustering_accuracy(y_pred, y_true) == pytest.approx(acc, abs=1e-15)


@settings(deadline=None, max_examples=200)
@given(labelings, st.randoms(use_true_random=False))
def test_invariant_to_relabelling(pair: tuple[list[int], list[int]], rnd: Any) -> None:
    y_true, y_pred = pair
    acc = clustering_accuracy(y_true, y_pred)
    for labels in (y_true, y_pred):
        values = sorted(set(labels))
        new_names = rnd.sample(range(-1000, 1000), len(values))
        rename = dict(zip(values, new_names))
        renamed = [rename[v] for v in labels]
        if labels is y_true:
            assert clustering_accuracy(renamed, y_pred) == pytest.approx(acc, abs=1e-15)
        else:
            assert clustering_accuracy(y_true, renamed) == pytest.approx(acc, abs=1e-15)


@settings(deadline=None, max_examples=100)
@given(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=50))
def test_identical_partitions_give_one(labels: list[int]) -> None:
    assert clustering_accuracy(labels, labels) == 1.0
    shifted = [7 * v + 3 for v in labels]  # the same partition under other names
    assert clustering_accuracy(labels, shifted) == 1.0
    assert clustering_accuracy(np.array(labels), np.array(shifted, dtype=np.int8)) == 1.0


def test_known_values() -> None:
    assert clustering_accuracy([0, 0, 1, 1, 2], [5, 5, 7, 7, 7]) == pytest.approx(0.8)
    # pred 1 -> true 0 (2 hits), pred 0 -> true 1 (3 hits): 5 of 6.
    assert clustering_accuracy([0, 0, 0, 1, 1, 1], [1, 1, 0, 0, 0, 0]) == pytest.approx(5 / 6)
    # A single predicted cluster: the largest true class.
    assert clustering_accuracy([0, 1, 1, 2, 2, 2], [0] * 6) == pytest.approx(0.5)
    # More predicted clusters than true ones: unmatched clusters count as errors.
    assert clustering_accuracy([0, 0, 1, 1], [0, 1, 2, 3]) == pytest.approx(0.5)
    # Arbitrary label types.
    assert clustering_accuracy(["a", "a", "b"], [2.5, 2.5, -1.0]) == 1.0
    assert clustering_accuracy([True, False, False], [1, 1, 0]) == pytest.approx(2 / 3)
    assert isinstance(clustering_accuracy([0, 1], [1, 0]), float)


def test_large_input() -> None:
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 10, size=100_000)
    perm = rng.permutation(10)
    y_pred = perm[y_true]
    flip = rng.random(size=y_true.shape) < 0.1
    y_pred[flip] = rng.integers(0, 10, size=int(flip.sum()))
    expected = np.mean(perm[y_true] == y_pred)
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("y_true", "y_pred", "match"),
    [
        ([0, 1, 1], [0, 1], r"same length, got 3 and 2"),
        ([], [], r"empty"),
        ([[0, 1], [1, 0]], [0, 1], r"y_true must be a 1-D array.*\(2, 2\)"),
        ([0, 1], [[0], [1]], r"y_pred must be a 1-D array.*\(2, 1\)"),
        (3, [0], r"y_true must be a 1-D array.*\(\)"),
    ],
)
def test_bad_input(y_true: Any, y_pred: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        clustering_accuracy(y_true, y_pred)


def test_works_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules makes `import scipy...` raise ImportError: the accuracy
    # (and the figures' label matching) use the core's assignment instead.
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)
    assert clustering_accuracy([0, 0, 1, 1, 2], [5, 5, 7, 7, 7]) == 0.8
    from kgroups_rs.plotting import match_labels

    assert match_labels([0, 0, 1, 1], [1, 1, 0, 0]).tolist() == [0, 0, 1, 1]


def _best_matching_by_enumeration(table: np.ndarray) -> float:
    """The largest sum over one-to-one maps of the smaller side into the larger."""
    rows, cols = table.shape
    if rows > cols:
        table, rows, cols = table.T, cols, rows
    return max(
        float(sum(table[i, perm[i]] for i in range(rows)))
        for perm in itertools.permutations(range(cols), rows)
    )


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1), st.booleans(),
)
def test_core_assignment_is_optimal(rows: int, cols: int, seed: int, ties: bool) -> None:
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 3, (rows, cols)).astype(float) if ties else rng.normal(size=(rows, cols))
    r, c = _core.linear_assignment(np.ascontiguousarray(table), maximize=True)
    assert r.size == c.size == min(rows, cols)
    assert len(set(r.tolist())) == r.size and len(set(c.tolist())) == c.size
    assert table[r, c].sum() == pytest.approx(_best_matching_by_enumeration(table), abs=1e-9)
    r_min, c_min = _core.linear_assignment(np.ascontiguousarray(table), maximize=False)
    assert table[r_min, c_min].sum() == pytest.approx(-_best_matching_by_enumeration(-table), abs=1e-9)


def test_core_assignment_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match=r"cost\[0, 1\] = NaN; every entry must be finite"):
        _core.linear_assignment(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.linear_assignment(np.asfortranarray(np.ones((3, 2))))


def test_accuracy_agrees_with_scipy_on_larger_tables() -> None:
    scipy_optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(3)
    for _ in range(50):
        rows, cols = rng.integers(1, 30, 2)
        table = rng.integers(0, 50, (rows, cols)).astype(float)
        r, c = _core.linear_assignment(table, maximize=True)
        sr, sc = scipy_optimize.linear_sum_assignment(table, maximize=True)
        assert table[r, c].sum() == table[sr, sc].sum()
