"""One-vs-rest (1-v-r): N binary SVMs, class i against all others (Platt et al. 1999)."""

import numpy as np

from ._base import FIXED_ROWS, MulticlassSVM
from ._binary import fit_one_vs_rest
from ._primal import build_machines, load_machines


class OneVsRestSVC(MulticlassSVM):
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
    """

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
        return fits

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
