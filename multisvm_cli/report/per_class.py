"""Per-class results from predictions.csv: a confusion matrix and each class's recall.

report.html shows, for each dataset, the confusion matrix of its best scheme (the Answer's:
``summary.best_schemes``) and every scheme's per-class recall, both counted from the test
points predictions.csv holds (pooled over every split, as the table's errors are), never from
a figure of results.json.
"""

from __future__ import annotations

import numpy as np

# report.html's confusion matrix has k x k cells: it is shown for at most this many classes
# (above, counting and drawing it would cost quadratic time and memory in k; the recall per
# class, linear in k, is shown for every dataset)
CONFUSION_LIMIT = 100


def class_order(labels) -> list:
    """The distinct ``labels`` (texts, as predictions.csv holds them) in order: by value when
    every one reads as a number, else as texts (numpy's order, as ``np.unique`` gives it)."""
    distinct = list(dict.fromkeys(labels))
    try:
        return sorted(distinct, key=float)
    except ValueError:
        return [str(label) for label in np.unique(np.asarray(distinct, dtype=str))]


def confusion_matrix(true, predicted, classes) -> np.ndarray:
    """Counts of test points per (true class, predicted class): rows the true classes,
    columns the predicted ones, both in the order of ``classes``."""
    place = {label: i for i, label in enumerate(classes)}
    matrix = np.zeros((len(classes), len(classes)), dtype=int)
    np.add.at(matrix, ([place[t] for t in true], [place[p] for p in predicted]), 1)
    return matrix


def recall(true, predicted, classes) -> list:
    """Per class of ``classes``: the fraction of its test points predicted as it (None for a
    class with no test point); one pass over the points (linear in the number of classes)."""
    place = {label: i for i, label in enumerate(classes)}
    true_at = np.fromiter((place[t] for t in true), dtype=np.intp, count=len(true))
    right = np.asarray(true) == np.asarray(predicted)
    points = np.bincount(true_at, minlength=len(classes))
    hits = np.bincount(true_at, weights=right, minlength=len(classes))
    return [float(h / n) if n else None for h, n in zip(hits, points)]


def per_class(frame, best) -> list[dict]:
    """Per dataset of predictions.csv (``frame``, as ``run_folder.read_predictions`` gives
    it), in the file's order: {dataset, classes, best, confusion (of ``best[dataset]``, the
    best scheme's name; None when the dataset has none, or more than :data:`CONFUSION_LIMIT`
    classes), recall: {scheme: per-class recall}}. The classes are every label met in the
    dataset's true or predicted column."""
    found = []
    for dataset, rows in frame.groupby("dataset", sort=False):
        classes = class_order(list(rows["true"]) + list(rows["predicted"]))
        by_scheme = dict(list(rows.groupby("scheme", sort=False)))
        chosen = by_scheme.get(best.get(dataset))
        found.append({
            "dataset": dataset, "classes": classes, "best": best.get(dataset),
            "confusion": None if chosen is None or len(classes) > CONFUSION_LIMIT
            else confusion_matrix(
                chosen["true"], chosen["predicted"], classes),
            "recall": {scheme: recall(mine["true"], mine["predicted"], classes)
                       for scheme, mine in by_scheme.items()}})
    return found
