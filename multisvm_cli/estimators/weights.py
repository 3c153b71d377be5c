"""Class weights: the ``class_weight`` option of the schemes that train binary SVMs, and what
each binary machine's two classes weigh.

``class_weight`` is scikit-learn's ``SVC(class_weight=...)``, LIBSVM's ``-wi``: class c's rows
get the penalty C w_c instead of C.  It is

- None (the default): every w_c = 1;
- ``"balanced"``: w_c = n / (N n_c), scikit-learn's ``n_samples / (n_classes *
  np.bincount(y))``, with n the training part's rows, N its classes and n_c the rows of class
  c (the multiclass frequencies of the data the estimator is fitted on: in a run, one training
  part of the protocol);
- a mapping {label: weight} (weight > 0): those classes' w_c; every class it does not name
  keeps 1.  A label that is no class of the data is refused.

A binary machine separates a positive side from a negative side, each one or several classes
(a pair: one class each; one-vs-rest: one class against the others; an ECOC column, a tree's
split: sets).  libsvm and liblinear take one weight per side (their per-class C: C_+ = C w_+,
C_- = C w_-); a side's weight is the mean of the multiclass w_c over the side's training rows,

    w_side = sum_{c in side} n_c w_c / sum_{c in side} n_c,

so that the side's rows weigh in total what they weigh in the multiclass problem.  A side of
one class gets that class's w_c exactly: a pairwise machine (Max Wins, DAGSVM, ADAG, pairwise
coupling) is LIBSVM's ``-wi`` machine of that pair, and a two-class problem is
``SVC(class_weight=...)``'s.  With ``balanced`` a side of several classes weighs
w_side = |side| n / (N n_side): one-vs-rest's class c against the rest gets n / (N n_c) and
(N - 1) n / (N (n - n_c)), its rest counted as the N - 1 classes it holds (not re-balanced as
a two-class problem, where each side would weigh half).
"""

from numbers import Real

import numpy as np

from .kernels import finite_float

BALANCED = "balanced"


def check_class_weight(name, value):
    """ValueError (one line) unless ``value`` is None, ``"balanced"`` or a non-empty mapping of
    labels (text or numbers) to finite numbers > 0."""
    if value is None or (isinstance(value, str) and value == BALANCED):
        return
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{name} must be balanced or a mapping {{label: weight}}, got {value!r}")
    for label, weight in value.items():
        if isinstance(label, bool) or not isinstance(label, (str, Real)):
            raise ValueError(f"{name} label {label!r} must be a class label (text or a number)")
        number = finite_float(weight) if isinstance(weight, Real) and not isinstance(weight, bool) \
            else None
        if number is None or number <= 0:
            raise ValueError(f"{name} weight of {label!r} must be a finite number > 0, got {weight!r}")


def _same_label(label, cls) -> bool:
    """Whether a config's (or a saved model's, JSON-keyed) ``label`` names class ``cls``."""
    cls = cls.item() if isinstance(cls, np.generic) else cls
    return label == cls or str(label) == str(cls)


def check_class_weight_classes(name, value, classes):
    """ValueError (one line) when a mapping ``value`` names a label that is no class of the
    sorted ``classes``."""
    if not isinstance(value, dict):
        return
    for label in value:
        if not any(_same_label(label, cls) for cls in classes):
            shown = ", ".join(map(str, list(classes)[:10])) + (", ..." if len(classes) > 10 else "")
            raise ValueError(f"{name} names the label {label!r}, which is no class of the data "
                             f"(classes: {shown})")


def check_class_weight_sweep(name, value):
    """ValueError when ``value`` names classes (a mapping), which a classes sweep changes."""
    if isinstance(value, dict):
        raise ValueError(f"{name} names classes, which a classes sweep changes; use "
                         f"{name}: balanced, or no {name}")


def class_weights(class_weight, classes, y_index):
    """The multiclass weights w_c (n_classes,) of ``class_weight`` for training labels
    ``y_index`` (indices into the sorted ``classes``), or None for unit weights (None)."""
    if class_weight is None:
        return None
    check_class_weight("class_weight", class_weight)
    if isinstance(class_weight, str):  # balanced
        counts = np.bincount(y_index, minlength=len(classes)).astype(np.float64)
        return len(y_index) / (len(classes) * counts)
    check_class_weight_classes("class_weight", class_weight, classes)
    weights = np.ones(len(classes))
    for label, weight in class_weight.items():
        weights[next(i for i, cls in enumerate(classes) if _same_label(label, cls))] = weight
    return weights


def row_weights(class_weight, classes, y_index):
    """Each training row's w_c (:func:`class_weights` indexed by ``y_index``), or None."""
    weights = class_weights(class_weight, classes, y_index)
    return None if weights is None else weights[y_index]


def side_weights(row_weights, rows, positive):
    """(w_-, w_+) of the binary problem ``positive`` vs the rest on training ``rows``: the
    mean of ``row_weights`` (each training row's w_c) over each side's rows (see the module
    docstring); None when ``row_weights`` is None (unit weights)."""
    if row_weights is None:
        return None
    weights = row_weights[np.asarray(rows)]
    positive = np.asarray(positive, dtype=bool)
    return float(np.mean(weights[~positive])), float(np.mean(weights[positive]))
