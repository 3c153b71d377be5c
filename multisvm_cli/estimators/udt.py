"""Unbalanced Decision Tree (UDT) of one-vs-rest SVMs (Ramanan, Suppharangsan, Niranjan 2007)."""

import numpy as np
from ._base import MulticlassSVM, split_holdout
from .options import CLASS_WEIGHT, HOLDOUT
from ._schema import INT
from ._binary import fit_binary, fit_one_vs_rest
from ._primal import build_machines, load_machines
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL


class UDTSVC(MulticlassSVM):
    """Unbalanced Decision Tree multiclass SVM.

    Training, level by level: for every remaining class c, train a one-vs-rest SVM (c against
    the other remaining classes) on the fit part of the remaining training data; keep the class
    whose SVM has the best accuracy on the held-out part (``holdout`` share of each class,
    seeded by ``random_state``; the fit part itself if nothing is held out; ties to the lowest
    class index); retrain that node's SVM on all remaining training data; remove the class; go
    on until one class is left (N-1 nodes; with two classes left, one SVM decides).

    Prediction: evaluate the nodes in order and stop at the first whose SVM claims its class
    (f(x) > 0); a point no node claims gets the last remaining class.  Points are grouped by
    node, so each node computes kernel values only for the points that reach it.

    ``decision_function``: with classes listed in node order (the last class at the end), a
    point exiting at position e scores each class by min(its position, e), and the predicted
    class scores N.

    Figures: ``kernel_evaluations(X)`` = unique support vectors over the nodes a point evaluates
    (up to and including its exit node), averaged over X; ``n_parameters_`` = non-zeros of the
    unique SVs + non-zero dual coefficients + N-1 biases.
    """

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """The machines, and ``level_order`` (N): the classes in the order the tree splits them off."""
        return {**super()._array_schema(params, n_classes, n_features, shapes),
                "level_order": (INT, (n_classes,))}

    @staticmethod
    def _machine_bounds(n_classes):
        """One machine per node."""
        return (n_classes - 1, n_classes - 1)

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER, holdout=0.3, class_weight=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.class_weight = class_weight
        self.holdout = holdout

    _option_constraints = {**MulticlassSVM._option_constraints, "holdout": HOLDOUT,
                           "class_weight": CLASS_WEIGHT}

    def _fit(self, X, y_index, settings):
        fit_rows, held_rows = split_holdout(y_index, self.holdout, self.random_state)
        remaining, claimed, node_fits, all_fits = list(range(len(self.classes_))), [], [], []
        while len(remaining) > 1:
            best, fits = self._best_node(X, y_index, fit_rows, held_rows, remaining, settings)
            rows = np.flatnonzero(np.isin(y_index, remaining))
            node_fits.append(fit_binary(X, rows, y_index[rows] == best, settings))
            all_fits += fits + node_fits[-1:]
            claimed.append(best)
            remaining.remove(best)
        self.level_order_ = np.array(claimed + remaining)
        self.machines_ = build_machines(settings, X, node_fits, y_index)
        return all_fits

    def _best_node(self, X, y_index, fit_rows, held_rows, remaining, settings):
        """The remaining class whose one-vs-rest SVM (trained on fit rows) is most accurate on
        the held-out rows; returns (class, the candidate fits)."""
        classes = np.array(remaining)
        fit_part = fit_rows[np.isin(y_index[fit_rows], classes)]
        held_part = held_rows[np.isin(y_index[held_rows], classes)]
        if len(held_part) == 0:
            held_part = fit_part
        fits = fit_one_vs_rest(X, y_index, fit_part, classes, settings)
        candidates = classes[1:] if len(classes) == 2 else classes
        machines = build_machines(settings, X, fits, y_index)
        values = machines.decision(X[held_part], self.memory_mb, self.n_jobs)
        accuracy = np.mean((values > 0) == (y_index[held_part, None] == candidates[None, :]), axis=0)
        return int(candidates[np.argmax(accuracy)]), fits

    def _exits(self, X):
        """Position in ``level_order_`` of each point's class: its exit node, or N-1 (no node
        claimed it)."""
        exits = np.full(X.shape[0], len(self.classes_) - 1)
        alive = np.arange(X.shape[0])
        points = self.machines_.node_points(X)
        for level in range(len(self.classes_) - 1):
            if len(alive) == 0:
                break
            claimed = self.machines_.decision_groups(points, [(level, alive)], self.memory_mb,
                                                     self.n_jobs)[0] > 0
            exits[alive[claimed]] = level
            alive = alive[~claimed]
        return exits

    def _scores(self, X):
        n_classes = len(self.classes_)
        exits = self._exits(X)
        position = np.empty(n_classes, dtype=np.intp)
        position[self.level_order_] = np.arange(n_classes)
        scores = np.minimum(position[None, :], exits[:, None]).astype(float)
        scores[np.arange(X.shape[0]), self.level_order_[exits]] = n_classes
        return scores

    def _kernel_evaluations(self, X):
        last_node = np.minimum(self._exits(X), len(self.classes_) - 2)
        used = np.arange(len(self.classes_) - 1)[None, :] <= last_node[:, None]
        return self.machines_.mean_evaluations(used)

    def _get_state(self):
        meta, arrays = super()._get_state()
        return meta, {**arrays, "level_order": self.level_order_.astype(np.int64)}

    def _set_state(self, meta, arrays, kernel):
        n_classes = len(self.classes_)
        order = arrays["level_order"]
        if order.shape != (n_classes,) or not np.array_equal(np.sort(order), np.arange(n_classes)):
            raise ValueError("level_order must be a permutation of the class indices")
        self.level_order_ = order.astype(np.intp)
        self.machines_ = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                       n_classes - 1)
