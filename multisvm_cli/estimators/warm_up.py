"""The all-together machines' compiled solver, made ready before a run needs it.

C&S, W&W and LLW (:mod:`.joint`) train with loops that numba compiles on their first call
(``cache=True``: once compiled, later processes load them from numba's cache on disk,
``NUMBA_CACHE_DIR``).  A cold cache (a new install, an edited solver, a new numba) costs about a
minute of compiling; left to the first fit, that minute lands in one grid point's time and CPU
seconds and in the ETA.  :func:`warm_up` pays it up front: it fits each all-together machine on
a tiny problem, through the estimators' own ``fit`` (no solver internals named here), so that
every compiled function a real fit calls is compiled, with the argument types real fits pass
(numba compiles once per type signature), and a fit afterwards compiles nothing.  With a warm
cache it only loads them (about a second).

The tiny fits, each of C&S, W&W and LLW: the Gaussian kernel along C with a reuse store (a
warm start, shrinking and its undoing, Newton steps on the free variables, K(X, X) stored),
and the linear kernel (C&S's and W&W's primal solver).  The other paths of real fits (cached
kernel rows, sparse or text input, other kernels, k-fold) call the same compiled functions
with the same types: tests/experiment/run/test_compile_phase.py checks that real runs after
the warm-up compile nothing, and an edit of the solver that adds an entry point or a type
must keep it so.

Measured 2026-12-08 on the project's 2-core machine (numba 0.68, Python 3.11), in a fresh
process: cold, 50 CPU s (102 s wall under a load of 6, 2.5 to 5 minutes under a load of 10
from other work); warm, 0.5 CPU s (1 s wall), of which the tiny fits take 0.1.
"""

from __future__ import annotations

import warnings

import numpy as np

COMPILE_SECONDS = 60  # about how long a cold compile takes on an idle machine (50 CPU s)
_C_PATH = (0.25, 4.0)  # a warm start along C; Newton steps of one example and of many


def needs_warm_up(classes) -> bool:
    """Whether any of the estimator ``classes`` trains with the compiled all-together solver."""
    from .joint.machine import JointSVM

    return any(isinstance(cls, type) and issubclass(cls, JointSVM) for cls in classes)


def warm_up(announce=None) -> bool:
    """Compile (or load from numba's cache) every compiled function the all-together machines'
    fits call (module docstring).  ``announce()``, if given, is called once, as numba starts
    its first compile (a cold or stale cache), before the compile's minute; it is not called
    when everything loads from the cache.  Returns whether anything was compiled.  The tiny
    fits' warnings are not shown."""
    from numba.core import event

    listener = _first_compile(announce)
    with event.install_listener("numba:compile", listener), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _tiny_fits()
    return listener.compiled


def _first_compile(announce):
    """A numba listener of "numba:compile" events (sent only when numba compiles, not when it
    loads from its cache) that calls ``announce`` as the first compile starts; its
    ``compiled`` says whether one did."""
    from numba.core import event

    class FirstCompile(event.Listener):
        compiled = False

        def on_start(self, _event):
            if not self.compiled:
                self.compiled = True
                if announce is not None:
                    announce()

        def on_end(self, _event):
            pass

    return FirstCompile()


def _tiny_fits():
    """The fits of :func:`warm_up` (module docstring)."""
    from .cs import CrammerSingerSVC
    from .llw import LeeLinWahbaSVC
    from .reuse import MachineReuse
    from .ww import WestonWatkinsSVC

    X, y = _tiny_problem()
    for scheme in (CrammerSingerSVC, WestonWatkinsSVC, LeeLinWahbaSVC):
        store = MachineReuse()
        for C in _C_PATH:
            scheme(C=C, kernel="gaussian", gamma=0.5).fit(X, y, reuse=store)
        scheme(C=1.0, kernel="linear").fit(X, y)


def _tiny_problem():
    """300 rows of 5 features in 4 classes, the quadrants of the first two (seeded): small
    enough to cost little but the compile (0.2 CPU s for every fit), large enough for every
    path of the module docstring (W&W's Newton step on one example's variables, at C 0.25,
    took 300 rows)."""
    rng = np.random.RandomState(0)
    X = rng.standard_normal((300, 5))
    return X, (X[:, 0] > 0).astype(np.int64) + 2 * (X[:, 1] > 0)
