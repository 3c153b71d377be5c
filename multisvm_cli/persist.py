"""Save and load fitted models as JSON + ``.npz`` arrays: versioned, sealed, checked, never pickled.

A saved model is a folder holding

- ``model.json``: ``format_version`` (:data:`FORMAT_VERSION`), ``scheme`` (a key of
  ``SCHEMES``), ``params`` (``get_params()``), ``fitted`` (the scheme's scalar state: fit times,
  n_features_in, ...), ``arrays`` (name -> shape and dtype of every array in model.npz) and
  ``metadata`` (anything JSON the caller passes, e.g. dataset, checksums, selection);
- ``model.npz``: the arrays, one uncompressed ``.npy`` member each (``np.savez``'s layout:
  ``classes``, the support-vector pool and dual coefficients, the scheme's structure, and the
  caller's ``extra_arrays`` under the prefix ``extra.``);
- ``manifest.json``, written last: the SHA-256 of model.json's bytes and of every array's
  ``.npy`` member (header and data).

Saving writes the three files to a staging folder next to the target, gives them the user's
umask (0o666 / 0o777 & ~umask), then swaps the folder into place while holding an exclusive
``flock`` on the parent folder (no lock file is left behind): concurrent saves to one folder all
succeed and the last one wins, a reader (who holds the shared lock) never sees half a model, and
no staging or old folder stays behind.

Loading refuses anything off with :class:`ModelFormatError` (one line), checking in this order,
so that nothing is allocated beyond the size of the files on disk and nothing is used unchecked:

1. model.json (at most :data:`MAX_JSON_BYTES`, nesting at most :data:`MAX_DEPTH`, no NaN, no
   duplicate keys): format, version, scheme, and the form of every field;
2. model.npz's members against model.json, from their ``.npy`` headers alone (read from the zip
   member without its data): names, shapes, dtypes (never objects); every member stored
   uncompressed and holding exactly the bytes its header declares;
3. the parameters (the estimator's own checks), the fitted scalars, and every model array's
   shape and dtype against the exact sizes the scheme implies given n_features, the number of
   classes, the support-vector pool and the machine count (:func:`expected_arrays`);
4. manifest.json: model.json's hash, then each array's data, read and hashed (an edit made after
   saving, even one that keeps the files consistent, is refused here);
5. the values, by the scheme's ``_set_state`` (ranges, permutations, structure).

:func:`check_training_metadata` validates the metadata ``multisvm train`` writes, and
:func:`load_trained_model` loads a trained model with its checked metadata and scaler.
"""

import fcntl
import glob
import hashlib
import json
import math
import os
import re
import shutil
import struct
import tempfile
import uuid
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .errors import MultisvmError
from .storage import file_mode, folder_mode
from .estimators import SCHEMES

FORMAT_VERSION = 2
FORMAT_NAME = "multisvm-model"
MANIFEST_FORMAT = "multisvm-manifest"
JSON_NAME = "model.json"
ARRAYS_NAME = "model.npz"
MANIFEST_NAME = "manifest.json"
EXTRA_PREFIX = "extra."
SCALER_PREFIX = "scaler_"  # the scaler's state, under extra.scaler_<key> (as `multisvm train` saves it)
REQUIRED_KEYS = ("format", "format_version", "scheme", "params", "fitted", "arrays", "metadata")
FITTED_KEYS = ("n_features_in", "fit_cpu_time", "fit_wall_time", "smo_iterations")
SCHEME_FITTED_KEYS = {"hier": ("n_level1_machines",)}
MAX_JSON_BYTES = 16 << 20
MAX_MANIFEST_BYTES = 1 << 20
MAX_DEPTH = 32
ARRAY_KINDS = "biufU"  # bool, integers, floats, unicode: never objects, bytes or records
FLOAT, INT = np.dtype(np.float64), np.dtype(np.int64)
NB_ARRAYS = {"gaussian": ("theta", "var", "class_prior", "class_count", "classes"),
             "multinomial": ("feature_log_prob", "class_log_prior", "class_count", "feature_count",
                             "classes")}
NB_MATRICES = ("theta", "var", "feature_log_prob", "feature_count")  # (n_rows, n_features)
HEX64 = re.compile(r"[0-9a-f]{64}")
LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip member's local file header (APPNOTE 4.3.7)
LOCAL_SIGNATURE = b"PK\x03\x04"


class ModelFormatError(MultisvmError, ValueError):
    """A saved model that is missing, malformed, from an unknown format version, edited after
    saving, or whose arrays disagree with its JSON (one-line message)."""


class ModelPathError(MultisvmError, ValueError):
    """A folder :func:`save_model` may not write: an existing model without ``overwrite``, or
    something that is not a saved model (one-line message)."""


@dataclass
class LoadedModel:
    """What :func:`load_model` returns: the fitted estimator, the caller's metadata and arrays."""

    estimator: object
    metadata: dict = field(default_factory=dict)
    extra_arrays: dict = field(default_factory=dict)


@dataclass
class TrainedModel:
    """What :func:`load_trained_model` returns: the estimator, the checked training metadata
    (:func:`check_training_metadata`), the fitted scaler and the remaining extra arrays."""

    estimator: object
    metadata: dict
    scaler: object
    extra_arrays: dict = field(default_factory=dict)


def scheme_of(estimator):
    """The ``SCHEMES`` name of an estimator's class; ValueError for anything else."""
    for name, cls in SCHEMES.items():
        if type(estimator) is cls:
            return name
    raise ValueError(f"cannot save a {type(estimator).__name__}: not one of the multisvm schemes")


# ---------------------------------------------------------------------------------------------
# Saving

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
    never replaced.  Safe under concurrency: see the module docstring.
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
    text = json.dumps(document, indent=1, allow_nan=False)
    _write_folder(Path(path), text.encode("utf-8"), arrays, overwrite)


def _is_model(path):
    return (path / JSON_NAME).is_file() or (path / MANIFEST_NAME).is_file()


def _check_target(path, overwrite):
    """ModelPathError unless ``path`` is absent, an empty folder, or a saved model we may replace."""
    if not os.path.lexists(path):
        return
    if path.is_dir() and _is_model(path):
        if not overwrite:
            raise ModelPathError(f"{path} exists; pass --force to replace it")
    elif not path.is_dir() or any(path.iterdir()):
        raise ModelPathError(f"{path} exists and is not a saved model; not overwriting it")


def _write_folder(path, json_bytes, arrays, overwrite):
    """Write model.npz, model.json and (last) manifest.json to a staging folder, then swap it in."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Fail before any work; under a shared lock, so that another save's swap (rename the old
    # folder away, rename the new one in) is never seen half done. Checked again at the swap.
    with _folder_lock(path.parent, exclusive=False):
        _check_target(path, overwrite)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-", dir=path.parent))
    try:
        digests = _write_arrays(staging / ARRAYS_NAME, arrays)
        (staging / JSON_NAME).write_bytes(json_bytes)
        manifest = {"format": MANIFEST_FORMAT, "format_version": 1,
                    "files": {JSON_NAME: hashlib.sha256(json_bytes).hexdigest()}, "arrays": digests}
        partial = staging / f".{MANIFEST_NAME}.tmp"
        partial.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.replace(partial, staging / MANIFEST_NAME)
        _follow_umask(staging)
        with _folder_lock(path.parent, exclusive=True):
            _check_target(path, overwrite)
            old = None
            if path.is_dir() and _is_model(path):
                old = path.parent / f".{path.name}.old-{uuid.uuid4().hex}"
                os.rename(path, old)
            try:
                os.replace(staging, path)  # also replaces an empty folder
            except OSError:
                if old is not None:
                    os.rename(old, path)
                raise
            # under the lock every old folder of this name is ours or left by a crashed save
            for stale in path.parent.glob(f".{glob.escape(path.name)}.old-*"):
                shutil.rmtree(stale, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class _Hashing:
    """A file wrapper that hashes (SHA-256) and counts every byte written or read through it."""

    def __init__(self, stream):
        self.stream, self.hash, self.count = stream, hashlib.sha256(), 0

    def write(self, data):
        self.hash.update(data)
        self.count += len(data)
        return self.stream.write(data)

    def read(self, size=-1):
        data = self.stream.read(size)
        self.hash.update(data)
        self.count += len(data)
        return data


def _write_arrays(npz_path, arrays):
    """Write ``arrays`` as np.savez does (one stored .npy member each); return name -> SHA-256."""
    digests = {}
    with zipfile.ZipFile(npz_path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                sink = _Hashing(member)
                np.lib.format.write_array(sink, array, allow_pickle=False)
            digests[name] = sink.hash.hexdigest()
    return digests


def _follow_umask(folder):
    """Give the staging folder and its files the modes the user's umask asks for (mkdtemp makes
    them 0700)."""
    for child in folder.iterdir():
        os.chmod(child, file_mode())
    os.chmod(folder, folder_mode())


@contextmanager
def _folder_lock(folder, exclusive):
    """``flock`` on ``folder`` itself: exclusive for a save's swap, shared for a load.  A load
    from a folder it cannot open goes on unlocked."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        if exclusive:
            raise
        fd = None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


# ---------------------------------------------------------------------------------------------
# Loading

def load_model(path):
    """Read a model written by :func:`save_model`; ModelFormatError if anything is off (see the
    module docstring for what is checked, and in which order)."""
    path = Path(path)
    with _folder_lock(path.parent, exclusive=False):
        json_bytes, document = _read_document(path)
        specs = document["arrays"]
        with _open_archive(path / ARRAYS_NAME) as archive:
            headers = _read_headers(archive, specs)
            estimator = _check_model_fields(path, document)
            manifest = _read_manifest(path)
            if hashlib.sha256(json_bytes).hexdigest() != manifest["files"][JSON_NAME]:
                raise ModelFormatError(f"{path / JSON_NAME}: changed after saving (its SHA-256 is not "
                                       f"the one in {MANIFEST_NAME}); save or train the model again")
            if set(manifest["arrays"]) != set(specs):
                raise ModelFormatError(f"{path / MANIFEST_NAME}: lists other arrays than {JSON_NAME}")
            arrays = {name: _read_data(archive, headers[name], manifest["arrays"][name])
                      for name in specs}
    extras = {k[len(EXTRA_PREFIX):]: v for k, v in arrays.items() if k.startswith(EXTRA_PREFIX)}
    model_arrays = {k: v for k, v in arrays.items() if not k.startswith(EXTRA_PREFIX)}
    _rebuild(path, document, estimator, model_arrays)
    return LoadedModel(estimator, document["metadata"], extras)


def _refusing_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def _unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate key {next(k for k in keys if keys.count(k) > 1)!r}")
    return dict(pairs)


def _depth(value):
    """How deeply lists and objects nest in ``value`` (1 for a flat list or object)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                break
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _load_json(json_path, limit):
    """(bytes, parsed JSON) of a small JSON file; ModelFormatError (one line) if it is not."""
    try:
        with open(json_path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            raw = stream.read(min(size, limit) + 1)  # read(n) reserves n bytes first
    except OSError as exc:
        raise ModelFormatError(f"{json_path}: unreadable ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise ModelFormatError(f"{json_path}: larger than {limit >> 20} MiB; not a saved model's")
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_refusing_constant,
                              object_pairs_hook=_unique_keys)
    except RecursionError:
        raise ModelFormatError(f"{json_path}: not valid JSON (nested too deeply)") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ModelFormatError(f"{json_path}: not valid JSON ({' '.join(str(exc).split())})") from None
    if _depth(document) > MAX_DEPTH:
        raise ModelFormatError(f"{json_path}: nested deeper than {MAX_DEPTH} levels; not a saved model's")
    return raw, document


def _read_document(path):
    """model.json's bytes and its checked top-level form (step 1)."""
    json_path = path / JSON_NAME
    if not json_path.is_file():
        raise ModelFormatError(f"{path}: not a saved model ({JSON_NAME} is missing)")
    raw, document = _load_json(json_path, MAX_JSON_BYTES)
    if not isinstance(document, dict) or set(document) != set(REQUIRED_KEYS):
        raise ModelFormatError(f"{json_path}: needs the keys {', '.join(REQUIRED_KEYS)} and no others")
    version = document["format_version"]
    if document["format"] != FORMAT_NAME or version != FORMAT_VERSION or isinstance(version, bool):
        raise ModelFormatError(f"{json_path}: unknown model format {_short(document['format'])} version "
                               f"{_short(version)}; this multisvm reads version {FORMAT_VERSION} "
                               f"(train the model again)")
    if not isinstance(document["scheme"], str) or document["scheme"] not in SCHEMES:
        raise ModelFormatError(f"{json_path}: unknown scheme {_short(document['scheme'])}")
    for key in ("params", "fitted", "arrays", "metadata"):
        if not isinstance(document[key], dict):
            raise ModelFormatError(f"{json_path}: {key!r} must be a JSON object")
    for name, spec in document["arrays"].items():
        if not (isinstance(spec, dict) and set(spec) == {"shape", "dtype"} and isinstance(spec["shape"], list)
                and all(_is_int(n) and n >= 0 for n in spec["shape"]) and isinstance(spec["dtype"], str)):
            raise ModelFormatError(f"{json_path}: array {_short(name)} needs a shape list of counts and a "
                                   f"dtype string")
        if not name or name == EXTRA_PREFIX:
            raise ModelFormatError(f"{json_path}: an array has an empty name")
    return raw, document


def _is_int(value):
    return isinstance(value, Integral) and not isinstance(value, bool)


def _is_number(value):
    """A finite JSON number (ints are always finite; math.isfinite would overflow on huge ones)."""
    return isinstance(value, Real) and not isinstance(value, bool) and (
        isinstance(value, Integral) or math.isfinite(value))


@dataclass
class _Archive:
    """model.npz open for reading: its zip directory and the file itself (members are read
    straight from the file, as they are stored uncompressed)."""

    path: Path
    zip: zipfile.ZipFile
    stream: object
    size: int


@contextmanager
def _open_archive(npz_path):
    """model.npz as an open :class:`_Archive`; ModelFormatError if it is not a zip archive, or if
    reading it fails."""
    try:
        stream = open(npz_path, "rb")
    except FileNotFoundError:
        raise ModelFormatError(f"{npz_path}: missing; the model folder is incomplete") from None
    except OSError as exc:
        raise ModelFormatError(f"{npz_path}: unreadable model arrays ({exc.strerror or exc})") from None
    with stream:
        try:
            with zipfile.ZipFile(stream) as directory:
                yield _Archive(npz_path, directory, stream, os.fstat(stream.fileno()).st_size)
        except ModelFormatError:
            raise
        except (OSError, zipfile.BadZipFile, EOFError, ValueError, struct.error) as exc:
            raise ModelFormatError(f"{npz_path}: unreadable model arrays "
                                   f"({_one_line(exc)})") from None


@dataclass
class _Header:
    """One array's member of model.npz, as its .npy header describes it."""

    name: str
    start: int  # file offset of the .npy member (its header, then its data)
    header_size: int
    shape: tuple
    dtype: np.dtype
    fortran: bool


def _read_headers(archive, specs):
    """name -> _Header for every array, checked against model.json without reading data (step 2)."""
    members = archive.zip.namelist()
    names = [m[:-len(".npy")] if m.endswith(".npy") else m for m in members]
    if (len(set(members)) != len(members) or set(names) != set(specs)
            or not all(m.endswith(".npy") for m in members)):
        missing, extra = sorted(set(specs) - set(names)), sorted(set(names) - set(specs))
        raise ModelFormatError(f"{archive.path}: arrays disagree with {JSON_NAME} "
                               f"(missing {missing}, unexpected {extra})")
    headers = {}
    for name in specs:
        header = _read_header(archive, archive.zip.getinfo(name + ".npy"), name)
        spec = specs[name]
        if list(header.shape) != spec["shape"] or header.dtype.str != spec["dtype"]:
            raise ModelFormatError(f"{archive.path}: array {name!r} is {header.dtype.str} {list(header.shape)}, "
                                   f"{JSON_NAME} says {spec['dtype']} {spec['shape']}")
        headers[name] = header
    return headers


def _member_start(archive, info):
    """File offset of a stored member's bytes, from its zip local header (which must name it)."""
    stream = archive.stream
    stream.seek(info.header_offset)
    fixed = stream.read(LOCAL_HEADER.size)
    if len(fixed) != LOCAL_HEADER.size or fixed[:4] != LOCAL_SIGNATURE:
        raise zipfile.BadZipFile(f"bad local header of {info.filename!r}")
    fields = LOCAL_HEADER.unpack(fixed)
    name_size, extra_size = fields[-2], fields[-1]
    if stream.read(name_size) != info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"):
        raise zipfile.BadZipFile(f"local and central names of {info.filename!r} differ")
    return info.header_offset + LOCAL_HEADER.size + name_size + extra_size


def _read_header(archive, info, name):
    """The .npy header of one member; the member must be stored uncompressed and hold exactly
    header + shape x itemsize bytes, inside the file, so reading it allocates no more than that."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise ModelFormatError(f"{archive.path}: array {name!r} is compressed; model.npz members are stored "
                               f"uncompressed (a compressed member could expand without bound)")
    start = _member_start(archive, info)
    if info.file_size != info.compress_size or start + info.file_size > archive.size:
        raise ModelFormatError(f"{archive.path}: array {name!r} declares more bytes than the file holds")
    archive.stream.seek(start)
    member = _Hashing(archive.stream)
    try:
        version = np.lib.format.read_magic(member)
        reader = {(1, 0): np.lib.format.read_array_header_1_0,
                  (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if reader is None:
            raise ValueError(f".npy version {version} is not one numpy's savez writes")
        shape, fortran, dtype = reader(member)
    except (ValueError, TypeError, SyntaxError, KeyError) as exc:
        raise ModelFormatError(f"{archive.path}: unreadable model arrays (array {name!r}: "
                               f"{_one_line(exc)})") from None
    if dtype.hasobject or dtype.kind not in ARRAY_KINDS or dtype.itemsize == 0 or dtype.fields:
        raise ModelFormatError(f"{archive.path}: unreadable model arrays (array {name!r} has dtype "
                               f"{dtype.str}; object arrays are never unpickled and only numbers or "
                               f"text are stored)")
    nbytes = math.prod(shape) * dtype.itemsize
    if member.count + nbytes != info.file_size:
        raise ModelFormatError(f"{archive.path}: array {name!r} holds {info.file_size - member.count} "
                               f"bytes, its header declares {nbytes}")
    return _Header(name, start, member.count, tuple(shape), dtype, bool(fortran))


def _read_data(archive, header, digest):
    """One array, its data read straight into place and hashed with its header against the
    manifest (step 4)."""
    stream = archive.stream
    stream.seek(header.start)
    hashed = hashlib.sha256(stream.read(header.header_size))
    buffer = np.empty(math.prod(header.shape) * header.dtype.itemsize, dtype=np.uint8)
    if stream.readinto(buffer) != len(buffer):
        raise EOFError(f"array {header.name!r} ends early")
    hashed.update(buffer)
    if hashed.hexdigest() != digest:
        raise ModelFormatError(f"{archive.path}: array {header.name!r} changed after saving (its "
                               f"SHA-256 is not the one in {MANIFEST_NAME}); save or train the model again")
    return buffer.view(header.dtype).reshape(header.shape, order="F" if header.fortran else "C")


def _read_manifest(path):
    """manifest.json, checked in form: {format, format_version, files: {model.json: sha256},
    arrays: {name: sha256}}."""
    manifest_path = path / MANIFEST_NAME
    if not manifest_path.is_file():
        raise ModelFormatError(f"{path}: {MANIFEST_NAME} is missing (saved by an older multisvm, or an "
                               f"incomplete copy); train the model again")
    _, manifest = _load_json(manifest_path, MAX_MANIFEST_BYTES)
    ok = (isinstance(manifest, dict) and set(manifest) == {"format", "format_version", "files", "arrays"}
          and manifest["format"] == MANIFEST_FORMAT and manifest["format_version"] == 1
          and isinstance(manifest["files"], dict) and set(manifest["files"]) == {JSON_NAME}
          and isinstance(manifest["arrays"], dict)
          and all(isinstance(d, str) and HEX64.fullmatch(d)
                  for d in [*manifest["files"].values(), *manifest["arrays"].values()]))
    if not ok:
        raise ModelFormatError(f"{manifest_path}: not a multisvm manifest (format {MANIFEST_FORMAT} "
                               f"version 1 with SHA-256 digests of {JSON_NAME} and every array)")
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
        raise ModelFormatError(f"{json_path}: {_one_line(exc)}") from None
    for name, (kind, shape) in expected.items():
        spec = document["arrays"][name]
        dtype = np.dtype(spec["dtype"])  # parsed and checked in _read_headers
        exact = isinstance(kind, np.dtype)
        if tuple(spec["shape"]) != shape or (dtype != kind if exact else dtype.kind not in kind):
            want = kind.str if exact else f"dtype kind {'|'.join(kind)}"
            raise ModelFormatError(f"{json_path}: array {name!r} is {spec['dtype']} {spec['shape']}; "
                                   f"a {scheme} model needs {want} {list(shape)}")
    return estimator


def _estimator_of(path, scheme, params):
    """An unfitted ``scheme`` estimator with exactly its parameters, checked by the estimator."""
    try:
        cls = SCHEMES[scheme]
        known = set(cls().get_params())
        if set(params) != known:
            unknown, missing = sorted(set(params) - known), sorted(known - set(params))
            raise ValueError(f"parameters {_short(unknown)} are unknown, {missing} are missing")
        estimator = cls(**params)
        estimator._check_scheme_params()
        estimator._settings()
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{path}: inconsistent {scheme} model ({_one_line(exc)})") from None
    return estimator


def _check_fitted(json_path, scheme, fitted):
    """The fitted scalars: exactly the scheme's keys; n_features_in an integer >= 1, fit times
    finite numbers >= 0, other counts integers >= 0."""
    keys = FITTED_KEYS + SCHEME_FITTED_KEYS.get(scheme, ())
    if set(fitted) != set(keys):
        raise ModelFormatError(f"{json_path}: 'fitted' must hold exactly {', '.join(keys)}")
    for key in keys:
        value, low = fitted[key], 1 if key == "n_features_in" else 0
        if key == "smo_iterations" and value is None:  # not recorded (an unknown count)
            continue
        is_time = key in ("fit_cpu_time", "fit_wall_time")
        if not (_is_number(value) if is_time else _is_int(value)) or value < low:
            kind = f"a finite number >= {low}" if is_time else f"an integer >= {low}"
            raise ModelFormatError(f"{json_path}: fitted {key} must be {kind}, got {_short(value)}")


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def expected_arrays(scheme, params, specs, n_features):
    """name -> (dtype, shape) every model array (not ``extra.*``) of a ``scheme`` model must have.

    ``dtype`` is an exact ``np.dtype``, or a string of allowed dtype kinds (classes: numbers or text;
    feature names: text).  Shapes follow from n_features (d), the number of classes N (the
    ``classes`` array), the support-vector pool P (``svm_vectors``' rows), the machine count M
    (``svm_intercept``) and the dual coefficients nnz (``svm_coef_data``), with M within the
    scheme's bound (N for 1-v-r, N(N-1)/2 pairwise, N-1 UDT, at most N^2 GraphSVM, 2N Hier) and
    nnz <= P M; ValueError naming the first array that cannot fit.
    """
    def declared(name):
        if name not in specs:
            raise ValueError(f"a {scheme} model needs the array {name!r}")
        return specs[name]["shape"]

    def length(name, low, high):
        shape = declared(name)
        if len(shape) != 1 or not low <= shape[0] <= high:
            raise ValueError(f"array {name!r} must be 1-d with {low}..{high} entries, got shape {shape}")
        return shape[0]

    model_names = {name for name in specs if not name.startswith(EXTRA_PREFIX)}
    n_classes = length("classes", 2, math.inf)
    expected = {"classes": (ARRAY_KINDS, (n_classes,))}
    if "feature_names" in model_names:
        expected["feature_names"] = ("U", (n_features,))
    if scheme != "nb":
        n_pool, vectors = _expected_vectors(specs, declared, length, n_features)
        n_machines = length("svm_intercept", *SCHEMES[scheme]._machine_bounds(n_classes))
        nnz = length("svm_coef_data", 0, n_pool * n_machines)
        expected.update(vectors)
        expected.update({"svm_coef_data": (FLOAT, (nnz,)),
                         "svm_coef_indices": (INT, (nnz,)), "svm_coef_indptr": (INT, (n_machines + 1,)),
                         "svm_intercept": (FLOAT, (n_machines,)), "svm_groups": (INT, (n_pool,))})
    if scheme == "udt":
        expected["level_order"] = (INT, (n_classes,))
    if scheme in ("graph", "hier"):
        expected["confusion"] = (FLOAT, (n_classes, n_classes))
        expected["machine_ptr"] = (INT, (length("machine_ptr", 2, n_classes + 1),))
    if scheme == "graph":
        expected["group_ptr"] = (INT, (n_classes + 1,))
        expected["group_classes"] = (INT, (length("group_classes", n_classes, n_classes ** 2),))
    if scheme == "hier":
        expected["clusters"] = (INT, (n_classes,))
    if scheme in ("nb", "graph") or (scheme == "hier" and params["level1"] == "nb"):
        n_rows = n_classes if scheme != "hier" else length("nb_classes", 2, n_classes)
        for name in NB_ARRAYS[params["nb"]]:
            shape = (n_rows, n_features) if name in NB_MATRICES else (n_rows,)
            expected["nb_" + name] = (FLOAT if name != "classes" else INT, shape)
    if model_names != set(expected):
        missing, extra = sorted(set(expected) - model_names), sorted(model_names - set(expected))
        raise ValueError(f"a {scheme} model has other arrays (missing {missing}, unexpected {extra})")
    return expected


def _expected_vectors(specs, declared, length, n_features):
    """(pool size P, name -> (dtype, shape)) of the support-vector pool: ``svm_vectors`` (P, d)
    when dense, or, when the model was trained on sparse input, its CSR arrays
    ``svm_vectors_data``/``_indices`` (nnz <= P d values), ``_indptr`` (P + 1) and ``_shape`` (2)."""
    if "svm_vectors" in specs or "svm_vectors_shape" not in specs:
        shape = declared("svm_vectors")
        if len(shape) != 2:
            raise ValueError(f"array 'svm_vectors' must be 2-d, got shape {shape}")
        return shape[0], {"svm_vectors": (FLOAT, (shape[0], n_features))}
    n_pool = length("svm_vectors_indptr", 1, math.inf) - 1
    nnz = length("svm_vectors_data", 0, n_pool * n_features)
    return n_pool, {"svm_vectors_data": (FLOAT, (nnz,)), "svm_vectors_indices": (INT, (nnz,)),
                    "svm_vectors_indptr": (INT, (n_pool + 1,)), "svm_vectors_shape": (INT, (2,))}


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
        raise ModelFormatError(f"{path}: inconsistent {scheme} model ({_one_line(exc)})") from None
    return estimator


# ---------------------------------------------------------------------------------------------
# Models written by `multisvm train`

SPLIT_FORMS = {"standard": {}, "all": {}, "holdout": {"test_fraction": "share"}, "kfold": {"k": "folds"}}
VALIDATION_FORMS = {"holdout": {"train_fraction": "share"}, "given": {}, "kfold": {"k": "folds"}}
KERNEL_PARAMS = {"kernel": ("gaussian", "polynomial", "linear")}


def check_training_metadata(metadata, path):
    """The metadata ``multisvm train`` writes, checked field by field; returns a new dict of
    exactly these fields (anything else is dropped).  ModelFormatError naming the field if one is
    missing or wrong:

    multisvm_version, created, config, kernel: non-empty strings; scheme: a scheme name;
    dataset: a registered dataset name; checksums: {file name: 64 lower-case hex digits};
    split: {method: standard | all} or {method: holdout, test_fraction in (0, 1), seed} or
    {method: kfold, k >= 2, seed}; validation: {method: given} or {method: holdout,
    train_fraction in (0, 1), seed} or {method: kfold, k >= 2, seed}; scaling: one of
    ``scaling.METHODS``; params: {kernel, C > 0, sigma > 0, degree >= 1, homogeneous} (the
    selected grid point, some keys optional); validation_error in [0, 1]; classes: a list of at
    least two distinct labels (numbers or strings).  A model trained on local data files also has
    ``local`` (see :func:`_local_metadata`), and its dataset is a folder-safe name.
    """
    from . import data
    from .scaling import METHODS

    where = f"{path}: {JSON_NAME} metadata"
    if not isinstance(metadata, dict):
        raise ModelFormatError(f"{where} must be a JSON object")

    def get(key):
        if key not in metadata:
            raise ModelFormatError(f"{where} lacks {key!r}; not a model written by `multisvm train`")
        return metadata[key]

    def fail(key, expected):
        raise ModelFormatError(f"{where}: {key} must be {expected}, got {_short(metadata.get(key))}")

    checked = {}
    for key in ("multisvm_version", "created", "config", "kernel"):
        if not isinstance(get(key), str) or not get(key).strip():
            fail(key, "a non-empty string")
        checked[key] = get(key)
    checked["scheme"] = _choice(get("scheme"), tuple(SCHEMES)) or fail("scheme", f"one of {', '.join(SCHEMES)}")
    names = tuple(data.names())
    if "local" in metadata:
        checked["local"] = _local_metadata(metadata["local"], where)
        checked["dataset"] = (get("dataset") if isinstance(get("dataset"), str)
                              and LOCAL_NAME.fullmatch(get("dataset"))
                              else fail("dataset", "a folder-safe dataset name"))
    else:
        checked["dataset"] = _choice(get("dataset"), names) or fail("dataset", f"one of {', '.join(names)}")
    checksums = get("checksums")
    if not (isinstance(checksums, dict) and all(isinstance(f, str) and f and isinstance(d, str)
                                                and HEX64.fullmatch(d) for f, d in checksums.items())):
        fail("checksums", "an object {file name: SHA-256 as 64 lower-case hex digits}")
    checked["checksums"] = dict(checksums)
    checked["split"] = _section(get("split"), SPLIT_FORMS, "split", where)
    checked["validation"] = _section(get("validation"), VALIDATION_FORMS, "validation", where)
    checked["scaling"] = _choice(get("scaling"), METHODS) or fail("scaling", f"one of {', '.join(METHODS)}")
    checked["params"] = _grid_params(get("params"), where)
    error = get("validation_error")
    if not _is_number(error) or not 0 <= error <= 1:
        fail("validation_error", "a number in [0, 1]")
    checked["validation_error"] = float(error)
    classes = get("classes")
    if not (isinstance(classes, list) and len(classes) >= 2
            and (all(isinstance(c, str) for c in classes) or all(_is_number(c) for c in classes))
            and len(set(classes)) == len(classes)):
        fail("classes", "a list of at least two distinct labels, all numbers or all strings")
    checked["classes"] = list(classes)
    return checked


LOCAL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _local_metadata(value, where):
    """A local dataset's record: ``entry`` (its config entry: ``path``, ``format`` and the read
    options, as ``data.LocalSpec.from_entry`` reads it) and ``files`` ({name: {part, path,
    sha256, size}}), plus how it was read; ModelFormatError naming what is wrong."""
    from .data.local import FORMATS

    entry = value.get("entry") if isinstance(value, dict) else None
    files = value.get("files") if isinstance(value, dict) else None
    if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
            and entry.get("format") in FORMATS
            and isinstance(entry.get("test_path", ""), str)
            and isinstance(entry.get("label", 0), (str, int))
            and isinstance(entry.get("header", False), (bool, type(None)))
            and isinstance(entry.get("zero_based", False), bool)):
        raise ModelFormatError(f"{where}: local.entry must be a local dataset entry (path, "
                               f"format: {', '.join(FORMATS)}, read options), got {_short(entry)}")
    if not (isinstance(files, dict) and files and all(
            isinstance(f, dict) and isinstance(f.get("path"), str) and _is_int(f.get("size"))
            and isinstance(f.get("sha256"), str) and HEX64.fullmatch(f["sha256"])
            for f in files.values())):
        raise ModelFormatError(f"{where}: local.files must be {{name: {{part, path, sha256, "
                               f"size}}}}, got {_short(files)}")
    return dict(value)


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _choice(value, allowed):
    """``value`` if it is one of the ``allowed`` strings, else None."""
    return value if isinstance(value, str) and value in allowed else None


def _section(value, forms, key, where):
    """A {method: ..., own keys..., seed} mapping as the config writes it (see config.py)."""
    expected = " | ".join(forms)
    if not isinstance(value, dict) or _choice(value.get("method"), tuple(forms)) is None:
        raise ModelFormatError(f"{where}: {key} must be an object whose method is {expected}, "
                               f"got {_short(value)}")
    own = forms[value["method"]]
    keys = {"method", *own, *(("seed",) if own else ())}
    if set(value) != keys:
        raise ModelFormatError(f"{where}: {key} with method {value['method']} must hold exactly "
                               f"{', '.join(sorted(keys))}")
    for name, kind in own.items():
        number = value[name]
        ok = (_is_number(number) and 0 < number < 1) if kind == "share" else (_is_int(number) and number >= 2)
        if not ok:
            raise ModelFormatError(f"{where}: {key}.{name} must be "
                                   f"{'a number in (0, 1)' if kind == 'share' else 'an integer >= 2'}, "
                                   f"got {_short(number)}")
    if own and not (_is_int(value["seed"]) and value["seed"] >= 0):
        raise ModelFormatError(f"{where}: {key}.seed must be an integer >= 0, got {_short(value['seed'])}")
    return dict(value)


def _grid_params(params, where):
    """The selected grid point's estimator parameters: kernel, C, and the kernel's own."""
    checks = {"kernel": (lambda v: _choice(v, KERNEL_PARAMS["kernel"]) is not None, "gaussian | polynomial | linear"),
              "C": (lambda v: _is_number(v) and v > 0, "a finite number > 0"),
              "sigma": (lambda v: _is_number(v) and v > 0, "a finite number > 0"),
              "degree": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
              "homogeneous": (lambda v: isinstance(v, bool), "true or false")}
    if not isinstance(params, dict) or not {"kernel", "C"} <= set(params) <= set(checks):
        raise ModelFormatError(f"{where}: params must be an object with kernel, C and optionally "
                               f"sigma, degree, homogeneous, got {_short(params)}")
    for key, value in params.items():
        valid, expected = checks[key]
        if not valid(value):
            raise ModelFormatError(f"{where}: params.{key} must be {expected}, got {_short(value)}")
    return dict(params)


def training_scaler(loaded, metadata, path):
    """The fitted scaler saved beside a trained model (``extra.scaler_*``), checked by
    ``Scaler.from_state`` and against the estimator's n_features; ModelFormatError if bad."""
    from .scaling import Scaler

    state = {k[len(SCALER_PREFIX):]: v for k, v in loaded.extra_arrays.items() if k.startswith(SCALER_PREFIX)}
    try:
        scaler = Scaler.from_state(metadata["scaling"], state)
    except ValueError as exc:
        raise ModelFormatError(f"{path}: bad scaler state in {ARRAYS_NAME} ({_one_line(exc)})") from None
    if scaler.n_features_in_ != loaded.estimator.n_features_in_:
        raise ModelFormatError(f"{path}: the scaler is for {scaler.n_features_in_} features, the model "
                               f"for {loaded.estimator.n_features_in_}")
    return scaler


def load_trained_model(path):
    """A model written by ``multisvm train``: :func:`load_model`, then
    :func:`check_training_metadata`, the metadata checked against the estimator (scheme,
    classes, selected parameters) and :func:`training_scaler`; ModelFormatError if any is off."""
    loaded = load_model(path)
    metadata = check_training_metadata(loaded.metadata, path)
    estimator = loaded.estimator
    if SCHEMES[metadata["scheme"]] is not type(estimator):
        raise ModelFormatError(f"{path}: metadata says scheme {metadata['scheme']!r}, the model is a "
                               f"{type(estimator).__name__}")
    if metadata["classes"] != np.asarray(estimator.classes_).tolist():
        raise ModelFormatError(f"{path}: metadata classes {_short(metadata['classes'])} differ from the "
                               f"model's classes {_short(np.asarray(estimator.classes_).tolist())}")
    own = estimator.get_params()
    changed = sorted(k for k, v in metadata["params"].items() if own[k] != v)
    if changed:
        raise ModelFormatError(f"{path}: metadata params {', '.join(changed)} differ from the model's")
    scaler = training_scaler(loaded, metadata, path)
    extras = {k: v for k, v in loaded.extra_arrays.items() if not k.startswith(SCALER_PREFIX)}
    return TrainedModel(estimator, metadata, scaler, extras)
