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

Before anything is imported, :func:`tool_caches` points the caches other libraries write into
the data home: matplotlib's font cache (``MPLCONFIGDIR``, else under ``$HOME/.config`` and
``$HOME/.cache``) and numba's compiled C&S / W&W steps (``NUMBA_CACHE_DIR``, else beside the
installed package's sources), so that multisvm writes only where its settings say. numba's
folder is named by the digest of the compiled solver's sources (:func:`numba_folder`): numba
checks only the cached function's own file, so an edit to a function it calls from another file
would otherwise run the old machine code.
"""

from __future__ import annotations

import os
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


TOOL_CACHES = {"MPLCONFIGDIR": "matplotlib", "NUMBA_CACHE_DIR": "numba"}
COMPILED = ("estimators", "joint")  # the package folder whose functions numba compiles


def numba_folder(home):
    """numba's cache folder in the data home ``home``: ``numba/<digest>``, the digest of every
    source file under :data:`COMPILED` (:func:`..base.code_digest.digest_of`), so that an edited
    solver compiles afresh, whichever of its files changed."""
    from ..base.code_digest import PACKAGE, digest_of

    return home / TOOL_CACHES["NUMBA_CACHE_DIR"] / digest_of(PACKAGE.joinpath(*COMPILED))[:12]


def tool_caches() -> None:
    """Set each of :data:`TOOL_CACHES`' variables the environment leaves unset to its folder in
    the data home (``MULTISVM_DATA_HOME`` or the default: :func:`..data.locations.data_home`;
    numba's: :func:`numba_folder`); matplotlib and numba read them when first imported, after
    this."""
    from ..data.locations import data_home

    for variable, folder in TOOL_CACHES.items():
        if not os.environ.get(variable):
            home = data_home()
            path = numba_folder(home) if variable == "NUMBA_CACHE_DIR" else home / folder
            os.environ[variable] = str(path)


def main(argv=None):
    """Point other libraries' caches into the data home, import the command line, then run
    it (:func:`.cli.main`) with ``argv``."""
    signal.signal(signal.SIGTERM, _terminated)
    tool_caches()
    try:
        with _held(signal.SIGINT, signal.SIGTERM):
            from .main import main as run
    except KeyboardInterrupt as exc:
        sys.stderr.write("Aborted.\n")
        sys.stderr.flush()
        sys.exit(getattr(exc, "exit_code", 128 + signal.SIGINT))
    run(argv)
