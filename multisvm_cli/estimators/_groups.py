"""Pieces GraphSVM and Hier share (Godbole, Sarawagi, Chakrabarti 2002): naive Bayes confusion on
held-out data, one-vs-rest SVMs within groups of classes, and the scores of such a group."""

import numpy as np

from ._base import nb_predict
from ._binary import fit_one_vs_rest


def confusion_rates(model, X, y_index, n_classes):
    """Row-normalised confusion matrix of ``model`` on (X, y_index): entry [j, i] = the share of
    class j's examples predicted as class i (a class without examples has a row of zeros)."""
    counts = np.zeros((n_classes, n_classes))
    if X.shape[0]:
        np.add.at(counts, (y_index, nb_predict(model, X)), 1)
    totals = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)


def check_confusion(confusion, n_classes):
    """``confusion`` if it is a matrix :func:`confusion_rates` can give: (n_classes, n_classes)
    shares in [0, 1] whose rows sum to 1 (or are all zero); ValueError otherwise."""
    confusion = np.asarray(confusion)
    if confusion.shape != (n_classes, n_classes) or confusion.dtype.kind != "f" or not np.isfinite(confusion).all():
        raise ValueError(f"confusion must be a ({n_classes}, {n_classes}) matrix of finite rates")
    totals = confusion.sum(axis=1)
    if np.any((confusion < 0) | (confusion > 1)) or not np.all((np.abs(totals - 1) <= 1e-9) | (totals == 0)):
        raise ValueError("confusion rows must be shares in [0, 1] summing to 1 (or all zero)")
    return confusion


def fit_group_machines(X, y_index, groups, settings):
    """One-vs-rest SVMs among each group of class indices, on those classes' examples only (one
    machine for a group of two, none for a group of one).  Returns (fits, machine_ptr): the
    machines of group g are fits[machine_ptr[g]:machine_ptr[g + 1]]."""
    fits, machine_ptr = [], [0]
    for group in groups:
        if len(group) > 1:
            rows = np.flatnonzero(np.isin(y_index, group))
            fits.extend(fit_one_vs_rest(X, y_index, rows, np.asarray(group), settings))
        machine_ptr.append(len(fits))
    return fits, np.asarray(machine_ptr, dtype=np.intp)


def group_scores(machines, X, machine_ids, group, n_classes, memory_mb):
    """Per-class scores (X.shape[0], n_classes) of points decided within ``group``: the one-vs-rest
    outputs f_c(x) for c in the group (0 and f(x) for a group of two; 0 for a group of one);
    every class outside the group scores one below the group's lowest score."""
    if len(group) == 1:
        inside = np.zeros((X.shape[0], 1))
    else:
        values = machines.decision_some(X, machine_ids, memory_mb)
        inside = np.column_stack([np.zeros(X.shape[0]), values[:, 0]]) if len(group) == 2 else values
    scores = np.repeat(inside.min(axis=1, keepdims=True) - 1.0, n_classes, axis=1)
    scores[:, group] = inside
    return scores


def pack(lists):
    """Ragged lists of ints as (pointer, flat) arrays: list g is flat[pointer[g]:pointer[g+1]]."""
    pointer = np.concatenate([[0], np.cumsum([len(x) for x in lists])]).astype(np.int64)
    flat = np.concatenate([np.asarray(x, dtype=np.int64) for x in lists] + [np.empty(0, np.int64)])
    return pointer, flat


def unpack(pointer, flat, name):
    """Inverse of :func:`pack`; ValueError if ``pointer`` does not index ``flat``."""
    if pointer[0] != 0 or pointer[-1] != len(flat) or np.any(np.diff(pointer) < 0):
        raise ValueError(f"{name} pointer is inconsistent")
    return [flat[pointer[g]:pointer[g + 1]] for g in range(len(pointer) - 1)]
