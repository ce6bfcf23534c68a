"""The progress bar of a clustering run: ``progress=True`` in the clustering functions, and
the bar ``kgroups-rs cluster`` shows on a terminal.

The core reports ``progress(start, sweep, moves_in_sweep, objective)`` after every sweep of
every start (starts run in parallel, so their events interleave). A start is finished when a
sweep moved no point (it converged) or when it reached ``max_iter`` sweeps. The bar counts
finished starts out of ``n_init`` and shows the sweeps done and the best objective seen. It
is drawn by tqdm when tqdm is installed (``pip install tqdm``), otherwise as one line
rewritten in place.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any, Callable, Optional, TextIO

ProgressCallback = Callable[[int, int, int, float], None]

__all__ = ["ProgressBar", "resolve_progress"]


class ProgressBar:
    """A progress callback drawing a bar of finished starts on ``stream``.

    Parameters
    ----------
    n_init : int
        The number of starts of the run.
    max_iter : int
        The sweep limit per start (a start reaching it is finished).
    stream : file, optional
        Where to draw (default: standard error).
    use_tqdm : bool, optional
        Draw with tqdm (default: when it is installed).
    """

    def __init__(
        self,
        n_init: int,
        max_iter: int,
        stream: Optional[TextIO] = None,
        use_tqdm: Optional[bool] = None,
    ) -> None:
        self.n_init = int(n_init)
        self.max_iter = int(max_iter)
        self.stream: TextIO = sys.stderr if stream is None else stream
        self.finished: set[int] = set()
        self.sweeps = 0
        self.best: Optional[float] = None
        self._bar: Any = None
        self._shown = 0
        self._closed = False
        if use_tqdm is None:
            use_tqdm = importlib.util.find_spec("tqdm") is not None
        if use_tqdm:
            tqdm = importlib.import_module("tqdm").tqdm
            self._bar = tqdm(total=self.n_init, unit="start", file=self.stream, leave=True,
                             desc="clustering", dynamic_ncols=True)

    def __call__(self, start: int, sweep: int, moves: int, objective: float) -> None:
        if self._closed:
            return
        self.sweeps += 1
        if self.best is None or objective > self.best:
            self.best = objective
        newly_done = start not in self.finished and (moves == 0 or sweep >= self.max_iter)
        if newly_done:
            self.finished.add(start)
        if self._bar is not None:
            self._bar.set_postfix(sweeps=self.sweeps, best_Q=f"{self.best:.8g}", refresh=False)
            if newly_done:
                self._bar.update(1)
            else:
                self._bar.refresh()
        else:
            line = self.line()
            # pad over the end of a longer previous line
            print(f"\r{line.ljust(self._shown)}", end="", file=self.stream, flush=True)
            self._shown = len(line)
        if len(self.finished) == self.n_init:
            self.close()

    def line(self) -> str:
        """The bar as one line of text (what is drawn without tqdm)."""
        width = 20
        done = len(self.finished)
        filled = width * done // max(1, self.n_init)
        best = "" if self.best is None else f", best Q = {self.best:.8g}"
        return (
            f"clustering [{'#' * filled}{'.' * (width - filled)}] {done}/{self.n_init} starts, "
            f"{self.sweeps} sweeps{best}"
        )

    def close(self) -> None:
        """End the bar: called by itself when every start has finished, and by the
        clustering functions when the run returns or fails. Closing twice does nothing."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif self._shown:
            print(file=self.stream, flush=True)


def resolve_progress(progress: Any, n_init: int, max_iter: int) -> Optional[ProgressCallback]:
    """``progress`` as the core takes it: None, a callable, or ``True`` for a
    :class:`ProgressBar` on standard error (``False``: None)."""
    if progress is True:
        return ProgressBar(n_init, max_iter)
    if progress is None or progress is False:
        return None
    if not callable(progress):
        raise TypeError(
            "progress must be True (a progress bar), a callable "
            "progress(start, sweep, moves, objective), or None"
        )
    return progress  # type: ignore[no-any-return]
