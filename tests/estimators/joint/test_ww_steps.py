"""W&W's step choice (issue 38): the thinned row step and the partner's row step of the joint
solver (multisvm_cli/estimators/joint/decomposition/loops.py) solve their sub-problems exactly, keep every row
in its box, and the solve still reaches the dual's optimum with every example's KKT conditions
met."""

import numpy as np
import pytest
from scipy.optimize import minimize

from multisvm_cli.estimators.joint.decomposition.solver import solve_dual
from multisvm_cli.estimators.joint.decomposition.state import CS, WW, Dual, Problem
from multisvm_cli.estimators.kernels import Kernel

from .test_all_together import (box, dual_objective, dual_terms, kkt_violations, scipy_dual, settings,
                                tiny_problem)

KINDS = {"cs": CS, "ww": WW}


def restricted_optimum(A, g, lower, upper, moving):
    """min 1/2 A ||v||^2 + g'v over sum v = 0, lower <= v <= upper on ``moving``, v = 0 elsewhere,
    by SLSQP (a general solver): (v, its gain)."""
    at = np.flatnonzero(moving)
    bounds = [(None if np.isinf(a) else a, None if np.isinf(b) else b)
              for a, b in zip(lower[at], upper[at])]
    result = minimize(lambda v: 0.5 * A * v @ v + g[at] @ v, np.zeros(len(at)),
                      jac=lambda v: A * v + g[at], bounds=bounds, method="SLSQP",
                      constraints=[{"type": "eq", "fun": lambda v: v.sum(), "jac": lambda v: np.ones_like(v)}],
                      options={"ftol": 1e-15, "maxiter": 1000})
    v = np.zeros(len(g))
    v[at] = result.x
    return v, -(g @ v + 0.5 * A * v @ v)


def random_row(form, k, y, C, rng):
    """A row of k entries in ``form``'s box (class y its own), summing to 0."""
    if form == "ww":
        row = -C * rng.uniform(size=k) * (rng.uniform(size=k) < 0.6)
        row[y] = 0.0
        row[y] = -row.sum()
    else:
        row = -rng.uniform(size=k) * (rng.uniform(size=k) < 0.6)
        row[y] = 0.0
        row[y] = -row.sum()
        if row[y] > C:
            row *= C / row[y]
    return row


@pytest.mark.parametrize("form", ["cs", "ww"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_row_over_some_classes_is_solved_exactly(form, seed):
    """steps.solve_row_over: its move is 0 off the chosen classes, sums to 0, keeps the row in
    its box and gains what a general QP solver finds on the same classes."""
    from multisvm_cli.estimators.joint.decomposition.steps import solve_row_over

    rng = np.random.default_rng(seed)
    k, y, C, A = 9, 3, 2.0, 1.7
    row, g = random_row(form, k, y, C, rng), rng.normal(size=k)
    moving = rng.uniform(size=k) < 0.6
    moving[[0, 5]] = True
    lower, upper = (bound[y] for bound in box(form, np.full(k, y), k, C))
    v = np.empty(k)
    found = solve_row_over((KINDS[form], C), y, A, g, row, moving, v, np.empty((6, 2 * k)))
    assert np.all(v[~moving] == 0.0) and abs(v.sum()) < 1e-12
    assert np.all(row + v >= lower - 1e-12) and np.all(row + v <= upper + 1e-12)
    _, reference = restricted_optimum(A, g, lower - row, upper - row, moving)
    assert found == pytest.approx(-(g @ v + 0.5 * A * v @ v), rel=1e-12)
    assert found == pytest.approx(reference, rel=1e-7, abs=1e-10) and found >= reference - 1e-10


def one_row_state(k, y_i, C, rng):
    """A W&W Problem and Dual of 3 examples (example 0 of class ``y_i``): random rows in the
    box, a random gradient of uneven violations."""
    from multisvm_cli.estimators.joint.decomposition import loops

    y = np.array([y_i, (y_i + 1) % k, (y_i + 2) % k], dtype=np.int64)
    beta = np.column_stack([random_row("ww", k, label, C, rng) for label in y])
    G = rng.normal(size=(k, 3)) * np.exp(rng.normal(size=(k, 3)))
    problem = Problem(WW, C, 1.0, 1e-3, 0, y, np.ones(3))
    dual = Dual(beta, G, np.empty(3), np.empty(3), np.zeros(3, np.bool_), np.arange(3, dtype=np.int64))
    return problem, dual, loops.scratch(k)


@pytest.mark.parametrize("seed", range(6))
def test_the_thinned_row_step_keeps_the_large_moves_and_descends(seed):
    """loops.row_step for W&W: the exact row move (steps.solve_ww) is re-solved over the classes
    it moves by more than THIN x its largest move and the most violating pair; the others stay;
    the thinned move is that restricted sub-problem's optimum, gains no more than the exact
    move and at least the best move of the most violating pair alone."""
    from multisvm_cli.estimators.joint.decomposition import loops
    from multisvm_cli.estimators.joint.decomposition.steps import solve_ww

    rng = np.random.default_rng(seed)
    k, C = 12, 3.0
    problem, dual, s = one_row_state(k, 4, C, rng)
    q = np.array([0.0, 0.3, -0.1])  # K(x_0, X) - the row's own entry is K_00 = 0 here: A = 1
    A, b, g = 1.0, dual.beta[:, 0].copy(), dual.G[:, 0].copy()
    exact = np.empty(k)
    solve_ww(A, g, b, 4, C, exact, np.empty(k))
    full = exact - b
    p, r = loops.extremes(WW, C, 4, b, g)
    loops.row_step(problem, dual, 0, q, (p, r), s)
    kept = (np.abs(full) > loops.THIN * np.abs(full).max()) | np.isin(np.arange(k), [p, r])
    assert np.all(s.d[~kept] == 0.0) and abs(s.d.sum()) < 1e-12
    assert np.array_equal(s.nu, b + s.d) and np.allclose(s.gi, g + s.d)
    lower, upper = (bound[4] for bound in box("ww", np.full(k, 4), k, C))
    assert np.all(s.nu >= lower - 1e-12) and np.all(s.nu <= upper + 1e-12)
    thinned = -(g @ s.d + 0.5 * s.d @ s.d)
    _, reference = restricted_optimum(A, g, lower - b, upper - b, kept)
    assert thinned == pytest.approx(reference, rel=1e-7, abs=1e-10)
    assert thinned <= -(g @ full + 0.5 * full @ full) + 1e-12
    pair_only = np.isin(np.arange(k), [p, r])
    assert thinned >= restricted_optimum(A, g, lower - b, upper - b, pair_only)[1] - 1e-10 > 0.0
    assert np.count_nonzero(s.d) < np.count_nonzero(full) or np.array_equal(s.d, full)


@pytest.mark.parametrize("seed", range(6))
def test_the_partner_row_step_is_exact_over_the_moving_classes(seed):
    """loops.take_pair for W&W: after the pair move, the partner's row takes its own step over
    the classes that either row moved, from the gradient after both moves; the placed row is
    that sub-problem's optimum, stays in the box, and no other class of it moves (but for its
    own class's rounding of the row's sum)."""
    from multisvm_cli.estimators.joint.decomposition import loops

    rng = np.random.default_rng(seed)
    k, C, i, j = 10, 2.0, 0, 1
    problem, dual, s = one_row_state(k, 2, C, rng)
    q = np.array([1.0, 0.4, 0.1])  # K(x_i, X); Q = K + 1, K_jj = 1
    old_i, old_j = dual.beta[:, i].copy(), dual.beta[:, j].copy()
    s.nu[:] = old_i
    moved = rng.choice(k, 4, replace=False)
    s.nu[moved[:2]] = np.clip(old_i[moved[:2]] - 0.3, -C, 0.0)  # i's own move, sum kept by y_i
    s.nu[problem.y[i]] -= s.nu.sum()
    s.bj[:] = old_j
    s.v[:] = 0.0
    loops.take_pair(problem, dual, i, j, q, s)
    d_i, d_j = s.nu - old_i, dual.beta[:, j] - old_j
    own = np.arange(k) == problem.y[j]  # takes the rounding of the row's sum (loops.place)
    assert np.all(d_j[(d_i == 0.0) & ~own] == 0.0) and abs(d_j.sum()) < 1e-12
    assert np.all(np.abs(d_j[(d_i == 0.0) & own]) < 1e-12)
    lower, upper = (bound[problem.y[j]] for bound in box("ww", np.full(k, problem.y[j]), k, C))
    assert np.all(dual.beta[:, j] >= lower - 1e-12) and np.all(dual.beta[:, j] <= upper + 1e-12)
    g_j = dual.G[:, j] + (q[j] + 1.0) * d_i  # the gradient after i's move, at j's old row
    found = -(g_j @ d_j + 0.5 * 2.0 * d_j @ d_j)
    _, reference = restricted_optimum(2.0, g_j, lower - old_j, upper - old_j, d_i != 0.0)
    assert found == pytest.approx(reference, rel=1e-7, abs=1e-10) and found >= -1e-12
    assert np.array_equal(s.d2, d_j)


def ww_bounded_optimum(Q, E, y, C):
    """The W&W dual solved by L-BFGS-B in its bound-constrained form (Hsu & Lin 2002, section
    III): the variables beta_im, m != y_i, each in [-C, 0], and beta_iy = -sum of them."""
    n, k = E.shape
    wrong = np.arange(k)[None, :] != y[:, None]

    def full(x):
        beta = np.zeros((n, k))
        beta[wrong] = x
        beta[np.arange(n), y] = -beta.sum(axis=1)
        return beta

    def value_and_gradient(x):
        beta = full(x)
        G = Q @ beta + E
        return dual_objective(beta, Q, E), (G - G[np.arange(n), y][:, None])[wrong]

    result = minimize(value_and_gradient, np.zeros(wrong.sum()), jac=True, method="L-BFGS-B",
                      bounds=[(-C, 0.0)] * int(wrong.sum()),
                      options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 20000, "maxfun": 40000})
    return result.fun


@pytest.mark.parametrize("n_rows, n_classes, C, gamma", [(48, 8, 1.0, 0.5), (60, 10, 10.0, 2.0),
                                                         (80, 12, 100.0, 4.0)])
def test_many_classes_reach_the_reference_optimum(n_rows, n_classes, C, gamma):
    """W&W with 8 to 12 classes (rows whose exact steps move several classes, where the thinned
    and the partner's steps differ from the exact row step): the solve's optimum is a general
    solver's (L-BFGS-B on the bound-constrained form), every row is in its box and sums to 0,
    and every example meets the KKT conditions within tol; a tighter tol takes more steps."""
    X, y = tiny_problem(n_rows, n_classes, seed=n_rows)
    kernel = Kernel.from_params("gaussian", gamma=gamma)
    Q, E = dual_terms("ww", X, y, kernel, n_classes)
    reference = ww_bounded_optimum(Q, E, y, C)
    steps = []
    for tol in (1e-3, 1e-9):
        solution = solve_dual(X, y, n_classes, "ww", settings(kernel, C, tol))
        beta = solution.beta
        assert solution.converged
        lower, upper = box("ww", y, n_classes, C)
        assert np.all(beta >= lower - 1e-12) and np.all(beta <= upper + 1e-12)
        assert np.abs(beta.sum(axis=1)).max() < 1e-12
        assert kkt_violations("ww", beta, Q, E, y, C).max() <= tol * (1 + 1e-6)
        steps.append(solution.n_iter)
    assert dual_objective(beta, Q, E) == pytest.approx(reference, rel=1e-8, abs=1e-9)
    assert dual_objective(beta, Q, E) <= reference + 1e-9 * abs(reference)
    assert 0 < steps[0] < steps[1]


def test_the_bounded_reference_agrees_with_the_general_qp_solver():
    """The L-BFGS-B reference above gives SLSQP's optimum (test_all_together's) on a small W&W
    problem, so that it can stand in for it on larger ones."""
    X, y = tiny_problem(20, 4, seed=3)
    kernel = Kernel.from_params("gaussian", gamma=0.5)
    Q, E = dual_terms("ww", X, y, kernel, 4)
    assert ww_bounded_optimum(Q, E, y, 1.0) == pytest.approx(scipy_dual("ww", Q, E, y, 1.0), rel=1e-8)
