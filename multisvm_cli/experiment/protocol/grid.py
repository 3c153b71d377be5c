"""The validation grid as named tasks, scored in one pool and written to the resume cache.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field, replace

from joblib import Parallel, delayed, effective_n_jobs

from ...estimators.registry import kernel_free, scheme_groups
from ...parallel import resolve_n_jobs, single_threaded_blas
from ...storage import PointCache
from ..splits import named_warnings, validation_splits
from .cache import point_key
from .fitting import score_points


@dataclass(frozen=True)
class GridTask:
    """One grid point of one scheme group to score on one outer fold, for one estimate;
    ``keys`` are its schemes' resume-cache keys."""

    fold: object
    point: object
    group: tuple
    keys: dict = field(default_factory=dict)
    estimate: str = "nested"


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
            for point, group in grid_tasks(plan, schemes):
                keys = {s: point_key(dataset, scored, fold, point, s, options, seed)
                        for s in group}
                stored = {s: cache.get(k) for s, k in keys.items()}
                if all(v is not None for v in stored.values()):
                    rows.extend(_grid_row(dataset.name, fold, point, s, stored[s], True,
                                          estimate) for s in group)
                    _advance(progress, len(group))
                else:
                    todo.append(GridTask(fold, point, group, keys, estimate))
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
    calls = (delayed(_task)(i, task[0].group, [entry.point.params() for entry in task], options,
                            splits[task[0].estimate, task[0].fold.index], seed)
             for i, task in enumerate(tasks))
    # Tasks side by side in threads each get one BLAS thread: BLAS threads of their own would
    # spin between the many small products and take the cores from the other tasks' libsvm.
    with single_threaded_blas() if outer_jobs > 1 else nullcontext():
        for i, scored in run(calls):
            for entry, point_scores in zip(tasks[i], scored):
                for scheme in entry.group:
                    cache.put(entry.keys[scheme], point_scores[scheme])
                    rows.append(_grid_row(dataset.name, entry.fold, entry.point, scheme,
                                          point_scores[scheme], False, entry.estimate))
                _advance(progress, len(entry.group))
    return rows


def grid_tasks(plan, schemes):
    """The (grid point, scheme group) pairs to score on each fold; kernel-free schemes once."""
    return [(point, group) for i, point in enumerate(plan.grid)
            for group in scheme_groups(schemes) if i == 0 or not kernel_free(group[0])]


def same_kernel_tasks(todo):
    """``todo``'s :class:`GridTask` entries grouped into tasks of one estimate, one fold, one
    scheme group and one kernel (points differing only in C), in grid order."""
    tasks = {}
    for entry in todo:
        kernel = tuple((key, value) for key, value in entry.point.params().items() if key != "C")
        tasks.setdefault((entry.estimate, entry.fold.index, entry.group, kernel), []).append(entry)
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
