"""Saved models: ``train`` (select on the config's protocol, fit on the whole training part,
save) and ``evaluate`` (load, predict a dataset part, or a user's labelled file, measure).

A model folder (written and read by :mod:`.trained_model`) holds the fitted estimator, the
scaler's state and the metadata ``evaluate`` needs to rebuild exactly the inputs the model was
trained on: dataset, split, scaling, the raw files' checksums, the selected kernel and C and
its validation error. A model trained on documents (a text card, or a folder of one subfolder
per class) also keeps its fitted text pipeline (``data.TextPipeline``: the feature settings, the
vocabulary and idf fitted on the training documents), with which ``evaluate`` and ``predict``
featurize documents exactly as the training documents were. A model trained on a csv table
with text or missing cells (or dropped columns) keeps the column encoding fitted on its
training part (``data.fitted_columns.FittedColumns``: categories, fill values, the missing and
unseen policies), with which ``evaluate`` and ``predict`` encode rows exactly as its training
rows were.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...base.errors import MultisvmError
from ...estimators.registry import own_name
from ..config.checks import did_you_mean
from ..config.forms import Split
from ..run.compile_phase import compile_phase
from ..run.progress import progress_bar
from ..protocol import Stopwatch, fit_selected
from ..run.reproduce import point_cache
from ..run.settings import Settings, workers
from ..splits import part_arrays
from .metadata import load_trained_model, save_trained_model, training_metadata


@dataclass
class Trained:
    """What ``train`` made: where it is saved, the estimator and the selected grid row."""

    folder: Path
    scheme: str
    dataset: str
    estimator: object
    chosen: dict


def default_model_folder(config_name, dataset, scheme) -> Path:
    """``models/<config>-<dataset>-<scheme>``."""
    return Path("models") / f"{config_name}-{dataset}-{scheme}"


def train(config, scheme, dataset=None, output=None, settings: Settings = Settings(),
          force=False) -> Trained:
    """Select ``scheme``'s kernel and C on the config's validation protocol for ``dataset``
    (default: the config's first), fit it on the whole training part and save it to ``output``.

    An existing model folder is refused (before any work) unless ``force``.
    """
    if own_name(scheme) in config.schemes:
        raise MultisvmError(f"{config.path}: {scheme} is a user's classifier row; it cannot be "
                            f"saved as a model (multisvm writes no pickles): run it with "
                            f"'multisvm reproduce-table'")
    if scheme not in config.schemes:
        raise MultisvmError(f"{config.path}: scheme {scheme!r} is not in its schemes "
                            f"({', '.join(config.schemes)}){did_you_mean(scheme, config.schemes)}")
    plan = config.plan(dataset) if dataset else config.datasets[0]
    output = Path(output) if output else default_model_folder(config.name, plan.name, scheme)
    if output.exists() and not force:
        raise MultisvmError(f"{output} already exists; choose another folder with -o, or pass "
                            f"--force to replace it")
    with workers(settings) as jobs:
        compile_phase([scheme], settings.quiet, settings.progress)  # before the grid's clock
        estimator, scaler, chosen, dataset, vocabulary, columns = fit_selected(
            config.study(), plan, scheme, point_cache(config.name, settings), jobs, settings,
            progress=lambda total: progress_bar(
                total, f"{config.name}/{plan.name}/{scheme}: grid points", settings.quiet))
    metadata = training_metadata(config.name, plan, chosen["point"], chosen["validation_error"],
                                 dataset, estimator)
    text = None
    if vocabulary is not None:
        from ... import data

        text = data.TextPipeline(plan.features, *vocabulary, data.dataset_encoding(dataset))
    save_trained_model(output, estimator, scaler, metadata, overwrite=force, text=text,
                       columns=columns)
    return Trained(output, scheme, dataset.name, estimator, chosen)


def _load_own_data(meta, part, own_part, mirror, data_home):
    """The model's own dataset: its local files again (as recorded), else the registry's."""
    from ... import data

    if "local" in meta:
        return data.load_local(data.LocalSpec.from_entry(meta["dataset"],
                                                         meta["local"]["entry"]))
    return data.load(meta["dataset"], parts=[part] if own_part else None, mirror=mirror,
                     data_home=data_home)


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


def _other_kind(name, text_data, trained_on) -> str:
    """Why ``--dataset name`` (documents when ``text_data``) cannot be given to a model
    trained on ``trained_on``'s other kind of data."""
    if text_data:
        return (f"--dataset {name}: a text dataset (documents, not feature vectors); the model "
                f"was trained on {trained_on}'s features: evaluate it on {trained_on} or data "
                "with the same features")
    return (f"--dataset {name}: feature vectors, but the model was trained on {trained_on}'s "
            "documents: evaluate it on a text dataset")


def default_part(split) -> str:
    """The part ``evaluate`` measures when none is named: ``test`` where the model's split
    holds rows out (a standard or holdout split, a draws split's first draw), else ``all``
    (k-fold and ``all`` splits fit the saved model on every row, so no row was held out)."""
    return "test" if split.method in ("standard", "holdout", "draws") else "all"


def evaluate(model_dir, dataset=None, part=None, confusion=False, mirror=None,
             data_home=None, input_format=None) -> Evaluation:
    """Load a saved model, predict a part of ``dataset`` (default: the model's own, with the
    split it was trained under; part default: :func:`default_part`) and measure error, kernel
    evaluations, time and size. ``dataset`` may also be the path of a labelled csv, svmlight
    or npz file (:func:`is_file_dataset`): its every point is predicted (part ``file``), read
    and checked against the model's columns as ``predict`` reads a file (its format
    ``input_format``, else told from its extension or content; ValueError for
    ``input_format`` without such a file).

    Warns when the dataset's raw files differ from those the model was trained on, and when
    the default part is every row (the model was fitted on them: a training error).
    """
    from sklearn.metrics import confusion_matrix

    model = load_trained_model(model_dir)  # every field checked: see trained_model
    meta = model.metadata
    if is_file_dataset(dataset):
        X, y, part = _file_points(model, model_dir, dataset, part, input_format)
        checksums = {}
    elif input_format is not None:
        raise ValueError(f"--input-format is for a file given as --dataset, and "
                         f"{dataset or meta['dataset']} is not one: drop --input-format")
    else:
        X, y, part, checksums = _dataset_points(model, dataset, part, mirror, data_home)
        if model.columns is not None and (dataset or meta["dataset"]) == meta["dataset"]:
            X = model.columns.encoded(X)[0]  # its own table, read as it was: encoded alike
    name = dataset or meta["dataset"]
    trained_on = getattr(model.scaler, "n_features_in_", None)
    if trained_on is not None and X.shape[1] != trained_on:
        raise ValueError(f"{name} has {X.shape[1]} features, the model was trained on "
                         f"{trained_on} ({meta['dataset']}); evaluate it on {meta['dataset']} or "
                         "data with the same features")
    X = model.scaler.transform(X)
    watch = Stopwatch()
    predicted = model.estimator.predict(X)
    seconds = watch.wall
    changed = [f for f, digest in checksums.items()
               if meta["checksums"].get(f, digest) != digest]
    if name == meta["dataset"] and changed:
        warnings.warn(f"the {name} files differ from those the model was trained on "
                      f"({', '.join(changed)}): the model was trained on other data",
                      UserWarning, stacklevel=2)
    classes = np.asarray(model.estimator.classes_)
    matrix = confusion_matrix(y.astype(str), predicted.astype(str),  # a file's labels are
                              labels=classes.astype(str)) if confusion else None  # by name
    return Evaluation(meta, name, part, y, predicted, seconds,
                      model.estimator.kernel_evaluations(X), model.estimator.n_parameters_,
                      classes, matrix)


def is_file_dataset(dataset) -> bool:
    """Whether ``evaluate --dataset`` names a user's file rather than a registry dataset: not
    a registry name, and an existing file or a name with a local format's extension
    (``.csv``, ``.svm``, ``.npz``, ...)."""
    from ... import data
    from ...data import formats

    return dataset is not None and dataset not in data.names() and (
        Path(dataset).is_file() or formats.infer_format(dataset) is not None)


def _file_points(model, model_dir, path, part, fmt):
    """(X, y, ``file``) of a user's labelled file (format ``fmt``, else told), read as
    ``predict`` reads it (:func:`.predict.model_columns`), with a warning naming labels the
    model was not trained on (each an error); ValueError (one line) for a text model,
    ``--part``, or a file without labels."""
    from ... import data
    from .predict import model_columns, scalable

    if model.text is not None:
        raise ValueError(f"--dataset {path}: a file of feature vectors, but {model_dir} was "
                         f"trained on documents: evaluate it on a text dataset")
    if part is not None:
        raise ValueError(f"--part {part}: a file is evaluated whole; drop --part")
    X, y = data.read_points(path, model_columns(model, model_dir), fmt)
    X = scalable(X, model.scaler)  # an svmlight file, for a model trained on dense data
    if y is None:
        raise ValueError(f"--dataset {path}: no labels (a csv label column, svmlight labels or"
                         f" an npz y) to score the predictions against; add them, or use "
                         f"multisvm predict")
    unseen = ~np.isin(y.astype(str), np.asarray(model.estimator.classes_).astype(str))
    if unseen.any():
        warnings.warn(f"{int(unseen.sum())} rows of {path} have labels the model was not "
                      f"trained on ({', '.join(sorted(set(y[unseen].astype(str))))[:200]}); "
                      f"each is counted as an error", UserWarning, stacklevel=3)
    return X, y, "file"


def _dataset_points(model, dataset, part, mirror, data_home):
    """(X, y, part, raw files' checksums) of a registry dataset's part (default: the model's
    own dataset, with the split it was trained under; part: :func:`default_part`); documents
    featurized as the model's training documents were."""
    from ... import data

    meta = model.metadata
    name = dataset or meta["dataset"]
    split = Split.of(meta["split"]) if name == meta["dataset"] else Split("standard")
    if part is None:
        part = default_part(split)
        if part == "all":
            warnings.warn(f"the model was trained on every row of {name} ({split.method} "
                          f"split), so evaluating on all of them gives a training error, not a "
                          f"test estimate; name another dataset with --dataset for one",
                          UserWarning, stacklevel=2)
    own_part = split.method == "standard" and part != "all"
    if name == meta["dataset"]:
        loaded = _load_own_data(meta, part, own_part, mirror, data_home)
    else:
        text_data = name in data.names() and data.get_card(name).kind == "text"
        if text_data != (model.text is not None):
            raise ValueError(_other_kind(name, text_data, meta["dataset"]))
        loaded = data.load(name, parts=[part] if own_part else None, mirror=mirror,
                           data_home=data_home)
    X, y = part_arrays(loaded, split, part)
    if model.text is not None:  # documents featurized as the training documents were
        X = model.text.transform(X)
    return X, y, part, loaded.checksums
