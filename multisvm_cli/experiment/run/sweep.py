"""A sweep: the whole protocol run once per value of one setting (``Config.sweep``) and repeat.

For each dataset, value and repeat r (``Config.repeats``), a modified plan and dataset are
derived and :func:`.protocol.run_protocol` runs them as a one-repeat config:

- ``classes`` k: k classes (the k largest, or drawn uniformly with numpy's default generator
  seeded by seed + r: a new draw per repeat, the same draw for the same seed); every part of
  the dataset keeps only their rows;
- ``train_fraction`` f: all rows are pooled, a stratified 30% test part is held out (seed + r:
  the same test part for every f of a repeat), and a stratified f of all rows, drawn from the
  other 70%, trains (f = 0.7: all of them), as in Godbole et al.'s Figure 11; the config's
  split is replaced by these parts;
- a scheme option: that option replaced by the value.

The derived dataset gets its own name (``iris classes=2 #1``) and a checksum entry naming the
derivation (:func:`derivation`: the exact value, the drawn classes), so the resume cache never
mixes its points with the whole dataset's or another value's. Each value's
results are labelled with that name; :func:`sweep_rows` turns them into sweep.csv's rows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.model_selection import train_test_split

from ...base.errors import MultisvmError
from ...report.columns import error_pct
from ..config.sweep import TEST_FRACTION, sweep_name
from ..protocol import repeat_plan, run_protocol
from ..splits import pooled


def run_sweep(config, datasets, cache, n_jobs=1, progress=None, fit_jobs=None):
    """Run ``config``'s sweep on ``datasets`` (name -> Dataset). Returns (results, grid rows,
    checksums, sweep rows): the first three as :func:`run_protocol` returns them, over every
    derived (dataset, value, repeat); the last one row per value x scheme x repeat."""
    results, grid_rows, checksums, rows = [], [], {}, []
    for plan in config.datasets:
        for value in config.sweep["values"]:
            for repeat in range(config.repeats):
                one, dataset, drawn = derive(config, plan, datasets[plan.name], value, repeat)
                found, grid, sums = run_protocol(one, {dataset.name: dataset}, cache, n_jobs,
                                                 progress, fit_jobs)
                results += found
                grid_rows += grid
                checksums.update(sums)
                rows += sweep_rows(config.sweep, plan.name, value, repeat, drawn, found)
    return results, grid_rows, checksums, rows


def derive(config, plan, dataset, value, repeat):
    """(one-repeat config, derived dataset, classes kept or None) for ``value`` at ``repeat``."""
    sweep = config.sweep
    seed = config.seed + repeat
    planned = repeat_plan(plan, repeat)
    options = config.scheme_options
    drawn = None
    if sweep["kind"] == "classes":
        drawn = pick_classes(dataset, value, sweep["order"], seed)
        derived = keep_classes(dataset, drawn)
    elif sweep["kind"] == "train_fraction":
        derived = fraction_parts(dataset, value, seed)
        planned = replace(planned, split={"method": "standard"})
    else:
        options = {**options, sweep["scheme"]: {**options.get(sweep["scheme"], {}),
                                                sweep["option"]: value}}
        derived = dataset
    name = f"{plan.name} {sweep_name(sweep)}={_text(value)}"
    if config.repeats > 1:
        name += f" #{repeat}"
    derived = replace(derived, name=name,
                      checksums={**derived.checksums,
                                 "sweep": derivation(name, value, seed, drawn, sweep)})
    one = replace(config, datasets=[replace(planned, name=name)], repeats=1,
                  scheme_options=options, sweep=None)
    return one, derived, drawn


def derivation(name, value, seed, drawn, sweep) -> str:
    """The checksum entry naming a derived dataset: its name, the value exactly (``repr``:
    0.1 and 0.09999999 print alike under ``:g`` but are two values), the seed, and for a
    classes sweep the drawn classes in their order and the draw's ``order`` (the resume cache
    keys on it, so two draws never share a grid point)."""
    text = f"{name} seed {seed} value {value!r}"
    if drawn is not None:
        text += f" classes [{', '.join(map(repr, drawn))}] order {sweep['order']}"
    return text


def pick_classes(dataset, k, order, seed) -> list:
    """``k`` of the dataset's classes: the ``largest`` (most rows; ties by label), or drawn at
    random (``numpy.random.default_rng(seed)``), in label order."""
    _, y = pooled(dataset)
    classes, counts = np.unique(y, return_counts=True)
    if k > len(classes):
        raise MultisvmError(f"{dataset.name} has {len(classes)} classes; the classes sweep "
                            f"asks for {k}")
    if order == "largest":
        chosen = classes[np.argsort(-counts, kind="stable")[:k]]
    else:
        chosen = np.random.default_rng(seed).choice(classes, size=k, replace=False)
    return sorted(chosen.tolist())


def keep_classes(dataset, classes):
    """``dataset`` with only the rows of ``classes`` in every part."""
    parts = {}
    for part, (X, y) in dataset.parts.items():
        rows = np.flatnonzero(np.isin(y, classes))
        parts[part] = (X[rows], y[rows])
    return replace(dataset, parts=parts)


def fraction_parts(dataset, fraction, seed):
    """``dataset`` as a train part of ``fraction`` of all rows and a test part of 30% (both
    stratified, seeded; see the module's docstring)."""
    X, y = pooled(dataset)
    rest, test = train_test_split(np.arange(len(y)), test_size=TEST_FRACTION, stratify=y,
                                  random_state=seed)
    share = fraction * len(y) / len(rest)
    if share < 1:
        try:
            rest, _ = train_test_split(rest, train_size=share, stratify=y[rest],
                                       random_state=seed)
        except ValueError as exc:
            raise MultisvmError(f"{dataset.name}: a train_fraction of {fraction} is too small "
                                f"to keep every class ({exc})") from None
    rest, test = np.sort(rest), np.sort(test)
    return replace(dataset, parts={"train": (X[rest], y[rest]), "test": (X[test], y[test])})


SWEEP_FIGURES = ("error_pct", "cpu_time", "evaluation_time", "max_train_memory_mb",
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
               "error_pct": error_pct(result["n_errors"], result["n_test"]),
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


def _text(value) -> str:
    return "natural" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
