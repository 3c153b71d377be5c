"""Outer folds and validation splits, as in Platt, Cristianini, Shawe-Taylor (1999), section 5.

An outer fold is the dataset's own train/test split (``standard``), a seeded stratified holdout
test part (``holdout``), one of k stratified folds (``kfold``), or one of N random draws of
``n_train`` training and ``n_test`` test rows from the pooled rows (``draws``: Wu, Lin & Weng
2004's protocol, stratified and seeded per draw); the scaler is fitted on each fold's training
part only. Inside a fold, a grid point is scored on the validation split: the
seeded stratified 70/30 ``holdout`` of the training part, the dataset's own validation part
(``given``), or k folds of the training part (``kfold``).

A text dataset's documents become features here (the plan's ``features``, see
:mod:`multisvm_cli.data.text.features`): the vectorizer is fitted on each outer fold's training
documents (its test and given validation documents transformed with that vocabulary), and
again on each validation split's fitting documents (its scored documents transformed), so no
vocabulary or idf comes from held-out documents. Vectorized parts are cached in the data
home's ``text-features`` folder, keyed by the settings and the documents' digest.
"""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold, train_test_split
from ..base.errors import one_line
from ..base.thread_warnings import caught


@dataclass
class Fold:
    """One outer fold: scaled training, test and (``given``) validation arrays."""

    index: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    X_val: np.ndarray | None = None
    y_val: np.ndarray | None = None
    scaler: object = None
    # a text dataset's: the training documents, the feature settings, the fold's
    # vocabulary_size and mean_nonzeros (per training document), and its fitted vocabulary
    # (terms in column order, idf weights or None), which a saved model keeps
    docs_train: np.ndarray | None = None
    features: object = None
    text_stats: dict | None = None
    vocabulary: tuple | None = None
    # the test points' row ids (:func:`test_row_ids`), in X_test's order
    test_rows: np.ndarray | None = None
    # a csv table's encoding fitted on the training part (data.fitted_columns.FittedColumns),
    # which a saved model keeps
    columns: object = None


def pooled(dataset):
    """All rows of a dataset in a fixed order (train, validation, test, all) and their labels
    (sparse parts are stacked as CSR, never densified)."""
    names = [p for p in ("train", "validation", "test", "all") if p in dataset.parts]
    blocks = [dataset.parts[p][0] for p in names]
    if any(sp.issparse(block) for block in blocks):
        X = sp.vstack(blocks, format="csr") if len(blocks) > 1 else blocks[0]
    else:
        X = np.concatenate(blocks)
    y = np.concatenate([dataset.parts[p][1] for p in names])
    return X, y


def outer_index_folds(y, split):
    """The (train indices, test indices) pairs of a holdout, k-fold or draws split of ``y``."""
    if split.method == "holdout":
        train, test = stratified_split(np.arange(len(y)), y, split.seed,
                                       test_size=split.test_fraction)
        return [(np.sort(train), np.sort(test))]
    if split.method == "draws":
        return [drawn_rows(y, split, draw) for draw in range(split.draws)]
    return stratified_folds(y, split.k, split.seed)


def stratified_folds(y, k, seed) -> list:
    """The (train indices, test indices) pairs of ``k`` seeded stratified folds of ``y``
    (scikit-learn's StratifiedKFold); ValueError in the tool's words where they cannot be
    made (fewer than ``k`` rows, or no class with ``k`` rows)."""
    largest = int(np.unique(y, return_counts=True)[1].max()) if len(y) else 0
    if k > len(y) or largest < k:
        raise ValueError(f"{k} stratified folds need {k} rows or more, and a class with {k} "
                         f"rows or more (each fold tests one); the data has {len(y)} rows, at "
                         f"most {largest} of a class: give more rows, or fewer folds")
    folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return list(folds.split(np.zeros(len(y)), y))


def stratified_split(rows, y, seed, **size):
    """scikit-learn's stratified ``train_test_split`` of ``rows`` (labels ``y``; ``size``:
    its train_size or test_size, a fraction); ValueError in the tool's words where it cannot
    be made (a side with fewer rows than classes, a class of one row)."""
    try:
        return train_test_split(rows, stratify=y, random_state=seed, **size)
    except ValueError:
        classes, counts = np.unique(y, return_counts=True)
        n = len(y)
        n_train = (math.floor(size["train_size"] * n) if "train_size" in size
                   else n - math.ceil(size["test_size"] * n))
        raise ValueError(f"a stratified split of {n} rows into {n_train} and {n - n_train} "
                         f"needs every one of the {len(classes)} classes on both sides: "
                         f"{len(classes)} rows or more on each side, and 2 or more of each "
                         f"class (the smallest has {counts.min()}): give more rows, or another "
                         "fraction") from None


def draw_seed(seed, draw) -> int:
    """The seed of draw ``draw`` of a draws split seeded ``seed``: numpy's SeedSequence of
    (seed, draw), so draws differ from each other and from every other seed's (repeat r's
    seed + r never replays a draw of repeat 0)."""
    return int(np.random.SeedSequence([seed, draw]).generate_state(1)[0])


def drawn_rows(y, split, draw):
    """(train rows, test rows) of one draw: ``n_train`` and ``n_test`` disjoint rows of ``y``,
    both stratified (scikit-learn's StratifiedShuffleSplit through train_test_split), seeded
    by :func:`draw_seed`; sorted."""
    train, test = train_test_split(np.arange(len(y)), train_size=split.n_train,
                                   test_size=split.n_test, stratify=y,
                                   random_state=draw_seed(split.seed, draw))
    return np.sort(train), np.sort(test)


def test_row_ids(dataset, split) -> list:
    """Per outer fold, its test points' row ids in X_test's order (predictions.csv's
    ``row``): a holdout or k-fold test point's index in the dataset's pooled order
    (:func:`pooled`: train, validation, test, all); a point of the dataset's own test part
    (``standard``), its index in that part; None for ``all`` (no test part)."""
    if split.method == "all":
        return [None]
    if split.method == "standard":
        test = dataset.parts.get("test")
        return [None if test is None else np.arange(len(test[1]))]
    return [test for _, test in outer_index_folds(pooled(dataset)[1], split)]


def raw_folds(dataset, split):
    """Unscaled outer folds as (X_train, y_train, X_test, y_test, X_val, y_val) tuples."""
    if split.method == "all":
        return [(*pooled(dataset), None, None, None, None)]
    if split.method == "standard":
        parts = dataset.parts
        val = parts.get("validation", (None, None))
        return [(*parts["train"], *parts.get("test", (None, None)), *val)]
    X, y = pooled(dataset)
    return [(X[tr], y[tr], X[te], y[te], None, None) for tr, te in outer_index_folds(y, split)]


@contextmanager
def named_warnings(name):
    """Re-issue the warnings raised in the body (scikit-learn's splitters warn when a class has
    fewer members than folds) once each, prefixed with ``name`` (the dataset)."""
    with caught() as raised:
        yield
    for message in dict.fromkeys(one_line(w.message) for w in raised):
        warnings.warn(f"{name}: {message}", UserWarning, stacklevel=3)


def scaled_folds(dataset, plan):
    """The outer folds of ``plan`` with the scaler fitted on each training part only."""
    with named_warnings(dataset.name):
        parts = raw_folds(dataset, plan.split)
        rows = test_row_ids(dataset, plan.split)
    if getattr(plan, "features", None) is not None:
        folds = [_text_fold(index, part, plan) for index, part in enumerate(parts)]
    else:
        folds = [_numeric_fold(index, part, plan, dataset) for index, part in enumerate(parts)]
    for fold, test_rows in zip(folds, rows):
        fold.test_rows = test_rows
    return folds


def _numeric_fold(index, part, plan, dataset):
    """One outer fold of numeric data, scaled by a scaler fitted on its training part (a csv
    table's text and missing cells first encoded by transformers fitted on it too:
    :class:`..data.fitted_columns.FittedColumns`, kept as the fold's ``columns``)."""
    from ..data.encoding import encoded_card
    from ..data.fitted_columns import FittedColumns
    from ..data.scaling import make_scaler

    Xtr, ytr, Xte, yte, Xva, yva = part
    card, encoding, columns = dataset.card, getattr(dataset, "encoding", None), None
    if encoding is not None:
        columns = FittedColumns.fit(encoding, Xtr)
    if encoding is not None and encoding.encodes:
        Xtr, Xte, Xva = columns.encoded(Xtr, Xte, Xva)
        card = encoded_card(card, Xtr.shape[1])
    scaler = make_scaler(plan.scaling, card)
    scaler.fit(Xtr)
    return Fold(index, scaler.transform(Xtr), ytr, _scaled(scaler, Xte), yte,
                _scaled(scaler, Xva), yva, scaler, columns=columns)


def _scaled(scaler, X):
    return None if X is None else scaler.transform(X)


def text_cache_dir():
    """Where vectorized text parts are cached: the data home's ``text-features`` folder."""
    from ..data.locations import data_home

    return data_home() / "text-features"


def vectorized(settings, scaling, docs_fit, *others):
    """(features, fitted scaler, matrices): the vectorizer of ``settings`` fitted on
    ``docs_fit`` only, every part transformed, then scaled (none or maxabs, fitted on the
    first part). ``None`` parts stay None."""
    from ..data.text.features import fit_transform_parts
    from ..data.scaling import Scaler

    given = [docs for docs in others if docs is not None]
    features = fit_transform_parts(settings, docs_fit, *given, cache_dir=text_cache_dir())
    X_fit, rest = features.matrices[0], iter(features.matrices[1:])
    maxabs = scaling == "maxabs"  # "none" scales no column (as a saved scaler's state says)
    scaler = Scaler(method="maxabs" if maxabs else "none",
                    columns=tuple(range(X_fit.shape[1])) if maxabs else ()).fit(X_fit)
    matrices = [scaler.transform(X_fit)] + [None if docs is None else scaler.transform(next(rest))
                                            for docs in others]
    return features, scaler, matrices


def _text_fold(index, part, plan):
    """One outer fold of a text dataset: vectorized on its training documents only."""
    Xtr, ytr, Xte, yte, Xva, yva = part
    features, scaler, (X_train, X_test, X_val) = vectorized(plan.features, plan.scaling,
                                                            Xtr, Xte, Xva)
    stats = {"vocabulary_size": features.vocabulary_size,
             "mean_nonzeros": features.mean_nonzeros}
    return Fold(index, X_train, ytr, X_test, yte, X_val, yva, scaler, docs_train=Xtr,
                features=(plan.features, plan.scaling), text_stats=stats,
                vocabulary=(features.terms, features.idf))


def holdout_rows(y, validation):
    """(fit rows, score rows) of the stratified, seeded holdout: ``train_fraction`` to fit.
    A class with a single training point (Reuters' R52 has some) cannot be split: its row is
    fitted, never scored; the other rows are split as before (unchanged when there is none)."""
    classes, counts = np.unique(y, return_counts=True)
    single = np.isin(y, classes[counts < 2])
    if not single.any():
        return stratified_split(np.arange(len(y)), y, validation.seed,
                                train_size=validation.train_fraction)
    rest = np.flatnonzero(~single)
    fit, score = stratified_split(rest, y[rest], validation.seed,
                                  train_size=validation.train_fraction)
    return np.concatenate([fit, np.flatnonzero(single)]), score


def validation_index_splits(y, validation):
    """(fit rows, score rows) pairs of the validation method on a training part's labels
    ``y``: the stratified seeded holdout, or stratified k folds (``given`` has none)."""
    if validation.method == "holdout":
        return [holdout_rows(y, validation)]
    return stratified_folds(y, validation.k, validation.seed)


def validation_splits(fold, validation):
    """(X_fit, y_fit, X_score, y_score) pairs used to score a grid point on one outer fold."""
    X, y = fold.X_train, fold.y_train
    if validation.method == "given":
        return [(X, y, fold.X_val, fold.y_val)]
    if validation.method == "test":  # the cv-best estimate: scored on the outer test part
        return [(X, y, fold.X_test, fold.y_test)]
    rows = validation_index_splits(y, validation)
    if fold.docs_train is not None:  # text: a vocabulary of the fitting documents only
        return [_text_split(fold, a, b) for a, b in rows]
    return [(X[a], y[a], X[b], y[b]) for a, b in rows]


def _text_split(fold, fit_rows, score_rows):
    """(X_fit, y_fit, X_score, y_score) of a text fold's validation split: vectorized on
    ``fit_rows``' documents only."""
    settings, scaling = fold.features
    docs, y = fold.docs_train, fold.y_train
    _, _, (X_fit, X_score) = vectorized(settings, scaling, docs[fit_rows], docs[score_rows])
    return X_fit, y[fit_rows], X_score, y[score_rows]


def part_arrays(dataset, split, part):
    """Rows of one part of ``dataset`` under ``split``: test, train, validation or all.

    For a holdout split the test and train parts are the held-out and remaining rows (the same
    seeded stratified split as in training), for a draws split its first draw's (the rows
    ``train`` fits a model on); ``all`` is every row.
    """
    if part == "all":
        return pooled(dataset)
    drawn = split.method in ("holdout", "draws")
    if split.method == "standard" or part == "validation":
        if part not in dataset.parts:
            made = {"train", "test"} if drawn else set()
            known = ", ".join(sorted(set(dataset.parts) | made | {"all"}))
            raise ValueError(f"{dataset.name} has no {part} part (under the model's "
                             f"{split.method} split it has: {known}); choose one with --part")
        return dataset.parts[part]
    if drawn and part in ("train", "test"):
        X, y = pooled(dataset)
        train, test = outer_index_folds(y, split)[0]
        rows = test if part == "test" else train
        return X[rows], y[rows]
    raise ValueError(f"part {part!r} is not defined for a {split.method} split; "
                     f"use --part all")
