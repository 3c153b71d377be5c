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

M_m = Q_{F_m F_m} + eps I, eps = RIDGE x max Q_ii (see "Damping" below).  Its KKT
system, with one multiplier lambda_i per row and P_m placing class m's variables at their rows
(P_m[i, v] = 1 when variable v of class m is row i's):

    [ M_1            P_1' ] [ D_1    ]   [ -g_1 ]
    [      ...       ...  ] [ ...    ] = [ ...  ]
    [          M_k   P_k' ] [ D_k    ]   [ -g_k ]
    [ P_1  ...  P_k   0   ] [ lambda ]   [   0  ]

is solved by eliminating D (:func:`_direction`): D_m = -M_m^-1 (g_m + P_m' lambda), and lambda
solves S lambda = -sum_m P_m M_m^-1 g_m with S = sum_m P_m M_m^-1 P_m' (positive definite: every
row has two free variables).  The M_m^-1 and lambda come from Cholesky's factors
(:func:`_inverse`, :func:`_solver`; the gathers and sums around them compiled, :mod:`.schur`).
The direction descends (g'D = -D'(M)D < 0).

Projected search (:func:`_projected_search`, :mod:`.search`): the point beta + t D is projected
row by row onto the feasible set, so that every variable that t D carries past its bound stops
on it and the rest of its row shifts to keep the row's sum (Bertsekas 1982; the projected
search of Moré & Toraldo's GPCG, 1991, and of Lin & Moré's TRON, 1999), for t = 1, 1/2, 1/4,
..., and the first t whose exact change of the objective (:func:`_objective_change`) passes
Armijo's rule is taken; none passes: no step.  So it never raises the objective; the solver's
own steps go on from it, and its stopping rule is unchanged.  (Before, the step was cut at the
first variable to reach its bound: one variable a step left the face.)

Damping: with a kernel close to a constant, Q_FF is close to singular and the exact Newton step
on the face is long along its near-null directions: it barely lowers the objective but moves the
gradient of the variables off the face, and the decomposition steps then spend thousands of
steps putting them back (after a Newton step the largest violation rose from 0.02 to 0.5 on
vowel).  eps I is a Levenberg-Marquardt damping that shortens those directions.  Measured
2026-11-26 (one BLAS thread, 2-core machine; docs/results/speed.md, "The Newton step's projected
search and damping", has the table): eps = 1e-4 max Q_ii took 271,000 steps on the four warm C
paths at gamma 2^-4 of ``benchmarks/all_together.py --path`` where 1e-10 took 299,000 (the
step cut at the first bound: 393,000), 1e-6 298,000 and 1e-3 394,000; and one C&S solve on
Letter's first 5,000 rows at gamma 2^-7, C 2^12 315,000 steps where 1e-10 took 805,000, 1e-5
454,000 and 1e-3 1,068,000.

Beyond MAX_FREE free variables (Letter: thousands on a thousand rows or more), two rules:

- cost: the step is taken only when its flops (:func:`affordable`: about sum_m |F_m|^3 +
  r^3 / 3 for r rows, plus its kernel blocks and G's update) are at most COST_RATIO times those
  of the decomposition steps since the last Newton step (about 2 l k each); a step skipped
  for its cost doubles the gap to the next (:class:`.solver.NewtonPauses`), so the Newton
  steps cost at most a few times the decomposition steps around them;
- rounds: with thousands of free variables, the full step would carry hundreds past their
  bounds.  So the system is solved again without the variables that would cross (they stay
  where they are), up to ROUNDS systems (:func:`_reduced_direction`), and the last direction
  goes to the projected search.  Measured 2026-11-26 on Letter's 5,000 rows, gamma 2^-7,
  C 2^12, C&S, when the step was still cut at the first bound: 0.85M steps and 77 CPU s,
  where without the rounds it had not converged (violation 0.025) after 2.4M steps and 112 s
  (docs/results/speed.md); with the projected search (at RIDGE 1e-10), one system instead of
  up to four took 1.33M steps against 0.81M.  Up to MAX_FREE (vowel, vehicle) one
  system: there the rounds made vowel 4x to 16x slower (the variables that reach a bound are
  the ones that should, and frozen they stop the step).
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotri, dpotrs

from .box import free_variables
from .trackers import over_everyone

MAX_FREE = 600  # up to this many free variables: one system, always (vowel: 600 beat 300, 1500)
COST_RATIO = 4.0  # a step may cost this many times the decomposition steps since the last one
ROUNDS = 4  # systems a step solves at most, each without the variables the last one crossed
RIDGE = 1e-4  # eps, relative to the largest Q_ii (a damping: see the module docstring)
SEARCH_TRIES = 12  # lengths the projected search tries: 1, 1/2, ..., 1/2^11
ARMIJO = 1e-4  # the share of the first-order decrease a length must reach


@dataclass
class Peak:
    """What the Newton steps of one solve leave for its record: the most bytes their
    temporaries held at once (``nbytes``: their kernel blocks and the KKT system's matrices; the
    solver adds it to the training memory, :func:`.solver.solve_memory`); ``failed``, how many
    steps were not taken because a factorisation of their KKT system failed (a singular
    matrix: LinAlgError; the fit reports them, :func:`.solver.warn_unless_converged`); and
    ``spent``, the decomposition steps since the last Newton step, which the solver sets before
    each (:func:`affordable` weighs a step's cost against theirs)."""

    nbytes: int = 0
    spent: int = 100
    failed: int = 0

    def hold(self, nbytes):
        """Note that ``nbytes`` were held at once."""
        self.nbytes = max(self.nbytes, int(nbytes))


def newton_step(problem, beta, G, active, rows, memory_mb, peak=None):
    """One step on the free variables of the ``active`` examples (see the module docstring) of
    ``problem`` (a :class:`.state.Problem`: its kind, C, shift and classes y), beta and G (both
    (k, l)) updated in place; ``rows`` is the solver's
    :class:`.kernel_rows.KernelRows` (its kernel values read from K(X, X) where it is stored, else
    computed from X, G's update in blocks of at most ``memory_mb``).  Returns whether it moved
    (beyond MAX_FREE free variables, not when :func:`affordable` says no; nor when a
    factorisation fails, which ``peak.failed`` counts).  ``peak`` (a :class:`Peak`, when given)
    is raised to the bytes this step's temporaries held at once."""
    peak = Peak() if peak is None else peak
    kind, C, shift, y = problem.kind, problem.C, problem.shift, problem.y
    examples, classes, positions, g, current, low, high = free_variables(kind, C, y, beta, G,
                                                                         active)
    large = len(g) > MAX_FREE
    if not len(g) or large and not affordable(np.bincount(classes, minlength=beta.shape[0]),
                                              len(examples), len(active), rows.X.shape[1],
                                              peak.spent):
        return False
    held = examples.nbytes + 6 * g.nbytes  # all along: the variables' six arrays
    peak.hold(held + rows.block_bytes(len(examples), len(examples)))
    columns = active[examples]  # the step's rows, as examples' indices
    Q = rows.block(columns, columns)
    Q += shift
    held += Q.nbytes
    try:
        direction, system_bytes = _reduced_direction(
            Q, g, classes, positions, (current, low, high), ROUNDS if large else 1)
    except np.linalg.LinAlgError:  # a singular system: no step, counted for the fit's notes
        peak.failed += 1
        return False
    peak.hold(held + system_bytes)
    slope = float(g @ direction)
    if not slope < 0.0:
        return False
    moved = _projected_search(kind, C, y[columns], beta[:, columns], G[:, columns], Q,
                              (classes, positions, direction))
    if moved is None:
        return False
    change = moved - beta[:, columns]
    beta[:, columns] = moved
    held += moved.nbytes + change.nbytes
    peak.hold(held + rows.add_products(G, change, columns, _updated(active, rows), shift,
                                       memory_mb))
    return True


def _updated(active, rows):
    """The examples whose G a Newton step updates: the ``active`` ones, or every example where
    K(X, X) is stored and :func:`.trackers.over_everyone` says so, as the decomposition
    steps' update does (:func:`.stored.add_rows` then runs over consecutive entries)."""
    n = rows.X.shape[0]
    return np.arange(n) if rows.full and over_everyone(len(active), n) else active


def _projected_search(kind, C, y, values, gradient, Q, step):
    """The rows ``values`` (k, r; classes ``y``) moved along ``step`` = (classes, positions,
    direction) of the free variables by the projected search (:func:`.search.searched`):
    lengths t = 1, 1/2, 1/4, ..., up to SEARCH_TRIES of them, the first whose exact change of
    the objective (``gradient`` and ``Q`` the rows') is at most ARMIJO x its first-order change
    g'(move) < 0 (Armijo's rule along the projection arc; Bertsekas 1982).  None when no length
    passes."""
    from .search import searched  # numba loads here, not at import

    moved, found = searched((kind, C), y, values, gradient, Q, step, SEARCH_TRIES, ARMIJO)
    return moved if found else None


def affordable(class_counts, n_rows, n_active, n_features, spent):
    """Whether a step whose classes have ``class_counts`` free variables on ``n_rows`` rows
    costs at most COST_RATIO times the ``spent`` decomposition steps since the last one, each
    about 2 n_active k flops (a row of G per class it changes, over the ``n_active``
    examples).  The step's flops: the kernel block of its rows (2 r^2 n_features) and their
    rows against the active examples (2 r n_active n_features), the class blocks' factors and
    inverses (about |F_m|^3 each), S's factor (r^3 / 3) and G's update (2 k r n_active), r =
    ``n_rows``.  On vowel (990 rows) the steps of up to MAX_FREE variables taken at every 200
    steps cost 1.7 (median) to 4.9 times those 200 steps, hence COST_RATIO 4 (measured before
    their kernel values were read from K(X, X) and they came every 100 steps)."""
    n_classes = len(class_counts)
    step = (float(np.sum(class_counts.astype(float) ** 3)) + n_rows**3 / 3.0
            + 2.0 * n_rows * (n_rows + n_active) * n_features + 2.0 * n_classes * n_rows * n_active)
    return step <= COST_RATIO * spent * 2.0 * n_active * n_classes


def _reach(direction, current, low, high):
    """How far along ``direction`` each variable may go before it reaches its bound (inf where
    it does not move)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(direction > 0, (high - current) / direction,
                        np.where(direction < 0, (low - current) / direction, np.inf))


def _reduced_direction(Q, g, classes, positions, box, rounds):
    """:func:`_direction` on the free variables, then again without those that its full step
    would carry past their bounds (``box``: their (current, low, high)), up to ``rounds``
    systems: the last direction (0 on the variables left out; all 0 if no row can move) and
    the most bytes held.  Where leaving them out leaves no row with two free variables, the
    last direction stands (the projected search stops its variables at their bounds)."""
    keep, result, most = np.ones(len(g), bool), np.zeros(len(g)), 0
    for _ in range(rounds):
        counts = np.bincount(positions[keep], minlength=Q.shape[0])
        kept = keep & (counts[positions] >= 2)  # a row needs two free variables to move
        if not kept.any():
            break
        used = np.flatnonzero(counts >= 2)
        every = len(used) == Q.shape[0]  # (as at the first round) Q itself, not a copy
        at = positions[kept] if every else np.searchsorted(used, positions[kept])
        part, held = _direction(Q if every else Q[np.ix_(used, used)], g[kept], classes[kept],
                                at, len(used))
        direction = np.zeros(len(g))
        direction[kept] = part
        result, most = direction, max(most, held + 8 * len(used) ** 2)  # Q's block
        crossing = _reach(direction, *box) < 1.0
        if not crossing.any():
            break
        keep = kept & ~crossing
    return result, most


def _solver(M):
    """x -> M^-1 x for a symmetric M (x a vector or a matrix): by Cholesky's factor (LAPACK
    potrf, potrs: M is positive definite, a kernel block plus a ridge, or :func:`_direction`'s
    S), or, where rounding or a kernel that is not positive semi-definite makes M indefinite, by
    LU (np.linalg.solve).  A singular M raises LinAlgError (the step is then not taken)."""
    factor, info = dpotrf(M, lower=1, clean=0)
    if info != 0:
        return lambda x: np.linalg.solve(M, x)
    return lambda x: dpotrs(factor, x, lower=1)[0]


def _inverse(M):
    """M^-1 of a symmetric M, its lower triangle at least: by Cholesky's factor (LAPACK potrf,
    potri: M_m is a kernel block plus a ridge), or, where rounding or a kernel that is not
    positive semi-definite makes M indefinite, by LU (np.linalg.inv).  A singular M raises
    LinAlgError (the step is then not taken)."""
    factor, info = dpotrf(M, lower=1, clean=0)
    if info != 0:
        return np.linalg.inv(M)
    return dpotri(factor, lower=1)[0]


def _direction(Q, g, classes, positions, n_rows):
    """The KKT system's solution D (see the module docstring) and the most bytes its matrices
    held at once: S and every class's M_m (then M_m^-1) with the larger of a class's factor and
    S's.  Class by class (:mod:`.schur`): H is block-diagonal, one block M_m over the rows where
    class m is free, so the systems are blocks of a few dozen instead of one system of every
    free variable and row."""
    from .schur import assemble, directions, gather  # numba loads here, not at import

    ridge = RIDGE * max(1.0, float(Q.diagonal().max()))
    order = np.argsort(classes, kind="stable")  # grouped by class (np.nonzero's order already)
    grouped, ordered = positions[order], g[order]
    starts = np.append(np.flatnonzero(np.diff(classes[order], prepend=-1)), len(g))
    sizes = np.diff(starts)
    blocks, offsets = gather(Q, grouped, starts, ridge)
    for c, size in enumerate(sizes):
        block = blocks[offsets[c]:offsets[c + 1]].reshape(size, size)
        block[...] = _inverse(block)
    S, rhs = assemble(blocks, offsets, ordered, grouped, starts, n_rows)
    multipliers = _solver(S)(rhs)
    direction = np.empty(len(g))
    direction[order] = directions(blocks, offsets, ordered, grouped, starts, multipliers)
    largest_class = 8 * int(sizes.max()) ** 2
    return direction, S.nbytes + blocks.nbytes + max(S.nbytes, 2 * largest_class)
