"""The one digest of arrays: a hash fed with text, bytes and numpy arrays' bytes, in order.

Every in-package digest over arrays goes through :func:`digest` (the parsed-data cache's
``arrays_sha256``, the text-features cache's record, a model member's SHA-256 on load, the
machine-reuse key), so "an array's bytes" means one thing everywhere: its elements in C order,
``dtype.itemsize`` bytes each in the dtype's own byte order, with no header; whatever frames them
(shapes, dtypes, names) is fed by the caller as text, before or between the arrays. Each caller's
framing is part of its stored format, so changing it (not this module) changes its digests.

Imports numpy only (no scikit-learn, scipy or pandas): the data, persist and estimator layers
all use it.
"""

import hashlib


def array_bytes(array):
    """The bytes of ``array`` in C order as a flat uint8 view (no copy when ``array`` is already
    C-contiguous; a 0-d array gives its one element's bytes)."""
    import numpy as np

    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def digest(*pieces, algorithm="sha256"):
    """A ``hashlib`` object of ``algorithm`` fed with ``pieces`` in order: a ``str`` as its
    UTF-8 bytes, ``bytes`` (or a ``memoryview``) as they are, anything else as the bytes of
    ``numpy.asarray(piece)`` (:func:`array_bytes`). Call ``.hexdigest()`` or ``.digest()`` on it.

    One pass over the data and no copy for C-contiguous arrays; sha1 is for keys that live in
    memory only (collisions would only matter by accident), sha256 for anything stored.
    """
    import numpy as np

    hashed = hashlib.new(algorithm, usedforsecurity=False) if algorithm == "sha1" \
        else hashlib.new(algorithm)
    for piece in pieces:
        if isinstance(piece, str):
            hashed.update(piece.encode("utf-8"))
        elif isinstance(piece, (bytes, bytearray, memoryview)):
            hashed.update(piece)
        else:
            hashed.update(array_bytes(np.asarray(piece)))
    return hashed


def sha256_hex(*pieces) -> str:
    """Hex SHA-256 of ``pieces`` (see :func:`digest`)."""
    return digest(*pieces).hexdigest()
