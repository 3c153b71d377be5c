"""The all-together schemes: Crammer & Singer (cs) and Weston & Watkins (ww), their dual solver."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import LinearSVC

from multisvm_cli import data
from multisvm_cli.estimators._binary import TrainSettings
from multisvm_cli.estimators.joint.decomposition.solver import solve_dual
from multisvm_cli.estimators.joint.decomposition.state import Problem
from multisvm_cli.estimators.joint.formulations import FORMULATIONS
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.ww import WestonWatkinsSVC
from multisvm_cli.estimators.joint import crammer_singer, weston_watkins
from multisvm_cli.estimators.kernels import Kernel

SCHEMES = {"cs": CrammerSingerSVC, "ww": WestonWatkinsSVC}
FORMULATION_BOXES = {"cs": crammer_singer, "ww": weston_watkins}


def scaled(X):
    return MinMaxScaler((-1, 1)).fit_transform(X)


def tiny_problem(n_rows, n_classes, seed):
    """A random problem of ``n_rows`` rows in 3-d, classes around shifted centres."""
    rng = np.random.default_rng(seed)
    y = np.arange(n_rows) % n_classes
    X = rng.normal(size=(n_rows, 3)) + y[:, None] * np.array([1.0, -0.5, 0.3])
    return X, y


def settings(kernel, C, tol, cache_size=200.0, max_iter="libsvm", memory_mb=2048.0):
    """A fit's TrainSettings; K(X, X) is held whole where it fits ``memory_mb``, else its rows
    are cached in ``cache_size`` MB."""
    return TrainSettings(kernel, C, tol, cache_size, memory_mb, max_iter=max_iter)


def newton_problem(kind, C, shift, y):
    """The :class:`Problem` a Newton step reads (its kind, C, shift and classes)."""
    return Problem(kind, C, shift, 1e-3, 0, np.ascontiguousarray(y, np.int64), None)


def dual_terms(form, X, y, kernel, n_classes):
    """(Q, e): the dual's matrix K + shift and its linear term, as the class docstrings write them."""
    _, margin, shift = FORMULATIONS[form]
    E = np.full((len(y), n_classes), margin)
    E[np.arange(len(y)), y] = 0.0
    return kernel.gram(X) + shift, E


def dual_objective(beta, Q, E):
    return 0.5 * np.sum(beta * (Q @ beta)) + np.sum(E * beta)


def box(form, y, n_classes, C):
    """(lower, upper) bounds of every dual variable, (l, k)."""
    own = np.arange(n_classes)[None, :] == y[:, None]
    if form == "cs":
        return np.full(own.shape, -np.inf), np.where(own, C, 0.0)
    return np.where(own, -np.inf, -C), np.where(own, np.inf, 0.0)


def kkt_violations(form, beta, Q, E, y, C):
    """Each example's violation, computed from scratch: max G over entries that may decrease
    minus min G over entries that may increase."""
    G = Q @ beta + E
    lower, upper = box(form, y, beta.shape[1], C)
    high = np.where(beta > lower, G, -np.inf).max(axis=1)
    low = np.where(beta < upper, G, np.inf).min(axis=1)
    return high - low


def scipy_dual(form, Q, E, y, C):
    """The same dual solved by SLSQP (a general QP solver)."""
    n, k = E.shape
    lower, upper = box(form, y, k, C)
    bounds = [(None if np.isinf(a) else a, None if np.isinf(b) else b)
              for a, b in zip(lower.ravel(), upper.ravel())]
    rows = np.kron(np.eye(n), np.ones(k))
    result = minimize(lambda b: dual_objective(b.reshape(n, k), Q, E), np.zeros(n * k),
                      jac=lambda b: (Q @ b.reshape(n, k) + E).ravel(), bounds=bounds,
                      constraints=[{"type": "eq", "fun": lambda b: rows @ b, "jac": lambda b: rows}],
                      method="SLSQP", options={"ftol": 1e-14, "maxiter": 5000})
    # status 8: no descent direction left at rounding level (at the optimum on these problems)
    assert result.success or result.status == 8, result.message
    assert np.abs(rows @ result.x).max() < 1e-8
    return result.fun


@pytest.mark.parametrize("form", ["cs", "ww"])
@pytest.mark.parametrize("n_rows, n_classes, C, kernel", [
    (20, 3, 0.1, Kernel.from_params("gaussian", gamma=0.5)),
    (30, 4, 1.0, Kernel.from_params("gaussian", gamma=0.5)),
    (40, 3, 10.0, Kernel.from_params("polynomial", degree=2)),
    (25, 4, 2.0, Kernel.from_params("linear")),
])
@pytest.mark.slow
def test_dual_optimum_matches_a_general_qp_solver(form, n_rows, n_classes, C, kernel):
    X, y = tiny_problem(n_rows, n_classes, seed=n_rows)
    Q, E = dual_terms(form, X, y, kernel, n_classes)
    reference = scipy_dual(form, Q, E, y, C)
    for tol in (1e-3, 1e-9):
        solution = solve_dual(X, y, n_classes, form, settings(kernel, C, tol))
        beta = solution.beta
        assert solution.converged and solution.n_iter > 0
        lower, upper = box(form, y, n_classes, C)
        assert np.all(beta >= lower - 1e-12) and np.all(beta <= upper + 1e-12)
        assert np.abs(beta.sum(axis=1)).max() < 1e-12
        assert kkt_violations(form, beta, Q, E, y, C).max() <= tol * (1 + 1e-6)
    assert dual_objective(beta, Q, E) == pytest.approx(reference, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_small_cache_gives_the_same_solution(form):
    """Kernel rows from the LRU cache (a cache of a few rows) or from the whole Gram matrix."""
    X, y = tiny_problem(300, 4, seed=1)
    kernel = Kernel.from_params("gaussian", gamma=0.5)
    full = solve_dual(X, y, 4, form, settings(kernel, 1.0, 1e-3))
    cached = solve_dual(X, y, 4, form, settings(kernel, 1.0, 1e-3, cache_size=0.02, memory_mb=0.02))  # ~8 rows
    np.testing.assert_allclose(cached.beta, full.beta, atol=1e-12)
    assert cached.n_iter == full.n_iter
    assert cached.memory < full.memory


@pytest.mark.slow
@pytest.mark.parametrize("form", ["cs", "ww"])
def test_shrinking_reaches_the_same_optimum(form, monkeypatch):
    """Examples set aside by shrinking get their gradient rebuilt and are checked at the end:
    every example meets the KKT conditions, as without shrinking."""
    from multisvm_cli.estimators.joint.decomposition import solver as _joint_solver

    rebuilt = []
    original = _joint_solver.reconstruct
    monkeypatch.setattr(_joint_solver, "reconstruct",
                        lambda *args: rebuilt.append(len(args[6])) or original(*args))
    X, y = tiny_problem(1500, 4, seed=2)
    kernel = Kernel.from_params("gaussian", gamma=2.0)
    Q, E = dual_terms(form, X, y, kernel, 4)
    objectives = []
    for shrinking in (True, False):
        solution = solve_dual(X, y, 4, form, settings(kernel, 10.0, 1e-4, cache_size=2.0, memory_mb=2.0), shrinking)
        assert solution.converged
        assert kkt_violations(form, solution.beta, Q, E, y, 10.0).max() <= 1e-4 * (1 + 1e-6)
        objectives.append(dual_objective(solution.beta, Q, E))
    assert objectives[0] == pytest.approx(objectives[1], rel=1e-6)
    assert rebuilt and min(rebuilt) > 0  # examples were shrunk, then rebuilt


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_newton_step_descends_and_stays_feasible(form):
    """One Newton step on the free variables: the objective falls, every row stays in its box
    with sum 0, and G stays Q beta + e."""
    from multisvm_cli.estimators.joint.decomposition.loops import CS, WW
    from multisvm_cli.estimators.joint.decomposition.newton import newton_step
    from multisvm_cli.estimators.joint.decomposition.kernel_rows import KernelRows

    X, y = tiny_problem(40, 3, seed=11)
    kernel, C = Kernel.from_params("gaussian", gamma=2.0**-6), 100.0
    Q, E = dual_terms(form, X, y, kernel, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = solve_dual(X, y, 3, form, settings(kernel, C, 1e-3, max_iter=60)).beta
    beta = np.ascontiguousarray(start.T)  # (k, l), as the solver keeps it
    G = np.ascontiguousarray((Q @ start + E).T)
    shift = FORMULATIONS[form][2]
    kind = CS if form == "cs" else WW
    moved = newton_step(newton_problem(kind, C, shift, y), beta, G, np.arange(40),
                        KernelRows(X, kernel, 200.0, 2048.0), 2048.0)
    assert moved
    assert dual_objective(beta.T, Q, E) < dual_objective(start, Q, E) - 1e-6
    lower, upper = box(form, y, 3, C)
    assert np.all(beta.T >= lower) and np.all(beta.T <= upper)
    assert np.abs(beta.sum(axis=0)).max() < 1e-12
    np.testing.assert_allclose(G.T, Q @ beta.T + E, atol=1e-9)


@pytest.mark.parametrize("n_active, everyone", [(30, True), (8, False)])
@pytest.mark.parametrize("cache_size", [200.0, 0.005])  # K(X, X) stored; 16 cached rows
def test_newton_step_updates_g_of_the_active_examples(n_active, everyone, cache_size):
    """With some examples set aside, a Newton step moves only active rows and keeps their G
    equal to Q beta + e; where K(X, X) is stored and at least a quarter of the examples are
    active it updates every example's G (one pass over consecutive entries), else the
    set-aside examples' G stays as it was (stale until they come back)."""
    from multisvm_cli.estimators.joint.decomposition.kernel_rows import KernelRows
    from multisvm_cli.estimators.joint.decomposition.loops import CS
    from multisvm_cli.estimators.joint.decomposition.newton import newton_step

    X, y = tiny_problem(40, 3, seed=11)
    kernel, C = Kernel.from_params("gaussian", gamma=2.0**-6), 100.0
    Q, E = dual_terms("cs", X, y, kernel, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = solve_dual(X, y, 3, "cs", settings(kernel, C, 1e-3, max_iter=60)).beta
    beta, G = np.ascontiguousarray(start.T), np.ascontiguousarray((Q @ start + E).T)
    free_rows = np.flatnonzero(((beta < 0) | ((beta > 0) & (beta < C))).sum(axis=0) >= 2)
    active = np.sort(np.r_[free_rows[:n_active // 2],
                           np.setdiff1d(np.arange(40), free_rows)[:n_active - n_active // 2]])
    aside = np.setdiff1d(np.arange(40), active)
    stale = G[:, aside] + 7.0  # set-aside examples' G, made visibly out of date
    G[:, aside] = stale
    rows = KernelRows(X, kernel, cache_size, cache_size)
    assert rows.full == (cache_size == 200.0)
    assert newton_step(newton_problem(CS, C, 0.0, y), beta, G, active, rows, 2048.0)
    assert not np.array_equal(beta.T, start) and np.array_equal(beta.T[aside], start[aside])
    np.testing.assert_allclose(G[:, active].T, (Q @ beta.T + E)[active], atol=1e-9)
    moved = Q[np.ix_(aside, np.arange(40))] @ (beta.T - start)
    expected = stale + moved.T if everyone and rows.full else stale
    np.testing.assert_allclose(G[:, aside], expected, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["cs", "ww"])
def test_large_c_small_gamma_takes_newton_steps_to_the_same_optimum(form, monkeypatch):
    """A near-constant kernel at a large C, where the solver's Newton steps on the free
    variables do the work: the same optimum (KKT within tol, the same objective) as without
    them, and as with kernel rows from a small cache instead of the Gram matrix (whose
    rounding the Newton systems, ill-conditioned here, amplify: another path)."""
    from multisvm_cli.estimators.joint.decomposition import newton as _joint_newton, solver as _joint_solver

    X, y = tiny_problem(150, 4, seed=12)
    kernel, C = Kernel.from_params("gaussian", gamma=2.0**-8), 2.0**10
    Q, E = dual_terms(form, X, y, kernel, 4)
    taken = []
    original = _joint_newton.newton_step
    monkeypatch.setattr(_joint_newton, "newton_step",
                        lambda *args: taken.append(original(*args)) or taken[-1])
    full = solve_dual(X, y, 4, form, settings(kernel, C, 1e-3))
    cached = solve_dual(X, y, 4, form, settings(kernel, C, 1e-3, cache_size=0.02, memory_mb=0.02))
    assert any(taken)
    monkeypatch.setattr(_joint_solver, "NEWTON_EVERY", 10**12)
    plain = solve_dual(X, y, 4, form, settings(kernel, C, 1e-3))
    for solution in (full, cached, plain):
        assert solution.converged
        assert kkt_violations(form, solution.beta, Q, E, y, C).max() <= 1e-3 * (1 + 1e-6)
        assert dual_objective(solution.beta, Q, E) == \
            pytest.approx(dual_objective(plain.beta, Q, E), rel=1e-6)


def crammer_singer_primal(W, X, y, C):
    scores = X @ W.T
    margins = np.ones_like(scores)
    margins[np.arange(len(y)), y] = 0.0
    slack = np.max(scores + margins - scores[np.arange(len(y)), y][:, None], axis=1)
    return 0.5 * np.sum(W * W) + C * np.sum(slack)


def small_sets(mirror):
    glass = data.load("glass", mirror=mirror).parts["all"]
    return {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True), "glass": glass}


@pytest.mark.parametrize("name", ["iris", "wine", "glass"])
def test_linear_crammer_singer_reaches_liblinears_optimum(name, mirror, data_home):
    X, labels = small_sets(mirror)[name]
    X = scaled(X)
    _, y = np.unique(labels, return_inverse=True)
    for C in (0.1, 1.0, 10.0):
        ours = CrammerSingerSVC(C=C, kernel="linear", tol=1e-4).fit(X, y)
        reference = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-8,
                              max_iter=100_000, random_state=0).fit(X, y)
        mine, theirs = (crammer_singer_primal(W, X, y, C) for W in (ours.machines_.weights, reference.coef_))
        assert abs(mine - theirs) <= 1e-3 * theirs
        # equal predictions, but for points on which the optimum ties two classes
        top = np.sort(reference.decision_function(X), axis=1)
        clear = top[:, -1] - top[:, -2] > 1e-3
        np.testing.assert_array_equal(ours.predict(X)[clear], reference.predict(X)[clear])
        assert clear.mean() > 0.9


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_permuting_the_classes_permutes_the_scores(form):
    X, y = tiny_problem(60, 4, seed=3)
    labels = np.array(["a", "b", "c", "d"])
    permutation = np.array([2, 0, 3, 1])  # class c -> label permutation[c]
    first = SCHEMES[form](C=1.0, gamma=0.5).fit(X, labels[y])
    second = SCHEMES[form](C=1.0, gamma=0.5).fit(X, labels[permutation[y]])
    np.testing.assert_allclose(second.decision_function(X)[:, permutation], first.decision_function(X),
                               atol=1e-8)
    assert first.smo_iterations_ > 0 and first.n_support_vectors_ == second.n_support_vectors_


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_edge_cases_give_defined_results(form):
    X, y = tiny_problem(40, 3, seed=4)
    cases = {
        "duplicates": (np.vstack([X, X[:10]]), np.concatenate([y, y[:10]]), 1.0),
        "one-row class": (np.vstack([X, X[:1] + 5.0]), np.concatenate([y, [3]]), 1.0),
        "tiny C": (X, y, 1e-8),
        "huge C": (X, y, 1e6),
    }
    for name, (Xc, yc, C) in cases.items():
        model = SCHEMES[form](C=C, gamma=0.5).fit(Xc, yc)
        scores = model.decision_function(Xc)
        assert scores.shape == (len(yc), len(np.unique(yc))) and np.isfinite(scores).all(), name
        assert set(model.predict(Xc)) <= set(yc), name
    # a huge C on separable rows: every training row right; a tiny C: scores of order C
    huge = SCHEMES[form](C=1e6, gamma=0.5).fit(X, y)
    assert (huge.predict(X) == y).all()
    tiny = SCHEMES[form](C=1e-8, gamma=0.5).fit(X, y)
    assert np.abs(tiny.decision_function(X) - tiny.machines_.intercept).max() < 1e-6
    # the one-row class is learnt (its row is a support vector of non-zero dual row)
    Xo, yo, _ = cases["one-row class"]
    model = SCHEMES[form](C=100.0, gamma=0.5).fit(Xo, yo)
    assert model.predict(Xo[-1:])[0] == 3


def test_duplicate_rows_share_their_weight():
    """Two copies of a row are one example of twice the C: same scores as C doubled for it."""
    X, y = tiny_problem(30, 3, seed=5)
    once = CrammerSingerSVC(C=1.0, gamma=0.5, tol=1e-9).fit(X, y)
    twice = CrammerSingerSVC(C=1.0, gamma=0.5, tol=1e-9).fit(np.vstack([X, X]), np.concatenate([y, y]))
    doubled = CrammerSingerSVC(C=2.0, gamma=0.5, tol=1e-9).fit(X, y)
    np.testing.assert_allclose(twice.decision_function(X), doubled.decision_function(X), atol=1e-6)
    assert not np.allclose(once.decision_function(X), doubled.decision_function(X))


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_sparse_input_and_determinism(form):
    X, y = tiny_problem(80, 3, seed=6)
    X[np.abs(X) < 0.7] = 0.0
    dense = SCHEMES[form](C=2.0, gamma=0.3, tol=1e-9).fit(X, y)
    # (sparse products round differently: another path to the same optimum)
    sparse = SCHEMES[form](C=2.0, gamma=0.3, tol=1e-9, cache_size=0.01, memory_mb=0.01).fit(sp.csr_matrix(X), y)
    again = SCHEMES[form](C=2.0, gamma=0.3, tol=1e-9).fit(X, y)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X),
                               atol=1e-7)
    assert sparse.machines_.is_sparse
    np.testing.assert_array_equal(again.decision_function(X), dense.decision_function(X))
    assert again.smo_iterations_ == dense.smo_iterations_


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_table_figures(form, monkeypatch):
    from multisvm_cli.estimators.joint.decomposition import newton

    peaks, original = [], newton.newton_step
    monkeypatch.setattr(newton, "newton_step", lambda *args: peaks.append(args[-1]) or original(*args))
    X, y = tiny_problem(60, 3, seed=7)
    model = SCHEMES[form](C=1.0, gamma=0.5).fit(X, y)
    pool = model.machines_
    assert model.n_support_vectors_ == pool.n_pool == model.kernel_evaluations(X[:5])
    biases = 3 if form == "ww" else 0
    assert model.n_parameters_ == np.count_nonzero(pool.vectors) + np.count_nonzero(pool.coef.data) + biases
    gram, dual = 60 * 60 * 8, 2 * 60 * 3 * 8
    assert len(peaks) == 1 and peaks[0].nbytes > 0  # one Newton step (at step 100) ended it
    assert model.max_train_memory_ == gram + dual + X.nbytes + peaks[0].nbytes
    assert model.fit_cpu_time_ > 0 and model.n_iter_ == model.smo_iterations_
    # every row of the pool has a non-zero dual row; rows left out have none
    assert np.all(np.abs(pool.coef.toarray()).sum(axis=1) > 0)
    linear = SCHEMES[form](C=1.0, kernel="linear").fit(X, y)
    assert linear.primal_ and linear.kernel_evaluations(X) == 3
    assert linear.n_parameters_ == np.count_nonzero(linear.machines_.weights) + biases


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_iteration_bound_warns_and_liblinear_is_refused(form):
    X, y = tiny_problem(40, 3, seed=8)
    with pytest.warns(ConvergenceWarning, match="Solver terminated early"):
        model = SCHEMES[form](C=1.0, gamma=0.5, max_iter=5).fit(X, y)
    assert model.smo_iterations_ == 5
    with pytest.raises(ValueError, match="solver 'liblinear' does not apply"):
        SCHEMES[form](kernel="linear", solver="liblinear").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SCHEMES[form](C=1.0, gamma=0.5).fit(X, y)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_a_stalled_solve_warns_and_a_normal_fit_does_not(form):
    """A tol below float64's rounding: the working example's step changes nothing while its
    violation is still above tol, a stall (not a convergence): the fit warns, at the optimum to
    rounding; at the default tol the same solve converges without a warning."""
    from multisvm_cli.estimators.joint.decomposition.state import STALLED

    X, y = tiny_problem(40, 3, seed=8)
    kernel = Kernel.from_params("gaussian", gamma=0.5)
    with pytest.warns(ConvergenceWarning, match="Solver stalled"):
        SCHEMES[form](C=1.0, gamma=0.5, tol=1e-300).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="Solver stalled"):
        stalled = solve_dual(X, y, 3, form, settings(kernel, 1.0, 1e-300))
    assert stalled.status == STALLED and not stalled.converged
    Q, E = dual_terms(form, X, y, kernel, 3)
    assert kkt_violations(form, stalled.beta, Q, E, y, 1.0).max() < 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        normal = solve_dual(X, y, 3, form, settings(kernel, 1.0, 1e-3))
    assert normal.converged and normal.n_iter < stalled.n_iter


def test_a_stall_reaches_the_runs_warnings():
    """The stall's warning, kept in a fit's notes as the protocol keeps it, becomes one of the
    run's warnings (as the iteration bound's), and does not mark the table."""
    from multisvm_cli.experiment.run.fit_notes import bounded, fit_warnings

    X, y = tiny_problem(40, 3, seed=8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CrammerSingerSVC(C=1.0, gamma=0.5, tol=1e-300).fit(X, y)
    notes = [f"{w.category.__name__}: {w.message}" for w in caught]
    final = {"dataset": "iris", "scheme": "cs", "kernel": "gaussian", "C": 1.0, "notes": notes}
    point = {"dataset": "iris", "scheme": "cs", "kernel": "gaussian", "C": 4.0,
             "notes": "; ".join(notes)}
    stalled = "stalled above tol (its steps no longer moved the dual variables)"
    assert fit_warnings([final], [point]) == [
        f"iris cs: the final fit (gaussian, C=1) {stalled}",
        f"iris cs: 1 grid point(s) {stalled}: gaussian C=4"]
    assert not bounded(final)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_the_solver_reads_each_formulations_box_from_one_home(form):
    """The Newton step's free variables (box.free_variables) are the entries strictly inside
    the box as the class docstrings write it, of the rows with two or more of them, class by
    class, with their G, value and bounds."""
    from multisvm_cli.estimators.joint.decomposition.box import free_variables

    y, C = np.array([0, 2, 1, 2, 0, 1]), 3.0
    lower, upper = box(form, y, 3, C)  # (l, k), as the class docstrings write it
    finite = lambda bound, other: np.where(np.isfinite(bound), bound, other)
    low, high = finite(lower, -2.0 * C), finite(upper, 2.0 * C)
    rng = np.random.default_rng(4)
    at_a_bound = np.where(rng.random(lower.shape) < 0.5, low, high)
    beta = np.where(rng.random(lower.shape) < 0.4, at_a_bound,
                    low + rng.random(lower.shape) * (high - low))  # or inside
    beta[5] = low[5]  # a row without two free entries
    G, active = rng.normal(size=(3, 6)), np.array([5, 0, 2, 3, 1, 4])
    examples, classes, positions, g, current, at_low, at_high = free_variables(
        FORMULATIONS[form][0], C, y, np.ascontiguousarray(beta.T), G, active)
    inside = (beta > lower) & (beta < upper)
    rows = active[inside[active].sum(axis=1) >= 2]
    np.testing.assert_array_equal(active[examples], rows)
    expected_classes, expected_positions = np.nonzero(inside[rows].T)
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(positions, expected_positions)
    columns = rows[positions]
    np.testing.assert_array_equal(g, G[classes, columns])
    np.testing.assert_array_equal(current, beta[columns, classes])
    np.testing.assert_array_equal(at_low, lower[columns, classes])
    np.testing.assert_array_equal(at_high, upper[columns, classes])


def test_newton_systems_are_solved_by_cholesky_with_an_lu_fallback(monkeypatch):
    """A positive definite block by Cholesky's factors; an indefinite one (rounding, or a kernel
    that is not positive semi-definite) by LU; a singular one raises (the step is not taken)."""
    from multisvm_cli.estimators.joint.decomposition import newton

    used = []
    original = newton.dpotrs
    monkeypatch.setattr(newton, "dpotrs", lambda *a, **k: used.append(1) or original(*a, **k))
    rng = np.random.default_rng(13)
    A, b = rng.normal(size=(6, 6)), rng.normal(size=6)
    for M, cholesky in ((A @ A.T + 0.1 * np.eye(6), True), (A + A.T, False)):
        used.clear()
        np.testing.assert_allclose(M @ newton._solver(M)(b), b, atol=1e-9)
        assert bool(used) == cholesky
    with pytest.raises(np.linalg.LinAlgError):
        newton._solver(np.zeros((3, 3)))(np.ones(3))


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_save_load_round_trip(form, tmp_path, monkeypatch):
    """Through multisvm_cli.persist, with the scheme registered as the lead's merge will do."""
    from multisvm_cli.estimators import SCHEMES as REGISTERED
    from multisvm_cli.persist import load_model, save_model

    monkeypatch.setitem(REGISTERED, form, SCHEMES[form])
    X, y = tiny_problem(50, 3, seed=9)
    for kernel, rows in (("gaussian", X), ("linear", X), ("gaussian", sp.csr_matrix(np.round(X)))):
        model = SCHEMES[form](C=1.0, kernel=kernel).fit(rows, y)
        save_model(tmp_path / "m", model)
        loaded = load_model(tmp_path / "m").estimator
        np.testing.assert_array_equal(loaded.decision_function(rows), model.decision_function(rows))
        assert (loaded.n_parameters_, loaded.n_support_vectors_, loaded.smo_iterations_) == \
            (model.n_parameters_, model.n_support_vectors_, model.smo_iterations_)


def test_array_schema_lists_what_get_state_saves():
    class Shapes:
        def __init__(self, arrays):
            self.arrays = arrays

        def declared(self, name):
            if name not in self.arrays:
                raise ValueError(name)
            return list(self.arrays[name].shape)

        def length(self, name, low, high):
            shape = self.declared(name)
            assert len(shape) == 1 and low <= shape[0] <= high
            return shape[0]

    X, y = tiny_problem(50, 3, seed=10)
    for form, cls in SCHEMES.items():
        for rows in (X, sp.csr_matrix(np.round(X))):
            model = cls(C=1.0).fit(rows, y)
            _, arrays = model._get_state()
            schema = cls._array_schema(model.get_params(), 3, 3, Shapes(arrays))
            assert set(schema) == set(arrays)
            for name, (dtype, shape) in schema.items():
                assert np.asarray(arrays[name]).shape == shape, name
                assert np.asarray(arrays[name]).dtype == dtype, name


@pytest.mark.slow
def test_importing_the_schemes_does_not_load_numba():
    code = ("import sys, multisvm_cli.estimators.cs, multisvm_cli.estimators.ww; "
            "assert 'numba' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_point_cost_and_hooks():
    assert CrammerSingerSVC._shares_gram is False and WestonWatkinsSVC._shares_gram is False
    assert WestonWatkinsSVC._point_cost(1000, 10) == pytest.approx(1.2 * CrammerSingerSVC._point_cost(1000, 10))
    assert CrammerSingerSVC._point_cost(1000, 10) == 9 * 1000.0**2
    assert CrammerSingerSVC._machine_bounds(5) == (5, 5)


@pytest.mark.parametrize("where", ["solver: liblinear\n", "scheme_options: {cs: {solver: liblinear}}\n"])
def test_liblinear_for_an_all_together_scheme_is_refused_by_validate(tmp_path, run_multisvm, where):
    config = tmp_path / "c.yaml"
    config.write_text("dataset: iris\nsplit: {test_fraction: 0.3}\nkernels: [{type: linear}]\n"
                      "C: 1\nschemes: [maxwins, cs]\n" + where)
    run = run_multisvm("validate", config)
    assert run.code == 2 and len(run.err.strip().splitlines()) == 1
    assert "cs trains with its own solver; solver liblinear (on iris) does not apply" in run.err


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_each_formulations_own_bounds_are_the_box_the_docstrings_write(form):
    """The bounds a formulation's module declares (plain Python, which box.py compiles into
    the loops) are, entry by entry, the box as the class docstrings write it."""
    from multisvm_cli.estimators.joint import crammer_singer, weston_watkins

    module = {"cs": crammer_singer, "ww": weston_watkins}[form]
    y, C = np.array([0, 2, 1, 2]), 3.0
    own = np.arange(3)[None, :] == y[:, None]
    lower, upper = box(form, y, 3, C)
    np.testing.assert_array_equal(np.vectorize(module.lower)(own, C), lower)
    np.testing.assert_array_equal(np.vectorize(module.upper)(own, C), upper)


def free_wrong_entries(form, beta_row, yj, C):
    """How many of a row's wrong-class entries lie strictly inside their box."""
    box = FORMULATION_BOXES[form]
    return sum(box.lower(False, C) < beta_row[m] < box.upper(False, C)
               for m in range(len(beta_row)) if m != yj)


def brute_slack(form, beta_row, g_row, yj, C):
    """The least G_n - G_m over the feasible pair directions of one row (n may increase, m may
    decrease, n != m), by every pair."""
    box = FORMULATION_BOXES[form]
    k = len(beta_row)
    up = [n for n in range(k) if beta_row[n] < box.upper(n == yj, C)]
    down = [m for m in range(k) if beta_row[m] > box.lower(m == yj, C)]
    return min((g_row[n] - g_row[m] for n in up for m in down if n != m), default=np.inf)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_shrinking_slack_is_the_least_feasible_pair_gap(form):
    """loops.slack (the shrinking rule's distance from violating) is the least G_n - G_m over
    the row's feasible pair directions, also for a row with one free entry (C&S's bounded
    support vectors: beta_iy = C, one wrong class below 0), which it may set aside; a row with
    two free entries is never set aside (its slack is <= 0)."""
    from multisvm_cli.estimators.joint.decomposition.loops import slack

    kind, C, k = FORMULATIONS[form].kind, 4.0, 5
    rng = np.random.default_rng(7)
    wrong_bound = (0.0, -C) if form == "ww" else (0.0,)
    rows = []
    for yj in range(k):
        for free in (0, 1, 2):
            b = np.array([wrong_bound[rng.integers(len(wrong_bound))] for _ in range(k)])
            b[yj] = 0.0
            for m in rng.choice([m for m in range(k) if m != yj], size=free, replace=False):
                b[m] = -rng.uniform(0.1, C - 0.1)
            b[yj] = -b.sum()  # C&S: at most C when one wrong entry is free, here up to 2C - 0.2
            if form == "cs" and b[yj] > C:
                continue
            rows.append((b, yj))
    rows.append((np.array([C, -C, 0.0, 0.0, 0.0]), 0))  # C&S: own at C, one wrong at -C
    beta = np.array([b for b, _ in rows]).T.copy()
    y = np.array([yj for _, yj in rows], dtype=np.int64)
    G = rng.normal(size=beta.shape)
    G[:, -1] = [0.0, 5.0, -1.0, -1.0, -1.0]  # the last row strictly optimal: slack 5 (C&S), 1 (W&W)
    found = [slack(kind, C, j, y, beta, G) for j in range(len(y))]
    expected = [brute_slack(form, beta[:, j], G[:, j], y[j], C) for j in range(len(y))]
    assert found == pytest.approx(expected)
    two_free = [j for j in range(len(y)) if free_wrong_entries(form, beta[:, j], y[j], C) >= 2]
    assert two_free and all(found[j] <= 0.0 for j in two_free)
    assert found[-1] == (5.0 if form == "cs" else 1.0)  # a support vector's row, set aside
