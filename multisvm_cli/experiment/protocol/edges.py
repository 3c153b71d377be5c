"""Choices on the grid's edge: a fold whose chosen point has the smallest or largest C (or
Gaussian width) of the points it searched, where the optimum may lie beyond.

An axis counts when the fold searched three values of it or more (with two, each is an edge
and the note would say nothing): Hsu & Lin's 3 x 3 and 15 x 15 grids count; the quickstart's
C in {1, 100} does not. After a refined search (:mod:`.refine`) a choice is on the edge only
where the search met its limits, or where the selection's tie rule took the end of a plateau.
"""

from __future__ import annotations

from ...estimators.registry import kernel_free
from .refine import exponents, family


def edge_sides(chosen, scored) -> list:
    """[(side, axis, value)] of the ``chosen`` grid point among the ``scored`` grid points of
    its selection: ``smallest`` or ``largest`` ``C``, ``gamma`` or ``sigma`` of its kernel's
    points, on axes of three values or more."""
    at, kind = exponents(chosen), family(chosen)
    sides = []
    for axis, exponent in at.items():
        values = {exponents(p)[axis] for p in scored if family(p) == kind}
        if len(values) >= 3 and exponent in (min(values), max(values)):
            side = "smallest" if exponent == min(values) else "largest"
            sides.append((side, axis, getattr(chosen, axis)))
    return sides


def edge_text(scheme, tests, rows, estimate="nested") -> str | None:
    """How many of ``scheme``'s ``tests`` (one per fold and repeat, :func:`.final.fold_tests`)
    chose a point on the edge of what their selection scored (``rows``: the grid rows of
    ``estimate``; cv-best pools a repeat's folds), and which edges: ``"2/5 folds: smallest C
    0.25"``; None when none did (or the scheme has no grid)."""
    if kernel_free(scheme) or not tests:
        return None
    found, edges = 0, {}
    for test in tests:
        scored = {r["point"] for r in rows if r["scheme"] == scheme
                  and r.get("repeat", 0) == test.get("repeat", 0)
                  and r.get("estimate", "nested") == estimate
                  and (estimate == "cv-best" or r["fold"] == test["fold"])}
        sides = edge_sides(test["point"], scored)
        found += bool(sides)
        for side, axis, value in sides:
            edges.setdefault((side, axis), set()).add(value)
    if not found:
        return None
    named = "; ".join(f"{side} {axis} {', '.join(f'{v:g}' for v in sorted(values))}"
                      for (side, axis), values in sorted(edges.items()))
    return f"{found}/{len(tests)} folds: {named}"


def mark_edges(per_estimate, tests, rows) -> None:
    """Give each pooled result of ``per_estimate`` ({estimate: results}) whose folds chose on
    the edge an ``edge`` key (:func:`edge_text`; ``tests``: {estimate: {scheme: tests}},
    ``rows``: the dataset's grid rows)."""
    for estimate, results in per_estimate.items():
        for result in results:
            text = edge_text(result["scheme"], tests[estimate][result["scheme"]], rows, estimate)
            if text:
                result["edge"] = text
