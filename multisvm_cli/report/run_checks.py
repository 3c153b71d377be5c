"""A run folder's files checked against each other and against their ranges (issue #33).

:mod:`.run_folder` reads each file strictly (bounded, whole rows, finite numbers); these
checks make sure that what it passes on to the figures, report.html and ``multisvm report``
is what the run wrote, not a file edited by hand:

- a CSV file has exactly the columns the run writes, in the run's order (swapped or renamed
  columns are refused);
- every number is in its range: errors in [0, 100] % (validation errors in [0, 1]), counts
  whole numbers (n_errors <= n_test), times, sizes and evaluations >= 0;
- sweep.csv has every row (each swept value x scheme x repeat once) and its rows are
  results.json's results, number for number (scheme, n_train, n_test, error, size, times,
  memory, evaluations, levels), error_pct = 100 n_errors / n_test of its result;
- table.csv's rows are results.json's "table" rows, in order, number for number;
- predictions.csv has, per dataset x scheme of results.json, n_test rows of which n_errors
  have true != predicted, each (repeat, fold, row) once under every scheme, with the same
  true label, and probabilities in [0, 1] (or empty);
- grid.csv has as many rows as run.json's grid points, a row for every (dataset, scheme) of
  results.json, and none of another.

Each check returns what is wrong (one line) or None; the reader turns it into its refusal.
"""

from __future__ import annotations

import math
from collections import Counter

from ..base.numeric import is_count, is_number
from . import columns
from .columns import COUNT, FRACTION, NONNEGATIVE, error_pct
from .record import ERROR_PCT

# the ranges of the keys of grid.csv, sweep.csv and results.json's results that are not
# columns of the report table (the table's own are declared with it: columns.ranges())
OTHER_RANGES = {"validation_error": FRACTION, "n_train": COUNT, "n_errors": COUNT,
                "n_validation": COUNT, "repeat": COUNT, "fold": COUNT, "size": NONNEGATIVE,
                "fit_cpu": NONNEGATIVE, "fit_wall": NONNEGATIVE, "predict_wall": NONNEGATIVE,
                "n_support_vectors": NONNEGATIVE}


def _present(value) -> bool:
    return value is not None and value == value and value != ""


def row_ranges(row, where) -> str | None:
    """What is out of range in one row (a mapping of numbers), or None: each key of
    :data:`OTHER_RANGES` and of the table's declared ranges, then n_errors <= n_test (and
    <= n_validation)."""
    for key, allowed in {**columns.ranges(), **OTHER_RANGES}.items():
        if _present(row.get(key)) and not allowed.holds(float(row[key])):
            return f"{where}: {key} {row[key]} {allowed.problem}"
    for total, part in (("n_test", "n_errors"), ("n_validation", "n_errors")):
        if _present(row.get(total)) and _present(row.get(part)) \
                and float(row[part]) > float(row[total]):
            return f"{where}: {part} {row[part]} exceeds {total} {row[total]}"
    return None


def results_ranges(results) -> str | None:
    """What is out of range in results.json's results and table rows, or None."""
    for key in ("results", "table"):
        for row in results[key]:
            where = f"the {row['dataset']} {row['scheme']} {key} row"
            problem = row_ranges(row, where)
            if problem:
                return problem
    for row in results["results"]:
        n_errors, n_test = row.get("n_errors"), row.get("n_test")
        if n_errors is not None and not (is_count(n_errors) and is_count(n_test, 1)):
            return f"the {row['dataset']} {row['scheme']} result's n_errors or n_test is " \
                   "not a count"
    return None


def columns_problem(header, expected) -> str | None:
    """None when ``header`` is the run's columns in the run's order."""
    if list(header) == list(expected):
        return None
    moved = [c for c, e in zip(header, expected) if c != e]
    return (f"its columns are not the run's ({', '.join(moved[:3])} out of place): "
            "a column was swapped, renamed or added")


def _close(a, b) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


SWEEP_FIGURES = ("size", "cpu_time", "evaluation_time", "max_train_memory_mb",
                 "kernel_evaluations", "level1_accuracy", "level2_accuracy")


def _key(scheme, n_train, n_test, error, figures):
    """A row's identity for matching sweep.csv with results.json: every number to 12
    significant digits (a CSV round trip keeps them all)."""
    def number(v):
        return None if not _present(v) else float(f"{float(v):.12g}")
    return (scheme, number(n_train), number(n_test), number(error),
            *(number(figures.get(key)) for key in SWEEP_FIGURES))


def sweep_problem(frame, results) -> str | None:
    """What is wrong with sweep.csv's rows (a DataFrame) against ``results`` (results.json,
    checked), or None: ranges, every value x scheme x repeat once, the results' numbers."""
    rows = frame.to_dict("records")
    for n, row in enumerate(rows, 2):
        problem = row_ranges(row, f"row {n}")
        if problem:
            return problem
    repeats = results.get("repeats") if is_count(results.get("repeats"), 1) else 1
    schemes = sorted({r["scheme"] for r in results["results"]})
    seen = Counter((r["dataset"], str(r["value"]), r["scheme"], int(r["repeat"])) for r in rows)
    cells = {(d, v) for d, v, _, _ in seen}
    expected = {(d, v, s, r) for d, v in cells for s in schemes for r in range(repeats)}
    missing, extra = sorted(expected - set(seen)), sorted(set(seen) - expected)
    twice = sorted(k for k, count in seen.items() if count > 1)
    if missing or extra or twice:
        d, v, s, r = (missing or extra or twice)[0]
        what = "has no row" if missing else "is not in the run" if extra else "has two rows"
        return f"{d} at {v}, {s}, repeat {r} {what}: a row was dropped, added or copied"
    ours = Counter(_key(r["scheme"], r["n_train"], r["n_test"], r[ERROR_PCT], r)
                   for r in rows)
    theirs = Counter(_key(r["scheme"], (r.get("splits") or [{}])[0].get("n_train"),
                          r.get("n_test"), _error_pct(r), r)
                     for r in results["results"])
    if ours != theirs:
        scheme, _, n_test, error, *_ = sorted(ours - theirs, key=str)[0] if ours - theirs \
            else sorted(theirs - ours, key=str)[0]
        return (f"its {scheme} row with n_test {n_test:g} and error_pct {error:g} is not one "
                "of results.json's results, number for number (edited after the run)")
    return None


def _error_pct(result):
    n_errors, n_test = result.get("n_errors"), result.get("n_test")
    if not (is_count(n_errors) and is_count(n_test, 1)):
        return None
    return error_pct(n_errors, n_test)


def table_problem(rows, results, numbers) -> str | None:
    """What is wrong with table.csv's rows (dicts of texts) against results.json's "table"
    rows, or None: the same rows in the same order, the same value in every ``numbers``
    column and in every text column."""
    saved = results["table"]
    if len(rows) != len(saved):
        return f"it has {len(rows)} rows, results.json's table {len(saved)}"
    for n, (row, want) in enumerate(zip(rows, saved), 2):
        problem = row_ranges({k: float(v) if k in numbers and v else v for k, v in row.items()},
                             f"row {n}")
        if problem:
            return problem
        for key, value in want.items():
            if key not in row or isinstance(value, (dict, list)):
                continue
            text = row[key]
            if is_number(value):
                same = _number_text(text) and _close(text, value)
            else:
                same = text == ("" if value is None else str(value))
            if not same:
                return (f"row {n} ({want['dataset']} {want['scheme']}): {key} is {text!r}, "
                        f"results.json has {value!r} (edited after the run)")
    return None


def _number_text(text) -> bool:
    try:
        return is_number(float(text))
    except ValueError:
        return False


def grid_problem(grid, results, meta) -> str | None:
    """What is wrong with grid.csv's rows (a DataFrame) against ``results`` and run.json
    (``meta``: its ``grid_points`` total, when it has one), or None."""
    total = (meta.get("grid_points") or {}).get("total") if isinstance(meta, dict) else None
    if is_count(total) and len(grid) != total:
        return f"it has {len(grid)} rows, but the run scored {total} grid points (run.json)"
    for n, row in enumerate(grid.to_dict("records"), 2):
        problem = row_ranges(row, f"row {n}")
        if problem:
            return problem
    ours = set(zip(grid["dataset"].astype(str), grid["scheme"].astype(str)))
    theirs = {(r["dataset"], r["scheme"]) for r in results["results"]}
    if ours != theirs:
        dataset, scheme = sorted(theirs - ours or ours - theirs)[0]
        what = "no grid rows" if theirs - ours else "grid rows but no result"
        return f"{dataset} {scheme} has {what}: rows were dropped or added"
    return None


def predictions_problem(frame, results) -> str | None:
    """What is wrong with predictions.csv (a DataFrame of texts) against ``results``
    (results.json, checked), or None."""
    for column in ("repeat", "fold", "row"):
        if not frame[column].str.fullmatch(r"\d+").all():
            return f"a row's {column} is not a count"
    probabilities = frame[frame.columns[list(frame.columns).index("predicted") + 1:]]
    if not all(v == "" or _fraction_text(v) for v in probabilities.to_numpy().ravel()):
        return "a probability is not a number in [0, 1]"
    problem = _probability_sums(probabilities) or _splits_problem(frame, results)
    if problem:
        return problem
    groups = {key: group for key, group in frame.groupby(["dataset", "scheme"], sort=False)}
    expected = {}  # (dataset, scheme): [results, n_test, n_errors] (two swept values may
    for r in results["results"]:  # print alike: their results share a name, added up)
        found = expected.setdefault((r["dataset"], r["scheme"]), [0, 0, 0])
        found[:] = [found[0] + 1, found[1] + (r.get("n_test") or 0),
                    found[2] + (r.get("n_errors") or 0)]
    if set(groups) - set(expected):
        return f"it has rows of {' '.join(next(iter(set(groups) - set(expected))))}, " \
               "which results.json has no result of"
    for (dataset, scheme), (_, n_test, n_errors) in expected.items():
        mine = groups.get((dataset, scheme), frame.iloc[:0])
        wrong = int((mine["true"] != mine["predicted"]).sum())
        if len(mine) != n_test or wrong != n_errors:
            return (f"its {dataset} {scheme} rows ({len(mine)}, {wrong} wrong) are not "
                    f"results.json's n_test {n_test}, n_errors {n_errors}")
    point = ["dataset", "scheme", "repeat", "fold", "row"]
    copies = frame.groupby(point, sort=False).size().groupby(level=[0, 1]).agg(["min", "max"])
    if any((low, high) != (expected[key][0],) * 2 for key, (low, high) in copies.iterrows()):
        return "a test point (dataset, scheme, repeat, fold, row) has several rows"
    by_point = frame.groupby(point[:1] + point[2:])
    schemes = frame.groupby("dataset")["scheme"].nunique()
    if not (by_point["scheme"].nunique() == schemes.reindex(by_point.size().index,
                                                            level=0)).all():
        return "a test point (dataset, repeat, fold, row) is not in every scheme's rows"
    if (by_point["true"].nunique() > 1).any():
        return "a test point's true label differs between schemes"
    return None


def _fraction_text(text) -> bool:
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


SUM_TOLERANCE = 1e-6  # a row's probabilities add up to 1 within this


def _probability_sums(probabilities) -> str | None:
    """What is wrong with the rows' class probabilities (texts; empty where the scheme gives
    none) beyond their range, or None: a row's given ones add up to 1."""
    if probabilities.shape[1] == 0:
        return None
    values = probabilities.replace("", "nan").astype(float)
    given = values.notna().any(axis=1)
    sums = values.sum(axis=1, skipna=True)
    bad = given & ((sums - 1.0).abs() > SUM_TOLERANCE)
    if bad.any():
        n = int(bad.to_numpy().argmax()) + 2
        return f"row {n}'s probabilities add up to {float(sums[bad].iloc[0]):g}, not 1"
    return None


def _splits_problem(frame, results) -> str | None:
    """None when every row's (repeat, fold) is a split of its result in results.json and each
    split has as many rows as its n_test (a row of repeat 7, fold 9 in a 2 x 5 run is not)."""
    expected = Counter()
    for r in results["results"]:
        for split in r.get("splits") or []:
            if is_count(split.get("n_test")):
                expected[(r["dataset"], r["scheme"], str(split.get("repeat", 0)),
                          str(split.get("fold", 0)))] += split["n_test"]
    if not expected:
        return None
    found = Counter(zip(frame["dataset"], frame["scheme"], frame["repeat"], frame["fold"]))
    for key in found:
        if key not in expected:
            return (f"it has {key[0]} {key[1]} rows of repeat {key[2]}, fold {key[3]}, which "
                    "is not a split of the run (results.json)")
    for key, n_test in expected.items():
        if found.get(key, 0) != n_test:
            return (f"its {key[0]} {key[1]} repeat {key[2]}, fold {key[3]} has {found.get(key, 0)}"
                    f" rows, the run tested {n_test} points there")
    return None
