"""ADAG: the pairwise SVMs evaluated as an Adaptive DAG (Kijsirikul & Ussivakul 2002)."""

import numpy as np

from ._pairwise import pair_table
from .dag import DAGSVC


class ADAGSVC(DAGSVC):
    """Adaptive Directed Acyclic Graph multiclass SVM (ADAG; Kijsirikul & Ussivakul 2002,
    "Multiclass support vector machines using adaptive directed acyclic graph", IJCNN).

    Training: the same K = N(N-1)/2 pairwise SVMs as Max Wins (``from_maxwins`` reuses a fitted
    MaxWinsSVC's machines, as the DAG does).

    Prediction, the reversed-triangle tournament: the list of classes (sorted, or ``order``) is
    paired first against last, second against second to last, ...; each pair's SVM decides its
    match; the winners, in the order of their matches, followed by the middle class when the list
    is odd (it sits this round out), form the next round's list; the last class left is the
    prediction.  Each match drops one class, so a point takes N-1 machine evaluations, as in the
    DAG; but the winning class plays at most ceil(log2 N) matches, where the DAG may test it at
    up to N-1 nodes of its path (the paper's motivation: fewer chances for the true class to be
    dropped by a machine not trained on either class's opponent).  Points are grouped by the machine they
    need, round by round, and each machine computes kernel values against its own support
    vectors only.

    ``decision_function``: a class scores the match number (0 .. N-2, in play order) at which it
    lost; the winner scores N-1.

    Figures: ``kernel_evaluations(X)`` = the unique support vectors over the N-1 machines each
    point's matches use, averaged over the points of X (counted as for the DAG);
    ``n_parameters_`` as for Max Wins (same machines).  ``probability=True``: as the DAG's.
    """

    def _walk_part(self, X):
        """Play the tournament; return (dropped, nodes), both (n, N-1): the class dropped at
        each match and the machine that decided it, matches in play order."""
        n_points, n_classes = X.shape[0], len(self.classes_)
        table = pair_table(n_classes)
        current = np.tile(self.order_, (n_points, 1))
        dropped = np.empty((n_points, n_classes - 1), dtype=np.intp)
        nodes = np.empty((n_points, n_classes - 1), dtype=np.intp)
        points_operand = self.machines_.node_points(X)
        played = 0
        while current.shape[1] > 1:
            width = current.shape[1]
            half = width // 2
            heads, tails = current[:, :half], current[:, width - 1 - np.arange(half)]
            low, high = np.minimum(heads, tails), np.maximum(heads, tails)
            machines = table[low, high]
            winners = self._matches(points_operand, machines, low, high)
            dropped[:, played:played + half] = low + high - winners
            nodes[:, played:played + half] = machines
            played += half
            current = np.concatenate([winners, current[:, half:width - half]], axis=1)
        return dropped, nodes

    def _matches(self, points_operand, machines, low, high):
        """The winner of each match: ``machines``, ``low`` and ``high`` are (n, matches) arrays
        of the machine and its two classes for each point's match; the points that need one
        machine are evaluated together."""
        flat = machines.ravel()
        point_of = np.repeat(np.arange(machines.shape[0]), machines.shape[1])
        sorter = np.argsort(flat, kind="stable")
        parts = np.split(sorter, np.flatnonzero(np.diff(flat[sorter])) + 1)
        parts = [part for part in parts if len(part)]
        values = self.machines_.decision_groups(points_operand,
                                                [(flat[part[0]], point_of[part]) for part in parts],
                                                self.memory_mb)
        decision = np.empty(len(flat))
        for part, part_values in zip(parts, values):
            decision[part] = part_values
        decision = decision.reshape(machines.shape)
        return np.where(decision < 0, low, high)
