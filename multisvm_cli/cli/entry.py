"""The process's entry point: Ctrl-C or SIGTERM at any moment of start-up ends multisvm with one
line and its exit code (130 for SIGINT, 143 for SIGTERM), never a traceback.

Importing the command line (click, numpy, scikit-learn: a second or more) happens before
:func:`.cli.main` can catch anything, so this module, which imports nothing heavy, installs a
SIGTERM handler first that raises :class:`Terminated` (a ``KeyboardInterrupt``, as Ctrl-C
raises), holds both signals back while the command line is imported (:func:`_held`: they are
delivered when the imports are done, never in the middle of one), and catches them then:
``Aborted.`` and the exit code.
The handler stays for the command's life: :func:`.cli.main` ends on a ``KeyboardInterrupt``
with one line and its ``exit_code``, and a run replaces the handler with its own while it runs
(:mod:`.experiment.interrupt`). A second SIGTERM ends the process at once (the default).
Only a signal that arrives before Python has started this module is out of its reach.
"""

from __future__ import annotations

import signal
import sys
from contextlib import contextmanager


class Terminated(KeyboardInterrupt):
    """SIGTERM, heard before a run installs its own handler."""

    exit_code = 128 + signal.SIGTERM


@contextmanager
def _held(*signals):
    """Within the block, ``signals`` wait (blocked) and are delivered when it ends, where the
    caller catches them: a signal in the middle of a library's import could leave it half
    made (exit code -2), or be swallowed by a bare ``except`` there and let the run go on."""
    if not hasattr(signal, "pthread_sigmask"):  # not on Windows: the signals come at once
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, signals)


def _terminated(signum, _frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends it at once
    raise Terminated("stopped by SIGTERM")


def main(argv=None):
    """Import the command line, then run it (:func:`.cli.main`) with ``argv``."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        with _held(signal.SIGINT, signal.SIGTERM):
            from .main import main as run
    except KeyboardInterrupt as exc:
        sys.stderr.write("Aborted.\n")
        sys.stderr.flush()
        sys.exit(getattr(exc, "exit_code", 128 + signal.SIGINT))
    run(argv)
