"""The coarse-to-fine search (``refine: true``, issue #55 item 4): the next stage's points from a
known score table (the fine grid around the best cell, the edge passed only from a strict best,
Hsu & Lin's range plus two 2^2 steps as the limit), the edge note, the folded one-class
warning, and ``multisvm compare`` on wine refining, resumed to the very same grid.csv."""

import csv
import json
import shutil

import pytest

from helpers import run_cli
from multisvm_cli.experiment.config.grid import GridPoint
from multisvm_cli.experiment.protocol.edges import edge_sides
from multisvm_cli.experiment.protocol.refine import (LIMITS, center, exponents, grid_limits,
                                                     grid_spacing, halved, next_points)
from multisvm_cli.experiment.run.fit_notes import one_class_warning
from multisvm_cli.report.table import render

C_EXPS, GAMMA_EXPS = (12, 5, -2), (4, -3, -10)  # compare's 3 x 3 grid


def point(c, g):
    return GridPoint("gaussian", C=2.0 ** c, gamma=2.0 ** g)


COARSE = [point(c, g) for g in GAMMA_EXPS for c in C_EXPS]


def cells(points) -> set:
    return {(exponents(p)["C"], exponents(p)["gamma"]) for p in points}


def rows_of(errors) -> list:
    """Grid rows of one scheme and fold: {(C exponent, gamma exponent): errors of 100}."""
    return [{"point": point(c, g), "n_errors": e, "n_validation": 100, "stage": 0}
            for (c, g), e in errors.items()]


def test_the_spacing_halves_to_whole_exponents_down_to_one():
    assert grid_spacing(COARSE) == {(("gaussian", None, None, "gamma"), "C"): 7,
                                    (("gaussian", None, None, "gamma"), "gamma"): 7}
    steps, step = [], 7
    while step:
        steps.append(step)
        step = halved(step)
    assert steps == [7, 4, 2, 1]


def test_an_inside_best_cell_gets_the_finer_grid_around_it():
    spacing, limits = grid_spacing(COARSE), grid_limits(COARSE)
    # every neighbour at 2^7 is scored already: the next stage is the 2^4 ring around (5, -3)
    found = next_points(COARSE, point(5, -3), spacing, limits)
    assert cells(found) == {(c, g) for c in (1, 5, 9) for g in (-7, -3, 1)} - {(5, -3)}
    # with that ring scored too, the 2^2 ring
    found = next_points(COARSE + found, point(5, -3), spacing, limits)
    assert cells(found) == {(c, g) for c in (3, 5, 7) for g in (-5, -3, -1)} - {(5, -3)}


def test_a_strict_best_on_the_edge_extends_the_grid_up_to_the_limits():
    spacing = grid_spacing(COARSE)
    found = next_points(COARSE, point(-2, -3), spacing, grid_limits(COARSE))
    # 2^-2 - 2^7 stops at Hsu & Lin's 2^-2 less two steps of 2^2: 2^-6
    assert cells(found) == {(-6, -10), (-6, -3), (-6, 4)}
    assert LIMITS["C"] == (-6, 16) and LIMITS["gamma"] == (-14, 8)
    # at the limit itself nothing passes it, at any spacing
    corner = point(16, 8)
    for step in (7, 4, 2, 1):
        near = next_points([corner], corner, {key: step for key in spacing},
                           grid_limits(COARSE))
        assert all(c <= 16 and g <= 8 for c, g in cells(near)) and near


def test_a_plateau_reaching_the_edge_stays_inside_the_grid():
    spacing = grid_spacing(COARSE)
    tied = {(c, g): 5 for c in C_EXPS for g in GAMMA_EXPS}
    tied.update({(-2, -3): 0, (5, -3): 0})  # the edge ties an inside point
    best, beyond = center(rows_of(tied), grid_limits(COARSE, False))
    assert (exponents(best), beyond) == ({"C": -2.0, "gamma": -3.0}, False)
    found = next_points(COARSE, best, spacing, grid_limits(COARSE, False))
    assert min(c for c, _ in cells(found)) == -2  # the 2^4 ring, clipped at the grid's edge
    tied[(5, -3)] = 1  # now the edge is better than every other point: it may pass
    assert center(rows_of(tied), grid_limits(COARSE, False))[1] is True


def test_the_edge_counts_on_axes_of_three_values_or_more():
    assert edge_sides(point(-2, -3), COARSE) == [("smallest", "C", 0.25)]
    assert edge_sides(point(12, 4), COARSE) == [("largest", "C", 4096.0),
                                                ("largest", "gamma", 16.0)]
    assert edge_sides(point(5, -3), COARSE) == []
    two = [GridPoint("gaussian", C=C, sigma=s) for C in (1.0, 100.0) for s in (1.0, 3.0)]
    assert edge_sides(two[0], two) == []  # the quickstart's 2 x 2: every point is an edge


def test_the_edge_note_is_one_footnote_line():
    row = {"dataset": "wine", "scheme": "ovr", "kernel": "gaussian gamma=0.125", "C": 0.25,
           "error_pct": 1.69, "n_test": 178, "edge": "5/5 folds: smallest C 0.25"}
    text = render([row], "markdown")
    assert ("On the grid's edge (the best point may lie beyond it: widen the grid in a "
            "config, or search with refine: true where the search was not refined): wine 1-v-r "
            "(5/5 folds: smallest C 0.25)."
            in text.splitlines())
    assert "grid's edge" not in render([{**row, "edge": None}], "markdown")


def test_one_class_warnings_fold_into_one_line():
    rows = [{"dataset": "wine", "scheme": s, "kernel": "gaussian gamma=16", "C": C, "fold": f,
             "notes": "every validation point predicted as one class"}
            for s in ("ovr", "maxwins", "dag") for C in (0.25, 4096.0) for f in range(5)]
    assert one_class_warning(rows) == [
        "30 grid point(s) predicted one class for every validation point: wine gaussian "
        "gamma=16 in 3 scheme(s) (dag, maxwins, ovr; C 0.25..4096)"]
    assert one_class_warning([{**rows[0], "notes": ""}]) == []


def _grid(folder) -> list:
    with open(folder / "grid.csv", newline="") as f:
        return [{k: v for k, v in row.items() if k not in ("cached", "fit_cpu", "fit_wall",
                                                          "predict_wall")}
                for row in csv.DictReader(f)]


@pytest.mark.slow
def test_compare_refines_on_wine_and_a_resumed_run_replays_it(mirror, tmp_path, data_home):
    shutil.copyfile(mirror / "wine" / "wine.data", tmp_path / "wine.csv")
    folders = []
    for jobs in ("2", "1"):  # the second run: every point from the cache, whatever -j says
        out = tmp_path / "out"
        result = run_cli("compare", tmp_path / "wine.csv", "--label", "0", "--schemes",
                         "ovr,maxwins,dag", "--out", out, "--quiet", "--no-figures", "-j", jobs)
        assert result.code == 0, result.err
        folders.append(out / "compare-wine-data" / "latest")
        folders[-1] = folders[-1].resolve()
        meta = json.loads((folders[-1] / "run.json").read_text())["grid_points"]
        if jobs == "1":
            assert meta["cached"] == meta["total"]
    first, second = (_grid(folder) for folder in folders)
    assert len(first) == len(second)  # the same rows, in the order their tasks ended
    assert sorted(first, key=lambda r: sorted(r.items())) == sorted(
        second, key=lambda r: sorted(r.items()))
    stages = {int(row["stage"]) for row in first}
    assert len(stages) > 2 and min(stages) == 0
    per_fold = {}
    for row in first:
        per_fold[row["scheme"], row["fold"]] = per_fold.get((row["scheme"], row["fold"]), 0) + 1
    # a third of the 15 x 15 grid's 225 points at most, per scheme and fold
    assert max(per_fold.values()) <= 75 and min(per_fold.values()) > 9
    results = json.loads((folders[0] / "results.json").read_text())["results"]
    # the 15 x 15 grid (compare --full) chooses the same points and errs on 3, 2, 2 of 178
    assert {r["scheme"]: r["n_errors"] for r in results} == {"ovr": 3, "maxwins": 2, "dag": 2}
    # each choice is C = 2^-2 on some fold: the smallest C searched, on a plateau of ties
    assert "On the grid's edge" in result.out and "smallest C 0.25" in result.out
    assert "On the grid&#x27;s edge" in (folders[0] / "report.html").read_text()


def test_an_axis_at_the_finest_spacing_waits_for_the_other():
    grid = [point(c, g) for c in (0, 2, 4) for g in (0, 1, 2)]  # C by 2^2, gamma by 2^1
    spacing, limits = grid_spacing(grid), grid_limits(grid, False)
    # the 2^2 x 2^1 ring is scored: C halves to 2^1, gamma stays at 2^1
    assert cells(next_points(grid, point(2, 1), spacing, limits)) == {
        (c, g) for c in (1, 3) for g in (0, 1, 2)}
