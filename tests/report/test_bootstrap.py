"""Rifkin & Klautau's bootstrap interval and comparison row (report.bootstrap, issue 39)."""

import math

import numpy as np
import pytest

from multisvm_cli.report.bootstrap import bootstrap_interval, compare_predictions


def _outcomes(cc, ii, ci, ic):
    """Per-point correctness of A and B with the four counts."""
    a = np.array([True] * cc + [False] * ii + [True] * ci + [False] * ic)
    b = np.array([True] * cc + [False] * ii + [False] * ci + [True] * ic)
    return a, b


def test_the_interval_is_the_multinomials_percentiles():
    # 2,000 points, A wrong on 60 that B gets right, B wrong on 30 that A gets right: the
    # difference is +1.5 points; its sd under the multinomial is
    # sqrt((p_ci + p_ic - (p_ic - p_ci)^2) / n), so the 90% interval is about +-1.645 sd
    a, b = _outcomes(1800, 110, 30, 60)
    low, high = bootstrap_interval(a, b)
    p_ci, p_ic, n = 30 / 2000, 60 / 2000, 2000
    sd = math.sqrt((p_ci + p_ic - (p_ic - p_ci) ** 2) / n)
    assert low == pytest.approx(0.015 - 1.645 * sd, abs=0.0008)
    assert high == pytest.approx(0.015 + 1.645 * sd, abs=0.0008)
    assert (low, high) == bootstrap_interval(a, b)  # seeded
    # A better: the interval flips sign
    assert bootstrap_interval(b, a) == pytest.approx((-high, -low), abs=0.0006)


def test_equal_classifiers_give_a_zero_interval_and_agree_on_everything():
    y = np.array([0, 1, 2, 1, 0, 2, 2])
    predicted = np.array([0, 1, 1, 1, 0, 2, 0])
    row = compare_predictions(y, predicted, predicted)
    assert row["bootstrap"] == (0.0, 0.0) and row["agree"] == 1.0 and row["diff"] == 0.0
    assert row["p_value"] == 1.0
    assert row["error_a"] == pytest.approx(200 / 7)


def test_agree_counts_the_same_predicted_class_not_the_same_correctness():
    y = np.array([0, 0, 0, 0])
    a = np.array([1, 2, 0, 0])  # wrong, wrong, right, right
    b = np.array([2, 1, 0, 1])  # wrong, wrong, right, wrong
    row = compare_predictions(y, a, b)
    assert row["agree"] == 0.25  # only the third point: both wrong twice, on other classes
    assert row["diff"] == pytest.approx(-25.0)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="same points"):
        bootstrap_interval([True, False], [True])
    with pytest.raises(ValueError, match="level"):
        bootstrap_interval([True], [False], level=1.0)
    with pytest.raises(ValueError, match="one entry per test point"):
        compare_predictions([0, 1], [0, 1], [0])
