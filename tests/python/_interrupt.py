"""Shared Ctrl-C harness: run a call in the main thread, send it an interrupt from a timer
thread, and measure how long the KeyboardInterrupt takes to arrive.

Every Ctrl-C test of the suite uses it.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
from typing import Any, Callable

import pytest


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
