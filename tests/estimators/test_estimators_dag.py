"""The DAGSVM list algorithm, by hand and against a plain per-point loop over libsvm's outputs."""

import numpy as np
import pytest
from sklearn.svm import SVC

from multisvm_cli.estimators import DAGSVC, MaxWinsSVC


# Hand-made linear models use kernel="polynomial", degree=1, homogeneous=True: (x . y)^1, the linear
# kernel kept as support vectors (kernel="linear" predicts through primal weights: test_liblinear.py).


def hand_made_line():
    """Four classes on a line (three points each at 10c-1, 10c, 10c+1).  With a hard margin,
    pair (i, j) separates at the midpoint of class i's largest and class j's smallest point,
    and those two points are its only support vectors."""
    values = np.array([10.0 * c + offset for c in range(4) for offset in (-1, 0, 1)])
    return values[:, None], np.repeat(np.arange(4), 3)


@pytest.fixture(scope="module")
def line_maxwins():
    X, y = hand_made_line()
    return MaxWinsSVC(kernel="polynomial", degree=1, homogeneous=True, C=1000.0).fit(X, y)


@pytest.mark.parametrize("order, point, dropped, kernel_evaluations", [
    # list 0123: (0,3) split at 15 -> 0 wins; 012: (0,2) split at 10 -> 2; 12: (1,2) at 15 -> 1
    (None, 12.0, [3, 0, 2], 4),     # SVs {1,29} {1,19} {11,19}
    # list 0123: (0,3) -> 3 wins; 123: (1,3) split at 20 -> 1; 12: (1,2) -> 2
    (None, 16.0, [0, 3, 1], 4),     # SVs {1,29} {11,29} {11,19}
    # list 1032: (1,2) -> 2 wins; 032: (0,2) split at 10 -> 2; 32: (2,3) split at 25 -> 2
    ([1, 0, 3, 2], 16.0, [1, 0, 3], 5),  # SVs {11,19} {1,19} {21,29}
])
def test_list_algorithm_on_a_hand_made_example(line_maxwins, order, point, dropped, kernel_evaluations):
    dag = DAGSVC.from_maxwins(line_maxwins, order=order)
    X = np.array([[point]])
    winner = ({0, 1, 2, 3} - set(dropped)).pop()
    assert dag.predict(X)[0] == winner
    # Score of a class = the step at which it was dropped; the winner scores N - 1.
    expected_scores = np.empty(4)
    expected_scores[dropped] = [0, 1, 2]
    expected_scores[winner] = 3
    np.testing.assert_array_equal(dag.decision_function(X)[0], expected_scores)
    assert dag.kernel_evaluations(X) == kernel_evaluations


def test_kernel_evaluations_average_over_points(line_maxwins):
    dag = DAGSVC.from_maxwins(line_maxwins, order=[0, 3, 1, 2])
    # 0: (0,2) -> 0; 031: (0,1) split at 5 -> 0; 03: (0,3) -> 0.   SVs {1,19} {1,9} {1,29}: 4
    # 7: (0,2) -> 0; 031: (0,1) -> 1;          31: (1,3) -> 1.   SVs {1,19} {1,9} {11,29}: 5
    X = np.array([[0.0], [7.0], [7.0]])
    np.testing.assert_array_equal(dag.predict(X), [0, 1, 1])
    assert dag.kernel_evaluations(X) == pytest.approx((4 + 5 + 5) / 3)


def plain_dag_loop(ovo_values, order, n_classes):
    """Reference: the list algorithm point by point on libsvm's one-vs-one outputs
    (sklearn SVC 'ovo' decision values: > 0 votes for the lower class of the pair)."""
    pair = {p: k for k, p in enumerate((i, j) for i in range(n_classes) for j in range(i + 1, n_classes))}
    winners, paths = [], []
    for values in ovo_values:
        remaining, path = list(order), []
        while len(remaining) > 1:
            i, j = sorted((remaining[0], remaining[-1]))
            path.append((i, j))
            loser = j if values[pair[i, j]] > 0 else i
            remaining.remove(loser)
        winners.append(remaining[0])
        paths.append(path)
    return np.array(winners), paths


def libsvm_pair_supports(svc, n_classes):
    """The support-vector indices (into svc.support_) that pair (i, j) uses, from libsvm's
    coefficient layout: SV s of class i has its pair-(i, j) coefficient in row j - 1 if i < j."""
    starts = np.concatenate([[0], np.cumsum(svc.n_support_)])
    supports = {}
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            of_i = np.arange(starts[i], starts[i + 1])
            of_j = np.arange(starts[j], starts[j + 1])
            supports[i, j] = set(of_i[svc.dual_coef_[j - 1, of_i] != 0]) | set(of_j[svc.dual_coef_[i, of_j] != 0])
    return supports


@pytest.mark.parametrize("order", [None, [4, 1, 0, 3, 2]])
def test_grouped_prediction_equals_a_per_point_loop(order):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(250, 3)), rng.integers(0, 5, 250)
    X[:, 0] += y  # partly separable, five classes
    test = rng.normal(size=(400, 3)) + np.column_stack([rng.integers(0, 5, 400), np.zeros((400, 2))])
    svc = SVC(C=3.0, gamma=0.5, decision_function_shape="ovo").fit(X, y)
    winners, paths = plain_dag_loop(svc.decision_function(test), order or range(5), 5)
    dag = DAGSVC(C=3.0, sigma=1.0, order=order, memory_mb=0.01).fit(X, y)
    np.testing.assert_array_equal(dag.predict(test), winners)
    supports = libsvm_pair_supports(svc, 5)
    per_point = [len(set().union(*(supports[p] for p in path))) for path in paths]
    assert dag.kernel_evaluations(test) == pytest.approx(np.mean(per_point))
    assert dag.kernel_evaluations(test) < MaxWinsSVC(C=3.0, sigma=1.0).fit(X, y).kernel_evaluations(test)


def test_predictions_match_libsvm_where_most_kernel_values_underflow():
    # sigma 0.1 (gamma 50): a test point's exponents against most support vectors are below
    # exp's underflow, where our blocks hold exp(EXP_FLOOR) and libsvm 0 or a subnormal.
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 4, 200)
    X[:, 0] += 2 * y
    test = rng.normal(size=(300, 3)) * 2 + np.column_stack([2 * rng.integers(0, 4, 300), np.zeros((300, 2))])
    svc = SVC(C=10.0, gamma=50.0, decision_function_shape="ovo").fit(X, y)
    maxwins = MaxWinsSVC(C=10.0, sigma=0.1).fit(X, y)
    dag = DAGSVC.from_maxwins(maxwins)
    winners, _ = plain_dag_loop(svc.decision_function(test), range(4), 4)
    far = -50.0 * ((test[:, None, :] - X[None, svc.support_, :]) ** 2).sum(-1) < -708
    assert far.mean() > 0.5
    np.testing.assert_array_equal(maxwins.predict(test), svc.predict(test))
    np.testing.assert_array_equal(dag.predict(test), winners)


def test_from_maxwins_shares_machines_and_fit_times():
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(120, 2)), rng.integers(0, 3, 120)
    maxwins = MaxWinsSVC(C=2.0, sigma=0.8).fit(X, y)
    shared = DAGSVC.from_maxwins(maxwins)
    fitted = DAGSVC(C=2.0, sigma=0.8).fit(X, y)
    assert shared.machines_ is maxwins.machines_
    assert shared.fit_cpu_time_ == maxwins.fit_cpu_time_ and shared.n_parameters_ == maxwins.n_parameters_
    np.testing.assert_array_equal(shared.predict(X), fitted.predict(X))
    assert shared.get_params()["sigma"] == 0.8


@pytest.mark.parametrize("order", [[0, 1], [0, 1, 1], [0, 1, 5], "012"])
def test_bad_order_is_a_clear_error(order):
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(30, 2)), np.arange(30) % 3
    with pytest.raises(ValueError, match="order must list every class exactly once"):
        DAGSVC(order=order).fit(X, y)


def test_with_order_walks_the_same_machines_in_another_order():
    from sklearn.datasets import load_iris

    from multisvm_cli.estimators import DAGSVC, MaxWinsSVC

    X, y = load_iris(return_X_y=True)
    machines = MaxWinsSVC(sigma=1.0, C=10.0).fit(X, y)
    natural = DAGSVC.from_maxwins(machines)
    other = natural.with_order([2, 0, 1])
    assert other.machines_ is natural.machines_ and list(other.order_) == [2, 0, 1]
    assert list(natural.order_) == [0, 1, 2] and natural.order is None  # left as it was
    expected = DAGSVC.from_maxwins(machines, order=[2, 0, 1])
    assert np.array_equal(other.predict(X), expected.predict(X))
    assert other.kernel_evaluations(X) == expected.kernel_evaluations(X)
    assert other.n_parameters_ == natural.n_parameters_
    with pytest.raises(ValueError, match="order must list every class exactly once"):
        natural.with_order([0, 1, 1])
