"""Training binary SVMs: the settings a fit shares, one machine per problem, one-vs-rest sets.

Every binary problem is a list of training rows plus a mask of which rows are positive.  With
``solver='libsvm'``, problems that share their rows (one-vs-rest) share one Gram matrix,
computed with BLAS (``Kernel.gram``) when it fits the memory budget and handed to
``SVC(kernel="precomputed")``; a problem of its own (a pair of classes) lets libsvm compute the
same kernel (``Kernel.svc_params``) on demand with its kernel cache, which measured 2-4x
cheaper than a per-pair Gram matrix on USPS and Letter, as SMO visits few columns.  With
``solver='liblinear'`` (linear kernel only), liblinear trains on the rows themselves (no Gram
matrix, no reuse across C: its regularized bias breaks the rule reuse rests on).  Independent
problems run through ``joblib.Parallel(prefer="threads")``: both solvers release the GIL, and a
surrounding ``joblib.parallel_config(backend=...)`` still decides where tasks run.

A CSR training X goes to either solver as it is: a sparse X is never densified.
"""

import os
import time
from dataclasses import dataclass, field, replace

import numpy as np
from joblib import Parallel, delayed

from .kernels import Kernel, gram_fits
from ..base.parallel import resolve_n_jobs
from ..base.thread_warnings import reissue, with_warnings
from ._solvers import liblinear_fit, liblinear_memory, libsvm_fit, libsvm_memory
from .weights import side_weights


@dataclass(frozen=True)
class TrainSettings:
    """What every binary problem of one fit shares; ``solver`` is 'libsvm' or 'liblinear'
    (linear kernel only); ``gram``, when given, is K(X, X) over all training rows, from which
    every libsvm problem reads its kernel values; ``reuse``, when given, is a
    :class:`.reuse.ReuseScope` whose machines stand in for libsvm's (see :func:`fit_binary`);
    ``row_weights``, when given, is each training row's class weight w_c (``class_weight``: each
    problem's two sides then weigh :func:`.weights.side_weights`)."""

    kernel: Kernel
    C: float
    tol: float
    cache_size: float
    memory_mb: float
    n_jobs: object = None
    solver: str = "libsvm"
    max_iter: object = "libsvm"  # libsvm's SMO bound per problem (see _solvers.iteration_bound)
    gram: np.ndarray | None = field(default=None, compare=False, repr=False)
    reuse: object = field(default=None, compare=False, repr=False)
    row_weights: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def libsvm(self):
        """Whether libsvm trains the machines (else liblinear)."""
        return self.solver == "libsvm"


@dataclass
class BinaryFit:
    """One trained binary SVM, f(x) > 0 meaning the positive class.

    libsvm's: f(x) = sum_s dual_coef[s] k(X[support[s]], x) + intercept (``weights`` None);
    liblinear's: f(x) = weights . x + intercept (``support`` and ``dual_coef`` empty).
    ``support`` holds training-row indices; ``pid`` and ``cpu_seconds`` say which process
    trained it and its CPU time there; ``n_iter`` is the solver's iteration count (libsvm's SMO
    iterations, ``SVC.n_iter_``; liblinear's outer iterations, ``LinearSVC.n_iter_``);
    ``train_memory``: bytes its training data took in the solver (``_solvers.libsvm_memory`` /
    ``liblinear_memory``); ``reused``: taken from a reuse store, not trained (no iterations,
    no CPU time; the memory figure is the problem's, kept)."""

    support: np.ndarray
    dual_coef: np.ndarray
    intercept: float
    pid: int
    cpu_seconds: float
    n_iter: int
    reused: bool = False
    weights: np.ndarray | None = None
    train_memory: int = 0

    def as_reused(self):
        """This machine as a reused one: the same SVM, at no cost, in this process."""
        return replace(self, pid=os.getpid(), cpu_seconds=0.0, n_iter=0, reused=True)


def fit_binary(X, rows, positive, settings, gram=None):
    """Train the soft-margin SVM separating ``positive`` rows of ``X[rows]`` from the others.

    libsvm: with ``gram`` = K(X[rows], X[rows]) (shared by several problems on the same rows),
    or taken from the fit's whole ``settings.gram``, libsvm reads kernel values from it;
    without, libsvm computes them itself, only for the columns SMO visits, through its kernel
    cache (for a single problem that beats computing a Gram matrix for it).  With
    ``settings.reuse``, a stored machine that solves this problem at C is returned instead.
    With ``settings.row_weights`` (class weights) the two sides' penalties are C w_- and C w_+
    (:func:`.weights.side_weights`), for either solver.  liblinear: trained on ``X[rows]``, never reused.  A CSR ``X`` goes to the solver as it is.
    """
    if settings.reuse is not None and settings.libsvm:
        return settings.reuse.fit(rows, positive, settings,
                                  lambda: train_binary(X, rows, positive, settings, gram))
    return train_binary(X, rows, positive, settings, gram)


def train_binary(X, rows, positive, settings, gram=None):
    """:func:`fit_binary` without reuse: the solver trains the machine."""
    started = time.process_time()
    sides = side_weights(settings.row_weights, rows, positive)
    if not settings.libsvm:
        data = X[rows]
        weights, intercept, n_iter = liblinear_fit(data, positive, settings, sides)
        return BinaryFit(support=np.empty(0, np.intp), dual_coef=np.empty(0), intercept=intercept,
                         pid=os.getpid(), cpu_seconds=time.process_time() - started,
                         n_iter=n_iter, weights=weights, train_memory=liblinear_memory(data))
    if gram is None and settings.gram is not None:
        gram = rows_gram(settings.gram, rows)
    if gram is not None:
        data, params = gram, {"kernel": "precomputed"}
    else:
        data, params = X[rows], settings.kernel.svc_params()
    support, dual_coef, intercept, n_iter = libsvm_fit(data, positive, settings, params, sides)
    return BinaryFit(
        support=np.asarray(rows)[support],
        dual_coef=dual_coef,
        intercept=intercept,
        pid=os.getpid(),
        cpu_seconds=time.process_time() - started,
        n_iter=n_iter,
        train_memory=libsvm_memory(data),
    )


def run_parallel(tasks, n_jobs):
    """Run delayed tasks with joblib, threads preferred (libsvm and BLAS release the GIL);
    ``n_jobs`` through the one resolver (None: the surrounding ``parallel_config``'s).  One
    worker runs them here in order, as joblib would, without its dispatch (the grid's small
    problems are milliseconds each)."""
    workers = None if n_jobs is None else resolve_n_jobs(n_jobs)
    if workers == 1:
        return [func(*args, **kwargs) for func, args, kwargs in tasks]
    done = Parallel(n_jobs=workers, prefer="threads")(
        delayed(with_warnings)(func, *args, **kwargs) for func, args, kwargs in tasks)
    for _, raised in done:  # the workers' warnings, raised again in the caller's thread
        reissue(raised)
    return [result for result, _ in done]


def foreign_cpu_seconds(fits):
    """CPU seconds of the fits that ran in other processes (process_time misses those)."""
    me = os.getpid()
    return sum(fit.cpu_seconds for fit in fits if fit.pid != me)


def smo_iterations(fits):
    """The solver's iterations summed over ``fits`` (0 for none)."""
    return sum(fit.n_iter for fit in fits)


def max_train_memory(fits):
    """The most bytes any of ``fits`` took to train (see :attr:`BinaryFit.train_memory`; 0 for none)."""
    return int(max((fit.train_memory for fit in fits), default=0))


def one_vs_rest_problems(y_index, rows, classes):
    """The (rows, positive mask) problems of one-vs-rest among ``classes`` on ``rows``.

    With two classes there is one problem, positive = ``classes[1]``; with more, one problem
    per class, positive = that class.
    """
    labels = y_index[rows]
    positives = classes[1:] if len(classes) == 2 else classes
    return [(rows, labels == c) for c in positives]


def rows_gram(gram, rows):
    """K(X[rows], X[rows]) from the whole K(X, X): the matrix itself when ``rows`` are all rows
    in order, else the gathered sub-matrix."""
    rows = np.asarray(rows)
    if len(rows) == len(gram) and np.array_equal(rows, np.arange(len(gram))):
        return gram
    return gram[np.ix_(rows, rows)]


def fit_one_vs_rest(X, y_index, rows, classes, settings):
    """Train one-vs-rest SVMs among ``classes`` (class indices) on training ``rows``.

    All problems share the same rows, so their Gram matrix is computed once (when it fits the
    memory budget, and not when every machine is reused) and shared by every task without copies;
    liblinear needs none.
    """
    rows = np.asarray(rows)
    problems = one_vs_rest_problems(y_index, rows, classes)
    gram = shared_gram(X, rows, problems, settings)
    tasks = [delayed(fit_binary)(X, r, pos, settings, gram) for r, pos in problems]
    return run_parallel(tasks, settings.n_jobs)




def shared_gram(X, rows, problems, settings):
    """K(X[rows], X[rows]) for libsvm ``problems`` on the same ``rows``: taken from
    ``settings.gram``, or computed when it fits ``memory_mb``; None for liblinear, or when a
    reuse store holds every problem's machine."""
    if not settings.libsvm:
        return None
    if settings.reuse is not None and settings.reuse.covers_all(problems, settings):
        return None
    if settings.gram is not None:
        return rows_gram(settings.gram, rows)
    if gram_fits(len(rows), settings.memory_mb):
        return settings.kernel.gram(X[rows], resolve_n_jobs(settings.n_jobs))
    return None
