"""The all-together solver's resources: BLAS threads, and the Newton step's temporaries in the
training memory."""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_info, threadpool_limits

from multisvm_cli.estimators.joint.decomposition.kernel_rows import KernelRows
from multisvm_cli.estimators.joint.decomposition.solver import solve_dual
from multisvm_cli.estimators.joint.formulations import FORMULATIONS
from multisvm_cli.estimators.kernels import Kernel
from tests.estimators.joint.test_all_together import (SCHEMES, dual_terms, newton_problem, settings,
                                                     tiny_problem)


def newton_start(form, n_rows, n_classes, seed):
    """A problem at a large C and a near-constant kernel, stopped after 60 steps, where a Newton
    step moves many free variables: (X, y, kernel, C, beta (k, l), G (k, l))."""
    X, y = tiny_problem(n_rows, n_classes, seed)
    kernel, C = Kernel.from_params("gaussian", gamma=2.0**-6), 100.0
    Q, E = dual_terms(form, X, y, kernel, n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = solve_dual(X, y, n_classes, form, settings(kernel, C, 1e-3, max_iter=60)).beta
    return X, y, kernel, C, np.ascontiguousarray(start.T), np.ascontiguousarray((Q @ start + E).T)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_newton_step_counts_the_bytes_it_allocates(form):
    """The bytes a Newton step reports are what Python's allocator saw it hold at its peak
    (tracemalloc, which numpy reports to), within 10%: the count leaves out only small
    index arrays."""
    from multisvm_cli.estimators.joint.decomposition.loops import CS, WW
    from multisvm_cli.estimators.joint.decomposition.newton import Peak, newton_step

    X, y, kernel, C, beta, G = newton_start(form, 400, 4, seed=3)
    rows, peak = KernelRows(X, kernel, 200.0, 2048.0), Peak()
    kind, shift = (CS if form == "cs" else WW), FORMULATIONS[form][2]
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        moved = newton_step(newton_problem(kind, C, shift, y), beta, G, np.arange(len(y)), rows,
                            2048.0, peak)
        allocated = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert moved
    assert allocated > 100_000  # kernel blocks of 400 columns: the count has something to count
    assert 0.9 * allocated <= peak.nbytes <= 1.1 * allocated  # measured: 0.97 of it


def test_training_memory_adds_the_newton_peak(monkeypatch):
    """max_train_memory_ = Gram matrix + dual + data + the largest Newton step's temporaries."""
    from multisvm_cli.estimators.joint.decomposition import newton as _joint_newton

    X, y = tiny_problem(150, 4, seed=12)
    peaks = []
    original = _joint_newton.newton_step
    monkeypatch.setattr(_joint_newton, "newton_step",
                        lambda *args: peaks.append(args[-1]) or original(*args))
    model = SCHEMES["cs"](C=2.0**10, gamma=2.0**-8).fit(X, y)
    assert peaks and peaks[0].nbytes > 150 * 150 * 8  # a step held at least its Q block
    gram, dual = 150 * 150 * 8, 2 * 150 * 4 * 8
    assert model.max_train_memory_ == gram + dual + X.nbytes + peaks[0].nbytes


def test_every_phase_runs_blas_on_one_thread(monkeypatch):
    """Under a caller's two BLAS threads, the Gram matrix, kernel rows, reconstruction and
    Newton steps of a solve all see one (solver's docstring: two only spent CPU), and the
    caller's setting is back afterwards."""
    from multisvm_cli.estimators import kernels
    from multisvm_cli.estimators.joint.decomposition import kernel_rows, newton as _joint_newton, solver as _joint_solver

    seen, solves = [], []

    def recording(owner, name):
        original = getattr(owner, name)
        blas = lambda: max(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        def wrapper(*args):  # threadpool_info is slow: once per phase and solve
            if (name, len(solves)) not in {(phase, solve) for phase, solve, _ in seen}:
                seen.append((name, len(solves), blas()))
            return original(*args)

        monkeypatch.setattr(owner, name, wrapper)

    for owner, name in ((kernels.Kernel, "gram"), (kernel_rows.KernelRows, "fetch"),
                        (_joint_solver, "reconstruct"), (_joint_newton, "newton_step")):
        recording(owner, name)
    X, y = tiny_problem(1500, 4, seed=2)
    with threadpool_limits(limits=2, user_api="blas"):
        for cache_size in (200.0, 2.0):  # the Gram matrix, then cached rows
            solve_dual(X, y, 4, "cs", settings(Kernel.from_params("gaussian", gamma=2.0), 10.0,
                                               1e-3, cache_size=cache_size, memory_mb=cache_size))
            solves.append(cache_size)
        after = max(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
    assert {name for name, _, _ in seen} == {"gram", "fetch", "reconstruct", "newton_step"}
    assert {threads for _, _, threads in seen} == {1}
    assert after == 2
