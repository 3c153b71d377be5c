"""A scheme registered from one new file (toy_scheme.py) gets the whole contract with no other
edit: the registry line is the only change (here made for the test's duration)."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from . import contract
from . import toy_scheme
from multisvm_cli.estimators import registry
from multisvm_cli.estimators.maxwins import MaxWinsSVC


@pytest.fixture
def toy(monkeypatch):
    """The toy scheme in the registry, for one test."""
    monkeypatch.setitem(registry.REGISTRY, toy_scheme.SCHEME.name, toy_scheme.SCHEME)
    return toy_scheme.SCHEME.name


def test_toy_scheme_passes_the_contract(toy, tmp_path, mirror, data_home, run_multisvm):
    contract.figures(toy)
    contract.save_load(toy, tmp_path / "model")
    (tmp_path / "cli").mkdir()
    contract.cli_round_trip(toy, tmp_path / "cli", run_multisvm)
    assert registry.scheme_name("Toy vote") == toy and registry.label(toy) == "Toy vote"


@parametrize_with_checks(contract.sklearn_estimators(toy_scheme.SCHEME))
def test_toy_scheme_is_a_scikit_learn_classifier(toy, estimator, check):
    contract.sklearn_check(estimator, check)


def test_toy_votes_differ_from_max_wins_only_by_their_weights(toy):
    X, Y = contract.X, contract.Y
    toy_model = registry.estimator(toy)(sigma=0.5, C=1.0).fit(X, Y)
    maxwins = MaxWinsSVC(sigma=0.5, C=1.0).fit(X, Y)
    agree = toy_model.predict(X) == maxwins.predict(X)
    assert agree.mean() > 0.9  # the same machines, mostly the same winner
    assert toy_model.n_parameters_ == maxwins.n_parameters_
    assert toy_model.kernel_evaluations(X) == maxwins.kernel_evaluations(X)
    np.testing.assert_array_equal(toy_model.decision_function(X).argmax(axis=1),
                                  toy_model.predict(X) - toy_model.classes_[0])
