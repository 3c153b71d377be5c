"""Pieces GraphSVM and Hier share (Godbole, Sarawagi, Chakrabarti 2002): naive Bayes confusion on
held-out data, one-vs-rest SVMs within groups of classes, and the scores of such a group."""

import numpy as np

from sklearn.utils import check_random_state

from ._base import make_nb, nb_fit, nb_predict, split_holdout
from ._binary import fit_one_vs_rest

CONFUSIONS = ("holdout", "cv")  # where GraphSVM's confusion rates come from
CV_FOLDS = 5


def confusion_rates(model, X, y_index, n_classes):
    """Row-normalised confusion matrix of ``model`` on (X, y_index): entry [j, i] = the share of
    class j's examples predicted as class i (a class without examples has a row of zeros)."""
    counts = np.zeros((n_classes, n_classes))
    if X.shape[0]:
        np.add.at(counts, (y_index, nb_predict(model, X)), 1)
    totals = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)


def measured_confusion(nb, X, y_index, n_classes, source, holdout, random_state):
    """Row-normalised confusion rates of naive Bayes ``nb`` ('gaussian' | 'multinomial') on the
    training data, measured as ``source`` says:

    - ``holdout``: a model fitted on the fit part of :func:`split_holdout` (``holdout`` share of
      each class held out, seeded), judged on the held-out part;
    - ``cv``: cross-validated predictions over the whole training part: each class's rows are
      dealt at random (seeded) into :data:`CV_FOLDS` folds, and each row is judged by a model
      fitted on the other folds (a class with fewer rows than folds leaves some folds without it).
    """
    if source == "holdout":
        fit_rows, held_rows = split_holdout(y_index, holdout, random_state)
        model = nb_fit(make_nb(nb), X[fit_rows], y_index[fit_rows])
        return confusion_rates(model, X[held_rows], y_index[held_rows], n_classes)
    fold = _folds(y_index, CV_FOLDS, random_state)
    predicted = np.empty_like(y_index)
    for k in range(CV_FOLDS):
        held = fold == k
        if held.any() and (~held).any():
            predicted[held] = nb_predict(nb_fit(make_nb(nb), X[~held], y_index[~held]), X[held])
    counts = np.zeros((n_classes, n_classes))
    np.add.at(counts, (y_index, predicted), 1)
    return counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)


def _folds(y_index, n_folds, random_state):
    """Each row's fold: every class's rows in a seeded random order, dealt out 0, 1, ..., n_folds - 1
    in turn (so each fold holds floor or ceil of n_c / n_folds of class c)."""
    rng = check_random_state(random_state)
    fold = np.empty(len(y_index), dtype=np.intp)
    for c in np.unique(y_index):
        rows = rng.permutation(np.flatnonzero(y_index == c))
        fold[rows] = np.arange(len(rows)) % n_folds
    return fold


def confused_groups(confusion, threshold):
    """Godbole et al.'s groups: entry i is {i} U F(i), sorted, where F(i) = the classes j != i
    whose share of examples predicted as i, ``confusion[j, i]`` (rows: true classes), is more
    than ``threshold``."""
    n_classes = len(confusion)
    confused = (confusion > threshold) | np.eye(n_classes, dtype=bool)
    return [np.flatnonzero(confused[:, i]) for i in range(n_classes)]


def error_split(groups, first_guess, y_true, y_pred):
    """Where a two-stage scheme's errors come from: boolean masks over the points, as a dict.

    ``unrecoverable``: the point is wrong and its true class lies outside the group
    ``groups[first_guess]`` of the first stage's class (no group: the group is that class alone),
    so no second stage could right it; ``in_group``: wrong although the true class is in that
    group (the group's machines picked wrong).  Another scheme's errors on these points are
    ``(other_pred != y_true)[mask]``."""
    inside = np.array([t in groups[g] for t, g in zip(y_true, first_guess)], dtype=bool)
    wrong = np.asarray(y_pred) != np.asarray(y_true)
    return {"unrecoverable": wrong & ~inside, "in_group": wrong & inside}


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
