"""Asymmetric kernels built to balance the former exact-symmetry hash (issue 32, item 2) are
refused by every entry point that checks symmetry.

The hash keyed a pair ``(a, b)`` by ``key(a) + key(b)`` with fixed quadratic keys, so two pairs
with the same index sum, ``a + b == c + d``, had keys differing by ``a² + b² − c² − d²`` in both
key sets: storing ``x / y`` at ``(a, b) / (b, a)`` and ``y′ / x′`` at ``(c, d) / (d, c)``, with
``x′`` and ``y′`` moved by that many ulps, balanced it exactly. The check now compares every pair
with its mirror, so none of these matrices passes.
"""

from __future__ import annotations

import warnings

import kgroups_rs
import numpy as np
import numpy.typing as npt
import pytest
import scipy.sparse

_Float = npt.NDArray[np.float64]

#: Pairs (a, b) and (c, d) with a + b == c + d (n = 200), in various places of the matrix.
QUADRUPLES = [
    (1, 198, 2, 197),
    (1, 198, 99, 100),
    (0, 199, 50, 149),
    (3, 7, 4, 6),
    (10, 20, 0, 30),
    (150, 190, 160, 180),
    (198, 1, 197, 2),  # the bad pair given lower-first
    (120, 5, 60, 65),
]


def shifted(value: float, ulps: int) -> float:
    """``value`` with its IEEE bits moved by ``ulps`` (wrapping)."""
    bits = (int(np.float64(value).view(np.uint64)) + ulps) % 2**64
    return float(np.uint64(bits).view(np.float64))


def forged(
    n: int,
    first: tuple[int, int],
    second: tuple[int, int],
    transpose: bool = False,
    values: tuple[float, float] = (1e6, -1e6),
) -> _Float:
    """An n × n matrix, symmetric but for ``G[a, b] = x``, ``G[b, a] = y`` (upper, lower;
    ``values = (x, y)``) and the pair ``(c, d)`` that balances the former hash (both pairs far
    outside the tolerance); ``transpose``: its transpose."""
    (a, b), (c, d) = sorted(first), sorted(second)
    assert a + b == c + d and (a, b) != (c, d)
    rng = np.random.default_rng(a * n + c)
    g = rng.normal(size=(n, n)) * 0.01
    g = (g + g.T) / 2
    np.fill_diagonal(g, 2.0)
    x, y = values
    delta = a * a + b * b - c * c - d * d
    g[a, b], g[b, a] = x, y
    g[c, d], g[d, c] = shifted(y, delta), shifted(x, delta)
    return np.ascontiguousarray(g.T) if transpose else g


def refuses(call: object) -> None:
    with pytest.raises(ValueError, match="not symmetric"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()  # type: ignore[operator]


@pytest.mark.parametrize("first, second", [((a, b), (c, d)) for a, b, c, d in QUADRUPLES])
@pytest.mark.parametrize("transpose", [False, True], ids=["upper", "swapped"])
def test_forged_dense_kernels_are_refused(
    first: tuple[int, int], second: tuple[int, int], transpose: bool
) -> None:
    g = forged(200, first, second, transpose)
    labels = np.arange(200) % 2
    refuses(lambda: kgroups_rs.kernel_kgroups(g, 2, random_state=0))
    refuses(lambda: kgroups_rs.kernel_kgroups(np.asfortranarray(g), 2, random_state=0))
    refuses(lambda: kgroups_rs.kernel_kmeans(g, 2, random_state=0))
    refuses(lambda: kgroups_rs.energy_statistics(labels, G=g))
    adjacency = np.abs(forged(200, first, second, transpose, values=(1e6, 1.0)))
    refuses(lambda: kgroups_rs.graph_partition(adjacency, 2, random_state=0))
    refuses(lambda: kgroups_rs.kernel_kgroups(scipy.sparse.csr_array(g), 2, random_state=0))


def test_the_estimator_refuses_a_forged_kernel() -> None:
    pytest.importorskip("sklearn")
    from kgroups_rs import KernelKGroups

    g = forged(200, (1, 198), (2, 197))
    refuses(lambda: KernelKGroups(2, kernel="precomputed", random_state=0).fit(g))


def test_forged_float32_sparse_kernel_is_refused() -> None:
    """In float32 a shift of one float32 ulp is 2**29 float64 ulps: the pairs (8192, 32768)
    and (0, 40960) have a² + b² − c² − d² = −2**29, so the forgery needs n > 40960 (a sparse
    matrix: the diagonal and the four forged entries)."""
    n = 40962
    (a, b), (c, d) = (8192, 32768), (0, 40960)
    delta = a * a + b * b - c * c - d * d
    assert delta == -(2**29)
    x, y = 1e6, -1e6
    rows = list(range(n)) + [a, b, c, d]
    cols = list(range(n)) + [b, a, d, c]
    values = [2.0] * n + [x, y, shifted(y, delta), shifted(x, delta)]
    g32 = scipy.sparse.csr_array((np.array(values, dtype=np.float32), (rows, cols)), shape=(n, n))
    assert np.float32(shifted(x, delta)) == shifted(x, delta)  # exact in float32
    refuses(lambda: kgroups_rs.kernel_kgroups(g32, 2, random_state=0))
    refuses(lambda: kgroups_rs.kernel_kgroups(g32.astype(np.float64), 2, random_state=0))


def test_a_one_sided_sparse_entry_is_refused() -> None:
    n = 200
    g = scipy.sparse.lil_array((n, n))
    g.setdiag(2.0)
    g[5, 150] = 1.0
    refuses(lambda: kgroups_rs.kernel_kgroups(g.tocsr(), 2, random_state=0))
