"""Fitting and scoring one scheme group at grid points that differ only in C.

Max Wins, DAGSVM and ADAG share their pairwise machines (the readers' ``from_trained``);
1-v-r's fits at every C share one training Gram matrix (:func:`shared_gram`); and, unless the
config says ``reuse_across_C: false``, the points are fitted in ascending C with one
:class:`~multisvm_cli.estimators.reuse.MachineReuse` store per validation split, so a binary
SVM with no support vector at the bound is reused for every larger C instead of refitted (the
same machine: the KKT conditions hold unchanged); the all-together schemes' solves start from
the store's last solve of the same problem instead (warm starts along C, equal to a cold solve
within tol; see :mod:`...estimators.reuse`). Final fits never get a store.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ...base.errors import one_line
from ...estimators import registry
from ...estimators.defaults import MEMORY_MB
from ...estimators.errors import NonFiniteSolution
from ...estimators.own import UserClassifierError
from ...estimators.reuse import MachineReuse
from ...estimators.kernels import KERNEL_PARAMS, Kernel, gram_fits
from ...base.parallel import threadpools
from ...base.thread_warnings import caught

POINT_TOTALS = ("n_errors", "n_validation", "fit_cpu", "fit_wall", "predict_wall",
                "n_support_vectors", "kernel_evaluations", "size", "smo_iterations",
                "n_reused_machines")
ONE_CLASS_NOTE = "every validation point predicted as one class"  # a degenerate grid point


class Stopwatch:
    """Wall-clock seconds since creation."""

    def __init__(self):
        self.start = time.perf_counter()

    @property
    def wall(self) -> float:
        return time.perf_counter() - self.start

def make_estimator(scheme, params, options, n_jobs, seed):
    """An unfitted estimator of ``scheme`` at grid point ``params``."""
    return registry.estimator(scheme)(**params, **options.get(scheme, {}), n_jobs=n_jobs, random_state=seed)


class NonFiniteFit(ValueError):
    """libsvm's dual coefficients overflowed at a grid point (kernel values too large for the
    data's scale): one line naming the scheme, kernel and C, and the dataset once
    :func:`.plan.run_protocol` adds it."""

    @classmethod
    def at(cls, group, params):
        kernel = " ".join(f"{k}={v}" for k, v in params.items() if k != "C")
        return cls(f"{'/'.join(group)}, {kernel}, C={params['C']:g}: libsvm's dual "
                   f"coefficients are not finite (kernel values too large); scale the features "
                   f"or lower the polynomial degree")


@contextmanager
def naming_the_row(group, options):
    """A user's classifier that fails in the block (:class:`UserClassifierError`) is named by
    its row and class; :func:`.plan.run_protocol` adds the dataset."""
    try:
        yield
    except UserClassifierError as exc:
        target = options.get(group[0], {}).get("target")
        raise UserClassifierError(f"row {registry.label(group[0])!r} ({target}): {exc}; fix "
                                  f"the classifier, or drop its row from schemes") from None


def selection_options(group, options) -> dict:
    """The group's ``options`` for model selection: each scheme's ``_selection_free`` options
    (those that change neither its predictions nor its validation error: class probabilities,
    whose sigmoids cost five cross-validation fits a machine) left out; final fits keep them."""
    return {s: {key: value for key, value in options.get(s, {}).items()
                if key not in registry.estimator(s)._selection_free} for s in group}


@dataclass(frozen=True)
class Shared:
    """What one task's fits on one training X share across its points: ``gram``, K(X, X) under
    their kernel (:func:`shared_gram`; None: each fit computes its kernel), and ``reuse``, a
    :class:`~multisvm_cli.estimators.reuse.MachineReuse` store (None: every machine is fitted,
    as in final fits)."""

    gram: object = None
    reuse: object = None


NOT_SHARED = Shared()


def fit_group(group, params, options, X, y, n_jobs, seed, shared: Shared = NOT_SHARED):
    """Fit the schemes of a group (see ``registry.scheme_groups``): the first is trained, at
    the options it needs and those its readers need of it (``_trainer_options``: DAGSVM's
    probabilities need Max Wins' sigmoids); the others read its machines (``from_trained``,
    given the training labels too).

    ``shared``: the Gram matrix and machine store the task's points share on this training X
    (:class:`Shared`; none by default). Returns ({scheme: fitted estimator}, [warning messages], wall seconds).
    """
    watch = Stopwatch()
    with caught() as raised:
        trainer = dict(options.get(group[0], {}))
        for reader in group[1:]:
            trainer.update(registry.estimator(reader)._trainer_options(options.get(reader, {})))
        estimator = make_estimator(group[0], params, {group[0]: trainer}, n_jobs, seed)
        try:
            first = estimator.fit(X, y, gram=shared.gram, reuse=shared.reuse)
        except NonFiniteSolution:
            raise NonFiniteFit.at(group, params) from None
        fitted = {group[0]: first}
        for reader in group[1:]:
            fitted[reader] = registry.estimator(reader).from_trained(first, options.get(reader, {}), y)
    notes = sorted({f"{w.category.__name__}: {one_line(w.message)}" for w in raised})
    return fitted, notes, watch.wall


def shared_gram(group, params, options, X, cpu_clock):
    """(K(X, X), wall seconds, CPU seconds by ``cpu_clock``) under the kernel of ``params`` when
    the group's schemes read a shared Gram matrix and it fits their trainer's ``memory_mb`` (its
    option, else the estimators' default :data:`...estimators.defaults.MEMORY_MB`); else
    (None, 0, 0)."""
    if not registry.estimator(group[0])._shares_gram:
        return None, 0.0, 0.0
    if not gram_fits(X.shape[0], options.get(group[0], {}).get("memory_mb", MEMORY_MB)):
        return None, 0.0, 0.0
    watch, cpu = Stopwatch(), cpu_clock()
    names = ("kernel",) + KERNEL_PARAMS[params["kernel"]]
    gram = Kernel.from_params(**{key: params[key] for key in names if key in params}).gram(X)
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


def ascending_C(points) -> list:
    """The indices of ``points`` (parameter dicts) in ascending C, ties in their given order."""
    return sorted(range(len(points)), key=lambda i: points[i]["C"])


def score_points(group, points, options, splits, seed, reuse=True, start=None, on_point=None):
    """Validation errors of the group's schemes at grid points that differ only in C (pooled
    over the splits): one {scheme: result} per point, in the order of ``points``.

    Each split's training Gram matrix is made once for all the points (see
    :func:`shared_gram`); its time counts in the first point's fit time.  Fit CPU seconds are
    the task's own (:func:`task_cpu_clock`), even while other tasks run beside it.  With
    ``reuse``, the points are fitted in ascending C sharing one machine store per split, and
    each result counts its ``n_reused_machines``.  The fits leave out the options that change
    no prediction (:func:`selection_options`).

    With one validation split and ``reuse``: ``start`` (or None) is the
    :class:`~multisvm_cli.estimators.joint.decomposition.solver.PathPoint` the group's all-together problem
    goes on from (a resumed chain: the store's ``start``), and ``on_point(index, result,
    store)`` (or None) is called as each point's result is final, with the store its last solve
    is in (a checkpoint of the chain).
    """
    single = len(splits) == 1 and reuse
    if start is not None and not single:
        raise ValueError("a chain resumes only with one validation split and reuse across C")
    results = [{s: {**{key: 0 for key in POINT_TOTALS}, "fit_cpu": 0.0, "fit_wall": 0.0,
                    "predict_wall": 0.0, "n_support_vectors": 0.0,
                    "kernel_evaluations": 0.0, "size": 0.0, "notes": []} for s in group}
               for _ in points]
    cpu_clock = task_cpu_clock()
    selecting = selection_options(group, options)
    order = ascending_C(points) if reuse else list(range(len(points)))
    for X_fit, y_fit, X_score, y_score in splits:
        gram, gram_wall, gram_cpu = shared_gram(group, points[0], options, X_fit, cpu_clock)
        store = MachineReuse(start) if reuse else None
        for rank, index in enumerate(order):
            started = cpu_clock()
            with naming_the_row(group, options):
                fitted, notes, fit_wall = fit_group(group, points[index], selecting, X_fit,
                                                    y_fit, 1, seed, Shared(gram, store))
                fit_cpu = cpu_clock() - started
                if rank == 0:
                    fit_wall, fit_cpu = fit_wall + gram_wall, fit_cpu + gram_cpu
                for scheme, estimator in fitted.items():
                    _add_split(results[index][scheme], estimator, X_score, y_score,
                               len(splits), (fit_cpu, fit_wall), notes)
            if single:
                _finish(results[index])
                if on_point is not None:
                    on_point(index, results[index], store)
    if not single:
        for point_results in results:
            _finish(point_results)
    return results


def _finish(point_results):
    """Turn a point's sums over its splits into its result: the validation error, and kernel
    evaluations per validation point."""
    for entry in point_results.values():
        entry["validation_error"] = entry["n_errors"] / entry["n_validation"]
        if entry["kernel_evaluations"] is not None:
            entry["kernel_evaluations"] /= entry["n_validation"]


def _add_split(entry, estimator, X_score, y_score, n_splits, fit_times, notes):
    """Add one validation split's counts, times and model figures to a point's result."""
    watch = Stopwatch()
    predicted = estimator.predict(X_score)
    entry["n_errors"] += int(np.sum(predicted != y_score))
    if len(np.unique(predicted)) == 1 < len(estimator.classes_):
        notes = [*notes, ONE_CLASS_NOTE]
    entry["n_validation"] += len(y_score)
    entry["fit_cpu"] += fit_times[0]
    entry["fit_wall"] += fit_times[1]
    entry["predict_wall"] += watch.wall
    _accumulate(entry, "smo_iterations", estimator.smo_iterations_)
    entry["n_reused_machines"] += int(getattr(estimator, "n_reused_machines_", 0))
    entry["notes"] = sorted(set(entry["notes"]) | set(notes))
    _add_figures(entry, estimator, X_score, n_splits)


def _add_figures(entry, estimator, X_score, n_splits):
    """Add one split's model figures to a point's result: support vectors and classifier size
    averaged over the ``n_splits`` validation splits, kernel evaluations per validation point
    (Platt's definition, ``kernel_evaluations``) summed here, weighted by the split's points
    (:func:`score_points` divides by all the points scored)."""
    figures = {"n_support_vectors": estimator.n_support_vectors_, "size": estimator.n_parameters_,
               "kernel_evaluations": estimator.kernel_evaluations(X_score)}
    for key, value in figures.items():
        weight = X_score.shape[0] if key == "kernel_evaluations" else 1 / n_splits
        _accumulate(entry, key, None if value is None else value * weight)


def _accumulate(entry, key, value):
    """``entry[key] += value``; a figure the scheme does not define (None: a user's
    classifier's kernel evaluations, say) makes the sum None, shown blank, never 0."""
    entry[key] = None if value is None or entry[key] is None else entry[key] + value
