"""The all-together solver's accounting: the Newton step's temporaries in the training memory."""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from multisvm_cli.estimators.joint.solver import FORMULATIONS, KernelRows, solve_dual
from multisvm_cli.estimators.kernels import Kernel
from tests.estimators.joint.test_all_together import SCHEMES, dual_terms, settings, tiny_problem


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
    from multisvm_cli.estimators.joint.loops import CS, WW
    from multisvm_cli.estimators.joint.newton import Peak, newton_step

    X, y, kernel, C, beta, G = newton_start(form, 400, 4, seed=3)
    rows, peak = KernelRows(X, kernel, 200.0), Peak()
    kind, shift = (CS if form == "cs" else WW), FORMULATIONS[form][2]
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        moved = newton_step(kind, C, shift, y, beta, G, np.arange(len(y)), rows, peak)
        allocated = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert moved
    assert allocated > 100_000  # kernel blocks of 400 columns: the count has something to count
    assert 0.9 * allocated <= peak.nbytes <= 1.1 * allocated  # measured: 0.97 of it


def test_training_memory_adds_the_newton_peak(monkeypatch):
    """max_train_memory_ = Gram matrix + dual + data + the largest Newton step's temporaries."""
    from multisvm_cli.estimators.joint import newton as _joint_newton

    X, y = tiny_problem(150, 4, seed=12)
    peaks = []
    original = _joint_newton.newton_step
    monkeypatch.setattr(_joint_newton, "newton_step",
                        lambda *args: peaks.append(args[-1]) or original(*args))
    model = SCHEMES["cs"](C=2.0**10, gamma=2.0**-8).fit(X, y)
    assert peaks and peaks[0].nbytes > 150 * 150 * 8  # a step held at least its Q block
    gram, dual = 150 * 150 * 8, 2 * 150 * 4 * 8
    assert model.max_train_memory_ == gram + dual + X.nbytes + peaks[0].nbytes
