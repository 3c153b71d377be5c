"""SIGTERM handled like SIGINT: a run stopped by a batch scheduler or ``timeout`` ends as
``interrupted`` (run.json) with exit code 143 (128 + SIGTERM), as Ctrl-C ends with 130.

:func:`sigterm_as_interrupt` makes SIGTERM raise :class:`Terminated`, a ``KeyboardInterrupt``,
in the main thread for the time of a run; every place that handles Ctrl-C handles it the same
way, and the command line exits with its ``exit_code``. Python runs the handler between
bytecodes of the main thread, so a long libsvm fit finishes first; a second SIGTERM then ends
the process at once (the default action).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class Terminated(KeyboardInterrupt):
    """The run was stopped by SIGTERM."""

    exit_code = 128 + signal.SIGTERM


def _raise_terminated(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends a fit that hangs
    raise Terminated("stopped by SIGTERM")


@contextmanager
def sigterm_as_interrupt(active=True):
    """Within the block, SIGTERM raises :class:`Terminated` (main thread only: elsewhere a
    handler cannot be installed and the default stays; not ``active``: the default stays, as
    for a Dask cluster, which stops its worker processes with SIGTERM)."""
    if not active or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
