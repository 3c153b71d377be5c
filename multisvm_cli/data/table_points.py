"""A csv file to predict with a model trained on a csv table that needed encoding: its cells
read as the training table's were (:mod:`.columns`), then encoded by the model's saved
:class:`.fitted_columns.FittedColumns`.

The file's feature columns are the model's (``FittedColumns.names``), in its order; with a
header, the columns the training read dropped (``--drop``) may be there too (they are
dropped again), and the label column may be there (its labels are read to score the
predictions), as for any file to predict (:func:`.points.csv_points`). Numbers are checked as
the training file's were; a categorical column's cells are its texts.

A row with a missing cell (one of :data:`.columns.MISSING`) follows the model's ``missing``
policy: under ``impute`` the cell gets the saved fill value (the training part's median, or
its most frequent category); under ``drop`` or ``refuse`` the file is refused with one line
naming the row, since predict gives every row of a file a prediction and never drops one
silently. A category the training part never had follows the model's ``unseen`` policy:
``refuse`` (one line naming the row and the value), or ``zeros`` (all-zero one-hot columns,
said in one warning).
"""

from __future__ import annotations

import warnings

import numpy as np

from .columns import MISSING, check_numbers, table_values
from .csv_file import check_names, csv_labels, csv_table, label_column
from .encoding import unseen_rows
from .errors import DatasetError


def table_points(path, columns):
    """(encoded X float64, y or None) of the csv file ``path`` to predict with the model
    whose :class:`.points.Columns` are ``columns`` (``columns.table``: its FittedColumns);
    DatasetError (one line) for anything the module docstring refuses."""
    table = columns.table
    cells, lines, names, first = csv_table(path)
    features, label = _positions(path, first, names, cells.shape[1], columns)
    block = cells[:, features]
    absent = np.isin(block, list(MISSING))
    if absent.any() and table.fills is None:
        row, j = np.argwhere(absent)[0]
        raise DatasetError(f"{path}:{lines[row]}: {table.names[j]} is missing; the model was "
                           f"trained with missing: {table.missing}, and predict gives every row "
                           f"a prediction, dropping none: fill the cell in or remove the row "
                           f"(a model trained with --missing impute fills it)")
    text = [features[j] for j in table.categorical]
    check_numbers(path, lines, cells, absent, text, features, names)
    X = table_values(block, absent, list(table.categorical))
    _check_unseen(path, lines, table, X)
    y = None if label is None else csv_labels(path, cells[:, label], lines)
    return table.encoded(X)[0], y


def _positions(path, first, names, width, columns):
    """(the file's positions of the model's feature columns, its label column's or None): the
    label column is the model's (or ``--label``) where the header names it, else the last (or
    ``--label``'s) where the file has one column more than the model's features."""
    table, n = columns.table, len(columns.table.names)
    dropped = set(table.dropped) if names is not None else set()
    kept = [j for j in range(width) if names is None or names[j] not in dropped]
    label = None
    if names is not None and isinstance(columns.label, str) and columns.label in names:
        label = names.index(columns.label)
    elif len(kept) == n + 1:
        label = label_column(path, names, width, -1 if columns.label is None else columns.label,
                             first)
    if label is None and columns.label_given:
        raise DatasetError(f"{path}:{first}: no label column {columns.label!r}: the file has "
                           f"only the model's {n} feature columns; drop --label")
    features = [j for j in kept if j != label]
    if len(features) != n:
        shown = ", ".join(table.names[:5]) + (", ..." if n > 5 else "")
        raise DatasetError(f"{path}:{first}: {len(features)} feature columns, but the model "
                           f"takes {n} ({shown}); give them (and optionally the label column)")
    if names is not None:
        check_names(path, first, [names[j] for j in features], list(table.names))
    return features, label


def _check_unseen(path, lines, table, X):
    """DatasetError at the first category the model's training part never had (``unseen:
    refuse``); under ``zeros``, one warning counting the rows that hold one."""
    found = table.unseen_value(X)
    if found is None:
        return
    row, name, value = found
    if table.unseen == "refuse":
        raise DatasetError(f"{path}:{lines[row]}: {name} {value!r} is a category the model's "
                           f"training part never had; the model was trained with unseen: "
                           f"refuse (trained with --unseen zeros, it maps it to all-zero "
                           f"one-hot columns)")
    rows = unseen_rows(X, {j: set(categories) for j, categories
                           in zip(table.categorical, table.categories)})
    warnings.warn(f"{path}: {rows} row(s) hold categories the model's training part never had "
                  f"(first: {name} {value!r}, line {lines[row]}): all-zero one-hot columns, as "
                  f"the model was trained (unseen: zeros)", UserWarning, stacklevel=3)
