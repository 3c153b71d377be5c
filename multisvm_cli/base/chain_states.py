"""Chain states: where an interrupted warm chain goes on from, kept beside the resume cache.

A grid task of an all-together scheme solves its points in ascending C, each from the last
solve (warm starts along C: :mod:`..estimators.reuse`), and with single-split validation the
resume cache stores each point as it ends.  The last solve's state (its dual variables ``beta``,
their gradient ``G`` when current, and the numbers ``C``, ``curvature`` and ``linear``:
:meth:`..estimators.joint.solver.PathPoint.saved`) is stored beside that point's entry, under
the same key, as ``<the key's SHA-256>.state.npz``.  A run stopped mid-chain then resumes at the
next C instead of solving the chain again from its first; only the latest state of a chain is
kept, and a chain that ends leaves none.

Checked before use, like every cache entry.  The file is read bounded (:data:`MAX_STATE_BYTES`)
and loaded without pickles.  Its ``meta`` must hold the key it was asked for, so a renamed or
stale file is refused.  It must also hold each array's SHA-256, dtype and shape, so a file
changed since it was written is refused.  ``beta`` must have the shape the caller expects, and
``G`` the same (or be absent).  A refused state is a miss (the chain is solved again from its
first C), and the first one of a run is named in one warning.
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings
import zipfile

import numpy as np

from .errors import one_line
from .readers import read_bytes
from .storage import PointCache, atomic_write, to_json

MAX_STATE_BYTES = 1 << 31  # beta and G of 500,000 rows and 100 classes: 800 MB
ARRAYS = ("beta", "G")
NUMBERS = ("C", "curvature", "linear")


def array_digest(array) -> str:
    """The SHA-256 of an array's bytes in C order."""
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


class ChainStates:
    """The chain states beside the resume cache ``cache`` (a :class:`.storage.PointCache`: its
    folder, and its ``force``, with which every lookup misses)."""

    def __init__(self, cache: PointCache):
        self.folder, self.force, self.warned = cache.folder, cache.force, False

    def path(self, key: dict):
        return self.folder / f"{PointCache.digest(key)}.state.npz"

    def put(self, key: dict, numbers: dict, arrays: dict) -> None:
        """Store the state a chain's solve at the point ``key`` ended at (atomically)."""
        meta = {"key": key, "numbers": {name: float(numbers[name]) for name in NUMBERS},
                "arrays": {name: {"sha256": array_digest(value), "dtype": value.dtype.str,
                                  "shape": list(value.shape)} for name, value in arrays.items()}}
        buffer = io.BytesIO()
        np.savez(buffer, meta=np.array(to_json(meta, sort_keys=True)), **arrays)
        atomic_write(self.path(key), buffer.getvalue(), sync=False)

    def get(self, key: dict, shape: tuple, C: float):
        """(numbers, arrays) of the state stored under ``key`` by a solve at ``C`` whose
        ``beta`` has ``shape``, or None: also for a file that is refused (see the module's
        docstring)."""
        path = self.path(key)
        if self.force or not (path.exists() or path.is_symlink()):
            return None
        try:
            return _checked(read_bytes(path, MAX_STATE_BYTES, ValueError, "chain state"), key,
                            tuple(shape), float(C))
        except (ValueError, TypeError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:
            self._warn_once(path, exc)
            return None

    def drop(self, key: dict) -> None:
        """Remove the state stored under ``key``, if any."""
        self.path(key).unlink(missing_ok=True)

    def _warn_once(self, path, exc):
        if not self.warned:
            self.warned = True
            warnings.warn(f"chain state refused, its chain solved again from its first C "
                          f"({path}: {one_line(exc)})", UserWarning, stacklevel=3)


def _checked(raw: bytes, key: dict, shape: tuple, C: float):
    """The (numbers, arrays) in a state file's bytes ``raw``; ValueError unless they are what
    its meta claims, stored under ``key`` by a solve at ``C``, with ``beta`` of ``shape``."""
    with np.load(io.BytesIO(raw), allow_pickle=False) as stored:
        meta = json.loads(str(stored["meta"]))
        if meta.get("key") != json.loads(to_json(key)):
            raise ValueError("holds another grid point's state")
        claimed = meta["arrays"]
        if "beta" not in claimed or set(claimed) - set(ARRAYS) or set(stored.files) != \
                {"meta", *claimed}:
            raise ValueError(f"holds arrays {sorted(stored.files)}, its meta {sorted(claimed)}")
        arrays = {name: stored[name] for name in claimed}
    for name, value in arrays.items():
        facts = claimed[name]
        if value.dtype != np.float64 or list(value.shape) != facts["shape"] or \
                value.dtype.str != facts["dtype"] or array_digest(value) != facts["sha256"]:
            raise ValueError(f"its {name} is not the array its meta describes")
        if value.shape != shape:
            raise ValueError(f"its {name} has shape {value.shape}, the problem {shape}")
    numbers = {name: float(meta["numbers"][name]) for name in NUMBERS}
    if not all(np.isfinite(list(numbers.values()))):
        raise ValueError("its C, curvature and linear terms must be finite")
    if numbers["C"] != C:
        raise ValueError(f"stored by a solve at C {numbers['C']:g}, its point's C is {C:g}")
    return numbers, arrays
