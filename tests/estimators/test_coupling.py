"""Pairwise coupling as a classifier (Wu, Lin & Weng 2004's delta_2): the most probable class
of the coupled probabilities over Max Wins' pairwise SVMs and their sigmoids."""

import numpy as np
import pytest
from helpers import standardized
from sklearn.datasets import load_wine

from multisvm_cli.estimators.coupling import PairwiseCouplingSVC
from multisvm_cli.estimators.maxwins import MaxWinsSVC

PARAMS = {"C": 1.0, "kernel": "gaussian", "gamma": 0.05, "random_state": 0}


def test_coupling_predicts_the_most_probable_class():
    X, y = standardized(load_wine)
    coupling = PairwiseCouplingSVC(**PARAMS).fit(X, y)
    proba = coupling.predict_proba(X)
    assert np.array_equal(coupling.predict(X), coupling.classes_[proba.argmax(axis=1)])
    maxwins = MaxWinsSVC(**PARAMS, probability=True).fit(X, y)
    assert np.allclose(proba, maxwins.predict_proba(X))  # the same machines and sigmoids


def test_coupling_needs_sigmoids():
    X, y = standardized(load_wine)
    with pytest.raises(ValueError, match="probability must be True"):
        PairwiseCouplingSVC(**PARAMS, probability=False).fit(X, y)
