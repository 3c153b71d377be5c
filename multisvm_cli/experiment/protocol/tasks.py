"""The grid as named tasks: which points to score, grouped by kernel, run in parallel and cached."""

from __future__ import annotations

import threading
from collections import Counter
from contextlib import nullcontext
from functools import partial
from dataclasses import dataclass, field, replace

from joblib import Parallel, delayed, effective_n_jobs

from ...estimators import registry
from ...estimators.registry import kernel_free, scheme_groups
from ...base.chain_states import states_of
from ...base.parallel import local_backend, resolve_n_jobs, single_threaded_blas
from ...base.storage import PointCache
from ..splits import named_warnings, validation_splits
from .cache import point_key
from .chains import (ChainCheckpoint, problem_shape, resolved_chains, task_key, warm_chain,
                     warm_starts)
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
    points are keyed by their chain (:func:`.chains.warm_chain`), cached as each ends where the
    task has one validation split, and solved again below a missing one unless the chain's
    state was kept (:mod:`.chains`).
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
    states = states_of(cache)
    shapes = {key: problem_shape(parts[0]) for key, parts in splits.items() if len(parts) == 1}
    # States only where tasks run on this machine (decided here, in the driving thread: joblib
    # reads its backend per thread); a Dask task would leave its start state behind.
    resumable = reuse and local_backend()
    resolved, starts = resolved_chains(looked_up, states if resumable else None, shapes)
    rows, todo, counted = [], [], PointsDone(progress)
    for job, stored in resolved:
        if stored is None:
            todo.append(job)
            continue
        rows.extend(_grid_row(dataset.name, job.fold, job.point, s, stored[s], True,
                              job.estimate) for s in job.group)
        counted.add(None, len(job.group))
    if todo:
        rows += _run_tasks(dataset, same_kernel_tasks(todo), splits, options, seed,
                           (cache, states, starts, resumable), n_jobs, counted, reuse)
    return rows


def _run_tasks(dataset, tasks, splits, options, seed, stores, n_jobs, counted, reuse):
    """Score ``tasks`` in parallel; cache each finished task's points at once, a warm task's
    points on one validation split as each ends (with its chain's state: ``stores`` is the
    resume cache, its chain states, the resumed tasks' starts and whether chains keep states:
    reuse across C on this machine's backend), counting them in ``counted`` (:class:`PointsDone`);
    their rows."""
    # Grid points run on the active joblib backend: its capacity is this machine's cores for
    # threads and processes, the cluster's worker threads for dask.
    cache = stores[0]
    chain_options = [_chain_options(task, stores, splits, partial(counted.add, i))
                     for i, task in enumerate(tasks)]
    outer_jobs = resolve_n_jobs(n_jobs, limit=len(tasks), capacity=effective_n_jobs(-1))
    run = Parallel(n_jobs=outer_jobs, prefer="threads", return_as="generator_unordered")
    calls = (delayed(_task)(i, task.group, task.points, options, splits[task.estimate,
                            task.fold.index], seed, reuse, *chain_options[i])
             for i, task in enumerate(tasks))
    rows = []
    # Tasks side by side in threads each get one BLAS thread: BLAS threads of their own would
    # spin between the many small products and take the cores from the other tasks' libsvm.
    with single_threaded_blas() if outer_jobs > 1 else nullcontext():
        for i, scored in run(calls):
            for job, point_scores in zip(tasks[i].jobs, scored):
                for scheme in job.group:
                    if chain_options[i][1] is None:  # a checkpoint put them as they ended
                        cache.put(job.keys[scheme], point_scores[scheme])
                    rows.append(_grid_row(dataset.name, job.fold, job.point, scheme,
                                          point_scores[scheme], False, job.estimate))
            counted.rest(i, sum(len(job.group) for job in tasks[i].jobs))
    return rows


class PointsDone:
    """The run's progress, moved from the tasks' threads as checkpointed chains cache their
    points (:meth:`add`) and from the driving thread as tasks return (:meth:`rest`), under one
    lock.  Sent to another process (a process backend), it counts nothing there: the driving
    thread then counts the whole task as it returns."""

    def __init__(self, progress):
        self.progress, self.lock, self.counted = progress, threading.Lock(), Counter()

    def __getstate__(self):
        return {"progress": None, "lock": None, "counted": Counter()}

    def add(self, task, n):
        """Count ``n`` more points of task number ``task`` (None: points read from the cache)."""
        if self.progress is None:
            return
        with self.lock:
            self.counted[task] += n
            self.progress.update(n)

    def rest(self, task, n_points):
        """Count what task ``task`` (``n_points`` points in all) has not counted yet."""
        self.add(task, n_points - self.counted[task])


def grid_tasks(plan, schemes, options=None):
    """The (grid point, scheme group) pairs to score on each fold (groups by
    ``registry.scheme_groups`` under the schemes' ``options``); kernel-free schemes once."""
    return [(point, group) for i, point in enumerate(plan.grid)
            for group in scheme_groups(schemes, options) if i == 0 or not kernel_free(group[0])]


def same_kernel_tasks(todo) -> list:
    """``todo``'s :class:`PointJob` s grouped into :class:`GridTask` s of one estimate, one
    fold, one scheme group and one kernel (points differing only in C), in grid order."""
    tasks = {}
    for job in todo:
        tasks.setdefault(task_key(job), []).append(job)
    return [GridTask(jobs[0].estimate, jobs[0].fold, jobs[0].group, tuple(jobs))
            for jobs in tasks.values()]


def _chain_options(task, stores, splits, counted=None) -> tuple:
    """(start, on_point) of ``task`` for :func:`.fitting.score_points`: the resumed chain's
    :class:`PathPoint` (or None), and a :class:`.chains.ChainCheckpoint` (reporting each point
    it caches to ``counted``) for a warm task on one validation split when chains keep states
    (``stores[3]``: tasks run on this machine, where their files land in its cache, and reuse
    across C is on), else None."""
    cache, states, starts, local = stores
    start_job, start = starts.get(task_key(task.jobs[0]), (None, None))
    if not (warm_starts(task.group) and len(splits[task.estimate, task.fold.index]) == 1
            and local):
        return start, None
    previous = None if start_job is None else start_job.keys[start_job.group[0]]
    return start, ChainCheckpoint(cache, states, task.jobs, previous, counted)


def _task(i, group, points, options, splits, seed, reuse, start=None, on_point=None):
    return i, score_points(group, points, options, splits, seed, reuse, start, on_point)


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
