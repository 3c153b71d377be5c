"""predictions.csv's text and its record in results.json: what the run knew of its test
points (issue #56).

:func:`predictions_text` writes the file's text (``run_folder.write_tables`` writes it).

:mod:`.run_checks` checks predictions.csv against itself and results.json's counts; a
consistent edit (a true label changed under every scheme, a row id moved, a right and a
wrong row swapped, a probability column renamed) keeps those. So the run writes, under
results.json's :data:`KEY`, per dataset:

- ``classes``: the run's classes (each ``p_<class>`` column must name one of them);
- ``labels_sha256``: the SHA-256 of its test points, each ``repeat, fold, row, true`` once,
  sorted: the test rows and their labels the run drew;
- ``schemes_sha256``: per scheme, the SHA-256 of its rows, each ``repeat, fold, row, true,
  predicted, p_...`` sorted: what that scheme predicted.

:func:`record_of` builds it from the rows predictions.csv is written with; :func:`record_problem`
checks a read predictions.csv against it. A results.json from before the record has no
:data:`KEY`; its predictions.csv is checked against results.json only, and may be absent.
"""

from __future__ import annotations

import csv
import io

from ..base.hashing import sha256_hex

PREDICTION_COLUMNS = ["dataset", "scheme", "repeat", "fold", "row", "true", "predicted"]
PROBABILITY_PREFIX = "p_"  # predictions.csv's class probability columns: p_<class>
KEY = "test_points"
FIELD_SEPARATOR = "\x1f"  # between a row's fields in the digested text (never in a CSV field)


def _digest(lines) -> str:
    return sha256_hex("\n".join(sorted(set(lines))))


def _join(fields) -> str:
    return FIELD_SEPARATOR.join(str(f) for f in fields)


def record_of(rows, classes) -> dict:
    """The record of predictions.csv's ``rows`` (lists of texts: dataset, scheme, repeat,
    fold, row, true, predicted, then the probabilities), ``classes``: {dataset: its classes,
    as texts}."""
    labels, schemes = {}, {}
    for dataset, scheme, repeat, fold, row, true, *rest in rows:
        labels.setdefault(dataset, []).append(_join((repeat, fold, row, true)))
        schemes.setdefault(dataset, {}).setdefault(scheme, []).append(
            _join((repeat, fold, row, true, *rest)))
    return {dataset: {"classes": list(classes.get(dataset, ())),
                      "labels_sha256": _digest(labels[dataset]),
                      "schemes_sha256": {scheme: _digest(lines)
                                         for scheme, lines in schemes[dataset].items()}}
            for dataset in labels}


def record_ok(record) -> bool:
    """Whether results.json's :data:`KEY` has the shape :func:`record_of` writes."""
    return isinstance(record, dict) and all(
        isinstance(entry, dict) and isinstance(entry.get("classes"), list)
        and isinstance(entry.get("labels_sha256"), str)
        and isinstance(entry.get("schemes_sha256"), dict)
        for entry in record.values())


def record_problem(frame, record, prefix) -> str | None:
    """What is wrong with predictions.csv (``frame``, a DataFrame of texts, already checked
    against results.json's counts) against the run's ``record`` (results.json's :data:`KEY`),
    or None. ``prefix``: the probability columns' (``p_``)."""
    known = {str(c) for entry in record.values() for c in entry["classes"]}
    strange = [c for c in frame.columns[7:] if c[len(prefix):] not in known]
    if strange:
        return (f"its column {strange[0]} is not a class of the run (results.json's "
                f"{KEY}): a probability column was renamed or added")
    rows = frame.astype(str).to_numpy().tolist()
    found = record_of(rows, {})
    for dataset, entry in record.items():
        mine = found.get(dataset)
        if mine is None:
            return f"it has no {dataset} rows, though the run tested {dataset}"
        if mine["labels_sha256"] != entry["labels_sha256"]:
            return (f"its {dataset} test points (repeat, fold, row, true label) are not the "
                    f"run's (their SHA-256 is not results.json's {KEY}): a row id or a true "
                    "label was edited after the run")
        for scheme, digest in entry["schemes_sha256"].items():
            if mine["schemes_sha256"].get(scheme) != digest:
                return (f"its {dataset} {scheme} rows are not the ones the run wrote (their "
                        f"SHA-256 is not results.json's {KEY}): a prediction or probability "
                        "was edited or swapped after the run")
    return None


def predictions_text(results) -> tuple[str, dict]:
    """predictions.csv's text and its record (:func:`record_of`, kept in
    results.json): every test point of every result (``results``: the protocol's, each
    with its splits' ``points``), one row each, :data:`PREDICTION_COLUMNS` then one
    probability column per class (``p_<class>``, the classes in the order first met; empty
    where the scheme gives no probabilities). Rows in the results' order, then repeat, fold
    and test order: the same config gives the same bytes."""
    splits = [(r["dataset"], r["scheme"], split) for r in results for split in r["points"]]
    classes = list(dict.fromkeys(str(c) for *_, split in splits if split["proba"] is not None
                                 for c in split["classes"]))
    stream = io.StringIO()
    out = csv.writer(stream, lineterminator="\n")
    out.writerow(PREDICTION_COLUMNS + [PROBABILITY_PREFIX + c for c in classes])
    for dataset, scheme, split in splits:
        place = {str(c): i for i, c in enumerate(split["classes"])}
        for i, (row, true, predicted) in enumerate(zip(split["row"], split["true"],
                                                       split["predicted"])):
            proba = split["proba"]
            out.writerow([dataset, scheme, split["repeat"], split["fold"], int(row), true,
                          predicted] + ["" if proba is None or c not in place
                                        else repr(float(proba[i, place[c]])) for c in classes])
    text = stream.getvalue()
    run_classes = {}
    for dataset, _, split in splits:
        known = run_classes.setdefault(dataset, {})
        known.update(dict.fromkeys(str(c) for c in split["classes"]))
    rows = list(csv.reader(io.StringIO(text)))[1:]  # as the reader will see them
    return text, record_of(rows, run_classes)
