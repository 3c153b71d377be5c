"""Binary SVMs reusable across C: a machine with no support vector at the bound is also the
machine of every larger C.

Why.  libsvm's C-SVC dual is min 1/2 a'Qa - e'a subject to y'a = 0 and 0 <= a_i <= C.  Its
gradient G = Qa - e does not depend on C, and C enters the optimality (KKT) conditions only
through which a_i are at the upper bound (libsvm's ``update_alpha_status``: a_i >= C_i is
UPPER_BOUND, a_i <= 0 LOWER_BOUND, else FREE; here C_i = C w_i, w_i the class weight of
row i's side, 1 without class weights).  If a machine
trained at C' has every a_i < C' w_i, the same a has the same statuses under any C >= C', so it
satisfies the same conditions to the same tolerance, and libsvm's bias (the mean of y_i G_i
over the free a_i) is the same too: the machine trained at C' *is* a solution at C.  scikit-
learn's ``dual_coef_`` holds y_i a_i, so the test is ``np.any(np.abs(dual_coef) >= C' w)``
(:func:`has_bounded_sv`, w the weight of the coefficient's side: y_i > 0 positive).  An identical problem at the same C is libsvm's same machine as well.
A fresh fit at C is another tol-accurate solution: most often bit-identical (SMO takes the same
steps while no alpha reaches the bound), else within a few tol (tests/estimators/test_reuse_across_c.py).

Contract of a :class:`MachineReuse` store: it lives for one kernel task of one fold (the
grid's fits that share a training X, a kernel and a tolerance, run at ascending C), and a
``gram`` handed to those fits is K(X, X) under their kernel (as ``fit`` already requires).
A problem's key is exact: the content of the training X (digested once per estimator fit by
:meth:`MachineReuse.bind`), the problem's rows and positive mask, the kernel's parameters and
libsvm's tolerance, the solver and the two sides' class weights; not C.  It holds at most two machines a problem: the one of
the smallest C with no bounded support vector, and the latest one.

The all-together machines (:mod:`.joint`) solve one problem over all classes, which no
machine of a smaller C solves; instead each of their solves starts from the last one of the
same problem (warm starts along C, :func:`.joint.decomposition.solver.solve_dual`'s ``path``).  The same
store holds those too, one :class:`PathSlot` a problem (:meth:`MachineReuse.path`), keyed by
the training X's content, the class indices, the formulation, the kernel, tol, cache_size,
memory_mb (which decide how its kernel rows are held) and max_iter; not C.  A warm-started
solve reaches the cold one's optimum within tol, so its numbers depend on which C values came
before it: the protocol's resume cache says so (``experiment.protocol.cache.point_key``'s
``chain``).
"""

import threading

import numpy as np
import scipy.sparse as sp

from ..base import hashing
from .weights import side_weights


def has_bounded_sv(dual_coef, C, sides=None):
    """Whether a machine trained at ``C`` has a support vector at the bound (libsvm's
    UPPER_BOUND test a_i >= C_i on the dual coefficients y_i a_i; C_i = C w_-, C w_+ by the
    sign of y_i with class weights ``sides`` = (w_-, w_+), else C)."""
    if sides is None:
        return bool(np.any(np.abs(dual_coef) >= C))
    bound = np.where(dual_coef > 0, C * sides[1], C * sides[0])
    return bool(np.any(np.abs(dual_coef) >= bound))


def digest(*arrays):
    """A digest of the arrays' dtypes, shapes and bytes, in order (sha1: fastest here, and
    collisions only matter by accident)."""
    pieces = []
    for array in arrays:
        array = np.ascontiguousarray(array)
        pieces += [f"{array.dtype.str}{array.shape};", array]
    return hashing.digest(*pieces, algorithm="sha1").digest()


def data_digest(X):
    """The digest of a dense array or a CSR matrix (its data, indices, pointer and shape)."""
    if sp.issparse(X):
        return digest(X.data, X.indices, X.indptr, np.asarray(X.shape, dtype=np.int64))
    return digest(X)


class MachineReuse:
    """A store of binary SVM machines reusable across C (see the module's docstring).

    ``lookup(key, C)`` gives a stored machine that is the solution at ``C``: one trained at
    C' = C, or at C' < C with no bounded support vector; ``store(key, C, fit, sides)`` records a
    machine trained at ``C`` with class weights ``sides`` (a ``BinaryFit``: only its ``dual_coef`` is read here).
    ``n_reused`` counts the lookups that found one, over the store's life; an estimator's
    ``n_reused_machines_`` counts those of one fit.  Thread-safe.

    ``start``: a :class:`.joint.decomposition.solver.PathPoint` read back from disk (a resumed C path: the
    resume cache's chain states), which the first all-together problem's slot starts with; the
    caller promises it is that problem's last solve (a grid task holds one such problem).
    """

    def __reduce__(self):
        """Sent to another process (a process or Dask backend), a store starts empty there but
        for its ``start``: its machines live in this process, and reuse needs none of them to be
        correct."""
        return (MachineReuse, (self._start,))

    def __init__(self, start=None):
        self._lock = threading.Lock()
        self._entries = {}  # key -> {"free": (C, fit) | None, "last": (C, fit)}
        self._paths = {}  # all-together problem key -> PathSlot
        self._start = start
        self.n_reused = 0

    def __len__(self):
        return len(self._entries)

    def bind(self, X):
        """The store as seen by fits on training data ``X`` (digested once here)."""
        return ReuseScope(self, data_digest(X))

    @staticmethod
    def key(data, rows, positive, kernel, tol, solver="libsvm", sides=None):
        """The exact key of the problem ``positive`` vs the rest on ``rows`` of the X digested
        as ``data``, under ``kernel`` (a ``Kernel``), tolerance ``tol``, ``solver`` (the
        binary solver that trained the machine) and class weights ``sides`` ((w_-, w_+) or
        None)."""
        rows, positive = np.asarray(rows, dtype=np.int64), np.asarray(positive, dtype=bool)
        return data, digest(rows, positive), kernel, float(tol), solver, sides

    def _find(self, key, C):
        entry = self._entries.get(key)
        if entry is None:
            return None
        last_C, last_fit = entry["last"]
        if last_C == C:
            return last_fit
        free = entry["free"]
        return free[1] if free is not None and free[0] <= C else None

    def covers(self, key, C):
        """Whether ``lookup(key, C)`` would find a machine (nothing is counted)."""
        with self._lock:
            return self._find(key, C) is not None

    def lookup(self, key, C):
        """The stored machine that solves problem ``key`` at ``C``, or None."""
        with self._lock:
            found = self._find(key, C)
            self.n_reused += found is not None
            return found

    def path(self, key):
        """The :class:`PathSlot` of the all-together problem ``key`` (a new, empty one the first
        time)."""
        with self._lock:
            if key not in self._paths:
                self._paths[key], self._start = PathSlot(self._start), None
            return self._paths[key]

    def last_points(self) -> list:
        """The last solve (:class:`.joint.decomposition.solver.PathPoint`, or None) of each all-together
        problem, in the order they were first solved."""
        with self._lock:
            return [slot.previous for slot in self._paths.values()]

    def store(self, key, C, fit, sides=None):
        """Record ``fit``, trained at ``C`` for problem ``key`` with class weights ``sides``
        ((w_-, w_+) or None: its bound test, :func:`has_bounded_sv`)."""
        with self._lock:
            entry = self._entries.setdefault(key, {"free": None, "last": None})
            entry["last"] = (C, fit)
            free = entry["free"]
            if not has_bounded_sv(fit.dual_coef, C, sides) and (free is None or C < free[0]):
                entry["free"] = (C, fit)


def bind_reuse(reuse, X):
    """``reuse`` (a MachineReuse, or None) bound to the validated training ``X``; TypeError
    for anything else."""
    if reuse is None:
        return None
    if not isinstance(reuse, MachineReuse):
        raise TypeError(f"reuse must be a MachineReuse store or None, got {type(reuse).__name__}")
    return reuse.bind(X)


class PathSlot:
    """The last solve of one all-together problem along C: ``previous`` (a
    :class:`.joint.decomposition.solver.PathPoint`, or None before the first), replaced by ``keep``."""

    def __init__(self, previous=None):
        self.previous = previous

    def take(self):
        """``previous``, for a solve that starts from it and changes its arrays: the slot holds
        None until that solve keeps its own point (a solve that fails leaves the next one a
        cold start, not a half-changed point)."""
        point, self.previous = self.previous, None
        return point

    def keep(self, point):
        self.previous = point


class ReuseScope:
    """A :class:`MachineReuse` bound to one training X: what ``TrainSettings.reuse`` holds."""

    def __init__(self, store, data):
        self.store, self.data = store, data

    def key(self, rows, positive, settings, sides=None):
        """The store's key of problem ``positive`` on ``rows`` under ``settings`` with class
        weights ``sides`` (:func:`.weights.side_weights` of the settings' row weights)."""
        return MachineReuse.key(self.data, rows, positive, settings.kernel, settings.tol,
                                settings.solver, sides)

    def path(self, y_index, formulation, settings):
        """The :class:`PathSlot` of the all-together ``formulation`` on this X with class
        indices ``y_index`` under ``settings`` (its kernel, tol, cache_size, memory_mb and max_iter)."""
        key = (self.data, digest(np.asarray(y_index, dtype=np.int64)), formulation,
               settings.kernel, float(settings.tol), float(settings.cache_size),
               float(settings.memory_mb), str(settings.max_iter))
        return self.store.path(key)

    def covers_all(self, problems, settings):
        """Whether every (rows, positive) problem has a reusable machine at ``settings.C``."""
        return all(self.store.covers(self.key(rows, positive, settings,
                                              side_weights(settings.row_weights, rows, positive)),
                                     settings.C)
                   for rows, positive in problems)

    def fit(self, rows, positive, settings, train):
        """The stored machine of this problem at ``settings.C`` as reused
        (``fit.as_reused()``), else ``train()``'s, which is stored unless SMO stopped at its
        iteration bound (then it is no solution whose KKT conditions carry over)."""
        from ._solvers import iteration_bound

        sides = side_weights(settings.row_weights, rows, positive)
        key = self.key(rows, positive, settings, sides)
        found = self.store.lookup(key, settings.C)
        if found is not None:
            return found.as_reused()
        fit = train()
        bound = iteration_bound(settings.max_iter, len(rows))
        if bound < 0 or fit.n_iter < bound:
            self.store.store(key, settings.C, fit, sides)
        return fit
