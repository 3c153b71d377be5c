"""Save and load fitted models as JSON + ``.npz`` arrays: versioned, checked, never pickled.

A saved model is a folder holding

- ``model.json``: ``format_version`` (:data:`FORMAT_VERSION`), ``scheme`` (a key of
  ``SCHEMES``), ``params`` (``get_params()``), ``fitted`` (the scheme's scalar state: fit times,
  n_features_in, ...), ``arrays`` (name -> shape and dtype of every array in model.npz) and
  ``metadata`` (anything JSON the caller passes, e.g. dataset, checksums, selection);
- ``model.npz``: the arrays (``classes``, the support-vector pool and dual coefficients, the
  scheme's structure, and the caller's ``extra_arrays`` under the prefix ``extra.``).

Both files are written to a temporary folder next to the target, which is then renamed into
place, so a reader never sees half a model.  Loading reads arrays with ``allow_pickle=False``
and checks everything against the JSON and the scheme's structure; anything else raises
:class:`ModelFormatError` with a one-line message.
"""

import json
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .errors import MultisvmError
from .estimators import SCHEMES

FORMAT_VERSION = 1
FORMAT_NAME = "multisvm-model"
JSON_NAME = "model.json"
ARRAYS_NAME = "model.npz"
EXTRA_PREFIX = "extra."
REQUIRED_KEYS = ("format", "format_version", "scheme", "params", "fitted", "arrays", "metadata")


class ModelFormatError(MultisvmError, ValueError):
    """A saved model that is missing, malformed, from an unknown format version, or whose arrays
    disagree with its JSON (one-line message)."""


@dataclass
class LoadedModel:
    """What :func:`load_model` returns: the fitted estimator, the caller's metadata and arrays."""

    estimator: object
    metadata: dict = field(default_factory=dict)
    extra_arrays: dict = field(default_factory=dict)


def scheme_of(estimator):
    """The ``SCHEMES`` name of an estimator's class; ValueError for anything else."""
    for name, cls in SCHEMES.items():
        if type(estimator) is cls:
            return name
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


def save_model(path, estimator, metadata=None, extra_arrays=None):
    """Write a fitted scheme to the folder ``path`` (replacing an earlier saved model there)."""
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
    _write_folder(Path(path), json.dumps(document, indent=1, allow_nan=False), arrays)


def _write_folder(path, text, arrays):
    """Write model.json and model.npz to a temporary folder, then rename it to ``path``."""
    if path.exists() and not (path / JSON_NAME).is_file():
        if not path.is_dir() or any(path.iterdir()):
            raise ValueError(f"{path} exists and is not a saved model; not overwriting it")
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-", dir=path.parent))
    try:
        np.savez(staging / ARRAYS_NAME, **arrays)
        (staging / JSON_NAME).write_text(text, encoding="utf-8")
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.old-", dir=path.parent))
            os.replace(path, old / "model")
            os.replace(staging, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def load_model(path):
    """Read a model written by :func:`save_model`; ModelFormatError if anything is off."""
    path = Path(path)
    document = _read_document(path)
    arrays = _read_arrays(path / ARRAYS_NAME, document["arrays"])
    extras = {k[len(EXTRA_PREFIX):]: v for k, v in arrays.items() if k.startswith(EXTRA_PREFIX)}
    model_arrays = {k: v for k, v in arrays.items() if not k.startswith(EXTRA_PREFIX)}
    estimator = _rebuild(path, document, model_arrays)
    return LoadedModel(estimator, document["metadata"], extras)


def _read_document(path):
    json_path = path / JSON_NAME
    if not json_path.is_file():
        raise ModelFormatError(f"{path}: not a saved model ({JSON_NAME} is missing)")
    try:
        document = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelFormatError(f"{json_path}: not valid JSON ({' '.join(str(exc).split())})") from None
    if not isinstance(document, dict) or any(key not in document for key in REQUIRED_KEYS):
        raise ModelFormatError(f"{json_path}: needs the keys {', '.join(REQUIRED_KEYS)}")
    if document["format"] != FORMAT_NAME or document["format_version"] != FORMAT_VERSION:
        raise ModelFormatError(f"{json_path}: unknown model format {document['format']!r} version "
                               f"{document['format_version']!r}; this multisvm reads version {FORMAT_VERSION}")
    if document["scheme"] not in SCHEMES:
        raise ModelFormatError(f"{json_path}: unknown scheme {document['scheme']!r}")
    for key in ("params", "fitted", "arrays", "metadata"):
        if not isinstance(document[key], dict):
            raise ModelFormatError(f"{json_path}: {key!r} must be a JSON object")
    for name, spec in document["arrays"].items():
        if not (isinstance(spec, dict) and isinstance(spec.get("shape"), list) and isinstance(spec.get("dtype"), str)):
            raise ModelFormatError(f"{json_path}: array {name!r} needs a shape list and a dtype string")
    return document


def _read_arrays(npz_path, specs):
    """The arrays of model.npz, checked name by name against the JSON's shapes and dtypes."""
    try:
        with np.load(npz_path, allow_pickle=False) as npz:
            if not isinstance(npz, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            names = set(npz.files)
            if names != set(specs):
                missing, extra = sorted(set(specs) - names), sorted(names - set(specs))
                raise ModelFormatError(f"{npz_path}: arrays disagree with {JSON_NAME} "
                                       f"(missing {missing}, unexpected {extra})")
            arrays = {name: npz[name] for name in specs}
    except ModelFormatError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, AttributeError) as exc:
        raise ModelFormatError(f"{npz_path}: unreadable model arrays ({' '.join(str(exc).split())})") from None
    for name, array in arrays.items():
        if list(array.shape) != specs[name]["shape"] or array.dtype.str != specs[name]["dtype"]:
            raise ModelFormatError(f"{npz_path}: array {name!r} is {array.dtype.str} {list(array.shape)}, "
                                   f"{JSON_NAME} says {specs[name]['dtype']} {specs[name]['shape']}")
    return arrays


def _rebuild(path, document, arrays):
    """A fitted estimator of the document's scheme from checked arrays."""
    scheme = document["scheme"]
    try:
        if "classes" not in arrays:
            raise ValueError("the classes array is missing")
        classes = arrays["classes"]
        if classes.ndim != 1 or len(classes) < 2 or not np.array_equal(np.unique(classes), classes):
            raise ValueError("classes must be at least two distinct labels in sorted order")
        estimator = SCHEMES[scheme](**document["params"])
        estimator._check_scheme_params()
        kernel = estimator._settings().kernel
        estimator._restore_common(document["fitted"], classes)
        if "feature_names" in arrays:
            estimator.feature_names_in_ = arrays["feature_names"].astype(object)
        estimator._set_state(document["fitted"], arrays, kernel)
        estimator._set_figures()
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise ModelFormatError(f"{path}: inconsistent {scheme} model ({message})") from None
    return estimator
