"""The all-together machines with the linear kernel, solved in the primal weights
(joint/linear.py): liblinear's optimum and predictions on dna and on newsgroups tf-idf, the
kernel dual's optimum, dense and sparse alike, determinism, the step bound, the figures."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from multisvm_cli import data
from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.joint.linear import solve_primal
from multisvm_cli.estimators.joint.decomposition.solver import solve_dual
from multisvm_cli.estimators.kernels import Kernel
from multisvm_cli.estimators.ww import WestonWatkinsSVC
from .test_all_together import (crammer_singer_primal, dual_objective, dual_terms, kkt_violations,
                                settings, tiny_problem)

SCHEMES = {"cs": CrammerSingerSVC, "ww": WestonWatkinsSVC}
LINEAR = Kernel.from_params("linear")
GROUPS = ("alt.atheism", "comp.graphics", "rec.autos", "sci.med", "talk.politics.guns")


@pytest.fixture(scope="module")
def dna(mirror, shared_home):
    """dna's 2,000 training rows (180 binary features, CSR) and class indices."""
    X, labels = data.load("dna", mirror=mirror, data_home=shared_home).parts["train"]
    return X, np.unique(labels, return_inverse=True)[1]


@pytest.fixture(scope="module")
def news(mirror, shared_home):
    """150 training documents of each of five newsgroups as tf-idf CSR rows, and their classes."""
    docs, labels = data.load("20newsgroups", mirror=mirror, data_home=shared_home).parts["train"]
    rows = np.concatenate([np.flatnonzero(labels == g)[:150] for g in GROUPS])
    X = fit_transform_parts(TextFeatures(), docs[rows], docs[rows[:1]]).matrices[0]
    return X, np.unique(labels[rows], return_inverse=True)[1]


def liblinear_reference(X, y, C):
    return LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-7,
                     max_iter=100_000, random_state=0).fit(X, y)


@pytest.mark.parametrize("name, C", [("dna", 0.1), ("dna", 1.0), ("news", 1.0), ("news", 10.0)])
def test_crammer_singer_reaches_liblinears_objective_and_predictions(name, C, request):
    X, y = request.getfixturevalue(name)
    ours = CrammerSingerSVC(C=C, kernel="linear").fit(X, y)  # the default tol, 1e-3
    reference = liblinear_reference(X, y, C)
    weights = ours.machines_.weights
    weights = weights.toarray() if sp.issparse(weights) else weights
    mine = crammer_singer_primal(np.asarray(weights), X, y, C)
    theirs = crammer_singer_primal(reference.coef_, X, y, C)
    assert abs(mine - theirs) <= 1e-3 * theirs
    assert np.mean(ours.predict(X) == reference.predict(X)) >= 0.995
    assert ours.primal_ and ours.smo_iterations_ > X.shape[0]


@pytest.mark.parametrize("form", ["cs", "ww"])
@pytest.mark.parametrize("n_rows, n_classes, C", [(40, 3, 0.5), (120, 4, 5.0), (300, 5, 20.0)])
def test_the_primal_path_reaches_the_kernel_duals_optimum(form, n_rows, n_classes, C):
    """Both paths solve the same dual: the same objective.  The primal path's stopping rule
    (liblinear's) bounds each row's violation when the last pass visited it; rows visited
    earlier in that pass may since have moved a little past tol, not much."""
    X, y = tiny_problem(n_rows, n_classes, seed=n_rows)
    Q, E = dual_terms(form, X, y, LINEAR, n_classes)
    primal = solve_primal(X, y, n_classes, form, settings(LINEAR, C, 1e-6), seed=0)
    kernel = solve_dual(X, y, n_classes, form, settings(LINEAR, C, 1e-6))
    assert primal.converged and primal.n_iter > n_rows
    assert np.abs(primal.beta.sum(axis=1)).max() < 1e-12
    assert kkt_violations(form, primal.beta, Q, E, y, C).max() <= 2e-6
    assert dual_objective(primal.beta, Q, E) == \
        pytest.approx(dual_objective(kernel.beta, Q, E), rel=1e-7)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_dense_and_sparse_give_the_same_machine(form):
    """Both read as CSR rows: the same steps, the same dual variables to the bit (the
    prediction weights, built from the pool as dense or sparse rows, round alike)."""
    X, y = tiny_problem(200, 4, seed=21)
    X[np.abs(X) < 0.8] = 0.0
    solved = [solve_primal(rows, y, 4, form, settings(LINEAR, 2.0, 1e-4), 3)
              for rows in (X, sp.csr_matrix(X))]
    np.testing.assert_array_equal(solved[0].beta, solved[1].beta)
    assert solved[0].n_iter == solved[1].n_iter
    dense = SCHEMES[form](C=2.0, kernel="linear", tol=1e-4, random_state=3).fit(X, y)
    sparse = SCHEMES[form](C=2.0, kernel="linear", tol=1e-4, random_state=3).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)),
                               dense.decision_function(X), atol=1e-12)
    assert sparse.smo_iterations_ == dense.smo_iterations_ == solved[0].n_iter
    assert sparse.n_support_vectors_ == dense.n_support_vectors_


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_the_row_order_is_seeded_by_random_state(form):
    """The same seed, the same fit; another seed, another path to the same optimum."""
    X, y = tiny_problem(300, 4, seed=22)
    Q, E = dual_terms(form, X, y, LINEAR, 4)
    fits = {seed: solve_primal(X, y, 4, form, settings(LINEAR, 1.0, 1e-6), seed) for seed in (0, 1)}
    again = solve_primal(X, y, 4, form, settings(LINEAR, 1.0, 1e-6), 0)
    np.testing.assert_array_equal(again.beta, fits[0].beta)
    assert again.n_iter == fits[0].n_iter != fits[1].n_iter
    assert dual_objective(fits[1].beta, Q, E) == pytest.approx(dual_objective(fits[0].beta, Q, E),
                                                              rel=1e-7)
    model = SCHEMES[form](C=1.0, kernel="linear", random_state=np.random.RandomState(5)).fit(X, y)
    assert model.smo_iterations_ > 0


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_shrinking_reaches_the_same_optimum(form):
    X, y = tiny_problem(400, 5, seed=23)
    Q, E = dual_terms(form, X, y, LINEAR, 5)
    fits = [solve_primal(X, y, 5, form, settings(LINEAR, 10.0, 1e-5), 0, shrinking)
            for shrinking in (True, False)]
    for fit in fits:
        assert fit.converged
        assert kkt_violations(form, fit.beta, Q, E, y, 10.0).max() <= 2e-5
    assert dual_objective(fits[0].beta, Q, E) == pytest.approx(dual_objective(fits[1].beta, Q, E),
                                                              rel=1e-7)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_the_step_bound_warns_and_a_normal_fit_does_not(form):
    X, y = tiny_problem(60, 3, seed=24)
    with pytest.warns(ConvergenceWarning, match="Solver terminated early"):
        model = SCHEMES[form](C=1.0, kernel="linear", max_iter=7).fit(X, y)
    assert model.smo_iterations_ == 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SCHEMES[form](C=1.0, kernel="linear").fit(X, y)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_a_tol_below_rounding_stalls_at_the_optimum(form):
    """No row can move (every violation at most 1e-12) while one is above tol: stalled, warned,
    at the optimum to rounding."""
    from multisvm_cli.estimators.joint.decomposition.state import STALLED

    X, y = tiny_problem(40, 3, seed=27)
    Q, E = dual_terms(form, X, y, LINEAR, 3)
    with pytest.warns(ConvergenceWarning, match="Solver stalled"):
        stalled = solve_primal(X, y, 3, form, settings(LINEAR, 1.0, 1e-300), 0)
    assert stalled.status == STALLED
    assert kkt_violations(form, stalled.beta, Q, E, y, 1.0).max() < 1e-9


def test_an_empty_row_moves_no_weight():
    """A row x = 0 (A = 0 under C&S) is skipped: its dual row stays 0, the rest is the optimum
    of the problem without it."""
    X, y = tiny_problem(60, 3, seed=25)
    X[5] = 0.0
    rest = np.arange(60) != 5
    with_it = solve_primal(X, y, 3, "cs", settings(LINEAR, 1.0, 1e-8), 0)
    without = solve_primal(X[rest], y[rest], 3, "cs", settings(LINEAR, 1.0, 1e-8), 0)
    assert with_it.converged and not with_it.beta[5].any()
    np.testing.assert_allclose(X.T @ with_it.beta, X[rest].T @ without.beta, atol=1e-6)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_linear_figures(form):
    """Memory: the dual variables and the class order (2 l k), the weights ((d + 1) k) and the
    rows as CSR; the pool: the rows of non-zero dual row."""
    X, y = tiny_problem(90, 3, seed=26)
    model = SCHEMES[form](C=1.0, kernel="linear").fit(X, y)
    csr = sp.csr_matrix(X)
    rows = csr.data.nbytes + csr.indices.nbytes + csr.indptr.nbytes
    assert model.max_train_memory_ == 2 * 90 * 3 * 8 + (3 + 1) * 3 * 8 + rows
    assert model.kernel_evaluations(X) == 3
    assert 0 < model.n_support_vectors_ == model.machines_.pool.n_pool <= 90


@pytest.mark.slow
def test_a_fresh_process_compiles_the_primal_path_for_both_schemes(tmp_path):
    """Compiled from nothing (an empty numba cache), with no kernel fit before it: W&W's
    sub-problem allocates, so the code that calls it must keep reference counting."""
    code = ("import numpy as np; from multisvm_cli.estimators.ww import WestonWatkinsSVC; "
            "from multisvm_cli.estimators.cs import CrammerSingerSVC; "
            "X = np.random.default_rng(0).normal(size=(50, 3)); y = np.arange(50) % 3; "
            "print(WestonWatkinsSVC(kernel='linear').fit(X, y).smo_iterations_ > 0, "
            "CrammerSingerSVC(kernel='linear').fit(X, y).smo_iterations_ > 0)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["True", "True"]
