"""Saved models: ``train`` (select on the config's protocol, fit on the whole training part,
save) and ``evaluate`` (load, predict a dataset part, measure).

A model folder (see :mod:`multisvm_cli.persist`) holds the fitted estimator, the scaler's
state (arrays ``scaler_*``) and the metadata below, so that ``evaluate`` can rebuild exactly
the inputs the model was trained on: dataset, split, scaling, the raw files' checksums, the
selected kernel and C and its validation error.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import MultisvmError
from .progress import progress_bar
from .protocol import Stopwatch, fit_selected
from .provenance import now_iso
from .runs import point_cache
from .settings import Settings, workers
from .splits import part_arrays


@dataclass
class Trained:
    """What ``train`` made: where it is saved, the estimator and the selected grid row."""

    folder: Path
    scheme: str
    dataset: str
    estimator: object
    chosen: dict


def default_model_folder(config, dataset, scheme) -> Path:
    """``models/<config>-<dataset>-<scheme>``."""
    return Path("models") / f"{config.name}-{dataset}-{scheme}"


def train(config, scheme, dataset=None, output=None, settings: Settings = Settings(),
          force=False) -> Trained:
    """Select ``scheme``'s kernel and C on the config's validation protocol for ``dataset``
    (default: the config's first), fit it on the whole training part and save it to ``output``.

    An existing model folder is refused (before any work) unless ``force``.
    """
    if scheme not in config.schemes:
        raise MultisvmError(f"{config.path}: scheme {scheme!r} is not in its schemes "
                            f"({', '.join(config.schemes)})")
    plan = config.plan(dataset) if dataset else config.datasets[0]
    output = Path(output) if output else default_model_folder(config, plan.name, scheme)
    if output.exists() and not force:
        raise MultisvmError(f"{output} already exists; choose another folder with -o, or pass "
                            f"--force to replace it")
    with workers(settings) as jobs:
        estimator, scaler, chosen, dataset = fit_selected(
            config, plan, scheme, point_cache(config, settings), n_jobs=jobs.grid,
            fit_jobs=jobs.fit, mirror=settings.mirror, data_home=settings.data_home,
            quiet=settings.quiet,
            progress=lambda total: progress_bar(
                total, f"{config.name}/{plan.name}/{scheme}: grid points", settings.quiet))
    _save(output, estimator, scaler, _metadata(config, plan, scheme, chosen, dataset), force)
    return Trained(output, scheme, dataset.name, estimator, chosen)


def _metadata(config, plan, scheme, chosen, dataset) -> dict:
    meta = {
        "multisvm_version": __version__, "created": now_iso(), "config": config.name,
        "scheme": scheme, "dataset": dataset.name, "checksums": dict(dataset.checksums),
        "split": plan.split, "validation": plan.validation, "scaling": plan.scaling,
        "kernel": chosen["kernel"], "params": chosen["point"].params(),
        "validation_error": chosen["validation_error"],
    }
    if plan.local is not None:  # where to read it again, and each file's SHA-256 and size
        meta["local"] = {"entry": plan.local.entry(), **dataset.provenance}
    return meta


def _load_own_data(meta, part, own_part, mirror, data_home):
    """The model's own dataset: its local files again (as recorded), else the registry's."""
    from .. import data

    if "local" in meta:
        spec = data.LocalSpec.from_entry(meta["dataset"], meta["local"]["entry"])
        return data.load_local(spec)
    return data.load(meta["dataset"], parts=[part] if own_part else None, mirror=mirror,
                     data_home=data_home)


def _save(output, estimator, scaler, metadata, force):
    """The estimator, its classes in the metadata and the scaler's state as arrays; an
    existing model folder is replaced only with ``force``."""
    from ..persist import SCALER_PREFIX, save_model

    metadata["classes"] = [c.item() if hasattr(c, "item") else c for c in estimator.classes_]
    arrays = {SCALER_PREFIX + k: np.asarray(v) for k, v in scaler.get_state().items()}
    save_model(output, estimator, metadata=metadata, extra_arrays=arrays, overwrite=force)


@dataclass
class Evaluation:
    """What ``evaluate`` measured on one dataset part."""

    metadata: dict
    dataset: str
    part: str
    y_true: np.ndarray
    y_pred: np.ndarray
    seconds: float
    kernel_evaluations: float
    n_parameters: int
    classes: np.ndarray
    confusion: np.ndarray | None = None


def evaluate(model_dir, dataset=None, part="test", confusion=False, mirror=None,
             data_home=None) -> Evaluation:
    """Load a saved model, predict a part of ``dataset`` (default: the model's own, with the
    split it was trained under) and measure error, kernel evaluations, time and size.

    Warns when the dataset's raw files differ from those the model was trained on.
    """
    from sklearn.metrics import confusion_matrix

    from .. import data
    from ..persist import load_trained_model

    model = load_trained_model(model_dir)  # every field checked: see persist
    meta = model.metadata
    name = dataset or meta["dataset"]
    split = meta["split"] if name == meta["dataset"] else {"method": "standard"}
    own_part = split["method"] == "standard" and part != "all"
    if name == meta["dataset"]:
        loaded = _load_own_data(meta, part, own_part, mirror, data_home)
    else:
        loaded = data.load(name, parts=[part] if own_part else None, mirror=mirror,
                           data_home=data_home)
    X, y = part_arrays(loaded, split, part)
    X = model.scaler.transform(X)
    watch = Stopwatch()
    predicted = model.estimator.predict(X)
    seconds = watch.wall
    changed = [f for f, digest in loaded.checksums.items()
               if meta["checksums"].get(f, digest) != digest]
    if name == meta["dataset"] and changed:
        warnings.warn(f"the {name} files differ from those the model was trained on "
                      f"({', '.join(changed)}): the model was trained on other data",
                      UserWarning, stacklevel=2)
    classes = np.asarray(model.estimator.classes_)
    matrix = confusion_matrix(y, predicted, labels=classes) if confusion else None
    return Evaluation(meta, name, part, y, predicted, seconds,
                      model.estimator.kernel_evaluations(X), model.estimator.n_parameters_,
                      classes, matrix)
