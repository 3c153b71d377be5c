"""Hier: a two-level hierarchy over clusters of confused classes (Godbole et al. 2002)."""

from functools import partial

import numpy as np
from scipy.cluster.hierarchy import cut_tree, linkage

from ._base import (MulticlassSVM, make_nb, nb_arrays, nb_fit, nb_from_arrays, nb_n_parameters,
                    nb_predict, split_holdout)
from ._groups import check_confusion, confusion_rates, fit_group_machines, group_scores
from ._binary import fit_one_vs_rest
from ._primal import build_machines, load_machines
from ._schema import FLOAT, INT
from ._schema import nb_arrays as nb_schema
from .options import CLASS_WEIGHT, HOLDOUT, NB, Option, check_choice
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL

LEVEL1_MODELS = ("nb", "svm")


def cluster_classes(confusion):
    """Cluster label of each class (numbered in order of each cluster's first class).

    Classes are clustered by hierarchical agglomerative clustering (average linkage, Euclidean
    distance) of their rows of the row-normalised confusion matrix; the dendrogram is cut where
    the merge distance jumps most between two consecutive merges, which leaves between 2 and N-1
    clusters (two classes: one cluster each).
    """
    n_classes = len(confusion)
    if n_classes <= 2:
        return np.arange(n_classes)
    merges = linkage(confusion, method="average", metric="euclidean")
    n_merges = int(np.argmax(np.diff(merges[:, 2]))) + 1
    labels = cut_tree(merges, n_clusters=n_classes - n_merges).ravel()
    _, first = np.unique(labels, return_index=True)
    renumber = np.empty(labels.max() + 1, dtype=np.intp)
    renumber[labels[np.sort(first)]] = np.arange(len(first))
    return renumber[labels]


class HierSVC(MulticlassSVM):
    """Two-level hierarchical multiclass classifier (Hier).

    Training: naive Bayes (``nb``) trained on the fit part of the training data gives a
    confusion matrix on the held-out part (``holdout`` share of each class, seeded); classes are
    clustered by :func:`cluster_classes` on its normalised rows.  Level 1 assigns a point to a
    cluster: naive Bayes over cluster labels (``level1='nb'``) or one-vs-rest SVMs over cluster
    labels (``level1='svm'``), trained on all training data.  Level 2: within every cluster of two
    or more classes, one-vs-rest SVMs trained on that cluster's examples.

    Prediction: level 1 picks the cluster; its level-2 SVMs pick the class (highest output);
    a one-class cluster is its class.

    ``decision_function``: the level-2 one-vs-rest outputs of the chosen cluster's classes, and
    one below their lowest for every other class (0 / -1 for a one-class cluster).

    Figures: ``kernel_evaluations(X)`` = unique support vectors of the SVMs a point invokes
    (the level-1 SVMs if ``level1='svm'``, and its cluster's level-2 SVMs), averaged over X;
    ``n_parameters_`` = SVM unique-SV non-zeros + non-zero dual coefficients + biases, plus the
    level-1 naive Bayes parameters if ``level1='nb'``.  ``clusters_[c]`` is class c's cluster.
    """

    _fitted_keys = ("n_level1_machines",)

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """The machines; ``confusion`` (N, N), ``machine_ptr`` (at most N + 1), ``clusters`` (N)
        and, when level 1 is naive Bayes, its model of the clusters (``nb_classes`` of 2..N)."""
        expected = {**super()._array_schema(params, n_classes, n_features, shapes),
                    "confusion": (FLOAT, (n_classes, n_classes)),
                    "machine_ptr": (INT, (shapes.length("machine_ptr", 2, n_classes + 1),)),
                    "clusters": (INT, (n_classes,))}
        if params["level1"] == "nb":
            n_clusters = shapes.length("nb_classes", 2, n_classes)
            expected.update(nb_schema(params["nb"], n_clusters, n_features))
        return expected

    @staticmethod
    def _machine_bounds(n_classes):
        """Level 1 and level 2 together, at most 2N."""
        return (0, 2 * n_classes)

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER,
                 level1="nb", nb="gaussian", holdout=0.3, class_weight=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.class_weight = class_weight
        self.level1 = level1
        self.nb = nb
        self.holdout = holdout

    _option_constraints = {
        **MulticlassSVM._option_constraints,
        "level1": Option(partial(check_choice, choices=LEVEL1_MODELS), " | ".join(LEVEL1_MODELS)),
        "nb": NB, "holdout": HOLDOUT, "class_weight": CLASS_WEIGHT}

    def _fit(self, X, y_index, settings):
        fit_rows, held_rows = split_holdout(y_index, self.holdout, self.random_state)
        held_out_nb = nb_fit(make_nb(self.nb), X[fit_rows], y_index[fit_rows])
        self.confusion_ = confusion_rates(held_out_nb, X[held_rows], y_index[held_rows], len(self.classes_))
        self.clusters_ = cluster_classes(self.confusion_)
        y_cluster = self.clusters_[y_index]
        n_clusters = self.clusters_.max() + 1
        level1_fits = []
        if self.level1 == "nb":
            self.level1_nb_ = nb_fit(make_nb(self.nb), X, y_cluster)
        else:
            level1_fits = fit_one_vs_rest(X, y_cluster, np.arange(X.shape[0]), np.arange(n_clusters),
                                          settings)
        self.n_level1_machines_ = len(level1_fits)
        level2_fits, ptr = fit_group_machines(X, y_index, self._members(), settings)
        self.machine_ptr_ = ptr + len(level1_fits)
        self.machines_ = build_machines(settings, X, level1_fits + level2_fits, y_index)
        return level1_fits + level2_fits

    def _members(self):
        """The class indices of each cluster."""
        return [np.flatnonzero(self.clusters_ == g) for g in range(self.clusters_.max() + 1)]

    def _choose_clusters(self, X):
        if self.level1 == "nb":
            return nb_predict(self.level1_nb_, X)
        n_clusters = self.clusters_.max() + 1
        scores = group_scores(self.machines_, X, list(range(self.n_level1_machines_)),
                              np.arange(n_clusters), n_clusters, self.memory_mb)
        return np.argmax(scores, axis=1)

    def _level2_machines(self, g):
        return list(range(self.machine_ptr_[g], self.machine_ptr_[g + 1]))

    def _scores(self, X):
        return self._routed_scores(X, self._choose_clusters(X))

    def _routed_scores(self, X, chosen):
        """Level 2's per-class scores of points routed to the clusters ``chosen``."""
        scores = np.empty((X.shape[0], len(self.classes_)))
        for g, members in enumerate(self._members()):
            points = np.flatnonzero(chosen == g)
            scores[points] = group_scores(self.machines_, X[points], self._level2_machines(g), members,
                                          len(self.classes_), self.memory_mb)
        return scores

    def level_accuracies(self, X, y):
        """(level 1, level 2) accuracies on labelled points (Godbole et al. 2002's L1 and L2):
        level 1 = the share of points that level 1 routes to their class's cluster; level 2 =
        the share of those points whose class the cluster's level-2 SVMs then pick (a one-class
        cluster picks its class), NaN when level 1 routes no point right.  ValueError for a
        label the model does not know."""
        X = self._validated(X)
        y = np.asarray(y)
        index = np.minimum(np.searchsorted(self.classes_, y), len(self.classes_) - 1)
        if y.shape != (X.shape[0],) or np.any(self.classes_[index] != y):
            raise ValueError("y must hold one known class label per row of X")
        chosen = self._choose_clusters(X)
        routed = chosen == self.clusters_[index]
        predicted = np.argmax(self._routed_scores(X[routed], chosen[routed]), axis=1)
        level2 = float(np.mean(predicted == index[routed])) if routed.any() else float("nan")
        return float(np.mean(routed)), level2

    def _kernel_evaluations(self, X):
        chosen = self._choose_clusters(X)
        used = np.zeros((X.shape[0], self.machines_.n_machines), dtype=bool)
        used[:, :self.n_level1_machines_] = True
        for g in range(self.clusters_.max() + 1):
            used[np.ix_(chosen == g, self._level2_machines(g))] = True
        return self.machines_.mean_evaluations(used)

    def _n_parameters(self):
        nb_size = nb_n_parameters(self.level1_nb_) if self.level1 == "nb" else 0
        return self.machines_.n_parameters() + nb_size

    def _get_state(self):
        meta, arrays = super()._get_state()
        arrays = {**arrays, "confusion": self.confusion_, "clusters": self.clusters_.astype(np.int64),
                  "machine_ptr": self.machine_ptr_.astype(np.int64)}
        if self.level1 == "nb":
            arrays.update(nb_arrays(self.level1_nb_, "nb_"))
        return {**meta, "n_level1_machines": int(self.n_level1_machines_)}, arrays

    def _set_state(self, meta, arrays, kernel):
        self.confusion_ = check_confusion(arrays["confusion"], len(self.classes_))
        clusters = arrays["clusters"]
        n_clusters = int(clusters.max()) + 1 if len(clusters) else 0
        if clusters.shape != (len(self.classes_),) or clusters.min() < 0 or len(np.unique(clusters)) != n_clusters:
            raise ValueError("clusters must give every class a cluster 0..G-1")
        if not np.array_equal(clusters, cluster_classes(self.confusion_)):
            raise ValueError("clusters disagree with the clustering of the confusion rates")
        self.clusters_ = clusters.astype(np.intp)
        sizes = [np.sum(clusters == g) for g in range(n_clusters)]
        n_level1 = 0 if self.level1 == "nb" else (1 if n_clusters == 2 else n_clusters)
        expected = n_level1 + np.cumsum([0] + [0 if s == 1 else 1 if s == 2 else s for s in sizes])
        if int(meta.get("n_level1_machines", -1)) != n_level1 or not np.array_equal(arrays["machine_ptr"], expected):
            raise ValueError("machine counts disagree with the clusters")
        self.n_level1_machines_ = n_level1
        self.machine_ptr_ = arrays["machine_ptr"].astype(np.intp)
        if self.level1 == "nb":
            self.level1_nb_ = nb_from_arrays(self.nb, arrays, "nb_", self.n_features_in_, n_clusters)
        self.machines_ = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                       int(expected[-1]))
