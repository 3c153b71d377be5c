"""``predict``: a saved model's predictions for the points of a user's file.

The file (:func:`multisvm_cli.data.points.read_points`: csv, svmlight or npz) is checked against
the columns the model was trained on (their number, and their names where the model's training
csv had a header), then scaled with the scaler saved beside the model (fitted on its training
part: :mod:`.trained_model`) and predicted, so each point gets exactly the inputs the model's
own test points got.  The predictions are a csv table (:meth:`Predictions.csv_text`): ``row``
(the point's 0-based position among the file's data rows), ``label`` (the predicted class) and,
with ``proba``, one column ``p_<class>`` per class where the scheme gives class probabilities
(``predict_proba``). Where the file labels its points (a csv file's label column: the model's
training label column, or ``label``; an svmlight line's label; an npz file's ``y``), the
predictions are scored against them (:meth:`Predictions.score_text`, :meth:`Predictions.confusion`).

A model trained on documents (it keeps its fitted text pipeline, ``data.TextPipeline``)
predicts a folder of documents instead: one file per document at its top level, or one
subfolder per class. Each document is read as the training documents were (the same text
encoding), featurized with the saved settings, vocabulary and idf (a word the training
documents lacked is no feature; a document without a known word is a row of zeros, which the
model predicts as it predicts any point), scaled and predicted; its ``row`` is its path
relative to the folder. With class subfolders, :meth:`Predictions.score_text` also gives the
error rate against them. A folder given to a model of feature vectors, or a file given to a
text model, is refused with one line.

A model trained on a csv table with text or missing cells (or dropped columns) keeps its fitted
column encoding (``data.fitted_columns.FittedColumns``); it predicts a csv file of the table's
columns as they come, encoded as its training rows were (:mod:`multisvm_cli.data.table_points`
says how a missing cell and an unseen category are met), then scaled and predicted.
"""

from __future__ import annotations

import csv
import io
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ...base.errors import MultisvmError
from ...estimators.registry import REGISTRY
from ...persist import ModelFormatError
from ...data.scaling import CENTERING
from ...base.storage import atomic_write
from .metadata import load_trained_model

CHUNK_ROWS = 4096  # points scaled and predicted at once


@dataclass
class Predictions:
    """What :func:`predict` made: the predicted ``labels`` of the file's points in its order,
    the model's ``classes``, with ``proba`` the class probabilities (points x classes), and for
    a folder of documents each one's relative path (``rows``; None: rows 0, 1, ...) and the
    points' true classes where the file or folder gives them (``truth``: a file's labels, or
    the documents' class subfolders; None: not given)."""

    model: Path
    file: Path
    labels: np.ndarray
    classes: np.ndarray
    proba: np.ndarray | None = None
    rows: list | None = None
    truth: np.ndarray | None = None

    def csv_text(self) -> str:
        """The predictions as csv: a header (row, label[, p_<class>...]), one line a point."""
        stream = io.StringIO()
        writer = csv.writer(stream, lineterminator="\n")
        extra = [] if self.proba is None else [f"p_{c}" for c in self.classes.tolist()]
        writer.writerow(["row", "label", *extra])
        rows = self.rows if self.rows is not None else range(len(self.labels))
        for i, (row, label) in enumerate(zip(rows, self.labels.tolist())):
            shares = [] if self.proba is None else [f"{p:.6g}" for p in self.proba[i]]
            writer.writerow([row, label, *shares])
        return stream.getvalue()

    def _tally(self):
        """(wrong predictions, points, points whose true class the model does not know: each
        one wrong), classes compared by name (a file's labels 1, 2 are the classes 1, 2)."""
        truth = np.asarray(self.truth).astype(str)
        wrong = int(np.sum(np.asarray(self.labels).astype(str) != truth))
        unknown = int(np.sum(~np.isin(truth, np.asarray(self.classes).astype(str))))
        return wrong, len(truth), unknown

    def score_text(self) -> str | None:
        """The score against the points' true classes (None without them), naming how many
        points are in a class the model does not know (each counted wrong). A file's labels:
        in the manner of LIBSVM's svm-predict, ``accuracy = 86.67% (260/300), error = 13.33%,
        n = 300``; documents' class folders: their error rate over the documents."""
        if self.truth is None:
            return None
        wrong, n, unknown = self._tally()
        if self.rows is not None:  # a folder of documents
            note = (f"; {unknown} in class folders the model was not trained on, counted wrong"
                    if unknown else "")
            return (f"error rate against the class folders: {100 * wrong / n:.2f}% ({wrong} of "
                    f"{n} documents{note})")
        note = (f"; {unknown} rows have labels the model was not trained on, counted as errors"
                if unknown else "")
        return (f"accuracy = {100 * (n - wrong) / n:.2f}% ({n - wrong}/{n}), "
                f"error = {100 * wrong / n:.2f}%, n = {n}{note}")

    def confusion(self) -> np.ndarray:
        """The confusion matrix over the model's classes (rows: true class, columns: predicted
        class, in ``classes``' order); points of a class the model does not know are in no
        row. The points must carry labels (``predict(..., need_labels=True)`` checks)."""
        from sklearn.metrics import confusion_matrix

        names = np.asarray(self.classes).astype(str)
        return confusion_matrix(np.asarray(self.truth).astype(str),
                                np.asarray(self.labels).astype(str), labels=names)


@dataclass(frozen=True)
class PointsFile:
    """How to read the file of points to predict: its format ``fmt`` (None: from its
    extension); ``zero_based``: whether an svmlight file's indices start at 0 (None: as the
    model's training file's, else at 1); ``label``: a csv file's label column (a name or a
    0-based index; None: the model's training csv's, else the last column where the file has
    one more column than the model's features)."""

    fmt: str | None = None
    zero_based: bool | None = None
    label: object = None


def predict(model_dir, file, output=None, proba=False, force=False, reading=PointsFile(),
            need_labels=False) -> Predictions:
    """Predict every point of ``file`` (read as ``reading`` says, :class:`PointsFile`) with the
    saved model in ``model_dir``; with ``output``, write :meth:`Predictions.csv_text` there
    atomically. ``need_labels``: refuse a file without labels (for ``--confusion``).

    Refused with a one-line error, before anything is written: an existing ``output`` without
    ``force``, one that is not a regular file, or one inside the model folder
    (:func:`check_output`, first), a folder that is not a saved model, ``proba`` for a scheme without
    class probabilities, a file that is missing or malformed or whose columns are not the
    model's; a folder of documents for a model of feature vectors (:func:`..data.read_points`),
    and for a text model anything but a folder of documents (:func:`_documents`); a ``label``
    the csv file does not have, or ``label`` for a file that is not csv.
    """
    if output is not None:
        check_output(output, model_dir, force)
    model = load_trained_model(model_dir)  # a folder that is not a saved model: one line
    estimator, scheme = model.estimator, model.metadata["scheme"]
    if proba and not hasattr(estimator, "predict_proba"):
        raise MultisvmError(_no_probabilities(model_dir, scheme))
    from ... import data

    fmt, zero_based, label = reading.fmt, reading.zero_based, reading.label
    rows = None
    if model.text is not None:
        if label is not None:
            raise MultisvmError(f"--label is for a csv file; {model_dir} predicts a folder of "
                                f"documents, labelled by its class subfolders: drop --label")
        rows, X, truth = _documents(model, model_dir, file, fmt, zero_based)
    else:
        X, truth = data.read_points(file, _file_columns(model, model_dir, file, fmt,
                                                        zero_based, label), fmt)
    if need_labels and truth is None:
        raise MultisvmError(f"{file}: no labels to compare the predictions with (a csv label "
                            f"column, svmlight labels, an npz y or class subfolders); drop "
                            f"--confusion")
    labels, shares = [], []
    for block in _scaled_blocks(X, model.scaler):
        labels.append(estimator.predict(block))
        shares += [estimator.predict_proba(block)] if proba else []
    found = Predictions(Path(model_dir), Path(file), np.concatenate(labels),
                        np.asarray(estimator.classes_), np.vstack(shares) if proba else None,
                        rows, truth)
    if output is not None:
        atomic_write(output, found.csv_text())
    return found


def check_output(output, model_dir, force):
    """MultisvmError (one line) unless ``output`` may take the predictions: an existing file
    only with ``force``, never anything but a regular file (the write renames a new file over
    it: a FIFO or a device would be replaced), never a path inside the model folder."""
    path = Path(output)
    if os.path.lexists(path) and not force:
        raise MultisvmError(f"{output} already exists; choose another file with -o, or pass "
                            f"--force to replace it")
    if os.path.lexists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise MultisvmError(f"{output} is not a regular file (a folder, FIFO, device or socket):"
                            f" predictions replace only a regular file; choose another -o file")
    if path.resolve().is_relative_to(Path(model_dir).resolve()):
        raise MultisvmError(f"{output} is inside the model folder {model_dir}, which must stay "
                            f"as it was saved; write the predictions elsewhere with -o")


def _no_probabilities(model_dir, scheme) -> str:
    """Why a model gives no class probabilities, and how to get them where the scheme can."""
    label = REGISTRY[scheme].label
    if "probability" not in REGISTRY[scheme].options:
        return f"{model_dir}: a {label} model gives no class probabilities; drop --proba"
    return (f"{model_dir}: this {label} model gives no class probabilities: it was trained "
            f"without them; train it again with scheme_options: {{{scheme}: {{probability: true}}}} in its config, or "
            f"drop --proba")


def _documents(model, model_dir, folder, fmt, zero_based):
    """(relative paths, feature rows, class folders or None) of the folder of documents a text
    model predicts, featurized by its saved pipeline; MultisvmError (one line) for a file, or
    a file format option."""
    if not Path(folder).is_dir():
        what = "a file" if Path(folder).exists() else "not found"
        raise MultisvmError(f"{folder}: {what}; {model_dir} was trained on documents "
                            f"({model.metadata['dataset']}), so it predicts a folder of "
                            f"documents (one file each, at its top level or in one subfolder "
                            f"per class)")
    if fmt is not None or zero_based is not None:
        raise MultisvmError(f"--input-format and --zero-based are for files of features; "
                            f"{model_dir} predicts a folder of documents: drop them")
    names, texts, truth = model.text.read_folder(folder)
    return names, model.text.transform(texts), truth


def _scaled_blocks(X, scaler, rows=None):
    """``X`` scaled as the model's training part was, ``rows`` points at a time; a sparse block
    is made dense first where the scaler centers (a model trained on dense data: centering
    refuses sparse input), so no more than ``rows`` (default :data:`CHUNK_ROWS`) x n_features
    values are densified at once."""
    rows = rows or CHUNK_ROWS
    for start in range(0, X.shape[0], rows):
        yield scaler.transform(scalable(X[start:start + rows], scaler))


def scalable(X, scaler):
    """``X`` as ``scaler`` takes it: a sparse matrix made dense where the scaler centers (a
    model trained on dense data: centering refuses sparse input), else ``X`` itself."""
    return X.toarray() if sp.issparse(X) and scaler.method in CENTERING else X


def _file_columns(model, model_dir, file, fmt, zero_based, label):
    """The model's :class:`~multisvm_cli.data.points.Columns`, with the svmlight base
    ``zero_based`` and the csv label column ``label`` where given; MultisvmError (one line) for
    ``label`` with a file that is not csv."""
    from ...data import formats

    columns = model_columns(model, model_dir)
    if zero_based is not None:
        columns = replace(columns, zero_based=zero_based)
    if label is None:
        return columns
    if (fmt or formats.infer_format(file)) != "csv":
        raise MultisvmError(f"--label is for a csv file; {file} is not one (an svmlight line "
                            f"starts with its label, an npz file holds it as y): drop --label")
    return replace(columns, label=label, label_given=True)


def model_columns(model, model_dir):
    """The :class:`~multisvm_cli.data.points.Columns` a trained model takes: its feature count,
    their names (a local training csv's header names, else its dataset card's
    ``feature_names``, else ``x0``, ``x1``, ...: a header of a file to predict must give them),
    and from a local training file its label column and svmlight base; for a model trained on
    a csv table that needed encoding, the table's columns before encoding and its saved
    encoding (``Columns.table``)."""
    from ...data import Columns, get_card

    n_features = int(model.estimator.n_features_in_)
    if model.columns is not None:  # a csv table's columns, encoded as its training rows were
        n_features = len(model.columns.names)
    local = model.metadata.get("local", {})
    entry, names = local.get("entry", {}), local.get("columns")
    if names is not None and len(names) != n_features:
        raise ModelFormatError(f"{model_dir}: metadata local.columns names {len(names)} "
                               f"columns, the model takes {n_features} features")
    if names is None and "local" not in model.metadata:
        names = get_card(model.metadata["dataset"]).feature_names
        names = names if names is not None and len(names) == n_features else None
    names = [f"x{j}" for j in range(n_features)] if names is None else names
    return Columns(n_features, tuple(names),
                   entry.get("label") if entry.get("format") == "csv" else None,
                   bool(entry.get("zero_based", False)), table=model.columns)
