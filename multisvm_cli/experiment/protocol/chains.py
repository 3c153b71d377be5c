"""Warm chains in the grid: which C values a warm-started point's solve followed, which stored
points a resumed run may keep, and the checkpoints that let a chain resume at its next C.

The all-together schemes' :class:`.tasks.GridTask` solves its points in ascending C, each
from the last (warm starts along C, :mod:`...estimators.reuse`), so a point's numbers depend on
the solves below it: its resume-cache key names its chain (:func:`warm_chain`).  A run stopped
mid-chain has stored the points below the first missing one (:class:`ChainCheckpoint`) and,
with one validation split, the state the next solve starts from (:mod:`...base.chain_states`):
the resumed task starts at the first missing C from that state, and each solve gets the start it
had in an uninterrupted run, bit for bit: beta and G, and the kernel rows its cache held, computed
again into their slots (:meth:`...estimators.joint.decomposition.kernel_rows.KernelRows.refill`).  Without a state
that passes its checks the chain is solved again from its first C.  A linear kernel's cs and ww
(the primal solver: no path) are cached point by point but keep no state, and tasks on Dask's
workers neither keep nor read states: their stopped chains are solved again from the first C.
"""

from __future__ import annotations

import numpy as np

from ...estimators import registry
from ...estimators.joint.decomposition.solver import PathPoint

NO_C = -float("inf")


def warm_starts(group) -> bool:
    """Whether the group's fits start from a smaller C's solve given a reuse store (its
    trainer's ``_warm_starts``: the all-together schemes)."""
    return registry.estimator(group[0])._warm_starts


def kernel_of(point) -> tuple:
    """The point's parameters other than C, as (name, value) pairs."""
    return tuple((key, value) for key, value in point.params().items() if key != "C")


def warm_chain(grid, point) -> tuple:
    """The C values of the ``grid`` points of ``point``'s kernel below its C, ascending: the
    solves a warm-started fit at ``point`` follows (a :class:`.tasks.GridTask` solves its
    points in ascending C, each from the last)."""
    kernel = kernel_of(point)
    return tuple(sorted({other.C for other in grid
                         if kernel_of(other) == kernel and other.C < point.C}))


def task_key(job) -> tuple:
    """The :class:`.tasks.GridTask` a :class:`.tasks.PointJob` belongs to: its estimate, fold,
    scheme group and kernel."""
    return job.estimate, job.fold.index, job.group, kernel_of(job.point)


def resolved_chains(looked_up, states=None, shapes=None):
    """(pairs, starts): ``looked_up`` ((PointJob, stored results or None) pairs) with the stored
    results of a warm-started point dropped where its task solves it again, and {task key:
    (the PointJob whose state it starts from, that :class:`PathPoint`)} for the tasks that go on
    from a chain state.

    A task's missing points are solved in ascending C, each from the last.  With a state in
    ``states`` (:class:`...base.chain_states.ChainStates`) stored at the point just below the
    first missing one, for a problem of ``shapes[estimate, fold]`` ((classes, training rows):
    tasks with one validation split), the task starts there; otherwise every stored point below
    the last missing one is solved again, along the very same chain."""
    missing = {}
    for job, stored in looked_up:
        if stored is None and warm_starts(job.group):
            missing.setdefault(task_key(job), []).append(job.point.C)
    starts = {}
    for key, Cs in missing.items():
        resumed = _resumed(key, min(Cs), looked_up, states, (shapes or {}).get(key[:2]))
        if resumed is not None:
            starts[key] = resumed
    pairs = []
    for job, stored in looked_up:
        key = task_key(job)
        if key in missing and warm_starts(job.group):
            low = min(missing[key]) if key in starts else NO_C
            stored = None if low <= job.point.C <= max(missing[key]) else stored
        pairs.append((job, stored))
    return pairs, starts


def _resumed(key, first_missing, looked_up, states, shape):
    """(the stored job just below ``first_missing`` in task ``key``, its state's PathPoint), or
    None when there is none or its state is missing or refused."""
    below = [job for job, stored in looked_up if task_key(job) == key
             and job.point.C < first_missing]
    if states is None or shape is None or not below:
        return None
    job = max(below, key=lambda below_job: below_job.point.C)
    found = states.get(job.keys[job.group[0]], shape, job.point.C)
    return None if found is None else (job, PathPoint.restored(*found))


def problem_shape(split) -> tuple:
    """(classes, training rows) of an all-together problem on one validation split."""
    y_fit = split[1]
    return len(np.unique(y_fit)), len(y_fit)


class ChainCheckpoint:
    """``on_point`` for :func:`.fitting.score_points` of a warm task on one validation split
    (its ``jobs``: the task's PointJobs, in its points' order): each point's state goes to
    ``states`` under its trainer's key (unless it is the task's last point), then its results
    to the resume cache ``cache``, then the state stored before (``previous``: a key, the
    resumed task's start) is dropped.  A chain thus keeps one state at a time and none once it
    ends, and a run killed between two writes finds the state below its first missing point.
    ``counted`` (if given) is called with the number of scheme points just cached: the run's
    progress moves as a chain's points end, not only when its task does."""

    def __init__(self, cache, states, jobs, previous=None, counted=None):
        self.cache, self.states, self.previous, self.counted = cache, states, previous, counted
        self.points = [(job.point.C, job.group, job.keys) for job in jobs]
        self.top = max(C for C, _, _ in self.points)

    def __call__(self, index, scores, store):
        C, group, keys = self.points[index]
        kept, key = store.last_points(), keys[group[0]]
        if not (C < self.top and len(kept) == 1 and kept[0] is not None
                and self.states.put(key, *kept[0].saved())):
            key = None
        for scheme in group:
            self.cache.put(keys[scheme], scores[scheme])
        if self.previous is not None:
            self.states.drop(self.previous)
        self.previous = key
        if self.counted is not None:
            self.counted(len(group))
