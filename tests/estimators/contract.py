"""The contract every scheme of the registry keeps, as checks that take a scheme's name.

:mod:`test_contract` runs them for every registered scheme; :mod:`test_toy_scheme` registers a
scheme from one new file and runs the very same checks, so a scheme added to the registry gets
all of them with no test edited.
"""

import json
import math

import numpy as np
import pytest
from sklearn.datasets import load_iris

from multisvm_cli.estimators.registry import REGISTRY
from multisvm_cli.persist import load_model, save_model

X, Y = load_iris(return_X_y=True)
CONFIG = """\
name: contract-{scheme}
dataset: iris
split: {{test_fraction: 0.3, seed: 0}}
validation: {{method: holdout, train_fraction: 0.7, seed: 0}}
kernels: [{{type: gaussian, sigma: 2}}]
C: [1, 4]
schemes: [{scheme}]
"""
TEST_POINTS = 45  # iris's 150 rows, 30% held out


NOT_APPLICABLE = {
    "check_array_api_input": "the estimators take NumPy arrays only; they do not declare array-API support",
}


def sklearn_estimators(scheme):
    """What scikit-learn's own estimator checks run on for ``scheme`` (a registry Scheme): its
    default estimator and, where its binary SVMs also train with liblinear, a linear one on
    liblinear (an all-together machine has its own solver only)."""
    cls = scheme.estimator
    linear = [cls(kernel="linear", solver="liblinear")] if "liblinear" in cls._solvers else []
    return [cls()] + linear


# scikit-learn's check that class 0 of weight 1000 (others 0.0001) takes most predictions of a
# noisy blob problem: it holds for the schemes that predict by their weighted SVMs alone; these
# predict through parts class weights do not reach, as LIBSVM's own do (-b 1 -wi: the Platt
# sigmoids are fitted to unweighted class counts; naive Bayes has no C to weigh).
UNWEIGHTED_PARTS = {
    "PairwiseCouplingSVC": "predicts by its coupled Platt sigmoids, not by the weighted votes",
    "GraphSVC": "its confusion graph, from naive Bayes, decides each machine's negatives",
    "HierSVC": "its first level (naive Bayes by default) routes each point to a cluster",
}


def sklearn_check(estimator, check):
    """One of scikit-learn's estimator checks (as ``parametrize_with_checks`` hands them out) on
    ``estimator``; a check in :data:`NOT_APPLICABLE` is skipped with its reason, and
    ``check_class_weight_classifiers`` for the schemes of :data:`UNWEIGHTED_PARTS`."""
    name = getattr(check, "func", check).__name__
    if name in NOT_APPLICABLE:
        pytest.skip(NOT_APPLICABLE[name])
    reason = UNWEIGHTED_PARTS.get(type(estimator).__name__)
    if name == "check_class_weight_classifiers" and reason:
        pytest.skip(reason)
    check(estimator)


def figures(name):
    """After a fit on iris: Table 1's figures are defined (kernel evaluations per test point,
    size, support vectors, iterations, CPU time) and the ETA cost is a positive number."""
    model = REGISTRY[name].estimator(sigma=2.0, C=4.0, random_state=0).fit(X, Y)
    evaluations = model.kernel_evaluations(X)
    assert math.isfinite(evaluations) and 0 <= evaluations <= len(X) * len(model.classes_) ** 2
    assert isinstance(model.n_parameters_, int) and model.n_parameters_ > 0
    assert isinstance(model.n_support_vectors_, int) and 0 <= model.n_support_vectors_ <= len(X)
    assert isinstance(model.smo_iterations_, int) and model.smo_iterations_ >= 0
    assert model.fit_cpu_time_ >= 0 and model.fit_wall_time_ >= 0
    assert np.mean(model.predict(X) == Y) > 0.8
    cost = REGISTRY[name].estimator._point_cost(1000, 10)
    assert math.isfinite(cost) and cost > REGISTRY[name].estimator._point_cost(100, 10) > 0


def save_load(name, folder):
    """A saved model loads (its arrays checked against the class's ``_array_schema``) and
    predicts exactly as the fitted one."""
    model = REGISTRY[name].estimator(sigma=2.0, C=4.0, random_state=0).fit(X, Y)
    save_model(folder, model)
    loaded = load_model(folder).estimator
    assert type(loaded) is type(model)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_allclose(loaded.decision_function(X), model.decision_function(X), rtol=1e-12)
    assert loaded.n_parameters_ == model.n_parameters_


def cli_round_trip(name, folder, run_multisvm):
    """Through the command line: ``reproduce-table`` reports the scheme's test error, ``train``
    saves the model the same protocol selects, and ``evaluate`` reproduces that test error."""
    config = folder / f"contract-{name}.yaml"
    config.write_text(CONFIG.format(scheme=name))
    run = run_multisvm("reproduce-table", config, "--out", folder / "results", "-q",
                       "--format", "json", "--no-figures")
    assert run.code == 0, run.err
    (row,) = json.loads(run.out)
    trained = run_multisvm("train", config, "--scheme", name, "-o", folder / "model",
                           "--out", folder / "results", "-q")
    assert trained.code == 0, trained.err
    evaluated = run_multisvm("evaluate", folder / "model")
    assert evaluated.code == 0, evaluated.err
    errors = round(row["error_pct"] * TEST_POINTS / 100)
    assert f"model: {REGISTRY[name].label}, " in evaluated.out
    assert f"error rate: {row['error_pct']:.2f}% ({errors} errors)" in evaluated.out
    assert f"kernel evaluations per test point: {row['kernel_evaluations']:.1f}" in evaluated.out
