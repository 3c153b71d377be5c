"""A scheme registered from one new file (toy_scheme.py) gets the whole contract with no other
edit: the registry line is the only change (here made for the test's duration).  Its own
option, declared in that file alone, is checked by the config and the estimator with one
sentence."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from configs import config_text

from . import contract
from . import toy_scheme
from multisvm_cli.estimators import registry
from multisvm_cli.estimators._pairwise import class_pairs
from multisvm_cli.estimators.maxwins import MaxWinsSVC
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.config import ConfigError


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


def test_toy_option_is_taken_and_checked_by_the_config_and_the_estimator_alike(toy, tmp_path):
    path = tmp_path / "toy.yaml"
    path.write_text(config_text(schemes=["ovr", "Toy vote"],
                                scheme_options={"toyvote": {"sharpness": 0.5}}))
    config = load_config(path)
    assert config.schemes == ["ovr", "toyvote"]
    assert config.scheme_options["toyvote"] == {"sharpness": 0.5}
    assert "sharpness" in registry.REGISTRY[toy].options
    sentence = "sharpness must be a finite number > 0, got -1"
    path.write_text(config_text(schemes=["ovr", "toyvote"],
                                scheme_options={"toyvote": {"sharpness": -1}}))
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert str(refused.value) == (f"{path}:8: scheme_options.toyvote.sharpness: {sentence}; "
                                  f"allowed: a number > 0 (the votes' slope)")
    with pytest.raises(ValueError, match=f"^{sentence}$"):
        registry.estimator(toy)(sharpness=-1).fit(contract.X, contract.Y)


def test_a_sharper_toy_vote_weighs_confident_machines_more(toy):
    X, Y = contract.X, contract.Y
    soft = registry.estimator(toy)(sigma=0.5, sharpness=0.01).fit(X, Y)
    sharp = registry.estimator(toy)(sigma=0.5, sharpness=1e6).fit(X, Y)
    values = sharp.machines_.decision(X, sharp.memory_mb, None)
    counts = np.zeros((len(X), 3))
    for m, (first, second) in enumerate(class_pairs(3)):  # Max Wins' whole votes
        counts[np.arange(len(X)), np.where(values[:, m] < 0, first, second)] += 1
    np.testing.assert_allclose(sharp.decision_function(X), counts, atol=1e-6)
    assert soft.decision_function(X).max() < 0.1 * counts.max()  # slope 0.01: small votes
