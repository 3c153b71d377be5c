"""Hier: classes clustered by their confusion, a cluster chosen first, then the class within it."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from multisvm_cli.estimators import HierSVC
from multisvm_cli.estimators.hier import cluster_classes
from . import contract
from .test_estimators_graph import TEST, X, Y, Y_TEST


def test_cluster_cut_at_the_largest_jump():
    confusion = np.array([[0.6, 0.4, 0.0, 0.0, 0.0],
                          [0.3, 0.7, 0.0, 0.0, 0.0],
                          [0.0, 0.0, 0.5, 0.5, 0.0],
                          [0.0, 0.0, 0.45, 0.55, 0.0],
                          [0.0, 0.0, 0.0, 0.05, 0.95]])
    # Merges: {2,3} at 0.07, {0,1} at 0.42, then {2,3} with 4 and everything far above:
    # the largest jump is after the second merge, leaving three clusters.
    np.testing.assert_array_equal(cluster_classes(confusion), [0, 0, 1, 1, 2])
    np.testing.assert_array_equal(cluster_classes(np.eye(2)), [0, 1])


def test_clusters_of_confused_classes_with_naive_bayes_first():
    model = HierSVC(C=10.0, sigma=0.5, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model.clusters_, [0, 0, 1])
    assert model.n_level1_machines_ == 0 and model.machines_.n_machines == 1
    assert np.mean(model.predict(TEST) == Y_TEST) > 0.97
    in_first_cluster = model.level1_nb_.predict(TEST) == 0
    assert model.kernel_evaluations(TEST) == pytest.approx(in_first_cluster.mean() * model.machines_.n_pool)
    svm_size = np.count_nonzero(model.machines_.vectors) + model.machines_.coef.nnz + 1
    assert model.n_parameters_ == svm_size + (2 * 2 * 2 + 2)  # + NB over 2 clusters


def test_svm_first_level_counts_its_own_support_vectors():
    model = HierSVC(C=10.0, sigma=0.5, level1="svm", random_state=0).fit(X, Y)
    assert model.n_level1_machines_ == 1 and model.machines_.n_machines == 2
    assert np.mean(model.predict(TEST) == Y_TEST) > 0.97
    level1, level2 = (set(model.machines_.coef[:, m].indices) for m in (0, 1))
    chosen = np.argmax(model.decision_function(TEST), axis=1)
    expected = np.where(np.isin(chosen, [0, 1]), len(level1 | level2), len(level1))
    assert model.kernel_evaluations(TEST) == pytest.approx(expected.mean())


def test_bad_level1_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown level1 'tree'"):
        HierSVC(level1="tree").fit(X, Y)


@parametrize_with_checks([HierSVC(level1="svm")])  # the default (naive Bayes first) is in test_contract
def test_svm_first_level_is_a_scikit_learn_classifier(estimator, check):
    contract.sklearn_check(estimator, check)
