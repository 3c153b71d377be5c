"""Rifkin & Klautau's (JMLR 5, 2004, Appendix A, p. 135) comparison of two classifiers tested on
the same points: the difference of their error rates, how often they predict the same class,
McNemar's test (:func:`.paired.mcnemar`) and a bootstrap interval for the difference.

The bootstrap: each test point falls in one of four "classes", both right (CC), both wrong
(II), A right and B wrong (CI), B right and A wrong (IC). A bootstrap data set draws the
n points' classes from the observed proportions (one multinomial draw of n), and its
difference of error rates is (IC - CI) / n. Of ``n_boot`` such sets (theirs: 10,000) the
(1 - level) / 2 and (1 + level) / 2 percentiles (theirs: level 0.90) bound the interval.
"""

from __future__ import annotations

import numpy as np

from .paired import mcnemar

N_BOOT = 10_000
LEVEL = 0.90


def bootstrap_interval(correct_a, correct_b, n_boot=N_BOOT, level=LEVEL, seed=0):
    """(low, high): the ``level`` bootstrap interval of error(A) - error(B), as fractions (as
    Rifkin & Klautau's BOOTSTRAP column), from the per-point correctness of A and B."""
    correct_a = np.asarray(correct_a, dtype=bool)
    correct_b = np.asarray(correct_b, dtype=bool)
    if correct_a.shape != correct_b.shape or correct_a.ndim != 1 or not len(correct_a):
        raise ValueError("the bootstrap needs both classifiers' results on the same points")
    if not 0 < level < 1 or n_boot < 1:
        raise ValueError(f"level must be in (0, 1) and n_boot >= 1, got {level}, {n_boot}")
    n = len(correct_a)
    counts = [np.sum(correct_a & correct_b), np.sum(~correct_a & ~correct_b),
              np.sum(correct_a & ~correct_b), np.sum(~correct_a & correct_b)]
    draws = np.random.default_rng(seed).multinomial(n, np.array(counts) / n, size=n_boot)
    differences = (draws[:, 3] - draws[:, 2]) / n
    low, high = np.quantile(differences, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def compare_predictions(y, predicted_a, predicted_b, n_boot=N_BOOT, level=LEVEL, seed=0) -> dict:
    """Rifkin & Klautau's row for A against B on test labels ``y``: ``error_a`` and ``error_b``
    (%), ``diff`` (error_a - error_b, points of %), ``agree`` (the share of points on which
    they predict the same class), ``bootstrap`` (:func:`bootstrap_interval`, fractions) and
    McNemar's ``p_value`` and ``test``."""
    y, predicted_a, predicted_b = map(np.asarray, (y, predicted_a, predicted_b))
    if not y.shape == predicted_a.shape == predicted_b.shape:
        raise ValueError("labels and both predictions must have one entry per test point")
    correct_a, correct_b = predicted_a == y, predicted_b == y
    error_a, error_b = 100 * (1 - correct_a.mean()), 100 * (1 - correct_b.mean())
    test = mcnemar(correct_a, correct_b)
    return {"error_a": float(error_a), "error_b": float(error_b),
            "diff": float(error_a - error_b),
            "agree": float(np.mean(predicted_a == predicted_b)),
            "bootstrap": bootstrap_interval(correct_a, correct_b, n_boot, level, seed),
            "p_value": test["p_value"], "test": test["test"]}
