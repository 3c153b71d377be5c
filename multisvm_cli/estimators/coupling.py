"""Pairwise coupling as a classifier: the most probable class of Wu, Lin & Weng's coupled
probabilities over Max Wins' pairwise SVMs (their rule delta_2, LIBSVM's ``svm-predict -b 1``)."""

from ._base import MulticlassSVM
from .maxwins import MaxWinsSVC
from .options import CLASS_WEIGHT
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL


class PairwiseCouplingSVC(MaxWinsSVC):
    """Pairwise coupling multiclass SVM (Wu, Lin & Weng 2004, "Probability estimates for
    multi-class classification by pairwise coupling", JMLR 5, method 2, problem (19)).

    Training: Max Wins' K = N(N-1)/2 pairwise SVMs and, always, Platt's sigmoid on each, fitted
    as LIBSVM's ``-b 1`` (5-fold cross-validated decision values, seeded by ``random_state``).
    It trains its own machines (the same as Max Wins' at the same point), so a run of both
    fits them twice: Max Wins' vote needs no sigmoids, and their fits are the cheap part.

    Prediction: the class of largest coupled probability (``predict_proba``: the pairs'
    sigmoids r_ij coupled by method 2, see ``_probability``); ties go to the lowest class index.
    ``decision_function`` returns those probabilities.  Unlike Max Wins' vote, the prediction
    depends on the sigmoids, so model selection fits them too (``_selection_free`` is empty).

    Figures: as Max Wins' (the same machines, all evaluated for every point).

    ``probability`` is not an option: it is always True (the prediction needs it).
    """

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER, probability=True, class_weight=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter, probability=probability, class_weight=class_weight)

    _option_constraints = {**MulticlassSVM._option_constraints,  # no probability option
                           "class_weight": CLASS_WEIGHT}
    _selection_free = ()  # its sigmoids decide its predictions

    def _fit(self, X, y_index, settings):
        if not self.probability:
            raise ValueError("PairwiseCouplingSVC predicts by its probabilities: probability "
                             "must be True")
        return super()._fit(X, y_index, settings)

    def _scores(self, X):
        """The coupled class probabilities (their argmax is the prediction)."""
        return self._proba(X)
