"""A Newton step on the free variables of the all-together dual (see :mod:`.loops`).

When a large C meets a kernel close to a constant (a small Gaussian gamma), the solver's active
set shrinks to a few dozen examples whose free variables it then moves for millions of steps:
the dual's curvature along most directions is of order gamma or gamma^2 there, and one or two
rows a step converge slowly on such a problem.  A step on all of them at once fixes that: an
active-set step, in which the variables strictly inside their boxes (free, :mod:`.box`), among
the active examples, move together and the others stay where they are.

The dual is Crammer & Singer's (2001; Hsu & Lin 2002, section II.D, eq. (17)) or Weston &
Watkins' (1999; Hsu & Lin 2002, section II.C, with the regularized bias of their section III,
Q = K + 1): min 1/2 sum_m beta_m' Q beta_m + e'beta over each row's sum_m beta_im = 0 and the
box.  Crammer & Singer (2001, section 6) and Hsu & Lin (section III) decompose it one row at a
time, as :mod:`.loops` does; this step is ours.  With the other variables fixed, it minimises
the dual's quadratic along the free ones, F_m being class m's free variables and g = G_F:

    min_D  g'D + 1/2 sum_m D_m' M_m D_m    s.t.  sum_m D_im = 0 for every row i,

M_m = Q_{F_m F_m} + eps I (eps = RIDGE x max Q_ii: rows whose kernel rows coincide).  Its KKT
system, with one multiplier lambda_i per row and P_m placing class m's variables at their rows
(P_m[i, v] = 1 when variable v of class m is row i's):

    [ M_1            P_1' ] [ D_1    ]   [ -g_1 ]
    [      ...       ...  ] [ ...    ] = [ ...  ]
    [          M_k   P_k' ] [ D_k    ]   [ -g_k ]
    [ P_1  ...  P_k   0   ] [ lambda ]   [   0  ]

is solved by eliminating D (:func:`_direction`): D_m = -M_m^-1 (g_m + P_m' lambda), and lambda
solves S lambda = -sum_m P_m M_m^-1 g_m with S = sum_m P_m M_m^-1 P_m' (positive definite: every
row has two free variables).  The M_m^-1 and lambda come from Cholesky's factors
(:func:`_solver`).  The step is then cut back so that every variable stays in its box (the first
one to reach its bound stops there).  The direction descends (g'D = -D'(M)D < 0) and the step is taken only when
the objective's exact change is negative (:func:`_objective_change`), so it never raises the
objective; the solver's own steps go on from it, and its stopping rule is unchanged.
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs

from .box import boxes

MAX_FREE = 600  # skip the step beyond this many free variables (vowel: 600 beat 300 and 1500)
RIDGE = 1e-10  # eps, relative to the largest Q_ii
MIN_STEP = 1e-12  # a shorter step than this (relative to the full one) is not taken


@dataclass
class Peak:
    """The most bytes the Newton steps' temporaries held at once (``nbytes``), over the steps
    that built them: their kernel blocks and the KKT system's matrices (the solver adds it to
    the training memory, :func:`.solver.solve_memory`)."""

    nbytes: int = 0

    def hold(self, nbytes):
        """Note that ``nbytes`` were held at once."""
        self.nbytes = max(self.nbytes, int(nbytes))


def newton_step(kind, C, shift, y, beta, G, active, rows, peak=None):
    """One step on the free variables of the ``active`` examples (see the module docstring),
    beta and G (both (k, l)) updated in place; ``rows`` is the solver's
    :class:`.solver.KernelRows` (kernel blocks are computed from X, so the step is the
    same whether the Gram matrix is cached or not).  Returns whether it moved.  ``peak``
    (a :class:`Peak`, when given) is raised to the bytes this step's temporaries held at once."""
    peak = Peak() if peak is None else peak
    lower, upper = boxes(kind, C, y, beta.shape[0], active)
    values = beta[:, active]
    free = (values > lower) & (values < upper)
    movable = free.sum(axis=0) >= 2  # a row needs two free variables to move at sum 0
    free &= movable[None, :]
    n_free = int(free.sum())
    if n_free == 0 or n_free > MAX_FREE:
        return False
    examples = np.flatnonzero(movable)
    held = lower.nbytes + upper.nbytes + values.nbytes + free.nbytes  # all along
    peak.hold(held + rows.block_bytes(len(examples), len(examples)))
    Q = rows.block(active[examples], active[examples])
    Q += shift
    held += Q.nbytes
    classes, positions = np.nonzero(free[:, examples])  # variable v: class, row in examples
    g = G[classes, active[examples][positions]]
    try:
        direction, curve, system_bytes = _direction(Q, g, classes, positions, len(examples))
    except np.linalg.LinAlgError:
        return False
    peak.hold(held + system_bytes)
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
    change = beta[:, columns] - before
    if not _objective_change(change, G[:, columns], Q) < 0.0:  # rounding beat the direction
        beta[:, columns] = before
        return False
    block = rows.block(columns, active)
    block += shift
    # while the block is built; then with it, the product and G's columns, (k, active) each
    peak.hold(held + max(rows.block_bytes(len(columns), len(active)),
                         block.nbytes + 2 * values.nbytes))
    G[:, active] += change @ block
    return True


def _objective_change(change, gradient, Q):
    """The dual objective's exact change g'd + 1/2 sum_m d_m' Q d_m for a move ``change`` of the
    rows whose gradient is ``gradient`` (both (k, rows)) and whose Q block is ``Q``.  A step
    is taken only when it is negative: where Q_FF is close to singular (a polynomial kernel of
    low degree, rows that nearly coincide), the direction is mostly rounding near the optimum,
    and its row sums' rounding, moved onto one variable a row (:func:`_balance`), could raise
    the objective."""
    return float(np.sum(gradient * change) + 0.5 * np.sum((change @ Q) * change))


def _solver(M):
    """x -> M^-1 x for a symmetric M (x a vector or a matrix): by Cholesky's factor (LAPACK
    potrf, potrs: M is positive definite, a kernel block plus a ridge, or :func:`_direction`'s
    S), or, where rounding or a kernel that is not positive semi-definite makes M indefinite, by
    LU (np.linalg.solve).  A singular M raises LinAlgError (the step is then not taken)."""
    factor, info = dpotrf(M, lower=1, clean=0)
    if info != 0:
        return lambda x: np.linalg.solve(M, x)
    return lambda x: dpotrs(factor, x, lower=1)[0]


def _direction(Q, g, classes, positions, n_rows):
    """The KKT system's solution D, D'(H)D (see the module docstring) and the bytes its
    matrices held at once: S and every class's M_m and M_m^-1, with the larger of the last
    solve's temporary (S's Cholesky factor) and a class's (identity, factor).  Class by class:
    H is block-diagonal, one block M_m over the rows where class m is free, so the systems are
    blocks of a few dozen instead of one system of every free variable and row."""
    ridge = RIDGE * max(1.0, float(np.max(np.diag(Q))))
    S, rhs, blocks = np.zeros((n_rows, n_rows)), np.zeros(n_rows), []
    for m in np.unique(classes):
        members = np.flatnonzero(classes == m)
        at = positions[members]
        M = Q[np.ix_(at, at)] + ridge * np.eye(len(at))
        inverse = _solver(M)(np.eye(len(at)))
        S[np.ix_(at, at)] += inverse
        rhs[at] -= inverse @ g[members]
        blocks.append((members, at, M, inverse))
    largest_class = max(inverse.nbytes for _, _, _, inverse in blocks)
    kept = S.nbytes + sum(M.nbytes + inverse.nbytes for _, _, M, inverse in blocks)
    multipliers = _solver(S)(rhs)
    direction, curve = np.empty(len(g)), 0.0
    for members, at, M, inverse in blocks:
        step = -inverse @ (g[members] + multipliers[at])
        direction[members] = step
        curve += float(step @ (M @ step))
    return direction, curve, kept + max(S.nbytes, 2 * largest_class)


def _balance(beta, columns, moved, low, high, classes, positions):
    """Give each moved row's rounding of its sum (0 exactly) to its free variable with the most
    room left inside its box."""
    room = np.minimum(moved - low, high - moved)
    order = np.lexsort((-room, positions))  # by row, the most room first
    first = order[np.r_[True, positions[order][1:] != positions[order][:-1]]]
    first = first[room[first] > 0.0]
    targets = columns[positions[first]]
    beta[classes[first], targets] -= beta[:, targets].sum(axis=0)
