"""The box of the all-together dual's variables, as the compiled loops read it (numba; imported
only when a joint machine trains).

Each example i's row beta_i. sums to 0 and each entry lies in [L_im, U_im], which depend on the
formulation and on whether m is the example's class y_i (``mine``).  Each formulation declares
its box once, in its own module (plain Python, compiled here): Crammer & Singer's
(:func:`..crammer_singer.lower`, :func:`..crammer_singer.upper`: beta_im <= C delta(m, y_i), no
lower bound) and Weston & Watkins' (:mod:`..weston_watkins`: -C <= beta_im <= 0 for m != y_i,
beta_iy free).  :func:`lower` and :func:`upper` pick the formulation's by ``kind`` (CS or WW).

Everything else (the loops' trackers, the row and pair sub-problems, shrinking, the Newton
step) reads the box from :func:`lower` and :func:`upper`, and places a moved value in it with
:func:`snapped`.
"""

import numpy as np
from numba import njit

from .. import crammer_singer, weston_watkins
from .state import CS

INF = np.inf
SNAP = 1e-12  # a value within SNAP max(1, C) of its bound is rounding away from it
_BOUND = {"cache": True, "nogil": True, "inline": "always"}
_cs_lower, _cs_upper = njit(**_BOUND)(crammer_singer.lower), njit(**_BOUND)(crammer_singer.upper)
_ww_lower, _ww_upper = njit(**_BOUND)(weston_watkins.lower), njit(**_BOUND)(weston_watkins.upper)


@njit(**_BOUND)
def lower(kind, mine, C):
    """L_im, the lower bound of beta_im (``mine``: m is the example's class), of formulation
    ``kind``."""
    return _cs_lower(mine, C) if kind == CS else _ww_lower(mine, C)


@njit(**_BOUND)
def upper(kind, mine, C):
    """U_im, the upper bound of beta_im, of formulation ``kind``."""
    return _cs_upper(mine, C) if kind == CS else _ww_upper(mine, C)


@njit(cache=True, nogil=True, inline="always")
def can_decrease(kind, value, mine, C):
    """Whether beta_im = ``value`` is above its lower bound (always, where it has none: with a
    literal ``kind``, numba then compiles no test at all)."""
    bound = lower(kind, mine, C)
    return (bound == -INF) | (value > bound)


@njit(cache=True, nogil=True, inline="always")
def can_increase(kind, value, mine, C):
    """Whether beta_im = ``value`` is below its upper bound (always, where it has none)."""
    bound = upper(kind, mine, C)
    return (bound == INF) | (value < bound)


@njit(cache=True, nogil=True, inline="always")
def snapped(kind, mine, C, value):
    """``value`` clipped into beta_im's box and, within SNAP max(1, C) of a bound, put on it (a
    step's rounding would otherwise leave it a hair inside, free to move by rounding)."""
    low, up = lower(kind, mine, C), upper(kind, mine, C)
    value = min(up, max(low, value))
    if abs(value - up) <= SNAP * max(1.0, C):
        return up
    if abs(value - low) <= SNAP * max(1.0, C):
        return low
    return value


@njit(cache=True, nogil=True, inline="always")
def settle(kind, C, yj, row, moving):
    """One example's ``row`` (k entries, class yj's its own), just moved, placed in its box in
    place, as every step and the Newton step's search place theirs: each entry that ``moving``
    allows (None: every entry) :func:`snapped`, and the rounding of the row's sum (0 exactly)
    given to the moving entry with the most room inside its box (none when none has room)."""
    rest, widest, room = 0.0, -1, -1.0
    for m in range(len(row)):
        mine = m == yj
        if moving is None or moving[m]:
            row[m] = snapped(kind, mine, C, row[m])
            inside = min(row[m] - lower(kind, mine, C), upper(kind, mine, C) - row[m])
            if inside > room:
                widest, room = m, inside
        rest += row[m]
    if room > 0.0:
        row[widest] -= rest


@njit(cache=True, nogil=True)
def free_variables(kind, C, y, beta, G, active):
    """A Newton step's variables (:mod:`.newton`): the entries beta_mj strictly inside their
    boxes, of the ``active`` examples j that have at least two of them (a row moves at sum 0).
    Returns (examples: those rows' positions in ``active``, ascending; then per variable, class
    by class and in each class by row (np.nonzero's order on a (k, rows) mask): its class, its
    row's position in ``examples``, G_mj, beta_mj, L_mj and U_mj)."""
    k = beta.shape[0]
    counts = np.zeros(len(active), np.int64)
    for a in range(len(active)):
        j = active[a]
        for m in range(k):
            mine = m == y[j]
            counts[a] += lower(kind, mine, C) < beta[m, j] < upper(kind, mine, C)
    examples = np.flatnonzero(counts >= 2)
    total = 0
    for a in examples:
        total += counts[a]
    classes, positions = np.empty(total, np.int64), np.empty(total, np.int64)
    g, current, low, high = np.empty(total), np.empty(total), np.empty(total), np.empty(total)
    v = 0
    for m in range(k):
        for p in range(len(examples)):
            j = active[examples[p]]
            mine = m == y[j]
            below, above = lower(kind, mine, C), upper(kind, mine, C)
            if below < beta[m, j] < above:
                classes[v], positions[v], g[v] = m, p, G[m, j]
                current[v], low[v], high[v] = beta[m, j], below, above
                v += 1
    return examples, classes, positions, g, current, low, high
