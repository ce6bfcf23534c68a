"""Every long call releases the GIL and stops at Ctrl-C.

Each call runs in the main thread (where Python delivers signals) while another Python thread
counts; another process sends a real SIGINT 1 s in. The counter must keep counting (the GIL
is released) and the KeyboardInterrupt must come within a second. The calls use one thread
(``n_threads=1`` where there is one) so that each takes many seconds on any machine; the
interrupt ends it early, so the test itself is short.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import kgroups_rs
import numpy as np
import pytest
import scipy.sparse as sp
from _interrupt import interrupted_while_counting

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="os.kill sends no SIGINT on Windows")

LATENCY = 1.0  # seconds from SIGINT to KeyboardInterrupt
DELAY = 1.0  # seconds from the start of the call to SIGINT
# The longest the counter may wait during the call: a call holding the GIL stalls it for the
# whole call, more than DELAY; a loaded machine may leave a thread unscheduled for a while.
STALL = 0.5


def _data(n: int, dim: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, dim))


def _accuracy() -> Callable[[], Any]:
    # 3000 random labels per side: the assignment on a ~1900 x 1900 contingency table.
    rng = np.random.default_rng(1)
    y_true, y_pred = rng.integers(0, 3000, 3000), rng.integers(0, 3000, 3000)
    return lambda: kgroups_rs.clustering_accuracy(y_true, y_pred)


def _dense() -> Callable[[], Any]:
    G = kgroups_rs.energy_gram(_data(2000, 5, 2))
    return lambda: kgroups_rs.kernel_kgroups(G, 40, n_init=100_000, random_state=0, n_threads=1)


def _csr() -> Callable[[], Any]:
    rng = np.random.default_rng(3)
    n, m = 20_000, 200_000
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.csr_array((np.ones(2 * m), (np.r_[rows, cols], np.r_[cols, rows])), shape=(n, n))
    A.sum_duplicates()
    return lambda: kgroups_rs.kernel_kgroups(A, 10, n_init=100_000, random_state=0, n_threads=1)


def _from_data() -> Callable[[], Any]:
    X = _data(20_000, 3, 4)
    return lambda: kgroups_rs.kernel_kgroups_from_data(X, 10, n_init=1000, random_state=0, n_threads=1)


def _energy_gram() -> Callable[[], Any]:
    X = _data(6000, 4000, 5)  # 6000^2 / 2 pairs of 4000 coordinates on one thread
    return lambda: kgroups_rs.energy_gram(X, dtype=np.float32, n_threads=1)


def _statistics() -> Callable[[], Any]:
    X = _data(60_000, 3, 6)  # 1.8e9 pairs, a powf each
    labels = np.arange(len(X)) % 5
    return lambda: kgroups_rs.energy_statistics(labels, X=X, alpha=1.5, n_threads=1)


def _distance() -> Callable[[], Any]:
    X = _data(60_000, 3, 7)
    return lambda: kgroups_rs.energy_distance(X, X[::-1], alpha=1.5, n_threads=1)


def _one_d() -> Callable[[], Any]:
    x = np.random.default_rng(8).normal(size=2_000_000)
    return lambda: kgroups_rs.kgroups_1d(x, 60)


def _nystrom() -> Callable[[], Any]:
    X = _data(200_000, 10, 9)
    return lambda: kgroups_rs.nystrom_features(X, 2000, landmarks="k-means++", random_state=0, n_threads=1)


LONG_CALLS: dict[str, Callable[[], Callable[[], Any]]] = {
    "clustering_accuracy": _accuracy,
    "kernel_kgroups dense": _dense,
    "kernel_kgroups CSR": _csr,
    "kernel_kgroups_from_data": _from_data,
    "energy_gram": _energy_gram,
    "energy_statistics": _statistics,
    "energy_distance": _distance,
    "kgroups_1d": _one_d,
    "nystrom_features": _nystrom,
}


@pytest.mark.parametrize("name", list(LONG_CALLS))
def test_long_call_releases_the_gil_and_stops_at_sigint(name: str) -> None:
    call = LONG_CALLS[name]()
    latency, stall = interrupted_while_counting(call, DELAY)
    assert stall < STALL, f"{name} held the GIL: the other thread waited {stall:.2f} s"
    assert latency < LATENCY, f"{name}: KeyboardInterrupt came {latency:.2f} s after SIGINT"
