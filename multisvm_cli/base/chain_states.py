"""Chain states: where an interrupted warm chain goes on from, kept beside the resume cache.

A grid task of an all-together scheme solves its points in ascending C, each from the last
solve (warm starts along C: :mod:`..estimators.reuse`), and with single-split validation the
resume cache stores each point as it ends.  The last solve's state (its dual variables ``beta``,
their gradient ``G`` when current, which kernel rows its cache held, and the numbers ``C``,
``curvature`` and ``linear``: :meth:`..estimators.joint.decomposition.solver.PathPoint.saved`) is stored
beside that point's entry, under the same key, as ``<the key's SHA-256>.state.npz``.  A run
stopped mid-chain then resumes at the next C instead of solving the chain again from its first;
a chain keeps its latest state only, and drops it when it ends (a run killed between writing one
and dropping the one before, or whose config or code changed since, leaves files that no key
reads again, as it leaves cache entries).

Checked before use, like every cache entry.  The file is read bounded (:data:`MAX_STATE_BYTES`)
and loaded without pickles.  Its ``meta`` must hold the key it was asked for, so a renamed or
stale file is refused.  It must also hold each array's SHA-256, dtype and shape, so a file
changed since it was written is refused.  ``beta`` must have the shape the caller expects, ``G``
the same (or be absent; when present, ``curvature`` must be beta'G minus ``linear``, as it was
computed), and ``cached_rows`` be row indices.  Any failure to read or check a state makes it a
miss (the chain is solved again from its first C), and the first one of a run is named in one
warning (:func:`states_of` gives a run's resume cache one :class:`ChainStates`).
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings
import weakref

import numpy as np

from .errors import one_line
from .readers import read_bytes
from .storage import PointCache, atomic_write, to_json

MAX_STATE_BYTES = 1 << 31  # beta and G of 500,000 rows and 100 classes: 800 MB
ARRAYS = {"beta": np.float64, "G": np.float64, "cached_rows": np.int64}
NUMBERS = ("C", "curvature", "linear")
_OF_CACHE = weakref.WeakKeyDictionary()


def states_of(cache: PointCache) -> "ChainStates":
    """The :class:`ChainStates` beside the resume cache ``cache``: one for the cache's life (a
    run's), so that a run warns once, whatever number of datasets and repeats it scores."""
    if cache not in _OF_CACHE:
        _OF_CACHE[cache] = ChainStates(cache)
    return _OF_CACHE[cache]


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

    def put(self, key: dict, numbers: dict, arrays: dict) -> bool:
        """Store the state a chain's solve at the point ``key`` ended at (atomically): whether
        it was (a state larger than :data:`MAX_STATE_BYTES`, never read back, is not)."""
        if sum(value.nbytes for value in arrays.values()) > MAX_STATE_BYTES - (1 << 20):
            return False
        meta = {"key": key, "numbers": {name: float(numbers[name]) for name in NUMBERS},
                "arrays": {name: {"sha256": array_digest(value), "dtype": value.dtype.str,
                                  "shape": list(value.shape)} for name, value in arrays.items()}}
        buffer = io.BytesIO()
        np.savez(buffer, meta=np.array(to_json(meta, sort_keys=True)), **arrays)
        atomic_write(self.path(key), buffer.getvalue(), sync=False)
        return True

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
        except Exception as exc:  # noqa: BLE001 - whatever fails, the state is a miss
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
        if not isinstance(meta, dict) or meta.get("key") != json.loads(to_json(key)):
            raise ValueError("holds another grid point's state")
        claimed = meta["arrays"]
        if not isinstance(claimed, dict) or "beta" not in claimed or set(claimed) - set(ARRAYS) \
                or set(stored.files) != {"meta", *claimed}:
            raise ValueError(f"holds arrays {sorted(stored.files)}, its meta another list")
        arrays = {name: stored[name] for name in claimed}
    for name, value in arrays.items():
        facts = claimed[name]
        if value.dtype != ARRAYS[name] or list(value.shape) != facts["shape"] or \
                value.dtype.str != facts["dtype"] or array_digest(value) != facts["sha256"]:
            raise ValueError(f"its {name} is not the array its meta describes")
        if name != "cached_rows" and value.shape != shape:
            raise ValueError(f"its {name} has shape {value.shape}, the problem {shape}")
    numbers = {name: float(meta["numbers"][name]) for name in NUMBERS}
    if not all(np.isfinite(list(numbers.values()))):
        raise ValueError("its C, curvature and linear terms must be finite")
    if "G" in arrays and numbers["curvature"] != float(np.sum(arrays["beta"] * arrays["G"])) - \
            numbers["linear"]:
        raise ValueError("its curvature is not beta'G minus its linear term")
    rows = arrays.get("cached_rows")
    held = None if rows is None else rows[rows >= 0]
    if rows is not None and (rows.ndim != 1 or np.any(rows < -1) or np.any(held >= shape[1])
                             or len(np.unique(held)) != len(held)):
        raise ValueError("its cached_rows are not distinct row indices of the problem")
    if numbers["C"] != C:
        raise ValueError(f"stored by a solve at C {numbers['C']:g}, its point's C is {C:g}")
    return numbers, arrays
