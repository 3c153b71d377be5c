"""``format: npz``, a researcher's own file (``.npz``): numpy arrays ``X`` (2-d, numbers) and
``y`` (1-d, whole numbers or names), read with ``allow_pickle=False`` (object arrays are
refused, never unpickled). Its dense size (from ``X.npy``'s header) is stated before it is read
and refused above ``memory_mb``; a problem is one line ``FILE: row N ...``. A file to predict
needs only ``X``, with the model's feature columns (its ``y``, when there, labels the points).
"""

import zipfile
from pathlib import Path

from .. import parsers
from ..errors import DatasetError
from ..bounds import check_dense_size, first_too_large, largest_value, npz_shape
from ..csv_file import TOO_LARGE, whole_labels

EXTENSIONS = (".npz",)
ORDER = 3
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip's first member, or an empty zip


def sniff(first_bytes) -> bool:
    """Whether a file starts as a zip archive does (an npz file is one)."""
    return first_bytes[:4] in ZIP_MAGIC


def read_local(spec, files):
    """{part: (X, y, 1, None)}, every file's dense size checked before any is read."""
    for path in files.values():
        check_dense_size(path, npz_shape(path), spec.memory_mb)
    return {part: (*read_npz(path), None) for part, path in files.items()}


def read_points(path, columns, memory_mb):
    """(X, y or None) of an npz file to predict (``y`` may be there)."""
    check_dense_size(path, npz_shape(path), memory_mb)
    X, y = read_npz(path, need_y=False)[:2]
    if X.shape[0] == 0:
        raise DatasetError(f"{path}: X has no rows; nothing to predict")
    if X.shape[1] != columns.n_features:
        raise DatasetError(f"{path}: X has {X.shape[1]} columns, but the model takes "
                           f"{columns.n_features} features; give X of the model's features")
    return X, y


def read_npz(path, need_y=True):
    """(X float64, y, 1) of an npz file with arrays ``X`` and ``y`` (no pickles); without
    ``need_y`` the file may lack ``y`` (then None)."""
    import numpy as np

    if Path(path).is_file() and not zipfile.is_zipfile(path):  # np.load would try a pickle
        raise DatasetError(f"{path}: not a readable .npz (not a zip archive of .npy arrays)")
    try:
        with np.load(path, allow_pickle=False) as stored:
            missing = [key for key in ("X", "y")[:1 + need_y] if key not in stored.files]
            if missing:
                raise DatasetError(f"{path}: no array {' or '.join(missing)}; an npz dataset "
                                   f"holds X (points x features) and y (labels)")
            X, y = stored["X"], stored["y"] if "y" in stored.files else None
    except DatasetError:
        raise
    except ValueError as exc:
        raise DatasetError(f"{path}: {parsers._first_line(exc)}; save X and y as numeric or "
                           f"text arrays (object arrays are never unpickled)") from None
    except (OSError, EOFError, AttributeError, zipfile.BadZipFile) as exc:
        raise DatasetError(f"{path}: not a readable .npz ({parsers._first_line(exc)})") \
            from None
    if X.ndim != 2 or X.dtype.kind not in "biuf" or y is not None and (
            y.ndim != 1 or len(y) != len(X)):
        got = "" if y is None else f", y {y.shape} {y.dtype}"
        raise DatasetError(f"{path}: X must be a 2-d array of numbers and y a 1-d array of its "
                           f"length; got X {X.shape} {X.dtype}{got}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        raise DatasetError(f"{path}: row {bad[0][0]} column {bad[0][1]} of X is NaN or inf")
    if (found := first_too_large(X)) is not None:
        raise DatasetError(f"{path}: row {found[0]} column {found[1]} of X, {X[found]:g}, "
                           f"{TOO_LARGE.format(largest_value(X.shape[1]))}")
    if y is None:
        return X, y, 1
    if y.dtype.kind in "biuf":
        y = whole_labels(y, lambda i: f"{path}: row {i} of y")
    elif y.dtype.kind != "U":
        raise DatasetError(f"{path}: y must hold whole numbers or names, not {y.dtype}")
    return X, y, 1
