"""The datasets of a config: registry names, local data files and the parts each one has."""

from __future__ import annotations

import re
from pathlib import Path

from ...base.numeric import is_count
from ...base.readers import not_regular
from ...data.local.files import TEST_PATH
from .checks import check_choice, check_mapping, joined, show

FILES = ("path", TEST_PATH)  # a local entry's files: the data, and its own test part

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")  # a portable folder name


def _dataset_names(doc, value, path, known, overridable, local_keys):
    """The dataset entries as (name, overrides dict, path) triples; an entry may hold
    ``overridable`` keys (``keys.entry_keys``) and a local file's (``keys.local_keys``)."""
    items = value if isinstance(value, list) else [value]
    if value is None or isinstance(value, list) and not value:
        doc.fail(path, "name at least one dataset; known: " + joined(known))
    entries, allowed = [], local_keys
    for i, item in enumerate(items):
        where = path + (i,) if isinstance(value, list) else path
        overrides = {}
        if isinstance(item, dict):
            overrides = check_mapping(doc, item, where, overridable + allowed)
            if "path" in item:
                entries.append((_local_name(doc, item, where, known), overrides, where))
                continue
            if "name" not in item:
                doc.fail(where, "a dataset mapping needs a name (a registry dataset) or a path "
                                "(a local data file)")
            for key in allowed:
                if key in item:
                    doc.fail(where + (key,), f"{key} is for a local data file: add path")
            item, name_path = item["name"], where + ("name",)
        else:
            name_path = where
        check_choice(doc, item, name_path, known, "dataset")
        entries.append((item, overrides, where))
    names = [name for name, _, _ in entries]
    if len(set(names)) != len(names):
        doc.fail(path, f"a dataset is named twice: {show(names)}")
    return entries


def _local_name(doc, item, where, known):
    """A local dataset's name: as given (default: the file's stem), folder-safe, and not the
    name of a registry or user-card dataset."""
    path = item["path"]
    name = item.get("name", Path(path).stem if isinstance(path, str) else None)
    name_path = where + (("name",) if "name" in item else ("path",))
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        doc.fail(name_path, f"expected a folder-safe dataset name (letters, digits, '.', '_', "
                            f"'-'), got {show(name)}")
    if name in known:
        doc.fail(name_path, f"{name!r} is a registry dataset; give the local data another name")
    return name


def _local_spec(doc, name, entry, where):
    """The data.LocalSpec of a local dataset entry: files exist (relative to the config's
    folder), the format is known or inferred, the read options fit it."""
    from ... import data
    from ...data.errors import DatasetError
    from ...data.formats import config_names, given_or_told
    from ...data.local.files import MEMORY_MB

    if "kind" in entry:
        check_choice(doc, entry["kind"], where + ("kind",), ("numeric", "text"), "kind")
    if _is_text(doc, entry):
        paths = {key: _local_file(doc, entry[key], where + (key,), folder=True)
                 for key in FILES if key in entry}
        return data.LocalSpec(name=name, path=paths["path"], format="text",
                              test_path=paths.get(TEST_PATH))
    paths = {key: _local_file(doc, entry[key], where + (key,)) for key in FILES if key in entry}
    if "format" in entry:
        fmt = check_choice(doc, entry["format"], where + ("format",), config_names(), "format")
    else:
        try:
            fmt = given_or_told(paths["path"], None, "format:")
        except DatasetError as error:
            doc.fail(where + ("path",), str(error))
    options = _read_options(doc, entry, where, fmt)
    memory_mb = entry.get("memory_mb", MEMORY_MB)
    if not is_count(memory_mb, 1):
        doc.fail(where + ("memory_mb",), f"expected a positive number of megabytes, got "
                                         f"{show(memory_mb)}")
    return data.LocalSpec(name=name, path=paths["path"], format=fmt,
                          test_path=paths.get(TEST_PATH), options=options,
                          memory_mb=memory_mb)


def _read_options(doc, entry, where, fmt) -> dict:
    """The read options a local entry gives, each one its format declares
    (:func:`...data.formats.options`) and holding what the declaration expects."""
    from ...data.formats import option_owners, options

    for key, owners in option_owners().items():
        if key in entry and fmt not in owners:
            doc.fail(where + (key,), f"{key} is for {' or '.join(owners)} files, not {fmt}")
    declared = options(fmt)
    for key, option in declared.items():
        if key in entry and not option.holds(entry[key]):
            doc.fail(where + (key,), f"expected {option.expected}, got {show(entry[key])}")
    return {key: entry[key] for key in declared if key in entry}


def _is_text(doc, entry):
    """Whether a local entry is a text folder: ``kind: text``, ``format: text``, or a path
    that is a folder (one subfolder per class)."""
    if entry.get("kind") == "text" or entry.get("format") == "text":
        return True
    path = entry.get("path")
    return isinstance(path, str) and bool(path) and "kind" not in entry \
        and (doc.path.parent / Path(path).expanduser()).is_dir()


def _local_file(doc, value, path, folder=False):
    """An existing file (``folder``: folder), relative to the config's folder; absolute."""
    if not isinstance(value, str) or not value:
        doc.fail(path, f"expected a file path, got {show(value)}")
    try:
        file = (doc.path.parent / Path(value).expanduser()).resolve()
    except (RuntimeError, OSError) as exc:     # a symlink loop
        doc.fail(path, f"file {value} cannot be resolved ({exc})")
    if folder and not file.is_dir():
        doc.fail(path, f"text folder {value} not found (looked for {file}; one subfolder per "
                       f"class, paths are relative to the config's folder)")
    if not folder and file.exists() and not file.is_file():
        doc.fail(path, not_regular(file, "data file"))
    if not folder and not file.is_file():
        doc.fail(path, f"file {value} not found (looked for {file}; paths are relative to the "
                       f"config's folder)")
    return file


def _scaling(doc, value, path, local):
    """The scaling method: ``paper`` (the default) for a registry dataset; for a local file
    ``standard``, or ``maxabs`` for sparse data (no paper scaled it, so ``paper`` is refused)."""
    from ...data.scaling import METHODS

    if local is None:
        return check_choice(doc, "paper" if value is None else value, path, METHODS, "scaling")
    if value is None:
        return "maxabs" if local.sparse else "standard"
    choices = [method for method in METHODS if method != "paper"]
    if value == "paper":
        doc.fail(path, f"'paper' applies to registry datasets only (no paper scaled "
                       f"a local file); allowed: {joined(choices)}")
    return check_choice(doc, value, path, choices, "scaling")


def default_scaling(doc, name, local, text):
    """A dataset's scaling when none is written: none for text (tf-idf rows are l2-normalised
    already), else :func:`_scaling`'s (paper; a local file's standard, or maxabs)."""
    return "none" if text else _scaling(doc, None, ("scaling",), local)


def dataset_scaling(doc, value, path, name, local, text):
    """A dataset's checked scaling (:func:`_scaling`): a text dataset's keeps its sparse matrix
    sparse (none or maxabs), and sparse data takes no centering scaling."""
    from .features import TEXT_SCALINGS

    scaling = _scaling(doc, value, path, local)
    if text and scaling not in TEXT_SCALINGS:
        doc.fail(path, f"{name!r} is text (a sparse matrix): {scaling} scaling would center it "
                       f"and store every zero; use scaling: none (the default) or maxabs")
    if not text:
        _check_sparse_scaling(doc, name, local, scaling, path)
    return scaling


def _max_iter(doc, value, path):
    """``max_iter``: libsvm (upstream LIBSVM's bound), an integer > 0, or none (no bound)."""
    from ...estimators.options import SHARED

    try:
        SHARED["max_iter"].check("max_iter", value)
    except ValueError:
        doc.fail(path, f"expected {SHARED['max_iter'].allowed}, got {show(value)}")
    return "none" if value in (None, -1) else value


def _check_sparse_scaling(doc, name, local, scaling, path):
    """Sparse data (svmlight) cannot take a centering scaling: one line naming maxabs."""
    from ... import data
    from ...data.scaling import check_sparse, resolve

    if local is not None:
        sparse, resolved = local.sparse, scaling
    else:
        card = data.get_card(name)
        sparse = all(src.format == "svmlight" for src in card.sources)
        resolved = resolve(scaling, card)
    if sparse:
        try:
            check_sparse(resolved, f"{name} (svmlight)")
        except ValueError as exc:
            doc.fail(path, str(exc))


def _check_parts(doc, name, split, validation, where, parts=None):
    """The split and validation methods must fit the parts the dataset comes with (``parts``:
    a local dataset's; default: the card's)."""
    from ... import data

    parts = set(parts or data.get_card(name).parts)
    if split.method == "standard" and "test" not in parts:
        doc.fail(where, f"dataset {name!r} has no test part of its own (parts: "
                        f"{joined(sorted(parts))}); use split: {{test_fraction: 0.25}} or "
                        f"{{method: kfold, k: 10}}")
    if validation.method == "given" and ("validation" not in parts
                                         or split.method != "standard"):
        doc.fail(where, f"validation: given needs split: standard and a dataset with a "
                        f"validation part; {name!r} has parts {joined(sorted(parts))}")



RANGE_RATIO = 100  # column ranges differing by more than this run badly unscaled (SMO, kernels)


def unscaled_ranges(plan, dataset) -> str | None:
    """A one-line warning when ``plan`` runs ``dataset`` unscaled (scaling none, or a paper
    scaling of none) while its numeric columns' ranges (max - min over every part, constant
    columns left out) differ by more than :data:`RANGE_RATIO` times; else None.  Dense numeric
    data only (sparse and text data are not checked)."""
    import numpy as np

    from ...data.scaling import resolve

    if resolve(plan.scaling, dataset.card) != "none":
        return None
    blocks = [X for X, _ in dataset.parts.values()]
    if not blocks or any(not isinstance(X, np.ndarray) or X.dtype.kind != "f" or X.ndim != 2
                         for X in blocks):
        return None
    X = np.vstack(blocks)
    ranges = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    used = np.flatnonzero(ranges > 0)
    if len(used) < 2 or ranges[used].max() <= RANGE_RATIO * ranges[used].min():
        return None
    narrow = used[np.argmin(ranges[used])]
    wide = [int(c) for c in used[np.argsort(-ranges[used])]
            if ranges[c] > RANGE_RATIO * ranges[narrow]]
    named = ", ".join(f"{c} ({ranges[c]:.3g})" for c in wide[:5]) + (" ..." if len(wide) > 5 else "")
    return (f"{plan.name} runs unscaled, and its column ranges differ by "
            f"{ranges[wide[0]] / ranges[narrow]:.3g}x: columns {named} against column "
            f"{int(narrow)} ({ranges[narrow]:.3g}) (0-based); SMO may need millions of "
            f"iterations and one column may decide the kernel: set scaling: standard")
