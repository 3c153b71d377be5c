"""GraphSVM's stages as Godbole et al. define them: the groups F(i) of a confusion matrix, the
confusion measured on a held-out part or by cross-validation, and where its errors come from."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB

from multisvm_cli.estimators import GraphSVC, OneVsRestSVC
from multisvm_cli.estimators._groups import (CV_FOLDS, _folds, confused_groups, error_split,
                                             measured_confusion)

# rows: true class j; entry [j, i] = share of class j's documents predicted as i
CONFUSION = np.array([[0.90, 0.06, 0.04, 0.00],
                      [0.02, 0.88, 0.10, 0.00],
                      [0.00, 0.05, 0.95, 0.00],
                      [0.051, 0.00, 0.049, 0.90]])


def test_groups_are_i_and_the_classes_predicted_as_i_more_than_t():
    # F(0) = {3} (5.1% > 5%); F(1) = {0} (6%) but not class 2 (5%, not more than t);
    # F(2) = {1} (10%), not 0 (4%) nor 3 (4.9%); F(3) = {}.
    assert [list(g) for g in confused_groups(CONFUSION, 0.05)] == [[0, 3], [0, 1], [1, 2], [3]]
    assert [list(g) for g in confused_groups(CONFUSION, 0.03)] == [[0, 3], [0, 1, 2], [0, 1, 2, 3], [3]]
    assert [list(g) for g in confused_groups(CONFUSION, 0.2)] == [[0], [1], [2], [3]]


def test_error_split_separates_errors_no_group_could_right():
    groups = confused_groups(CONFUSION, 0.05)          # [[0, 3], [0, 1], [1, 2], [3]]
    first = np.array([0, 0, 1, 2, 3, 2, 1])
    truth = np.array([3, 2, 0, 1, 0, 2, 1])
    graph = np.array([0, 0, 1, 1, 3, 1, 1])           # wrong at 0 (in group), 1 (2 not in {0,3}),
    split = error_split(groups, first, truth, graph)  # 2 (in group), 4 (0 not in {3}), 5 (in group)
    assert list(np.flatnonzero(split["unrecoverable"])) == [1, 4]
    assert list(np.flatnonzero(split["in_group"])) == [0, 2, 5]


def test_folds_deal_each_class_evenly():
    y = np.array([0] * 12 + [1] * 3 + [2])
    fold = _folds(y, CV_FOLDS, 0)
    assert sorted(np.bincount(fold[y == 0], minlength=5)) == [2, 2, 2, 3, 3]
    assert sorted(fold[y == 1]) == [0, 1, 2] and list(fold[y == 2]) == [0]


def test_cv_confusion_judges_every_row_by_a_model_without_its_fold():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    X = rng.poisson(np.where(np.arange(6) // 2 == y[:, None], 3.0, 1.0))
    rates = measured_confusion("multinomial", X, y, 3, "cv", 0.3, 7)
    fold, expected = _folds(y, CV_FOLDS, 7), np.zeros((3, 3))
    for k in range(CV_FOLDS):
        held = fold == k
        np.add.at(expected, (y[held], MultinomialNB().fit(X[~held], y[~held]).predict(X[held])), 1)
    np.testing.assert_allclose(rates, expected / 20)


WORDS = {0: "apple banana fruit salad pie juice", 1: "car road wheel engine oil trip",
         2: "train rail road station ticket trip"}  # cars and trains share road, trip


def documents(n, seed):
    """``n`` documents of 4 words per class, drawn from its words (and, one word in four, the
    words of every class), with their classes."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n)
    every = " ".join(WORDS.values()).split()
    docs = [" ".join(rng.choice(every if rng.random() < 0.25 else WORDS[c].split()) for _ in range(4))
            for c in y]
    return docs, y


def test_predictions_on_a_small_text_set_are_nb_then_the_group_svms():
    docs, y = documents(40, 0)
    test_docs, y_test = documents(40, 1)
    counting = CountVectorizer().fit(docs)
    X, test = counting.transform(docs).astype(float), counting.transform(test_docs).astype(float)
    model = GraphSVC(kernel="linear", solver="liblinear", C=1.0, nb="multinomial", threshold=0.05,
                     confusion="cv", random_state=0).fit(X, y)
    first = model.first_guess(test)
    np.testing.assert_array_equal(first, MultinomialNB().fit(X, y).predict(test))
    # 7.5% of the car documents and of the fruit documents go to trains (more than t), 5% of
    # the train documents to cars (not more): only class 1 has a group, all three classes
    np.testing.assert_allclose(model.confusion_[:, 1], [0.075, 0.925, 0.075])
    assert [list(g) for g in model.groups_] == [[0], [0, 1, 2], [2]]
    # points NB sends to class 1 are decided by one-vs-rest SVMs among the group, on the same C
    svm = OneVsRestSVC(kernel="linear", solver="liblinear", C=1.0).fit(X, y)
    expected = np.where(first == 1, svm.predict(test), first)
    np.testing.assert_array_equal(model.predict(test), expected)
    assert np.sum(first == 1) == 38 and np.sum(expected != y_test) == 9


def test_a_model_with_cross_validated_confusion_saves_and_loads(tmp_path):
    from multisvm_cli.persist import load_model, save_model

    docs, y = documents(40, 0)
    X = CountVectorizer().fit_transform(docs).astype(float)
    model = GraphSVC(kernel="linear", solver="liblinear", nb="multinomial", confusion="cv",
                     random_state=0).fit(X, y)
    save_model(tmp_path / "graph", model)
    again = load_model(tmp_path / "graph").estimator
    assert again.confusion == "cv" and GraphSVC._saved_defaults()["confusion"] == "holdout"
    np.testing.assert_array_equal(again.confusion_, model.confusion_)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
