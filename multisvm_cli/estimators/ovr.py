"""One-vs-rest (1-v-r): N binary SVMs, class i against all others (Platt et al. 1999)."""

import numpy as np

from ._base import FIXED_ROWS, MulticlassSVM
from ._binary import fit_one_vs_rest, one_vs_rest_problems
from ._primal import build_machines, load_machines
from ._probability import ProbabilityMixin, normalised
from .options import CLASS_WEIGHT, PROBABILITY
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL


class OneVsRestSVC(ProbabilityMixin, MulticlassSVM):
    """One-vs-rest multiclass SVM.

    Training: for each class i, a soft-margin SVM f_i separating class i (positive) from all
    other classes, on all training data (one machine, positive = ``classes_[1]``, for two
    classes).  The training Gram matrix is computed once and shared by the N problems when it
    fits ``memory_mb``.

    Prediction: the class whose SVM output f_i(x) is highest; ``decision_function`` returns the
    f_i(x) (for two classes, the single machine's output).

    Figures: ``kernel_evaluations(X)`` = the number of unique support vectors over all N SVMs
    (each is evaluated once per test point, whatever X); ``n_parameters_`` = non-zero entries of
    the unique support vectors + non-zero dual coefficients + N biases.

    ``probability=True``: each machine also gets Platt's sigmoid P(class i | f_i(x)), fitted as
    LIBSVM's ``-b 1`` on 5-fold cross-validated decision values (seeded by ``random_state``);
    ``predict_proba`` is those N estimates normalised to sum 1 (two classes: the one machine's
    P(classes_[1]) and its complement).  ``predict`` stays the highest f_i(x).
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

    _shares_gram = True  # every machine trains on all rows: one K(X, X) serves them at every C

    @classmethod
    def _point_cost(cls, n_rows, n_classes):
        """k problems of all n rows (one for two classes)."""
        k = n_classes if n_classes > 2 else 1
        return k * (float(n_rows) ** 2 + float(FIXED_ROWS) ** 2)

    @staticmethod
    def _machine_bounds(n_classes):
        """One machine per class (one for two classes)."""
        return (1, 1) if n_classes == 2 else (n_classes, n_classes)

    def _fit(self, X, y_index, settings):
        classes = np.arange(len(self.classes_))
        fits = fit_one_vs_rest(X, y_index, np.arange(X.shape[0]), classes, settings)
        self.machines_ = build_machines(settings, X, fits, y_index)
        problems = one_vs_rest_problems(y_index, np.arange(X.shape[0]), classes)
        return fits + self._fit_probability(X, y_index, settings, problems)

    def _proba(self, X):
        """The machines' sigmoids, normalised (two classes: P and 1 - P)."""
        positive = self._sigmoids(self.machines_.decision(X, self.memory_mb, self.n_jobs))
        if len(self.classes_) == 2:
            return np.column_stack([1.0 - positive[:, 0], positive[:, 0]])
        return normalised(positive)

    def _scores(self, X):
        values = self.machines_.decision(X, self.memory_mb, self.n_jobs)
        if len(self.classes_) == 2:
            return np.column_stack([np.zeros(X.shape[0]), values[:, 0]])
        return values

    def _kernel_evaluations(self, X):
        return self.machines_.full_evaluations

    def _n_machines(self):
        return 1 if len(self.classes_) == 2 else len(self.classes_)

    def _set_state(self, meta, arrays, kernel):
        self.machines_ = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                       self._n_machines())
        self._set_probability(arrays)
