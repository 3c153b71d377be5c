"""DAGSVM: the pairwise SVMs evaluated as a Decision DAG (Platt, Cristianini, Shawe-Taylor 1999)."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._base import MulticlassSVM, copy_fitted
from ._machines import MIN_THREAD_ROWS, run_in_threads, thread_count
from ._primal import load_machines
from ._pairwise import class_pairs, fit_pairwise, pair_table, pairwise_problems
from ._probability import ProbabilityMixin
from .maxwins import MaxWinsSVC
from .options import CLASS_WEIGHT, PROBABILITY, Option
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL


def check_order(name, value):
    """None (the sorted class order) or a list of distinct class labels (a permutation of the
    classes, checked against them at fit time)."""
    if value is None:
        return
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise ValueError(f"{name} must list every class exactly once, got {value!r}")
    labels = list(value)
    if len({repr(v) for v in labels}) != len(labels):
        raise ValueError(f"{name} must list every class exactly once; it repeats one: {labels!r}")


def order_positions(name, order, classes):
    """The positions in the sorted ``classes`` of ``order`` (None: the sorted order itself);
    ValueError unless ``order`` lists every class exactly once."""
    classes = np.asarray(classes)
    if order is None:
        return np.arange(len(classes))
    n_classes = len(classes)
    try:
        order = np.asarray(order)
        positions = np.searchsorted(classes, order) if order.ndim == 1 else None
        ok = (positions is not None and len(order) == n_classes and np.all(positions < n_classes)
              and np.all(classes[np.minimum(positions, n_classes - 1)] == order)
              and len(np.unique(positions)) == n_classes)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must list every class exactly once: {classes.tolist()}")
    return positions


def fixed_order(name, order):
    """ValueError when ``order`` lists classes: a classes sweep draws other classes."""
    if order is not None:
        raise ValueError(f"a classes sweep changes the classes, but {name} lists them; use "
                         f"order: natural")


class DAGSVC(ProbabilityMixin, MulticlassSVM):
    """Decision DAG multiclass SVM (DAGSVM).

    Training: the same K = N(N-1)/2 pairwise SVMs as Max Wins (``from_maxwins`` reuses a fitted
    MaxWinsSVC's machines and fit times).

    Prediction, the list algorithm of Platt et al.: start with the list of all classes (sorted
    class order, or ``order``, a permutation of the class labels); test the first class of the
    list against the last with their pairwise SVM; drop the loser from the list; repeat until
    one class is left.  The list is always a contiguous part of the initial order, so a point's
    state is one position; points are grouped by the node they are at and each node computes
    kernel values against its own support vectors only (N-1 node evaluations per point).

    ``decision_function``: the score of a class is the step (0 .. N-2) at which it was dropped;
    the remaining class scores N-1.

    Figures: ``kernel_evaluations(X)`` = the number of unique support vectors over the N-1
    nodes on each point's evaluation path, averaged over the points of X; ``n_parameters_`` as
    for Max Wins (same machines).

    ``probability=True``: ``predict_proba`` is Max Wins' (Platt's sigmoid on every pairwise
    SVM, Wu, Lin & Weng's method 2 coupling), which evaluates all K machines.
    """

    _point_cost = MaxWinsSVC._point_cost  # the same pairwise machines

    @staticmethod
    def _machine_bounds(n_classes):
        """One machine per pair of classes."""
        return (n_classes * (n_classes - 1) // 2,) * 2

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER, order=None, probability=False,
                 class_weight=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.class_weight = class_weight
        self.order = order
        self.probability = probability

    _option_constraints = {
        **MulticlassSVM._option_constraints,
        "order": Option(check_order, "natural, or a list of every class label",
                        fits=order_positions, sweeps=fixed_order, words=(("natural", None),)),
        "probability": PROBABILITY, "class_weight": CLASS_WEIGHT}

    @classmethod
    def from_maxwins(cls, maxwins, order=None, probability=None):
        """A fitted instance sharing the pairwise machines, fit times, SMO iterations, reused
        machine count and training memory of a fitted MaxWinsSVC, and its sigmoids when
        ``probability`` (None: Max Wins' own setting; True needs a Max Wins fitted with
        probability=True, else ValueError)."""
        if not isinstance(maxwins, MaxWinsSVC):
            raise ValueError(f"from_maxwins needs a fitted MaxWinsSVC, got {type(maxwins).__name__}")
        check_is_fitted(maxwins)
        probability = maxwins.probability if probability is None else probability
        if probability and not hasattr(maxwins, "probA_"):
            raise ValueError("probability=True needs a MaxWinsSVC fitted with probability=True")
        dag = cls(**{**maxwins.get_params(), "probability": probability}, order=order)
        copy_fitted(maxwins, dag, ("probA_", "probB_") if probability else ())
        dag._set_order()
        dag._set_figures()
        return dag

    @classmethod
    def from_trained(cls, trainer, options, y=None):
        """:meth:`from_maxwins` with this scheme's ``scheme_options`` (``order``, ``probability``):
        how the protocol builds a reader of Max Wins' machines (registry ``trained_with``;
        ``y`` is not needed)."""
        return cls.from_maxwins(trainer, order=options.get("order"),
                                probability=bool(options.get("probability", False)))

    def with_order(self, order):
        """A fitted copy of this DAG that walks its classes in ``order`` (a permutation of
        ``classes_``, or None for the sorted order): the same pairwise machines, no refit.
        ValueError when ``order`` does not list every class exactly once."""
        check_is_fitted(self)
        copy = type(self)(**{**self.get_params(), "order": order})
        for name, value in vars(self).items():
            if name.endswith("_") and name != "order_":
                setattr(copy, name, value)
        copy._set_order()
        return copy

    def _set_order(self):
        """Class indices of the initial list: sorted classes, or ``order`` (a permutation)."""
        self.order_ = order_positions("order", self.order, self.classes_)

    def _fit(self, X, y_index, settings):
        self._set_order()
        n_classes = len(self.classes_)
        self.machines_, fits = fit_pairwise(X, y_index, n_classes, settings)
        return fits + self._fit_probability(X, y_index, settings,
                                            pairwise_problems(y_index, n_classes))

    _proba = MaxWinsSVC._proba  # the same pairwise machines and sigmoids

    def _walk(self, X):
        """Run the list algorithm; return (dropped, nodes): the class dropped at each step and
        the machine evaluated there, both (n, N-1).  With ``n_jobs`` threads, each thread walks
        its own share of the points (few, long tasks: the nodes' small blocks hold the GIL
        too often for finer sharing to pay)."""
        n_threads = min(thread_count(self.n_jobs), X.shape[0] // MIN_THREAD_ROWS)
        if n_threads < 2:
            return self._walk_part(X)
        shares = np.array_split(np.arange(X.shape[0]), n_threads)
        results = run_in_threads(lambda rows: self._walk_part(X[rows]), shares, n_threads)
        return tuple(np.concatenate(parts) for parts in zip(*results))

    def _walk_part(self, X):
        n_points, n_classes = X.shape[0], len(self.classes_)
        table = pair_table(n_classes)
        first = np.zeros(n_points, dtype=np.intp)  # position of the list's first class in order_
        dropped = np.empty((n_points, n_classes - 1), dtype=np.intp)
        nodes = np.empty((n_points, n_classes - 1), dtype=np.intp)
        points_operand = self.machines_.node_points(X)
        for step in range(n_classes - 1):
            width = n_classes - 1 - step
            sorter = np.argsort(first, kind="stable")
            groups = []  # (machine, points, lower class, higher class, list head)
            for points in np.split(sorter, np.flatnonzero(np.diff(first[sorter])) + 1):
                if len(points):
                    head, tail = self.order_[first[points[0]]], self.order_[first[points[0]] + width]
                    low, high = min(head, tail), max(head, tail)
                    groups.append((table[low, high], points, low, high, head))
            values = self.machines_.decision_groups(points_operand, [g[:2] for g in groups],
                                                    self.memory_mb)
            for (machine, points, low, high, head), node_values in zip(groups, values):
                loser = np.where(node_values < 0, high, low)
                dropped[points, step] = loser
                nodes[points, step] = machine
                first[points] += loser == head
        return dropped, nodes

    def _scores(self, X):
        n_classes = len(self.classes_)
        dropped, _ = self._walk(X)
        scores = np.full((X.shape[0], n_classes), float(n_classes - 1))
        rows = np.arange(X.shape[0])[:, None]
        scores[rows, dropped] = np.arange(n_classes - 1)[None, :]
        return scores

    def _kernel_evaluations(self, X):
        _, nodes = self._walk(X)
        used = np.zeros((X.shape[0], self.machines_.n_machines), dtype=bool)
        used[np.arange(X.shape[0])[:, None], nodes] = True
        return self.machines_.mean_evaluations(used)

    def _set_state(self, meta, arrays, kernel):
        n_classes = len(self.classes_)
        self._set_order()
        self.machines_ = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                              len(class_pairs(n_classes)))
        self._set_probability(arrays)
