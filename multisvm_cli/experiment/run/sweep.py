"""A sweep: the whole protocol run once per value of one setting (``Study.sweep``) and repeat.

For each dataset, value and repeat r (``Study.repeats``), a modified plan and dataset are
derived (:func:`..plans.derive`: k classes, a train fraction, or one scheme option's value)
and :func:`.protocol.run_protocol` runs them as a one-repeat study. Each value's results are
labelled with the derived dataset's name; :func:`sweep_rows` turns them into sweep.csv's rows.
"""

from __future__ import annotations

from ...report.columns import error_pct
from ...report.record import ERROR_PCT
from ..config.sweep import sweep_name
from ..plans import derive
from ..protocol import run_protocol


def run_sweep(study, datasets, cache, n_jobs=1, progress=None, fit_jobs=None):
    """Run ``study``'s sweep (``study``: a :class:`..config.resolved.Study`) on ``datasets``
    (name -> Dataset). Returns (results, grid rows,
    checksums, sweep rows): the first three as :func:`run_protocol` returns them, over every
    derived (dataset, value, repeat); the last one row per value x scheme x repeat."""
    results, grid_rows, checksums, rows = [], [], {}, []
    for plan in study.plans:
        for value in study.sweep["values"]:
            for repeat in range(study.repeats):
                one, dataset, drawn = derive(study, plan, datasets[plan.name], value, repeat)
                found, grid, sums = run_protocol(one, {dataset.name: dataset}, cache, n_jobs,
                                                 progress, fit_jobs)
                results += found
                grid_rows += grid
                checksums.update(sums)
                rows += sweep_rows(study.sweep, plan.name, value, repeat, drawn, found)
    return results, grid_rows, checksums, rows


SWEEP_FIGURES = (ERROR_PCT, "cpu_time", "evaluation_time", "max_train_memory_mb",
                 "kernel_evaluations", "size", "level1_accuracy", "level2_accuracy")


def sweep_rows(sweep, dataset, value, repeat, drawn, results) -> list:
    """sweep.csv's rows of one (dataset, value, repeat): one per scheme."""
    rows = []
    for result in results:
        split = result["splits"][0] if result.get("splits") else {}
        row = {"sweep": sweep_name(sweep), "value": value_label(value), "dataset": dataset,
               "scheme": result["scheme"], "repeat": repeat,
               "classes": " ".join(map(str, drawn)) if drawn is not None else "",
               "n_train": split.get("n_train"), "n_test": result["n_test"],
               ERROR_PCT: error_pct(result["n_errors"], result["n_test"]),
               "size": result["size"]}
        row.update({key: result.get(key) for key in SWEEP_FIGURES if key not in row})
        rows.append(row)
    return rows


def value_label(value):
    """A swept value as sweep.csv holds it: a number or a name as it is; ``natural`` for None
    (a DAG's natural order), a list (a DAG order) as ``[2, 1, 0]``: one cell, never empty."""
    if value is None:
        return "natural"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return value
