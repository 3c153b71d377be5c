"""The all-together machines with the linear kernel, solved in the primal weights (numba;
imported only when such a fit starts, by :meth:`.machine.JointSVM._fit`).

The linear machines of C&S and W&W: the same problem, the same dual variables as
:mod:`.decomposition.solver`'s (their formulations: :mod:`.crammer_singer`,
:mod:`.weston_watkins`, read from :data:`.formulations.FORMULATIONS`); only the way to the
optimum differs.  Primal, for l examples
(x_i, y_i), k classes and W = (w_1 .. w_k):

    C&S (Crammer & Singer 2001, eq. (9)):
        min_W  1/2 sum_m ||w_m||^2 + C sum_i max_m (e_im + w_m' x_i - w_{y_i}' x_i),
        e_im = 1 - delta(y_i, m);
    W&W (Weston & Watkins 1999; Hsu & Lin 2002, II.C, with the regularized bias b):
        min_{W,b}  1/2 sum_m (||w_m||^2 + b_m^2)
                   + C sum_i sum_{m != y_i} max(0, 2 + w_m' x_i + b_m - w_{y_i}' x_i - b_{y_i}).

Dual (the same as the kernel solver's, with K(x_i, x_j) = x_i' x_j):

    min_beta  1/2 sum_m ||w_m(beta)||^2 (+ 1/2 sum_m b_m(beta)^2 for W&W) + sum_{i,m} e_im beta_im
    s.t.      sum_m beta_im = 0, beta_i. in its box (:mod:`.decomposition.box`),
    w_m(beta) = sum_i beta_im x_i,   b_m(beta) = sum_i beta_im (W&W; else no bias),

so W (and b) are kept, not the kernel: this is the sequential dual method of Keerthi, Sundararajan,
Chang, Hsieh & Lin (2008, "A sequential dual method for large scale multi-class linear SVMs",
section 3; liblinear's ``Solver_MCSVM_CS``, Fan et al. 2008, appendix), extended to W&W's box.

Update: the examples are visited in a random order (a new permutation every pass, seeded:
deterministic).  For example i, the gradient of its row is G_im = w_m' x_i (+ b_m) + e_im,
k dot products with the kept weights (x_i's non-zeros only); its k-variable sub-problem

    min_nu  1/2 A_i ||nu||^2 + sum_m (G_im - A_i beta_im) nu_m   s.t.  sum_m nu_m = 0, nu in the box,
    A_i = ||x_i||^2 (+ 1 for W&W's bias feature),

is solved exactly (:func:`.decomposition.steps.solve_cs`,
:func:`.decomposition.steps.solve_ww`), and the change d = nu - beta_i. is added: w_m += d_m x_i (b_m += d_m).  W is kept (d, k), a feature's k
weights together, as liblinear keeps it.  One such sub-problem is one step
(``smo_iterations_``).  A row with x_i = 0 under C&S (A_i = 0) is skipped, as liblinear does:
it moves no weight (its dual row then stays 0, the primal optimum is unchanged).

Shrinking and stopping (liblinear's rule): a row's violation is max G over its classes that
may decrease - min G over those that may increase (the kernel solver's).  During a pass, a
wrong class at its upper bound 0 whose G is below that minimum is set aside for the row (its
gradient is not computed); a row left with its own class only is set aside for the pass loop.
Unlike liblinear, the row's own class stays (free, or at C in C&S), so the sub-problem over the
remaining classes keeps sum 0 and the box of :func:`.decomposition.steps.solve_cs` /
:func:`.decomposition.steps.solve_ww`; where liblinear would set the own class aside (C&S: at C, G below that minimum) and one wrong
class is left (then fixed at -C), the row is set aside instead.  After a pass whose largest
violation is below eps_shrink (first max(10 tol, 1)), everything returns: if that pass was over
all rows and classes and its largest violation is below ``tol``, the solve has converged; else
eps_shrink halves (not below tol).  As in liblinear, this bounds each row's violation when the
last pass visited it (the rows moved after it may have moved it a little since).  A pass over
all rows whose steps move nothing, with a violation above ``tol`` (below what float64 moves),
ends the solve as stalled; the step bound (``max_iter``, as the kernel solver's) as bounded.

``tol`` is our tolerance (default 1e-3), not liblinear's eps (0.1 in liblinear, LinearSVC's
``tol`` 1e-4): it is the stopping quantity of both (the largest violation of a row), and with
our own ``tol`` one value means the same on both paths of a fit, kernel or linear.

X, dense or CSR, is read as CSR rows (a dense X is copied to CSR, its zeros dropped: both give
the same arithmetic).  Memory (``max_train_memory_``): the dual variables (l k), the weights
((d + 1) k), the per-row class order (l k) and the CSR rows.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._solvers import iteration_bound
from .decomposition.box import can_decrease, can_increase
from .decomposition.kernel_rows import data_bytes
from .decomposition.solver import JointSolution, warn_unless_converged
from .decomposition.state import BOUND, CONVERGED, CS, STALLED
from .decomposition.steps import solve_cs, solve_ww
from .formulations import FORMULATIONS

INF = np.inf
MOVE_TOL = 1e-12  # a row whose violation is at most this takes no step (liblinear's 1e-12)
# The per-row helpers that allocate nothing compile without numba's reference counting
# (``_nrt=False``): with it, every array handed to them (a dozen a row) cost an atomic
# increment and decrement, measured at a third of the solve's time on dna.
LEAF = {"cache": True, "nogil": True, "_nrt": False}


@njit(inline="always", **LEAF)
def row_dot(W, m, indices, data, start, end):
    """w_m' x over the non-zeros ``start:end`` of a CSR row: four partial sums, so that the
    additions do not wait on one another (a fixed order: the same rounding every time)."""
    s0 = s1 = s2 = s3 = 0.0
    p = start
    while p + 3 < end:
        s0 += W[indices[p], m] * data[p]
        s1 += W[indices[p + 1], m] * data[p + 1]
        s2 += W[indices[p + 2], m] * data[p + 2]
        s3 += W[indices[p + 3], m] * data[p + 3]
        p += 4
    while p < end:
        s0 += W[indices[p], m] * data[p]
        p += 1
    return (s0 + s1) + (s2 + s3)


@njit(**LEAF)
def row_gradient(i, rows, model, terms, order, n_active, own, g):
    """g[a] = G_{i, order[i, a]} for the row's first ``n_active`` classes (``rows``: X's CSR
    arrays (indptr, indices, data); ``model``: (W, bias); ``terms``: (shift, margin))."""
    indptr, indices, data = rows
    W, bias = model
    shift, margin = terms
    for a in range(n_active):
        m = order[i, a]
        g[a] = row_dot(W, m, indices, data, indptr[i], indptr[i + 1]) + shift * bias[m] \
            + (0.0 if a == own else margin)


@njit(**LEAF)
def bounds(i, kind, C, g, beta, order, n_active, own):
    """(max g over classes that may decrease, min g over classes that may increase)."""
    high, low = -INF, INF
    for a in range(n_active):
        value, mine = beta[i, order[i, a]], a == own
        if can_decrease(kind, value, mine, C):
            high = max(high, g[a])
        if can_increase(kind, value, mine, C):
            low = min(low, g[a])
    return high, low


@njit(**LEAF)
def shrink_row(i, box, g, beta, order, n_active, own, low):
    """Set aside the wrong classes at their upper bound 0 whose g is below ``low`` (moved past
    the active count in ``order`` and ``g``): (the new active count, the own class's position).
    A count of 1 sets the row aside: only its own class left, or (C&S) its own class at C with
    g below ``low`` (liblinear would set it aside) and one wrong class, then fixed at -C.
    ``box``: (kind, C)."""
    kind, C = box
    a = 0
    while a < n_active:
        if a != own and beta[i, order[i, a]] == 0.0 and g[a] < low:
            n_active -= 1
            order[i, a], order[i, n_active] = order[i, n_active], order[i, a]
            g[a], g[n_active] = g[n_active], g[a]
            if own == n_active:
                own = a
        else:
            a += 1
    if n_active == 2 and not can_increase(kind, beta[i, order[i, own]], True, C) and g[own] < low:
        return 1, own
    return n_active, own


@njit(**LEAF)
def solve_row_cs(C, A, g, old, nu, scratch, n_active, own):
    """C&S's sub-problem over the row's first ``n_active`` classes (gradient ``g``, values
    ``old``), solved exactly into ``nu`` (:func:`.decomposition.steps.solve_cs`; whole arrays when every
    class is active, as a slice is a new array view)."""
    if n_active < len(g):
        g, old, nu, scratch = g[:n_active], old[:n_active], nu[:n_active], scratch[:n_active]
    solve_cs(A, g, old, own, C, nu, scratch)


@njit(cache=True, nogil=True)  # solve_ww allocates its breakpoints: reference counting needed
def solve_row_ww(C, A, g, old, nu, scratch, n_active, own):
    """W&W's sub-problem, as :func:`solve_row_cs` (:func:`.decomposition.steps.solve_ww`)."""
    if n_active < len(g):
        g, old, nu, scratch = g[:n_active], old[:n_active], nu[:n_active], scratch[:n_active]
    solve_ww(A, g, old, own, C, nu, scratch)


@njit(**LEAF)
def apply_step(i, rows, model, shift, beta, order, n_active, moves):
    """Move row i from ``old`` to ``nu`` (``moves``: (old, nu), over its first ``n_active``
    classes), and W and b with it (``model``: (W, bias); ``rows``: X's CSR arrays): w_m += d_m
    x_i, b_m += shift d_m.  Whether anything moved."""
    indptr, indices, data = rows
    W, bias = model
    old, nu = moves
    moved = False
    for a in range(n_active):
        step = nu[a] - old[a]
        if step != 0.0:
            m = order[i, a]
            beta[i, m] = nu[a]
            for p in range(indptr[i], indptr[i + 1]):
                W[indices[p], m] += step * data[p]
            bias[m] += shift * step
            moved = True
    return moved


@njit(cache=True, nogil=True)
def one_pass(problem, rows, sq, beta, model, state, steps, bound):
    """One pass over the active rows (``rows``: X's CSR arrays; ``model``: (W, bias);
    ``state``: order, n_active, own, the row order, the active row count in a one-element
    array, the work arrays): (largest violation, steps taken in all, whether a step of this pass
    moved anything, whether the step ``bound`` ended it).  The tuples are unpacked, and the ones
    the per-row helpers take are built, here, once a pass: each array taken out of one inside
    the loop would cost reference counting every row (the helpers run without it)."""
    kind, C, shift, margin, shrinking = problem
    order, n_active, own, rows_order, n_rows, work = state
    g, old, nu, scratch = work[0], work[1], work[2], work[3]
    box, terms, moves = (kind, C), (shift, margin), (old, nu)
    worst, s, moved = -INF, 0, False
    while s < n_rows[0]:
        i = rows_order[s]
        if sq[i] <= 0.0:
            s += 1
            continue
        count = n_active[i]
        row_gradient(i, rows, model, terms, order, count, own[i], g)
        high, low = bounds(i, kind, C, g, beta, order, count, own[i])
        if shrinking:
            count, own[i] = shrink_row(i, box, g, beta, order, count, own[i], low)
            n_active[i] = count
            if count <= 1:
                n_rows[0] -= 1
                rows_order[s], rows_order[n_rows[0]] = rows_order[n_rows[0]], rows_order[s]
                continue
        worst = max(worst, high - low)
        if high - low > MOVE_TOL:
            if 0 <= bound <= steps:
                return worst, steps, moved, True
            for a in range(count):
                old[a] = beta[i, order[i, a]]
            if kind == CS:
                solve_row_cs(C, sq[i], g, old, nu, scratch, count, own[i])
            else:
                solve_row_ww(C, sq[i], g, old, nu, scratch, count, own[i])
            moved |= apply_step(i, rows, model, shift, beta, order, count, moves)
            steps += 1
        s += 1
    return worst, steps, moved, False


@njit(cache=True, nogil=True)
def solve(problem, stopping, rows, y, sq, beta, model):
    """Passes of :func:`one_pass` in random row order until liblinear's stopping rule holds (see
    the module docstring): (status, steps, passes, last pass's largest violation).
    ``stopping``: (tol, the step bound, the row order's seed); ``model``: (W, bias)."""
    tol, bound, seed = stopping
    n, k = beta.shape
    np.random.seed(seed)
    order = np.empty((n, k), np.int64)
    for i in range(n):
        order[i] = np.arange(k)
    n_active, own = np.full(n, k, np.int64), y.copy()
    rows_order, n_rows = np.arange(n), np.full(1, n, np.int64)
    state = (order, n_active, own, rows_order, n_rows, np.empty((4, k)))
    eps_shrink = max(10.0 * tol, 1.0) if problem[4] else tol
    from_all, steps, passes = True, 0, 0
    while True:
        for s in range(n_rows[0]):  # a new random order (liblinear's swaps)
            j = s + np.random.randint(n_rows[0] - s)
            rows_order[s], rows_order[j] = rows_order[j], rows_order[s]
        worst, steps, moved, ended = one_pass(problem, rows, sq, beta, model, state, steps, bound)
        passes += 1
        if ended:
            return BOUND, steps, passes, worst
        if not moved and worst >= tol and from_all:
            return STALLED, steps, passes, worst  # below what a step can move
        if worst < eps_shrink or not moved:  # (a shrunk pass that moved nothing: unshrink)
            if worst < tol and from_all:
                return CONVERGED, steps, passes, worst
            n_rows[0], eps_shrink, from_all = n, max(eps_shrink / 2.0, tol), True
            n_active[:] = k
        else:
            from_all = False


def csr_rows(X):
    """X as CSR arrays (indptr, indices, data) in row order; a dense X copied, zeros dropped."""
    rows = X if sp.issparse(X) else sp.csr_matrix(X)
    return sp.csr_matrix(rows, dtype=np.float64)


def solve_primal(X, y_index, n_classes, formulation, settings, seed, shrinking=True):
    """Solve the ``formulation`` ('cs' or 'ww') dual of a linear-kernel fit in the primal
    weights: a :class:`.decomposition.solver.JointSolution` (``beta`` (l, k), the steps, the status, the
    memory of the module docstring).  ``settings``: the fit's ``TrainSettings`` (C, tol,
    max_iter: the step bound, as the kernel solver's); ``seed`` (an int) seeds the row order.
    Warns as the kernel solver does (:func:`.decomposition.solver.warn_unless_converged`)."""
    kind, margin, shift = FORMULATIONS[formulation]
    matrix = csr_rows(X)
    rows = (matrix.indptr, matrix.indices, matrix.data)
    sq = np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel() + shift
    y = np.ascontiguousarray(y_index, dtype=np.int64)
    beta = np.zeros((X.shape[0], n_classes))
    W, bias = np.zeros((X.shape[1], n_classes)), np.zeros(n_classes)
    bound = iteration_bound(settings.max_iter, X.shape[0])
    problem = (kind, float(settings.C), shift, margin, bool(shrinking))
    stopping = (float(settings.tol), bound, int(seed))
    status, steps, _, worst = solve(problem, stopping, rows, y, sq, beta, (W, bias))
    memory = 2 * beta.nbytes + W.nbytes + bias.nbytes + data_bytes(matrix)
    solution = JointSolution(beta, int(steps), int(status), int(memory))
    warn_unless_converged(solution, bound, float(worst), float(settings.tol))
    return solution
