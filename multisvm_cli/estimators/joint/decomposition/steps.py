"""The sub-problems of the all-together solver, each solved exactly (numba; imported only when
a joint machine trains, by :mod:`.loops`).

Each minimises 1/2 A ||v||^2 + c' v over a row v of k entries that sum to 0, each in a box;
its KKT conditions make v a clipped shift theta - c / A of one scalar theta:

- :func:`solve_cs`: one example's row in Crammer & Singer's box (their fixed-point algorithm,
  2001, section 6);
- :func:`solve_ww`: one example's row in Weston & Watkins' box;
- :func:`solve_box`: any box (the pair steps of :mod:`.loops`);
- :func:`solve_row_over`: one example's row over some of its classes, the others kept (W&W's
  thinned row step and its partner's row step, :mod:`.loops`);
- :func:`gain` and :func:`rounding_only`: what a step gained, and whether it moved by rounding
  only (the loops then stop, stalled).

The boxes are :mod:`.box`'s (U_m = :func:`.box.upper`, L_m = :func:`.box.lower`).
"""

import numpy as np
from numba import njit

from .box import lower, upper
from .state import CS, WW

INF = np.inf
ROUNDING = 4 * np.finfo(np.float64).eps  # a move of at most ROUNDING x |value| is rounding


@njit(cache=True, nogil=True)
def solve_cs(A, g, b, y, C, nu, v):
    """Crammer & Singer's sub-problem of one example, solved exactly into ``nu``.

    min_nu 1/2 A ||nu||^2 + sum_m (g_m - A b_m) nu_m  s.t.  sum_m nu_m = 0, nu_m <= U_m
    (U = C at the example's class y, else 0), where b is the row's current value and g its
    gradient.  Its KKT conditions give nu_m = U_m - max(0, v_m - theta), v_m = g_m / A - b_m
    + U_m, with theta the root of sum_m max(0, v_m - theta) = C; Crammer & Singer (2001,
    section 6, Fig. 3) find it by the fixed point theta <- (sum_{v_m > theta} v_m - C) /
    |{m : v_m > theta}| from theta = (sum_m v_m - C) / k: theta rises monotonically and the set
    only shrinks, so it stops, exactly, within k steps.
    """
    k = len(g)
    total = 0.0
    for m in range(k):
        v[m] = g[m] / A - b[m] + upper(CS, m == y, C)
        total += v[m]
    theta, count = (total - C) / k, k
    for _ in range(k):
        total, size = 0.0, 0
        for m in range(k):
            if v[m] > theta:
                total += v[m]
                size += 1
        if size == count:  # the set is stable: theta is the fixed point
            break
        theta, count = (total - C) / size, size
    for m in range(k):
        nu[m] = upper(CS, m == y, C) - max(0.0, v[m] - theta)
    if nu[y] < upper(CS, True, C):  # the class's own entry is free: it takes the rounding of sum nu = 0
        rest = 0.0
        for m in range(k):
            if m != y:
                rest += nu[m]
        nu[y] = -rest


@njit(cache=True, nogil=True)
def ww_sum(theta, c, y, C):
    """s(theta) = (theta - c_y) + sum_{m != y} clip(theta - c_m, -C, 0): increasing, slope >= 1."""
    total = theta - c[y]
    for m in range(len(c)):
        if m != y:
            total += min(upper(WW, False, C), max(lower(WW, False, C), theta - c[m]))
    return total


@njit(cache=True, nogil=True)
def solve_ww(A, g, b, y, C, nu, c):
    """Weston & Watkins' sub-problem of one example, solved exactly into ``nu``.

    min_nu 1/2 A ||nu||^2 + sum_m (g_m - A b_m) nu_m  s.t.  sum_m nu_m = 0, -C <= nu_m <= 0
    for m != y (nu_y free).  Its KKT conditions give nu_m = clip(theta - c_m, -C, 0),
    c_m = g_m / A - b_m, with theta the root of s(theta) = sum_m nu_m(theta) = 0 (:func:`ww_sum`).
    s is piecewise linear and increasing with breakpoints c_m - C and c_m (m != y): s is
    evaluated at the sorted breakpoints and the root found by linear interpolation between the
    two around it (or on the slope-1 lines outside them), which is exact.
    """
    k = len(g)
    for m in range(k):
        c[m] = g[m] / A - b[m]
    points = np.empty(2 * (k - 1))
    n = 0
    for m in range(k):
        if m != y:
            points[n], points[n + 1] = c[m] + lower(WW, False, C), c[m] + upper(WW, False, C)
            n += 2
    points.sort()
    previous, s_previous = points[0], ww_sum(points[0], c, y, C)
    if s_previous >= 0.0:  # below every breakpoint all nu_m are at -C: slope 1
        theta = previous - s_previous
    else:
        theta = INF
        for p in points[1:]:
            s = ww_sum(p, c, y, C)
            if s >= 0.0:
                theta = previous if s == s_previous else \
                    previous - s_previous * (p - previous) / (s - s_previous)
                break
            previous, s_previous = p, s
        if theta == INF:  # above every breakpoint all nu_m are at 0: slope 1
            theta = previous - s_previous
    rest = 0.0
    for m in range(k):
        if m != y:
            nu[m] = min(upper(WW, False, C), max(lower(WW, False, C), theta - c[m]))
            rest += nu[m]
    nu[y] = -rest


@njit(cache=True, nogil=True)
def box_sum(theta, z, lo, hi):
    """s(theta) = sum_m clip(theta - z_m, lo_m, hi_m): non-decreasing, piecewise linear."""
    total = 0.0
    for m in range(len(z)):
        total += min(hi[m], max(lo[m], theta - z[m]))
    return total


@njit(cache=True, nogil=True)
def solve_box(A, c, lo, hi, v, z, points):
    """min_v 1/2 A ||v||^2 + c' v  s.t.  sum_m v_m = 0, lo <= v <= hi (lo <= 0 <= hi; bounds
    may be infinite), solved exactly into ``v``: by its KKT conditions v_m = clip(theta - z_m,
    lo_m, hi_m), z = c / A, with theta a root of :func:`box_sum` = 0, found between the two
    sorted breakpoints z_m + lo_m, z_m + hi_m around it (or on the lines of slope = the number
    of classes unbounded beyond them), which is exact.  The rounding of sum v = 0 goes to the
    entry with the most room inside its bounds.  ``z`` and ``points`` (2k) are scratch."""
    k = len(c)
    n, below, above, mean = 0, 0, 0, 0.0
    for m in range(k):
        z[m] = c[m] / A
        mean += z[m] / k
        if lo[m] > -INF:
            points[n] = z[m] + lo[m]
            n += 1
        else:
            below += 1
        if hi[m] < INF:
            points[n] = z[m] + hi[m]
            n += 1
        else:
            above += 1
    if n == 0:
        theta = mean
    else:
        ordered = np.sort(points[:n])
        previous, s_previous = ordered[0], box_sum(ordered[0], z, lo, hi)
        if s_previous >= 0.0:
            theta = previous - s_previous / below if below > 0 else previous
        else:
            theta = INF
            for p in ordered[1:]:
                s = box_sum(p, z, lo, hi)
                if s >= 0.0:
                    theta = previous - s_previous * (p - previous) / (s - s_previous)
                    break
                previous, s_previous = p, s
            if theta == INF:
                theta = previous - s_previous / above if above > 0 else previous
    rest, widest, room = 0.0, -1, 0.0
    for m in range(k):
        v[m] = min(hi[m], max(lo[m], theta - z[m]))
        rest += v[m]
        inside = min(v[m] - lo[m], hi[m] - v[m])
        if inside > room:
            widest, room = m, inside
    if widest >= 0:
        v[widest] -= rest


@njit(cache=True, nogil=True)
def solve_row_over(box, y, A, g, b, moving, v, work):
    """One example's sub-problem over the classes where ``moving`` is True, the others kept,
    solved exactly into its move ``v``: min_v 1/2 A ||v||^2 + g'v  s.t.  sum_m v_m = 0, b + v in
    the row's box (``box`` = (kind, C); class y its own) on the moving classes, v_m = 0 on the
    others (:func:`solve_box`), where b is the row and g its gradient.  Returns the gain.
    ``work``: scratch, at least 4 rows of 2k."""
    kind, C = box
    k = len(b)
    lo, hi = work[0, :k], work[1, :k]
    for m in range(k):
        lo[m] = lower(kind, m == y, C) - b[m] if moving[m] else 0.0
        hi[m] = upper(kind, m == y, C) - b[m] if moving[m] else 0.0
    solve_box(A, g, lo, hi, v, work[2, :k], work[3])
    return gain(A, g, v)


@njit(cache=True, nogil=True)
def gain(A, g, d):
    """The objective's decrease -(g' d + 1/2 A ||d||^2) of a step d with curvature A."""
    total = 0.0
    for m in range(len(g)):
        total += g[m] * d[m] + 0.5 * A * d[m] * d[m]
    return -total


@njit(cache=True, nogil=True)
def rounding_only(d, row, d2, row2):
    """Whether the moves ``d`` and ``d2`` that ended at rows ``row`` and ``row2`` changed every
    entry by at most ROUNDING times its size (before or after): a few units in its last place,
    so the step lowered the objective by rounding only."""
    for m in range(len(d)):
        if abs(d[m]) > ROUNDING * max(abs(row[m]), abs(row[m] - d[m])) or \
                abs(d2[m]) > ROUNDING * max(abs(row2[m]), abs(row2[m] - d2[m])):
            return False
    return True
