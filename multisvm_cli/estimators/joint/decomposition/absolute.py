"""The absolute-margin solver: Lee, Lin & Wahba's dual (:mod:`..lee_lin_wahba`), a box QP in
alpha space.

Why its own solver beside :mod:`.solver`: there, every variable beta_im has a box of its own
(:mod:`.box`) and each row sums to 0.  Lee, Lin & Wahba's dual in that form, beta = -alpha P
(P = I - 11'/k), has rows that sum to 0 but the constraints 0 <= beta_iy - beta_im <= C, which
couple each entry with the example's own; the trackers, pair steps, shrinking test and Newton
step of :mod:`.loops` and :mod:`.newton` assume per-entry boxes.  In the constraints'
multipliers alpha the same dual is a plain box QP with no equality constraint at all (the
sum-to-zero constraint sum_m w_m = 0 and the regularized bias leave none), so it is solved
there: each step takes the example of largest KKT violation and solves its row exactly
(:func:`.absolute_loops.solve_row`), compiled (:mod:`.absolute_loops`).  What it shares with
:mod:`.solver` it imports from there: the kernel rows (:class:`.kernel_rows.KernelRows`), the
rebuild of shrunk examples' gradients, the memory count, the stopping rule (``tol``, the step
bound, a stall) and its warnings.

No Newton step (C&S and W&W take one every 100 steps, :mod:`.newton`): the row steps alone
reach the optimum (block coordinate descent on a box QP, each block solved exactly).  A Newton
step on the free variables, (K + 1) x (I - 11'/k) over them, cut back at the first bound or
projected onto the box, was tried and measured (C 1 and 16 on glass, vehicle, segment and
Letter's first 2,000 rows, 2026-11-26): it never saved CPU time and cost 2.5x on glass at
C 16.  LLW's solutions have many free variables (over the 600 such a step can afford on
vehicle, segment and Letter), and where they are fewer (glass) their system is close to
singular, so the step moves one variable to its bound at a time.

Shrinking, as :func:`.solver.solve_dual` does it: every min(l, 1000) steps the examples at a
bound in every entry that are further from violating than the largest violation are set
aside; when the rest converge (or stall) their gradients are rebuilt and the solve goes on over
all examples until they all meet ``tol``.
"""

import numpy as np

from ..formulations import FORMULATIONS
from ..lee_lin_wahba import centred
from .kernel_rows import KernelRows
from .solver import (SHRINK_EVERY, JointSolution, initial_gradient, reconstruct, solve_memory,
                     warn_unless_converged)
from .state import BOUND, LLW, NEED_ROW, Cache, Problem, new_progress
from ..._solvers import iteration_bound


def solve_absolute(X, y_index, n_classes, formulation, settings, shrinking=True):
    """Solve the ``formulation`` ('llw') dual on training rows ``X`` with class indices
    ``y_index``: a :class:`.solver.JointSolution` whose ``beta`` =
    :func:`..lee_lin_wahba.centred` (alpha).
    ``settings``: the fit's ``TrainSettings`` (kernel, C, tol, cache_size, memory_mb,
    max_iter, gram, n_jobs).  Warns (ConvergenceWarning) when the step bound or a stall ended
    it, as :func:`.solver.solve_dual` does."""
    from . import absolute_loops as loops  # numba loads here, not at import
    from .absolute_loops import AbsoluteDual

    kind, margin, shift = FORMULATIONS[formulation]
    if kind != LLW:
        raise ValueError(f"the absolute-margin solver solves LLW's dual, not {formulation!r}'s")
    n = X.shape[0]
    y = np.ascontiguousarray(y_index, dtype=np.int64)
    rows = KernelRows.of(X, settings)
    problem = Problem(kind, float(settings.C), shift, float(settings.tol),
                      min(n, SHRINK_EVERY) if shrinking else 0, y, rows.diag)
    gradient = np.ascontiguousarray(initial_gradient(y, n_classes, margin).T)  # G at alpha = 0
    dual = AbsoluteDual(np.zeros((n, n_classes)), gradient, np.empty(n), np.arange(n, dtype=np.int64))
    loops.init_violations(problem, dual)
    progress, bound = new_progress(n), iteration_bound(settings.max_iter, n)
    while True:
        status = run_active(problem, rows, dual, progress, bound)
        if status == BOUND or progress[0]["n_active"] == n:
            break
        shrunk = np.setdiff1d(np.arange(n), dual.active[:progress[0]["n_active"]])  # unshrink
        reconstruct(dual.G.T, -centred(dual.alpha).T, y, margin, shift, rows, shrunk,
                    settings.memory_mb)
        loops.init_violations(problem, dual)
        dual.active[:], progress[0]["n_active"] = np.arange(n), n
        rows.flush()
    solution = JointSolution(np.ascontiguousarray(centred(dual.alpha)), int(progress[0]["steps"]),
                             status, solve_memory(rows, dual.alpha, X))
    warn_unless_converged(solution, bound, float(progress[0]["worst"]), problem.tol)
    return solution


def run_active(problem, rows, dual, progress, bound):
    """The compiled steps (:func:`.absolute_loops.run`) over the active examples until they
    converge, stall or reach the step ``bound`` (the status); between calls, the kernel row a
    step needs is computed into ``rows``."""
    from . import absolute_loops as loops

    cache, state = Cache(rows.rows, rows.slot_of, rows.stamp), progress[0]
    while True:
        status = loops.run(problem, cache, dual, progress, bound)
        if status != NEED_ROW:
            return status
        rows.fetch(state["need_row"], state["steps"], dual.active[:state["n_active"]])
