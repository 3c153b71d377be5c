"""Compiled loops of the all-together solver (numba; imported only when a joint machine trains).

The dual both formulations share (see :mod:`._joint`): variables beta, stored (k, l) (one
column per training example, so that a class's entries are contiguous for the updates), each
example's k entries summing to 0, each entry in a box [L_im, U_im] that depends on the
formulation (``kind``) and on whether m is the example's class y_i:

- Crammer & Singer (``CS``):  beta_im <= C delta(m, y_i), no lower bound;
- Weston & Watkins (``WW``):  -C <= beta_im <= 0 for m != y_i, beta_iy free.

Objective: 1/2 sum_m beta_.m' Q beta_.m + sum_im e_im beta_im, Q = K + ``shift`` (1 for W&W's
regularized bias, 0 for C&S), e_im = ``margin`` (1 for C&S, 2 for W&W) for m != y_i, 0 for
m = y_i.  G = Q beta + e is its gradient, stored (k, l) as beta.

KKT conditions per example i (the sub-problem of its row alone is at its optimum): no pair of
classes (m, n) where beta_im may decrease (above L), beta_in may increase (below U) and
G_im > G_in.  Its violation is max_{m in low_i} G_im - min_{n in up_i} G_in (>= 0; both sets
always share a class, so it is 0 at the optimum), kept for every example through trackers
(the max and the min) updated with G; the working example is the one
of largest violation (lowest index on ties), and the solve stops when it is <= tol.
"""

import numpy as np
from numba import njit

CS, WW = 0, 1
NEED_ROW, CONVERGED, BOUND = 0, 1, 2  # why :func:`run` returned
TAU = 1e-12  # the least curvature Q_ii a sub-problem is solved with (libsvm's TAU)
INF = np.inf


@njit(cache=True, nogil=True, inline="always")
def can_decrease(kind, value, m, y, C):
    """Whether beta_im = ``value`` is above its lower bound (class m, example class y)."""
    return kind == CS or m == y or value > -C


@njit(cache=True, nogil=True, inline="always")
def can_increase(kind, value, m, y, C):
    """Whether beta_im = ``value`` is below its upper bound."""
    if kind == CS:
        return value < (C if m == y else 0.0)
    return m == y or value < 0.0


@njit(cache=True, nogil=True)
def recompute(kind, C, j, y, beta, G, high, low):
    """Example j's trackers from scratch: the largest G over classes that may decrease
    (``high``), the smallest over classes that may increase (``low``)."""
    hi, lo = -INF, INF
    for m in range(beta.shape[0]):
        g, b = G[m, j], beta[m, j]
        if can_decrease(kind, b, m, y[j], C):
            hi = max(hi, g)
        if can_increase(kind, b, m, y[j], C):
            lo = min(lo, g)
    high[j], low[j] = hi, lo


@njit(cache=True, nogil=True)
def init_trackers(kind, C, y, beta, G, trackers):
    """Every example's trackers from scratch."""
    high, low, stale = trackers
    for j in range(beta.shape[1]):
        recompute(kind, C, j, y, beta, G, high, low)
        stale[j] = False


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
        v[m] = g[m] / A - b[m] + (C if m == y else 0.0)
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
        nu[m] = (C if m == y else 0.0) - max(0.0, v[m] - theta)
    if nu[y] < C:  # the class's own entry is free: it takes the rounding of sum nu = 0
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
            total += min(0.0, max(-C, theta - c[m]))
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
            points[n], points[n + 1] = c[m] - C, c[m]
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
            nu[m] = min(0.0, max(-C, theta - c[m]))
            rest += nu[m]
    nu[y] = -rest


@njit(cache=True, nogil=True)
def refresh(kind, C, j, y, beta, G, high, low, stale, worst):
    """(The step of :func:`select`; :func:`update` has it written out, as a call per example
    costs there: numba counts references of the arrays passed.)  Rebuild a stale example's
    trackers (which only bound its violation from above), but only when that bound exceeds
    ``worst``, the largest exact violation seen so far: it could not be the working example
    otherwise."""
    if stale[j] and high[j] - low[j] > worst:
        recompute(kind, C, j, y, beta, G, high, low)
        stale[j] = False


@njit(cache=True, nogil=True)
def select(kind, C, y, beta, G, trackers, active, n_active):
    """(the active example of largest violation, lowest index on ties; its violation)."""
    high, low, stale = trackers
    best, worst = -1, -INF
    for a in range(n_active):
        j = active[a]
        refresh(kind, C, j, y, beta, G, high, low, stale, worst)
        if high[j] - low[j] > worst:
            best, worst = j, high[j] - low[j]
    return best, worst


@njit(cache=True, nogil=True)
def update(kind, C, shift, q, d, changed, n_changed, i, y, beta, G, trackers, active, n_active):
    """G += (Q row i) d on the changed classes of every active example, and the trackers with
    it; returns :func:`select`'s answer for the new state.

    An entry that was its example's extreme (equal to it) and moves inwards (the largest G
    falls, the smallest rises) leaves the trackers an upper bound of the violation: the example
    is marked stale and rebuilt only when that bound could make it the working example
    (:func:`refresh`), so the answer is exact where it matters.  Example i, whose bounds moved,
    is rebuilt.  The loop runs a class at a time over the examples (streaming G's rows) and has
    no data-dependent branch: on Letter the tests "beyond the extreme" go either way at random,
    and branch-free selects measured 2x faster than ifs.
    """
    high, low, stale = trackers
    for t in range(n_changed):
        m = changed[t]
        step, row, own = d[m], G[m], beta[m]
        for a in range(n_active):
            j = active[a]
            old = row[j]
            g = old + step * (q[j] + shift)
            row[j] = g
            h, lo, b, mine = high[j], low[j], own[j], m == y[j]
            if kind == CS:
                down, up = True, b < (C if mine else 0.0)
            else:
                down, up = mine | (b > -C), mine | (b < 0.0)
            stale[j] = stale[j] | ((old == h) & (g < old)) | ((old == lo) & (g > old))
            high[j] = max(h, g if down else -INF)
            low[j] = min(lo, g if up else INF)
    stale[i], high[i], low[i] = True, INF, -INF
    best, worst = -1, -INF
    for a in range(n_active):
        j = active[a]
        if stale[j] and high[j] - low[j] > worst:  # refresh(), written out: calls cost here
            recompute(kind, C, j, y, beta, G, high, low)
            stale[j] = False
        if high[j] - low[j] > worst:
            best, worst = j, high[j] - low[j]
    return best, worst


@njit(cache=True, nogil=True)
def slack(kind, C, j, y, beta, G):
    """How far example j is from violating: the least G_n - G_m over the feasible directions
    (n may increase, m may decrease, n != m), when every one of its variables is at a bound
    (C&S: the row is 0; W&W: each wrong class's entry is 0 or -C); -inf otherwise."""
    yj = y[j]
    low_max, up_min = -INF, INF  # over the wrong classes that may decrease / increase
    for m in range(beta.shape[0]):
        if m == yj:
            continue
        b = beta[m, j]
        if b == 0.0:
            low_max = max(low_max, G[m, j])
        elif kind == WW and b == -C:
            up_min = min(up_min, G[m, j])
        else:
            return -INF
    own = G[yj, j]  # the example's own class may move both ways
    return min(own - low_max, up_min - max(low_max, own))


@njit(cache=True, nogil=True)
def shrink(kind, C, worst, y, beta, G, active, n_active):
    """Drop from ``active`` (in place, order kept) the examples at a bound whose :func:`slack`
    exceeds ``worst``, the largest violation now: they are unlikely to move again (libsvm's
    shrinking heuristic, per example).  Returns the new count."""
    kept = 0
    for a in range(n_active):
        j = active[a]
        if slack(kind, C, j, y, beta, G) <= worst:
            active[kept] = j
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def run(kind, C, shift, tol, bound, cache, slot_of, stamp, y, beta, G, trackers, active,
        counters, worst_seen, shrink_every):
    """Decomposition steps until the active examples meet the KKT conditions within ``tol``
    (CONVERGED), ``bound`` steps were taken in all (BOUND; -1: no bound), or the working
    example's Q row is not in the cache (NEED_ROW; the example is then ``counters[1]``).

    A step solves the sub-problem of the example of largest violation exactly (:func:`solve_cs`
    / :func:`solve_ww`) and updates G with its kernel row, read from ``cache`` (row
    ``slot_of[i]``; ``stamp`` records when a cached row was last read, for eviction).
    ``counters[0]`` counts the steps across calls.  A step that changes nothing (the violation
    is rounding) ends the solve as converged.  Only the first ``counters[2]`` examples of
    ``active`` take part; every ``shrink_every`` steps (0: never) :func:`shrink` drops some, and
    ``counters[2]`` says how many are left.  ``counters[3]`` (set on NEED_ROW) tells the next
    call that the working example and its violation (``worst_seen[0]``) still hold: no scan.
    """
    k = beta.shape[0]
    n_active = counters[2]
    nu, work, d = np.empty(k), np.empty(k), np.empty(k)
    changed = np.empty(k, np.int64)
    steps = counters[0]
    if counters[3]:  # back from NEED_ROW: the state, hence the choice, is unchanged
        i, worst = counters[1], worst_seen[0]
    else:
        i, worst = select(kind, C, y, beta, G, trackers, active, n_active)
    status = CONVERGED
    while worst > tol:
        if bound >= 0 and steps >= bound:
            status = BOUND
            break
        slot = slot_of[i]
        if slot < 0:
            status = NEED_ROW
            break
        stamp[slot] = steps
        q = cache[slot]
        A = max(q[i] + shift, TAU)
        if kind == CS:
            solve_cs(A, G[:, i], beta[:, i], y[i], C, nu, work)
        else:
            solve_ww(A, G[:, i], beta[:, i], y[i], C, nu, work)
        n_changed = 0
        for m in range(k):
            d[m] = nu[m] - beta[m, i]
            if d[m] != 0.0:
                changed[n_changed] = m
                n_changed += 1
            beta[m, i] = nu[m]
        if n_changed == 0:
            break
        i, worst = update(kind, C, shift, q, d, changed, n_changed, i, y, beta, G, trackers,
                          active, n_active)
        steps += 1
        if shrink_every > 0 and steps % shrink_every == 0:
            n_active = shrink(kind, C, worst, y, beta, G, active, n_active)
    counters[0], counters[1], counters[2], counters[3] = steps, i, n_active, status == NEED_ROW
    worst_seen[0] = worst
    return status
