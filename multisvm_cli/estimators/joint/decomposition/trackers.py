"""The per-example trackers of the all-together dual's KKT violation, and the gradient's update
that keeps them (numba; imported only when a joint machine trains; the dual, its gradient G and
the violation are :mod:`.loops`'s).

Example j's violation is max_{m in low_j} G_mj - min_{n in up_j} G_nj over the classes whose
beta_jm may decrease (low_j) and increase (up_j) (:mod:`.box`).  It is kept through two trackers,
``high[j]`` (the max) and ``low[j]`` (the min), updated with G at every step (:func:`update`),
so that choosing the working example, the one of largest violation (lowest index on ties), is
one pass over the examples (:func:`select`), not over their k classes.
"""

import numpy as np
from numba import njit

from .box import can_decrease, can_increase
from .state import CS, WW

INF = np.inf
DIRECT = 4  # update() runs over every example while at least 1 / DIRECT of them are active


@njit(cache=True, nogil=True)
def recompute(kind, C, j, y, beta, G, high, low):
    """Example j's trackers from scratch: the largest G over classes that may decrease
    (``high``), the smallest over classes that may increase (``low``)."""
    hi, lo = -INF, INF
    for m in range(beta.shape[0]):
        g, b, mine = G[m, j], beta[m, j], m == y[j]
        if can_decrease(kind, b, mine, C):
            hi = max(hi, g)
        if can_increase(kind, b, mine, C):
            lo = min(lo, g)
    high[j], low[j] = hi, lo


@njit(cache=True, nogil=True)
def init_trackers(problem, dual):
    """Every example's trackers from scratch."""
    for j in range(dual.beta.shape[1]):
        recompute(problem.kind, problem.C, j, problem.y, dual.beta, dual.G, dual.high, dual.low)
        dual.stale[j] = False


@njit(cache=True, nogil=True)
def select(problem, dual, n_active):
    """(the active example of largest violation, lowest index on ties; its violation).  A stale
    example's trackers (which only bound its violation from above) are rebuilt only when that
    bound exceeds the largest exact violation seen so far: it could not be chosen otherwise."""
    kind, C, y, beta, G = problem.kind, problem.C, problem.y, dual.beta, dual.G
    high, low, stale, active = dual.high, dual.low, dual.stale, dual.active
    best, worst = -1, -INF
    for a in range(n_active):
        j = active[a]
        if stale[j] and high[j] - low[j] > worst:
            recompute(kind, C, j, y, beta, G, high, low)
            stale[j] = False
        if high[j] - low[j] > worst:
            best, worst = j, high[j] - low[j]
    return best, worst


@njit(cache=True, nogil=True)
def over_everyone(n_active, n):
    """Whether a pass that G's active columns need runs over all ``n`` examples instead (at
    least 1 / DIRECT of them active): consecutive entries compile to vector instructions, and
    the set-aside examples' G is stale anyway, rebuilt when they come back
    (:func:`.solver.reconstruct`)."""
    return n_active * DIRECT >= n


@njit(cache=True, nogil=True)
def update(problem, dual, n_active, first, second, changed):
    """G += (Q row i) d + (Q row i2) d2 on the ``changed`` classes of every active example
    (``first`` = (i, q, d): the example, its kernel row q = K(x_i, X) and its move; ``second`` =
    (i2, q2, d2) the same of the pair step's partner; a single step passes d2 = 0), and the
    trackers with it; returns :func:`select`'s answer for the new state.

    An entry that was its example's extreme (equal to it) and moves inwards (the largest G
    falls, the smallest rises) leaves the trackers an upper bound of the violation: the example
    is marked stale and rebuilt only when that bound could make it the working example
    (:func:`select`), so the answer is exact where it matters. Example i, whose bounds moved,
    is rebuilt (and i2).

    The loop runs a class at a time over the examples (streaming G's rows), with no
    data-dependent branch: on Letter the tests "beyond the extreme" go either way at random,
    and branch-free selects measured 2x faster than ifs.  While at least 1 / DIRECT of the
    examples are active (:func:`over_everyone`), it runs over all of them (:func:`update_class`
    unlisted), the set-aside ones too: the loop then reads consecutive entries and compiles to
    vector instructions, 6x faster a class than through the active list.  The set-aside examples' G
    and trackers are stale anyway: rebuilt when they come back (:func:`.solver.reconstruct`,
    :func:`init_trackers`), and a solve that ends with some set aside hands on no G
    (:class:`.solver.PathPoint`).  The active examples' numbers are the very same."""
    (i, q, d), (i2, q2, d2) = first, second
    n = dual.beta.shape[1]
    everyone = over_everyone(n_active, n)
    for m in changed:  # two calls, each with a literal ``listed``: one call with a variable
        # flag kept the indexed loop's speed (Letter's 10,500-row C&S solve: 18.5 s, not 11.2)
        if everyone:
            update_class(problem, dual, (n, m), (q, d[m], q2, d2[m]), False)
        else:
            update_class(problem, dual, (n_active, m), (q, d[m], q2, d2[m]), True)
    high, low, stale = dual.high, dual.low, dual.stale
    stale[i], high[i], low[i] = True, INF, -INF
    stale[i2], high[i2], low[i2] = True, INF, -INF
    return select(problem, dual, n_active)


@njit(cache=True, nogil=True, inline="always")
def update_class(problem, dual, pass_, moves, listed):
    """:func:`update`'s pass over class m (``pass_`` = (count, m)): the first ``count`` examples
    of the active list (``listed``) or examples 0 .. count - 1; ``moves`` = (q, step, q2,
    step2), the two examples' kernel rows and their moves in class m."""
    (count, m), (q, step, q2, step2) = pass_, moves
    kind, C, shift, y = problem.kind, problem.C, problem.shift, problem.y
    high, low, stale, active = dual.high, dual.low, dual.stale, dual.active
    row, own = dual.G[m], dual.beta[m]
    for a in range(count):
        j = active[a] if listed else a
        old = row[j]
        g = old + step * (q[j] + shift) + step2 * (q2[j] + shift)
        row[j] = g
        h, lo, b, mine = high[j], low[j], own[j], m == y[j]
        if kind == CS:  # a literal kind: each branch compiles to its formulation's tests
            down, up = can_decrease(CS, b, mine, C), can_increase(CS, b, mine, C)
        else:
            down, up = can_decrease(WW, b, mine, C), can_increase(WW, b, mine, C)
        stale[j] = stale[j] | ((old == h) & (g < old)) | ((old == lo) & (g > old))
        high[j] = max(h, g if down else -INF)
        low[j] = min(lo, g if up else INF)
