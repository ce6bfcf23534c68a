"""A process forked after the library has run (``os.fork()``, ``multiprocessing``'s fork
start method, joblib's ``multiprocessing`` backend) gets working thread pools of its own.

The thread pools a child inherits are dead (their threads exist only in the parent): every
entry point must build fresh ones in the child and give the parent's results there. A hang
becomes a test failure: every child runs under a deadline and is killed when it passes.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Optional

import kgroups_rs
import numpy as np
import pytest
import scipy.sparse as sp
from _interrupt import long_call

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX only"),
    # Python 3.12+ warns that forking a process with threads may deadlock: the subject here.
    pytest.mark.filterwarnings("ignore:.*multi-threaded.*fork.*:DeprecationWarning"),
]

# A child's calls take milliseconds; the deadline is for a loaded machine.
DEADLINE = 20.0


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(c, 0.5, size=(40, 3)) for c in (0.0, 3.0, 6.0)])
    y = np.repeat([0, 1, 2], 40)
    return X, y


X, Y_TRUE = _data()
G = kgroups_rs.energy_gram(X)
R = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
G_CSR = sp.csr_array(np.where(np.abs(G) > 0.5, G, 0.0))

# Every entry point, as a call of the parent's thread count; each returns something to compare.
CALLS: dict[str, Callable[[Optional[int]], Any]] = {
    "kernel_kgroups": lambda t: kgroups_rs.kernel_kgroups(G, 3, random_state=0, n_threads=t).labels,
    "kernel_kmeans": lambda t: kgroups_rs.kernel_kmeans(G, 3, random_state=0, n_threads=t).labels,
    "kernel_kgroups_csr": lambda t: kgroups_rs.kernel_kgroups(G_CSR, 3, random_state=0, n_threads=t).labels,
    "energy_gram": lambda t: kgroups_rs.energy_gram(X, n_threads=t),
    "energy_gram_gaussian": lambda t: kgroups_rs.energy_gram(X, semimetric="gaussian", n_threads=t),
    "gram_from_semimetric": lambda t: kgroups_rs.gram_from_semimetric(R, n_threads=t),
    "bandwidth": lambda t: kgroups_rs.bandwidth(X),
    "kernel_kgroups_from_data": lambda t: (
        kgroups_rs.kernel_kgroups_from_data(X, 3, random_state=0, n_threads=t).labels
    ),
    "energy_statistics": lambda t: kgroups_rs.energy_statistics(Y_TRUE, X=X, n_threads=t).within,
    "energy_distance": lambda t: kgroups_rs.energy_distance(X[:40], X[40:], n_threads=t),
    "nystrom": lambda t: (
        kgroups_rs.kernel_kgroups_nystrom(X, 3, n_components=20, random_state=0, n_threads=t).labels
    ),
    "KernelKGroups.fit": lambda t: kgroups_rs.KernelKGroups(3, random_state=0, n_threads=t).fit(X).labels_,
    "kgroups_1d": lambda t: kgroups_rs.kgroups_1d(X[:, 0], 3).labels,
    "clustering_accuracy": lambda t: kgroups_rs.clustering_accuracy(Y_TRUE, Y_TRUE[::-1]),
}
THREADS = pytest.mark.parametrize("n_threads", [None, 1], ids=["n_threads=None", "n_threads=1"])


def _same(a: Any, b: Any) -> bool:
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def in_fork(work: Callable[[], None], deadline: float = DEADLINE) -> None:
    """Run ``work`` in a child made by ``os.fork()``; fail if it raises, or if it has not
    ended ``deadline`` s later (then it is killed)."""
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            work()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    end = time.monotonic() + deadline
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail(f"the forked child hung: killed after {deadline:.0f} s")
        time.sleep(0.005)
    assert os.waitstatus_to_exitcode(status) == 0, "the forked child failed (its traceback is above)"


def _checked(name: str, n_threads: Optional[int], expected: Any) -> Callable[[], None]:
    def work() -> None:
        got = CALLS[name](n_threads)
        assert _same(got, expected), f"{name} in the child differs from the parent"

    return work


@THREADS
@pytest.mark.parametrize("name", list(CALLS))
def test_entry_point_works_in_a_forked_child(name: str, n_threads: Optional[int]) -> None:
    # The parent runs a clustering (which starts its thread pool) and the call itself.
    kgroups_rs.kernel_kgroups(G, 3, random_state=1, n_threads=n_threads)
    expected = CALLS[name](n_threads)
    in_fork(_checked(name, n_threads, expected))


@THREADS
def test_a_grandchild_works(n_threads: Optional[int]) -> None:
    """A child that used the library forks again: the grandchild gets its own pools too."""
    expected = {name: CALLS[name](n_threads) for name in ("kernel_kgroups", "energy_gram", "nystrom")}

    def child() -> None:
        for name, value in expected.items():
            assert _same(CALLS[name](n_threads), value), name
        for name, value in expected.items():
            in_fork(_checked(name, n_threads, value), DEADLINE / 2)

    in_fork(child)


@THREADS
def test_parent_keeps_working_after_forks(n_threads: Optional[int]) -> None:
    """Forks leave the parent's own pools intact."""
    expected = CALLS["kernel_kgroups_from_data"](n_threads)
    in_fork(_checked("kernel_kgroups", n_threads, CALLS["kernel_kgroups"](n_threads)))
    assert _same(CALLS["kernel_kgroups_from_data"](n_threads), expected)


def test_fork_while_another_thread_is_in_a_call() -> None:
    """A fork while another thread of the parent is inside a call (its pool busy, its thread
    absent from the child): the child still works."""
    expected = CALLS["kernel_kgroups"](None)
    busy = threading.Thread(target=long_call(1.0, n_threads=None))
    busy.start()
    try:
        time.sleep(0.2)
        in_fork(_checked("kernel_kgroups", None, expected))
    finally:
        busy.join()


def _pool_task(name: str) -> Any:
    return CALLS[name](None)


POOL_NAMES = ["kernel_kgroups", "kernel_kgroups_csr", "energy_gram", "kernel_kgroups_from_data", "nystrom"]


def test_multiprocessing_fork_pool() -> None:
    expected = [CALLS[name](None) for name in POOL_NAMES]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pending = pool.map_async(_pool_task, POOL_NAMES)
        try:
            results = pending.get(timeout=DEADLINE)
        except multiprocessing.TimeoutError:
            pytest.fail(f"the fork-method Pool's workers hung: no results after {DEADLINE:.0f} s")
    assert all(_same(a, b) for a, b in zip(results, expected))


def test_joblib_multiprocessing_backend() -> None:
    joblib = pytest.importorskip("joblib")
    expected = [CALLS[name](None) for name in POOL_NAMES]
    parallel = joblib.Parallel(n_jobs=2, backend="multiprocessing", timeout=DEADLINE)
    try:
        results = parallel(joblib.delayed(_pool_task)(name) for name in POOL_NAMES)
    except (TimeoutError, multiprocessing.TimeoutError):
        pytest.fail(f"joblib's multiprocessing workers hung: no results after {DEADLINE:.0f} s")
    assert all(_same(a, b) for a, b in zip(results, expected))
