"""The run's first phase, before any grid point: the all-together solver made ready.

C&S, W&W and LLW train with loops that numba compiles once and caches on disk
(:mod:`...estimators.warm_up`).  A run whose schemes include one calls :func:`compile_phase`
before its grid starts: with a warm cache it loads the compiled loops (about a second,
silently); with a cold one it compiles them, about a minute, said on stderr as its own phase::

    compiling the all-together solver, once: ~60 s
    compiled the all-together solver in 1m03s

so the compile is never counted in a grid point's time or CPU seconds, and the progress
lines' ETA (:mod:`.progress`, whose clock starts with the grid) never sees it.  In a process
backend's workers (``loky``) each process loads the cached loops, as here.
"""

from __future__ import annotations

import sys
import time

from ...estimators.registry import estimator
from .progress import duration, resolved_mode

COMPILING = "compiling the all-together solver, once: ~{} s"
COMPILED = "compiled the all-together solver in {}"


def compile_phase(schemes, quiet=False, mode="auto", stream=None, clock=time.monotonic) -> bool:
    """Make the compiled solver ready when any of ``schemes`` (registry names, or
    ``own:<label>``) trains with it (:func:`...estimators.warm_up.warm_up`); say so on
    ``stream`` (stderr) when it compiles, where the grid's progress is shown (``mode``,
    ``--progress``, and ``quiet`` as :func:`.progress.progress_bar` reads them).  Returns whether it compiled."""
    from ...estimators.warm_up import COMPILE_SECONDS, needs_warm_up, warm_up

    if not needs_warm_up(estimator(name) for name in schemes):
        return False
    stream = stream or sys.stderr
    shown = resolved_mode(mode, quiet, stream) != "none"
    started = []

    def announce():
        started.append(clock())
        _say(stream, shown, COMPILING.format(COMPILE_SECONDS))

    compiled = warm_up(announce)
    if compiled:
        _say(stream, shown, COMPILED.format(duration(clock() - started[0])))
    return compiled


def _say(stream, shown, line):
    """Write ``line`` on ``stream`` when ``shown``."""
    if shown:
        stream.write(line + "\n")
        stream.flush()
