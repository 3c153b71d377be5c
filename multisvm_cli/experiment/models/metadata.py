"""A model written by ``multisvm train``: its metadata written and checked in one place.

A trained model is a saved model (:mod:`multisvm_cli.persist`) whose extra arrays hold the fitted
scaler's state (``extra.scaler_<key>``), and for a model trained on documents the fitted text
pipeline's arrays (``extra.text_*``: vocabulary, idf; :class:`multisvm_cli.data.TextPipeline`,
whose settings are the metadata's ``text``), for a model trained on a csv table with text or
missing cells (or dropped columns) its fitted column encoding (the metadata's ``encoding``:
``data.fitted_columns.FittedColumns``), and whose metadata records what ``evaluate`` needs to
rebuild exactly the inputs the model was trained on: :func:`training_metadata` writes it,
:func:`check_training_metadata` reads it back.  Both take the kernel parameter names from
``kernels.KERNEL_PARAMS`` and the selected point's parameters from ``GridPoint.params``, so that
what the writer writes (a Gaussian by ``sigma`` or by ``gamma``, ...) is what the reader accepts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ... import __version__, data
from ...data import formats
from ...data.local.files import TEST_PATH
from ...estimators.registry import REGISTRY
from ...estimators.options import check_C
from ...estimators.kernels import KERNEL_NAMES, KERNEL_PARAMS, Kernel
from ...base.numeric import is_int, is_number
from ...base.errors import one_line
from ...persist import (ARRAYS_NAME, HEX64, JSON_NAME, ModelFormatError, load_model, save_model,
                       scheme_of, short)
from ...data.scaling import METHODS, Scaler
from ..config.forms import OWN_KINDS, SPLIT_FORMS as CONFIG_SPLITS, VALIDATION_FORMS
from ..run.provenance import now_iso

SCALER_PREFIX = "scaler_"  # the scaler's state, under extra.scaler_<key>
TEXT_PREFIX = "text_"  # a text model's vocabulary and idf, under extra.text_<name>
# The split and validation sections as the config resolves them (..config.forms: each method's
# own keys, and what each holds, OWN_KINDS; a method with keys also has a seed).  A model trained
# on every row of a k-fold split records the k-fold split, one trained on a draws split's first
# draw records the draws split; ``all`` is every row.
SPLIT_FORMS = {"standard": {}, "all": {}, **CONFIG_SPLITS}
KINDS = {"share": ("a number in (0, 1)", lambda n: is_number(n) and 0 < n < 1),
         "folds": ("an integer >= 2", lambda n: is_int(n) and n >= 2),
         "count": ("an integer >= 1", lambda n: is_int(n) and n >= 1)}  # OWN_KINDS' checks
LOCAL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


@dataclass
class TrainedModel:
    """What :func:`load_trained_model` returns: the estimator, the checked training metadata
    (:func:`check_training_metadata`), the fitted scaler, the remaining extra arrays and, for
    a model trained on documents, its fitted text pipeline (``data.TextPipeline``; else
    None), for one trained on a csv table that needed one, its fitted column encoding
    (``data.fitted_columns.FittedColumns``; else None: plain numeric columns)."""

    estimator: object
    metadata: dict
    scaler: object
    extra_arrays: dict = field(default_factory=dict)
    text: object = None
    columns: object = None


# ---------------------------------------------------------------------------------------------
# Writing

def training_metadata(config_name, plan, point, validation_error, dataset, estimator) -> dict:
    """The metadata of ``estimator`` (a fitted scheme) trained by ``config_name``'s ``plan`` on
    ``dataset`` (a ``data.Dataset``) at the selected grid ``point`` (a ``GridPoint``) with its
    ``validation_error``; see :func:`check_training_metadata` for its fields."""
    meta = {
        "multisvm_version": __version__, "created": now_iso(), "config": config_name,
        "scheme": scheme_of(estimator), "dataset": dataset.name,
        "checksums": dict(dataset.checksums), "split": plan.split.as_dict(),
        "validation": plan.validation.as_dict(), "scaling": plan.scaling,
        "kernel": point.kernel_label(), "params": point.params(),
        "validation_error": float(validation_error),
        "classes": [c.item() if hasattr(c, "item") else c for c in estimator.classes_],
    }
    if plan.local is not None:  # where to read it again, and each file's SHA-256 and size
        meta["local"] = {"entry": plan.local.entry(), **dataset.provenance}
    return meta


def save_trained_model(folder, estimator, scaler, metadata, overwrite=False, text=None,
                       columns=None):
    """Save ``estimator`` with its :func:`training_metadata` and ``scaler``'s state as arrays
    (and, trained on documents, the fitted ``text`` pipeline: its record as metadata ``text``,
    its arrays as ``extra.text_*``; trained on a csv table that needed one, its fitted
    ``columns`` encoding, as metadata ``encoding``); an existing model folder is replaced only
    with ``overwrite``."""
    arrays = {SCALER_PREFIX + k: np.asarray(v) for k, v in scaler.get_state().items()}
    if columns is not None:
        metadata = {**metadata, "encoding": columns.record()}
    if text is not None:
        record, text_arrays = text.record()
        metadata = {**metadata, "text": record}
        arrays.update(text_arrays)  # their names start with TEXT_PREFIX
    save_model(folder, estimator, metadata=metadata, extra_arrays=arrays, overwrite=overwrite)


# ---------------------------------------------------------------------------------------------
# Reading

def load_trained_model(path) -> TrainedModel:
    """A model written by ``multisvm train``: ``persist.load_model``, then
    :func:`check_training_metadata`, the metadata checked against the estimator (scheme,
    classes, selected parameters) and :func:`training_scaler`; ModelFormatError if any is off."""
    loaded = load_model(path)
    metadata = check_training_metadata(loaded.metadata, path)
    estimator = loaded.estimator
    if REGISTRY[metadata["scheme"]].estimator is not type(estimator):
        raise ModelFormatError(f"{path}: metadata says scheme {metadata['scheme']!r}, the model is a "
                               f"{type(estimator).__name__}")
    if metadata["classes"] != np.asarray(estimator.classes_).tolist():
        raise ModelFormatError(f"{path}: metadata classes {short(metadata['classes'])} differ from the "
                               f"model's classes {short(np.asarray(estimator.classes_).tolist())}")
    own = estimator.get_params()
    changed = sorted(k for k, v in metadata["params"].items() if own[k] != v)
    if changed:
        raise ModelFormatError(f"{path}: metadata params {', '.join(changed)} differ from the model's")
    scaler = training_scaler(loaded, metadata, path)
    text = training_text(loaded, metadata, path)
    extras = {k: v for k, v in loaded.extra_arrays.items()
              if not k.startswith((SCALER_PREFIX, TEXT_PREFIX))}
    return TrainedModel(estimator, metadata, scaler, extras, text,
                        training_columns(estimator, metadata, path))


def training_columns(estimator, metadata, path):
    """The fitted column encoding of a model trained on a csv table that needed one (metadata
    ``encoding``), checked by ``FittedColumns.from_record``, against the model's features and
    against its local csv entry (the header's feature names, the ``features:`` policies);
    None for a model without one (plain numeric columns, as every model saved before it was
    kept). ModelFormatError (one line) if anything is off."""
    from ...data.columns import ColumnOptions
    from ...data.errors import DatasetError
    from ...data.fitted_columns import FittedColumns

    if "encoding" not in metadata:
        return None
    local = metadata.get("local", {})
    try:
        if local.get("entry", {}).get("format") != "csv":
            raise ValueError("only a model trained on a local csv file keeps one")
        columns = FittedColumns.from_record(metadata["encoding"])
        options = ColumnOptions.from_mapping(local["entry"].get("features", {}))
        if (columns.missing, columns.unseen) != (options.missing, options.unseen):
            raise ValueError(f"its policies (missing: {columns.missing}, unseen: "
                             f"{columns.unseen}) are not local.entry.features'")
        if list(columns.names) != local.get("columns", list(columns.names)):
            raise ValueError("its column names are not local.columns")
    except (ValueError, TypeError, DatasetError) as exc:
        raise ModelFormatError(f"{path}: bad column encoding in {JSON_NAME} ({one_line(exc)}); "
                               "train the model again") from None
    if columns.width != estimator.n_features_in_:
        raise ModelFormatError(f"{path}: the column encoding makes {columns.width} features, "
                               f"the model takes {estimator.n_features_in_}; train the model "
                               "again")
    return columns


def training_text(loaded, metadata, path):
    """The fitted text pipeline saved beside a model trained on documents (metadata ``text``,
    arrays ``extra.text_*``), checked by ``TextPipeline.from_record`` and against the model's
    features; None for a model of feature vectors (which holds no ``extra.text_*`` array).
    ModelFormatError (one line) if anything is off."""
    arrays = {k: v for k, v in loaded.extra_arrays.items() if k.startswith(TEXT_PREFIX)}
    if "text" not in metadata:
        if arrays:
            raise ModelFormatError(f"{path}: {ARRAYS_NAME} holds a vocabulary "
                                   f"({', '.join(sorted(arrays))}) but {JSON_NAME} no text "
                                   "settings; train the model again")
        return None
    try:
        text = data.TextPipeline.from_record(metadata["text"], arrays)
    except ValueError as exc:
        raise ModelFormatError(f"{path}: bad text pipeline ({one_line(exc)}); train the model "
                               "again") from None
    if text.vocabulary_size != loaded.estimator.n_features_in_:
        raise ModelFormatError(f"{path}: the vocabulary has {text.vocabulary_size} terms, the "
                               f"model takes {loaded.estimator.n_features_in_} features")
    return text


def training_scaler(loaded, metadata, path):
    """The fitted scaler saved beside a trained model (``extra.scaler_*``), checked by
    ``Scaler.from_state`` and against the estimator's n_features; ModelFormatError if bad."""
    state = {k[len(SCALER_PREFIX):]: v for k, v in loaded.extra_arrays.items() if k.startswith(SCALER_PREFIX)}
    try:
        scaler = Scaler.from_state(metadata["scaling"], state)
    except ValueError as exc:
        raise ModelFormatError(f"{path}: bad scaler state in {ARRAYS_NAME} ({one_line(exc)})") from None
    if scaler.n_features_in_ != loaded.estimator.n_features_in_:
        raise ModelFormatError(f"{path}: the scaler is for {scaler.n_features_in_} features, the model "
                               f"for {loaded.estimator.n_features_in_}")
    return scaler


def check_training_metadata(metadata, path):
    """The metadata :func:`training_metadata` writes, checked field by field; returns a new dict
    of exactly these fields (anything else is dropped).  ModelFormatError naming the field if
    one is missing or wrong:

    multisvm_version, created, config, kernel: non-empty strings; scheme: a scheme name;
    dataset: a registered dataset name; checksums: {file name: 64 lower-case hex digits};
    split: {method: standard | all} or {method: holdout, test_fraction in (0, 1), seed} or
    {method: kfold, k >= 2, seed}; validation: {method: given} or {method: holdout,
    train_fraction in (0, 1), seed} or {method: kfold, k >= 2, seed}; scaling: one of
    ``scaling.METHODS``; params: the selected grid point (:func:`_grid_params`);
    validation_error in [0, 1]; classes: a list of at least two distinct labels (numbers or
    strings).  A model trained on local data files also has ``local`` (see
    :func:`_local_metadata`), and its dataset is a folder-safe name; one trained on documents
    has ``text`` (checked with its arrays by :func:`training_text`), one trained on a csv
    table that needed it ``encoding`` (checked by :func:`training_columns`).
    """
    where = f"{path}: {JSON_NAME} metadata"
    if not isinstance(metadata, dict):
        raise ModelFormatError(f"{where} must be a JSON object")

    def get(key):
        if key not in metadata:
            raise ModelFormatError(f"{where} lacks {key!r}; not a model written by `multisvm train`")
        return metadata[key]

    def fail(key, expected):
        raise ModelFormatError(f"{where}: {key} must be {expected}, got {short(metadata.get(key))}")

    checked = {}
    for key in ("multisvm_version", "created", "config", "kernel"):
        if not isinstance(get(key), str) or not get(key).strip():
            fail(key, "a non-empty string")
        checked[key] = get(key)
    checked["scheme"] = _choice(get("scheme"), tuple(REGISTRY)) or fail("scheme", f"one of {', '.join(REGISTRY)}")
    checked.update(_dataset_fields(metadata, get, fail, where))
    checksums = get("checksums")
    if not (isinstance(checksums, dict) and all(isinstance(f, str) and f and isinstance(d, str)
                                                and _hex64(d) for f, d in checksums.items())):
        fail("checksums", "an object {file name: SHA-256 as 64 lower-case hex digits}")
    checked["checksums"] = dict(checksums)
    checked["split"] = _section(get("split"), SPLIT_FORMS, "split", where)
    checked["validation"] = _section(get("validation"), VALIDATION_FORMS, "validation", where)
    checked["scaling"] = _choice(get("scaling"), METHODS) or fail("scaling", f"one of {', '.join(METHODS)}")
    checked["params"] = _grid_params(get("params"), where)
    error = get("validation_error")
    if not is_number(error) or not 0 <= error <= 1:
        fail("validation_error", "a number in [0, 1]")
    checked["validation_error"] = float(error)
    classes = get("classes")
    if not (isinstance(classes, list) and len(classes) >= 2
            and (all(isinstance(c, str) for c in classes) or all(is_number(c) for c in classes))
            and len(set(classes)) == len(classes)):
        fail("classes", "a list of at least two distinct labels, all numbers or all strings")
    checked["classes"] = list(classes)
    for key in ("text", "encoding"):
        if key in metadata:
            checked[key] = metadata[key]
    return checked


def _dataset_fields(metadata, get, fail, where) -> dict:
    """``dataset`` (a registered name, or for a model trained on local files a folder-safe name
    beside its checked ``local`` section), as :func:`check_training_metadata` checks them."""
    if "local" not in metadata:
        names = tuple(data.names())
        return {"dataset": _choice(get("dataset"), names)
                or fail("dataset", f"one of {', '.join(names)}")}
    local = _local_metadata(metadata["local"], where)
    name = get("dataset")
    if not (isinstance(name, str) and LOCAL_NAME.fullmatch(name)):
        fail("dataset", "a folder-safe dataset name")
    return {"local": local, "dataset": name}


def _hex64(value):
    """Whether ``value`` is a SHA-256 written as 64 lower-case hex digits."""
    return isinstance(value, str) and HEX64.fullmatch(value) is not None


def _local_metadata(value, where):
    """A local dataset's record: ``entry`` (its config entry: ``path``, ``format`` and the read
    options, as ``data.LocalSpec.from_entry`` reads it) and ``files`` ({name: {part, path,
    sha256, size}}; a text folder's: {folder: {part, tree_sha256}}), plus how it was read and,
    for a csv file with a header, ``columns`` (the feature columns' names); ModelFormatError
    naming what is wrong."""
    entry = value.get("entry") if isinstance(value, dict) else None
    files = value.get("files") if isinstance(value, dict) else None
    known = formats.config_names()
    if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
            and entry.get("format") in known
            and isinstance(entry.get(TEST_PATH, ""), str) and _read_options_hold(entry)):
        raise ModelFormatError(f"{where}: local.entry must be a local dataset entry (path, "
                               f"format: {', '.join(known)}, read options), got {short(entry)}")
    folder = hasattr(formats.module(entry["format"]), "read_dataset")
    if not (isinstance(files, dict) and files and all(
            isinstance(f, dict) and (_hex64(f.get("tree_sha256")) if folder else
                                     isinstance(f.get("path"), str) and is_int(f.get("size"))
                                     and _hex64(f.get("sha256"))) for f in files.values())):
        shape = "{folder: {part, tree_sha256}}" if folder else "{name: {part, path, sha256, size}}"
        raise ModelFormatError(f"{where}: local.files must be {shape}, got {short(files)}")
    names = value.get("columns", [""])
    if not (isinstance(names, list) and names and all(isinstance(n, str) for n in names)):
        raise ModelFormatError(f"{where}: local.columns must be the csv header's feature names "
                               f"(a list of strings), got {short(names)}")
    return dict(value)


def _read_options_hold(entry) -> bool:
    """Whether each read option of a local entry (any local format's, :func:`data.formats.
    option_owners`) holds what its declaration expects, or is its recorded default."""
    for key, owners in formats.option_owners().items():
        option = formats.options(owners[0])[key]
        if key in entry and not (option.holds(entry[key]) or entry[key] == option.default):
            return False
    return True


def _choice(value, allowed):
    """``value`` if it is one of the ``allowed`` strings, else None."""
    return value if isinstance(value, str) and value in allowed else None


def _section(value, forms, key, where):
    """A {method: ..., own keys..., seed} mapping as the config writes it (see config.py)."""
    expected = " | ".join(forms)
    if not isinstance(value, dict) or _choice(value.get("method"), tuple(forms)) is None:
        raise ModelFormatError(f"{where}: {key} must be an object whose method is {expected}, "
                               f"got {short(value)}")
    own = forms[value["method"]]
    keys = {"method", *own, *(("seed",) if own else ())}
    if set(value) != keys:
        raise ModelFormatError(f"{where}: {key} with method {value['method']} must hold exactly "
                               f"{', '.join(sorted(keys))}")
    for name in own:
        number = value[name]
        expected, holds = KINDS[OWN_KINDS[name]]
        if not holds(number):
            raise ModelFormatError(f"{where}: {key}.{name} must be {expected}, "
                                   f"got {short(number)}")
    if own and not (is_int(value["seed"]) and value["seed"] >= 0):
        raise ModelFormatError(f"{where}: {key}.seed must be an integer >= 0, got {short(value['seed'])}")
    return dict(value)


def _grid_params(params, where):
    """The selected grid point's estimator parameters as ``GridPoint.params`` writes them:
    kernel, C and some of that kernel's own parameters (``kernels.KERNEL_PARAMS``), C checked
    as the estimators check it and the kernel's by ``Kernel.from_params``."""
    kernel = params.get("kernel") if isinstance(params, dict) else None
    if _choice(kernel, KERNEL_NAMES) is None:
        raise ModelFormatError(f"{where}: params must be an object whose kernel is "
                               f"{' | '.join(KERNEL_NAMES)}, got {short(params)}")
    own = KERNEL_PARAMS[kernel]
    if "C" not in params or not set(params) <= {"kernel", "C", *own}:
        optional = f" and optionally {', '.join(own)}" if own else ""
        raise ModelFormatError(f"{where}: params of a {kernel} kernel must hold kernel, C{optional}, "
                               f"got {short(params)}")
    try:
        check_C(params["C"])
        Kernel.from_params(**{k: v for k, v in params.items() if k != "C"})
    except ValueError as exc:
        raise ModelFormatError(f"{where}: params.{one_line(exc)}") from None
    return dict(params)
