"""Consistency soak: many small random problems, every way of running kernel k-groups on them.

From the same initial labels, Hartigan's method must reach the same partition however the
kernel is held, so each test below runs the same ``PROBLEMS`` (seeded: n 5..60, D 1..4,
k 1..4, sometimes weighted) two ways and compares labels (exactly) and W (within 1e-9
relative):

- dense float64 G in C order vs F order, and vs the scipy CSR of the same matrix;
- dense float32 G: the core sums float32 entries in float64, so a float32 G gives exactly the
  partition of the float64 matrix with the same (rounded) entries; and on small-integer data
  with alpha = 2 (G_ab = x_a . x_b, exact in both precisions) the same as the float64 G itself;
- matrix-free ``kernel_kgroups_from_data(X)`` vs ``kernel_kgroups(energy_gram(X))``;
- the estimator ``KernelKGroups(kernel="energy", init=labels, n_init=1)`` vs the dense run.

The matrix-free path and the estimator may use another base point than ``energy_gram(X)`` (the
estimator centres the data), so only base-independent results are compared there: the labels
and W. A different base point changes the rounding, which can only matter where two moves'
gains tie to the last bits; those problems use continuous random data (no exact ties).

Finally, the number of threads must not change a single bit (n_threads=1 vs 2).

Each test checks all problems and lists the first few that disagree, with the seed that
rebuilds each (``make_problem(seed)``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Optional

import kgroups_rs
import numpy as np
import pytest

scipy_sparse = pytest.importorskip("scipy.sparse")
pytest.importorskip("sklearn")

N_PROBLEMS = 150
SEED = 20240601
RTOL = 1e-9
EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class Problem:
    seed: int
    X: np.ndarray  # (n, D) float64
    k: int
    alpha: float
    weights: Optional[np.ndarray]
    init: np.ndarray  # int64, every cluster non-empty
    integer_data: bool  # small integer coordinates (with alpha = 2: exact float32 kernel)

    def describe(self) -> str:
        w = "none" if self.weights is None else "random"
        return (
            f"make_problem({self.seed}): n={self.X.shape[0]}, D={self.X.shape[1]}, k={self.k}, "
            f"alpha={self.alpha}, weights={w}, integer data={self.integer_data}"
        )


def make_problem(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 61))
    D = int(rng.integers(1, 5))
    k = int(rng.integers(1, 5))
    integer_data = bool(rng.random() < 0.35)
    if integer_data:
        X = rng.integers(-6, 7, (n, D)).astype(np.float64)
        alpha = 2.0
    else:
        centers = rng.normal(0, 3, (k, D))
        X = centers[rng.integers(0, k, n)] + rng.normal(0, 1, (n, D))
        if rng.random() < 0.3:  # sometimes far from the origin (up to 1e6; the blobs are ~1 wide)
            X += rng.choice([-1.0, 1.0], D) * 10.0 ** rng.uniform(1, 6)
        alpha = float(rng.choice([1.0, 0.5, 1.5, 2.0]))
    weights = rng.uniform(0.2, 5.0, n) if rng.random() < 0.4 else None
    init = np.concatenate([np.arange(k), rng.integers(0, k, n - k)]).astype(np.int64)
    rng.shuffle(init)
    return Problem(seed, X, k, alpha, weights, init, integer_data)


PROBLEMS = [make_problem(SEED + i) for i in range(N_PROBLEMS)]


@functools.cache
def gram(index: int, dtype: Any = np.float64) -> np.ndarray:
    p = PROBLEMS[index]
    return kgroups_rs.energy_gram(p.X, alpha=p.alpha, dtype=dtype, base="origin")


@functools.cache
def dense_run(index: int) -> kgroups_rs.ClusteringResult:
    """The reference: Hartigan on the dense float64 C-order kernel from the problem's labels."""
    p = PROBLEMS[index]
    return kgroups_rs.kernel_kgroups(gram(index), p.k, p.init, weights=p.weights)


def scale_of(p: Problem, G: np.ndarray) -> float:
    """The size of the terms W is computed from: sum_i w_i |G_ii|."""
    w = np.ones(p.X.shape[0]) if p.weights is None else p.weights
    return float(w @ np.abs(np.diag(G)))


def disagreement(
    p: Problem, labels_a: np.ndarray, labels_b: np.ndarray, W_a: float, W_b: float, scale: float
) -> Optional[str]:
    """None when the two runs agree: the same labels, W within 1e-9 relative, plus the rounding
    of the cancellation in W = sum_i w_i G_ii - Q (16 n eps of its terms: with base point 0 and
    data far from the origin, those terms are much larger than W)."""
    if not np.array_equal(labels_a, labels_b):
        where = np.flatnonzero(labels_a != labels_b)
        return f"labels differ at {where.size} points (first: {where[:5].tolist()})"
    if not abs(W_a - W_b) <= RTOL * max(abs(W_a), abs(W_b)) + 16 * labels_a.size * EPS * scale:
        return f"W = {W_a!r} vs {W_b!r}"
    return None


def soak(
    compare: Callable[[int, Problem], Optional[str]], select: Callable[[Problem], bool] = lambda p: True
) -> None:
    failures = []
    checked = 0
    for index, p in enumerate(PROBLEMS):
        if not select(p):
            continue
        checked += 1
        problem = compare(index, p)
        if problem is not None:
            failures.append(f"{p.describe()}: {problem}")
    assert checked >= 20, f"only {checked} problems selected"
    assert not failures, f"{len(failures)} of {checked} problems disagree:\n" + "\n".join(failures[:8])


def compare_kernels(index: int, p: Problem, G: Any, scale_G: np.ndarray) -> Optional[str]:
    ref = dense_run(index)
    res = kgroups_rs.kernel_kgroups(G, p.k, p.init, weights=p.weights)
    return disagreement(p, ref.labels, res.labels, ref.within, res.within, scale_of(p, scale_G))


def test_c_and_f_order_agree() -> None:
    soak(lambda i, p: compare_kernels(i, p, np.asfortranarray(gram(i)), gram(i)))


def test_csr_agrees_with_dense() -> None:
    soak(lambda i, p: compare_kernels(i, p, scipy_sparse.csr_array(gram(i)), gram(i)))


def test_float32_agrees_with_float64_of_the_same_entries() -> None:
    """A float32 G and the float64 matrix holding the same (rounded) values."""

    def compare(index: int, p: Problem) -> Optional[str]:
        G32 = gram(index, np.float32)
        a = kgroups_rs.kernel_kgroups(G32.astype(np.float64), p.k, p.init, weights=p.weights)
        b = kgroups_rs.kernel_kgroups(G32, p.k, p.init, weights=p.weights)
        return disagreement(p, a.labels, b.labels, a.within, b.within, scale_of(p, G32.astype(np.float64)))

    soak(compare)


def test_float32_of_an_exact_kernel_agrees_with_float64() -> None:
    """Small integer coordinates with alpha = 2: G = X X^T holds small integers, exact in float32."""

    def compare(index: int, p: Problem) -> Optional[str]:
        G32 = gram(index, np.float32)
        if not np.array_equal(G32.astype(np.float64), gram(index)):
            return "the float32 kernel of integer data is not exact"
        return compare_kernels(index, p, G32, gram(index))

    soak(compare, lambda p: p.integer_data)


def test_matrix_free_agrees_with_dense() -> None:
    def compare(index: int, p: Problem) -> Optional[str]:
        ref = dense_run(index)
        res = kgroups_rs.kernel_kgroups_from_data(p.X, p.k, p.init, alpha=p.alpha, weights=p.weights)
        return disagreement(p, ref.labels, res.labels, ref.within, res.within, scale_of(p, gram(index)))

    soak(compare, lambda p: not p.integer_data)


def test_estimator_agrees_with_dense() -> None:
    def compare(index: int, p: Problem) -> Optional[str]:
        ref = dense_run(index)
        model = kgroups_rs.KernelKGroups(p.k, kernel="energy", alpha=p.alpha, init=p.init, n_init=1)
        model.fit(p.X, sample_weight=p.weights)
        return disagreement(p, ref.labels, model.labels_, ref.within, model.within_, scale_of(p, gram(index)))

    soak(compare, lambda p: not p.integer_data)


def same_bits(a: Any, b: Any) -> bool:
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def result_bits_differ(a: kgroups_rs.ClusteringResult, b: kgroups_rs.ClusteringResult) -> Optional[str]:
    for name in ("labels", "objective", "within", "n_iter", "n_moves", "objective_history", "cluster_terms"):
        if not same_bits(getattr(a, name), getattr(b, name)):
            return f"{name}: {getattr(a, name)!r} vs {getattr(b, name)!r}"
    return None


THREAD_RUNS: dict[str, Callable[[int, Problem, int], Any]] = {
    "energy_gram": lambda i, p, t: kgroups_rs.energy_gram(p.X, alpha=p.alpha, n_threads=t),
    "energy_gram float32": lambda i, p, t: kgroups_rs.energy_gram(
        p.X, alpha=p.alpha, dtype=np.float32, n_threads=t
    ),
    "energy_gram centered": lambda i, p, t: kgroups_rs.energy_gram(
        p.X, alpha=p.alpha, base="centered", n_threads=t
    ),
    "dense": lambda i, p, t: kgroups_rs.kernel_kgroups(
        gram(i), p.k, weights=p.weights, n_init=3, random_state=p.seed, n_threads=t
    ),
    "dense float32": lambda i, p, t: kgroups_rs.kernel_kgroups(
        gram(i, np.float32), p.k, p.init, weights=p.weights, n_threads=t
    ),
    "csr": lambda i, p, t: kgroups_rs.kernel_kgroups(
        scipy_sparse.csr_array(gram(i)),
        p.k,
        "random",
        weights=p.weights,
        n_init=2,
        random_state=p.seed,
        n_threads=t,
    ),
    "lloyd": lambda i, p, t: kgroups_rs.kernel_kmeans(
        gram(i), p.k, weights=p.weights, n_init=2, random_state=p.seed, n_threads=t
    ),
    "matrix-free": lambda i, p, t: kgroups_rs.kernel_kgroups_from_data(
        p.X, p.k, alpha=p.alpha, weights=p.weights, n_init=2, random_state=p.seed, n_threads=t
    ),
    "statistics": lambda i, p, t: kgroups_rs.energy_statistics(
        p.init, X=p.X, alpha=p.alpha, weights=p.weights, n_threads=t
    ),
    "energy_distance": lambda i, p, t: kgroups_rs.energy_distance(
        p.X[: len(p.X) // 2], p.X[len(p.X) // 2 :], alpha=p.alpha, n_threads=t
    ),
}


@pytest.mark.parametrize("what", list(THREAD_RUNS))
def test_thread_count_does_not_change_a_bit(what: str) -> None:
    run = THREAD_RUNS[what]

    def compare(index: int, p: Problem) -> Optional[str]:
        one, two = run(index, p, 1), run(index, p, 2)
        if isinstance(one, kgroups_rs.ClusteringResult):
            return result_bits_differ(one, two)
        if isinstance(one, kgroups_rs.EnergyStatistics):
            fields = ("within", "between", "total", "cluster_weights", "g")
            bad = [f for f in fields if not same_bits(getattr(one, f), getattr(two, f))]
            return f"{bad} differ" if bad else None
        return None if same_bits(one, two) else f"{what} differs between 1 and 2 threads"

    soak(compare)
