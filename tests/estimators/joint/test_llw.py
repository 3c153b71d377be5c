"""Lee, Lin & Wahba's machine (llw): its dual solved by our own solver, checked against a general
bounded QP solver (scipy's L-BFGS-B), its KKT conditions, strong duality and its predictions.
(Saving, loading, the command line and scikit-learn's checks run for every registered scheme in
tests/estimators/test_contract.py.)"""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MinMaxScaler

from multisvm_cli import data
from multisvm_cli.estimators import registry
from multisvm_cli.estimators._binary import TrainSettings
from multisvm_cli.estimators.joint.decomposition.absolute import solve_absolute
from multisvm_cli.estimators.joint.formulations import FORMULATIONS
from multisvm_cli.estimators.joint.lee_lin_wahba import alpha_of, centred
from multisvm_cli.estimators.kernels import Kernel
from multisvm_cli.estimators.llw import LeeLinWahbaSVC

SHIFT = FORMULATIONS["llw"].shift


def scaled(X):
    return MinMaxScaler((-1, 1)).fit_transform(X)


def random_problem(n_rows, n_classes, seed):
    rng = np.random.default_rng(seed)
    y = np.arange(n_rows) % n_classes
    return rng.normal(size=(n_rows, 3)) + y[:, None] * np.array([1.0, -0.5, 0.3]), y


def subset(X, y, classes, per_class):
    """The first ``per_class`` rows of each of ``classes``, scaled, labels 0..len(classes)-1."""
    rows = np.concatenate([np.flatnonzero(y == c)[:per_class] for c in classes])
    return scaled(X[rows]), np.searchsorted(classes, y[rows])


def glass():
    parts = data.load("glass").parts.values()
    X, y = np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return subset(X, y, np.unique(y)[:4], 10)


PROBLEMS = {
    "random-20x3": lambda: random_problem(20, 3, 0),
    "random-30x4": lambda: random_problem(30, 4, 1),
    "iris-30x3": lambda: subset(load_iris().data, load_iris().target, np.arange(3), 10),
    "wine-36x3": lambda: subset(load_wine().data, load_wine().target, np.arange(3), 12),
    "glass-40x4": glass,
}
KERNELS = {"gaussian": Kernel.from_params("gaussian", gamma=0.5),
           "polynomial": Kernel.from_params("polynomial", degree=2),
           "linear": Kernel.from_params("linear")}


def settings(kernel, C, tol):
    return TrainSettings(kernel, C, tol, 200.0, 2048.0, max_iter="libsvm")


def dual(alpha, Q):
    """D(alpha) = 1/2 sum_ij Q_ij alpha_i' P alpha_j - sum alpha and its gradient (l, k)."""
    k = alpha.shape[1]
    gradient = (Q @ alpha) @ (np.eye(k) - 1.0 / k) - 1.0
    return 0.5 * np.sum(alpha * (gradient + 1.0)) - alpha.sum(), gradient


def scipy_dual_minimum(Q, y, n_classes, C):
    """The dual's minimum by L-BFGS-B over the box, alpha_{i y_i} fixed at 0."""
    wrong = np.arange(n_classes)[None, :] != y[:, None]

    def objective(values):
        alpha = np.zeros(wrong.shape)
        alpha[wrong] = values
        value, gradient = dual(alpha, Q)
        return value, gradient[wrong]

    found = minimize(objective, np.zeros(wrong.sum()), jac=True, method="L-BFGS-B",
                     bounds=[(0.0, C)] * int(wrong.sum()),
                     options={"ftol": 1e-16, "gtol": 1e-12, "maxiter": 100000, "maxcor": 50})
    return found.fun


def primal(beta, K, y, C):
    """1/2 sum_m (||w_m||^2 + b_m^2) + C sum_i sum_{m != y_i} [1 + f_m(x_i)]_+, from the
    scores' coefficients beta (w_m = sum_i beta_im phi(x_i), b_m = sum_i beta_im)."""
    scores = (K + SHIFT) @ beta
    hinge = np.maximum(0.0, 1.0 + scores)
    hinge[np.arange(len(y)), y] = 0.0
    return 0.5 * np.sum(beta * ((K + SHIFT) @ beta)) + C * hinge.sum()


@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("C", [0.5, 10.0])
def test_llw_dual_matches_a_general_qp_solver_and_meets_the_kkt_conditions(problem, kernel, C):
    X, y = PROBLEMS[problem]()
    n_classes, tol = int(y.max()) + 1, 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        solution = solve_absolute(X, y, n_classes, "llw", settings(KERNELS[kernel], C, tol))
    K = KERNELS[kernel].gram(X)
    alpha = alpha_of(solution.beta, y)
    value, gradient = dual(alpha, K + SHIFT)
    reference = scipy_dual_minimum(K + SHIFT, y, n_classes, C)
    assert abs(value - reference) <= 1e-6 * max(1.0, abs(reference))
    assert value <= reference + 1e-9 * max(1.0, abs(reference))  # never above the QP solver's
    # the box, alpha_{i y_i} = 0, the rows of beta summing to 0
    assert np.all(alpha >= 0.0) and np.all(alpha <= C)
    assert np.all(alpha[np.arange(len(y)), y] == 0.0)
    np.testing.assert_allclose(solution.beta.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(centred(alpha), solution.beta, atol=1e-12)
    # KKT: each entry's projected gradient is within tol
    wrong = np.arange(n_classes)[None, :] != y[:, None]
    projected = np.where(alpha <= 0.0, np.minimum(gradient, 0.0),
                         np.where(alpha >= C, np.maximum(gradient, 0.0), gradient))
    assert np.abs(projected[wrong]).max() <= 10 * tol
    # strong duality: the primal at w(alpha) is minus the dual's minimum
    assert primal(solution.beta, K, y, C) == pytest.approx(-value, rel=1e-7, abs=1e-7)


def test_llw_row_subproblem_is_solved_exactly():
    """The one-example sub-problem (min 1/2 A x'Px + h'x over the box, x_y = 0), against
    L-BFGS-B, from random rows and gradients that put entries at 0, at C and in between."""
    from multisvm_cli.estimators.joint.decomposition.absolute_loops import solve_row

    rng = np.random.default_rng(3)
    for k, C in [(3, 1.0), (4, 2.0), (7, 0.5), (10, 5.0)]:
        P = np.eye(k) - 1.0 / k
        for _ in range(20):
            y, A = int(rng.integers(k)), float(rng.uniform(0.2, 3.0))
            a = rng.uniform(0.0, C, k) * (rng.random(k) < 0.7)
            a[y] = 0.0
            g = rng.normal(scale=3.0, size=k)
            new = np.empty(k)
            solve_row(A, g, a, y, C, new, np.empty(k), np.empty(2 * k))
            h = g - A * P @ a
            free = np.arange(k) != y

            def objective(v):
                x = np.zeros(k)
                x[free] = v
                return 0.5 * A * x @ P @ x + h @ x, (A * P @ x + h)[free]

            found = minimize(objective, np.full(k - 1, C / 2), jac=True, method="L-BFGS-B",
                             bounds=[(0.0, C)] * (k - 1), options={"ftol": 1e-16, "gtol": 1e-12})
            assert new[y] == 0.0 and np.all((new >= 0.0) & (new <= C))
            assert objective(new[free])[0] <= found.fun + 1e-10
            np.testing.assert_allclose(new[free], found.x, atol=1e-5)


def test_llw_without_shrinking_reaches_the_same_optimum_as_with_it():
    X, y = random_problem(120, 4, 5)
    kernel, C = KERNELS["gaussian"], 5.0
    shrunk = solve_absolute(X, y, 4, "llw", settings(kernel, C, 1e-8))
    plain = solve_absolute(X, y, 4, "llw", settings(kernel, C, 1e-8), shrinking=False)
    Q = kernel.gram(X) + SHIFT
    assert dual(alpha_of(shrunk.beta, y), Q)[0] == pytest.approx(
        dual(alpha_of(plain.beta, y), Q)[0], rel=1e-9)


def test_llw_kernel_cache_smaller_than_the_gram_matrix_gives_the_same_machine():
    X, y = random_problem(200, 3, 7)
    kernel = KERNELS["gaussian"]
    full = solve_absolute(X, y, 3, "llw", settings(kernel, 2.0, 1e-6))
    small = TrainSettings(kernel, 2.0, 1e-6, 0.05, 2048.0, max_iter="libsvm")  # ~30 rows cached
    cached = solve_absolute(X, y, 3, "llw", small)
    np.testing.assert_allclose(cached.beta, full.beta, atol=1e-5)


def test_llw_predicts_iris_well_and_its_scores_sum_to_zero():
    iris = load_iris()
    X, y = scaled(iris.data), iris.target
    train = np.arange(len(y)) % 3 != 0  # 100 rows to train, 50 to test
    model = LeeLinWahbaSVC(C=16.0, gamma=1.0).fit(X[train], y[train])
    assert np.mean(model.predict(X[~train]) != y[~train]) <= 0.06  # measured: 0 (W&W: 0)
    scores = model.decision_function(X[~train])
    np.testing.assert_allclose(scores.sum(axis=1), 0.0, atol=1e-9)  # sum_m f_m = 0, bias too
    np.testing.assert_array_equal(model.predict(X[~train]), scores.argmax(axis=1))
    assert model.n_parameters_ > model.n_support_vectors_ > 0


def test_llw_is_registered_with_its_names():
    assert registry.scheme_name("LLW") == "llw" == registry.scheme_name("lee-lin-wahba")
    assert registry.estimator("llw") is LeeLinWahbaSVC
    assert LeeLinWahbaSVC._point_cost(1000, 10) > 0
