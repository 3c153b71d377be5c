"""A table's text and missing cells made numbers by scikit-learn's transformers, fitted on each
training part only.

:class:`Encoding` is what a loaded csv table says about its columns (:mod:`.columns`): which
are categorical, whether missing cells are imputed, what a test file's unseen categories
become, and what was done at reading (columns and rows dropped). :meth:`Encoding.transformer`
is the unfitted scikit-learn ``ColumnTransformer``: the numeric columns as they are (or
``SimpleImputer(strategy="median")``), then the categorical ones one-hot (``OneHotEncoder``,
after ``SimpleImputer(strategy="most_frequent")`` when imputing), in that order. The protocol
fits it on each outer training part (as it fits the scaler) and transforms that part's test
and validation rows with it (:func:`encoded`). :meth:`Encoding.note` is the run's one line
saying what was done, e.g. ``dropped 11 rows with missing cells; one-hot island (3), sex (2)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class Encoding:
    """A csv table's columns (see the module docstring): the feature ``names``, the
    ``categorical`` positions and each one's number of categories in the training file
    (``levels``), ``impute`` (missing cells imputed), ``unseen`` (``refuse`` or ``zeros``),
    what was dropped (``dropped_columns``, ``dropped_rows`` per part), the test file's
    rows with categories the training file lacks (``unseen_rows``) and the ``missing`` policy
    the table was read under (``refuse``, ``drop``, ``impute``: a saved model applies it to
    the files it predicts, :mod:`.fitted_columns`)."""

    names: tuple
    categorical: tuple
    levels: tuple
    impute: bool
    unseen: str
    dropped_columns: tuple = ()
    dropped_rows: tuple = ()
    unseen_rows: int = 0
    missing: str = "refuse"

    @property
    def encodes(self) -> bool:
        """Whether the points need the transformer (a categorical column, or cells to impute)."""
        return bool(self.categorical) or self.impute

    def transformer(self):
        """The unfitted ColumnTransformer of the module docstring."""
        from sklearn.compose import ColumnTransformer
        from sklearn.impute import SimpleImputer
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder

        numeric = [j for j in range(len(self.names)) if j not in self.categorical]
        one_hot = OneHotEncoder(handle_unknown="ignore" if self.unseen == "zeros" else "error",
                                sparse_output=False, dtype=np.float64)
        steps = [("numeric", SimpleImputer(strategy="median") if self.impute else "passthrough",
                  numeric)]
        if self.categorical:
            steps.append(("categorical", make_pipeline(
                SimpleImputer(strategy="most_frequent"), one_hot) if self.impute else one_hot,
                list(self.categorical)))
        return ColumnTransformer(steps, sparse_threshold=0.0)

    def note(self) -> str:
        """The run's line saying what was done (empty when nothing was)."""
        said = [f"dropped column{'s' if len(self.dropped_columns) > 1 else ''} "
                f"{', '.join(self.dropped_columns)}"] if self.dropped_columns else []
        for part, count in self.dropped_rows:
            if count:
                said.append(f"dropped {count} {'' if part in ('all', 'train') else part + ' '}"
                            f"row{'s' if count > 1 else ''} with missing cells")
        if self.impute:
            said.append("imputed missing cells (median; most frequent for categories)")
        if self.categorical:
            said.append("one-hot " + ", ".join(f"{self.names[j]} ({n})"
                                               for j, n in zip(self.categorical, self.levels)))
        if self.unseen_rows:
            said.append(f"{self.unseen_rows} test row(s) with categories the training part "
                        f"never saw: all-zero one-hot columns")
        return "; ".join(said)


def encoded(encoding, X_train, *others):
    """(encoded training part, each of ``others`` encoded or None): ``encoding``'s transformer
    fitted on ``X_train`` only; the arrays as they are when it encodes nothing."""
    if encoding is None or not encoding.encodes:
        return (X_train, *others)
    fitted = encoding.transformer().fit(X_train)
    return tuple(None if X is None else transformed(fitted, X) for X in (X_train, *others))


def transformed(fitted, X) -> np.ndarray:
    """``X`` through the ``fitted`` transformer, as a contiguous float64 array."""
    return np.ascontiguousarray(fitted.transform(X), np.float64)


def encoded_card(card, width):
    """``card`` with ``width`` features, all continuous: the card the scaler of an encoded
    table's part is made with."""
    return replace(card, n_features=width, continuous_columns=range(width))


def unseen_categories(encoding, X_train, X_other):
    """(column name, first value) of a categorical column of ``X_other`` holding a value that
    ``X_train``'s never does (missing cells aside), or None."""
    for j in encoding.categorical:
        seen = {v for v in X_train[:, j].tolist() if isinstance(v, str)}
        new = [v for v in X_other[:, j].tolist() if isinstance(v, str) and v not in seen]
        if new:
            return encoding.names[j], new[0]
    return None


def unseen_rows(X, known) -> int:
    """How many rows of ``X`` hold, in a column ``j`` of ``known`` (``{j: the categories the
    training part has}``), a text value outside them (missing cells aside): one pass over each
    column, where a first-found search per row would repeat it for every row."""
    hit = np.zeros(len(X), dtype=bool)
    for j, seen in known.items():
        hit |= np.array([isinstance(v, str) and v not in seen for v in X[:, j].tolist()],
                        dtype=bool)
    return int(hit.sum())
