"""GraphSVM: naive Bayes refined by SVMs among the classes it confuses (Godbole et al. 2002)."""

from functools import partial

import numpy as np

from ._base import (MulticlassSVM, make_nb, nb_arrays, nb_fit, nb_from_arrays, nb_n_parameters,
                    nb_predict)
from ._groups import (CONFUSIONS, check_confusion, confused_groups, fit_group_machines,
                      group_scores, measured_confusion, pack, unpack)
from ._primal import build_machines, load_machines
from ._schema import FLOAT, INT
from ._schema import nb_arrays as nb_schema
from .options import CLASS_WEIGHT, HOLDOUT, NB, Option, check_choice, check_share
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL


class GraphSVC(MulticlassSVM):
    """GraphSVM multiclass classifier.

    Training: a naive Bayes model (``nb='gaussian'`` for real features, ``'multinomial'`` for
    counts) gives the confusion matrix: with ``confusion='holdout'`` (the paper's held-out
    validation set) a model trained on the fit part of the training data, judged on the held-out
    part (``holdout`` share of each class, seeded); with ``confusion='cv'``, cross-validated
    predictions over the whole training part (5 seeded stratified folds; ``holdout`` unused).
    For each class i, F(i) = the classes j != i whose examples are predicted as i in more than a
    share ``threshold`` of cases (rates per true class j, judged in column i).  For every i with F(i) non-empty, a one-vs-rest SVM among
    {i} U F(i) is trained on those classes' training examples (one machine if two classes;
    classes with the same group share its SVMs).
    The naive Bayes model used for prediction is then refit on all training data.

    Prediction: naive Bayes predicts a class i; if i has an SVM group, the group's one-vs-rest
    SVMs pick the final class among {i} U F(i) (highest output).

    ``decision_function``: for points decided by a group, the one-vs-rest outputs of the group's
    classes and, for every other class, one below the group's lowest; for points naive Bayes
    decides alone, 0 for its class and -1 for the others.

    Figures: ``kernel_evaluations(X)`` = unique support vectors of the SVMs a point invokes
    (its naive Bayes class's group; none without a group), averaged over X; ``n_parameters_`` =
    the SVMs' unique-SV non-zeros + non-zero dual coefficients + biases, plus the naive Bayes
    model's parameters.  ``groups_[i]`` is {i} U F(i) (or just i), ``confusion_`` the held-out
    confusion rates (row = true class); ``first_guess(X)`` is naive Bayes's class of each point.
    """

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """The machines; ``confusion`` (N, N), ``machine_ptr`` (at most N + 1), ``group_ptr``
        (N + 1), ``group_classes`` (N..N^2 entries) and the naive Bayes model of the N classes."""
        return {**super()._array_schema(params, n_classes, n_features, shapes),
                "confusion": (FLOAT, (n_classes, n_classes)),
                "machine_ptr": (INT, (shapes.length("machine_ptr", 2, n_classes + 1),)),
                "group_ptr": (INT, (n_classes + 1,)),
                "group_classes": (INT, (shapes.length("group_classes", n_classes, n_classes ** 2),)),
                **nb_schema(params["nb"], n_classes, n_features)}

    @staticmethod
    def _machine_bounds(n_classes):
        """At most one group of at most N machines per class."""
        return (0, n_classes * n_classes)

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER,
                 threshold=0.05, nb="gaussian", holdout=0.3, confusion="holdout",
                 class_weight=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.class_weight = class_weight
        self.threshold = threshold
        self.nb = nb
        self.holdout = holdout
        self.confusion = confusion

    _option_constraints = {
        **MulticlassSVM._option_constraints,
        "threshold": Option(partial(check_share, low_inclusive=True), "a number in [0, 1)"),
        "nb": NB, "holdout": HOLDOUT,
        "confusion": Option(partial(check_choice, choices=CONFUSIONS), " | ".join(CONFUSIONS),
                            saved_default="holdout"),  # saved before the option: held out
        "class_weight": CLASS_WEIGHT}

    def _fit(self, X, y_index, settings):
        n_classes = len(self.classes_)
        self.confusion_ = measured_confusion(self.nb, X, y_index, n_classes, self.confusion,
                                             self.holdout, self.random_state)
        self.groups_ = confused_groups(self.confusion_, self.threshold)
        self._set_shared_groups()
        fits, self.machine_ptr_ = fit_group_machines(X, y_index, self._distinct, settings)
        self.machines_ = build_machines(settings, X, fits, y_index)
        self.nb_ = nb_fit(make_nb(self.nb), X, y_index)
        return fits

    def _set_shared_groups(self):
        """Classes with the same group share its SVMs: ``_distinct`` lists the distinct groups
        (in order of first appearance), ``group_index_[i]`` is class i's entry there."""
        keys = [tuple(g) for g in self.groups_]
        distinct = list(dict.fromkeys(keys))
        self._distinct = [np.array(k) for k in distinct]
        self.group_index_ = np.array([distinct.index(k) for k in keys])

    def _group_machines(self, i):
        g = self.group_index_[i]
        return list(range(self.machine_ptr_[g], self.machine_ptr_[g + 1]))

    def first_guess(self, X):
        """Naive Bayes's class index (into ``classes_``) of each row of X: the group it goes to."""
        return nb_predict(self.nb_, self._validated(X))

    def _scores(self, X):
        n_classes = len(self.classes_)
        first_guess = nb_predict(self.nb_, X)
        scores = np.empty((X.shape[0], n_classes))
        for i in range(n_classes):
            points = np.flatnonzero(first_guess == i)
            group = self.groups_[i]
            scores[points] = group_scores(self.machines_, X[points], self._group_machines(i), group,
                                          n_classes, self.memory_mb)
        return scores

    def _kernel_evaluations(self, X):
        first_guess = nb_predict(self.nb_, X)
        used = np.zeros((X.shape[0], self.machines_.n_machines), dtype=bool)
        for i in range(len(self.classes_)):
            used[np.ix_(first_guess == i, self._group_machines(i))] = True
        return self.machines_.mean_evaluations(used)

    def _n_parameters(self):
        return self.machines_.n_parameters() + nb_n_parameters(self.nb_)

    def _get_state(self):
        meta, arrays = super()._get_state()
        group_ptr, group_classes = pack(self.groups_)
        return meta, {**arrays, **nb_arrays(self.nb_, "nb_"), "confusion": self.confusion_,
                      "group_ptr": group_ptr, "group_classes": group_classes,
                      "machine_ptr": self.machine_ptr_.astype(np.int64)}

    def _set_state(self, meta, arrays, kernel):
        n_classes = len(self.classes_)
        self.confusion_ = check_confusion(arrays["confusion"], n_classes)
        self.groups_ = unpack(arrays["group_ptr"], arrays["group_classes"], "group")
        if len(self.groups_) != n_classes or any(i not in g or np.any((g < 0) | (g >= n_classes))
                                                  or np.any(np.diff(g) <= 0) for i, g in enumerate(self.groups_)):
            raise ValueError("groups must hold one valid class group per class")
        if any(not np.array_equal(g, expected)
               for g, expected in zip(self.groups_, confused_groups(self.confusion_, self.threshold))):
            raise ValueError("groups disagree with the confusion rates and the threshold")
        self._set_shared_groups()
        sizes = [len(g) for g in self._distinct]
        expected_machines = np.cumsum([0] + [0 if s == 1 else 1 if s == 2 else s for s in sizes])
        if not np.array_equal(arrays["machine_ptr"], expected_machines):
            raise ValueError("machine_ptr disagrees with the groups")
        self.machine_ptr_ = arrays["machine_ptr"].astype(np.intp)
        self.nb_ = nb_from_arrays(self.nb, arrays, "nb_", self.n_features_in_, n_classes)
        self.machines_ = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                              int(expected_machines[-1]))
