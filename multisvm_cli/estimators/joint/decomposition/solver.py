"""The all-together solver: decomposition on the dual, one example's row of variables a step.

The dual of both formulations (Crammer & Singer, Weston & Watkins; see :mod:`..machine` and
:mod:`.loops` for the exact problem, :mod:`.box` for its bounds) has l x k variables beta, one
row per example. As
Crammer & Singer (2001, section 6) and Hsu & Lin (2002, section III) do it, each step takes the
example whose row violates the KKT conditions most and solves the sub-problem of that row alone
exactly, then a pair step with a second example that keeps every class's sum of beta
(:func:`.loops.run`); for Weston & Watkins the row's move is thinned to the classes it moves
most, and the partner takes its own row step over the classes either row moved
(:func:`.loops.thin`, :func:`.loops.partner_row`).  The rest of the state is the gradient
G = Q beta + e, updated with the two examples' rows of Q. The steps run compiled
(:func:`.loops.run`, numba, imported here only when a solve starts, so importing the
estimators does not load numba), on the named state of
:mod:`.state`; this module feeds them Q rows, and every ``NEWTON_EVERY`` steps takes a Newton
step on the free variables (:mod:`.newton`).

Kernel rows: K(X, X) whole where it fits in ``memory_mb`` MB, else an LRU cache of rows in
``cache_size`` MB (:mod:`.kernel_rows`).  A step that needs a row the cache lacks returns to
Python, which computes it (:meth:`.kernel_rows.KernelRows.fetch`).

BLAS threads: the whole solve runs BLAS on one thread (:func:`solve_dual`).  Its products are
small (a kernel row is a matrix-vector product; the Gram matrix comes in 256 x 256 tiles; the
reconstruction's products have k rows), and a second thread mostly spins.  Measured 2026-11-26
(``benchmarks/joint_threads.py``, 2 cores under a load of 12-16; docs/results/speed.md has
the table): with two BLAS threads, one C&S fit on satimage took 1.12 CPU s instead of 0.83,
Letter's 5,000 rows 5.3 instead of 3.6 (the Gram matrix 1.9 instead of 0.5), and two fits side
by side 2.0-2.3 and 6.2-6.4 CPU s each instead of 0.65-0.82 and 3.5-3.6, with no wall time won;
on Letter's 15,000 rows (cached rows) the rows cost the same CPU either way (6.0 and 6.3 s).

Stopping: every example's violation <= ``tol`` (libsvm's 1e-3 by default); or the step bound
(``_solvers.iteration_bound``: max(10^7, 100 l) for "libsvm"), where the fit warns with the
binary fits' ConvergenceWarning ("Solver terminated early"); or a stall, a step that changes no
variable, or changes them by rounding only (:func:`.steps.rounding_only`), though the working
example's violation is above ``tol`` (it is below what float64 can move, e.g. at a tol near
rounding), where the fit warns with a ConvergenceWarning "Solver
stalled" (:data:`STALL_MESSAGE`).  Fits are deterministic: no randomness, ties go to the lowest
index.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ....base.parallel import single_threaded_blas
from ..._solvers import BOUND_MESSAGE, iteration_bound
from ..formulations import FORMULATIONS
from .kernel_rows import KernelRows, data_bytes
from .state import BOUND, CONVERGED, CS, NEED_ROW, STALLED, WW, Cache, Dual, Problem, new_progress

SHRINK_EVERY = 1000  # steps between shrinking passes (libsvm's min(l, 1000))
NEWTON_EVERY = 100  # steps between Newton steps on the free variables (.newton); after a step
NEWTON_BACKOFF = 256  # that could not move, the gap doubles, up to this many times 100
# (100 rather than 200: the warm C paths on vowel and vehicle 8% less CPU, Letter's 10,500-row
# solves the same; docs/results/speed.md, "The Newton step's kernel values from K(X, X)")

STALL_MESSAGE = ("Solver stalled: its steps no longer move the dual variables, but the largest "
                 "KKT violation ({:.3g}) is above tol ({:g}); a larger tol ends it as converged")
FACTOR_MESSAGE = ("Newton step skipped: {} factorisation(s) of its KKT system failed (a singular "
                  "matrix); the decomposition steps went on without them")


@dataclass
class JointSolution:
    """The solved dual: ``beta`` (l, k), the steps taken, why the solve ended (``status``:
    :data:`.state.CONVERGED`, BOUND or STALLED), the bytes the solve held (``memory``, see
    :func:`solve_memory`) and the Newton steps not taken because their factorisation failed
    (``failed_factorisations``, :attr:`.newton.Peak.failed`)."""

    beta: np.ndarray
    n_iter: int
    status: int
    memory: int
    failed_factorisations: int = 0

    @property
    def converged(self):
        """Whether every example met the KKT conditions within tol."""
        return self.status == CONVERGED


@dataclass
class NewtonPauses:
    """When the compiled steps pause for a Newton step: ``at`` that many steps in all, then
    ``gap`` steps later (NEWTON_EVERY; after a step that could not move, twice the last gap, up
    to NEWTON_BACKOFF times NEWTON_EVERY); ``peak``: the most bytes their temporaries held
    (:class:`.newton.Peak`)."""

    gap: int
    at: int
    peak: object

    def after(self, moved, steps):
        """Schedule the next pause after a Newton step (``moved``: whether it moved) at ``steps``."""
        self.gap = NEWTON_EVERY if moved else min(2 * self.gap, NEWTON_BACKOFF * NEWTON_EVERY)
        self.at = steps + self.gap


@dataclass
class PathPoint:
    """What one solve of a C path hands the next (:func:`solve_dual`'s ``path``): its ``C``, its
    dual variables ``beta`` (k, l), their gradient ``G`` = Q beta + e (k, l; None when the solve
    ended shrunk, at the step bound, where the set-aside examples' G is stale) and its kernel
    ``rows`` (:class:`.kernel_rows.KernelRows`; None for a point read back from disk, :meth:`restored`,
    whose ``cached_rows`` say which rows its solve held, :meth:`.kernel_rows.KernelRows.refill`).

    Why the next solve may read them: a path's solves are the same problem at another C (the
    caller's promise; :class:`...reuse.MachineReuse` keys them by the training rows' content,
    the class indices, the formulation, the kernel, tol, cache_size, memory_mb and max_iter).
    Q = K + shift and the linear term e do not depend on C, so the kernel rows (or the Gram matrix)
    are the same numbers, and are kept rather than recomputed (:meth:`.kernel_rows.KernelRows.carried_over`);
    only the box does (:mod:`.box`), which :func:`seed` accounts for, and G follows beta there.
    The next solve takes beta and G over (:meth:`...reuse.PathSlot.take`: no copy); the
    trackers, shrinking and the step count start afresh."""

    C: float
    beta: np.ndarray
    G: "np.ndarray | None"
    rows: "KernelRows"
    curvature: float  # beta' Q beta
    linear: float  # e' beta
    cached_rows: "np.ndarray | None" = None  # a restored point's: the rows its solve held

    @classmethod
    def of(cls, C, dual, margin, y, rows, complete):
        """The point a solve at ``C`` ended at (``dual``'s beta and G, margin e_im; ``complete``:
        whether G is current for every example, else the point carries none).  The terms come
        from the solve's last G, and only the choice of t depends on them."""
        linear = -margin * float(np.sum(dual.beta[y, np.arange(len(y))]))  # e' beta, sum 0 rows
        return cls(C, dual.beta, dual.G if complete else None, rows,
                   float(np.sum(dual.beta * dual.G)) - linear, linear)

    def saved(self):
        """The point for a checkpoint of its path on disk (the resume cache's chain states):
        ({C, curvature, linear}, {"beta", "G" if it has one, and "cached_rows": which kernel
        rows its cache holds in which slot, unless it holds K(X, X)})."""
        numbers = {"C": self.C, "curvature": self.curvature, "linear": self.linear}
        arrays = {"beta": self.beta, **({} if self.G is None else {"G": self.G})}
        if self.rows is not None and not self.rows.full:
            arrays["cached_rows"] = self.rows.owner.copy()
        return numbers, arrays

    @classmethod
    def restored(cls, numbers, arrays):
        """A point read back from :meth:`saved`'s numbers and arrays: the next solve computes
        its kernel rows again into the slots they held (:meth:`.kernel_rows.KernelRows.refill`)."""
        return cls(float(numbers["C"]), arrays["beta"], arrays.get("G"), None,
                   float(numbers["curvature"]), float(numbers["linear"]),
                   arrays.get("cached_rows"))

    def best_multiple(self, C):
        """The t in [0, C / self.C] of least dual objective t^2 a / 2 + t b at t beta (a, b: the
        ``curvature`` and ``linear`` terms): every such t beta is feasible at C (:func:`seed`)."""
        ratio = C / self.C
        if not self.curvature > 0.0:
            return ratio
        return min(ratio, max(0.0, -self.linear / self.curvature))


def seed(problem, previous, terms, rows, memory_mb):
    """The start (beta, G) of a solve from the ``previous`` point of a path, whose arrays it
    takes over: beta = t x previous beta, t in [0, C / C'] of least dual objective
    (:meth:`PathPoint.best_multiple`), and its gradient (``terms``: the formulation's (margin,
    shift)).  t = C / C' is alpha seeding (DeCoste & Wagstaff 2000): the entries at a bound
    land on the new bound, as most do at small C; t = 1 keeps a solution that no longer moves
    with C, as at large C.

    Every such t beta is feasible at C (:mod:`.box`): each row's sum stays 0 (it is linear),
    and every finite bound is 0 or +-C (C&S: beta_im <= C delta(m, y_i); W&W: -C <= beta_im
    <= 0 for m != y_i, beta_iy free), so the box at C contains t times the box at C' for
    0 <= t <= C / C'.  Each scaled row is placed by :func:`.loops.seed_rows` as after any step
    (:func:`.box.settle`): an entry within rounding of a bound lands exactly on it, and the
    rounding of the row's sum goes to the entry with the most room.

    G is affine in beta, so G(t beta) = Q t beta + e = e + t (G - e): the previous G, scaled,
    without a kernel value (on Letter's 15,000 rows, rebuilding it computed a kernel block of
    every support vector against every row).  It is exact but for the rounding that placing
    moved the entries by (at most 1e-12 max(1, C) an entry, against G's own rounding from
    thousands of steps).  A point without G (it ended shrunk) has it rebuilt over all examples
    (:func:`reconstruct`).  The solve then goes on as a cold one would from that point, with the
    same stopping rule: it reaches the same optimum within ``tol``."""
    from . import loops

    margin, shift = terms
    beta, t = previous.beta, previous.best_multiple(problem.C)
    loops.seed_rows(problem, beta, t)
    e = initial_gradient(problem.y, beta.shape[0], margin)
    if previous.G is None:
        reconstruct(e, beta, problem.y, margin, shift, rows, np.arange(beta.shape[1]), memory_mb)
        return beta, e
    G = previous.G
    G -= e
    G *= t
    G += e
    return beta, G


def initial_gradient(y_index, n_classes, margin):
    """G at beta = 0, (k, l): e_im = ``margin`` for m != y_i, 0 at the example's class."""
    G = np.full((n_classes, len(y_index)), margin)
    G[y_index, np.arange(len(y_index))] = 0.0
    return G


def reconstruct(G, beta, y, margin, shift, rows, examples, memory_mb):
    """G of ``examples`` (shrunk: not updated since) from scratch: e + sum over the examples
    with a non-zero dual row of beta (K + shift) (:meth:`.kernel_rows.KernelRows.add_products`: read in
    place from the Gram matrix where it is stored, else computed in blocks of at most
    ``memory_mb``)."""
    support = np.flatnonzero(np.any(beta != 0.0, axis=0))
    G[:, examples] = margin
    G[y[examples], examples] = 0.0
    rows.add_products(G, beta[:, support], support, examples, shift, memory_mb)


def solve_memory(rows, beta, X, newton_bytes=0):
    """Bytes the solve holds at its peak: the kernel cache (or Gram matrix), the dual variables
    and their gradient (2 l k float64), the training data as stored (:func:`.kernel_rows.data_bytes`) and
    ``newton_bytes``, the most that a Newton step's temporaries held (:class:`.newton.Peak`)."""
    return rows.nbytes + 2 * int(beta.nbytes) + data_bytes(X) + int(newton_bytes)


def solve_dual(X, y_index, n_classes, formulation, settings, shrinking=True, path=None):
    """Solve the ``formulation`` ('cs' or 'ww') dual on training rows ``X`` with class indices
    ``y_index``: a :class:`JointSolution`.  ``settings``: the fit's ``TrainSettings`` (kernel,
    C, tol, cache_size, memory_mb, max_iter, gram, n_jobs).  Warns (ConvergenceWarning) when
    the step bound or a stall ended it (:func:`warn_unless_converged`).

    ``path``: None (a cold start at beta = 0), or a slot of a C path (``path.take()``: the
    :class:`PathPoint` of the same problem at another C, or None, which the slot then no longer
    holds; ``path.keep(point)``: what this solve hands the next).  A solve with a previous
    point starts from it (:func:`seed`, which takes its arrays over) and reads the previous
    solve's kernel rows; each solve of a path hands on its own.

    Shrinking (libsvm's heuristic, per example; ``shrinking``): every min(l, 1000) steps the
    examples at a bound that are further from violating than the largest violation are set
    aside (:func:`.loops.shrink`); when the rest converge (or stall), the set-aside examples' G
    is rebuilt (:func:`reconstruct`) and the solve goes on over all examples until they all
    meet ``tol``.

    BLAS runs on one thread in every phase (see the module docstring's measurement).
    """
    with single_threaded_blas():
        return _solve_dual(X, y_index, n_classes, formulation, settings, shrinking, path)


def _solve_dual(X, y_index, n_classes, formulation, settings, shrinking, path):
    """:func:`solve_dual`'s work, with BLAS already limited."""
    from . import newton, trackers  # numba loads here, not at import

    kind, margin, shift = FORMULATIONS[formulation]
    if kind not in (CS, WW):
        raise ValueError(f"the decomposition solver solves C&S's and W&W's duals, not {formulation!r}'s")
    n = X.shape[0]
    y = np.ascontiguousarray(y_index, dtype=np.int64)
    previous = None if path is None else path.take()
    if previous is not None and previous.beta.shape != (n_classes, n):
        raise ValueError(f"a C path's previous point has {previous.beta.shape} dual variables, "
                         f"this problem {(n_classes, n)}")
    if previous is None or previous.rows is None:
        rows = KernelRows.of(X, settings)
        if previous is not None and previous.cached_rows is not None:
            rows.refill(previous.cached_rows)
    else:
        rows = previous.rows.carried_over()
    problem = Problem(kind, float(settings.C), shift, float(settings.tol),
                      min(n, SHRINK_EVERY) if shrinking else 0, y, rows.diag)
    beta, G = (np.zeros((n_classes, n)), initial_gradient(y, n_classes, margin)) \
        if previous is None else seed(problem, previous, (margin, shift), rows, settings.memory_mb)
    dual = Dual(beta, G, np.empty(n), np.empty(n), np.zeros(n, np.bool_),
                np.arange(n, dtype=np.int64))
    trackers.init_trackers(problem, dual)
    progress, pauses = new_progress(n), NewtonPauses(NEWTON_EVERY, NEWTON_EVERY, newton.Peak())
    bound = iteration_bound(settings.max_iter, n)
    while True:
        status = run_active(problem, rows, dual, progress, bound, pauses, settings.memory_mb)
        if status == BOUND or progress[0]["n_active"] == n:
            break
        shrunk = np.setdiff1d(np.arange(n), dual.active[:progress[0]["n_active"]])  # unshrink
        reconstruct(dual.G, dual.beta, y, margin, shift, rows, shrunk, settings.memory_mb)
        trackers.init_trackers(problem, dual)
        dual.active[:], progress[0]["n_active"] = np.arange(n), n
        rows.flush()
    if progress[0]["n_active"] < n:  # ended shrunk (the step bound): rows with stale columns
        rows.flush()
    if path is not None:
        path.keep(PathPoint.of(problem.C, dual, margin, y, rows, progress[0]["n_active"] == n))
    solution = JointSolution(np.ascontiguousarray(dual.beta.T), int(progress[0]["steps"]), status,
                             solve_memory(rows, dual.beta, X, pauses.peak.nbytes),
                             pauses.peak.failed)
    warn_unless_converged(solution, bound, float(progress[0]["worst"]), problem.tol)
    return solution


def run_active(problem, rows, dual, progress, bound, pauses, memory_mb):
    """The compiled steps (:func:`.loops.run`) over the active examples until they converge,
    stall or reach the step ``bound`` (the status): between calls, the kernel row a step needs
    is computed into ``rows``, and at each of the ``pauses`` a Newton step is taken on the free
    variables (:func:`.newton.newton_step`, its kernel blocks at most ``memory_mb``)."""
    from . import loops, newton, trackers

    cache, state = Cache(rows.rows, rows.slot_of, rows.stamp), progress[0]
    while True:
        limit = pauses.at if bound < 0 else min(bound, pauses.at)
        status = loops.run(problem, cache, dual, progress, limit)
        if status == NEED_ROW:
            rows.fetch(state["need_row"], state["steps"], dual.active[:state["n_active"]])
            continue
        if status != BOUND or not (bound < 0 or state["steps"] < bound):
            return status
        pauses.peak.spent = pauses.gap  # the steps since the last Newton step
        moved = newton.newton_step(problem, dual.beta, dual.G, dual.active[:state["n_active"]],
                                   rows, memory_mb, pauses.peak)
        if moved:
            trackers.init_trackers(problem, dual)
        pauses.after(moved, state["steps"])


def warn_unless_converged(solution, bound, violation, tol):
    """The fit's ConvergenceWarning when the step ``bound`` (scikit-learn's words, as the binary
    fits') or a stall (:data:`STALL_MESSAGE`, with the last ``violation`` and ``tol``) ended
    the solve; and one when Newton steps were skipped for a failed factorisation
    (:data:`FACTOR_MESSAGE`, with their count).  The fit keeps each as a note, as the stall's."""
    if solution.status == BOUND:
        warnings.warn(BOUND_MESSAGE.format(bound), ConvergenceWarning)
    elif solution.status == STALLED:
        warnings.warn(STALL_MESSAGE.format(violation, tol), ConvergenceWarning)
    if solution.failed_factorisations:
        warnings.warn(FACTOR_MESSAGE.format(solution.failed_factorisations), ConvergenceWarning)
