"""Compiled loops of the all-together solver (numba; imported only when a joint machine trains).

The dual both formulations share (see :mod:`..machine`): variables beta, stored (k, l) (one
column per training example, so that a class's entries are contiguous for the updates), each
example's k entries summing to 0, each entry in a box [L_im, U_im] that depends on the
formulation (``kind``) and on whether m is the example's class y_i (:mod:`.box`, their one
home): Crammer & Singer's beta_im <= C delta(m, y_i); Weston & Watkins' -C <= beta_im <= 0 for
m != y_i.

Objective: 1/2 sum_m beta_.m' Q beta_.m + sum_im e_im beta_im, Q = K + ``shift`` (1 for W&W's
regularized bias, 0 for C&S), e_im = ``margin`` (1 for C&S, 2 for W&W) for m != y_i, 0 for
m = y_i.  G = Q beta + e is its gradient, stored (k, l) as beta.

KKT conditions per example i (the sub-problem of its row alone is at its optimum): no pair of
classes (m, n) where beta_im may decrease (above L), beta_in may increase (below U) and
G_im > G_in.  Its violation is max_{m in low_i} G_im - min_{n in up_i} G_in (>= 0; both sets
always share a class, so it is 0 at the optimum), kept for every example through trackers
(the max and the min) updated with G (:mod:`.trackers`); the working example is the one
of largest violation (lowest index on ties), and the solve stops when it is <= tol.

Each step solves the working example's row exactly (:mod:`.steps`) and then, from there, a
pair step with a second example (:func:`partner`) that moves the two rows in opposite
directions, so that every class's sum of beta stays put (:func:`pair_step`), and takes both
moves at once (the pair's only if it gains).  The feasible set is a product of the examples'
row sets, so the KKT conditions above, row by row, are the whole problem's: any step that
keeps every row in its set may be taken, and the stopping rule is unchanged.

W&W's steps do two things more (Weston & Watkins' rows move about 10 of Letter's 26 classes
a step, most of them by little, and the step's cost is one pass over the active examples for
each class moved): the working example's row move is thinned to the classes it moves by more
than THIN x its largest move (:func:`thin`), and the partner, after the pair move, takes its
own row step over the classes either row moved (:func:`partner_row`), which adds no class to
the step's update.  Measured on Letter's 5,000 rows (gamma 4, C 16): 20,918 steps instead of
21,854 and 36% fewer class passes (6.2 instead of 9.7 x 10^8 active examples x classes); the
partner's step alone cut the steps to 19,123 but not the passes (8.3 x 10^8), thinning alone
the passes to 7.5 x 10^8.

Why pairs: a row alone can hardly move along the directions that keep the class sums, when the
kernel is close to a constant (a small Gaussian gamma) or its classes' scores are tied; pairs
move along them, as libsvm's SMO pairs do.  Letter's 5,000 rows took 2x (C&S) to 3x (W&W)
fewer steps.  For C&S, the pair step alone (from the state before i's own step) is taken
instead when it gains more than both: measured at C 2^11, gamma 2^-10, glass took 79,000 steps
instead of 1.1 million and vowel 4.6 instead of 6.1 million; for W&W it made vehicle's steps
3x more, so W&W does not.

The loops read and write the solver's named state (:mod:`.state`): the :class:`.state.Problem`,
the kernel rows' :class:`.state.Cache`, the :class:`.state.Dual` and a
:data:`.state.PROGRESS` record.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from .box import SNAP, can_decrease, can_increase, lower, settle, upper
from .state import BOUND, CONVERGED, CS, NEED_ROW, STALLED, WW
from .steps import gain, rounding_only, solve_box, solve_cs, solve_row_over, solve_ww
from .trackers import select, update

TAU = 1e-12  # the least curvature Q_ii a sub-problem is solved with (libsvm's TAU)
THIN = 0.35  # W&W's row step keeps the classes whose move is above THIN x its largest
INF = np.inf


@njit(cache=True, nogil=True)
def extremes(kind, C, yi, b, g):
    """The most violating pair of classes of a row ``b`` of gradient ``g`` (class yi): (p, the
    class of largest g that may decrease; q, the class of smallest g that may increase)."""
    p, q, hi, lo = -1, -1, -INF, INF
    for m in range(len(b)):
        if can_decrease(kind, b[m], m == yi, C) and g[m] > hi:
            p, hi = m, g[m]
        if can_increase(kind, b[m], m == yi, C) and g[m] < lo:
            q, lo = m, g[m]
    return p, q


@njit(cache=True, nogil=True)
def partner(problem, dual, n_active, i, classes, gi, step, q_row):
    """The partner j of a pair step with example i (-1: none); ``classes`` = (p, q) are i's
    most violating classes (:func:`extremes`) before its own step ``step``, ``gi`` its gradient
    after it (G_j then also moved, by (Q_ij) step); ``q_row`` is K(x_i, X).

    Along the direction that moves i's classes p down and q up and j's the other way, which
    keeps every class's sum of beta, the unconstrained step gains b^2 / (2 a),
    b = (G_jp - G_jq) - (G_ip - G_iq) < 0, a = 2 (K_ii + K_jj - 2 K_ij): j is the example of
    largest b^2 / a among those whose p may increase and q decrease (lowest index on ties):
    second-order information, as in libsvm's working-set selection (Fan, Chen & Lin, JMLR
    2005).  (p and q are taken before i's step: after it, i's classes that may move are all
    at one gradient value, and which is largest is rounding.)"""
    p, q = classes
    if p < 0 or q < 0 or p == q:
        return -1
    kind, C, shift, y, diag = problem.kind, problem.C, problem.shift, problem.y, problem.diag
    rowp, rowq, betap, betaq, active = dual.G[p], dual.G[q], dual.beta[p], dual.beta[q], dual.active
    violation, own, moved = gi[p] - gi[q], diag[i], step[p] - step[q]
    best, score = -1, 0.0
    for a in range(n_active):
        j = active[a]
        b = rowp[j] - rowq[j] + moved * (q_row[j] + shift) - violation
        if b >= 0.0 or j == i:
            continue
        if not (can_increase(kind, betap[j], p == y[j], C)
                and can_decrease(kind, betaq[j], q == y[j], C)):
            continue
        curvature = max(own + diag[j] - 2.0 * q_row[j], TAU)
        if b * b / curvature > score:
            best, score = j, b * b / curvature
    return best


@njit(cache=True, nogil=True)
def pair_bounds(kind, C, yi, yj, bi, bj, lo, hi):
    """The box of v in the pair step b_i += v, b_j -= v: both rows stay in theirs."""
    for m in range(len(bi)):
        mine_i, mine_j = m == yi, m == yj
        lo[m] = max(lower(kind, mine_i, C) - bi[m], bj[m] - upper(kind, mine_j, C))
        hi[m] = min(upper(kind, mine_i, C) - bi[m], bj[m] - lower(kind, mine_j, C))


@njit(cache=True, nogil=True)
def place(problem, beta, j, new, d):
    """Set example j's row to ``new``, placed in its box (:func:`.box.settle`), and its change
    into ``d``."""
    settle(problem.kind, problem.C, problem.y[j], new, None)
    for m in range(beta.shape[0]):
        d[m] = new[m] - beta[m, j]
        beta[m, j] = new[m]


@njit(cache=True, nogil=True)
def seed_rows(problem, beta, ratio):
    """Every example's row scaled by ``ratio`` and placed into the box at ``problem.C``
    (:func:`place`): the warm start of a C path (:func:`.solver.seed`)."""
    k = beta.shape[0]
    new, d = np.empty(k), np.empty(k)
    for j in range(beta.shape[1]):
        for m in range(k):
            new[m] = beta[m, j] * ratio
        place(problem, beta, j, new, d)


@njit(cache=True, nogil=True)
def slack(kind, C, j, y, beta, G):
    """How far example j is from violating: the least G_n - G_m over its feasible pair
    directions (n may increase, m may decrease, n != m; :mod:`.box`).  It is <= 0 when two of
    its entries are free (each pair of them is feasible both ways), so only a row with at most
    one free entry can exceed the largest violation and be set aside: a row at its bounds, or
    with one free entry, as C&S's bounded support vectors (beta_iy = C, one wrong class's entry
    below 0, the rest 0) and W&W's (every wrong class at 0 or -C, the own class free).

    O(k): the two largest G among the entries that may decrease, so that each n that may
    increase is paired with the largest other one."""
    yj = y[j]
    first, second, top = -INF, -INF, -1  # the two largest G that may decrease; top: the first's class
    for m in range(beta.shape[0]):
        if can_decrease(kind, beta[m, j], m == yj, C) and G[m, j] > second:
            if G[m, j] > first:
                first, second, top = G[m, j], first, m
            else:
                second = G[m, j]
    least = INF
    for n in range(beta.shape[0]):
        if can_increase(kind, beta[n, j], n == yj, C):
            least = min(least, G[n, j] - (second if n == top else first))
    return least


@njit(cache=True, nogil=True)
def shrink(problem, dual, worst, n_active):
    """Drop from ``active`` (in place, order kept) the examples whose :func:`slack` exceeds
    ``worst``, the largest violation now: they are unlikely to move again (libsvm's shrinking
    heuristic, per example).  Returns the new count."""
    kind, C, y, beta, G, active = problem.kind, problem.C, problem.y, dual.beta, dual.G, dual.active
    kept = 0
    for a in range(n_active):
        j = active[a]
        if slack(kind, C, j, y, beta, G) <= worst:
            active[kept] = j
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def pair_step(problem, owners, A2, rows, gradients, v, work):
    """The pair sub-problem of ``rows`` = (bi, bj) (``gradients`` = (gi, gj); ``owners`` =
    (yi, yj), their classes): b_i += v, b_j -= v, sum v = 0, both rows in their boxes,
    curvature A2 = K_ii + K_jj - 2 K_ij (:func:`partner`'s direction generalised to every
    class), solved exactly into ``v`` (:func:`solve_box`); returns its gain."""
    kind, C = problem.kind, problem.C
    (yi, yj), (bi, bj), (gi, gj) = owners, rows, gradients
    k = len(bi)
    lo, hi, c = work[0, :k], work[1, :k], work[2, :k]
    pair_bounds(kind, C, yi, yj, bi, bj, lo, hi)
    for m in range(k):
        c[m] = gi[m] - gj[m]
    solve_box(A2, c, lo, hi, v, work[3, :k], work[4])
    return gain(A2, c, v)


Scratch = namedtuple("Scratch", "nu d d2 v gi gj bj v0 work changed moving")
Scratch.__doc__ = """A step's working rows, k entries each: ``nu`` (i's new row), ``d`` and ``d2``
(the moves of i and its partner), ``v`` and ``v0`` (pair moves; W&W: v0 also a row's move),
``gi``, ``gj`` (gradients after i's step), ``bj`` (the partner's row), ``work`` (6, 2k),
``changed`` (class indices) and ``moving`` (W&W: the classes a sub-problem may move)."""


@njit(cache=True, nogil=True)
def scratch(k):
    """Empty :class:`Scratch` rows for k classes."""
    return Scratch(np.empty(k), np.empty(k), np.empty(k), np.empty(k), np.empty(k), np.empty(k),
                   np.empty(k), np.empty(k), np.empty((6, 2 * k)), np.empty(k, np.int64),
                   np.empty(k, np.bool_))


@njit(cache=True, nogil=True)
def row_step(problem, dual, i, q, classes, s):
    """Example i's own sub-problem (:func:`solve_cs` / :func:`solve_ww`; W&W's then thinned,
    :func:`thin`) from its kernel row ``q``: its new row into ``s.nu``, the move into ``s.d``,
    its gradient after it into ``s.gi``; returns the curvature A = Q_ii.  ``classes``: i's most
    violating pair (:func:`extremes`)."""
    kind, C, shift, yi, beta, G = problem.kind, problem.C, problem.shift, problem.y[i], dual.beta, dual.G
    A = max(q[i] + shift, TAU)
    if kind == CS:
        solve_cs(A, G[:, i], beta[:, i], yi, C, s.nu, s.work[0, :len(s.nu)])
    else:
        solve_ww(A, G[:, i], beta[:, i], yi, C, s.nu, s.work[0, :len(s.nu)])
    for m in range(len(s.nu)):
        s.d[m] = s.nu[m] - beta[m, i]
    if kind == WW:
        thin(problem, dual, i, A, classes, s)
    for m in range(len(s.nu)):
        s.gi[m] = G[m, i] + (q[i] + shift) * s.d[m]
    return A


@njit(cache=True, nogil=True)
def thin(problem, dual, i, A, classes, s):
    """W&W: i's exact row move ``s.d`` re-solved over the classes that it moves by more than
    THIN x its largest move, and i's most violating pair ``classes`` (:func:`.steps.
    solve_row_over`); the rest stay.  ``s.nu`` and ``s.d`` are updated; nothing changes when it
    already moves no other class, or moves by rounding only (below :func:`place`'s snap
    distance SNAP max(1, C): the exact step is kept, so that a solve whose tol is below
    rounding ends as stalled rather than moving by rounding forever).

    Why: the step's cost is the gradient's update, one pass over the active examples for each
    class that moved, and on Letter a W&W row moves about 10 of its 26 classes, most of them
    by little.  The thinned step still descends (the pair's direction alone does, by the
    violation), and the stopping rule is unchanged (module docstring's measurement)."""
    beta, k = dual.beta, len(s.nu)
    largest = 0.0
    for m in range(k):
        largest = max(largest, abs(s.d[m]))
    dropped = False
    if largest <= SNAP * max(1.0, problem.C):  # a move of rounding's size: kept exact (a stall)
        return
    for m in range(k):
        s.moving[m] = abs(s.d[m]) > THIN * largest or m == classes[0] or m == classes[1]
        dropped |= s.d[m] != 0.0 and not s.moving[m]
    if not dropped:
        return
    solve_row_over((WW, problem.C), problem.y[i], A, dual.G[:, i], beta[:, i], s.moving, s.d,
                   s.work[1:])
    for m in range(k):
        s.nu[m] = beta[m, i] + s.d[m]


@njit(cache=True, nogil=True)
def pair_move(problem, dual, n_active, working, classes, alone_ok, s):
    """The pair step after i's own (:func:`partner`, :func:`pair_step`): (partner j or -1, the
    pair's gain, whether the C&S pair alone from before i's step was taken instead, in which
    case ``s.nu`` is i's old row).  ``working`` = (i, q, A): the example, its kernel row and its
    curvature; ``classes``: i's most violating pair before its step."""
    i, q, A = working
    beta, G, shift, y = dual.beta, dual.G, problem.shift, problem.y
    j = partner(problem, dual, n_active, i, classes, s.gi, s.d, q)
    if j < 0:
        return -1, 0.0, False
    for m in range(len(s.nu)):
        s.gj[m] = G[m, j] + (q[j] + shift) * s.d[m]
        s.bj[m] = beta[m, j]
    A2 = max(problem.diag[i] + problem.diag[j] - 2.0 * q[j], TAU)
    owners, work = (y[i], y[j]), s.work[1:]
    after = pair_step(problem, owners, A2, (s.nu, s.bj), (s.gi, s.gj), s.v, work)
    if problem.kind == CS and alone_ok:  # or the pair alone, if it gains more (module docstring)
        alone = pair_step(problem, owners, A2, (beta[:, i], s.bj), (G[:, i], G[:, j]), s.v0, work)
        if alone > gain(A, G[:, i], s.d) + max(after, 0.0):
            for m in range(len(s.nu)):
                s.nu[m], s.v[m] = beta[m, i], s.v0[m]
            return j, alone, True
    return j, after, False


@njit(cache=True, nogil=True)
def take_pair(problem, dual, i, j, q, s):
    """The pair move ``s.v``: added to i's new row ``s.nu``, taken from partner j's row; W&W's
    partner then also takes its own step (:func:`partner_row`); j's row is placed (its change
    into ``s.d2``).  ``q``: i's kernel row."""
    for m in range(len(s.v)):
        s.nu[m] += s.v[m]
        s.bj[m] -= s.v[m]
    if problem.kind == WW:
        partner_row(problem, dual, i, j, q, s)
    place(problem, dual.beta, j, s.bj, s.d2)


@njit(cache=True, nogil=True)
def partner_row(problem, dual, i, j, q, s):
    """W&W: partner j's own sub-problem after the pair move (its new row ``s.bj``, i's
    ``s.nu``, both not yet placed), over the classes that either row moved
    (:func:`.steps.solve_row_over`), so that the step's gradient update covers no more of them;
    ``s.bj`` is updated.  It descends: the sub-problem is solved exactly from j's row after the
    pair move, which it may keep (module docstring's measurement)."""
    shift, beta, G, k = problem.shift, dual.beta, dual.G, len(s.nu)
    Ajj = problem.diag[j] + shift
    for m in range(k):
        di, dj = s.nu[m] - beta[m, i], s.bj[m] - beta[m, j]
        s.moving[m] = di != 0.0 or dj != 0.0
        s.gj[m] = G[m, j] + (q[j] + shift) * di + Ajj * dj
    solve_row_over((WW, problem.C), problem.y[j], max(Ajj, TAU), s.gj, s.bj, s.moving, s.v0,
                   s.work[1:])
    for m in range(k):
        s.bj[m] += s.v0[m]


@njit(cache=True, nogil=True)
def changed_classes(d, d2, changed):
    """The classes either move changes, into ``changed``; returns their count."""
    n = 0
    for m in range(len(d)):
        if d[m] != 0.0 or d2[m] != 0.0:
            changed[n] = m
            n += 1
    return n


@njit(cache=True, nogil=True)
def halt(bound, steps, cache, i, state):
    """Whether the step ``steps`` on example i can be taken now: CONVERGED (it can; i's cached
    kernel row is stamped with the step, for eviction), BOUND (``steps`` has reached ``bound``;
    -1: no bound) or NEED_ROW (i's kernel row is not in ``cache``: ``state.need_row``, a
    :data:`.state.PROGRESS` record, names it)."""
    if bound >= 0 and steps >= bound:
        return BOUND
    if cache.slot_of[i] < 0:
        state.need_row = i
        return NEED_ROW
    cache.stamp[cache.slot_of[i]] = steps
    return CONVERGED


@njit(cache=True, nogil=True)
def run(problem, cache, dual, progress, bound):
    """Decomposition steps (module docstring) until the active examples meet the KKT conditions
    within ``problem.tol`` (CONVERGED), ``bound`` steps were taken in all (BOUND; -1: no bound),
    a kernel row a step needs is not in ``cache`` (NEED_ROW; ``progress.need_row`` names it), or
    a step changes nothing or rounding only (:func:`rounding_only`) though the violation is
    above tol (STALLED; a C&S pair step alone that changes nothing gives way to the row step).

    Reads and updates ``progress[0]`` (:data:`.state.PROGRESS`): the steps across calls, the
    working example and its violation (kept on NEED_ROW with ``resume`` set, so the next call
    does not scan), and the active count, which a :func:`shrink` pass lowers every
    ``problem.shrink_every`` steps.  A step reads its rows' kernel rows and stamps their slots
    with the step (for eviction)."""
    state, beta, G, rows, slot_of = progress[0], dual.beta, dual.G, cache.rows, cache.slot_of
    s, steps, n_active = scratch(beta.shape[0]), state.steps, state.n_active
    if state.resume:  # back from NEED_ROW: the state, hence the choice, is unchanged
        i, worst = state.working, state.worst
    else:
        i, worst = select(problem, dual, n_active)
    status, alone_ok = CONVERGED, True
    while worst > problem.tol:
        status = halt(bound, steps, cache, i, state)
        if status != CONVERGED:
            break
        q = rows[slot_of[i]]
        classes = extremes(problem.kind, problem.C, problem.y[i], beta[:, i], G[:, i])
        A = row_step(problem, dual, i, q, classes, s)
        j, after, took_alone = pair_move(problem, dual, n_active, (i, q, A), classes, alone_ok, s)
        q2 = q
        if j >= 0 and after > 0.0:
            if slot_of[j] < 0:
                status, state.need_row = NEED_ROW, j
                break
            cache.stamp[slot_of[j]] = steps
            q2 = rows[slot_of[j]]
            take_pair(problem, dual, i, j, q, s)
        else:
            j = i
            s.d2[:] = 0.0
        place(problem, beta, i, s.nu, s.d)
        n_changed = changed_classes(s.d, s.d2, s.changed)
        if n_changed == 0:
            if took_alone:  # the pair alone moved nothing (rounding): take i's own step
                alone_ok = False
                continue
            status = STALLED
            break
        alone_ok, rounding = True, rounding_only(s.d, beta[:, i], s.d2, beta[:, j])
        i, worst = update(problem, dual, n_active, (i, q, s.d), (j, q2, s.d2), s.changed[:n_changed])
        steps += 1
        if rounding and took_alone:  # the pair alone moved by rounding only: i's own step next
            alone_ok = False
        elif rounding:  # two such steps can undo each other without end
            status = STALLED
            break
        if problem.shrink_every > 0 and steps % problem.shrink_every == 0:
            n_active = shrink(problem, dual, worst, n_active)
    state.steps, state.working, state.n_active, state.resume = steps, i, n_active, status == NEED_ROW
    state.worst = worst
    return status
