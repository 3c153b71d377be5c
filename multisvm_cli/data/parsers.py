"""Parsers: raw files -> (features float64, labels) per part, as the card's source says.

Formats:
- ``text``: delimited text read by pandas (``sep`` "," or "whitespace", optional ``header``,
  ``n_columns`` = read only the first n fields of each line, gzip detected by its magic
  bytes; the rules of :mod:`.delimited`, which a user's csv file follows too;
  Unix compress (.Z) too, unpacked by :mod:`.unix_compress` up to ``max_unpacked_bytes`` of
  content, default ``MAX_UNPACKED_BYTES``).
  ``label_column`` and ``feature_columns: [start, stop)`` are 0-based positions.
- ``hdf5``: groups ``<group>/data`` and ``<group>/target`` (the USPS HDF5 copy).
- ``sklearn``: a ``load_*`` function of ``sklearn.datasets`` (data shipped with scikit-learn).
- ``svmlight``: LIBSVM / SVMlight text, one point a line: ``label index:value ...`` with
  indices increasing, from 1 (``zero_based: true``: from 0); zeros are omitted. Read by
  ``sklearn.datasets.load_svmlight_files`` into scipy CSR (float64), never densified; a line
  that does not parse is reported with its file and line number (:func:`svmlight_error`).

Labels: ``label_type`` int (integral values, plus ``label_offset``) or str (whitespace stripped).
``values`` names a fixed transform of the features (see ``VALUE_TRANSFORMS``).
"""

import tempfile
import math
from pathlib import Path

from ..base.lazy import issparse
from . import delimited
from . import nominal
from . import unix_compress
from .errors import DatasetError

MAX_INDEX = 2**31 - 2           # scipy/libsvm column indices are 32-bit
MAX_UNPACKED_BYTES = 1 << 28    # a local .Z text file's content, unless its source says less


def esl_to_unit(X):
    """ESL USPS values v in [-1, 1] -> (v + 1) / 2 in [0, 1]."""
    return (X + 1.0) / 2.0


def unit_float32_to_esl_grid(X):
    """usps.h5 values h = (v + 1) / 2 stored as float32 -> (v + 1) / 2 with v snapped back to
    the ESL 3-decimal grid, v = round(2 h - 1, 3): the same float64 values as ``esl_to_unit``."""
    import numpy as np

    return esl_to_unit(np.round(2.0 * X.astype(np.float64) - 1.0, 3))


VALUE_TRANSFORMS = {
    "none": lambda X: X,
    "esl_to_unit": esl_to_unit,
    "unit_float32_to_esl_grid": unit_float32_to_esl_grid,
}


def read_table(path, options, dataset):
    """A card's text file as a DataFrame with columns 0..k-1, read by :func:`.delimited.read`
    (the rules a user's csv file follows too); DatasetError if it breaks them."""
    kwargs = {
        "sep": options.get("sep", ","),
        "header": bool(options.get("header")),
        "n_columns": options.get("n_columns"),
        "text": nominal.wanted(options),
    }
    if not unix_compress.is_compressed(path):
        return _read_delimited(path, kwargs, dataset)
    limit = int(options.get("max_unpacked_bytes", MAX_UNPACKED_BYTES))
    content = unix_compress.read_compressed(path, limit, f"{dataset}: {path}")
    with tempfile.TemporaryDirectory() as folder:  # delimited reads files: the unpacked copy
        unpacked = Path(folder) / Path(path).name.removesuffix(".Z")
        unpacked.write_bytes(content)
        return _read_delimited(unpacked, kwargs, dataset)


def _read_delimited(path, kwargs, dataset):
    try:
        return delimited.read(path, **kwargs)
    except DatasetError as exc:
        raise DatasetError(f"{dataset}: {exc}") from None


def cut_text_part(tables, cut, options, dataset="the dataset"):
    """Concatenate the part's tables, keep the ``where`` and ``rows`` selection, and split
    features from labels: returns (X float64, raw labels). Nominal columns and missing cells
    are encoded as the card says (:mod:`.nominal`)."""
    import numpy as np
    import pandas as pd

    table = pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]
    if "where" in cut:
        table = table[table[int(cut["where"]["column"])] == cut["where"]["equals"]]
    if "rows" in cut:
        start, stop = cut["rows"]
        table = table.iloc[int(start):int(stop)]
    start, stop = options["feature_columns"]
    features = table.iloc[:, int(start):int(stop)]
    if nominal.wanted(options):
        X = nominal.encode(features, int(start), options, dataset)
    else:
        X = np.ascontiguousarray(features.to_numpy(dtype=np.float64))
    return X, table.iloc[:, int(options["label_column"])].to_numpy()


def read_hdf5_part(path, cut, dataset):
    """(X, labels) of group ``cut['group']`` of an HDF5 file with ``data`` and ``target``."""
    import h5py

    group = cut["group"]
    try:
        with h5py.File(path, "r") as store:
            return store[f"{group}/data"][...], store[f"{group}/target"][...]
    except (OSError, KeyError) as exc:
        raise DatasetError(f"{dataset}: cannot read {group}/data, {group}/target "
                           f"from {path}: {exc}") from None


def read_sklearn(options):
    """(X, labels) from the named ``sklearn.datasets.load_*`` function (embedded data)."""
    import sklearn.datasets

    loader = str(options["loader"])
    if not loader.startswith("load_") or not hasattr(sklearn.datasets, loader):
        raise DatasetError(f"scikit-learn has no dataset loader {loader!r}")
    return getattr(sklearn.datasets, loader)(return_X_y=True)


def read_svmlight(paths, n_features=None, zero_based=False):
    """[(X, labels)] of svmlight files, X as float64 CSR (sorted indices) and labels float64,
    all with the same columns: ``n_features``, or the highest index of all the files (their
    union) when None. DatasetError ``FILE:LINE: what is wrong`` for a line that does not parse,
    a repeated or decreasing index, index 0 in a one-based file, an index past
    ``n_features``, a NaN or inf value or label; DatasetError for a file without points."""
    import numpy as np
    from sklearn.datasets import load_svmlight_files

    paths = [str(path) for path in paths]
    try:
        loaded = load_svmlight_files(paths, n_features=n_features, dtype=np.float64,
                                     zero_based=zero_based)
    except (ValueError, TypeError, OverflowError) as exc:
        _raise_located(paths, zero_based, n_features)
        raise DatasetError(f"{', '.join(paths)}: not svmlight/LIBSVM data "
                           f"({_first_line(exc)})") from None
    parts = list(zip(loaded[0::2], loaded[1::2]))
    for path, (X, y) in zip(paths, parts):
        if X.shape[0] == 0:
            raise DatasetError(f"{path}: no data lines (expected 'label index:value ...')")
        if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
            _raise_located([path], zero_based, n_features)
            raise DatasetError(f"{path}: NaN or inf values")
        X.sort_indices()
    return parts


def _raise_located(paths, zero_based, n_features):
    for path in paths:
        found = svmlight_error(path, zero_based, n_features)
        if found:
            raise DatasetError(f"{path}:{found[0]}: {found[1]}")


def svmlight_error(path, zero_based=False, n_features=None):
    """(line number, message) of the first bad line of an svmlight file, or None. Checked as
    LIBSVM defines the format: a numeric label, then ``index:value`` pairs with integer indices
    strictly increasing from 1 (from 0 when ``zero_based``), finite values; ``# ...`` comments,
    blank lines and a ``qid:`` pair are allowed."""
    with open(path, "rb") as stream:
        for number, raw in enumerate(stream, 1):
            tokens = raw.split(b"#", 1)[0].split()
            if tokens:
                message = _line_error(tokens, zero_based, n_features)
                if message:
                    return number, message
    return None


def _line_error(tokens, zero_based, n_features):
    label = _float(tokens[0])
    if label is None or not math.isfinite(label):
        return f"label {tokens[0].decode(errors='replace')!r} is not a finite number"
    first, previous = (0 if zero_based else 1), None
    for token in tokens[1:]:
        text = token.decode(errors="replace")
        index, colon, value = token.partition(b":")
        if index == b"qid" and previous is None:
            continue
        if not colon or not index.isdigit() and not index.lstrip(b"-").isdigit():
            return f"{text!r} is not index:value (e.g. 3:0.5)"
        index, number = int(index), _float(value)
        if number is None:
            return f"{text!r}: the value is not a number"
        if index < first:
            return (f"index {index} in a one-based file (indices start at 1; set zero_based: "
                    f"true for a file whose indices start at 0)" if index == 0 and not zero_based
                    else f"index {index} is negative")
        if index > MAX_INDEX:
            return f"index {index} is past the largest index an svmlight file may use, {MAX_INDEX}"
        if previous is not None and index <= previous:
            return (f"index {index} is repeated" if index == previous else
                    f"indices must increase: {index} follows {previous}")
        if n_features is not None and index - first >= n_features:
            return f"index {index} is past the {n_features} features"
        if not math.isfinite(number):
            return f"{text!r}: NaN or inf value"
        previous = index
    return None


def _float(token):
    try:
        return float(token)
    except ValueError:
        return None


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def finish(X, labels, options, dataset):
    """Apply the card's value transform and label conversion: (X float64, y). Sparse X stays
    CSR (float64, sorted indices); value transforms are for dense data only."""
    import numpy as np

    if issparse(X):
        if options.get("values", "none") != "none":
            raise DatasetError(f"{dataset}: value transforms apply to dense data only")
        X = X.tocsr().astype(np.float64)
        X.sort_indices()
        return X, convert_labels(labels, options, dataset)
    transform = VALUE_TRANSFORMS[options.get("values", "none")]
    X = np.ascontiguousarray(transform(np.asarray(X, dtype=np.float64)), dtype=np.float64)
    return X, convert_labels(labels, options, dataset)


def convert_labels(labels, options, dataset):
    """Labels as int64 (integral values plus ``label_offset``) or as a unicode array."""
    import numpy as np

    if options.get("label_type", "int") == "str":
        return np.asarray([str(v).strip() for v in labels], dtype=str)
    try:
        values = np.asarray(labels, dtype=np.float64)
    except (TypeError, ValueError):
        raise DatasetError(f"{dataset}: labels are not numbers (e.g. {labels[0]!r})") from None
    if not np.all(np.isfinite(values)) or np.any(values != np.round(values)):
        raise DatasetError(f"{dataset}: labels are not all whole numbers")
    return values.astype(np.int64) + int(options.get("label_offset", 0))
