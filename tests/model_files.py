"""Helpers for tests that alter saved model folders by hand.

``edit_json`` and ``edit_arrays`` change model.json or model.npz; with ``seal=True`` they then
rewrite manifest.json to match, as someone would who edits a model consistently (the manifest is
a check against accidental and partial edits, not a signature), so that the test reaches the
validation behind the manifest.
"""

import hashlib
import json
import zipfile

import numpy as np


def reseal(path):
    """Rewrite ``path/manifest.json`` with the SHA-256 of model.json and of every .npy member."""
    with zipfile.ZipFile(path / "model.npz") as archive:
        arrays = {info.filename.removesuffix(".npy"): hashlib.sha256(archive.read(info)).hexdigest()
                  for info in archive.infolist()}
    manifest = {"format": "multisvm-manifest", "format_version": 1,
                "files": {"model.json": hashlib.sha256((path / "model.json").read_bytes()).hexdigest()},
                "arrays": arrays}
    (path / "manifest.json").write_text(json.dumps(manifest))


def edit_json(path, change, seal=True):
    """Apply ``change`` to model.json's parsed document (in place) and write it back."""
    document = json.loads((path / "model.json").read_text())
    change(document)
    (path / "model.json").write_text(json.dumps(document))
    if seal:
        reseal(path)


def edit_arrays(path, change, seal=True):
    """Apply ``change`` to model.npz's arrays (a dict, in place) and write them back with np.savez."""
    with np.load(path / "model.npz") as npz:
        arrays = dict(npz)
    change(arrays)
    np.savez(path / "model.npz", **arrays)
    if seal:
        reseal(path)


def sync_specs(path, seal=True):
    """Make model.json's array shapes and dtypes those of model.npz (a consistent edit)."""
    with np.load(path / "model.npz") as npz:
        specs = {name: {"shape": list(npz[name].shape), "dtype": npz[name].dtype.str} for name in npz.files}
    edit_json(path, lambda d: d.update(arrays=specs), seal=seal)


def save_repeatedly(source, target, writer, count):
    """Worker process: load the model at ``source`` and save it ``count`` times to ``target``;
    returns the errors (as text) of the saves that failed."""
    from multisvm_cli.persist import load_model, save_model

    estimator = load_model(source).estimator
    errors = []
    for save in range(count):
        try:
            save_model(target, estimator, metadata={"writer": writer, "save": save})
        except Exception as exc:  # noqa: BLE001 - the test reports every kind of failure
            errors.append(f"{type(exc).__name__}: {exc}")
    return errors


def load_repeatedly(target, count):
    """Worker process: load the model at ``target`` ``count`` times while others save it;
    returns the errors (as text) of the loads that failed."""
    from multisvm_cli.persist import load_model

    errors = []
    for _ in range(count):
        try:
            load_model(target)
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{type(exc).__name__}: {exc}")
    return errors
