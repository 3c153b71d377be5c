"""Saving a fitted scheme: model.json, model.npz and (last) manifest.json, never pickled.

model.json holds ``format_version``, ``scheme``, ``params`` (``get_params()``), ``fitted`` (the
scheme's scalar state), ``arrays`` (name -> shape and dtype) and the caller's ``metadata``;
model.npz the arrays (``classes``, the support-vector pool and dual coefficients, the scheme's
structure, the caller's ``extra_arrays`` under ``extra.``); manifest.json the SHA-256 of
model.json's bytes and of every array's ``.npy`` member.  The folder is replaced whole
(:func:`.folder.write_folder`).
"""

import hashlib
import json

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..estimators.registry import REGISTRY
from .folder import write_folder
from .format import (ARRAYS_NAME, EXTRA_PREFIX, FORMAT_NAME, FORMAT_VERSION, JSON_NAME,
                     MANIFEST_FORMAT, MANIFEST_NAME, MANIFEST_VERSION)
from .npy import write_arrays


def scheme_of(estimator):
    """The registry name of an estimator's class; ValueError for anything else."""
    for scheme in REGISTRY.values():
        if type(estimator) is scheme.estimator:
            return scheme.name
    raise ValueError(f"cannot save a {type(estimator).__name__}: not one of the multisvm schemes")


def _plain(value, what):
    """``value`` as JSON-ready Python data (numpy scalars and arrays converted)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v, what) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, what) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ValueError(f"cannot save {what}: {type(value).__name__} is not JSON data")


def _array(value, name):
    """``value`` as an array that loads without pickle (no object dtype)."""
    array = np.asarray(value)
    if array.dtype == object:
        items = array.tolist()
        array = np.asarray(items, dtype=str) if all(isinstance(v, str) for v in array.ravel()) else array
    if array.dtype == object:
        raise ValueError(f"cannot save array {name!r}: it holds Python objects")
    return np.require(array, requirements="C")  # keeps 0-d arrays 0-d


def save_model(path, estimator, metadata=None, extra_arrays=None, overwrite=True):
    """Write a fitted scheme to the folder ``path``.

    An earlier saved model there is replaced if ``overwrite`` (else :class:`ModelPathError`:
    "... exists; pass --force to replace it"); a folder that is not a saved model (or a file) is
    never replaced.  Safe under concurrency: see :mod:`.folder`.
    """
    check_is_fitted(estimator)
    scheme = scheme_of(estimator)
    fitted, arrays = estimator._get_state()
    arrays = {**arrays, "classes": estimator.classes_}
    if hasattr(estimator, "feature_names_in_"):
        arrays["feature_names"] = estimator.feature_names_in_
    arrays.update({EXTRA_PREFIX + str(k): v for k, v in (extra_arrays or {}).items()})
    arrays = {name: _array(value, name) for name, value in arrays.items()}
    document = {
        "format": FORMAT_NAME, "format_version": FORMAT_VERSION, "scheme": scheme,
        "params": _plain(estimator.get_params(), "the estimator's parameters"),
        "fitted": _plain(fitted, "the fitted state"),
        "arrays": {name: {"shape": list(a.shape), "dtype": a.dtype.str} for name, a in arrays.items()},
        "metadata": _plain(metadata or {}, "the metadata"),
    }
    json_bytes = json.dumps(document, indent=1, allow_nan=False).encode("utf-8")
    write_folder(path, overwrite, lambda staging: _write_files(staging, json_bytes, arrays))


def _write_files(staging, json_bytes, arrays):
    """model.npz, model.json, then manifest.json (through a temporary name) into ``staging``."""
    digests = write_arrays(staging / ARRAYS_NAME, arrays)
    (staging / JSON_NAME).write_bytes(json_bytes)
    manifest = {"format": MANIFEST_FORMAT, "format_version": MANIFEST_VERSION,
                "files": {JSON_NAME: hashlib.sha256(json_bytes).hexdigest()}, "arrays": digests}
    partial = staging / f".{MANIFEST_NAME}.tmp"
    partial.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    partial.replace(staging / MANIFEST_NAME)
