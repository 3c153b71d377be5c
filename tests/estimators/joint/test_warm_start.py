"""Warm starts along C (issue #38): a solve that starts from the previous C's solution reaches
the cold solve's optimum within the tolerance's bound, meets the KKT conditions, and predicts
alike but for ties; the reuse store hands the path on only within one problem."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning

from multisvm_cli import data
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.joint.decomposition.kernel_rows import KernelRows
from multisvm_cli.estimators.joint.decomposition.solver import PathPoint, seed, solve_dual
from multisvm_cli.estimators.joint.formulations import FORMULATIONS
from multisvm_cli.estimators.joint.decomposition.state import Problem
from multisvm_cli.estimators.kernels import Kernel
from multisvm_cli.estimators.reuse import MachineReuse, PathSlot
from multisvm_cli.estimators.ww import WestonWatkinsSVC

from .test_all_together import box, dual_objective, dual_terms, kkt_violations, scaled, settings

PATH = [2.0**e for e in range(-2, 9)]  # 2^-2 .. 2^8
TOL = 1e-3


@pytest.fixture(scope="module")
def real_sets(mirror):
    """name -> (X scaled to [-1, 1], class indices): glass and vowel's training part."""
    sets = {}
    for name, part in (("glass", "all"), ("vowel", "train")):
        X, labels = data.load(name, mirror=mirror).parts[part]
        sets[name] = scaled(X), np.unique(labels, return_inverse=True)[1]
    return sets


def scores(form, beta, Q):
    """Every training row's k scores: Q beta (Q = K + shift carries W&W's bias)."""
    return Q @ beta


def objective_bound(beta, other, violation):
    """How far apart two tol-accurate solutions' objectives may be: by convexity, f(b) - f(b')
    <= G(b)'(b - b') <= (largest violation of b) / 2 x ||b - b'||_1 (each row's move has sum 0,
    its positive part leaves entries that may decrease, its negative part enters entries that
    may increase), and symmetrically."""
    return violation / 2 * np.abs(beta - other).sum()


@pytest.mark.parametrize("form", ["cs", "ww"])
@pytest.mark.parametrize("name, gamma", [("glass", 1.0), ("vowel", 1.0), ("vowel", 2.0**-4)])
def test_every_point_of_a_path_reaches_the_cold_optimum(form, name, gamma, real_sets, data_home):
    X, y = real_sets[name]
    n_classes, kernel = y.max() + 1, Kernel.from_params("gaussian", gamma=gamma)
    Q, E = dual_terms(form, X, y, kernel, n_classes)
    slot, steps = PathSlot(), {"cold": 0, "warm": 0}
    for C in PATH:
        cold = solve_dual(X, y, n_classes, form, settings(kernel, C, TOL))
        warm = solve_dual(X, y, n_classes, form, settings(kernel, C, TOL), path=slot)
        assert cold.converged and warm.converged
        assert slot.previous.C == C and slot.previous.beta.T.tolist() == warm.beta.tolist()
        steps["cold"] += cold.n_iter
        steps["warm"] += warm.n_iter
        lower, upper = box(form, y, n_classes, C)
        assert np.all(warm.beta >= lower) and np.all(warm.beta <= upper)  # exactly in the box
        assert np.abs(warm.beta.sum(axis=1)).max() < 1e-9 * C
        violations = [kkt_violations(form, s.beta, Q, E, y, C).max() for s in (warm, cold)]
        assert max(violations) <= TOL * (1 + 1e-6)
        gap = dual_objective(warm.beta, Q, E) - dual_objective(cold.beta, Q, E)
        assert abs(gap) <= objective_bound(warm.beta, cold.beta, max(violations)) + 1e-9 * C
        assert_predictions_agree(scores(form, warm.beta, Q), scores(form, cold.beta, Q))
    assert steps["warm"] < steps["cold"], steps


def assert_predictions_agree(warm, cold):
    """The predicted classes are equal, but for rows where the cold solution's two classes
    tie within tol (their scores differ by less than tol: the solutions differ by up to the
    tolerance, so a near tie may go either way)."""
    mine, theirs = warm.argmax(axis=1), cold.argmax(axis=1)
    rows = np.flatnonzero(mine != theirs)
    assert np.all(np.abs(cold[rows, theirs[rows]] - cold[rows, mine[rows]]) <= TOL), rows
    assert len(rows) <= 0.02 * len(mine)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_any_c_ratio_either_way_and_a_small_cache(form, real_sets):
    """C values that are not powers of two (an entry at the bound lands exactly on the new
    one), a smaller C after a larger (the seed shrinks), and a kernel cache of a few rows
    (the kept rows are read again, their stamps reset)."""
    X, y = real_sets["glass"]
    n_classes, kernel = y.max() + 1, Kernel.from_params("gaussian", gamma=2.0)
    Q, E = dual_terms(form, X, y, kernel, n_classes)
    slot = PathSlot()
    for C in (0.3, 1.1, 3.7, 11.0, 2.5):
        cold = solve_dual(X, y, n_classes, form, settings(kernel, C, TOL))
        warm = solve_dual(X, y, n_classes, form, settings(kernel, C, TOL, cache_size=0.01, memory_mb=0.01),
                          path=slot)
        assert not slot.previous.rows.full
        lower, upper = box(form, y, n_classes, C)
        assert np.all(warm.beta >= lower) and np.all(warm.beta <= upper)
        assert np.any(warm.beta == (C if form == "cs" else -C))  # entries exactly at the bound
        violation = kkt_violations(form, warm.beta, Q, E, y, C).max()
        assert violation <= TOL * (1 + 1e-6)
        gap = dual_objective(warm.beta, Q, E) - dual_objective(cold.beta, Q, E)
        assert abs(gap) <= objective_bound(warm.beta, cold.beta, TOL) + 1e-9 * C


def test_the_seed_is_the_best_feasible_multiple():
    """At large C the solution stops moving: the seed is then the previous solution itself
    (t = 1), which is already optimal, and the solve takes no step (scaling it by C / C' would
    not be); at small C it is the scaled one."""
    X, labels = load_wine(return_X_y=True)
    X, y = scaled(X), np.unique(labels, return_inverse=True)[1]
    kernel, slot = Kernel.from_params("gaussian", gamma=0.5), PathSlot()
    solve_dual(X, y, 3, "cs", settings(kernel, 64.0, TOL), path=slot)
    assert slot.previous.best_multiple(128.0) == pytest.approx(1.0, abs=1e-3)
    assert solve_dual(X, y, 3, "cs", settings(kernel, 128.0, TOL), path=slot).n_iter == 0
    solve_dual(X, y, 3, "cs", settings(kernel, 2.0**-6, TOL), path=PathSlot())
    small = PathSlot()
    solve_dual(X, y, 3, "cs", settings(kernel, 2.0**-6, TOL), path=small)
    assert small.previous.best_multiple(2.0**-5) == 2.0  # every variable at its bound: scale


@pytest.mark.parametrize("scheme", [CrammerSingerSVC, WestonWatkinsSVC])
def test_the_store_warm_starts_one_problem_only(scheme):
    X, labels = load_wine(return_X_y=True)
    X = scaled(X)
    store = MachineReuse()
    first = scheme(C=1.0, gamma=0.5).fit(X, labels, reuse=store)
    cold = scheme(C=4.0, gamma=0.5).fit(X, labels)
    warm = scheme(C=4.0, gamma=0.5).fit(X, labels, reuse=store)
    assert first.smo_iterations_ > 0 and warm.smo_iterations_ < cold.smo_iterations_
    assert np.mean(warm.predict(X) != cold.predict(X)) <= 0.02
    # another kernel, other labels or other rows are other problems: cold starts
    for changed in (dict(gamma=0.25), dict(y=labels[::-1]), dict(X=X[::-1])):
        params = {"C": 4.0, "gamma": changed.get("gamma", 0.5)}
        fitted = scheme(**params).fit(changed.get("X", X), changed.get("y", labels), reuse=store)
        alone = scheme(**params).fit(changed.get("X", X), changed.get("y", labels))
        assert fitted.smo_iterations_ == alone.smo_iterations_
    assert len(store._paths) == 4 and len(store) == 0
    assert FORMULATIONS[scheme._formulation]  # both schemes are all-together ones


def copied(point):
    """A copy of a path point's arrays (:func:`seed` takes the arrays it is handed over)."""
    G = None if point.G is None else point.G.copy()
    return PathPoint(point.C, point.beta.copy(), G, point.rows, point.curvature, point.linear)


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_the_carried_gradient_is_the_rebuilt_one(form, real_sets):
    """The seed's G, carried from the previous solve (e + t (G' - e)), is Q beta + e of the
    seeded beta, as rebuilt from the kernel, at every C of a path (t < C / C' and t = C / C'
    both occur); the next solve takes the previous arrays over."""
    X, y = real_sets["vowel"]
    n_classes, kernel = y.max() + 1, Kernel.from_params("gaussian", gamma=2.0**-4)
    Q, E = dual_terms(form, X, y, kernel, n_classes)
    kind, margin, shift = FORMULATIONS[form]
    slot, ratios = PathSlot(), set()
    for C, next_C in zip(PATH, PATH[1:]):
        solve_dual(X, y, n_classes, form, settings(kernel, C, TOL), path=slot)
        point = slot.previous
        problem = Problem(kind, next_C, shift, TOL, 0, y, point.rows.diag)
        carried_beta, carried = seed(problem, copied(point), (margin, shift), point.rows, 2048.0)
        without = copied(point)
        without.G = None
        rebuilt_beta, rebuilt = seed(problem, without, (margin, shift), point.rows, 2048.0)
        assert carried_beta.tolist() == rebuilt_beta.tolist()
        exact = (Q @ carried_beta.T + E).T
        scale = 1e-10 * next_C  # G's rounding after thousands of steps: about 1e-12 here
        assert np.abs(rebuilt - exact).max() <= scale
        assert np.abs(carried - exact).max() <= scale, np.abs(carried - exact).max()
        ratios.add(point.best_multiple(next_C) == next_C / C)
        taken = point.beta
        solve_dual(X, y, n_classes, form, settings(kernel, next_C, TOL), path=slot)
        assert slot.previous.beta is taken  # taken over, not copied
    assert ratios == {True, False}


def test_a_solve_that_ended_shrunk_hands_on_no_gradient(real_sets):
    """A solve stopped by the step bound with examples set aside has a stale G there: its
    point carries none, and the next solve rebuilds it and still reaches the optimum."""
    X, y = real_sets["vowel"]
    n_classes, kernel = y.max() + 1, Kernel.from_params("gaussian", gamma=2.0**-4)
    Q, E = dual_terms("cs", X, y, kernel, n_classes)
    slot = PathSlot()
    with pytest.warns(ConvergenceWarning, match="terminated early"):
        solve_dual(X, y, n_classes, "cs", settings(kernel, 4.0, TOL, max_iter=1500), path=slot)
    assert slot.previous.G is None
    warm = solve_dual(X, y, n_classes, "cs", settings(kernel, 8.0, TOL), path=slot)
    assert warm.converged and slot.previous.G is not None
    assert kkt_violations("cs", warm.beta, Q, E, y, 8.0).max() <= TOL * (1 + 1e-6)


@pytest.mark.parametrize("form", ["cs", "ww"])
@pytest.mark.parametrize("max_iter", ["libsvm", 300])
def test_a_path_read_back_from_disk_goes_on_bit_for_bit(form, max_iter, real_sets):
    """A path cut after its second solve and continued from the point's saved numbers and
    arrays (no kernel rows: a resumed run's chain state) takes the very steps of the uncut path,
    to the very same beta, with a cache of a few rows (read again or recomputed, the same
    values) and when a solve ended shrunk at the step bound (no G saved: it is rebuilt)."""
    X, y = real_sets["glass"]
    n_classes, kernel = y.max() + 1, Kernel.from_params("gaussian", gamma=2.0)
    runs = {}
    for cut in (None, 1):
        slot, solved = PathSlot(), []
        for i, C in enumerate((1.0, 4.0, 16.0, 64.0)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                fit = solve_dual(X, y, n_classes, form,
                                 settings(kernel, C, TOL, cache_size=0.01, max_iter=max_iter, memory_mb=0.01),
                                 path=slot)
            solved.append((fit.n_iter, fit.beta))
            if i == cut:
                numbers, arrays = slot.previous.saved()
                assert ("G" in arrays) is (max_iter == "libsvm")
                slot = PathSlot(PathPoint.restored(numbers, {name: value.copy()
                                                             for name, value in arrays.items()}))
        runs[cut] = solved
    assert [steps for steps, _ in runs[1]] == [steps for steps, _ in runs[None]]
    assert all(np.array_equal(cut, whole) for (_, cut), (_, whole) in zip(runs[1], runs[None]))


def test_a_previous_point_of_another_problem_is_refused(real_sets):
    X, y = real_sets["vowel"]
    kernel = Kernel.from_params("gaussian", gamma=1.0)
    numbers = {"C": 1.0, "curvature": 1.0, "linear": -1.0}
    slot = PathSlot(PathPoint.restored(numbers, {"beta": np.zeros((y.max() + 1, len(y) - 1))}))
    with pytest.raises(ValueError, match="previous point has"):
        solve_dual(X, y, y.max() + 1, "cs", settings(kernel, 2.0, TOL), path=slot)


def test_refilled_rows_are_the_carried_ones(real_sets):
    """A cache large enough to keep rows across the path, refilled from a saved point's
    ``cached_rows``, holds the very rows, slots and stamps that :meth:`carried_over` hands on."""
    X, y = real_sets["vowel"]
    n_classes, kernel = y.max() + 1, Kernel.from_params("gaussian", gamma=2.0**-4)
    slot = PathSlot()  # without shrinking no rows are flushed, so it ends with a full cache
    solve_dual(X, y, n_classes, "cs", settings(kernel, 0.25, TOL, cache_size=0.5, memory_mb=0.5),
               shrinking=False, path=slot)
    carried = slot.previous.rows.carried_over()
    assert np.sum(carried.owner >= 0) == len(carried.owner) < len(y)
    refilled = KernelRows(X, kernel, 0.5, 0.5).refill(slot.previous.saved()[1]["cached_rows"])
    for name in ("owner", "slot_of", "stamp"):
        assert np.array_equal(getattr(refilled, name), getattr(carried, name)), name
    held = carried.owner >= 0
    assert np.array_equal(refilled.rows[held], carried.rows[held])
    with pytest.raises(ValueError, match="do not fit this cache"):
        KernelRows(X, kernel, 0.5, 0.5).refill(np.append(carried.owner, -1))


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_a_full_carried_cache_neither_livelocks_nor_differs_when_read_back(form, real_sets):
    """A path whose solves hand on a full cache of 30 rows (glass, gamma 1/2: at C 2 the first
    step once needed two rows it did not hold, and with every kept row stamped 0 fetching the
    partner evicted the example just fetched, and back, without end).  Every solve ends, and
    the path cut where the cache is full and read back from disk, its rows refilled, takes the
    very steps of the uncut one.  (Which solve ends with a full cache, not shrunk, depends on
    the steps' rounding: the first gamma of 1/2, 1/4, 1 and 2 whose path has one is taken.)"""
    import signal

    def stuck(*args):
        raise TimeoutError("a solve of the path did not end in 60 s")

    X, y = real_sets["glass"]
    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(60)
    try:
        for gamma in (0.5, 0.25, 1.0, 2.0):
            kernel = Kernel.from_params("gaussian", gamma=gamma)
            whole, full = path_with_cut(form, X, y, kernel, None)
            if any(full[i] for i in range(len(full) - 1)):
                break
        cut = min(i for i in range(len(full) - 1) if full[i])  # the first to hand on a full cache
        runs = {None: whole, cut: path_with_cut(form, X, y, kernel, cut)[0]}
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert [steps for steps, _ in runs[cut]] == [steps for steps, _ in runs[None]]
    assert all(np.array_equal(one, other) for (_, one), (_, other) in zip(runs[cut], runs[None]))


def path_with_cut(form, X, y, kernel, cut):
    """([(steps, beta)] of a glass path at C 2^-2 .. 2^3 with a 30-row cache, read back from
    disk after solve ``cut`` (None: never), {i: whether solve i handed on a full cache})."""
    slot, solved, full = PathSlot(), [], {}
    for i, C in enumerate(2.0**e for e in range(-2, 4)):
        fit = solve_dual(X, y, y.max() + 1, form, settings(kernel, C, TOL, cache_size=0.05, memory_mb=0.05),
                         path=slot)
        solved.append((fit.n_iter, fit.beta))
        full[i] = bool(np.all(slot.previous.rows.owner >= 0))
        if i == cut:
            numbers, arrays = slot.previous.saved()
            slot = PathSlot(PathPoint.restored(numbers, {name: value.copy()
                                                         for name, value in arrays.items()}))
    return solved, full
