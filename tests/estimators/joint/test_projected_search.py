"""The Newton step's projected search (multisvm_cli/estimators/joint/decomposition/search.py, newton.py) and
the loops' stall on steps of rounding's size (steps.rounding_only)."""

import numpy as np
import pytest

from multisvm_cli.estimators.joint.decomposition.state import CS, WW

BOXES = {CS: lambda mine, C: (-np.inf, C if mine else 0.0),
         WW: lambda mine, C: (-np.inf if mine else -C, np.inf if mine else 0.0)}


def nearest_by_bisection(row, target, moving, low, high):
    """The feasible row nearest to ``target`` (sum equal to ``row``'s, moving entries in
    [low, high], the others kept): x = clip(target - tau) on the moving entries, tau by
    bisection (an independent reference to solve_box's breakpoints)."""
    total = row[moving].sum()
    a, b = -1e6, 1e6
    for _ in range(200):
        tau = 0.5 * (a + b)
        if np.clip(target[moving] - tau, low[moving], high[moving]).sum() > total:
            a = tau
        else:
            b = tau
    result = row.copy()
    result[moving] = np.clip(target[moving] - 0.5 * (a + b), low[moving], high[moving])
    return result


def feasible_rows(kind, C, y, k, rng):
    """Random rows (k, r) in the box with sum 0: the wrong classes' entries at 0, at -C (W&W)
    or inside, the own class's their negated sum (scaled down to C for C&S)."""
    rows = rng.uniform(-C, 0.0, (k, len(y))) * (rng.random((k, len(y))) < 0.6)
    if kind == WW:
        rows[rng.random((k, len(y))) < 0.15] = -C
    rows[y, np.arange(len(y))] = 0.0
    own = -rows.sum(axis=0)
    if kind == CS:
        rows *= np.minimum(1.0, C / np.maximum(own, 1e-300))
        own = -rows.sum(axis=0)
    rows[y, np.arange(len(y))] = own
    return rows


def random_step(kind, C, shape, rng, mean, share):
    """(classes y, feasible rows, a direction of normal entries (``mean``, sd 3) on the moving
    entries, the moving mask): about ``share`` of the entries move, and in every row at least
    its own class and one other."""
    k, r = shape
    y = rng.integers(0, k, r)
    rows = feasible_rows(kind, C, y, k, rng)
    direction = rng.normal(mean, 3.0, (k, r))
    moving = rng.random((k, r)) < share
    moving[y, np.arange(r)] = True
    moving[(y + 1) % k, np.arange(r)] = True
    direction[~moving] = 0.0
    return y, rows, direction, moving


@pytest.mark.parametrize("kind", [CS, WW])
def test_each_row_moves_to_the_nearest_feasible_point(kind):
    """projected_rows against the nearest feasible row found by bisection: several entries of a
    row stop on their bounds at once, the row's sum stays 0, the unmoving entries stay."""
    from multisvm_cli.estimators.joint.decomposition.search import projected_rows

    k, r, C = 5, 30, 2.0
    y, rows, direction, moving = random_step(kind, C, (k, r), np.random.default_rng(3), 0.0, 0.7)
    moved = np.empty_like(rows)
    projected_rows(kind, C, y, rows, direction, moving, 1.0, moved)
    clipped = 0
    for a in range(r):
        low, high = np.array([BOXES[kind](m == y[a], C) for m in range(k)]).T
        expected = nearest_by_bisection(rows[:, a], rows[:, a] + direction[:, a], moving[:, a],
                                        low, high)
        np.testing.assert_allclose(moved[:, a], expected, atol=1e-9)
        assert abs(moved[:, a].sum()) < 1e-12
        assert np.all(moved[:, a] >= low) and np.all(moved[:, a] <= high)
        clipped += int(np.sum((moved[:, a] == high) & (rows[:, a] + direction[:, a] > high)))
    assert np.array_equal(moved[~moving], rows[~moving])
    assert clipped > r  # many entries stopped on a bound, several in one row


@pytest.mark.parametrize("kind", [CS, WW])
def test_rows_that_stay_inside_move_by_their_step_less_its_mean(kind):
    """At a short length most rows' moves, projected onto sum 0 alone (t D less its mean over
    the moving entries), stay inside their boxes: that is their projection, with no bound met
    (checked against bisection, with row sums of D far from 0); the other rows meet a bound."""
    from multisvm_cli.estimators.joint.decomposition.search import projected_rows

    k, r, C, t = 4, 40, 2.0, 0.05
    y, rows, direction, moving = random_step(kind, C, (k, r), np.random.default_rng(5), 1.0, 0.8)
    moved = np.empty_like(rows)
    projected_rows(kind, C, y, rows, direction, moving, t, moved)
    inside = 0
    for a in range(r):
        low, high = np.array([BOXES[kind](m == y[a], C) for m in range(k)]).T
        expected = nearest_by_bisection(rows[:, a], rows[:, a] + t * direction[:, a], moving[:, a],
                                        low, high)
        np.testing.assert_allclose(moved[:, a], expected, atol=1e-9)
        step = t * direction[moving[:, a], a]
        shifted = rows[moving[:, a], a] + step - step.mean()
        inside += bool(np.all((shifted >= low[moving[:, a]]) & (shifted <= high[moving[:, a]])))
    assert 10 < inside < r - 10


@pytest.mark.parametrize("kind", [CS, WW])
def test_a_short_enough_length_is_the_plain_step(kind):
    """Where t D keeps every entry inside its box, the projection is beta + t D itself."""
    from multisvm_cli.estimators.joint.decomposition.search import projected_rows

    rows = np.array([[-1.0, 0.5], [-0.5, -0.25], [1.5, -0.25]])
    y = np.array([2, 0])
    direction = np.array([[0.2, -0.1], [-0.4, 0.3], [0.2, -0.2]])
    moved = np.empty_like(rows)
    projected_rows(kind, 3.0, y, rows, direction, np.ones_like(rows, bool), 0.5, moved)
    np.testing.assert_allclose(moved, rows + 0.5 * direction, atol=1e-15)


def test_a_step_of_rounding_size_is_told_from_a_small_step():
    """rounding_only: a move of one unit in the last place is rounding; a move of 1e-10 on
    entries of size 0.3 (a step with a large Q_ii) is not, nor a move away from 0."""
    from multisvm_cli.estimators.joint.decomposition.steps import rounding_only

    row = np.array([0.3, -0.7, 0.4])
    none = np.zeros(3)
    ulp = np.spacing(row)
    assert rounding_only(ulp, row, none, row)
    assert rounding_only(none, row, -ulp, row)
    assert not rounding_only(np.array([1e-10, -1e-10, 0.0]), row, none, row)
    assert not rounding_only(ulp, row, np.array([0.0, 1e-20, -1e-20]), np.array([0.5, 1e-20, -0.5]))


@pytest.mark.parametrize("kind", [CS, WW])
def test_a_moved_row_is_settled_in_its_box(kind):
    """box.settle, as every step and the search place a row: an entry a hair from its bound
    lands on it, the row's sum (off by 3e-13) goes to the moving entry with the most room, and
    an entry that may not move is kept, even a hair from its bound (W&W's -C + 1e-14)."""
    from multisvm_cli.estimators.joint.decomposition.box import settle

    C, y = 2.0, 0
    row = np.array([0.0, -1e-14, -0.4, -1.4 if kind == CS else -C + 1e-14])
    row[0] = -row[1:].sum() + 3e-13  # C&S: 1.8, 0.2 from C; W&W: 2.4, free
    moving = np.array([True, True, True, False])
    settled = row.copy()
    settle(kind, C, y, settled, moving)
    assert settled[1] == 0.0  # snapped onto 0, a wrong class's upper bound
    assert settled[3] == row[3]  # not moving: not snapped
    assert abs(settled.sum()) < 1e-15
    widest = 2 if kind == CS else 0  # -0.4 is 0.4 from 0; the own class 0.2 from C (C&S) or free
    np.testing.assert_array_equal(np.delete(settled, [1, widest]), np.delete(row, [1, widest]))
    everything = row.copy()
    settle(kind, C, y, everything, None)
    assert abs(everything.sum()) < 1e-15
    if kind == WW:
        assert everything[3] == -C  # now moving: snapped onto -C


@pytest.mark.parametrize("kind", [CS, WW])
def test_the_search_takes_the_first_length_that_passes_armijo(kind):
    """search.searched tries t = 1, 1/2, ... and returns the projection at the first length
    whose exact change of the objective (g'd + 1/2 sum_m d_m' Q d_m, computed here in NumPy)
    is at most armijo x g'd < 0; with the direction reversed (an ascent) no length passes."""
    from multisvm_cli.estimators.joint.decomposition.search import projected_rows, searched

    rng = np.random.default_rng(5)
    k, r, C = 4, 12, 1.0
    y, rows, direction, moving = random_step(kind, C, (k, r), rng, 0.0, 0.7)
    X = rng.normal(size=(r, 3))
    Q = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)) * 40.0
    gradient = -direction + rng.normal(0.0, 0.1, (k, r))  # the direction descends, steeply
    classes, positions = np.nonzero(moving)

    def change_of(t):
        moved = np.empty((k, r))
        projected_rows(kind, C, y, rows, direction, moving, t, moved)
        d = moved - rows
        return moved, np.sum(gradient * d), np.sum(gradient * d) + 0.5 * np.sum((d @ Q) * d)

    passing = [t for t in 0.5 ** np.arange(12) if change_of(t)[1] < 0
               and change_of(t)[2] <= 0.1 * change_of(t)[1]]
    assert passing and passing[0] < 1.0  # the curvature turns t = 1 down: a shorter one passes
    step = (classes, positions, direction[classes, positions])
    moved, found = searched((kind, C), y, rows, gradient, Q, step, 12, 0.1)
    assert found
    np.testing.assert_array_equal(moved, change_of(passing[0])[0])
    _, found = searched((kind, C), y, rows, -gradient, Q, step, 12, 0.1)
    assert not found
