"""The grid as named tasks: which points to score, grouped by kernel, run in parallel and cached."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field, replace

from joblib import Parallel, delayed, effective_n_jobs

from ...estimators import registry
from ...estimators.registry import kernel_free, scheme_groups
from ...base.parallel import resolve_n_jobs, single_threaded_blas
from ...base.storage import PointCache
from ..splits import named_warnings, validation_splits
from .cache import point_key
from .fitting import score_points


@dataclass(frozen=True)
class PointJob:
    """One grid point of one scheme group to score on one outer fold for one estimate, with
    the resume-cache ``keys`` of its schemes."""

    fold: object
    point: object
    group: tuple
    keys: dict = field(default_factory=dict)
    estimate: str = "nested"


@dataclass(frozen=True)
class GridTask:
    """Point jobs of one estimate, one fold, one scheme group and one kernel (they differ only
    in C), scored together by :func:`.fitting.score_points`, in grid order."""

    estimate: str
    fold: object
    group: tuple
    jobs: tuple

    @property
    def points(self) -> list:
        """The jobs' grid points as estimator parameters."""
        return [job.point.params() for job in self.jobs]


def estimate_plan(plan, estimate):
    """The plan whose validation scores ``estimate``'s grid: the plan itself for ``nested``;
    for ``cv-best`` the outer fold's own test part (validation method ``test``)."""
    return plan if estimate == "nested" else replace(plan, validation={"method": "test"})


def grid_search(dataset, plan, folds, schemes, options, seed, cache: PointCache, n_jobs=1,
                progress=None, estimates=("nested",), reuse=True):
    """Score every grid point of every scheme on every outer fold, for each of ``estimates``
    (``nested``: on the fold's validation split(s); ``cv-best``: on the fold's test part).

    Returns the long-format grid rows (one per estimate x fold x point x scheme, with
    ``estimate``, and ``cached`` telling whether it came from the resume cache). Points missing
    from the cache are scored in :class:`GridTask` s (:func:`same_kernel_tasks`) through one
    ``joblib.Parallel`` for all estimates, and cached as soon as each task finishes. ``reuse``:
    reuse machines across C inside each task (see :mod:`.fitting`); a warm-started scheme's
    points are keyed by their chain (:func:`warm_chain`) and solved again below a missing one
    (:func:`resolved_chains`).
    """
    with named_warnings(dataset.name):
        splits = {(e, fold.index): validation_splits(fold, estimate_plan(plan, e).validation)
                  for e in estimates for fold in folds}
    sizes = {key: sum(len(part[3]) for part in parts) for key, parts in splits.items()}
    looked_up = []  # (PointJob, its schemes' stored results, or None when one is missing)
    for estimate in estimates:
        scored = estimate_plan(plan, estimate)
        for fold in folds:
            expected = sizes[estimate, fold.index]
            for point, group in grid_tasks(plan, schemes, options):
                chain = warm_chain(plan.grid, point) if reuse and warm_starts(group) else None
                keys = {s: point_key(dataset, scored, fold, point, s, options, seed, reuse,
                                     chain) for s in group}
                stored = {s: cache.get(k, expected, registry.get(s).figures)
                          for s, k in keys.items()}
                complete = all(v is not None for v in stored.values())
                looked_up.append((PointJob(fold, point, group, keys, estimate),
                                  stored if complete else None))
    rows, todo = [], []
    for job, stored in resolved_chains(looked_up):
        if stored is None:
            todo.append(job)
            continue
        rows.extend(_grid_row(dataset.name, job.fold, job.point, s, stored[s], True,
                              job.estimate) for s in job.group)
        _advance(progress, len(job.group))
    if todo:
        rows += _run_tasks(dataset, same_kernel_tasks(todo), splits, options, seed, cache,
                           n_jobs, progress, reuse)
    return rows


def _run_tasks(dataset, tasks, splits, options, seed, cache, n_jobs, progress, reuse):
    """Score ``tasks`` in parallel; cache each finished task's points at once; their rows."""
    # Grid points run on the active joblib backend: its capacity is this machine's cores for
    # threads and processes, the cluster's worker threads for dask.
    outer_jobs = resolve_n_jobs(n_jobs, limit=len(tasks), capacity=effective_n_jobs(-1))
    run = Parallel(n_jobs=outer_jobs, prefer="threads", return_as="generator_unordered")
    calls = (delayed(_task)(i, task.group, task.points, options,
                            splits[task.estimate, task.fold.index], seed, reuse)
             for i, task in enumerate(tasks))
    rows = []
    # Tasks side by side in threads each get one BLAS thread: BLAS threads of their own would
    # spin between the many small products and take the cores from the other tasks' libsvm.
    with single_threaded_blas() if outer_jobs > 1 else nullcontext():
        for i, scored in run(calls):
            for job, point_scores in zip(tasks[i].jobs, scored):
                for scheme in job.group:
                    cache.put(job.keys[scheme], point_scores[scheme])
                    rows.append(_grid_row(dataset.name, job.fold, job.point, scheme,
                                          point_scores[scheme], False, job.estimate))
                _advance(progress, len(job.group))
    return rows


def grid_tasks(plan, schemes, options=None):
    """The (grid point, scheme group) pairs to score on each fold (groups by
    ``registry.scheme_groups`` under the schemes' ``options``); kernel-free schemes once."""
    return [(point, group) for i, point in enumerate(plan.grid)
            for group in scheme_groups(schemes, options) if i == 0 or not kernel_free(group[0])]


def warm_starts(group) -> bool:
    """Whether the group's fits start from a smaller C's solve given a reuse store (its
    trainer's ``_warm_starts``: the all-together schemes)."""
    return registry.estimator(group[0])._warm_starts


def kernel_of(point) -> tuple:
    """The point's parameters other than C, as (name, value) pairs."""
    return tuple((key, value) for key, value in point.params().items() if key != "C")


def warm_chain(grid, point) -> tuple:
    """The C values of the ``grid`` points of ``point``'s kernel below its C, ascending: the
    solves a warm-started fit at ``point`` follows (a :class:`GridTask` solves its points in
    ascending C, each from the last)."""
    kernel = kernel_of(point)
    return tuple(sorted({other.C for other in grid
                         if kernel_of(other) == kernel and other.C < point.C}))


def task_key(job) -> tuple:
    """The :class:`GridTask` a :class:`PointJob` belongs to: its estimate, fold, scheme group
    and kernel."""
    return job.estimate, job.fold.index, job.group, kernel_of(job.point)


def resolved_chains(looked_up) -> list:
    """``looked_up`` ((PointJob, stored results or None) pairs) with the stored results of a
    warm-started point dropped wherever a point of larger C of its task is missing: that
    point's solve starts from the solves below it, which the cache does not hold, so they are
    solved again along the very same chain (the same numbers as in one uninterrupted run)."""
    last_missing = {}
    for job, stored in looked_up:
        if stored is None and warm_starts(job.group):
            key = task_key(job)
            last_missing[key] = max(last_missing.get(key, -float("inf")), job.point.C)
    return [(job, None if warm_starts(job.group)
             and job.point.C < last_missing.get(task_key(job), -float("inf")) else stored)
            for job, stored in looked_up]


def same_kernel_tasks(todo) -> list:
    """``todo``'s :class:`PointJob` s grouped into :class:`GridTask` s of one estimate, one
    fold, one scheme group and one kernel (points differing only in C), in grid order."""
    tasks = {}
    for job in todo:
        tasks.setdefault(task_key(job), []).append(job)
    return [GridTask(jobs[0].estimate, jobs[0].fold, jobs[0].group, tuple(jobs))
            for jobs in tasks.values()]


def _task(i, group, points, options, splits, seed, reuse):
    return i, score_points(group, points, options, splits, seed, reuse)


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
            "smo_iterations": scored.get("smo_iterations"),
            "n_reused_machines": scored.get("n_reused_machines", 0),
            "notes": "; ".join(scored["notes"]), "cached": cached}
