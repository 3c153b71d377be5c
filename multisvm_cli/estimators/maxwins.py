"""Max Wins (1-v-1 voting; Friedman 1996, Kressel 1999, as in Platt et al. 1999)."""

import numpy as np

from ._base import FIXED_ROWS, MulticlassSVM
from ._primal import load_machines
from ._pairwise import class_pairs, fit_pairwise, pairwise_problems
from ._probability import ProbabilityMixin, pairwise_coupling
from .options import CLASS_WEIGHT, PROBABILITY
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL


class MaxWinsSVC(ProbabilityMixin, MulticlassSVM):
    """Max Wins multiclass SVM.

    Training: K = N(N-1)/2 soft-margin SVMs, one per pair of classes (i, j), each trained only
    on the examples of classes i and j (see ``_pairwise``).

    Prediction: every pairwise SVM casts one vote for the class it prefers; the class with most
    votes wins; ties go to the lowest class index, as LIBSVM does.  ``decision_function``
    returns votes - index / N: the vote count, lowered by less than one vote in class order so
    that its argmax keeps LIBSVM's tie rule (two classes: the single machine's output).

    Figures: ``kernel_evaluations(X)`` = the number of unique support vectors over all K SVMs
    (all are evaluated for every test point); ``n_parameters_`` = non-zero entries of the unique
    support vectors + non-zero dual coefficients + K biases.

    ``probability=True``: each pairwise SVM also gets Platt's sigmoid, fitted as LIBSVM's
    ``-b 1`` on 5-fold cross-validated decision values (seeded by ``random_state``), and
    ``predict_proba`` couples the pairs by Wu, Lin & Weng 2004's method 2 (see
    ``_probability``); ``predict`` stays the vote.
    """

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER, probability=False,
                 class_weight=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.class_weight = class_weight
        self.probability = probability

    _option_constraints = {**MulticlassSVM._option_constraints, "probability": PROBABILITY,
                           "class_weight": CLASS_WEIGHT}

    @classmethod
    def _point_cost(cls, n_rows, n_classes):
        """k(k-1)/2 pairs of about 2n/k rows each."""
        k = n_classes
        return k * (k - 1) / 2 * ((2.0 * n_rows / k) ** 2 + float(FIXED_ROWS) ** 2)

    @staticmethod
    def _machine_bounds(n_classes):
        """One machine per pair of classes."""
        return (n_classes * (n_classes - 1) // 2,) * 2

    def _fit(self, X, y_index, settings):
        n_classes = len(self.classes_)
        self.machines_, fits = fit_pairwise(X, y_index, n_classes, settings)
        return fits + self._fit_probability(X, y_index, settings,
                                            pairwise_problems(y_index, n_classes))

    def _proba(self, X):
        """Wu, Lin & Weng's method 2 on the pairs' sigmoids P(j | i or j, x)."""
        return pairwise_coupling(self._sigmoids(self.machines_.decision(X, self.memory_mb,
                                                                        self.n_jobs)))

    def _scores(self, X):
        n_classes = len(self.classes_)
        if n_classes == 2:
            values = self.machines_.decision(X, self.memory_mb, self.n_jobs)[:, 0]
            return np.column_stack([np.zeros(X.shape[0]), values])
        pairs = class_pairs(n_classes)
        votes_first = np.zeros((len(pairs), n_classes))
        votes_first[np.arange(len(pairs)), pairs[:, 0]] = 1
        votes_second = np.zeros((len(pairs), n_classes))
        votes_second[np.arange(len(pairs)), pairs[:, 1]] = 1

        def votes(values):
            return (values < 0) @ votes_first + (values >= 0) @ votes_second

        scores = self.machines_.map_decisions(X, votes, self.memory_mb, self.n_jobs)
        return scores.reshape(X.shape[0], n_classes) - np.arange(n_classes) / n_classes

    def _kernel_evaluations(self, X):
        return self.machines_.full_evaluations

    def _set_state(self, meta, arrays, kernel):
        n_classes = len(self.classes_)
        self.machines_ = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                              n_classes * (n_classes - 1) // 2)
        self._set_probability(arrays)
