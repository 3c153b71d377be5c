"""Warnings caught per thread, because ``warnings.catch_warnings`` is not thread-safe.

``warnings.catch_warnings(record=True)`` swaps the module's global ``showwarning`` for a list's
append and puts back, on leaving, whatever it found on entering. Two grid points fitting side
by side in two threads each inside one restore each other's state: a warning of one point lands
in the other's notes, and once both have left, ``showwarning`` may be left pointing at a list
nobody reads, so every later warning of the run is lost. (Measured on ``hsu-lin-2002-quick``
with ``-j 2``: the run that computed its grid recorded none of the six "predicted one class"
warnings that its rerun from the resume cache recorded.)

:func:`caught` collects the warnings raised in the calling thread, and only those, into a
list. One dispatcher, put in place as ``warnings.showwarning`` on entry when something else
is there, hands each warning to the innermost collector of the thread that raised it, and a
warning of a thread that collects none to the ``showwarning`` it replaced. While any thread
collects, an ``always`` filter stands first (counted, under a lock), so a warning repeated
from the same line, as a solver's iteration-bound warning is at every grid point it stops,
reaches every point's collector rather than the first one only.

:func:`with_warnings` runs a function in a worker thread (or process) and returns its result
with the warnings it raised, and :func:`reissue` raises them again in the caller's thread, so
a fit's warnings reach its caller's collector whichever worker ran it.
"""

from __future__ import annotations

import threading
import warnings
from contextlib import contextmanager

_lock = threading.Lock()
_local = threading.local()
_state = {"fallback": None, "active": 0, "filters": None}
ALWAYS = ("always", None, Warning, None, 0)


def _dispatch(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` while :func:`caught` is in use (see the module docstring)."""
    stack = getattr(_local, "stack", None)
    if stack:
        stack[-1].append(warnings.WarningMessage(message, category, filename, lineno, file,
                                                 line))
        return
    fallback = _state["fallback"]
    if fallback is not None:
        fallback(message, category, filename, lineno, file, line)
    else:
        warnings._showwarning_orig(message, category, filename, lineno, file, line)


def _enter():
    with _lock:
        if warnings.showwarning is not _dispatch:
            _state["fallback"] = warnings.showwarning
            warnings.showwarning = _dispatch
        if _state["active"] == 0:
            _state["filters"] = list(warnings.filters)
            warnings.filters.insert(0, ALWAYS)
            warnings._filters_mutated()
        _state["active"] += 1


def _leave():
    with _lock:
        _state["active"] -= 1
        if _state["active"] == 0:
            warnings.filters[:] = _state["filters"]
            warnings._filters_mutated()


@contextmanager
def caught():
    """A list that receives every warning the calling thread raises in the body (a
    ``warnings.WarningMessage`` each); none of them is shown."""
    found = []
    stack = _local.__dict__.setdefault("stack", [])
    _enter()
    stack.append(found)
    try:
        yield found
    finally:
        stack.pop()
        _leave()


def with_warnings(func, *args, **kwargs):
    """(``func(*args, **kwargs)``, [(category, text)] of the warnings it raised)."""
    with caught() as found:
        result = func(*args, **kwargs)
    return result, [(w.category, str(w.message)) for w in found]


def reissue(raised):
    """Raise again, in this thread, the warnings :func:`with_warnings` returned."""
    for category, text in raised:
        warnings.warn(text, category, stacklevel=2)
