"""The Newton step beyond MAX_FREE free variables: taken only when its cost is paid for by the
decomposition steps since the last one, and then solved again without the variables its full
step would carry past their bounds (multisvm_cli/estimators/joint/decomposition/newton.py)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from multisvm_cli.estimators.joint.decomposition.kernel_rows import KernelRows
from multisvm_cli.estimators.joint.decomposition.solver import solve_dual
from multisvm_cli.estimators.joint.formulations import FORMULATIONS
from multisvm_cli.estimators.kernels import Kernel
from tests.estimators.joint.test_all_together import (box, dual_objective, dual_terms,
                                                      kkt_violations, newton_problem, settings,
                                                      tiny_problem)


def started(form, n_rows, n_classes, C, gamma, steps, seed):
    """(X, y, kernel, Q, E, beta (k, l), G (k, l)) after ``steps`` decomposition steps."""
    X, y = tiny_problem(n_rows, n_classes, seed=seed)
    kernel = Kernel.from_params("gaussian", gamma=gamma)
    Q, E = dual_terms(form, X, y, kernel, n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = solve_dual(X, y, n_classes, form, settings(kernel, C, 1e-3, max_iter=steps)).beta
    beta, G = np.ascontiguousarray(start.T), np.ascontiguousarray((Q @ start + E).T)
    return X, y, kernel, Q, E, beta, G


def test_affordable_weighs_the_step_flops_against_the_steps_spent():
    """The step's flops (class blocks' cubes, S's factor, the kernel blocks, G's update) against
    COST_RATIO x spent x 2 n_active k: just under the budget it is taken, just over it not."""
    from multisvm_cli.estimators.joint.decomposition.newton import COST_RATIO, affordable

    counts, n_rows, n_active, n_features = np.array([30, 20, 10]), 25, 100, 4
    flops = (30**3 + 20**3 + 10**3) + 25**3 / 3 + 2 * 25 * (25 + 100) * 4 + 2 * 3 * 25 * 100
    per_step = 2 * 100 * 3
    spent = flops / (COST_RATIO * per_step)
    assert affordable(counts, n_rows, n_active, n_features, spent * 1.001)
    assert not affordable(counts, n_rows, n_active, n_features, spent * 0.999)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_a_large_step_waits_for_its_cost_then_descends_and_stays_feasible(form, monkeypatch):
    """With MAX_FREE below the free variables: after one decomposition step the step is not
    taken (beta and G untouched); after many it is, with the objective lower, every variable in
    its box, rows summing to 0 and G = Q beta + e."""
    from multisvm_cli.estimators.joint.decomposition import newton
    from multisvm_cli.estimators.joint.decomposition.loops import CS, WW

    C = 100.0
    X, y, kernel, Q, E, beta, G = started(form, 40, 3, C, 2.0**-6, 60, seed=11)
    kind, shift = (CS if form == "cs" else WW), FORMULATIONS[form][2]
    monkeypatch.setattr(newton, "MAX_FREE", 5)
    free_before = beta.copy()
    rows = KernelRows(X, kernel, 200.0, 2048.0)
    problem = newton_problem(kind, C, shift, y)
    assert not newton.newton_step(problem, beta, G, np.arange(40), rows, 2048.0,
                                  newton.Peak(spent=1))
    np.testing.assert_array_equal(beta, free_before)
    start = beta.T.copy()
    assert newton.newton_step(problem, beta, G, np.arange(40), rows, 2048.0,
                              newton.Peak(spent=10**9))
    assert dual_objective(beta.T, Q, E) < dual_objective(start, Q, E) - 1e-6
    lower, upper = box(form, y, 3, C)
    assert np.all(beta.T >= lower) and np.all(beta.T <= upper)
    assert np.abs(beta.sum(axis=0)).max() < 1e-12
    np.testing.assert_allclose(G.T, Q @ beta.T + E, atol=1e-9)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_large_steps_reach_the_same_optimum(form, monkeypatch):
    """A near-constant kernel at a large C with MAX_FREE = 20 (below its free variables, as
    Letter's thousands are below 600): large Newton steps are taken and move, and the solve
    ends at the optimum without Newton steps (KKT within tol, the same objective)."""
    from multisvm_cli.estimators.joint.decomposition import newton, solver

    X, y = tiny_problem(150, 4, seed=12)
    kernel, C = Kernel.from_params("gaussian", gamma=2.0**-8), 2.0**10
    Q, E = dual_terms(form, X, y, kernel, 4)
    large_moves = []
    original = newton.newton_step

    def counted(problem, beta, G, active, rows, memory_mb, peak=None):
        n_free = int(np.sum((beta[:, active] != 0.0)))
        moved = original(problem, beta, G, active, rows, memory_mb, peak)
        large_moves.append(moved and n_free > newton.MAX_FREE)
        return moved

    monkeypatch.setattr(newton, "MAX_FREE", 20)
    monkeypatch.setattr(newton, "newton_step", counted)
    large = solve_dual(X, y, 4, form, settings(kernel, C, 1e-3))
    assert any(large_moves)
    monkeypatch.setattr(solver, "NEWTON_EVERY", 10**12)
    plain = solve_dual(X, y, 4, form, settings(kernel, C, 1e-3))
    for solution in (large, plain):
        assert solution.converged
        assert kkt_violations(form, solution.beta, Q, E, y, C).max() <= 1e-3 * (1 + 1e-6)
    assert dual_objective(large.beta, Q, E) == \
        pytest.approx(dual_objective(plain.beta, Q, E), rel=1e-6)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_a_failed_factorisation_is_counted_and_reported(form, monkeypatch):
    """A Newton step whose KKT system cannot be factorised (LinAlgError) is not taken, and
    counted: the solution's ``failed_factorisations`` is the number of such steps, and the fit
    warns once with that count (a ConvergenceWarning, kept as a note as the stall's is); the
    decomposition steps still reach the optimum.  A solve whose factorisations all succeed
    reports none."""
    from multisvm_cli.estimators.joint.decomposition import newton
    from multisvm_cli.estimators.joint.decomposition.solver import FACTOR_MESSAGE

    X, y = tiny_problem(150, 4, seed=12)
    kernel, C = Kernel.from_params("gaussian", gamma=2.0**-8), 2.0**10
    Q, E = dual_terms(form, X, y, kernel, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plain = solve_dual(X, y, 4, form, settings(kernel, C, 1e-3))
    assert plain.failed_factorisations == 0
    assert not [w for w in caught if "factorisation" in str(w.message)]
    tried = []

    def singular(*args):
        tried.append(1)
        raise np.linalg.LinAlgError("singular")

    monkeypatch.setattr(newton, "_direction", singular)
    with pytest.warns(ConvergenceWarning, match="factorisation") as raised:
        failed = solve_dual(X, y, 4, form, settings(kernel, C, 1e-3))
    assert len(tried) > 0 and failed.failed_factorisations == len(tried)
    notes = [str(w.message) for w in raised if "factorisation" in str(w.message)]
    assert notes == [FACTOR_MESSAGE.format(len(tried))]
    assert failed.converged
    assert kkt_violations(form, failed.beta, Q, E, y, C).max() <= 1e-3 * (1 + 1e-6)
    assert dual_objective(failed.beta, Q, E) == \
        pytest.approx(dual_objective(plain.beta, Q, E), rel=1e-6)
