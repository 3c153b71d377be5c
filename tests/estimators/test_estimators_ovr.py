"""One-vs-rest equals sklearn's OneVsRestClassifier(SVC) and counts its figures right."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from multisvm_cli.estimators import OneVsRestSVC
from helpers import standardized


# Hand-made linear models use kernel="polynomial", degree=1, homogeneous=True: (x . y)^1, the linear
# kernel kept as support vectors (kernel="linear" predicts through primal weights: test_liblinear.py).


@pytest.mark.parametrize("loader, sigma, C, n", [(load_iris, 1.0, 10.0, None), (load_wine, 2.0, 1.0, None),
                                                 (load_digits, 4.0, 10.0, 600)])
def test_decision_values_match_one_vs_rest_classifier(loader, sigma, C, n):
    X, y = standardized(loader, n)
    # The Gram matrix is precomputed with BLAS, so kernel values differ from libsvm's in the last
    # bits and SMO stops at a different point within its tolerance: solve both tightly.
    reference = OneVsRestClassifier(SVC(C=C, gamma=1 / (2 * sigma**2), tol=1e-8)).fit(X, y)
    model = OneVsRestSVC(C=C, sigma=sigma, tol=1e-8, n_jobs=2).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), reference.decision_function(X), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    unique_svs = np.unique(np.concatenate([e.support_ for e in reference.estimators_]))
    assert model.n_support_vectors_ == len(unique_svs)
    assert model.kernel_evaluations(X) == len(unique_svs)


def test_native_kernel_path_is_libsvm_exactly():
    X, y = standardized(load_wine)
    reference = OneVsRestClassifier(SVC(C=1.0, gamma=1 / 8)).fit(X, y)
    model = OneVsRestSVC(C=1.0, sigma=2.0, memory_mb=0.001).fit(X, y)  # Gram never fits
    np.testing.assert_allclose(model.decision_function(X), reference.decision_function(X), rtol=0, atol=1e-10)


def test_prediction_chunks_do_not_change_results():
    X, y = standardized(load_iris)
    model = OneVsRestSVC(C=10.0).fit(X, y)
    whole = model.decision_function(X)
    model.set_params(memory_mb=0.0005)  # a few rows per chunk
    np.testing.assert_allclose(model.decision_function(X), whole, rtol=1e-12, atol=1e-12)


def test_two_classes_by_hand():
    X = np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [9.0, 0.0], [10.0, 0.0], [11.0, 0.0]])
    y = np.array(["a", "a", "a", "b", "b", "b"])
    model = OneVsRestSVC(kernel="polynomial", degree=1, homogeneous=True, C=1000.0).fit(X, y)
    # One machine; hard margin: SVs 1 and 9, w = 2 / 8, boundary at 5.
    np.testing.assert_array_equal(np.sort(model.machines_.vectors[:, 0]), [1.0, 9.0])
    assert model.n_parameters_ == 2 + 2 + 1  # SV non-zeros + dual coefficients + bias
    np.testing.assert_allclose(model.decision_function(np.array([[5.0, 0.0], [13.0, 0.0]])), [0.0, 2.0], atol=1e-6)
    np.testing.assert_array_equal(model.predict(np.array([[4.0, 0.0], [6.0, 0.0]])), ["a", "b"])
