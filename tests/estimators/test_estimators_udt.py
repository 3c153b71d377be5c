"""The Unbalanced Decision Tree: node selection by held-out accuracy, early exit, its figures."""

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from multisvm_cli.estimators import UDTSVC


# Hand-made linear models use kernel="polynomial", degree=1, homogeneous=True: (x . y)^1, the linear
# kernel kept as support vectors (kernel="linear" predicts through primal weights: test_liblinear.py).


def three_on_a_line():
    """Classes 0, 1, 2 at 10c + [-2, 2] (ten points each).  Linear one-vs-rest SVMs separate
    class 0 (and 2) from the rest perfectly, never the middle class 1."""
    values = np.concatenate([10.0 * c + np.linspace(-2, 2, 10) for c in range(3)])
    return values[:, None], np.repeat(np.arange(3), 10)


def test_nodes_are_chosen_by_held_out_accuracy_and_exit_early():
    X, y = three_on_a_line()
    # C above every alpha: hard margin
    model = UDTSVC(kernel="polynomial", degree=1, homogeneous=True, C=1.0, random_state=0).fit(X, y)
    # Level 0: classes 0 and 2 are both perfect; the tie goes to 0.  Level 1: {1, 2}, one SVM
    # claiming class 2.  Class 1 is what no node claims.
    np.testing.assert_array_equal(model.level_order_, [0, 2, 1])
    # Node 0 (0 vs 1,2) has SVs 2 and 8; node 1 (2 vs 1) has SVs 12 and 18.
    np.testing.assert_array_equal(np.sort(model.machines_.vectors[:, 0]), [2, 8, 12, 18])
    points = np.array([[-1.0], [10.0], [19.0]])
    np.testing.assert_array_equal(model.predict(points), [0, 1, 2])
    # -1 exits at node 0 (2 SVs); 10 and 19 evaluate both nodes (4 SVs).
    assert model.kernel_evaluations(points) == pytest.approx((2 + 4 + 4) / 3)
    assert model.kernel_evaluations(points[:1]) == 2
    # Scores: position in node order, capped at the exit position; the prediction scores N.
    np.testing.assert_array_equal(model.decision_function(points), [[3, 0, 0], [0, 3, 1], [0, 1, 3]])
    assert model.n_parameters_ == 4 + 4 + 2


def plain_udt_loop(model, X, y, test):
    """Reference: retrain every node with sklearn's SVC on the remaining classes' examples and
    walk each test point down the chain one by one."""
    gamma = 1 / (2 * model.sigma**2)
    nodes, remaining = [], list(model.level_order_)
    for claimed in model.level_order_[:-1]:
        rows = np.isin(y, remaining)
        nodes.append(SVC(C=model.C, gamma=gamma).fit(X[rows], y[rows] == claimed))
        remaining.remove(claimed)
    predictions = []
    for point in test:
        for claimed, node in zip(model.level_order_, nodes):
            if node.decision_function(point[None, :])[0] > 0:
                predictions.append(claimed)
                break
        else:
            predictions.append(model.level_order_[-1])
    return np.array(predictions)


def test_grouped_prediction_equals_a_per_point_loop_over_libsvm_nodes():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    model = UDTSVC(C=1.0, sigma=1.5, random_state=3, memory_mb=0.01).fit(X[::2], y[::2])
    np.testing.assert_array_equal(model.predict(X[1::2]), plain_udt_loop(model, X[::2], y[::2], X[1::2]))
    assert np.mean(model.predict(X[1::2]) == y[1::2]) > 0.9


def test_the_held_out_split_is_seeded():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 4)), rng.integers(0, 5, 200)
    X[:, 0] += y
    first = UDTSVC(random_state=7).fit(X, y)
    again = UDTSVC(random_state=7).fit(X, y)
    np.testing.assert_array_equal(first.level_order_, again.level_order_)
    np.testing.assert_array_equal(first.predict(X), again.predict(X))


@pytest.mark.parametrize("holdout", [0, 1, 1.5, -0.1, "a"])
def test_bad_holdout_is_a_clear_error(holdout):
    X, y = three_on_a_line()
    with pytest.raises(ValueError, match="holdout must be a number in"):
        UDTSVC(holdout=holdout).fit(X, y)
