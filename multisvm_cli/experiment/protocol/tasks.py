"""The grid as named tasks: which points to score, grouped by kernel, run in parallel and cached."""

from __future__ import annotations

import threading
from collections import Counter
from contextlib import nullcontext
from functools import partial
from dataclasses import dataclass, field

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
from .search import Search, Stores


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


def grid_search(search: Search, folds, cache: PointCache, n_jobs=1, progress=None):
    """Score every grid point of every scheme of ``search`` (:class:`.search.Search`) on every
    outer fold, for each of its estimates (``nested``: on the fold's validation split(s);
    ``cv-best``: on the fold's test part).

    Returns the long-format grid rows (one per estimate x fold x point x scheme, with
    ``estimate``, and ``cached`` telling whether it came from the resume cache). Points missing
    from the cache are scored in :class:`GridTask` s (:func:`same_kernel_tasks`) through one
    ``joblib.Parallel`` for all estimates, and cached as soon as each task finishes. With the
    search's ``reuse``, machines are reused across C inside each task (see :mod:`.fitting`); a
    warm-started scheme's points are keyed by their chain (:func:`.chains.warm_chain`), cached
    as each ends where the task has one validation split, and solved again below a missing one
    unless the chain's state was kept (:mod:`.chains`).
    """
    with named_warnings(search.dataset.name):
        splits = {(e, fold.index): validation_splits(fold, search.scoring(e).plan.validation)
                  for e in search.estimates for fold in folds}
    sizes = {key: sum(len(part[3]) for part in parts) for key, parts in splits.items()}
    looked_up = [_looked_up(job, cache, sizes[job.estimate, job.fold.index])
                 for job in _point_jobs(search, folds)]
    states = states_of(cache)
    shapes = {key: problem_shape(parts[0]) for key, parts in splits.items() if len(parts) == 1}
    # States only where tasks run on this machine (decided here, in the driving thread: joblib
    # reads its backend per thread); a Dask task would leave its start state behind.
    keep_states = search.reuse and local_backend()
    resolved, starts = resolved_chains(looked_up, states if keep_states else None, shapes)
    rows, todo, counted = [], [], PointsDone(progress)
    for job, stored in resolved:
        if stored is None:
            todo.append(job)
            continue
        rows.extend(_grid_row(search.dataset.name, job, s, stored[s], True) for s in job.group)
        counted.add(None, len(job.group))
    if todo:
        rows += _run_tasks(search, same_kernel_tasks(todo), splits,
                           Stores(cache, states, starts, keep_states), n_jobs, counted)
    return rows


def _point_jobs(search, folds) -> list:
    """The search's :class:`PointJob` s, estimate by estimate, fold by fold, in grid order, each
    with its schemes' resume-cache keys (a warm-started group's keyed by its chain)."""
    jobs = []
    for estimate in search.estimates:
        scored = search.scoring(estimate)
        for fold in folds:
            for point, group in grid_tasks(search.plan, search.schemes, search.options):
                grid = search.points(estimate, fold.index, group)
                if grid is not search.plan.grid and point not in grid:
                    continue  # a refinement stage's point of another unit
                chain = (warm_chain(grid, point)
                         if search.reuse and warm_starts(group) else None)
                keys = {s: point_key(scored, fold, point, s, chain) for s in group}
                jobs.append(PointJob(fold, point, group, keys, estimate))
    return jobs


def _looked_up(job, cache, expected) -> tuple:
    """(``job``, its schemes' stored results, or None when one is missing from ``cache``; an
    entry that claims other than ``expected`` validation points is missing)."""
    stored = {s: cache.get(k, expected, registry.get(s).figures) for s, k in job.keys.items()}
    return job, (stored if all(v is not None for v in stored.values()) else None)


def _run_tasks(search, tasks, splits, stores: Stores, n_jobs, counted):
    """Score ``tasks`` in parallel; cache each finished task's points at once, a warm task's
    points on one validation split as each ends (with its chain's state, in ``stores``),
    counting them in ``counted`` (:class:`PointsDone`); their rows."""
    # Grid points run on the active joblib backend: its capacity is this machine's cores for
    # threads and processes, the cluster's worker threads for dask.
    chains = [_chain(task, stores, splits, partial(counted.add, i))
              for i, task in enumerate(tasks)]
    outer_jobs = resolve_n_jobs(n_jobs, limit=len(tasks), capacity=effective_n_jobs(-1))
    run = Parallel(n_jobs=outer_jobs, prefer="threads", return_as="generator_unordered")
    calls = (delayed(_task)(i, task.group, task.points, search.options,
                            splits[task.estimate, task.fold.index], search.seed, search.reuse,
                            chains[i])
             for i, task in enumerate(tasks))
    rows = []
    # Tasks side by side in threads each get one BLAS thread: BLAS threads of their own would
    # spin between the many small products and take the cores from the other tasks' libsvm.
    with single_threaded_blas() if outer_jobs > 1 else nullcontext():
        for i, scored in run(calls):
            for job, point_scores in zip(tasks[i].jobs, scored):
                for scheme in job.group:
                    if chains[i].on_point is None:  # a checkpoint put them as they ended
                        stores.cache.put(job.keys[scheme], point_scores[scheme])
                    rows.append(_grid_row(search.dataset.name, job, scheme, point_scores[scheme],
                                          False))
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


@dataclass(frozen=True)
class Chain:
    """Where a task's chain of solves along C starts and ends, for
    :func:`.fitting.score_points`: ``start``, the resumed chain's :class:`PathPoint` (or None),
    and ``on_point``, a :class:`.chains.ChainCheckpoint` that caches each point as it ends (or
    None: the task's points are cached when it returns)."""

    start: object = None
    on_point: object = None


def _chain(task, stores, splits, counted=None) -> Chain:
    """``task``'s :class:`Chain`: its resumed start from ``stores.starts``, and a checkpoint
    (reporting each point it caches to ``counted``) for a warm task on one validation split
    when chains keep states (``stores.keep_states``)."""
    start_job, start = stores.starts.get(task_key(task.jobs[0]), (None, None))
    if not (warm_starts(task.group) and len(splits[task.estimate, task.fold.index]) == 1
            and stores.keep_states):
        return Chain(start)
    previous = None if start_job is None else start_job.keys[start_job.group[0]]
    return Chain(start, ChainCheckpoint(stores.cache, stores.states, task.jobs, previous,
                                        counted))


def _task(i, group, points, options, splits, seed, reuse, chain):
    return i, score_points(group, points, options, splits, seed, reuse, chain.start,
                           chain.on_point)


def _grid_row(dataset, job, scheme, scored, cached):
    """The grid row of ``scheme`` at ``job``'s point (a :class:`PointJob`) from its result
    ``scored``; ``cached``: whether it came from the resume cache."""
    point = job.point
    params = point.params()
    return {"dataset": dataset, "estimate": job.estimate, "fold": job.fold.index,
            "scheme": scheme, "kernel_type": params.pop("kernel"), **params,
            "kernel": point.kernel_label(), "point": point,
            "validation_error": scored["validation_error"], "n_errors": scored["n_errors"],
            "n_validation": scored["n_validation"], "fit_cpu": scored["fit_cpu"],
            "fit_wall": scored["fit_wall"], "predict_wall": scored["predict_wall"],
            "n_support_vectors": scored["n_support_vectors"],
            "kernel_evaluations": scored["kernel_evaluations"], "size": scored["size"],
            "smo_iterations": scored.get("smo_iterations"),
            "n_reused_machines": scored.get("n_reused_machines", 0),
            "notes": "; ".join(scored["notes"]), "cached": cached}
