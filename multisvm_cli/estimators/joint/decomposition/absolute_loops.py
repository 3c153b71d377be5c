"""Compiled loops of the absolute-margin solver (numba; imported only when ``llw`` trains).

The dual (Lee, Lin & Wahba 2004; see :mod:`...llw` for its derivation) is a box QP in the
constraints' multipliers alpha, stored (l, k) (one row per training example, so that a step's
update of an example's k entries is contiguous): alpha_im in [0, C] for m != y_i, alpha_iy = 0,

    min_alpha  D(alpha) = 1/2 sum_ij Q_ij alpha_i' P alpha_j - sum_i sum_{m != y_i} alpha_im,

Q = K + ``shift`` (1 with Hsu & Lin's regularized bias, 0 without), P = I - 11'/k.  G = (Q
alpha P) - 1 is its gradient, stored (l, k) as alpha (G_iy is kept at its value and never read).

There is no equality constraint, so the KKT conditions are each entry's own: its projected
gradient is 0 (G_im >= 0 at alpha_im = 0, G_im <= 0 at alpha_im = C, G_im = 0 in between).  An
example's violation is the largest |projected gradient| over its k - 1 entries; the working
example is the one of largest violation (lowest index on ties), and the solve stops when it is
<= tol.  Each step solves the working example's row exactly (:func:`solve_row`) and updates
every active example's gradient and violation in one contiguous pass (:func:`update`).  No pair
step is needed: one row moves along every feasible direction of its own, and the feasible set
is the product of the rows' boxes.

The loops read and write the solver's named state (:mod:`.state`): the :class:`.state.Problem`
(kind :data:`.state.LLW`), the kernel rows' :class:`.state.Cache`, an :data:`AbsoluteDual` and
a :data:`.state.PROGRESS` record, with the same return codes as :func:`.loops.run`.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from .box import SNAP
from .loops import halt
from .state import CONVERGED, NEED_ROW, STALLED

TAU = 1e-12  # the least curvature Q_ii a row is solved with (libsvm's TAU)
INF = np.inf

AbsoluteDual = namedtuple("AbsoluteDual", "alpha G violation active")
AbsoluteDual.__doc__ = """The variables ``alpha`` and their gradient ``G`` (both (l, k)), each
example's ``violation`` (l,) and the examples in play first in ``active`` (their count is
PROGRESS.n_active; the others' G and violation are stale until rebuilt)."""


@njit(cache=True, nogil=True, inline="always")
def entry_violation(a, g, C):
    """|projected gradient| of one entry alpha = ``a`` in [0, C] of gradient ``g``."""
    if a <= 0.0:
        return max(-g, 0.0)
    if a >= C:
        return max(g, 0.0)
    return abs(g)


@njit(cache=True, nogil=True)
def row_violation(alpha, G, j, yj, C):
    """Example j's violation: the largest |projected gradient| over its k - 1 entries."""
    worst = 0.0
    for m in range(alpha.shape[1]):
        if m != yj:
            worst = max(worst, entry_violation(alpha[j, m], G[j, m], C))
    return worst


@njit(cache=True, nogil=True)
def init_violations(problem, dual):
    """Every example's violation from scratch."""
    for j in range(dual.alpha.shape[0]):
        dual.violation[j] = row_violation(dual.alpha, dual.G, j, problem.y[j], problem.C)


@njit(cache=True, nogil=True)
def theta_gap(theta, z, y, k, C):
    """phi(theta) = k theta - sum_{m != y} clip(theta - z_m, 0, C): increasing, slope in [1, k]."""
    total = k * theta
    for m in range(k):
        if m != y:
            total -= min(C, max(0.0, theta - z[m]))
    return total


@njit(cache=True, nogil=True)
def solve_row(A, g, a, y, C, new, z, points):
    """One example's sub-problem, solved exactly into ``new``.

    min_x 1/2 A x' P x + (g - A P a)' x  over x_m in [0, C] (m != y), x_y = 0, where a is the
    row's current value and g its gradient (the change x - a is then the best move).  P is
    positive definite on the k - 1 free entries (x' P x >= ||x||^2 / k), so the solution is
    unique; its KKT conditions give x_m = clip(theta - z_m, 0, C), z_m = g_m / A - (a_m - abar),
    abar the mean of a over all k entries, with theta = mean of x over all k entries, i.e. the
    root of :func:`theta_gap`.  That function is piecewise linear with breakpoints z_m and
    z_m + C: it is evaluated at the sorted breakpoints and the root found by linear
    interpolation between the two around it (or on the slope-k lines beyond them, where every
    x_m is 0 or every x_m is C), which is exact.  ``z`` (k) and ``points`` (2k) are scratch."""
    k = len(g)
    mean = 0.0
    for m in range(k):
        mean += a[m] / k
    n = 0
    for m in range(k):
        z[m] = g[m] / A - (a[m] - mean)
        if m != y:
            points[n], points[n + 1] = z[m], z[m] + C
            n += 2
    ordered = np.sort(points[:n])
    previous, gap_previous = ordered[0], theta_gap(ordered[0], z, y, k, C)
    if gap_previous >= 0.0:  # at or below every breakpoint every x_m is 0: slope k
        theta = previous - gap_previous / k
    else:
        theta = INF
        for p in ordered[1:]:
            gap = theta_gap(p, z, y, k, C)
            if gap >= 0.0:
                theta = previous - gap_previous * (p - previous) / (gap - gap_previous)
                break
            previous, gap_previous = p, gap
        if theta == INF:  # above every breakpoint every x_m is C: slope k
            theta = previous - gap_previous / k
    for m in range(k):
        value = 0.0 if m == y else min(C, max(0.0, theta - z[m]))
        if value <= SNAP * max(1.0, C):  # snapped onto a bound within rounding
            value = 0.0
        elif value >= C - SNAP * max(1.0, C):
            value = C
        new[m] = value


@njit(cache=True, nogil=True)
def update(problem, dual, n_active, q, d):
    """G_j += (Q_ij) (d - mean d) for every active example j (a row step's move ``d`` of example
    i, whose kernel row is ``q``), and the violations with it; returns (the active example of
    largest violation, lowest index on ties; its violation)."""
    k, C, shift, y = d.shape[0], problem.C, problem.shift, problem.y
    alpha, G, violation, active = dual.alpha, dual.G, dual.violation, dual.active
    mean = 0.0
    for m in range(k):
        mean += d[m] / k
    best, worst = -1, -INF
    for position in range(n_active):
        j = active[position]
        factor, yj, most = q[j] + shift, y[j], 0.0
        for m in range(k):
            g = G[j, m] + factor * (d[m] - mean)
            G[j, m] = g
            if m != yj:
                most = max(most, entry_violation(alpha[j, m], g, C))
        violation[j] = most
        if most > worst:
            best, worst = j, most
    return best, worst


@njit(cache=True, nogil=True)
def select(dual, n_active):
    """(the active example of largest violation, lowest index on ties; its violation)."""
    best, worst = -1, -INF
    for position in range(n_active):
        j = dual.active[position]
        if dual.violation[j] > worst:
            best, worst = j, dual.violation[j]
    return best, worst


@njit(cache=True, nogil=True)
def settled(alpha, G, j, yj, C, worst):
    """Whether example j is at a bound in every entry and further than ``worst`` from violating
    (G_jm > worst at 0, G_jm < -worst at C): libsvm's shrinking test, per example."""
    for m in range(alpha.shape[1]):
        if m == yj:
            continue
        a, g = alpha[j, m], G[j, m]
        if not ((a <= 0.0 and g > worst) or (a >= C and g < -worst)):
            return False
    return True


@njit(cache=True, nogil=True)
def shrink(problem, dual, worst, n_active):
    """Drop from ``active`` (in place, order kept) the examples :func:`settled` at the largest
    violation ``worst``.  Returns the new count."""
    kept = 0
    for position in range(n_active):
        j = dual.active[position]
        if not settled(dual.alpha, dual.G, j, problem.y[j], problem.C, worst):
            dual.active[kept] = j
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def run(problem, cache, dual, progress, bound):
    """Row steps (module docstring) until the active examples meet the KKT conditions within
    ``problem.tol`` (CONVERGED), ``bound`` steps were taken in all (BOUND; -1: no bound), the
    working example's kernel row is not in ``cache`` (NEED_ROW; ``progress.need_row`` names
    it), or a step changes nothing though the violation is above tol (STALLED).  Reads and
    updates ``progress[0]`` as :func:`.loops.run` does, shrinking every
    ``problem.shrink_every`` steps."""
    state, alpha, G, rows, slot_of = progress[0], dual.alpha, dual.G, cache.rows, cache.slot_of
    k = alpha.shape[1]
    new, d, z, points = np.empty(k), np.empty(k), np.empty(k), np.empty(2 * k)
    steps, n_active = state.steps, state.n_active
    if state.resume:  # back from NEED_ROW: the state, hence the choice, is unchanged
        i, worst = state.working, state.worst
    else:
        i, worst = select(dual, n_active)
    status = CONVERGED
    while worst > problem.tol:
        status = halt(bound, steps, cache, i, state)
        if status != CONVERGED:
            break
        q = rows[slot_of[i]]
        A = max(q[i] + problem.shift, TAU)
        solve_row(A, G[i], alpha[i], problem.y[i], problem.C, new, z, points)
        moved = False
        for m in range(k):
            d[m] = new[m] - alpha[i, m]
            moved = moved or d[m] != 0.0
            alpha[i, m] = new[m]
        if not moved:
            status = STALLED
            break
        i, worst = update(problem, dual, n_active, q, d)
        steps += 1
        if problem.shrink_every > 0 and steps % problem.shrink_every == 0:
            n_active = shrink(problem, dual, worst, n_active)  # i violates: it stays
    state.steps, state.working, state.n_active, state.resume = steps, i, n_active, status == NEED_ROW
    state.worst = worst
    return status
