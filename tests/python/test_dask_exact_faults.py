"""Faults of the exact Dask fit (``kgroups_rs.dask.kernel_kgroups_exact``): a worker process
lost mid-fit, a client closed before or during the fit, chunks of one row and empty chunks,
NaN in one chunk, weights that are zero or not finite.

Every fit runs in a thread joined with a timeout, so a hang fails the test instead of the
suite. The rule: the fit finishes with the same labels and objective as an undisturbed fit, or
raises a clear exception; never a hang, never another answer.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from typing import Any, Callable

import numpy as np
import pytest

pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import kgroups_rs.dask as kgd  # noqa: E402

#: Seconds a fit may take before the test calls it a hang.
HANG = 60.0


@pytest.fixture
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture
def thread_cluster():
    """Two single-threaded workers in this process (no client: each test opens its own)."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        yield cluster


def blobs(n: int, dim: int, k: int, seed: int) -> np.ndarray:
    """As in test_dask_exact.py: k centres from N(0, 3^2), unit noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 3.0, size=(k, dim))
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, dim))


def seeded_start(X: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Every point to the nearest of k distinct data points chosen at random."""
    rng = np.random.default_rng(seed)
    centres = X[rng.choice(X.shape[0], size=k, replace=False)]
    return np.argmin(((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2), axis=1)


def finishes(call: Callable[[], Any], seconds: float = HANG) -> tuple[Any, Any]:
    """``(result, None)`` or ``(None, exception)`` of ``call`` run in a thread; fails the test
    when it has neither after ``seconds``."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = call()
        except BaseException as error:  # handed to the test
            box["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"the fit hung: no result and no exception after {seconds:.0f} s")
    return box.get("result"), box.get("error")


def alone(X: np.ndarray, k: int, init: np.ndarray, chunks: Any, **options: Any) -> Any:
    """The undisturbed fit on the synchronous scheduler: (labels, result)."""
    with dask.config.set(scheduler="synchronous"):
        result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(chunks, X.shape[1])), k, init, **options)
        return result.labels.compute(), result


# ----------------------------------------------------------------------------- worker lost
N_LOST, K_LOST, CHUNK_LOST = 20_000, 5, 2_500


@pytest.fixture(scope="module")
def lost_problem():
    """20 000 x 3 blobs, k = 5, its seeded start and the undisturbed fit's labels and result."""
    X = blobs(N_LOST, 3, K_LOST, 0)
    init = seeded_start(X, K_LOST, 1)
    labels, result = alone(X, K_LOST, init, CHUNK_LOST)
    assert result.verified and result.n_iter > 4
    return X, init, labels, result


@pytest.fixture
def process_cluster():
    """Two worker processes under nannies (which restart a killed one).

    A worker that was fetching a result from the killed one when it died can wait for
    ``distributed.comm.timeouts.connect`` (30 s by default) before it gives up and the lost
    results are recomputed: a stall, not a hang. 5 s here keeps the tests short (the nannies
    pass the setting to their workers)."""
    with dask.config.set({"distributed.comm.timeouts.connect": "5s"}), distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


def kill(pid: int) -> None:
    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))


def assert_same_fit(result: Any, labels: np.ndarray, reference_labels: np.ndarray, reference: Any) -> None:
    np.testing.assert_array_equal(labels, reference_labels)
    assert result.objective == reference.objective
    assert result.within == reference.within
    assert result.n_iter == reference.n_iter and result.n_moves == reference.n_moves
    assert result.verified and result.converged


def test_a_worker_killed_between_rounds_is_recomputed_to_the_same_fit(process_cluster, lost_problem):
    """After round 2 the worker process holding the most chunk states is killed (SIGKILL); its
    nanny starts a new one, and dask recomputes the lost states from their tasks: the same
    labels, objective and rounds as the undisturbed fit, verified."""
    client = process_cluster
    X, init, reference_labels, reference = lost_problem
    pids = client.run(os.getpid)
    killed: list[tuple[str, int, int]] = []

    def progress(start: int, round_: int, moves: int, objective: float) -> None:
        if round_ == 2 and not killed:
            held = {address: 0 for address in pids}
            for key, holders in client.who_has().items():
                if str(key).startswith("_commit_and_propose"):
                    for address in holders:
                        held[address] = held.get(address, 0) + 1
            victim = max(held, key=held.__getitem__)
            kill(pids[victim])
            killed.append((victim, pids[victim], held[victim]))

    def fit() -> tuple[Any, np.ndarray]:
        Xd = da.from_array(X, chunks=(CHUNK_LOST, 3))
        result = kgd.kernel_kgroups_exact(Xd, K_LOST, init, progress=progress)
        return result, result.labels.compute()

    done, error = finishes(fit)
    assert error is None, f"the fit raised {error!r} after a worker was lost"
    assert killed, "no worker was killed: the test proves nothing"
    _, pid, held = killed[0]
    assert held > 0, "the killed worker held no chunk state: the test proves nothing"
    assert pid not in client.run(os.getpid).values()
    result, labels = done
    assert_same_fit(result, labels, reference_labels, reference)


def test_a_worker_killed_during_the_final_pass_is_recomputed_to_the_same_fit(process_cluster, lost_problem):
    """A worker process killed while the tasks of the check's sums pass are running (after the
    last round): the same fit, verified."""
    client = process_cluster
    X, init, reference_labels, reference = lost_problem
    pids = client.run(os.getpid)
    killed: list[int] = []

    def kill_when_the_pass_runs() -> None:
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            processing = client.processing()
            running = [a for a, keys in processing.items() if any("_sums" in str(key) for key in keys)]
            if running:
                kill(pids[running[0]])
                killed.append(pids[running[0]])
                return
            time.sleep(0.01)

    def progress(start: int, round_: int, moves: int, objective: float) -> None:
        if moves == 0 and not killed:
            threading.Thread(target=kill_when_the_pass_runs, daemon=True).start()

    def fit() -> tuple[Any, np.ndarray]:
        Xd = da.from_array(X, chunks=(CHUNK_LOST, 3))
        result = kgd.kernel_kgroups_exact(Xd, K_LOST, init, progress=progress)
        return result, result.labels.compute()

    done, error = finishes(fit)
    assert error is None, f"the fit raised {error!r} after a worker was lost"
    assert killed, "no worker was killed during the pass: the test proves nothing"
    assert killed[0] not in client.run(os.getpid).values()
    result, labels = done
    assert_same_fit(result, labels, reference_labels, reference)


# ------------------------------------------------------------------------------ the client
def small_problem() -> tuple[np.ndarray, np.ndarray]:
    X = blobs(2000, 3, 4, 2)
    return X, seeded_start(X, 4, 0)


def test_a_closed_client_leaves_the_local_scheduler_which_fits_as_well(thread_cluster):
    """A client closed before the fit is no longer dask's scheduler: the fit runs on dask's
    local scheduler and gives the synchronous fit's labels."""
    X, init = small_problem()
    reference_labels, reference = alone(X, 4, init, 500)
    client = distributed.Client(thread_cluster)
    client.close()
    with pytest.raises(ValueError):
        distributed.get_client()

    def fit() -> tuple[Any, np.ndarray]:
        result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(500, 3)), 4, init)
        return result, result.labels.compute()

    done, error = finishes(fit)
    assert error is None, f"the fit raised {error!r} without a client"
    assert_same_fit(*done, reference_labels, reference)


def close_after_round_two(client: Any) -> Callable[[int, int, int, float], None]:
    def progress(start: int, round_: int, moves: int, objective: float) -> None:
        if round_ == 2:
            client.close()

    return progress


def test_a_client_closed_between_rounds_raises_and_does_not_hang(thread_cluster):
    """The client closed after round 2 (the chunk states it held are gone): the fit raises."""
    X, init = small_problem()
    client = distributed.Client(thread_cluster)
    progress = close_after_round_two(client)
    result, error = finishes(
        lambda: kgd.kernel_kgroups_exact(
            da.from_array(X, chunks=(500, 3)), 4, init, max_moves_per_round=16, progress=progress
        )
    )
    assert client.status == "closed"
    assert result is None and isinstance(error, Exception), f"no error: {result!r}"


def test_a_client_closed_between_rounds_is_named_in_the_error(thread_cluster):
    X, init = small_problem()
    client = distributed.Client(thread_cluster)
    progress = close_after_round_two(client)
    _, error = finishes(
        lambda: kgd.kernel_kgroups_exact(
            da.from_array(X, chunks=(500, 3)), 4, init, max_moves_per_round=16, progress=progress
        )
    )
    assert error is not None and re.search(r"(?i)client\b.*\bclosed|closed client", str(error)), repr(error)


def test_a_client_closed_while_a_pass_runs_raises_a_cancelled_error(thread_cluster):
    """The client closed while the tasks of the first sums pass run: the futures the fit waits
    on are cancelled, and the fit raises at once, naming the closed client."""
    X = blobs(12_000, 3, 4, 2)
    init = seeded_start(X, 4, 0)
    client = distributed.Client(thread_cluster)
    closed: list[float] = []

    def close_when_the_pass_runs() -> None:
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            if any(
                ts.state == "processing" and str(key).startswith(("_within_sums", "_cross_sums"))
                for key, ts in list(thread_cluster.scheduler.tasks.items())
            ):
                client.close()
                closed.append(time.monotonic())
                return
            time.sleep(0.005)

    watcher = threading.Thread(target=close_when_the_pass_runs, daemon=True)
    watcher.start()
    result, error = finishes(lambda: kgd.kernel_kgroups_exact(da.from_array(X, chunks=(3000, 3)), 4, init))
    watcher.join(HANG)
    assert closed, "the client was not closed during the pass: the test proves nothing"
    assert result is None and isinstance(error, RuntimeError), repr(error if error else result)
    assert "client" in str(error) and "closed" in str(error)


# -------------------------------------------------------------------------------- the chunks
@pytest.mark.parametrize(
    "chunks", [(40, 0, 1, 34, 25, 200), (0, 1, 299), (299, 1, 0), (1,) * 3 + (0,) * 2 + (297,)]
)
def test_chunks_of_one_row_and_empty_chunks_give_the_same_fit(synchronous, chunks):
    X = blobs(300, 3, 4, 2)
    init = seeded_start(X, 4, 0)
    reference_labels, reference = alone(X, 4, init, 300)
    result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(chunks, 3)), 4, init)
    assert result.labels.chunks[0] == chunks
    assert_same_fit(result, result.labels.compute(), reference_labels, reference)
    # And from k-means++: the same seed, the same labels.
    seeded = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(300, 3)), 4, random_state=5)
    again = kgd.kernel_kgroups_exact(da.from_array(X, chunks=(chunks, 3)), 4, random_state=5)
    np.testing.assert_array_equal(again.labels.compute(), seeded.labels.compute())
    assert again.objective == seeded.objective


def test_empty_chunks_with_sums_passes_of_many_blocks(synchronous, monkeypatch):
    """Blocks of 64 rows cut across the one-row and the empty chunks: the same fit."""
    X = blobs(300, 3, 4, 2)
    init = seeded_start(X, 4, 0)
    reference_labels, reference = alone(X, 4, init, 300)
    monkeypatch.setattr("kgroups_rs.dask._exact.PASS_BLOCK_MIN", 64)
    monkeypatch.setattr("kgroups_rs.dask._exact.PASS_BLOCK_MAX", 64)
    result = kgd.kernel_kgroups_exact(da.from_array(X, chunks=((63, 0, 1, 0, 100, 136), 3)), 4, init)
    np.testing.assert_array_equal(result.labels.compute(), reference_labels)
    assert result.objective == pytest.approx(reference.objective, rel=1e-12)
    assert result.verified


@pytest.mark.parametrize(
    "row, column, value",
    [
        (75, 1, np.nan),
        (40, 2, np.nan),
        (0, 0, np.nan),
        (41, 0, np.inf),
        (299, 2, -np.inf),
    ],
)
def test_a_non_finite_value_in_one_chunk_is_named_by_its_row_and_column(synchronous, row, column, value):
    """Chunks (40, 0, 1, 34, 25, 200): the error names the global row (offsets count the empty
    and the one-row chunks) and the column."""
    X = blobs(300, 3, 4, 2)
    init = seeded_start(X, 4, 0)
    X[row, column] = value
    Xd = da.from_array(X, chunks=((40, 0, 1, 34, 25, 200), 3))
    expected = f"invalid `X`: X contains NaN or infinity at row {row}, column {column} (value {value})"
    with pytest.raises(ValueError, match=re.escape(expected)):
        kgd.kernel_kgroups_exact(Xd, 4, init)
    with pytest.raises(ValueError, match=re.escape(expected)):
        kgd.kernel_kgroups_exact(Xd, 4, random_state=0)


def test_values_too_large_to_add_up_are_a_clear_error(synchronous):
    X = blobs(100, 2, 2, 0)
    X[3, 0] = X[4, 0] = 1e308
    with pytest.raises(ValueError, match=r"invalid `X`.*(?i:overflow|too large)"):
        kgd.kernel_kgroups_exact(da.from_array(X, chunks=50), 2, random_state=0)


# ------------------------------------------------------------------------------- the weights
@pytest.mark.parametrize(
    "bad, shown", [(0.0, "0.0"), (-1.0, "-1.0"), (np.nan, "nan"), (-np.inf, "-inf")]
)
@pytest.mark.parametrize("init", ["k-means++", "seeded"])
def test_a_weight_not_positive_is_a_clear_error(synchronous, bad, shown, init):
    """One weight (in a chunk of its own row) zero, negative or NaN: a ValueError naming
    ``weights``, the row and the weight, before any sums pass."""
    X = blobs(300, 3, 4, 2)
    weights = np.ones(300)
    weights[40] = bad
    start = seeded_start(X, 4, 0) if init == "seeded" else init
    expected = f"invalid `weights`: weights[40] = {shown}; every weight must be finite and > 0"
    with pytest.raises(ValueError, match=re.escape(expected)):
        kgd.kernel_kgroups_exact(da.from_array(X, chunks=((40, 1, 259), 3)), 4, start, weights=weights)


def test_an_infinite_weight_is_named_by_its_row(synchronous):
    n = 9000
    X = blobs(n, 2, 3, 2)
    weights = np.ones(n)
    weights[5000] = np.inf
    with pytest.raises(ValueError, match=r"`weights`.*\b5000\b"):
        kgd.kernel_kgroups_exact(da.from_array(X, chunks=(3000, 2)), 3, np.arange(n) % 3, weights=weights)
