"""Every scheme of the registry keeps the contract of :mod:`contract` (no test names a scheme:
one added to the registry is checked here as it is)."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from . import contract
from multisvm_cli.estimators.registry import REGISTRY

SCHEMES = list(REGISTRY)


@parametrize_with_checks([estimator for scheme in REGISTRY.values()
                          for estimator in contract.sklearn_estimators(scheme)])
def test_sklearn_estimator_checks(estimator, check):
    contract.sklearn_check(estimator, check)


@pytest.mark.parametrize("name", SCHEMES)
def test_table_figures_and_eta_cost_are_defined(name):
    contract.figures(name)


@pytest.mark.parametrize("name", SCHEMES)
def test_saved_model_loads_and_predicts_the_same(name, tmp_path):
    contract.save_load(name, tmp_path / "model")


@pytest.mark.parametrize("name", SCHEMES)
def test_train_and_evaluate_reproduce_the_runs_test_error(name, tmp_path, mirror, data_home,
                                                          run_multisvm):
    contract.cli_round_trip(name, tmp_path, run_multisvm)
