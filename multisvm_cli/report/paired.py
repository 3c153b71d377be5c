"""Paired tests of two schemes on one dataset: McNemar's test and the corrected resampled t-test.

Which one a row gets depends on how often a test point is tested:

- one repeat (a single test part, or k folds in which every point is tested exactly once, by
  the model of its fold): McNemar's test on the pooled predictions (:func:`mcnemar`);
- several repeats, or a draws split (random draws whose test parts overlap): a point is
  tested once per repeat (or in several draws), so the pooled predictions are not
  independent and McNemar's test would be far too liberal. Nadeau and Bengio's (2003)
  corrected resampled t-test on the J = folds x repeats paired split errors is used instead
  (:func:`corrected_resampled_ttest`; Bouckaert and Frank 2004 recommend it for repeated
  cross-validation): its variance term accounts for the overlap of the training sets.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .record import ERROR_PCT

EXACT_BELOW = 25
RESAMPLED = "corrected-t"  # the mcnemar_test value of the corrected resampled t-test


def mcnemar(correct_a, correct_b) -> dict:
    """McNemar's test (Dietterich 1998) of two classifiers tested on the same points.

    With n01 the points ``a`` gets wrong and ``b`` right, and n10 the reverse, the statistic is
    the continuity-corrected chi-square ``(|n01 - n10| - 1)^2 / (n01 + n10)`` with one degree of
    freedom (``test = "chi2"``). When the discordant counts are few (n01 + n10 < 25), the
    chi-square approximation is poor and the exact two-sided binomial test of n01 out of
    n01 + n10 with p = 1/2 is used instead (``test = "exact"``). No discordant point: p = 1.
    """
    correct_a = np.asarray(correct_a, dtype=bool)
    correct_b = np.asarray(correct_b, dtype=bool)
    if correct_a.shape != correct_b.shape:
        raise ValueError("McNemar's test needs both classifiers' results on the same points")
    n01 = int(np.sum(~correct_a & correct_b))
    n10 = int(np.sum(correct_a & ~correct_b))
    discordant = n01 + n10
    if discordant < EXACT_BELOW:
        p_value = stats.binomtest(n01, discordant, 0.5).pvalue if discordant else 1.0
        test = "exact"
    else:
        statistic = (abs(n01 - n10) - 1) ** 2 / discordant
        p_value = float(stats.chi2.sf(statistic, df=1))
        test = "chi2"
    return {"n01": n01, "n10": n10, "p_value": float(p_value), "test": test}


def corrected_resampled_ttest(errors_a, errors_b, test_train_ratio) -> dict:
    """Nadeau and Bengio's (2003) corrected resampled t-test of two classifiers tested on the
    same J splits (outer folds x repeats).

    With d_j the difference of the two test errors on split j, mean m and sample variance s^2
    (ddof = 1), the statistic is ``t = m / sqrt((1/J + n_test/n_train) s^2)``, Student's t with
    J - 1 degrees of freedom, two-sided; ``test_train_ratio`` is n_test/n_train (averaged over
    the splits). The term n_test/n_train corrects the variance for the overlap of the training
    sets, which makes the plain paired t-test too liberal. When every d_j is equal the
    statistic is 0 (p = 1) for d = 0 and infinite (p = 0) otherwise.
    """
    a = np.asarray(errors_a, dtype=float)
    b = np.asarray(errors_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ValueError("the corrected resampled t-test needs both classifiers' errors on "
                         "the same 2 or more splits")
    if not test_train_ratio > 0:
        raise ValueError(f"n_test/n_train must be > 0, got {test_train_ratio}")
    d = a - b
    J = len(d)
    variance = float(np.var(d, ddof=1))
    if variance == 0.0:
        statistic = 0.0 if np.all(d == 0) else math.copysign(math.inf, d.mean())
    else:
        statistic = float(d.mean() / math.sqrt((1.0 / J + test_train_ratio) * variance))
    p_value = 1.0 if statistic == 0 else float(2.0 * stats.t.sf(abs(statistic), J - 1))
    return {"statistic": statistic, "df": J - 1, "p_value": p_value, "test": RESAMPLED}


def paired_test(result, base) -> dict:
    """The test of ``result`` against ``base`` (two protocol results of one dataset): McNemar's
    test on the pooled predictions for a single repeat (and a single draw), else (several
    repeats, or several random draws: a point may be tested in more than one) the corrected
    resampled t-test on the per-split errors (the splits in the same order for both)."""
    if result.get("repeats", 1) <= 1 and (result.get("draws") or 1) <= 1:
        return mcnemar(result["correct"], base["correct"])
    splits, others = result["splits"], base["splits"]
    ratio = float(np.mean([s["n_test"] / s["n_train"] for s in splits]))
    return corrected_resampled_ttest([s[ERROR_PCT] for s in splits],
                                     [s[ERROR_PCT] for s in others], ratio)
