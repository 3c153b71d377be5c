"""A csv table's column encoding fitted on a training part, as a saved model keeps it: plain
JSON, never a pickle.

:meth:`FittedColumns.fit` fits an :class:`.encoding.Encoding`'s ColumnTransformer on a
training part (as the protocol's folds do) and reads back what it learnt: each categorical
column's categories in order (``OneHotEncoder.categories_``) and, under ``missing: impute``,
each column's fill value (``SimpleImputer.statistics_``: the median, or the most frequent
category). A table read under ``impute`` whose training part happened to miss no cell has its
fill values fitted all the same (the median and most frequent value of the same rows), so a
file to predict may still miss cells. :meth:`FittedColumns.encoded` transforms with the
fitted transformer itself.

:meth:`FittedColumns.record` is the model's metadata ``encoding``: ``columns`` (each feature
column's ``name`` and ``kind``, ``numeric`` or ``categorical``, a categorical one's
``categories`` and, under ``impute``, each one's ``fill``), the ``dropped`` columns and the
``missing`` and ``unseen`` policies. :meth:`FittedColumns.from_record` reads it back, checked
(each problem one ValueError line), and rebuilds the transformer from scikit-learn's own
pieces: ``OneHotEncoder(categories=[the saved ones])`` and ``SimpleImputer(strategy=
"constant", fill_value=the saved one)`` per column, in the training transformer's column
order (the numeric columns, then each categorical one's one-hot columns), so that it
transforms every row exactly as the fitted transformer does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..base.numeric import is_number
from .columns import MISSING_CHOICES, UNSEEN_CHOICES
from .encoding import transformed
from .errors import DatasetError

KINDS = ("numeric", "categorical")
RECORD_KEYS = ("columns", "dropped", "missing", "unseen")


@dataclass(frozen=True)
class FittedColumns:
    """A table's encoding fitted on a training part (see the module docstring): the feature
    ``names`` (in the file's order), the ``categorical`` positions among them and each one's
    ``categories`` (texts, in one-hot column order), each column's fill value (``fills``: a
    number or a category; None when cells are not imputed), the ``dropped`` columns, the
    ``missing`` and ``unseen`` policies, and the fitted ColumnTransformer."""

    names: tuple
    categorical: tuple
    categories: tuple
    fills: tuple | None
    dropped: tuple
    missing: str
    unseen: str
    transformer: object = field(default=None, compare=False, repr=False)

    @property
    def width(self) -> int:
        """The number of encoded features: the numeric columns and every one-hot column."""
        return len(self.names) - len(self.categorical) + sum(map(len, self.categories))

    @property
    def numeric(self) -> list:
        return [j for j in range(len(self.names)) if j not in self.categorical]

    @classmethod
    def fit(cls, encoding, X_train) -> FittedColumns:
        """``encoding``'s transformer fitted on ``X_train`` and what it learnt; DatasetError
        (one line) for a column to impute that the training part misses in every row."""
        fitted = encoding.transformer().fit(X_train)
        learnt = fitted
        if encoding.missing == "impute" and not encoding.impute:
            learnt = replace(encoding, impute=True).transformer().fit(X_train)
        numeric = [j for j in range(len(encoding.names)) if j not in encoding.categorical]
        categories, fills = (), None
        if encoding.categorical:
            step = learnt.named_transformers_["categorical"]
            one_hot = step.steps[-1][1] if hasattr(step, "steps") else step
            categories = tuple(tuple(str(c) for c in found) for found in one_hot.categories_)
        if encoding.missing == "impute":
            fills = [None] * len(encoding.names)
            for j, value in zip(numeric, _statistics(learnt, "numeric")):
                fills[j] = float(value)
            for j, value in zip(encoding.categorical, _statistics(learnt, "categorical")):
                fills[j] = str(value)
            empty = [encoding.names[j] for j in numeric if not np.isfinite(fills[j])]
            if empty:
                raise DatasetError(f"{empty[0]} is missing in every row of the training part: "
                                   "nothing to impute it from; --drop it")
            fills = tuple(fills)
        return cls(tuple(encoding.names), tuple(encoding.categorical), categories, fills,
                   tuple(encoding.dropped_columns), encoding.missing, encoding.unseen, fitted)

    def encoded(self, *arrays) -> tuple:
        """Each array transformed by the fitted transformer, as float64 (None stays None)."""
        return tuple(None if X is None else transformed(self.transformer, X) for X in arrays)

    def record(self) -> dict:
        """The JSON record a saved model keeps (see the module docstring)."""
        columns = []
        for j, name in enumerate(self.names):
            column = {"name": name, "kind": KINDS[j in self.categorical]}
            if j in self.categorical:
                column["categories"] = list(self.categories[self.categorical.index(j)])
            if self.fills is not None:
                column["fill"] = self.fills[j]
            columns.append(column)
        return {"columns": columns, "dropped": list(self.dropped), "missing": self.missing,
                "unseen": self.unseen}

    @classmethod
    def from_record(cls, record) -> FittedColumns:
        """The fitted columns of a :meth:`record`, checked, with the transformer rebuilt from
        it; ValueError (one line) naming what is wrong."""
        if not isinstance(record, dict) or set(record) != set(RECORD_KEYS):
            raise ValueError(f"encoding must hold exactly {', '.join(RECORD_KEYS)}")
        missing, unseen = record["missing"], record["unseen"]
        if missing not in MISSING_CHOICES or unseen not in UNSEEN_CHOICES:
            raise ValueError(f"encoding.missing must be one of {', '.join(MISSING_CHOICES)} and "
                             f"encoding.unseen one of {', '.join(UNSEEN_CHOICES)}")
        columns = record["columns"]
        if not isinstance(columns, list) or not columns:
            raise ValueError("encoding.columns must be a list of one or more columns")
        names = tuple(_column(column, j, missing == "impute") for j, column in enumerate(columns))
        dropped = record["dropped"]
        if len(set(names)) != len(names) or not (
                isinstance(dropped, list) and all(isinstance(d, str) and d for d in dropped)
                and len(set(dropped)) == len(dropped) and not set(dropped) & set(names)):
            raise ValueError("encoding: the column names and dropped column names must be "
                             "distinct non-empty texts")
        categorical = tuple(j for j, c in enumerate(columns) if c["kind"] == "categorical")
        fills = tuple(c["fill"] for c in columns) if missing == "impute" else None
        found = cls(names, categorical, tuple(tuple(columns[j]["categories"])
                                              for j in categorical),
                    fills, tuple(dropped), missing, unseen)
        return replace(found, transformer=found.rebuilt())

    def rebuilt(self):
        """scikit-learn's ColumnTransformer of the saved categories and fill values (see the
        module docstring), fitted on one row of them (it learns nothing from that row)."""
        from sklearn.compose import ColumnTransformer
        from sklearn.impute import SimpleImputer
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder

        def filled(j, step):
            if self.fills is None:
                return step
            imputer = SimpleImputer(strategy="constant", fill_value=self.fills[j])
            return imputer if step == "passthrough" else make_pipeline(imputer, step)

        steps = [(f"numeric_{j}", filled(j, "passthrough"), [j]) for j in self.numeric]
        for j, categories in zip(self.categorical, self.categories):
            one_hot = OneHotEncoder(categories=[list(categories)], sparse_output=False,
                                    handle_unknown="ignore" if self.unseen == "zeros"
                                    else "error", dtype=np.float64)
            steps.append((f"categorical_{j}", filled(j, one_hot), [j]))
        row = np.empty((1, len(self.names)), dtype=object)
        for j in self.numeric:
            row[0, j] = 0.0 if self.fills is None else self.fills[j]
        for j, categories in zip(self.categorical, self.categories):
            row[0, j] = categories[0]
        return ColumnTransformer(steps, sparse_threshold=0.0).fit(row)

    def unseen_value(self, X):
        """(row, column name, value) of the first category of ``X`` (a table's values, as
        :func:`.columns.table_values` makes them) that the training part never had, missing
        cells aside; None when there is none."""
        first = None
        for j, categories in zip(self.categorical, self.categories):
            cells = X[:, j]
            new = np.flatnonzero(~np.isin(cells.astype(str), categories)
                                 & np.array([isinstance(c, str) for c in cells], dtype=bool))
            if new.size and (first is None or new[0] < first[0]):
                first = (int(new[0]), self.names[j], str(cells[new[0]]))
        return first


def _statistics(fitted, step) -> list:
    """The fill values of the fitted transformer's ``step`` (its SimpleImputer's
    ``statistics_``; [] for a step that imputes nothing)."""
    if step not in fitted.named_transformers_:
        return []
    found = fitted.named_transformers_[step]
    imputer = found.steps[0][1] if hasattr(found, "steps") else found
    return list(getattr(imputer, "statistics_", []))


def _column(column, j, imputed) -> str:
    """The name of a record's column ``j``, checked (its keys, kind, categories: distinct
    texts in sorted order, as OneHotEncoder learns them; its fill: a finite number, or one of
    its categories); ValueError naming it otherwise."""
    kind = column.get("kind") if isinstance(column, dict) else None
    keys = {"name", "kind", *(("categories",) if kind == "categorical" else ()),
            *(("fill",) if imputed else ())}
    name = column.get("name") if isinstance(column, dict) else None
    if kind not in KINDS or set(column) != keys or not isinstance(name, str) or not name:
        raise ValueError(f"encoding.columns[{j}] must hold exactly {', '.join(sorted(keys))}, "
                         f"with kind {' or '.join(KINDS)} and a non-empty name")
    if kind == "categorical":
        categories = column["categories"]
        if not (isinstance(categories, list) and categories
                and all(isinstance(c, str) for c in categories)
                and categories == sorted(set(categories))):
            raise ValueError(f"encoding.columns[{j}] ({name}): categories must be distinct "
                             "texts in sorted order")
    if imputed:
        fill = column["fill"]
        holds = fill in column["categories"] if kind == "categorical" else is_number(fill)
        if not holds:
            raise ValueError(f"encoding.columns[{j}] ({name}): fill must be "
                             f"{'one of its categories' if kind == 'categorical' else 'a finite number'}"
                             f", got {fill!r}")
    return name
