"""GraphSVM: naive Bayes confusion decides which classes get SVMs, and the SVMs fix NB's errors."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.naive_bayes import GaussianNB, MultinomialNB

from multisvm_cli.estimators import GraphSVC


def xor_and_far(n, seed):
    """Class 0 in the quadrants where x1 x2 > 0, class 1 where x1 x2 < 0 (the same per-feature
    distribution, so naive Bayes cannot tell them apart), class 2 far away."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.uniform(-1, 1, (n, 2))
    wrong_quadrant = (X[:, 0] * X[:, 1] > 0) != (y == 0)
    X[wrong_quadrant & (y < 2), 1] *= -1
    X[y == 2] += 6
    return X, y


X, Y = xor_and_far(600, 0)
TEST, Y_TEST = xor_and_far(600, 1)


def test_confused_classes_get_an_svm_that_fixes_naive_bayes():
    model = GraphSVC(C=10.0, sigma=0.5, random_state=0).fit(X, Y)
    assert model.confusion_[0, 1] > 0.3 and model.confusion_[1, 0] > 0.3 and model.confusion_[2, 2] == 1
    assert [list(g) for g in model.groups_] == [[0, 1], [0, 1], [2]]
    assert model.machines_.n_machines == 1  # classes 0 and 1 share their single SVM
    nb_accuracy = np.mean(GaussianNB().fit(X, Y).predict(TEST) == Y_TEST)
    assert nb_accuracy < 0.75 and np.mean(model.predict(TEST) == Y_TEST) > 0.97


def test_figures_count_only_the_svms_each_point_invokes():
    model = GraphSVC(C=10.0, sigma=0.5, random_state=0).fit(X, Y)
    nb_says_0_or_1 = np.isin(model.nb_.predict(TEST), [0, 1])
    # Points NB sends to class 2 evaluate no kernel; the others all SVs of the one SVM.
    assert model.kernel_evaluations(TEST) == pytest.approx(nb_says_0_or_1.mean() * model.machines_.n_pool)
    svm_size = np.count_nonzero(model.machines_.vectors) + model.machines_.coef.nnz + 1
    assert model.n_parameters_ == svm_size + (2 * 3 * 2 + 3)  # + Gaussian NB: means, variances, priors


def test_without_confusion_it_is_naive_bayes():
    model = GraphSVC(threshold=0.99, random_state=0).fit(X, Y)
    assert model.machines_.n_machines == 0 and model.kernel_evaluations(TEST) == 0
    np.testing.assert_array_equal(model.predict(TEST), GaussianNB().fit(X, Y).predict(TEST))


def test_multinomial_naive_bayes_on_counts():
    X_counts, y = load_digits(return_X_y=True)  # pixel intensities 0..16
    model = GraphSVC(nb="multinomial", threshold=0.999, random_state=0).fit(X_counts[:600], y[:600])
    np.testing.assert_array_equal(model.predict(X_counts[600:900]),
                                  MultinomialNB().fit(X_counts[:600], y[:600]).predict(X_counts[600:900]))
    refined = GraphSVC(nb="multinomial", C=10.0, sigma=20.0, random_state=0).fit(X_counts[:600], y[:600])
    assert refined.machines_.n_machines > 0
    assert np.mean(refined.predict(X_counts[600:900]) == y[600:900]) > np.mean(model.predict(X_counts[600:900]) == y[600:900])


@pytest.mark.parametrize("params, message", [({"threshold": 1.0}, "threshold must be"), ({"nb": "bernoulli"}, "unknown nb"),
                                             ({"holdout": 0.0}, "holdout must be")])
def test_bad_parameters_are_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        GraphSVC(**params).fit(X, Y)
