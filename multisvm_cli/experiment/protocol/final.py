"""Final fits and tests: each fold's selected point retrained on its training part, tested once."""

from __future__ import annotations

import numpy as np

from ...estimators.registry import ORDER_STUDY, scheme_groups
from ..run.progress import progress_bar
from .fitting import Stopwatch, fit_group, naming_the_row
from .selection import _of_estimate, select, select_cv_best


def fold_tests(search, folds, rows, n_jobs=1, repeat=0, dag_orders=0, estimate="nested"):
    """{scheme: [one test per fold]}: for each scheme of ``search`` (:class:`.search.Search`),
    each fold's selected point retrained on its training part and tested once (see
    :func:`_test`; :func:`.pooling._pool` makes one Table-1 result of them).

    ``estimate``: ``nested`` selects on each fold's own validation rows; ``cv-best`` fits the
    one point of lowest pooled cross-validation error on every fold (its pooled test error is
    then exactly that cross-validation error). With ``dag_orders`` = N, the DAG's tests also
    hold its N random class orders' wrong counts and kernel evaluations
    (:func:`dag_order_study`)."""
    plan, schemes, options, seed = search.plan, search.schemes, search.options, search.seed
    per_scheme = {s: [] for s in schemes}
    best = ({s: select_cv_best(rows, plan, s) for s in schemes} if estimate == "cv-best"
            else None)
    rows = _of_estimate(rows, estimate)
    for fold in folds:
        chosen = best or {s: select(rows, plan, s, fold.index) for s in schemes}
        for group in _final_groups(schemes, chosen, options):
            point = chosen[group[0]]["point"]
            with naming_the_row(group, options):
                fitted, notes, _ = fit_group(group, point.params(), options, fold.X_train,
                                             fold.y_train, n_jobs, seed)
            for scheme, estimator in fitted.items():
                with naming_the_row([scheme], options):
                    test = _test(estimator, fold, chosen[scheme], notes)
                test.update(repeat=repeat, fold=fold.index, n_train=len(fold.y_train))
                if scheme == ORDER_STUDY and dag_orders:
                    test["orders"] = dag_order_study(estimator, fold.X_test, fold.y_test,
                                                     random_orders(estimator.classes_,
                                                                   dag_orders, seed))
                per_scheme[scheme].append(test)
    return per_scheme

def random_orders(classes, n, seed) -> list:
    """``n`` random orders of ``classes`` (uniform permutations, numpy's default generator
    seeded by ``seed``): the same orders for the same classes and seed."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(np.asarray(classes)) for _ in range(n)]

def dag_order_study(dag, X_test, y_test, orders) -> dict:
    """The fitted DAG ``dag`` tested under each class order of ``orders`` (same machines, no
    refit): {"orders": [...], "n_wrong": [...], "kernel_evaluations": [...]} (per order: its
    class list, wrong test points, kernel evaluations per test point)."""
    wrong, evaluations = [], []
    # a long study (dag_orders: 100000 is minutes on digits) shows a bar on a terminal
    with progress_bar(len(orders), "DAG class orders", quiet=len(orders) < 1000) as bar:
        for order in orders:
            walked = dag.with_order(order)
            wrong.append(int(np.sum(walked.predict(X_test) != y_test)))
            evaluations.append(float(walked.kernel_evaluations(X_test)))
            bar.update(1)
    return {"orders": [[c.item() if hasattr(c, "item") else c for c in order]
                       for order in orders],
            "n_wrong": wrong, "kernel_evaluations": evaluations}


def _final_groups(schemes, chosen, options=None):
    """Share a group's training (Max Wins with DAGSVM and ADAG) among the readers that chose
    the trainer's point; a reader that chose another point is trained alone."""
    groups = []
    for trainer, *readers in scheme_groups(schemes, options):
        same = [r for r in readers if chosen[r]["point"] == chosen[trainer]["point"]]
        groups.append((trainer, *same))
        groups.extend((r,) for r in readers if r not in same)
    return groups


def _test(estimator, fold, chosen, notes):
    watch = Stopwatch()
    predicted = estimator.predict(fold.X_test)
    evaluation_time = watch.wall
    return {"point": chosen["point"], "validation_error": chosen["validation_error"],
            "ties": int(chosen["ties"]), "smo_iterations": _or_none(int, estimator.smo_iterations_),
            "correct": predicted == fold.y_test, "predicted": predicted,
            "truth": fold.y_test, "rows": fold.test_rows, "classes": estimator.classes_,
            "kernel_evaluations": _or_none(float, estimator.kernel_evaluations(fold.X_test)),
            "cpu_time": float(estimator.fit_cpu_time_),
            "size": _or_none(int, estimator.n_parameters_),
            "n_support_vectors": _or_none(int, estimator.n_support_vectors_),
            "evaluation_time": evaluation_time, "notes": notes,
            "max_train_memory": getattr(estimator, "max_train_memory_", None),
            "primal": bool(getattr(estimator, "primal_", False)),
            **_levels(estimator, fold), **_probabilities(estimator, fold)}


def _probabilities(estimator, fold) -> dict:
    """The test part's log-loss and Brier score when the scheme gives class probabilities
    (``predict_proba``; {} otherwise): the mean over the test points of -ln p(true class)
    (p clipped at 1e-15) and of sum over the classes of (p_c - [c is the true class])^2
    (Brier 1950's multiclass score, 0 to 2); ``proba``: the probabilities themselves
    (predictions.csv's columns, one per class of ``classes_``)."""
    if not hasattr(estimator, "predict_proba"):
        return {}
    proba = estimator.predict_proba(fold.X_test)
    truth = (np.asarray(fold.y_test)[:, None] == estimator.classes_[None, :]).astype(float)
    true_p = np.clip((proba * truth).sum(axis=1), 1e-15, 1.0)
    return {"proba": proba, "log_loss": float(-np.mean(np.log(true_p))),
            "brier": float(np.mean(((proba - truth) ** 2).sum(axis=1))),
            "reliability": reliability_counts(proba, truth)}


RELIABILITY_BINS = 10  # equal-width bins of the top class probability, [0, 0.1), ..., [0.9, 1]


def reliability_counts(proba, truth) -> dict:
    """The reliability (calibration) diagram's sums of one test part: the points binned by
    their predicted class's probability (the largest; :data:`RELIABILITY_BINS` equal-width bins
    over [0, 1]), per bin the point count, the sum of those probabilities and the number
    predicted right (the predicted class: the most probable one). Sums, so that splits pool by
    adding them; the curve is (sum / count, right / count) per bin (DeGroot & Fienberg 1983,
    as scikit-learn's ``calibration_curve`` draws it for one class)."""
    top = proba.max(axis=1)
    right = truth[np.arange(len(truth)), proba.argmax(axis=1)] == 1
    bins = np.minimum((top * RELIABILITY_BINS).astype(int), RELIABILITY_BINS - 1)
    count = np.bincount(bins, minlength=RELIABILITY_BINS)
    return {"count": count.tolist(),
            "confidence": np.bincount(bins, weights=top, minlength=RELIABILITY_BINS).tolist(),
            "right": np.bincount(bins, weights=right, minlength=RELIABILITY_BINS).astype(int).tolist()}


def _or_none(kind, value):
    """``kind(value)``; None stays None (a figure the scheme does not define)."""
    return None if value is None else kind(value)


def _levels(estimator, fold) -> dict:
    """Hier's level-1 and level-2 test accuracies (``HierSVC.level_accuracies``); {} for the
    other schemes."""
    if not hasattr(estimator, "level_accuracies"):
        return {}
    level1, level2 = estimator.level_accuracies(fold.X_test, fold.y_test)
    return {"level1_accuracy": float(level1), "level2_accuracy": float(level2)}
