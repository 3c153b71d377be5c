"""What every scheme shares: clear errors for bad input, the figure API, the joblib backend."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.datasets import load_iris
from sklearn.naive_bayes import GaussianNB

from multisvm_cli.estimators import SCHEMES, MaxWinsSVC, NBClassifier

X, Y = load_iris(return_X_y=True)
ALL = sorted(SCHEMES)


def one_line_error(estimator, X, y, message):
    with pytest.raises(ValueError, match=message) as error:
        estimator.fit(X, y)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("scheme", ALL)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_are_refused(scheme, bad):
    X_bad = X.copy()
    X_bad[3, 1] = bad
    one_line_error(SCHEMES[scheme](), X_bad, Y, "Input X contains")


@pytest.mark.parametrize("scheme", ALL)
def test_one_class_is_refused(scheme):
    one_line_error(SCHEMES[scheme](), X[:50], Y[:50], "needs at least two classes; y has only one class")


@pytest.mark.parametrize("scheme", ALL)
def test_feature_count_mismatch_is_refused(scheme):
    model = SCHEMES[scheme]().fit(X, Y)
    for method in (model.predict, model.decision_function, model.kernel_evaluations):
        with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 4 features"):
            method(X[:, :3])


@pytest.mark.parametrize("scheme", ALL)
@pytest.mark.parametrize("params, message", [
    ({"kernel": "rbf"}, "unknown kernel 'rbf'"), ({"sigma": 0.0}, "sigma must be"),
    ({"sigma": -2}, "sigma must be"), ({"C": 0}, "C must be"), ({"degree": 0}, "degree must be"),
    ({"memory_mb": 0}, "memory_mb must be"), ({"n_jobs": 0}, "n_jobs must be"),
])
def test_bad_parameters_are_refused_before_libsvm(scheme, params, message):
    one_line_error(SCHEMES[scheme](**params), X, Y, message)


@pytest.mark.parametrize("scheme", ["ovr", "maxwins", "udt"])
def test_overflowing_kernel_values_are_a_clear_error(scheme):
    # With a shared Gram matrix our check fires first; libsvm's own kernel meets sklearn's.
    one_line_error(SCHEMES[scheme](kernel="polynomial", degree=6), X * 1e30, Y,
                   "kernel values overflow|dual coefficients or intercepts are not finite")


@pytest.mark.parametrize("scheme", ALL)
def test_every_scheme_reports_its_figures(scheme):
    model = SCHEMES[scheme](random_state=0).fit(X[::2], Y[::2])
    assert model.fit_cpu_time_ > 0 and model.fit_wall_time_ > 0
    assert model.n_parameters_ > 0 and model.n_support_vectors_ >= 0
    assert 0 <= model.kernel_evaluations(X[1::2]) <= model.n_support_vectors_
    assert np.mean(model.predict(X[1::2]) == Y[1::2]) > 0.85


def test_naive_bayes_baseline():
    model = NBClassifier().fit(X, Y)
    np.testing.assert_array_equal(model.predict(X), GaussianNB().fit(X, Y).predict(X))
    assert model.kernel_evaluations(X) == 0 and model.n_support_vectors_ == 0
    assert model.n_parameters_ == 2 * 3 * 4 + 3  # means + variances + priors


@pytest.mark.slow
def test_a_surrounding_process_backend_is_used_and_its_cpu_time_counted():
    serial = MaxWinsSVC(sigma=2.0).fit(X, Y)
    with parallel_config(backend="loky", n_jobs=2):
        parallel = MaxWinsSVC(sigma=2.0, n_jobs=2).fit(X, Y)
    np.testing.assert_array_equal(parallel.predict(X), serial.predict(X))
    assert parallel.fit_cpu_time_ > 0
