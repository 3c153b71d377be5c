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

Each step solves the working example's row exactly (:mod:`._joint_steps`) and then, from
there, a pair step with a second example (:func:`partner`) that moves the two rows in opposite
directions (see :func:`run`).  The feasible set is a product of the examples' row sets, so the
KKT conditions above, row by row, are the whole problem's: any step that keeps every row in
its set may be taken, and the stopping rule is unchanged.
"""

import numpy as np
from numba import njit

from .steps import gain, solve_box, solve_cs, solve_ww

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


@njit(cache=True, nogil=True, inline="always")
def lower(kind, m, y, C):
    """The lower bound L_im of beta_im (class m, example class y)."""
    if kind == CS or m == y:
        return -INF
    return -C


@njit(cache=True, nogil=True, inline="always")
def upper(kind, m, y, C):
    """The upper bound U_im of beta_im."""
    if kind == CS:
        return C if m == y else 0.0
    return INF if m == y else 0.0


@njit(cache=True, nogil=True)
def extremes(kind, C, yi, b, g):
    """The most violating pair of classes of a row ``b`` of gradient ``g`` (class yi): (p, the
    class of largest g that may decrease; q, the class of smallest g that may increase)."""
    p, q, hi, lo = -1, -1, -INF, INF
    for m in range(len(b)):
        if can_decrease(kind, b[m], m, yi, C) and g[m] > hi:
            p, hi = m, g[m]
        if can_increase(kind, b[m], m, yi, C) and g[m] < lo:
            q, lo = m, g[m]
    return p, q


@njit(cache=True, nogil=True)
def partner(kind, C, shift, i, p, q, gi, step, q_row, diag, y, beta, G, active, n_active):
    """The partner j of a pair step with example i (-1: none); p and q are i's most violating
    classes (:func:`extremes`) before its own step ``step``, ``gi`` its gradient after it (G_j
    then also moved, by (Q_ij) step).

    Along the direction that moves i's classes p down and q up and j's the other way, which
    keeps every class's sum of beta, the unconstrained step gains b^2 / (2 a),
    b = (G_jp - G_jq) - (G_ip - G_iq) < 0, a = 2 (K_ii + K_jj - 2 K_ij): j is the example of
    largest b^2 / a among those whose p may increase and q decrease (lowest index on ties):
    second-order information, as in libsvm's working-set selection (Fan, Chen & Lin, JMLR
    2005).  (p and q are taken before i's step: after it, i's classes that may move are all
    at one gradient value, and which is largest is rounding.)"""
    if p < 0 or q < 0 or p == q:
        return -1
    rowp, rowq, betap, betaq = G[p], G[q], beta[p], beta[q]
    violation, own, moved = gi[p] - gi[q], diag[i], step[p] - step[q]
    best, score = -1, 0.0
    for a in range(n_active):
        j = active[a]
        b = rowp[j] - rowq[j] + moved * (q_row[j] + shift) - violation
        if b >= 0.0 or j == i:
            continue
        if not (can_increase(kind, betap[j], p, y[j], C)
                and can_decrease(kind, betaq[j], q, y[j], C)):
            continue
        curvature = max(own + diag[j] - 2.0 * q_row[j], TAU)
        if b * b / curvature > score:
            best, score = j, b * b / curvature
    return best


@njit(cache=True, nogil=True)
def pair_bounds(kind, C, yi, yj, bi, bj, lo, hi):
    """The box of v in the pair step b_i += v, b_j -= v: both rows stay in theirs."""
    for m in range(len(bi)):
        lo[m] = max(lower(kind, m, yi, C) - bi[m], bj[m] - upper(kind, m, yj, C))
        hi[m] = min(upper(kind, m, yi, C) - bi[m], bj[m] - lower(kind, m, yj, C))


@njit(cache=True, nogil=True)
def place(kind, C, j, y, beta, new, d):
    """Set example j's row to ``new`` (snapped onto a bound within rounding, the rounding of
    sum = 0 given to its least bounded entry) and its change into ``d``."""
    k, yj = beta.shape[0], y[j]
    rest, widest, room = 0.0, -1, -1.0
    for m in range(k):
        low, up = lower(kind, m, yj, C), upper(kind, m, yj, C)
        value = min(up, max(low, new[m]))
        if abs(value - up) <= 1e-12 * max(1.0, C):
            value = up
        elif abs(value - low) <= 1e-12 * max(1.0, C):
            value = low
        new[m] = value
        rest += value
        inside = min(value - low, up - value)
        if inside > room:
            widest, room = m, inside
    if room > 0.0:
        new[widest] -= rest
    for m in range(k):
        d[m] = new[m] - beta[m, j]
        beta[m, j] = new[m]


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
def update(kind, C, shift, q, d, q2, d2, changed, n_changed, i, i2, y, beta, G, trackers,
           active, n_active):
    """G += (Q row i) d + (Q row i2) d2 on the changed classes of every active example (a
    single step passes d2 = 0), and the trackers with it; returns :func:`select`'s answer for
    the new state.

    An entry that was its example's extreme (equal to it) and moves inwards (the largest G
    falls, the smallest rises) leaves the trackers an upper bound of the violation: the example
    is marked stale and rebuilt only when that bound could make it the working example
    (:func:`refresh`), so the answer is exact where it matters. Example i, whose bounds moved,
    is rebuilt (and i2). The loop runs a class at a time over the examples (streaming G's rows)
    and has no data-dependent branch: on Letter the tests "beyond the extreme" go either way at
    random, and branch-free selects measured 2x faster than ifs.
    """
    high, low, stale = trackers
    for t in range(n_changed):
        m = changed[t]
        step, step2, row, own = d[m], d2[m], G[m], beta[m]
        for a in range(n_active):
            j = active[a]
            old = row[j]
            g = old + step * (q[j] + shift) + step2 * (q2[j] + shift)
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
    stale[i2], high[i2], low[i2] = True, INF, -INF
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
def pair_step(kind, C, yi, yj, A2, bi, bj, gi, gj, v, work):
    """The pair sub-problem of rows ``bi`` and ``bj`` (gradients ``gi``, ``gj``): b_i += v,
    b_j -= v, sum v = 0, both rows in their boxes, curvature A2 = K_ii + K_jj - 2 K_ij
    (:func:`partner`'s direction generalised to every class), solved exactly into ``v``
    (:func:`solve_box`); returns its gain."""
    k = len(bi)
    lo, hi, c = work[0, :k], work[1, :k], work[2, :k]
    pair_bounds(kind, C, yi, yj, bi, bj, lo, hi)
    for m in range(k):
        c[m] = gi[m] - gj[m]
    solve_box(A2, c, lo, hi, v, work[3, :k], work[4])
    return gain(A2, c, v)


@njit(cache=True, nogil=True)
def run(kind, C, shift, tol, bound, cache, slot_of, stamp, diag, y, beta, G, trackers, active,
        counters, worst_seen, shrink_every):
    """Decomposition steps until the active examples meet the KKT conditions within ``tol``
    (CONVERGED), ``bound`` steps were taken in all (BOUND; -1: no bound), or a Q row the step
    needs is not in the cache (NEED_ROW; that row is then ``counters[4]``).

    A step takes the example i of largest violation and solves the sub-problem of its row
    exactly (:func:`solve_cs` / :func:`solve_ww`); from there it solves the pair sub-problem
    of i and the partner j of largest second-order gain (:func:`partner`,
    :func:`pair_step`), which moves their rows in opposite directions so that every class's
    sum of beta stays put, and takes both moves at once (the pair's only if it gains). For
    C&S, the pair step alone (from the state before i's own step) is taken instead when it
    gains more than both: measured at C 2^11, gamma 2^-10, glass took 79,000 steps instead
    of 1.1 million and vowel 4.6 instead of 6.1 million; for W&W it made vehicle's steps 3x
    more, so W&W does not. A row alone can hardly move along the directions that keep those
    sums, when the kernel is close to a constant (a small Gaussian gamma) or its classes'
    scores are tied; pairs move along them, as libsvm's SMO pairs do. Letter's 5,000 rows
    took 2x (C&S) to 3x (W&W) fewer steps. G is updated with the rows' kernel rows, read
    from ``cache`` (row ``slot_of[i]``; ``stamp`` records when a cached row was last read,
    for eviction); ``diag`` holds K_jj. ``counters[0]`` counts the steps across calls. A
    step that changes nothing (the violation is rounding) ends the solve as converged (a C&S
    pair step alone that changes nothing gives way to the row step first). Only the first
    ``counters[2]`` examples of ``active`` take part; every ``shrink_every`` steps (0:
    never) :func:`shrink` drops some, and ``counters[2]`` says how many are left.
    ``counters[3]`` (set on NEED_ROW) tells the next call that the working example
    (``counters[1]``) and its violation (``worst_seen[0]``) still hold: no scan.
    """
    k = beta.shape[0]
    n_active = counters[2]
    nu, d, d2, v = np.empty(k), np.empty(k), np.empty(k), np.empty(k)
    gi, gj, bj, v0 = np.empty(k), np.empty(k), np.empty(k), np.empty(k)
    work = np.empty((6, 2 * k))
    changed = np.empty(k, np.int64)
    steps = counters[0]
    if counters[3]:  # back from NEED_ROW: the state, hence the choice, is unchanged
        i, worst = counters[1], worst_seen[0]
    else:
        i, worst = select(kind, C, y, beta, G, trackers, active, n_active)
    status, no_alone, took_alone = CONVERGED, False, False
    while worst > tol:
        if bound >= 0 and steps >= bound:
            status = BOUND
            break
        slot = slot_of[i]
        if slot < 0:
            status, counters[4] = NEED_ROW, i
            break
        stamp[slot] = steps
        q, took_alone = cache[slot], False
        A = max(q[i] + shift, TAU)
        p, pq = extremes(kind, C, y[i], beta[:, i], G[:, i])
        if kind == CS:
            solve_cs(A, G[:, i], beta[:, i], y[i], C, nu, work[0, :k])
        else:
            solve_ww(A, G[:, i], beta[:, i], y[i], C, nu, work[0, :k])
        for m in range(k):
            d[m] = nu[m] - beta[m, i]
            gi[m] = G[m, i] + (q[i] + shift) * d[m]
        j, q2 = partner(kind, C, shift, i, p, pq, gi, d, q, diag, y, beta, G, active, n_active), q
        if j >= 0:
            for m in range(k):
                gj[m] = G[m, j] + (q[j] + shift) * d[m]
                bj[m] = beta[m, j]
            A2 = max(diag[i] + diag[j] - 2.0 * q[j], TAU)
            after = pair_step(kind, C, y[i], y[j], A2, nu, bj, gi, gj, v, work[1:])
            if kind == CS and not no_alone:  # or the pair alone, if it gains more (docstring)
                alone = pair_step(kind, C, y[i], y[j], A2, beta[:, i], bj, G[:, i], G[:, j], v0,
                                  work[1:])
                if alone > gain(A, G[:, i], d) + max(after, 0.0):
                    after, took_alone = alone, True
                    for m in range(k):
                        nu[m], v[m] = beta[m, i], v0[m]
            if after > 0.0:
                if slot_of[j] < 0:
                    status, counters[4] = NEED_ROW, j
                    break
                stamp[slot_of[j]] = steps
                q2 = cache[slot_of[j]]
                for m in range(k):
                    nu[m] += v[m]
                    bj[m] -= v[m]
                place(kind, C, j, y, beta, bj, d2)
            else:
                j = -1
        if j < 0:
            j = i
            d2[:] = 0.0
        place(kind, C, i, y, beta, nu, d)
        n_changed = 0
        for m in range(k):
            if d[m] != 0.0 or d2[m] != 0.0:
                changed[n_changed] = m
                n_changed += 1
        if n_changed == 0:
            if took_alone:  # the pair alone moved nothing (rounding): take i's own step
                no_alone = True
                continue
            break
        no_alone = False
        i, worst = update(kind, C, shift, q, d, q2, d2, changed, n_changed, i, j, y, beta, G,
                          trackers, active, n_active)
        steps += 1
        if shrink_every > 0 and steps % shrink_every == 0:
            n_active = shrink(kind, C, worst, y, beta, G, active, n_active)
    counters[0], counters[1], counters[2], counters[3] = steps, i, n_active, status == NEED_ROW
    worst_seen[0] = worst
    return status
