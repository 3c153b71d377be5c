"""The naive Bayes baseline of Godbole et al. (2002), with the same figure API as the SVMs."""

from ._base import (MulticlassSVM, make_nb, nb_arrays, nb_fit, nb_from_arrays,
                    nb_joint_log_proba, nb_n_parameters)
from ._schema import nb_arrays as nb_schema
from .options import NB
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL


class NBClassifier(MulticlassSVM):
    """Naive Bayes: ``nb='gaussian'`` (a normal density per class and feature) or
    ``'multinomial'`` (feature counts), as scikit-learn's GaussianNB / MultinomialNB.

    The SVM parameters (C, kernel, sigma, ...) are accepted so that every scheme takes the same
    grid point, and are validated, but naive Bayes does not use them.

    ``decision_function``: the joint log-likelihood log P(c) + log P(x | c) per class.
    Figures: ``kernel_evaluations(X)`` = 0; ``n_parameters_`` = Gaussian: means + variances +
    class priors (2 N d + N); multinomial: feature log-probabilities + class log-priors (N d + N);
    ``n_support_vectors_`` = 0.
    """

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER, nb="gaussian"):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.nb = nb

    _option_constraints = {**MulticlassSVM._option_constraints, "nb": NB}

    @classmethod
    def _point_cost(cls, n_rows, n_classes):
        """One pass over the n rows, no SVM."""
        return float(n_rows)

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """The naive Bayes model of the N classes (no machines)."""
        return nb_schema(params["nb"], n_classes, n_features)

    def _fit(self, X, y_index, settings):
        self.nb_ = nb_fit(make_nb(self.nb), X, y_index)
        return []

    def _scores(self, X):
        return nb_joint_log_proba(self.nb_, X)

    def _kernel_evaluations(self, X):
        return 0.0

    def _n_parameters(self):
        return nb_n_parameters(self.nb_)

    def _n_support_vectors(self):
        return 0

    def _get_state(self):
        return self._common_meta(), nb_arrays(self.nb_, "nb_")

    def _set_state(self, meta, arrays, kernel):
        self.nb_ = nb_from_arrays(self.nb, arrays, "nb_", self.n_features_in_, len(self.classes_))
