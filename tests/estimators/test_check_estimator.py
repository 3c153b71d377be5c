"""Every scheme is a well-behaved scikit-learn classifier (sklearn's own estimator checks)."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from multisvm_cli.estimators import SCHEMES
from multisvm_cli.estimators.hier import HierSVC

NOT_APPLICABLE = {
    "check_array_api_input": "the estimators take NumPy arrays only; they do not declare array-API support",
}

ESTIMATORS = ([cls() for cls in SCHEMES.values()] + [HierSVC(level1="svm")]
              + [cls(kernel="linear", solver="liblinear") for cls in SCHEMES.values()
                 if "liblinear" in cls._solvers])  # the all-together machines have their own


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    name = getattr(check, "func", check).__name__
    if name in NOT_APPLICABLE:
        pytest.skip(NOT_APPLICABLE[name])
    check(estimator)
