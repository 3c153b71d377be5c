"""Model selection and testing, as in Platt, Cristianini, Shawe-Taylor (1999), section 5.

For each dataset and each outer fold (the dataset's own train/test split, a seeded stratified
holdout test part, or k folds), the scaler is fitted on the training part only. Then, for each
scheme, every (kernel, C) grid point is trained on the validation-training rows (70% of the
training part, stratified and seeded; or the dataset's own validation part with ``given``; or
k-fold) and scored by the combined multiclass error on the held-out rows. Each scheme selects
its own point (lowest validation error; ties go to the simpler model, ``GridPoint.simplicity``:
smaller C, then the simpler kernel, then the wider Gaussian, whatever the grid's order; the
number of tied points is kept), which is retrained on the whole training part and tested once
on the test part: the ``nested`` estimate.

The ``cv-best`` estimate (Hsu & Lin 2002, reported by the UDT paper) scores every grid point on
the outer folds themselves: trained on each fold's training part, tested on its test part, the
errors pooled over the k folds; the point with the lowest pooled error is chosen and that error
reported (optimistic: chosen on the folds it is reported on).  What the two estimates share:
the outer folds and their scaling; the cv-best fits at a point are the fits the nested estimate
makes when it selects that point (the final fits are redone rather than keeping every grid
point's model: they are 1/len(grid) of the work); and both estimates' grid tasks run in one
pool, so the slow ones of either keep both cores busy.  They share no validation fits: the
nested estimate's grid is trained on a 70/30 (or k-fold) split of each training part, the
cv-best one on the whole training part.

Max Wins and DAGSVM share their pairwise machines: at each grid point the pairwise SVMs are
trained once and both schemes are scored from them (``DAGSVC.from_maxwins``), as in Table 1.
Grid points that differ only in C are scored in one task, in which 1-v-r's fits share one
training Gram matrix (when it fits ``memory_mb``; on USPS this saves 0.17 s of a 0.45 s fit).
The pairwise SVMs do not use it: gathering a pair's rows from it cost more than libsvm computing
the few kernel columns SMO visits (measured on USPS).  Tasks are dispatched through
``joblib.Parallel`` (threads unless told otherwise: libsvm and BLAS release the GIL), so
``joblib.parallel_config`` (loky, threading, dask) decides where they run; each finished task's
points are written to the resume cache at once.

Repeats (``Config.repeats``): repeat r runs the whole protocol again with the split's and the
validation's seeds increased by r (:func:`repeat_plan`); every outer fold of every repeat is one
*split* whose test error results.json keeps. A scheme's ``error_pct`` pools the test points of
all splits; ``error_sd`` is the sample standard deviation (ddof = 1) of the splits' test errors
(None for a single split).

The DAG order study (``Config.dag_orders`` = N): the selected DAGSVM of every final fit is
tested again under N random class orders, the same N orders (seeded by the config's seed) on
every split, without refitting (:meth:`DAGSVC.with_order`); each order's test error is pooled
over the splits like ``error_pct``.
"""

from __future__ import annotations

import math
import time
import warnings
from collections import Counter
from contextlib import nullcontext
from dataclasses import replace
from statistics import stdev

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from ..estimators import REGISTRY
from ..kernels import Kernel, gram_fits, single_threaded_blas, threadpools
from ..parallel import resolve_n_jobs
from ..storage import PointCache
from .splits import named_warnings, scaled_folds, validation_size, validation_splits

# Schemes trained together: a scheme that reads another's fitted machines (DAGSVM reads Max Wins'
# pairwise SVMs), as (trainer, reader).
SHARED_GROUP = next((s.trained_with, s.name) for s in REGISTRY.values() if s.trained_with)
GRAM_SCHEMES = ("ovr",)  # schemes that read a Gram matrix shared across C
KERNEL_PARAMS = ("kernel", "sigma", "gamma", "degree", "homogeneous")


class Stopwatch:
    """Wall-clock seconds since creation."""

    def __init__(self):
        self.start = time.perf_counter()

    @property
    def wall(self) -> float:
        return time.perf_counter() - self.start


def kernel_free(scheme) -> bool:
    """Whether ``scheme`` uses neither kernel nor C (scored at one grid point only)."""
    return REGISTRY[scheme].kernel_free


# --------------------------------------------------------------------------- estimators

def scheme_groups(schemes):
    """Schemes grouped by shared training: Max Wins and DAG together when both are run."""
    shared = all(s in schemes for s in SHARED_GROUP)
    groups = [SHARED_GROUP] if shared else []
    return groups + [(s,) for s in schemes if not (shared and s in SHARED_GROUP)]


def make_estimator(scheme, params, options, n_jobs, seed):
    """An unfitted estimator of ``scheme`` at grid point ``params``."""
    return REGISTRY[scheme].estimator(**params, **options.get(scheme, {}), n_jobs=n_jobs, random_state=seed)


class NonFiniteFit(ValueError):
    """libsvm's dual coefficients overflowed at a grid point (kernel values too large for the
    data's scale): one line naming the scheme, kernel and C, and the dataset once
    :func:`run_protocol` adds it."""

    @classmethod
    def at(cls, group, params):
        kernel = " ".join(f"{k}={v}" for k, v in params.items() if k != "C")
        return cls(f"{'/'.join(group)}, {kernel}, C={params['C']:g}: libsvm's dual "
                   f"coefficients are not finite (kernel values too large); scale the features "
                   f"or lower the polynomial degree")


def fit_group(group, params, options, X, y, n_jobs, seed, gram=None):
    """Fit the schemes of a group; Max Wins + DAG train their pairwise SVMs once.

    ``gram``: K(X, X) under the point's kernel, shared by the group's points (or None).
    Returns ({scheme: fitted estimator}, [warning messages], wall seconds).
    """
    watch = Stopwatch()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            first = make_estimator(group[0], params, options, n_jobs, seed).fit(X, y, gram=gram)
        except ValueError as exc:
            raise NonFiniteFit.at(group, params) if "not finite" in str(exc) else exc
        fitted = {group[0]: first}
        if group == SHARED_GROUP:
            reader = SHARED_GROUP[1]
            fitted[reader] = REGISTRY[reader].estimator.from_maxwins(
                first, order=options.get(reader, {}).get("order"))
    notes = sorted({f"{w.category.__name__}: {' '.join(str(w.message).split())}" for w in caught})
    return fitted, notes, watch.wall


def shared_gram(group, params, options, X, seed, cpu_clock):
    """(K(X, X), wall seconds, CPU seconds by ``cpu_clock``) under the kernel of ``params`` when
    the group's schemes read a shared Gram matrix and it fits their ``memory_mb``; else
    (None, 0, 0)."""
    if group[0] not in GRAM_SCHEMES:
        return None, 0.0, 0.0
    if not gram_fits(X.shape[0], make_estimator(group[0], params, options, 1, seed).memory_mb):
        return None, 0.0, 0.0
    watch, cpu = Stopwatch(), cpu_clock()
    kernel = Kernel.from_params(**{key: params[key] for key in KERNEL_PARAMS if key in params})
    gram = kernel.gram(X)
    return gram, watch.wall, cpu_clock() - cpu


def task_cpu_clock():
    """The CPU clock that counts one grid task's own work.

    A task's estimators get ``n_jobs=1``, so libsvm and numpy run in the task's thread; when
    BLAS runs on one thread too (grid_search sets that whenever tasks run side by side), that
    thread's clock holds all of the task's work and none of its neighbours'.  Otherwise (BLAS
    threads, i.e. one task at a time) the process's clock does.
    """
    blas = [pool for pool in threadpools().info() if pool["user_api"] == "blas"]
    if all(pool["num_threads"] == 1 for pool in blas):
        return time.thread_time
    return time.process_time


def score_points(group, points, options, splits, seed):
    """Validation errors of the group's schemes at grid points that differ only in C (pooled
    over the splits): one {scheme: result} per point.

    Each split's training Gram matrix is made once for all the points (see
    :func:`shared_gram`); its time counts in the first point's fit time.  Fit CPU seconds are
    the task's own (:func:`task_cpu_clock`), even while other tasks run beside it.
    """
    results = [{s: {"n_errors": 0, "n_validation": 0, "fit_cpu": 0.0, "fit_wall": 0.0,
                    "predict_wall": 0.0, "n_support_vectors": 0.0, "kernel_evaluations": 0.0,
                    "size": 0.0, "smo_iterations": 0, "notes": []} for s in group}
               for _ in points]
    cpu_clock = task_cpu_clock()
    for X_fit, y_fit, X_score, y_score in splits:
        gram, gram_wall, gram_cpu = shared_gram(group, points[0], options, X_fit, seed,
                                                cpu_clock)
        for index, params in enumerate(points):
            started = cpu_clock()
            fitted, notes, fit_wall = fit_group(group, params, options, X_fit, y_fit, 1, seed,
                                                gram)
            fit_cpu = cpu_clock() - started
            if index == 0:
                fit_wall, fit_cpu = fit_wall + gram_wall, fit_cpu + gram_cpu
            for scheme, estimator in fitted.items():
                watch = Stopwatch()
                wrong = int(np.sum(estimator.predict(X_score) != y_score))
                entry = results[index][scheme]
                entry["n_errors"] += wrong
                entry["n_validation"] += len(y_score)
                entry["fit_cpu"] += fit_cpu
                entry["fit_wall"] += fit_wall
                entry["predict_wall"] += watch.wall
                entry["smo_iterations"] += int(estimator.smo_iterations_)
                entry["notes"] = sorted(set(entry["notes"]) | set(notes))
                _add_figures(entry, estimator, X_score, len(splits))
    for point_results in results:
        for entry in point_results.values():
            entry["validation_error"] = entry["n_errors"] / entry["n_validation"]
            entry["kernel_evaluations"] /= entry["n_validation"]
    return results


def _add_figures(entry, estimator, X_score, n_splits):
    """Add one split's model figures to a point's result: support vectors and classifier size
    averaged over the ``n_splits`` validation splits, kernel evaluations per validation point
    (Platt's definition, ``kernel_evaluations``) summed here, weighted by the split's points
    (:func:`score_points` divides by all the points scored)."""
    entry["n_support_vectors"] += estimator.n_support_vectors_ / n_splits
    entry["size"] += estimator.n_parameters_ / n_splits
    entry["kernel_evaluations"] += estimator.kernel_evaluations(X_score) * X_score.shape[0]


# --------------------------------------------------------------------------- the grid search

def point_key(dataset, plan, fold, point, scheme, options, seed):
    """What identifies a grid point's result in the resume cache: the software that computed
    it (multisvm and scikit-learn versions: libsvm comes with the latter), the data (the raw
    files' checksums), the protocol (split, fold, scaling, validation, seed) and the point."""
    key = {"versions": software_versions(), "dataset": dataset.name,
           "checksums": dict(sorted(dataset.checksums.items())),
           "split": plan.split, "fold": fold.index, "scaling": plan.scaling,
           "validation": plan.validation, "point": point.params(), "scheme": scheme,
           "options": options.get(scheme, {}), "seed": seed}
    if dataset.provenance:  # a local file: its size and how it was read count too
        from ..data.local import cache_identity

        key["local"] = cache_identity(dataset)
    return key


def software_versions() -> dict:
    """The versions a grid point's result depends on."""
    import sklearn

    from .. import __version__

    return {"multisvm": __version__, "scikit-learn": sklearn.__version__}


RESULT_COUNTS = ("n_errors", "n_validation")
RESULT_TIMES = ("fit_cpu", "fit_wall", "predict_wall")
RESULT_FIGURES = ("n_support_vectors", "kernel_evaluations", "size")


def check_point_result(result):
    """ValueError unless ``result`` is a grid point's result as :func:`score_points` makes it
    (the resume cache checks every stored entry with this before use; a bad one is redone)."""
    if not isinstance(result, dict):
        raise ValueError("a point result must be a mapping")
    counts = [result.get(key) for key in RESULT_COUNTS]
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
        raise ValueError("n_errors and n_validation must be integers")
    n_errors, n_validation = counts
    if not 0 <= n_errors <= n_validation or n_validation < 1:
        raise ValueError("need 0 <= n_errors <= n_validation and n_validation >= 1")
    for key in RESULT_TIMES + RESULT_FIGURES:
        value = result.get(key)
        if (not isinstance(value, (int, float)) or isinstance(value, bool)
                or not 0 <= value < math.inf):
            raise ValueError(f"{key} must be a finite number >= 0")
    iterations = result.get("smo_iterations")  # absent in entries cached before it was kept
    if iterations is not None and (not isinstance(iterations, int) or isinstance(iterations, bool)
                                   or iterations < 0):
        raise ValueError("smo_iterations must be an integer >= 0")
    if result.get("validation_error") != n_errors / n_validation:
        raise ValueError("validation_error must be n_errors / n_validation")
    if not isinstance(result.get("notes"), list) or not all(isinstance(n, str)
                                                           for n in result["notes"]):
        raise ValueError("notes must be a list of texts")


def estimate_plan(plan, estimate):
    """The plan whose validation scores ``estimate``'s grid: the plan itself for ``nested``;
    for ``cv-best`` the outer fold's own test part (validation method ``test``)."""
    return plan if estimate == "nested" else replace(plan, validation={"method": "test"})


def grid_search(dataset, plan, folds, schemes, options, seed, cache: PointCache, n_jobs=1,
                progress=None, estimates=("nested",)):
    """Score every grid point of every scheme on every outer fold, for each of ``estimates``
    (``nested``: on the fold's validation split(s); ``cv-best``: on the fold's test part).

    Returns the long-format grid rows (one per estimate x fold x point x scheme, with
    ``estimate``, and ``cached`` telling whether it came from the resume cache). Points missing
    from the cache are scored in tasks of points that share a kernel (:func:`same_kernel_tasks`)
    through one ``joblib.Parallel`` for all estimates, and cached as soon as each task finishes.
    """
    rows, todo = [], []
    for estimate in estimates:
        scored = estimate_plan(plan, estimate)
        for fold in folds:
            expect = {"n_validation": validation_size(fold, scored.validation)}
            for point, group in grid_tasks(plan, schemes):
                keys = {s: point_key(dataset, scored, fold, point, s, options, seed)
                        for s in group}
                stored = {s: cache.get(k, expect) for s, k in keys.items()}
                if all(v is not None for v in stored.values()):
                    rows.extend(_grid_row(dataset.name, fold, point, s, stored[s], True,
                                          estimate) for s in group)
                    _advance(progress, len(group))
                else:
                    todo.append((fold, point, group, keys, estimate))
    if not todo:
        return rows
    tasks = same_kernel_tasks(todo)
    # Grid points run on the active joblib backend: its capacity is this machine's cores for
    # threads and processes, the cluster's worker threads for dask.
    outer_jobs = resolve_n_jobs(n_jobs, limit=len(tasks), capacity=effective_n_jobs(-1))
    run = Parallel(n_jobs=outer_jobs, prefer="threads", return_as="generator_unordered")
    with named_warnings(dataset.name):
        splits = {(e, fold.index): validation_splits(fold, estimate_plan(plan, e).validation)
                  for e in estimates for fold in folds}
    calls = (delayed(_task)(i, task[0][2], [entry[1].params() for entry in task], options,
                            splits[task[0][4], task[0][0].index], seed)
             for i, task in enumerate(tasks))
    # Tasks side by side in threads each get one BLAS thread: BLAS threads of their own would
    # spin between the many small products and take the cores from the other tasks' libsvm.
    with single_threaded_blas() if outer_jobs > 1 else nullcontext():
        for i, scored in run(calls):
            for (fold, point, group, keys, estimate), point_scores in zip(tasks[i], scored):
                for scheme in group:
                    cache.put(keys[scheme], point_scores[scheme])
                    rows.append(_grid_row(dataset.name, fold, point, scheme,
                                          point_scores[scheme], False, estimate))
                _advance(progress, len(group))
    return rows


def grid_tasks(plan, schemes):
    """The (grid point, scheme group) pairs to score on each fold; kernel-free schemes once."""
    return [(point, group) for i, point in enumerate(plan.grid)
            for group in scheme_groups(schemes) if i == 0 or not kernel_free(group[0])]


def same_kernel_tasks(todo):
    """``todo``'s (fold, point, group, keys[, estimate]) entries grouped into tasks of one
    estimate, one fold, one scheme group and one kernel (points differing only in C), in grid
    order."""
    tasks = {}
    for entry in todo:
        fold, point, group = entry[:3]
        estimate = entry[4] if len(entry) > 4 else "nested"
        kernel = tuple((key, value) for key, value in point.params().items() if key != "C")
        tasks.setdefault((estimate, fold.index, group, kernel), []).append(entry)
    return list(tasks.values())


def _task(i, group, points, options, splits, seed):
    return i, score_points(group, points, options, splits, seed)


def _advance(progress, n):
    if progress is not None:
        progress.update(n)


def _grid_row(dataset, fold, point, scheme, scored, cached, estimate="nested"):
    params = point.params()
    return {"dataset": dataset, "estimate": estimate, "fold": fold.index, "scheme": scheme,
            "kernel_type": params.pop("kernel"), **params, "kernel": point.kernel_label(),
            "point": point,
            "validation_error": scored["validation_error"], "n_errors": scored["n_errors"],
            "n_validation": scored["n_validation"], "fit_cpu": scored["fit_cpu"],
            "fit_wall": scored["fit_wall"], "predict_wall": scored["predict_wall"],
            "n_support_vectors": scored["n_support_vectors"],
            "kernel_evaluations": scored["kernel_evaluations"], "size": scored["size"],
            "smo_iterations": scored.get("smo_iterations"), "notes": "; ".join(scored["notes"]),
            "cached": cached}


def select(rows, plan, scheme, fold_index, estimate="nested"):
    """The grid row with the lowest validation error on one fold, with ``ties``: how many grid
    points share that error.  Ties go to the simpler model (``GridPoint.simplicity``: smaller
    C, then the simpler kernel, then the wider Gaussian), whatever the grid's order."""
    mine = [r for r in rows if r["scheme"] == scheme and r["fold"] == fold_index
            and r.get("estimate", "nested") == estimate]
    return _simplest_best(mine, plan)


def select_cv_best(rows, plan, scheme):
    """The ``cv-best`` choice: the grid point with the lowest k-fold cross-validation error on
    the outer folds (errors pooled over the folds' test parts), as a row whose
    ``validation_error`` is that pooled error, with ``ties`` as in :func:`select`."""
    pooled = {}
    for row in rows:
        if row["scheme"] == scheme and row.get("estimate") == "cv-best":
            entry = pooled.setdefault(row["point"], {"point": row["point"], "n_errors": 0,
                                                     "n_validation": 0, "smo_iterations": 0})
            entry["n_errors"] += row["n_errors"]
            entry["n_validation"] += row["n_validation"]
            entry["smo_iterations"] += row.get("smo_iterations") or 0
    chosen = _simplest_best(list(pooled.values()), plan)
    chosen["validation_error"] = chosen["n_errors"] / chosen["n_validation"]
    return chosen


def _simplest_best(rows, plan):
    """The row of lowest error (n_errors / n_validation), the simplest point on ties; a copy
    with ``ties`` = the number of rows at that error."""
    order = {point: i for i, point in enumerate(plan.grid)}

    def error(row):
        return row["n_errors"] / row["n_validation"]

    best = min(rows, key=lambda r: (error(r), r["point"].simplicity(), order[r["point"]]))
    return {**best, "ties": sum(error(r) == error(best) for r in rows)}


# --------------------------------------------------------------------------- final fit and test

def _of_estimate(rows, estimate):
    """The grid rows scored for ``estimate`` (rows without one are the nested estimate's)."""
    return [r for r in rows if r.get("estimate", "nested") == estimate]


def fold_tests(folds, plan, rows, schemes, options, seed, n_jobs=1, repeat=0, dag_orders=0,
               estimate="nested"):
    """{scheme: [one test per fold]}: each fold's selected point retrained on its training
    part and tested once (see :func:`_test`; :func:`_pool` makes one Table-1 result of them).

    ``estimate``: ``nested`` selects on each fold's own validation rows; ``cv-best`` fits the
    one point of lowest pooled cross-validation error on every fold (its pooled test error is
    then exactly that cross-validation error). With ``dag_orders`` = N, the DAG's tests also
    hold its N random class orders' wrong counts and kernel evaluations
    (:func:`dag_order_study`)."""
    per_scheme = {s: [] for s in schemes}
    best = ({s: select_cv_best(rows, plan, s) for s in schemes} if estimate == "cv-best"
            else None)
    rows = _of_estimate(rows, estimate)
    for fold in folds:
        chosen = best or {s: select(rows, plan, s, fold.index) for s in schemes}
        for group in _final_groups(schemes, chosen):
            point = chosen[group[0]]["point"]
            fitted, notes, _ = fit_group(group, point.params(), options, fold.X_train,
                                         fold.y_train, n_jobs, seed)
            for scheme, estimator in fitted.items():
                test = _test(estimator, fold, chosen[scheme], notes)
                test.update(repeat=repeat, fold=fold.index, n_train=len(fold.y_train))
                if scheme == "dag" and dag_orders:
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
    for order in orders:
        walked = dag.with_order(order)
        wrong.append(int(np.sum(walked.predict(X_test) != y_test)))
        evaluations.append(float(walked.kernel_evaluations(X_test)))
    return {"orders": [[c.item() if hasattr(c, "item") else c for c in order]
                       for order in orders],
            "n_wrong": wrong, "kernel_evaluations": evaluations}


def _final_groups(schemes, chosen):
    """Share the pairwise training of Max Wins and DAG when both chose the same point."""
    groups = scheme_groups(schemes)
    trainer, reader = SHARED_GROUP
    if SHARED_GROUP in groups and chosen[trainer]["point"] != chosen[reader]["point"]:
        groups = [g for g in groups if g != SHARED_GROUP] + [(trainer,), (reader,)]
    return groups


def _test(estimator, fold, chosen, notes):
    watch = Stopwatch()
    predicted = estimator.predict(fold.X_test)
    evaluation_time = watch.wall
    return {"point": chosen["point"], "validation_error": chosen["validation_error"],
            "ties": int(chosen["ties"]), "smo_iterations": int(estimator.smo_iterations_),
            "correct": predicted == fold.y_test, "predicted": predicted,
            "kernel_evaluations": float(estimator.kernel_evaluations(fold.X_test)),
            "cpu_time": float(estimator.fit_cpu_time_),
            "size": int(estimator.n_parameters_),
            "n_support_vectors": int(estimator.n_support_vectors_),
            "evaluation_time": evaluation_time, "notes": notes}


def _pool(dataset, scheme, tests, rows):
    """One Table-1 row for a scheme from its per-split tests (outer folds x repeats)."""
    counts = Counter(t["point"] for t in tests)
    point, n_folds = counts.most_common(1)[0]
    kernel = point.kernel_label() if not kernel_free(scheme) else "-"
    repeats = len({t.get("repeat", 0) for t in tests})
    if len(tests) > 1 and n_folds < len(tests):
        kernel += f" ({n_folds}/{len(tests)} {'splits' if repeats > 1 else 'folds'})"
    correct = np.concatenate([t["correct"] for t in tests])
    n_test = np.array([len(t["correct"]) for t in tests], dtype=float)
    mine = [r for r in rows if r["scheme"] == scheme]
    splits = [_split_record(t) for t in tests]
    pooled = {
        "dataset": dataset, "scheme": scheme, "kernel": kernel,
        "C": point.C if not kernel_free(scheme) else None,
        "params": point.params(), "selected": [t["point"].params() for t in tests],
        "selections": [{"fold": i, "params": t["point"].params(),
                        "validation_error": t["validation_error"], "ties": t["ties"]}
                       for i, t in enumerate(tests)],
        "ties": float(np.mean([t["ties"] for t in tests])),
        "smo_iterations": float(np.mean([t["smo_iterations"] for t in tests])),
        "validation_error": float(np.mean([t["validation_error"] for t in tests])),
        "n_errors": int(np.sum(~correct)), "n_test": int(len(correct)), "correct": correct,
        "error_sd": stdev(s["error_pct"] for s in splits) if len(splits) > 1 else None,
        "repeats": repeats, "splits": splits,
        "kernel_evaluations": float(np.average([t["kernel_evaluations"] for t in tests],
                                               weights=n_test)),
        "cpu_time": float(np.mean([t["cpu_time"] for t in tests])),
        "size": float(np.mean([t["size"] for t in tests])),
        "n_support_vectors": float(np.mean([t["n_support_vectors"] for t in tests])),
        "selection_time": float(sum(r["fit_wall"] + r["predict_wall"] for r in mine)),
        "evaluation_time": float(sum(t["evaluation_time"] for t in tests)),
        "notes": sorted({n for t in tests for n in t["notes"]}),
    }
    if any("orders" in t for t in tests):
        pooled["dag_orders"] = _pool_orders(tests, correct)
    return pooled


def _split_record(test) -> dict:
    """What results.json keeps of one split (outer fold of one repeat): its choice, counts,
    test error (%) and figures."""
    n_test = int(len(test["correct"]))
    n_errors = int(np.sum(~test["correct"]))
    return {"repeat": test.get("repeat", 0), "fold": test.get("fold", 0),
            "params": test["point"].params(), "validation_error": test["validation_error"],
            "n_train": test.get("n_train"), "n_test": n_test, "n_errors": n_errors,
            "error_pct": 100.0 * n_errors / n_test,
            "kernel_evaluations": test["kernel_evaluations"], "size": test["size"],
            "n_support_vectors": test["n_support_vectors"], "cpu_time": test["cpu_time"]}


def _pool_orders(tests, correct) -> dict:
    """The DAG order study pooled over the splits: per order, test error (%) over every split's
    test points and kernel evaluations per test point (weighted by the splits' sizes)."""
    n_test = np.array([len(t["correct"]) for t in tests], dtype=float)
    wrong = np.sum([t["orders"]["n_wrong"] for t in tests], axis=0)
    evaluations = np.average([t["orders"]["kernel_evaluations"] for t in tests], axis=0,
                             weights=n_test)
    errors = 100.0 * wrong / n_test.sum()
    return {"n": int(len(errors)), "orders": tests[0]["orders"]["orders"],
            "errors_pct": errors.tolist(), "kernel_evaluations": evaluations.tolist(),
            "selected_error": 100.0 * float(np.mean(~correct)),
            "min": float(errors.min()), "mean": float(errors.mean()),
            "max": float(errors.max())}


# --------------------------------------------------------------------------- a whole config

def load_datasets(config, mirror=None, data_home=None, quiet=False) -> dict:
    """Every dataset of ``config`` (name -> Dataset), only the parts its plan needs, checked
    against the plan (:func:`.validation.check_plan`) before anything is computed."""
    from .validation import check_plan

    loaded = {}
    for plan in config.datasets:
        loaded[plan.name] = load_plan_data(plan, parts_needed(plan), mirror, data_home, quiet)
        check_plan(plan, loaded[plan.name])
    return loaded


def load_plan_data(plan, parts=None, mirror=None, data_home=None, quiet=False):
    """The Dataset of one plan: its local data file(s) (``plan.local``), else the registry's
    dataset, only ``parts`` (None: all)."""
    from .. import data

    if plan.local is not None:
        return data.load_local(plan.local, parts)
    return data.load(plan.name, parts=parts, mirror=mirror, data_home=data_home,
                     progress=not quiet)


def run_protocol(config, datasets, cache: PointCache, n_jobs=1, progress=None, fit_jobs=None):
    """Run the protocol for every dataset x scheme of ``config`` on ``datasets`` (name ->
    Dataset, from :func:`load_datasets`), ``config.repeats`` times (:func:`repeat_plan`).

    ``n_jobs`` grid points run at once; the final fits' estimators get ``fit_jobs`` (default
    ``n_jobs``).

    Returns (results, grid rows, {dataset: checksums}); each grid row carries its ``repeat``;
    ``progress`` is called once with the total number of grid points x schemes and must return
    a bar with ``update(n)``.
    """
    repeats = config.repeats
    loaded = [(plan, datasets[plan.name]) for plan in config.datasets]
    total = repeats * sum(len(plan.estimate) * plan.split.get("k", 1)
                          * sum(len(group) for _, group in grid_tasks(plan, config.schemes))
                          for plan in config.datasets)
    bar = progress(total) if progress else None
    results, grid_rows = [], []
    try:
        for plan, dataset in loaded:
            tests = {e: {s: [] for s in config.schemes} for e in plan.estimate}
            rows_of_plan = []
            for r in range(repeats):
                planned = repeat_plan(plan, r)
                folds = scaled_folds(dataset, planned)  # one repeat's folds in memory at once
                rows = grid_search(dataset, planned, folds, config.schemes,
                                   config.scheme_options, config.seed, cache, n_jobs=n_jobs,
                                   progress=bar, estimates=plan.estimate)
                for row in rows:
                    row["repeat"] = r
                for estimate in plan.estimate:
                    found = fold_tests(folds, planned, rows, config.schemes,
                                       config.scheme_options, config.seed, fit_jobs or n_jobs,
                                       repeat=r, estimate=estimate,
                                       dag_orders=config.dag_orders if estimate == "nested" else 0)
                    for scheme in config.schemes:
                        tests[estimate][scheme] += found[scheme]
                rows_of_plan += rows
            per_estimate = {estimate: [_pool(plan.name, s, tests[estimate][s],
                                             _of_estimate(rows_of_plan, estimate))
                                       for s in config.schemes]
                            for estimate in plan.estimate}
            results += combine_estimates(per_estimate)
            grid_rows += rows_of_plan
    except NonFiniteFit as exc:
        raise NonFiniteFit(f"dataset {plan.name}: {exc}") from None
    finally:
        if bar is not None:
            bar.close()
    checksums = {dataset.name: dict(dataset.checksums) for _, dataset in loaded}
    return results, grid_rows, checksums


def repeat_plan(plan, repeat):
    """``plan`` for repeat ``repeat`` (0, 1, ...): the split's and the validation's seeds (where
    they have one) increased by ``repeat``; repeat 0 is ``plan`` itself."""
    if repeat == 0:
        return plan
    def shifted(section):
        return {**section, "seed": section["seed"] + repeat} if "seed" in section else section
    return replace(plan, split=shifted(plan.split), validation=shifted(plan.validation))


def combine_estimates(per_estimate):
    """One result per scheme from {estimate: pooled results}: the nested result when there
    is one (McNemar reads its ``correct``), carrying the cv-best one's error, point and ties
    under ``cv_best``; the cv-best result alone otherwise (without ``correct``: McNemar applies
    to the nested estimate only).  Each result says its ``estimate``."""
    nested, cv_best = per_estimate.get("nested"), per_estimate.get("cv-best")
    if cv_best is None:
        return [{**r, "estimate": "nested"} for r in nested]
    summaries = [{"kernel": r["kernel"], "C": r["C"], "params": r["params"],
                  "n_errors": r["n_errors"], "n_test": r["n_test"],
                  "error_pct": 100.0 * r["n_errors"] / r["n_test"],
                  "ties": r["selections"][0]["ties"]} for r in cv_best]
    if nested is None:
        return [{**{k: v for k, v in r.items() if k != "correct"}, "estimate": "cv-best",
                 "cv_best": s} for r, s in zip(cv_best, summaries)]
    return [{**r, "estimate": "nested", "cv_best": s} for r, s in zip(nested, summaries)]


def parts_needed(plan):
    """The dataset parts a plan reads (None: all of them, pooled for a holdout or k-fold)."""
    if plan.split["method"] != "standard":
        return None
    return ["train", "test"] + (["validation"] if plan.validation["method"] == "given" else [])


# --------------------------------------------------------------------------- one saved model

def fit_selected(config, plan, scheme, cache: PointCache, n_jobs=1, progress=None, mirror=None,
                 data_home=None, quiet=False, fit_jobs=None):
    """Select ``scheme``'s grid point on ``plan`` and fit it on the whole training part.

    The training part is the first outer fold's (all rows for a k-fold split); a dataset's own
    test part is not needed (covertype trains from its partial copy). Returns (fitted
    estimator, fitted scaler, selected grid row, dataset).
    """
    from .validation import check_plan

    parts = parts_needed(plan)
    parts = parts and [part for part in parts if part != "test"]
    dataset = load_plan_data(plan, parts, mirror, data_home, quiet)
    check_plan(plan, dataset)
    if plan.split["method"] == "kfold":
        plan = replace(plan, split={"method": "all"})
    fold = scaled_folds(dataset, plan)[0]
    bar = progress(len(grid_tasks(plan, [scheme]))) if progress else None
    try:
        rows = grid_search(dataset, plan, [fold], [scheme], config.scheme_options, config.seed,
                           cache, n_jobs=n_jobs, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    chosen = select(rows, plan, scheme, fold.index)
    fitted, _, _ = fit_group((scheme,), chosen["point"].params(), config.scheme_options,
                             fold.X_train, fold.y_train, fit_jobs or n_jobs, config.seed)
    return fitted[scheme], fold.scaler, chosen, dataset
