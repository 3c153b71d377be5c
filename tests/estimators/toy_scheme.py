"""A toy scheme in one file, to prove that a scheme is one file plus one registry line.

Confidence-weighted voting over the pairwise machines: each pairwise SVM gives its preferred
class the vote tanh(|f(x)|) instead of Max Wins' whole vote.  It trains what Max Wins trains,
so its saved arrays, cost and kernel evaluations are Max Wins' (inherited declarations).
"""

import numpy as np

from multisvm_cli.estimators._pairwise import class_pairs
from multisvm_cli.estimators.maxwins import MaxWinsSVC
from multisvm_cli.estimators.registry import Scheme

SCHEME = Scheme("toyvote", "Toy vote", f"{__name__}:ToyVoteSVC", "confidence-weighted pairwise votes")


class ToyVoteSVC(MaxWinsSVC):
    """Max Wins' machines, each vote weighted by tanh(|f(x)|); ties to the lowest class."""

    def _scores(self, X):
        n_classes = len(self.classes_)
        values = self.machines_.decision(X, self.memory_mb, self.n_jobs)
        if n_classes == 2:
            return np.column_stack([np.zeros(X.shape[0]), values[:, 0]])
        scores = np.zeros((X.shape[0], n_classes))
        for m, (first, second) in enumerate(class_pairs(n_classes)):
            weight = np.tanh(np.abs(values[:, m]))
            scores[:, first] += np.where(values[:, m] < 0, weight, 0.0)
            scores[:, second] += np.where(values[:, m] >= 0, weight, 0.0)
        return scores
