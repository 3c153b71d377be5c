"""The gradient's update after a step (trackers.update): over every example while enough are
active (a pass the compiler vectorizes), through the active list otherwise; the active
examples' gradient, trackers and the next working example are the same either way."""

import numpy as np
import pytest

from multisvm_cli.estimators.joint.decomposition.state import CS, WW, Dual, Problem

from .test_projected_search import BOXES, feasible_rows


def exact_trackers(kind, C, y, beta, G):
    """(high, low) of every example from scratch: the largest G over its classes that may
    decrease, the smallest over those that may increase."""
    k, n = beta.shape
    high, low = np.full(n, -np.inf), np.full(n, np.inf)
    for j in range(n):
        for m in range(k):
            lower, upper = BOXES[kind](m == y[j], C)
            if beta[m, j] > lower:
                high[j] = max(high[j], G[m, j])
            if beta[m, j] < upper:
                low[j] = min(low[j], G[m, j])
    return high, low


@pytest.mark.parametrize("kind", [CS, WW])
@pytest.mark.parametrize("n_active", [60, 31, 9])  # all, over 1 / DIRECT, under it
def test_the_update_moves_the_active_examples_alike(kind, n_active):
    from multisvm_cli.estimators.joint.decomposition import trackers

    rng = np.random.default_rng(n_active + 10 * kind)
    k, n, C, shift = 6, 60, 1.5, float(kind == WW)
    y = rng.integers(0, k, n).astype(np.int64)
    beta = feasible_rows(kind, C, y, k, rng)
    G = rng.normal(size=(k, n))
    active = np.sort(rng.permutation(n)[:n_active]).astype(np.int64)
    active = np.concatenate([active, np.setdiff1d(np.arange(n), active)])  # the rest after
    problem = Problem(kind, C, shift, 1e-3, 0, y, np.ones(n))
    dual = Dual(beta, G, np.empty(n), np.empty(n), np.zeros(n, np.bool_), active)
    trackers.init_trackers(problem, dual)
    i, i2 = int(active[0]), int(active[1])
    q, q2 = rng.normal(size=n), rng.normal(size=n)
    d, d2 = np.zeros(k), np.zeros(k)
    d[[1, 4]], d2[[1, 2]] = (0.3, -0.2), (-0.1, 0.05)
    changed = np.array([1, 2, 4], np.int64)
    expected = G.copy()
    for m in changed:
        expected[m] += d[m] * (q + shift) + d2[m] * (q2 + shift)
    outside = G[:, active[n_active:]].copy()

    best, worst = trackers.update(problem, dual, n_active, (i, q, d), (i2, q2, d2), changed)

    mine = active[:n_active]
    assert np.allclose(G[:, mine], expected[:, mine], rtol=1e-14, atol=1e-15)
    if n_active * trackers.DIRECT < n:  # the listed pass leaves the set-aside examples alone
        assert np.array_equal(G[:, active[n_active:]], outside)
    high, low = exact_trackers(kind, C, y, beta, G)
    violation = (high - low)[mine]
    assert worst == pytest.approx(violation.max(), rel=1e-14)
    assert best == mine[np.flatnonzero(violation >= violation.max() - 1e-14)[0]]
    fresh = mine[~dual.stale[mine]]  # exact where not stale, an upper bound where stale
    assert np.allclose(dual.high[fresh], high[fresh]) and np.allclose(dual.low[fresh], low[fresh])
    stale = mine[dual.stale[mine]]
    assert np.all(dual.high[stale] - dual.low[stale] >= high[stale] - low[stale] - 1e-14)
