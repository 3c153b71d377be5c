"""A toy scheme in one file, to prove that a scheme is one file plus one registry line.

Confidence-weighted voting over the pairwise machines: each pairwise SVM gives its preferred
class the vote tanh(sharpness |f(x)|) instead of Max Wins' whole vote.  It trains what Max Wins
trains, so its saved arrays, cost and kernel evaluations are Max Wins' (inherited declarations).
Its own option ``sharpness`` is declared with its constraint here, and nowhere else: the config
(``scheme_options: {toyvote: {sharpness: ...}}``) and the estimator check it by it.
"""

import numpy as np

from multisvm_cli.estimators._pairwise import class_pairs
from multisvm_cli.estimators.maxwins import MaxWinsSVC
from multisvm_cli.estimators.options import Option, check_positive
from multisvm_cli.estimators.registry import Scheme

SCHEME = Scheme("toyvote", "Toy vote", f"{__name__}:ToyVoteSVC", "confidence-weighted pairwise votes")


class ToyVoteSVC(MaxWinsSVC):
    """Max Wins' machines, each vote weighted by tanh(sharpness |f(x)|); ties to the lowest
    class."""

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=200, memory_mb=2048, tol=1e-3,
                 solver="libsvm", max_iter="libsvm", probability=False, class_weight=None,
                 sharpness=1.0):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter, probability=probability, class_weight=class_weight)
        self.sharpness = sharpness

    _option_constraints = {**MaxWinsSVC._option_constraints,
                           "sharpness": Option(check_positive, "a number > 0 (the votes' slope)")}

    def _scores(self, X):
        n_classes = len(self.classes_)
        values = self.machines_.decision(X, self.memory_mb, self.n_jobs)
        if n_classes == 2:
            return np.column_stack([np.zeros(X.shape[0]), values[:, 0]])
        scores = np.zeros((X.shape[0], n_classes))
        for m, (first, second) in enumerate(class_pairs(n_classes)):
            weight = np.tanh(self.sharpness * np.abs(values[:, m]))
            scores[:, first] += np.where(values[:, m] < 0, weight, 0.0)
            scores[:, second] += np.where(values[:, m] >= 0, weight, 0.0)
        return scores
