"""Max Wins equals LIBSVM's own one-vs-one (sklearn SVC), and its figures are counted right."""

import h5py
import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.svm import SVC

from multisvm_cli.estimators import MaxWinsSVC
from helpers import standardized


# Hand-made linear models use kernel="polynomial", degree=1, homogeneous=True: (x . y)^1, the linear
# kernel kept as support vectors (kernel="linear" predicts through primal weights: test_liblinear.py).


@pytest.mark.parametrize("loader, sigma, C", [(load_iris, 1.0, 10.0), (load_wine, 2.0, 1.0),
                                              (load_digits, 4.0, 10.0)])
def test_predictions_equal_libsvm_one_vs_one(loader, sigma, C):
    X, y = standardized(loader)
    reference = SVC(C=C, gamma=1 / (2 * sigma**2), decision_function_shape="ovo").fit(X, y)
    model = MaxWinsSVC(C=C, sigma=sigma).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    # Max Wins evaluates every unique SV once per test point: libsvm's own SV count.
    assert model.n_support_vectors_ == len(reference.support_)
    assert model.kernel_evaluations(X) == len(reference.support_)
    np.testing.assert_array_equal(np.argmax(model.decision_function(X), axis=1),
                                  np.searchsorted(model.classes_, model.predict(X)))


def test_usps_subset_equals_libsvm(mirror):
    with h5py.File(mirror / "usps" / "usps.h5", "r") as usps:
        X_train, y_train = usps["train/data"][:2000].astype(float), usps["train/target"][:2000]
        X_test, y_test = usps["test/data"][:500].astype(float), usps["test/target"][:500]
    gamma = 0.03
    sigma = np.sqrt(1 / (2 * gamma))
    reference = SVC(C=100, gamma=gamma).fit(X_train, y_train)
    model = MaxWinsSVC(C=100, sigma=sigma, n_jobs=2).fit(X_train, y_train)
    predictions = model.predict(X_test)
    np.testing.assert_array_equal(predictions, reference.predict(X_test))
    assert model.n_support_vectors_ == len(reference.support_)
    assert np.mean(predictions != y_test) < 0.10  # a real digit classifier, not a constant


def test_threads_and_prediction_chunks_give_the_same_model():
    X, y = standardized(load_wine)
    serial = MaxWinsSVC(C=1.0, sigma=2.0).fit(X, y)
    threaded = MaxWinsSVC(C=1.0, sigma=2.0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(threaded.machines_.coef.toarray(), serial.machines_.coef.toarray())
    expected = serial.decision_function(X)
    serial.set_params(memory_mb=0.0005)  # a few test points per kernel block
    np.testing.assert_array_equal(serial.decision_function(X), expected)


def test_polynomial_kernel_and_string_labels_match_libsvm():
    X, y = standardized(load_iris)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    reference = SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=1.0).fit(X, labels)
    model = MaxWinsSVC(kernel="polynomial", degree=2, homogeneous=False, C=1.0).fit(X, labels)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]


def hand_made_line():
    """Four classes on a line, three points each at 10c-1, 10c, 10c+1, plus a feature that is
    always zero.  With a hard margin, pair (i, j) has exactly two SVs: the largest point of
    class i and the smallest of class j."""
    values = np.array([10.0 * c + offset for c in range(4) for offset in (-1, 0, 1)])
    return np.column_stack([values, np.zeros_like(values)]), np.repeat(np.arange(4), 3)


def test_counts_on_a_hand_made_model():
    X, y = hand_made_line()
    model = MaxWinsSVC(kernel="polynomial", degree=1, homogeneous=True, C=1000.0).fit(X, y)
    # Unique SVs: 1 (class 0), 9 and 11 (class 1), 19 and 21 (class 2), 29 (class 3).
    np.testing.assert_array_equal(np.sort(model.machines_.vectors[:, 0]), [1, 9, 11, 19, 21, 29])
    assert model.n_support_vectors_ == 6
    assert model.kernel_evaluations(X) == 6
    # 6 SVs x 1 non-zero feature + 6 machines x 2 dual coefficients + 6 biases.
    assert model.n_parameters_ == 6 + 12 + 6
    assert model.fit_cpu_time_ > 0 and model.fit_wall_time_ > 0


def test_ties_go_to_the_lowest_class_index_as_in_libsvm():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 2)), rng.integers(0, 6, 300)  # six overlapping classes
    test = rng.normal(size=(2000, 2))
    model = MaxWinsSVC(C=1.0, sigma=0.5).fit(X, y)
    votes = np.round(model.decision_function(test) + np.arange(6) / 6)
    tied = (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) > 1
    assert tied.sum() >= 10  # the rule is exercised
    lowest_tied = np.argmax(votes == votes.max(axis=1, keepdims=True), axis=1)
    np.testing.assert_array_equal(model.predict(test), lowest_tied)
    np.testing.assert_array_equal(model.predict(test), SVC(C=1.0, gamma=2.0).fit(X, y).predict(test))
