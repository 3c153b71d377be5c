"""A Newton step on the free variables of the all-together dual (see :mod:`._joint_loops`).

When a large C meets a kernel close to a constant (a small Gaussian gamma), the solver's active
set shrinks to a few dozen examples whose free variables it then moves for millions of steps:
the dual's curvature along most directions is of order gamma or gamma^2 there, and one or two
rows a step converge slowly on such a problem.  A step on all of them at once fixes that: an
active-set step, in which the variables strictly inside their boxes (free), among the active
examples, move together and the others stay where they are.

The step minimises the dual's quadratic along those variables, keeping each row's sum at 0:

    min_D  g'D + 1/2 sum_m D_m' Q_FF D_m    s.t.  sum_m D_im = 0 for every row i,

solved from its KKT system class by class (:func:`_direction`; Q_FF + eps I for rows whose
kernel rows coincide), then cut back so that every variable stays in its box (the first one to
reach its bound stops there).  The direction descends (g'D = -D'(Q + eps I)D < 0), so the
step never raises the objective; the solver's own steps go on from it, and its stopping rule is
unchanged.
"""

import numpy as np

from .loops import CS

MAX_FREE = 600  # skip the step beyond this many free variables (vowel: 600 beat 300 and 1500)
RIDGE = 1e-10  # eps, relative to the largest Q_ii
MIN_STEP = 1e-12  # a shorter step than this (relative to the full one) is not taken


def boxes(kind, C, y, n_classes, examples):
    """(lower, upper) bounds of beta[:, examples], (k, len(examples))."""
    own = np.arange(n_classes)[:, None] == y[examples][None, :]
    if kind == CS:
        return np.full(own.shape, -np.inf), np.where(own, C, 0.0)
    return np.where(own, -np.inf, -C), np.where(own, np.inf, 0.0)


def newton_step(kind, C, shift, y, beta, G, active, rows):
    """One step on the free variables of the ``active`` examples (see the module docstring),
    beta and G (both (k, l)) updated in place; ``rows`` is the solver's
    :class:`._joint_solver.KernelRows` (kernel blocks are computed from X, so the step is the
    same whether the Gram matrix is cached or not).  Returns whether it moved."""
    lower, upper = boxes(kind, C, y, beta.shape[0], active)
    values = beta[:, active]
    free = (values > lower) & (values < upper)
    movable = free.sum(axis=0) >= 2  # a row needs two free variables to move at sum 0
    free &= movable[None, :]
    n_free = int(free.sum())
    if n_free == 0 or n_free > MAX_FREE:
        return False
    examples = np.flatnonzero(movable)
    Q = rows.block(active[examples], active[examples]) + shift
    classes, positions = np.nonzero(free[:, examples])  # variable v: class, row in examples
    g = G[classes, active[examples][positions]]
    try:
        direction, curve = _direction(Q, g, classes, positions, len(examples))
    except np.linalg.LinAlgError:
        return False
    slope = float(g @ direction)
    if not slope < 0.0:
        return False
    best = -slope / curve if curve > 0.0 else np.inf
    current = values[:, examples][classes, positions]
    low, high = lower[:, examples][classes, positions], upper[:, examples][classes, positions]
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = np.where(direction > 0, (high - current) / direction,
                         np.where(direction < 0, (low - current) / direction, np.inf))
    step = min(best, float(np.min(reach)))
    if not np.isfinite(step) or step <= MIN_STEP * max(best, 1.0):
        return False
    moved = np.clip(current + step * direction, low, high)
    moved[reach <= step] = np.where(direction > 0, high, low)[reach <= step]  # exactly at bound
    columns = active[examples]
    before = beta[:, columns].copy()
    beta[classes, columns[positions]] = moved
    _balance(beta, columns, moved, low, high, classes, positions)
    G[:, active] += (beta[:, columns] - before) @ (rows.block(columns, active) + shift)
    return True


def _direction(Q, g, classes, positions, n_rows):
    """The KKT system's solution D and D'(H)D, class by class: H is block-diagonal, one block
    M_m = Q (+ eps I) over the rows where class m is free, so D_m = -M_m^-1 (g_m + lambda at
    those rows), and the row multipliers lambda solve S lambda = -sum_m P_m M_m^-1 g_m with
    S = sum_m P_m M_m^-1 P_m' (P_m places class m's variables at their rows): blocks of a
    few dozen instead of one system of every free variable and row."""
    ridge = RIDGE * max(1.0, float(np.max(np.diag(Q))))
    S, rhs, blocks = np.zeros((n_rows, n_rows)), np.zeros(n_rows), []
    for m in np.unique(classes):
        members = np.flatnonzero(classes == m)
        at = positions[members]
        M = Q[np.ix_(at, at)] + ridge * np.eye(len(at))
        inverse = np.linalg.inv(M)
        S[np.ix_(at, at)] += inverse
        rhs[at] -= inverse @ g[members]
        blocks.append((members, at, M, inverse))
    multipliers = np.linalg.solve(S, rhs)
    direction, curve = np.empty(len(g)), 0.0
    for members, at, M, inverse in blocks:
        step = -inverse @ (g[members] + multipliers[at])
        direction[members] = step
        curve += float(step @ (M @ step))
    return direction, curve


def _balance(beta, columns, moved, low, high, classes, positions):
    """Give each moved row's rounding of its sum (0 exactly) to its free variable with the most
    room left inside its box."""
    room = np.minimum(moved - low, high - moved)
    order = np.lexsort((-room, positions))  # by row, the most room first
    first = order[np.r_[True, positions[order][1:] != positions[order][:-1]]]
    first = first[room[first] > 0.0]
    targets = columns[positions[first]]
    beta[classes[first], targets] -= beta[:, targets].sum(axis=0)
