"""Stopping a run at once on Ctrl-C (SIGINT) or SIGTERM, even inside a libsvm fit.

libsvm's fit holds no GIL but cannot be stopped, and Python runs signal handlers in the main
thread only, between bytecodes: a main thread inside libsvm would hear Ctrl-C only when the fit
returns (minutes, or never).  :func:`run_interruptible` therefore runs the work in a worker
thread while the main thread waits in :data:`POLL` second steps; on a signal it calls
``on_signal(name)`` (which records ``interrupted`` atomically) and leaves at once with
:data:`EXIT_CODES` (130 for SIGINT, 143 for SIGTERM: 128 + the signal's number) through
``os._exit``, as the worker thread cannot be joined.  Every file multisvm writes is written
atomically, and the resume cache holds only finished grid points, so nothing is half-written.

Before the work starts (loading and checking the data, in the main thread),
:func:`sigterm_as_interrupt` makes SIGTERM raise :class:`Terminated`, a ``KeyboardInterrupt``,
so every place that handles Ctrl-C handles it the same way and the command line exits with 143
(a second SIGTERM ends the process at once: the default action).  A Dask cluster stops its own
worker processes with SIGTERM, so there the default stays.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager

from ...base.parallel import RUN_THREAD

POLL = 0.2  # seconds between the main thread's looks at the signal flag
EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143}


def run_interruptible(work, on_signal):
    """``work()``'s value (or exception), computed in a worker thread; a SIGINT or SIGTERM
    meanwhile calls ``on_signal(name)`` and ends the process with its exit code within POLL
    seconds.  Outside the main thread (signals cannot be caught there) ``work()`` just runs."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    received, done, box = [], threading.Event(), {}

    def target():
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the main thread
            box["error"] = exc
        finally:
            done.set()

    def heard(signum, _frame):
        received.append(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, heard) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        threading.Thread(target=target, name=RUN_THREAD, daemon=True).start()
        while not done.wait(POLL) and not received:
            pass
        if received and not done.is_set():
            leave(received[0], on_signal)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if "error" in box:
        raise box["error"]
    return box["value"]


def leave(name, on_signal):
    """Record the interruption (``on_signal(name)``), say so, and exit with its code now."""
    try:
        on_signal(name)
    finally:
        print(f"Interrupted ({name}): the run folder says so; finished grid points stay in "
              "the resume cache.", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_CODES[name])


class Terminated(KeyboardInterrupt):
    """The run was stopped by SIGTERM (before its work started: see :func:`sigterm_as_interrupt`)."""

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
