"""The projected search of the Newton step (:mod:`.newton`; numba, imported only when a joint
machine trains).

A Newton direction D on some of the variables of some rows (``moving``), taken a length t, is
projected row by row onto that row's feasible set: the move v of row i is the point nearest to
t D_i with sum_m v_m = 0, its moving entries in their boxes and the others at 0,

    min_v 1/2 ||v - t D_i||^2   s.t.  sum_m v_m = 0,  L_im - b_im <= v_m <= U_im - b_im,

which is :func:`.steps.solve_row_over` (:func:`.steps.solve_box`) with A = 1 and g = -t D_i,
solved exactly.  The feasible set
is a product of the rows' sets, so the rows' projections are the projection of the whole step
(Bertsekas 1982; Moré & Toraldo 1991, section 2, the projected search of GPCG; Lin & Moré
1999, TRON, section 4).  Every variable that the step would carry past its bound stops on the
bound, and the rest of its row shifts to keep the row's sum, instead of the whole step being cut
at the first bound.
"""

import numpy as np
from numba import njit

from .box import lower, settle, upper
from .steps import solve_row_over


@njit(cache=True, nogil=True)
def projected_rows(kind, C, y, beta, direction, moving, t, new):
    """Rows ``beta`` (k, r; their classes ``y``) moved along ``t`` x ``direction`` (k, r) on
    the ``moving`` entries (k, r booleans), into ``new`` (k, r): each row's move is the nearest
    feasible one (module docstring), placed as a step's rows are (:func:`.box.settle`).  A row
    whose move projected onto sum 0 alone stays inside its box needs no more (most rows at a
    short t)."""
    k, r = beta.shape
    c, v, work = np.empty(k), np.empty(k), np.empty((4, 2 * k))
    for a in range(r):
        total, count = 0.0, 0
        for m in range(k):
            c[m] = -t * direction[m, a]
            if moving[m, a]:
                total, count = total - c[m], count + 1
        inside = True  # the projection onto sum 0 alone (t D_i less its mean) stays in the box?
        for m in range(k):
            v[m] = -c[m] - total / max(count, 1) if moving[m, a] else 0.0
            inside &= lower(kind, m == y[a], C) <= beta[m, a] + v[m] <= upper(kind, m == y[a], C)
        if not inside:
            solve_row_over((kind, C), y[a], 1.0, c, beta[:, a], moving[:, a], v, work)
        for m in range(k):
            new[m, a] = beta[m, a] + v[m] if moving[m, a] else beta[m, a]
        settle(kind, C, y[a], new[:, a], moving[:, a])


@njit(cache=True, nogil=True)
def searched(box, y, beta, gradient, Q, step, tries, armijo):
    """The projected search along a Newton step (:func:`.newton._projected_search`): the rows
    ``beta`` (k, r; classes ``y``, gradient ``gradient``, Q block ``Q``; ``box`` = (kind, C))
    moved along ``step`` = (classes, positions, direction), the direction of those variables,
    projected (:func:`projected_rows`) at t = 1, 1/2, ..., ``tries`` lengths: (the moved rows,
    whether one passed).  A length passes
    when the dual objective's exact change g'd + 1/2 sum_m d_m' Q d_m is at most ``armijo`` x
    g'd < 0 (Armijo's rule): where Q_FF is close to singular (a polynomial kernel of low
    degree, rows that nearly coincide), the direction is mostly rounding near the optimum, and
    its row sums' rounding, moved onto one variable a row, could raise the objective."""
    (kind, C), (classes, positions, direction) = box, step
    k, r = beta.shape
    full, moving = np.zeros((k, r)), np.zeros((k, r), np.bool_)
    for v in range(len(classes)):
        full[classes[v], positions[v]] = direction[v]
        moving[classes[v], positions[v]] = True
    moved, change, t = np.empty((k, r)), np.empty((k, r)), 1.0
    for _ in range(tries):
        projected_rows(kind, C, y, beta, full, moving, t, moved)
        first = 0.0
        for m in range(k):
            for a in range(r):
                change[m, a] = moved[m, a] - beta[m, a]
                first += gradient[m, a] * change[m, a]
        if first < 0.0:
            curved = np.dot(change, Q)
            quadratic = 0.0
            for m in range(k):
                for a in range(r):
                    quadratic += curved[m, a] * change[m, a]
            if first + 0.5 * quadratic <= armijo * first:
                return moved, True
        t *= 0.5
    return moved, False
