"""A local csv dataset's files read under its column options (:mod:`.columns`): the training
file decides each column's kind, a test file is read with the same kinds, and its categories
the training file never has are refused or said (``unseen``); the :class:`.encoding.Encoding`
the protocol fits per training part comes with the first part."""

from __future__ import annotations

from dataclasses import replace

from .columns import AUTO, ColumnOptions, table_columns
from .csv_file import Kept, csv_labels, csv_table, label_column, read_csv_named
from .encoding import Encoding, unseen_categories, unseen_rows
from .errors import DatasetError


def read_parts(files, options, label, header) -> dict:
    """{part: (X, y, first data line, feature names or None, Encoding or None)} of a csv
    dataset's ``files`` (part -> path; ``options``: a :class:`.columns.ColumnOptions`, None
    for the defaults). The Encoding (the first part's only) is None where the table needed
    nothing (every feature a number, no cell missing, no column dropped)."""
    options = options or ColumnOptions()
    first = "train" if "train" in files else "all"
    X, y, line, names, table = read_csv_table(files[first], options, label, header)
    named = {first: [X, y, line, names, None]}
    tables = {first: table}
    if "test" in files:
        fixed = options if table is None else replace(
            options, categorical=tuple(table.names[j] for j in table.categorical))
        found = read_csv_table(files["test"], fixed, label, header)
        named["test"], tables["test"] = [*found[:4], None], found[4]
    if any(t is not None for t in tables.values()):
        named[first][4] = _encoding(files, named, tables, options)
    return {part: tuple(found) for part, found in named.items()}


def _encoding(files, named, tables, options) -> Encoding:
    """The Encoding of a dataset whose table (``tables``: part -> Table or None) needed one."""
    first = "train" if "train" in files else "all"
    table = tables[first]
    names = tuple(table.names) if table is not None else tuple(named[first][3] or ())
    categorical = table.categorical if table is not None else ()
    X = named[first][0]
    levels = tuple(len({v for v in X[:, j].tolist() if isinstance(v, str)}) for j in categorical)
    encoding = Encoding(
        names=names, categorical=categorical, levels=levels,
        impute=options.missing == "impute" and any(t is not None and t.missing
                                                    for t in tables.values()),
        unseen=options.unseen, missing=options.missing,
        dropped_columns=table.dropped_columns if table is not None else (),
        dropped_rows=tuple((part, t.dropped_rows) for part, t in tables.items() if t is not None))
    if "test" in named and categorical:
        encoding = _checked_test(files, named, encoding)
    return encoding


def _checked_test(files, named, encoding) -> Encoding:
    """``encoding`` with the test rows whose categories the training file lacks counted
    (``unseen: zeros``); DatasetError naming the column and value under ``unseen: refuse``."""
    X_train, X_test = named["train"][0], named["test"][0]
    found = unseen_categories(encoding, X_train, X_test)
    if found is None:
        return encoding
    if encoding.unseen == "refuse":
        column, value = found
        raise DatasetError(f"{files['test']}: {column} {value!r} is a category the training "
                           f"file {files['train']} never has; --unseen zeros (features: "
                           f"{{unseen: zeros}}) maps it to all-zero one-hot columns")
    known = {j: {v for v in X_train[:, j].tolist() if isinstance(v, str)}
             for j in encoding.categorical}
    return replace(encoding, unseen_rows=unseen_rows(X_test, known))


def read_csv_table(path, options, label=None, header=None):
    """(X, y, first data line, the feature names or None, the :class:`.columns.Table` or None)
    of a csv file read under the column ``options`` (:class:`.columns.ColumnOptions`): as
    :func:`.csv_file.read_csv_named` reads it (Table None) when every feature is a number and
    no column is dropped, else through :func:`.columns.table_columns` (text columns, missing
    cells)."""
    if not options.drop and options.categorical == AUTO:
        try:
            return (*read_csv_named(path, label, header), None)
        except DatasetError:
            pass  # read again below: text and missing cells, or the same refusal
    cells, lines, names, first = csv_table(path, header)
    if cells.shape[1] < 2:
        raise DatasetError(f"{path}:{lines[0]}: one column only; need features and a label")
    column = label_column(path, names, cells.shape[1], label, first)
    features = [j for j in range(cells.shape[1]) if j != column]
    table = table_columns(path, cells, lines, names, features, options)
    kept = Kept(lines, table.rows)
    y = csv_labels(path, cells[table.rows, column], kept)
    return table.X, y, kept[0], None if names is None else list(table.names), table
