"""Bad inputs raise ValueError/TypeError naming the argument; panics and Ctrl-C are handled.

Every error test uses ``pytest.raises(..., match=...)`` so that a message that stops naming
the offending argument fails the test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from typing import Any, Callable

import kgroups_rs
import numpy as np
import pytest
from _interrupt import interrupt_main, interrupted_after, long_call, send_sigint
from reference import random_psd

N = 8


@pytest.fixture(scope="module")
def G() -> np.ndarray:
    return random_psd(N, np.random.default_rng(0))


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "hartigan": kgroups_rs.kernel_kgroups,
    "lloyd": lambda *a, **kw: kgroups_rs.kernel_kmeans(*a, algorithm="lloyd", **kw),
    "lloyd-online": lambda *a, **kw: kgroups_rs.kernel_kmeans(*a, algorithm="lloyd-online", **kw),
}
ALL = pytest.mark.parametrize("fit", list(FUNCTIONS.values()), ids=list(FUNCTIONS))


# --------------------------------------------------------------------------------------- G


@ALL
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_non_finite_G(fit: Callable[..., Any], G: np.ndarray, bad: float, dtype: Any) -> None:
    H = G.astype(dtype)
    H[2, 5] = H[5, 2] = bad
    with pytest.raises(ValueError, match=r"\bG\b.*(NaN|inf)"):
        fit(H, 2)
    H = G.astype(dtype)
    H[N - 1, N - 1] = bad  # on the diagonal
    with pytest.raises(ValueError, match=r"\bG\b"):
        fit(H, 2)


@ALL
@pytest.mark.parametrize(
    "shape",
    [(N,), (N, N, 1), (2, N, N), (N, N - 1), (N - 1, N), (0, 0), (0, 3), (1, 0), ()],
)
def test_G_of_wrong_shape(fit: Callable[..., Any], shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match=r"\bG\b"):
        fit(np.ones(shape), 1)


@ALL
def test_empty_G(fit: Callable[..., Any]) -> None:
    with pytest.raises(ValueError, match=r"\bG\b.*empty"):
        fit(np.zeros((0, 0)), 1)


@ALL
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_asymmetric_G(fit: Callable[..., Any], G: np.ndarray, dtype: Any) -> None:
    H = G.astype(dtype)
    H[1, 6] += 0.5
    with pytest.raises(ValueError, match=r"symmetric"):
        fit(H, 2)
    H = G.astype(dtype)
    H[6, 1] *= 1.001  # small, but far above the tolerance
    with pytest.raises(ValueError, match=r"\bG\b.*symmetric"):
        fit(H, 2)


def test_asymmetry_in_a_large_matrix_is_found() -> None:
    G = random_psd(300, np.random.default_rng(1), rank=4)
    G[290, 17] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        kgroups_rs.kernel_kgroups(G, 2)


def test_rounding_level_asymmetry_is_accepted() -> None:
    rng = np.random.default_rng(2)
    A = rng.normal(size=(20, 20))
    G = A @ A.T  # symmetric only up to rounding in general
    G[3, 4] = G[4, 3] * (1 + 1e-13)
    kgroups_rs.kernel_kgroups(G, 2, random_state=0)


@ALL
@pytest.mark.parametrize(
    "make",
    [
        lambda G: G.astype(np.complex128),
        lambda G: G.astype(object),
        lambda G: G.astype(str),
    ],
    ids=["complex", "object", "str"],
)
def test_G_of_wrong_dtype(fit: Callable[..., Any], G: np.ndarray, make: Callable[..., Any]) -> None:
    with pytest.raises(TypeError, match=r"\bG\b"):
        fit(make(G), 2)


# --------------------------------------------------------------------------------- weights


@ALL
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 0.0, -1.0, -1e-300])
def test_bad_weight_values(fit: Callable[..., Any], G: np.ndarray, bad: float) -> None:
    w = np.ones(N)
    w[3] = bad
    with pytest.raises(ValueError, match=r"weights"):
        fit(G, 2, weights=w)


@ALL
@pytest.mark.parametrize(
    "w",
    [np.ones(N - 1), np.ones(N + 1), np.ones((N, 1)), np.ones((1, N)), np.ones((N, N)), np.ones(())],
    ids=["short", "long", "column", "row", "square", "scalar"],
)
def test_weights_of_wrong_shape(fit: Callable[..., Any], G: np.ndarray, w: np.ndarray) -> None:
    with pytest.raises(ValueError, match=r"weights"):
        fit(G, 2, weights=w)


def test_weights_of_wrong_dtype(G: np.ndarray) -> None:
    with pytest.raises(TypeError, match=r"weights"):
        kgroups_rs.kernel_kgroups(G, 2, weights=np.ones(N, dtype=complex))
    with pytest.raises(TypeError, match=r"weights"):
        kgroups_rs.kernel_kgroups(G, 2, weights=["a"] * N)


# --------------------------------------------------------------------------------------- k


@ALL
@pytest.mark.parametrize("k", [0, -1, N + 1, 10**6])
def test_k_out_of_range(fit: Callable[..., Any], G: np.ndarray, k: int) -> None:
    with pytest.raises(ValueError, match=r"\bk\b"):
        fit(G, k)


@ALL
@pytest.mark.parametrize("k", [2.0, 2.5, True, False, "2", None, np.float64(2.0)])
def test_k_of_wrong_type(fit: Callable[..., Any], G: np.ndarray, k: Any) -> None:
    with pytest.raises(TypeError, match=r"\bk\b"):
        fit(G, k)


@pytest.mark.parametrize("k", [0, -1, N + 1, 2**63, 2**70])
def test_k_errors_state_the_rule_not_an_internal_bound(G: np.ndarray, k: int) -> None:
    """The message says what k may be (or that it cannot reach the core), never an internal
    bound such as the 2**62 the Python layer once used."""
    with pytest.raises(ValueError) as info:
        kgroups_rs.kernel_kgroups(G, k)
    message = str(info.value)
    assert "4611686018427387904" not in message, message
    rule = rf"k must be (at least 1|between 1 and n = {N} \(the number of points\)), got {k}$"
    assert re.search(rule, message) or message == f"k = {k} is too large: it does not fit in 64 bits", message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_init": 0}, r"n_init must be between 1 and 1000000, got 0"),
        ({"n_init": 2**64}, r"n_init = 18446744073709551616 is too large: it does not fit in 64 bits"),
        ({"max_iter": 0}, r"max_iter must be at least 1, got 0"),
        ({"n_threads": 1025}, r"n_threads must be between 1 and 1024, got 1025"),
    ],
)
def test_count_errors_state_the_rule(G: np.ndarray, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        kgroups_rs.kernel_kgroups(G, 2, **kwargs)


def test_numpy_integer_k_is_accepted(G: np.ndarray) -> None:
    r = kgroups_rs.kernel_kgroups(G, np.int32(3), random_state=0)
    assert set(r.labels.tolist()) == {0, 1, 2}


# ------------------------------------------------------------------------------------ init


@ALL
@pytest.mark.parametrize("length", [N - 1, N + 1, 0])
def test_init_labels_of_wrong_length(fit: Callable[..., Any], G: np.ndarray, length: int) -> None:
    labels = np.arange(length) % 2
    with pytest.raises(ValueError, match=r"\binit\b"):
        fit(G, 2, labels)


@ALL
def test_init_labels_2d(fit: Callable[..., Any], G: np.ndarray) -> None:
    with pytest.raises(ValueError, match=r"\binit\b"):
        fit(G, 2, (np.arange(N) % 2).reshape(2, -1))


@ALL
@pytest.mark.parametrize("bad", [2, 3, -1, -(2**40)])
def test_init_labels_out_of_range(fit: Callable[..., Any], G: np.ndarray, bad: int) -> None:
    labels = np.arange(N) % 2
    labels[4] = bad
    with pytest.raises(ValueError, match=r"\binit\b"):
        fit(G, 2, labels)


@ALL
def test_init_labels_leaving_a_cluster_empty(fit: Callable[..., Any], G: np.ndarray) -> None:
    labels = np.array([0, 0, 2, 2, 0, 2, 0, 0])  # cluster 1 empty
    with pytest.raises(ValueError, match=r"\binit\b.*empty"):
        fit(G, 3, labels)
    with pytest.raises(ValueError, match=r"\binit\b.*empty"):
        fit(G, 2, np.zeros(N, dtype=np.int64))


@ALL
@pytest.mark.parametrize(
    "labels",
    [
        (np.arange(N) % 2).astype(np.float64),
        (np.arange(N) % 2).astype(np.float32),
        (np.arange(N) % 2).astype(bool),
        [0.0, 1.0] * (N // 2),
        np.array(["0", "1"] * (N // 2)),
    ],
    ids=["float64", "float32", "bool", "float-list", "str"],
)
def test_init_labels_of_wrong_dtype(fit: Callable[..., Any], G: np.ndarray, labels: Any) -> None:
    with pytest.raises(TypeError, match=r"\binit\b"):
        fit(G, 2, labels)


@ALL
def test_init_labels_with_several_starts(fit: Callable[..., Any], G: np.ndarray) -> None:
    with pytest.raises(ValueError, match=r"n_init"):
        fit(G, 2, np.arange(N) % 2, n_init=2)
    fit(G, 2, np.arange(N) % 2, n_init=1)  # fine


@ALL
@pytest.mark.parametrize("init", ["kmeans++", "K-MEANS++", "", "labels", "farthest"])
def test_unknown_init_string(fit: Callable[..., Any], G: np.ndarray, init: str) -> None:
    with pytest.raises(ValueError, match=r"\binit\b"):
        fit(G, 2, init)


@pytest.mark.parametrize("variant", ["Batch", "lloyd", "", "hartigan", 1])
def test_unknown_variant(G: np.ndarray, variant: Any) -> None:
    with pytest.raises(ValueError, match=r"variant must be 'batch' or 'online'"):
        kgroups_rs.kernel_kmeans(G, 2, variant=variant)


@pytest.mark.parametrize(
    ("call", "bad"),
    [
        (kgroups_rs.kernel_kgroups, "lloyd-batch"),
        (kgroups_rs.kernel_kgroups, "Hartigan"),
        (kgroups_rs.kernel_kgroups, None),
        (kgroups_rs.kernel_kmeans, "hartigan"),
        (kgroups_rs.kernel_kmeans, "batch"),
        (kgroups_rs.graph_partition, "online"),
    ],
)
def test_unknown_algorithm(G: np.ndarray, call: Any, bad: Any) -> None:
    with pytest.raises(ValueError, match=r"algorithm must be one of '(hartigan|lloyd)'"):
        call(np.abs(G), 2, algorithm=bad)


@pytest.mark.parametrize(("variant", "algorithm"), [("batch", "lloyd"), ("online", "lloyd-online")])
def test_variant_is_a_deprecated_alias_of_algorithm(G: np.ndarray, variant: str, algorithm: str) -> None:
    with pytest.warns(FutureWarning, match=rf"algorithm='{algorithm}' instead of variant='{variant}'"):
        old = kgroups_rs.kernel_kmeans(G, 2, "random", variant=variant, random_state=1)
    new = kgroups_rs.kernel_kmeans(G, 2, "random", algorithm=algorithm, random_state=1)
    np.testing.assert_array_equal(old.labels, new.labels)
    assert old.objective == new.objective
    with pytest.raises(ValueError, match="contradicts"):
        kgroups_rs.kernel_kmeans(G, 2, variant="batch", algorithm="lloyd-online")


def test_kernel_kgroups_runs_every_algorithm(G: np.ndarray) -> None:
    init = np.arange(G.shape[0]) % 2
    for algorithm in ("lloyd", "lloyd-online"):
        via_kgroups = kgroups_rs.kernel_kgroups(G, 2, init, algorithm=algorithm)
        via_kmeans = kgroups_rs.kernel_kmeans(G, 2, init, algorithm=algorithm)
        np.testing.assert_array_equal(via_kgroups.labels, via_kmeans.labels)
        assert via_kgroups.n_iter == via_kmeans.n_iter


# --------------------------------------------------------------------- n_init, max_iter, ...


@ALL
@pytest.mark.parametrize("name", ["n_init", "max_iter", "n_threads"])
@pytest.mark.parametrize("value", [0, -3])
def test_counts_below_one(fit: Callable[..., Any], G: np.ndarray, name: str, value: int) -> None:
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        fit(G, 2, **{name: value})


@ALL
@pytest.mark.parametrize("name", ["n_init", "max_iter", "n_threads"])
@pytest.mark.parametrize("value", [1.0, "3", True])
def test_counts_of_wrong_type(fit: Callable[..., Any], G: np.ndarray, name: str, value: Any) -> None:
    with pytest.raises(TypeError, match=rf"\b{name}\b"):
        fit(G, 2, **{name: value})


@ALL
@pytest.mark.parametrize("value", [-1, -(2**70)])
def test_negative_random_state(fit: Callable[..., Any], G: np.ndarray, value: int) -> None:
    with pytest.raises(ValueError, match=r"random_state"):
        fit(G, 2, random_state=value)


@ALL
@pytest.mark.parametrize("value", ["42", 1.5, True, [1, 2], object()])
def test_random_state_of_wrong_type(fit: Callable[..., Any], G: np.ndarray, value: Any) -> None:
    with pytest.raises(TypeError, match=r"random_state"):
        fit(G, 2, random_state=value)


def test_progress_not_callable(G: np.ndarray) -> None:
    with pytest.raises(TypeError, match=r"progress"):
        kgroups_rs.kernel_kgroups(G, 2, progress=42)


def test_errors_leave_the_module_usable(G: np.ndarray) -> None:
    with pytest.raises(ValueError):
        kgroups_rs.kernel_kgroups(G, 0)
    r = kgroups_rs.kernel_kgroups(G, 2, random_state=0)
    assert r.converged


# -------------------------------------------------------------------------- panic and Ctrl-C


# A Rust panic becoming a RuntimeError (not pyo3's PanicException) is tested in the binding
# crate's own tests (bindings/python/src/detach.rs), without a test hook in the module.








SENDERS = pytest.mark.parametrize("send", [send_sigint, interrupt_main], ids=["os.kill", "interrupt_main"])





@SENDERS
def test_ctrl_c_interrupts_a_long_call(send: Callable[[], None]) -> None:
    latency = interrupted_after(long_call(30.0), send)
    assert latency < 1.5, f"KeyboardInterrupt came {latency:.2f} s after the signal"


def test_a_long_call_without_interrupt_returns() -> None:
    """A call that runs through many polls of the signal loop returns its result, promptly."""
    call = long_call(0.5)
    start = time.perf_counter()
    result = call()
    took = time.perf_counter() - start
    assert result.converged and result.labels.shape == (2000,)
    assert took < 5.0, f"a call calibrated to about 0.5 s took {took:.2f} s"


@pytest.mark.slow
def test_ctrl_c_tests_pass_in_a_suite_started_with_sigint_ignored() -> None:
    """A suite started as a background job (``bash .ci/run &``, ``nohup``) inherits SIGINT
    ignored; its Ctrl-C tests must still pass (conftest.py installs Python's handler)."""
    if sys.platform == "win32":
        pytest.skip("SIGINT ignored at start is a POSIX shell's background job")
    here = os.path.dirname(os.path.abspath(__file__))
    test = f"{os.path.basename(__file__)}::test_ctrl_c_interrupts_a_long_call"
    # `trap '' INT` leaves SIGINT ignored for what the shell runs, as for a background job.
    command = f"trap '' INT; exec \"$0\" -m pytest -q -p no:cacheprovider '{test}'"
    run = subprocess.run(
        ["sh", "-c", command, sys.executable],
        cwd=here,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "2 passed" in run.stdout, run.stdout[-3000:]


@pytest.fixture(scope="module")
def big_G() -> np.ndarray:
    return random_psd(4000, np.random.default_rng(3), rank=10)


LONG_N_INIT = 200


@SENDERS
def test_ctrl_c_interrupts_clustering(big_G: np.ndarray, send: Callable[[], None]) -> None:
    """A long multi-start run stops within 1.5 s of Ctrl-C."""
    # Calibrate: the interrupted run must be long (> 2 s), or the test proves nothing.
    start = time.perf_counter()
    kgroups_rs.kernel_kgroups(big_G, 50, n_init=2, max_iter=10_000, random_state=0)
    per_start = (time.perf_counter() - start) / 2
    cores = os.cpu_count() or 1
    assert per_start * LONG_N_INIT / cores > 2.0, "the uninterrupted run would be too short"

    latency = interrupted_after(
        lambda: kgroups_rs.kernel_kgroups(big_G, 50, n_init=LONG_N_INIT, max_iter=10_000, random_state=0),
        send,
    )
    assert latency < 1.5, f"KeyboardInterrupt came {latency:.2f} s after the signal"
    # And the module still works.
    assert kgroups_rs.kernel_kgroups(big_G[:50, :50], 3, random_state=0).converged


def test_ctrl_c_interrupts_lloyd(big_G: np.ndarray) -> None:
    latency = interrupted_after(
        lambda: kgroups_rs.kernel_kmeans(
            big_G, 50, n_init=LONG_N_INIT, max_iter=10_000, random_state=0, n_threads=2
        ),
        send_sigint,
    )
    assert latency < 1.5, f"KeyboardInterrupt came {latency:.2f} s after the signal"


def test_ctrl_c_with_progress_callback(big_G: np.ndarray) -> None:
    events: list[Any] = []
    latency = interrupted_after(
        lambda: kgroups_rs.kernel_kgroups(
            big_G, 50, n_init=LONG_N_INIT, random_state=0, progress=lambda *e: events.append(e)
        ),
        send_sigint,
        delay=1.0,
    )
    assert latency < 1.5
    assert events, "progress was never called before the interrupt"


# ------------------------------------------------------------------------- threads and GIL


def test_gil_is_released_while_clustering(big_G: np.ndarray) -> None:
    """Another Python thread keeps running while the core works."""
    ticks: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.002)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        start = time.perf_counter()
        # Repeat until the core has run long enough for a held GIL to show (on a fast
        # machine one call may take well under 0.2 s).
        call_seconds: list[float] = []
        while time.perf_counter() - start < 0.5:
            call_start = time.perf_counter()
            kgroups_rs.kernel_kgroups(big_G, 50, n_init=8, random_state=len(call_seconds))
            call_seconds.append(time.perf_counter() - call_start)
        end = time.perf_counter()
    finally:
        stop.set()
        thread.join()
    during = [t for t in ticks if start <= t <= end]
    gaps = np.diff([start, *during, end])
    # A held GIL would block the ticker for a whole call; released, it wakes every ~2 ms.
    assert min(call_seconds) > 0.05, "the calls are too short to tell"
    assert len(during) > 20, f"the other thread ran only {len(during)} times in {end - start:.2f} s"
    assert gaps.max() < 0.5 * min(call_seconds), (
        f"the other thread was blocked for {gaps.max():.3f} s; one call takes {min(call_seconds):.3f} s"
    )


def test_concurrent_calls_from_python_threads() -> None:
    G = random_psd(400, np.random.default_rng(4), rank=8)
    w = np.random.default_rng(5).uniform(0.5, 2.0, 400)
    jobs = [
        lambda s=s: kgroups_rs.kernel_kgroups(G, 6, weights=w, n_init=3, random_state=s) for s in range(4)
    ] + [
        lambda s=s: kgroups_rs.kernel_kmeans(G, 6, weights=w, n_init=3, random_state=s, n_threads=1)
        for s in range(4)
    ]
    sequential = [job() for job in jobs]
    results: list[Any] = [None] * len(jobs)

    def run(i: int) -> None:
        results[i] = jobs[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(sequential, results):
        np.testing.assert_array_equal(a.labels, b.labels)
        assert a.objective == b.objective


# ----------------------------------------------------------------------- absurdly large counts


@pytest.mark.parametrize("name", ["k", "n_init", "n_threads"])
@pytest.mark.parametrize("value", [2**64, 2**100])
def test_counts_too_large_for_the_core(G: np.ndarray, name: str, value: int) -> None:
    """Integers beyond 64 bits are out of range: a ValueError naming the argument, not an
    OverflowError ('int too big to convert') from the binding."""
    kwargs: dict[str, Any] = {"k": 2}
    kwargs[name] = value
    k = kwargs.pop("k")
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        kgroups_rs.kernel_kgroups(G, k, **kwargs)


def test_huge_max_iter_is_accepted_or_named(G: np.ndarray) -> None:
    for value in (2**63, 2**64, 2**100):
        try:
            r = kgroups_rs.kernel_kgroups(G, 2, max_iter=value, random_state=0)
        except ValueError as e:
            assert "max_iter" in str(e)
        else:
            assert r.converged


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS bounds the child only on Linux")
def test_huge_n_init_raises_instead_of_aborting(tmp_path: Any) -> None:
    """n_init = 2**40 must not abort the interpreter on a failed allocation (a Rust OOM abort
    kills Python); it must raise a Python exception naming n_init. Run in a child process
    with a 4 GiB address-space limit so that a failure cannot take the test run down."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        import numpy as np, kgroups_rs
        try:
            kgroups_rs.kernel_kgroups(np.eye(5), 2, n_init=2**40)
        except (ValueError, MemoryError) as e:
            print("raised", type(e).__name__, e)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.returncode == 0, f"the interpreter died (rc {proc.returncode}): {proc.stderr[-500:]}"
    assert "raised" in proc.stdout, proc.stdout
    if "ValueError" in proc.stdout:
        assert "n_init" in proc.stdout


def test_check_symmetry_false_skips_only_the_symmetry_check() -> None:
    """check_symmetry=False: same result on a symmetric G, asymmetry not reported, NaN still is."""
    rng = np.random.default_rng(7)
    A = rng.normal(size=(40, 3))
    G = A @ A.T
    checked = kgroups_rs.kernel_kgroups(G, 3, random_state=1)
    unchecked = kgroups_rs.kernel_kgroups(G, 3, random_state=1, check_symmetry=False)
    np.testing.assert_array_equal(checked.labels, unchecked.labels)
    assert checked.objective == unchecked.objective
    asymmetric = G.copy()
    asymmetric[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        kgroups_rs.kernel_kgroups(asymmetric, 3, random_state=1)
    kgroups_rs.kernel_kgroups(asymmetric, 3, random_state=1, check_symmetry=False)
    broken = G.copy()
    broken[5, 5] = np.nan
    with pytest.raises(ValueError, match="not finite|NaN"):
        kgroups_rs.kernel_kgroups(broken, 3, random_state=1, check_symmetry=False)
