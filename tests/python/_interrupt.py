"""Shared Ctrl-C harness: run a call in the main thread, send it an interrupt from a timer
thread, and measure how long the KeyboardInterrupt takes to arrive.

Every Ctrl-C test of the suite uses it.
"""

from __future__ import annotations

import _thread
import math
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Optional

import numpy as np
import pytest


def long_call(seconds: float, n_threads: Optional[int] = 1) -> Callable[[], Any]:
    """A call of the public API that runs at least about ``seconds`` and passes checkpoints
    all along: matrix-free kernel k-groups on 2 000 points in D = 10 with as many starts as
    this machine needs (calibrated here on a few starts; the starts run on ``n_threads``)."""
    import kgroups_rs

    X = np.random.default_rng(0).normal(size=(2000, 10))

    def run(n_init: int) -> Any:
        return kgroups_rs.kernel_kgroups_from_data(X, 3, n_init=n_init, n_threads=n_threads, random_state=0)

    probe = 4 * (1 if n_threads == 1 else (n_threads or os.cpu_count() or 1))
    start = time.perf_counter()
    run(probe)
    per_start = (time.perf_counter() - start) / probe
    n_init = max(probe, math.ceil(seconds / per_start))
    return lambda: run(n_init)


def send_sigint() -> None:
    """A real SIGINT to this process, as Ctrl-C in a terminal sends (on Windows, where
    ``os.kill`` with SIGINT would terminate the process, raised by the C runtime)."""
    if sys.platform == "win32":
        signal.raise_signal(signal.SIGINT)
    else:
        os.kill(os.getpid(), signal.SIGINT)


def interrupt_main() -> None:
    """``_thread.interrupt_main()``: raises KeyboardInterrupt in the main thread."""
    _thread.interrupt_main()


def interrupted_after(
    call: Callable[[], Any], send: Callable[[], None] = send_sigint, delay: float = 0.3
) -> float:
    """Run ``call`` in the main thread, ``send`` an interrupt ``delay`` s later from another
    thread, and return the seconds from the interrupt to the KeyboardInterrupt. Fails if the
    call ends before the interrupt was sent (then the test proves nothing)."""
    assert threading.current_thread() is threading.main_thread()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    sent: list[float] = []

    def fire() -> None:
        sent.append(time.perf_counter())
        send()

    timer = threading.Timer(delay, fire)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
        raised = time.perf_counter()
    finally:
        timer.cancel()
        timer.join()
    assert sent, f"the call ended after {raised - start:.2f} s, before the interrupt was sent"
    return raised - sent[0]


# A separate process sends the SIGINT, as a terminal does: a timer thread of this process would
# need the GIL to send it, and a call holding the GIL would then look prompt. It prints the
# system-wide monotonic time of the sending.
_SENDER = (
    "import os, signal, sys, time\n"
    "time.sleep(float(sys.argv[1]))\n"
    "print(time.monotonic(), flush=True)\n"
    "os.kill(int(sys.argv[2]), signal.SIGINT)\n"
)


def interrupted_while_counting(call: Callable[[], Any], delay: float = 0.3) -> tuple[float, float]:
    """Run ``call`` in the main thread while another Python thread counts (every
    millisecond), and have another process send this one a SIGINT ``delay`` s in. Returns the
    seconds from the SIGINT to the KeyboardInterrupt, and the longest the counter waited
    between the start of the call and the KeyboardInterrupt (a call that holds the GIL stalls
    it throughout). Fails if the call ends before the interrupt (then it proves nothing)."""
    assert threading.current_thread() is threading.main_thread()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ticks: list[float] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    counter = threading.Thread(target=count, daemon=True)
    counter.start()
    sender = subprocess.Popen(
        [sys.executable, "-c", _SENDER, str(delay), str(os.getpid())], stdout=subprocess.PIPE, text=True
    )
    start = time.monotonic()
    raised: float | None = None
    try:
        try:
            call()
        except KeyboardInterrupt:
            raised = time.monotonic()
        if raised is None:
            # The call ended first: take the signal here, not in the code after the test.
            try:
                sender.wait()
                time.sleep(1.0)
            except KeyboardInterrupt:
                pass
        out, _ = sender.communicate()
    finally:
        stop.set()
        counter.join()
    assert raised is not None, f"the call ended after {time.monotonic() - start:.2f} s, before the interrupt"
    sent = float(out.split()[0])
    during = [t for t in ticks if start <= t <= raised]
    stall = float(np.max(np.diff([start, *during, raised])))
    return raised - sent, stall
