"""Suite-wide fixtures."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _sigint_raises_keyboard_interrupt() -> Iterator[None]:
    """Give each test Python's own SIGINT handler (KeyboardInterrupt), and put back the one
    before it afterwards.

    The Ctrl-C tests send real SIGINTs. A suite started as a background job (``cmd &``,
    ``nohup``) inherits SIGINT ignored, and Python then leaves it ignored, so the signal would
    never arrive; the suite must pass however it is started.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        # None: a handler installed outside Python, which cannot be put back from here.
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
