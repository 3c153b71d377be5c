"""Checks on raw files before use: size and SHA-256 where the card knows them, structure where it
cannot; and a parsed part against the card."""

import hashlib
import os

from ..base.lazy import issparse
from .errors import DatasetError

CHUNK_BYTES = 1 << 20


def sha256_file(path):
    """Hex SHA-256 of the file at ``path``, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_size(path, spec, dataset):
    """The size in bytes of the file at ``path`` (a mirror's, the data home's), bounded as a
    download of it is, before a byte is read: DatasetError when the card lists sizes and the
    file has none of them, or when it is larger than the card's ``max_size``."""
    size = os.path.getsize(path)
    if spec.size and size not in spec.size:
        expected = " or ".join(f"{n:,}" for n in spec.size)
        raise DatasetError(
            f"{dataset}: {spec.name} at {path} is {size:,} bytes, expected {expected}: the file "
            "is corrupt or another version; refused (delete it and fetch it again)")
    if getattr(spec, "max_size", None) and size > spec.max_size:
        raise DatasetError(
            f"{dataset}: {spec.name} at {path} is {size:,} bytes, more than the "
            f"{spec.max_size:,} its card allows: not the canonical file; refused, not read "
            "(delete it and fetch it again)")
    return size


def check_sha256(path, spec, dataset):
    """SHA-256 of ``path``; DatasetError when its size is not one the card allows
    (:func:`check_size`, checked first: a wrong file is not read), or the card lists digests
    and none matches."""
    check_size(path, spec, dataset)
    seen = sha256_file(path)
    if spec.sha256 and seen not in spec.sha256:
        raise DatasetError(
            f"{dataset}: {spec.name} at {path} has sha256 {seen}, expected {spec.sha256[0]}: "
            "the file is corrupt or another version; refused (delete it and fetch it again)")
    return seen


def check_structure(spec, table, dataset):
    """Compare a parsed file's table with the card's ``structure`` (rows, columns), if any."""
    if not spec.structure:
        return
    expected = spec.structure
    if tuple(table.shape) != expected:
        raise DatasetError(
            f"{dataset}: {spec.name} has {table.shape[0]} rows x {table.shape[1]} columns, "
            f"expected {expected[0]} x {expected[1]}: not the canonical file; refused")


def check_part(card, part, X, y, source_id):
    """The part's shape, finiteness (numeric) or documents (text) and label set must be what
    the card declares."""
    where = f"{card.name} {part} part (source {source_id})"
    if card.kind == "text":
        _check_documents(card, part, X, where)
    else:
        _check_numbers(card, part, X, where)
    if len(y) != card.parts[part]:
        raise DatasetError(f"{where}: {len(y)} labels, expected {card.parts[part]}")
    unknown = set(y.tolist()) - set(card.classes)
    if unknown:
        shown = ", ".join(sorted(map(str, unknown))[:5])
        raise DatasetError(f"{where}: labels not in the card's classes: {shown}")



def _check_numbers(card, part, X, where):
    import numpy as np

    expected = (card.parts[part], card.n_features)
    if X.shape != expected:
        raise DatasetError(f"{where}: shape {X.shape}, expected {expected}")
    if not np.isfinite(X.data if issparse(X) else X).all():
        raise DatasetError(f"{where}: contains missing or non-finite values")


def _check_documents(card, part, X, where):
    import numpy as np

    if not isinstance(X, np.ndarray) or X.dtype != object or X.shape != (card.parts[part],):
        raise DatasetError(f"{where}: expected {card.parts[part]:,} documents, got "
                           f"{getattr(X, 'shape', type(X).__name__)}")
    if not all(isinstance(text, str) for text in X):
        raise DatasetError(f"{where}: a document is not text")
