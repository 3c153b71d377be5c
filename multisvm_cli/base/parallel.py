"""Threads: how many a ``n_jobs`` setting means, and the one helper that maps work over them.

Convention (joblib's): ``None`` or 1 = one thread; ``n > 1`` = n threads; ``-1`` = every core,
``-2`` = every core but one, and so on. 0 is refused. A request above what the machine has is
lowered to the number of cores, with a warning: libsvm and BLAS work is CPU-bound, so more
threads than cores only add switching (and 100,000 threads cannot even be started).

:func:`map_threads` runs short tasks (Gram bands, prediction chunks) side by side in a plain
thread pool, each thread with one BLAS thread (:func:`single_threaded_blas`).
"""

from __future__ import annotations

import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from functools import lru_cache
from numbers import Integral

from threadpoolctl import ThreadpoolController


def cpu_count() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_n_jobs(n_jobs):
    """``n_jobs`` itself; ValueError (one line) unless it is None or a non-zero integer."""
    if n_jobs is not None and (not isinstance(n_jobs, Integral) or isinstance(n_jobs, bool)
                               or n_jobs == 0):
        raise ValueError(f"n_jobs must be a non-zero integer (1 = one thread, -1 = every core), "
                         f"got {n_jobs!r}")
    return n_jobs


def resolve_n_jobs(n_jobs, limit=None, capacity=None) -> int:
    """The number of workers ``n_jobs`` stands for (at least 1).

    ``capacity`` is what can run at once: this machine's cores (the default) for threads, a
    Dask cluster's worker threads for grid points sent there. A request above it is lowered to
    it, with a warning. ``limit`` caps the result further at the work available (e.g. the
    number of tasks).
    """
    check_n_jobs(n_jobs)
    cores = capacity or cpu_count()
    if n_jobs is None:
        threads = 1
    elif n_jobs < 0:
        threads = max(1, cores + 1 + n_jobs)
    else:
        threads = n_jobs
        if threads > cores:
            warnings.warn(f"n_jobs={n_jobs} is more than the {cores} workers that can run at once "
                          f"here; using {cores}", UserWarning, stacklevel=2)
            threads = cores
    return max(1, min(threads, limit)) if limit is not None else threads


@lru_cache(maxsize=1)
def threadpools():
    """The process's thread pools (BLAS, OpenMP), inspected once: limiting them is then cheap."""
    return ThreadpoolController()


LOCAL_BACKENDS = ("SequentialBackend", "ThreadingBackend", "LokyBackend", "MultiprocessingBackend")


def local_backend() -> bool:
    """Whether joblib's active backend (for work that prefers threads) runs tasks on this
    machine, in threads or local processes (not on Dask's workers): files its tasks write land
    in this machine's folders."""
    from joblib.parallel import get_active_backend

    return type(get_active_backend(prefer="threads")[0]).__name__ in LOCAL_BACKENDS


RUN_THREAD = "multisvm-run"  # the thread a run's work goes to while the main thread waits


def single_threaded_blas():
    """A context in which BLAS runs on one thread, when entered from the thread that drives the
    work: the main thread, or the run thread (:data:`RUN_THREAD`) while the main one only waits.

    BLAS limits are process-wide and OpenBLAS does not take changes reliably while other threads
    are inside BLAS: callers limiting and restoring side by side (grid points predicting in
    concurrent threads) were seen to leave BLAS on one thread for good.  So only the driving
    thread limits; work already running in other threads keeps the limits it finds.
    """
    here = threading.current_thread()
    if here is threading.main_thread() or here.name == RUN_THREAD:
        return threadpools().limit(limits=1, user_api="blas")
    return nullcontext()


def map_threads(func, items, n_threads):
    """``[func(item) for item in items]``, in order.

    With ``n_threads > 1`` and at least two items, the items run in a plain thread pool of
    ``min(n_threads, len(items))`` threads (these tasks are milliseconds long, too short for
    joblib's dispatch) under :func:`single_threaded_blas`: the threads' products are small,
    and BLAS threads would only wait on each other. Otherwise they run one by one in this
    thread, with BLAS as the caller left it.
    """
    items = list(items)
    if n_threads <= 1 or len(items) < 2:
        return [func(item) for item in items]
    with single_threaded_blas(), ThreadPoolExecutor(min(n_threads, len(items))) as pool:
        return list(pool.map(func, items))
