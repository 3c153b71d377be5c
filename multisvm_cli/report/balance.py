"""Measures for imbalanced classes: balanced accuracy and macro F1, and when a report shows them.

Both are scikit-learn's, on a scheme's test points pooled over its splits (folds x repeats,
or draws), the same points its error % counts:

- ``balanced_accuracy``: ``sklearn.metrics.balanced_accuracy_score(true, predicted)``, the
  mean over the test part's classes of each class's recall;
- ``macro_f1``: ``sklearn.metrics.f1_score(true, predicted, average="macro",
  zero_division=0)``, the unweighted mean of each class's F1 over the labels that occur as
  true or predicted (a class never predicted scores 0).

A report shows them (:func:`shown`) when the config asks (``balanced_metrics: true``), or, by
default (``auto``), when the test part is imbalanced: its smallest class holds under a fifth
of its largest class's rows (:data:`IMBALANCE_RATIO`).  Where a dataset shows them, the
Answer ranks its schemes by balanced accuracy (:mod:`.summary`).
"""

from __future__ import annotations

import warnings

import numpy as np

BALANCED_ACCURACY = "balanced_accuracy"
MACRO_F1 = "macro_f1"
IMBALANCE_RATIO = 5  # imbalanced: smallest class x 5 < largest class (test part)
CHOICES = ("auto", True, False)  # the config's ``balanced_metrics``


def imbalanced(truth) -> bool:
    """Whether the true labels ``truth`` have a class of under 1/IMBALANCE_RATIO of the largest
    class's rows."""
    _, counts = np.unique(np.asarray(truth), return_counts=True)
    return len(counts) > 1 and IMBALANCE_RATIO * counts.min() < counts.max()


def shown(setting, truth) -> bool:
    """Whether a report shows the balanced measures under the config's ``balanced_metrics``
    ``setting`` (auto, true, false) for a test part of true labels ``truth``."""
    return imbalanced(truth) if setting == "auto" else bool(setting)


def measures(truth, predicted) -> dict:
    """{balanced_accuracy, macro_f1} of the pooled test points (see the module docstring)."""
    from sklearn.metrics import balanced_accuracy_score, f1_score

    truth, predicted = np.asarray(truth), np.asarray(predicted)
    with warnings.catch_warnings():  # a predicted class absent from truth: scored as documented
        warnings.simplefilter("ignore", UserWarning)
        balanced = balanced_accuracy_score(truth, predicted)
    return {BALANCED_ACCURACY: float(balanced),
            MACRO_F1: float(f1_score(truth, predicted, average="macro", zero_division=0))}
