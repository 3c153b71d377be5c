"""A coarse-to-fine search (a config's ``refine: true``), as LIBSVM's practical guide advises:
the config's grid first, then finer points around each scheme's best cell, stage by stage.

A stage is a list of grid points per selection unit: (estimate, outer fold, scheme group) for
the nested estimate (each fold's choice is made on its own training part, so its search is its
own), (estimate, every fold, scheme group) for cv-best (its choice pools the folds). The next
stage's points come from the finished stages' scores alone (:func:`next_points`, a pattern
search on log2 C and log2 of the kernel's width), so the same config searches the same points
whatever ``-j`` says, and a resumed run replays every stage from the resume cache.

Around the best cell (the point :mod:`.selection` would choose), at the grid's own spacing,
the eight neighbours are scored; when all of them already are, the spacing halves (rounded up
to a whole exponent) down to 2^1, the full grid's spacing. A best cell on the grid's edge that
is better than every other point inside the grid so extends the grid past it, up to Hsu &
Lin's range plus two steps of 2^2 (:data:`LIMITS`, or the grid's own range where it is
wider); a plateau of ties reaching the edge does not (:func:`center`).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ...estimators.registry import kernel_free, scheme_groups
from ..config.grid import GridPoint
from .tasks import grid_search

HSU_LIN = {"C": (-2, 12), "gamma": (-10, 4)}  # Hsu & Lin's (2002) exponents of 2
BEYOND = 4  # two steps of 2^2 past each end
LIMITS = {axis: (low - BEYOND, high + BEYOND) for axis, (low, high) in HSU_LIN.items()}
# sigma = 1 / sqrt(2 gamma): log2 sigma = -(1 + log2 gamma) / 2
LIMITS["sigma"] = tuple(sorted(-(1 + e) / 2 for e in LIMITS["gamma"]))
DIGITS = 9  # exponents are compared rounded to this many decimals


def exponents(point) -> dict:
    """{axis: log2 of its value} of ``point``: ``C``, and a Gaussian's ``gamma`` or ``sigma``
    (the one it is given by)."""
    found = {"C": round(math.log2(point.C), DIGITS)}
    for axis in ("gamma", "sigma"):
        if getattr(point, axis) is not None:
            found[axis] = round(math.log2(getattr(point, axis)), DIGITS)
    return found


def family(point) -> tuple:
    """What refinement keeps fixed: the kernel, a polynomial's degree and homogeneity, and
    which parameter gives a Gaussian's width."""
    width = "gamma" if point.gamma is not None else "sigma" if point.sigma is not None else None
    return point.kernel, point.degree, point.homogeneous, width


def identity(point) -> tuple:
    """A point as refinement compares points: its family and rounded exponents."""
    return family(point), tuple(sorted(exponents(point).items()))


def grid_spacing(grid) -> dict:
    """{(family, axis): the smallest gap between the distinct exponents of that axis among
    ``grid``'s points of that family}; an axis with one value is left out (not searched)."""
    values = {}
    for point in grid:
        for axis, exponent in exponents(point).items():
            values.setdefault((family(point), axis), set()).add(exponent)
    return {key: min(b - a for a, b in zip(sorted(v), sorted(v)[1:]))
            for key, v in values.items() if len(v) > 1}


def grid_limits(grid, beyond=True) -> dict:
    """{(family, axis): (lowest, highest) exponent refinement may reach}: the ``grid``'s own
    range, or ``beyond`` it :data:`LIMITS` (where the grid goes further, its own range)."""
    limits = {}
    for point in grid:
        for axis, exponent in exponents(point).items():
            key = (family(point), axis)
            low, high = limits.get(key, LIMITS[axis] if beyond else (exponent, exponent))
            limits[key] = (min(low, exponent), max(high, exponent))
    return limits


def inside(point, limits) -> bool:
    """Whether each of ``point``'s exponents lies within ``limits`` (:func:`grid_limits`)."""
    return all(low - 1e-9 <= exponents(point)[axis] <= high + 1e-9
               for (kind, axis), (low, high) in limits.items() if kind == family(point))


def halved(step) -> float | None:
    """The next finer spacing: half of ``step``, rounded up to a whole exponent, never below
    1 (a spacing of 1 or less has no finer one: None)."""
    if step <= 1:
        return None
    return max(1, math.ceil(step / 2 - 1e-9))


def neighbours(best, steps, limits) -> list:
    """The points around ``best`` at ``steps`` ({axis: spacing}), each exponent clipped to
    ``limits`` ({axis: (low, high)}); ``best`` itself left out."""
    at = exponents(best)
    axes = [axis for axis in at if axis in steps]
    moves = [()]
    for _ in axes:
        moves = [m + (d,) for m in moves for d in (-1, 0, 1)]
    found = {}
    for move in moves:
        values = {}
        for axis, d in zip(axes, move):
            low, high = limits[axis]
            values[axis] = round(min(high, max(low, at[axis] + d * steps[axis])), DIGITS)
        point = replace(best, **{axis: 2.0 ** e for axis, e in values.items()})
        if identity(point) != identity(best):
            found[identity(point)] = point
    return list(found.values())


def next_points(scored, best, spacing, limits) -> list:
    """The next stage's points of one selection unit: around ``best`` (its best cell), the
    neighbours at the grid's ``spacing`` not yet ``scored`` (grid points); when none is
    missing, those at the next finer spacing (:func:`halved`), and so on; [] when even the
    finest spacing's are all scored (the search is done). ``spacing`` and ``limits``: as
    :func:`grid_spacing` and :func:`grid_limits` give them."""
    have = {identity(point) for point in scored}
    kind = family(best)
    steps = {axis: step for (fam, axis), step in spacing.items() if fam == kind}
    bounds = {axis: bound for (fam, axis), bound in limits.items() if fam == kind}
    while steps:
        new = [p for p in neighbours(best, steps, bounds) if identity(p) not in have]
        if new:
            return sorted(new, key=GridPoint.simplicity)
        if all(halved(step) is None for step in steps.values()):
            return []
        steps = {axis: halved(step) or step for axis, step in steps.items()}  # 1 stays 1
    return []


def searched(search, folds, cache, n_jobs=1, progress=None) -> list:
    """:func:`.tasks.grid_search`'s rows of ``search`` on ``folds``; with the plan's ``refine``,
    the config's grid is stage 0 and each further stage (:func:`next_stage`) is scored until
    none is left, every row carrying its ``stage``."""
    rows = grid_search(search, folds, cache, n_jobs=n_jobs, progress=progress)
    if not getattr(search.plan, "refine", False):
        return rows
    grid = search.plan.grid
    spacing, limits = grid_spacing(grid), (grid_limits(grid, False), grid_limits(grid))
    stage = 0
    for row in rows:
        row["stage"] = stage
    while True:
        points = next_stage(search, folds, rows, spacing, limits)
        if not points:
            return rows
        stage += 1
        grid = tuple(dict.fromkeys(p for found in points.values() for p in found))
        staged = replace(search, plan=replace(search.plan, grid=grid), stage=points)
        if progress is not None and hasattr(progress, "total"):  # the bar counts them too
            progress.total += sum(len(found) * len(group)
                                  for (_, _, group), found in points.items())
        more = grid_search(staged, folds, cache, n_jobs=n_jobs, progress=progress)
        for row in more:
            row["stage"] = stage
        rows += more


def next_stage(search, folds, rows, spacing, limits) -> dict:
    """{(estimate, fold index, scheme group): the points to score next} of every selection
    unit whose search goes on (:func:`next_points` around each of the group's schemes'
    :func:`center`); a cv-best unit pools its folds' scores, and its points go to every fold."""
    stage = {}
    for estimate in search.estimates:
        mine = [r for r in rows if r.get("estimate", "nested") == estimate]
        for group in scheme_groups(search.schemes, search.options):
            if kernel_free(group[0]):
                continue
            units = ([(None, folds)] if estimate == "cv-best"
                     else [(fold.index, [fold]) for fold in folds])
            for index, where in units:
                unit = [r for r in mine if index is None or r["fold"] == index]
                scored = [r["point"] for r in unit if r["scheme"] == group[0]]
                new = []
                for scheme in group:
                    best, beyond = center([r for r in unit if r["scheme"] == scheme], limits[0])
                    new += next_points(scored, best, spacing, limits[beyond])
                new = list(dict.fromkeys(new))
                stage.update({(estimate, fold.index, group): tuple(new)
                              for fold in where if new})
    return stage


def center(rows, own) -> tuple:
    """(the best cell of one scheme's ``rows``, whether the search may pass the grid's edge
    there). The rows are one unit's grid rows, pooled over folds by point; the best cell has
    the lowest validation error, on ties the earliest stage's (a plateau does not move the
    search: only a better point does), then the simplest
    (:meth:`..config.grid.GridPoint.simplicity`, the selection's tie rule). The search goes
    past the grid's ``own`` limits (:func:`grid_limits`) only from a cell better than every
    other point inside them: a plateau that reaches the edge is no optimum beyond it."""
    pooled = {}
    for row in rows:
        errors, total, stage = pooled.get(row["point"], (0, 0, row.get("stage", 0)))
        pooled[row["point"]] = (errors + row["n_errors"], total + row["n_validation"], stage)
    error = {point: errors / total for point, (errors, total, _) in pooled.items()}
    best = min(pooled, key=lambda p: (error[p], p.simplicity()))
    beyond = all(error[p] > error[best] for p in pooled if p != best and inside(p, own))
    return best, beyond
