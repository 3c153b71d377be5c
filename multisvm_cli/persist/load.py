"""Loading a saved model: every file checked, in an order that allocates nothing unchecked.

:func:`load_model` refuses anything off with :class:`ModelFormatError` (one line), in this order,
so that nothing is allocated beyond the size of the files on disk and nothing is used unchecked:

1. model.json (at most :data:`MAX_JSON_BYTES`, read by ``readers``: strict JSON, bounded
   nesting): format, version (one of :data:`.format.READ_VERSIONS`), scheme, and the form of
   every field;
2. model.npz's members against model.json, from their ``.npy`` headers alone (:mod:`.npy`);
3. the parameters (the estimator's own checks), the fitted scalars, and every model array's
   shape and dtype against the exact sizes the scheme implies (:func:`.format.expected_arrays`);
4. manifest.json: model.json's hash, then each array's data, read and hashed (an edit made after
   saving, even one that keeps the files consistent, is refused here);
5. the values, by the scheme's ``_set_state`` (ranges, permutations, structure).
"""

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..estimators.registry import REGISTRY
from ..base.errors import one_line
from ..base.numeric import is_count, is_int, is_number
from ..base.readers import read_json_with_bytes
from .folder import folder_lock
from .format import (ARRAYS_NAME, EXTRA_PREFIX, FITTED_KEYS, FORMAT_NAME, HEX64, JSON_NAME,
                     MANIFEST_FORMAT, MANIFEST_KEYS, MANIFEST_NAME, MANIFEST_VERSION,
                     MAX_JSON_BYTES, MAX_MANIFEST_BYTES, OPTIONAL_FITTED_KEYS, READ_VERSIONS,
                     REQUIRED_KEYS, ModelFormatError, expected_arrays, short)
from .npy import open_archive, read_data, read_headers


@dataclass
class LoadedModel:
    """What :func:`load_model` returns: the fitted estimator, the caller's metadata and arrays."""

    estimator: object
    metadata: dict = field(default_factory=dict)
    extra_arrays: dict = field(default_factory=dict)


def load_model(path):
    """Read a model written by :func:`save_model`; ModelFormatError if anything is off (see the
    module docstring for what is checked, and in which order)."""
    path = Path(path)
    with folder_lock(path.parent, exclusive=False):
        json_bytes, document = _read_document(path)
        specs = document["arrays"]
        with open_archive(path / ARRAYS_NAME) as archive:
            headers = read_headers(archive, specs)
            estimator = _check_model_fields(path, document)
            manifest = _read_manifest(path)
            if hashlib.sha256(json_bytes).hexdigest() != manifest["files"][JSON_NAME]:
                raise ModelFormatError(f"{path / JSON_NAME}: changed after saving (its SHA-256 is not "
                                       f"the one in {MANIFEST_NAME}); save or train the model again")
            if set(manifest["arrays"]) != set(specs):
                raise ModelFormatError(f"{path / MANIFEST_NAME}: lists other arrays than {JSON_NAME}")
            arrays = {name: read_data(archive, headers[name], manifest["arrays"][name])
                      for name in specs}
    extras = {k[len(EXTRA_PREFIX):]: v for k, v in arrays.items() if k.startswith(EXTRA_PREFIX)}
    model_arrays = {k: v for k, v in arrays.items() if not k.startswith(EXTRA_PREFIX)}
    _rebuild(path, document, estimator, model_arrays)
    return LoadedModel(estimator, document["metadata"], extras)


def _read_json(json_path, limit):
    """(bytes, strictly parsed JSON) of a small JSON file of a saved model."""
    return read_json_with_bytes(json_path, limit, ModelFormatError, "saved model's JSON file")


def _read_document(path):
    """model.json's bytes and its checked top-level form (step 1)."""
    json_path = path / JSON_NAME
    if not json_path.is_file():
        raise ModelFormatError(f"{path}: not a saved model ({JSON_NAME} is missing)")
    raw, document = _read_json(json_path, MAX_JSON_BYTES)
    if not isinstance(document, dict) or set(document) != set(REQUIRED_KEYS):
        raise ModelFormatError(f"{json_path}: needs the keys {', '.join(REQUIRED_KEYS)} and no others")
    version = document["format_version"]
    if (document["format"] != FORMAT_NAME or isinstance(version, bool)
            or not isinstance(version, int) or version not in READ_VERSIONS):
        raise ModelFormatError(f"{json_path}: unknown model format {short(document['format'])} version "
                               f"{short(version)}; this multisvm reads versions "
                               f"{', '.join(map(str, READ_VERSIONS))} (train the model again, or "
                               f"read it with the multisvm that saved it)")
    if not isinstance(document["scheme"], str) or document["scheme"] not in REGISTRY:
        raise ModelFormatError(f"{json_path}: unknown scheme {short(document['scheme'])}")
    for key in ("params", "fitted", "arrays", "metadata"):
        if not isinstance(document[key], dict):
            raise ModelFormatError(f"{json_path}: {key!r} must be a JSON object")
    for name, spec in document["arrays"].items():
        if not (isinstance(spec, dict) and set(spec) == {"shape", "dtype"} and isinstance(spec["shape"], list)
                and all(is_count(n) for n in spec["shape"]) and isinstance(spec["dtype"], str)):
            raise ModelFormatError(f"{json_path}: array {short(name)} needs a shape list of counts and a "
                                   f"dtype string")
        if not name or name == EXTRA_PREFIX:
            raise ModelFormatError(f"{json_path}: an array has an empty name")
    return raw, document


def _read_manifest(path):
    """manifest.json, checked in form: {format, format_version, files: {model.json: sha256},
    arrays: {name: sha256}}."""
    manifest_path = path / MANIFEST_NAME
    if not manifest_path.is_file():
        raise ModelFormatError(f"{path}: {MANIFEST_NAME} is missing (saved by an older multisvm, or an "
                               f"incomplete copy); train the model again")
    _, manifest = _read_json(manifest_path, MAX_MANIFEST_BYTES)
    ok = (isinstance(manifest, dict) and set(manifest) == set(MANIFEST_KEYS)
          and manifest["format"] == MANIFEST_FORMAT and manifest["format_version"] == MANIFEST_VERSION
          and isinstance(manifest["files"], dict) and set(manifest["files"]) == {JSON_NAME}
          and isinstance(manifest["arrays"], dict)
          and all(isinstance(d, str) and HEX64.fullmatch(d)
                  for d in [*manifest["files"].values(), *manifest["arrays"].values()]))
    if not ok:
        raise ModelFormatError(f"{manifest_path}: not a multisvm manifest (format {MANIFEST_FORMAT} "
                               f"version {MANIFEST_VERSION} with SHA-256 digests of {JSON_NAME} and "
                               f"every array)")
    return manifest


def _check_model_fields(path, document):
    """The unfitted estimator of the document's parameters, after checking the parameters, the
    fitted scalars and the model arrays' declared shapes and dtypes (step 3)."""
    scheme, json_path = document["scheme"], path / JSON_NAME
    estimator = _estimator_of(path, scheme, document["params"])
    _check_fitted(json_path, scheme, document["fitted"])
    try:
        expected = expected_arrays(scheme, estimator.get_params(), document["arrays"],
                                   document["fitted"]["n_features_in"])
    except ValueError as exc:
        raise ModelFormatError(f"{json_path}: {one_line(exc)}") from None
    for name, (kind, shape) in expected.items():
        spec = document["arrays"][name]
        dtype = np.dtype(spec["dtype"])  # parsed and checked in read_headers
        exact = isinstance(kind, np.dtype)
        if tuple(spec["shape"]) != shape or (dtype != kind if exact else dtype.kind not in kind):
            want = kind.str if exact else f"dtype kind {'|'.join(kind)}"
            raise ModelFormatError(f"{json_path}: array {name!r} is {spec['dtype']} {spec['shape']}; "
                                   f"a {scheme} model needs {want} {list(shape)}")
    return estimator


def _estimator_of(path, scheme, params):
    """An unfitted ``scheme`` estimator with exactly its parameters, checked by the estimator."""
    try:
        cls = REGISTRY[scheme].estimator
        known = set(cls().get_params())
        params = {**cls._saved_defaults(), **params}  # options newer than the model: their old value
        if set(params) != known:
            unknown, missing = sorted(set(params) - known), sorted(known - set(params))
            raise ValueError(f"parameters {short(unknown)} are unknown, {missing} are missing")
        estimator = cls(**params)
        estimator._check_scheme_params()
        estimator._settings()
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{path}: inconsistent {scheme} model ({one_line(exc)})") from None
    return estimator


def _check_fitted(json_path, scheme, fitted):
    """The fitted scalars: exactly the scheme's keys; n_features_in an integer >= 1, fit times
    finite numbers >= 0, other counts integers >= 0."""
    keys = FITTED_KEYS + tuple(REGISTRY[scheme].estimator._fitted_keys)
    if not set(keys) <= set(fitted) <= set(keys + OPTIONAL_FITTED_KEYS):
        raise ModelFormatError(f"{json_path}: 'fitted' must hold exactly {', '.join(keys)} "
                               f"(and optionally {', '.join(OPTIONAL_FITTED_KEYS)})")
    for key in fitted:
        value, low = fitted[key], 1 if key == "n_features_in" else 0
        if key in ("smo_iterations", "max_train_memory") and value is None:  # not recorded
            continue
        is_time = key in ("fit_cpu_time", "fit_wall_time")
        if not (is_number(value) if is_time else is_int(value)) or value < low:
            kind = f"a finite number >= {low}" if is_time else f"an integer >= {low}"
            raise ModelFormatError(f"{json_path}: fitted {key} must be {kind}, got {short(value)}")


def _rebuild(path, document, estimator, arrays):
    """Fit ``estimator`` (checked parameters) with the document's state and checked arrays (step 5)."""
    scheme = document["scheme"]
    try:
        classes = arrays["classes"]
        if classes.dtype.kind == "f" and not np.isfinite(classes).all():
            raise ValueError("classes must be finite")
        if len(classes) < 2 or not np.array_equal(np.unique(classes), classes):
            raise ValueError("classes must be at least two distinct labels in sorted order")
        kernel = estimator._settings().kernel
        estimator._restore_common(document["fitted"], classes)
        if "feature_names" in arrays:
            estimator.feature_names_in_ = arrays["feature_names"].astype(object)
        estimator._set_state(document["fitted"], arrays, kernel)
        estimator._set_figures()
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ArithmeticError) as exc:
        raise ModelFormatError(f"{path}: inconsistent {scheme} model ({one_line(exc)})") from None
    return estimator
