"""Bounds on a local dataset's size, checked before the data is used.

- A local file is a regular file of at most :data:`FILE_FACTOR` x ``memory_mb`` MiB, checked
  before it is hashed or parsed (:func:`check_file_size`), as a download is bounded.
- A csv or npz file's dense float64 size (rows x columns x 8 bytes, from the npz's ``X.npy``
  header or the csv's line count and first row: :func:`npz_shape`, :func:`csv_shape`) is
  stated before the file is read (:func:`check_dense_size`), and refused above ``memory_mb``
  (default :data:`MEMORY_MB`; a local dataset entry's ``memory_mb:``).
- An svmlight file's feature count is bounded by what the data holds: at most
  max(:data:`MIN_FEATURE_BOUND`, its stored values) columns.
- A dense value's square, summed over a point's features as kernels do, must not overflow
  float64 (:func:`largest_value`).
"""

import gzip
import math
import os
import stat
import zipfile

from .delimited import compression
from .errors import DatasetError

MEMORY_MB = 2048               # a local csv/npz dataset's dense size is refused above this
MIN_FEATURE_BOUND = 1 << 20    # svmlight: at most max(this, the stored values) features
FILE_FACTOR = 4                # a local file's bytes are refused above this x memory_mb MiB


def check_file_size(path, memory_mb):
    """DatasetError before a byte of the local file ``path`` is read (hashed or parsed) when
    it is not a regular file or holds more than :data:`FILE_FACTOR` x ``memory_mb`` MiB: its
    values would take more than ``memory_mb`` in memory (a value's text is rarely longer than
    4x its 8 bytes of float64), and a 3 GB file would be hashed and scanned for minutes."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise DatasetError(f"{path}: not a regular file (a device, FIFO or socket); give the "
                           "path of a data file")
    limit = FILE_FACTOR * memory_mb * 2**20
    if info.st_size > limit:
        raise DatasetError(f"{path}: {info.st_size:,} bytes, more than {FILE_FACTOR} x "
                           f"memory_mb = {limit:,} bytes; raise memory_mb for this dataset or "
                           "use a smaller file")


def check_dense_size(path, shape, memory_mb):
    """DatasetError stating a dense file's size, ``shape`` (rows, columns) as float64, when it
    is above ``memory_mb``, before the file is read (``shape`` None: not known)."""
    if shape is None:
        return
    size_mb = shape[0] * shape[1] * 8 / 2**20
    if size_mb > memory_mb:
        raise DatasetError(f"{path}: {shape[0]:,} x {shape[1]:,} values are {size_mb:,.0f} MB "
                           f"as float64, more than memory_mb = {memory_mb:,}; raise memory_mb "
                           f"for this dataset or use a smaller file")


def npz_shape(path):
    """X's shape from its .npy header inside the npz, or None when it cannot be told (the
    full read then says what is wrong)."""
    import numpy as np

    headers = {(1, 0): np.lib.format.read_array_header_1_0,
               (2, 0): np.lib.format.read_array_header_2_0}
    try:
        with zipfile.ZipFile(path) as archive, archive.open("X.npy") as stream:
            shape = headers[np.lib.format.read_magic(stream)](stream)[0]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    return (shape[0], int(np.prod(shape[1:]))) if len(shape) >= 1 else None


def csv_shape(path, chunk=1 << 24):
    """(lines, fields of the first line) of a csv file, counted without parsing it (a gzip
    file's decompressed text, read in chunks)."""
    lines, first = 0, b""
    opener = gzip.open if compression(path) == "gzip" else open
    with opener(path, "rb") as stream:
        while block := stream.read(chunk):
            first = first or block.split(b"\n", 1)[0]
            lines += block.count(b"\n")
    return lines + 1, first.count(b",") + 1


def check_feature_count(files, arrays, zero_based, line_of):
    """DatasetError ``FILE:LINE:`` at the highest index when the svmlight files claim more
    features than max(MIN_FEATURE_BOUND, their stored values): a column no point can fill is
    not data (a 3 KB file with index 2^31 would otherwise ask for 2^31 columns). ``arrays``:
    part -> (X CSR, y, first line); ``line_of(path, row)``: the line of a point."""
    import numpy as np

    n_features = next(iter(arrays.values()))[0].shape[1]
    stored = sum(X.nnz for X, _, _ in arrays.values())
    limit = max(MIN_FEATURE_BOUND, stored)
    if n_features <= limit:
        return
    part = next(p for p, (X, _, _) in arrays.items() if X.nnz and
                X.indices.max() == n_features - 1)
    X, path = arrays[part][0], files[part]
    row = int(np.searchsorted(X.indptr, int(np.argmax(X.indices)), side="right")) - 1
    index = n_features - 1 if zero_based else n_features
    raise DatasetError(f"{path}:{line_of(path, row)}: index {index} makes {n_features:,} "
                       f"features, more than the data holds: a sparse dataset may have at most "
                       f"max({MIN_FEATURE_BOUND:,}, its {stored:,} stored values) features")


def largest_value(n_features) -> float:
    """The largest |x| a kernel can square and sum over ``n_features`` features without
    overflowing float64: sqrt(max float / n_features)."""
    import numpy as np

    return math.sqrt(np.finfo(np.float64).max / max(1, n_features))


def first_too_large(X):
    """(row, column) of the first value of the dense ``X`` above :func:`largest_value`, or
    None (a csv of +-1.5e308 would otherwise reach libsvm as an overflowing kernel)."""
    import numpy as np

    bad = np.argwhere(np.abs(X) > largest_value(X.shape[1]))
    return tuple(int(k) for k in bad[0]) if bad.size else None
