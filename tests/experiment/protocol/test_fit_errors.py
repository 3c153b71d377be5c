"""A fit's errors are told apart by their type: a non-finite solution names its grid point,
any other error (whatever its words) goes on unchanged."""

import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

from multisvm_cli.estimators import registry
from multisvm_cli.estimators._binary import TrainSettings
from multisvm_cli.estimators._solvers import libsvm_fit
from multisvm_cli.estimators.errors import NonFiniteSolution
from multisvm_cli.estimators.kernels import Kernel
from multisvm_cli.experiment.protocol.fitting import NonFiniteFit, fit_group

POINT = {"kernel": "gaussian", "sigma": 1.0, "C": 2.0}


def failing_with(monkeypatch, error):
    def fit(self, X, y, **kwargs):
        raise error

    monkeypatch.setattr(registry.estimator("ovr"), "fit", fit)


def test_a_non_finite_solution_names_its_grid_point(monkeypatch):
    X, y = load_iris(return_X_y=True)
    failing_with(monkeypatch, NonFiniteSolution("anything at all"))
    with pytest.raises(NonFiniteFit, match=r"^ovr, kernel=gaussian sigma=1.0, C=2: libsvm's dual"):
        fit_group(("ovr",), POINT, {}, X, y, 1, 0)


def test_a_value_error_that_only_says_not_finite_goes_on_unchanged(monkeypatch):
    X, y = load_iris(return_X_y=True)
    failing_with(monkeypatch, ValueError("the input is not finite"))
    with pytest.raises(ValueError, match="^the input is not finite$") as raised:
        fit_group(("ovr",), POINT, {}, X, y, 1, 0)
    assert type(raised.value) is ValueError


@pytest.mark.parametrize("sparse", [False, True])  # the direct libsvm call, and SVC's
def test_libsvm_raises_a_non_finite_solution_by_type(sparse):
    X, y = load_iris(return_X_y=True)
    X = X[:100] * 1e30  # a degree-6 polynomial kernel overflows
    settings = TrainSettings(Kernel.from_params("polynomial", degree=6), 1.0, 1e-3, 200.0,
                             2048.0)
    rows = sp.csr_matrix(X) if sparse else X
    with pytest.raises(NonFiniteSolution, match="not finite"):
        libsvm_fit(rows, y[:100] == 1, settings, {"kernel": "poly", "degree": 6, "gamma": 1.0,
                                                  "coef0": 1.0})
