"""The Table-1 report: McNemar's test worked out by hand, rows, and the four output formats."""

import csv
import io
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from multisvm_cli.report.paired import mcnemar
from multisvm_cli.report.table import evaluation_text, render, table_rows


def outcomes(n_both, n01, n10, n_neither):
    """Correctness vectors of classifiers a and b with the given agreement counts."""
    a = [True] * n_both + [False] * n01 + [True] * n10 + [False] * n_neither
    b = [True] * n_both + [True] * n01 + [False] * n10 + [False] * n_neither
    return np.array(a), np.array(b)


def test_mcnemar_exact_when_few_discordant():
    a, b = outcomes(100, 10, 2, 5)
    test = mcnemar(a, b)
    assert (test["n01"], test["n10"], test["test"]) == (10, 2, "exact")
    # two-sided binomial: 2 * P(X <= 2), X ~ Bin(12, 1/2) = 2 * (1 + 12 + 66) / 4096
    assert test["p_value"] == pytest.approx(158 / 4096, rel=1e-12)


def test_mcnemar_continuity_corrected_chi_square():
    a, b = outcomes(500, 40, 20, 30)
    test = mcnemar(a, b)
    statistic = (abs(40 - 20) - 1) ** 2 / 60
    assert test["test"] == "chi2"
    # chi-square with one degree of freedom: P(X > s) = erfc(sqrt(s / 2))
    assert test["p_value"] == pytest.approx(math.erfc(math.sqrt(statistic / 2)), rel=1e-9)
    assert test["p_value"] == pytest.approx(0.01417, abs=1e-5)


def test_mcnemar_is_symmetric_and_one_without_disagreement():
    a, b = outcomes(50, 30, 12, 3)
    assert mcnemar(a, b)["p_value"] == pytest.approx(mcnemar(b, a)["p_value"])
    assert mcnemar(a, a)["p_value"] == 1.0
    with pytest.raises(ValueError, match="same points"):
        mcnemar(a, b[:-1])


def result(scheme, correct, **extra):
    correct = np.asarray(correct)
    base = {"dataset": "usps", "scheme": scheme, "kernel": "gaussian sigma=4", "C": 100.0,
            "n_errors": int(np.sum(~correct)), "n_test": len(correct), "correct": correct,
            "kernel_evaluations": 819.25, "cpu_time": 12.5, "size": 487_000,
            "selection_time": 30.0, "evaluation_time": 0.4}
    return {**base, **extra}


def make_rows():
    a, b = outcomes(170, 18, 4, 8)
    results = [result("ovr", a), result("dag", b)]
    reference = {"source": "Platt 1999", "usps": {
        "ovr": {"sigma": 3.58, "C": 100, "error": 4.7, "kernel_evaluations": 2936,
                "cpu_time": 3532, "size_k": 760},
        "Neural Net": {"error": 5.9}}}
    return table_rows(results, reference, compare_to="dag")


def test_table_rows_numbers():
    ovr, dag, net = make_rows()
    assert ovr["error_pct"] == pytest.approx(100 * 26 / 200)
    assert dag["error_pct"] == pytest.approx(100 * 12 / 200)
    assert ovr["size_k"] == pytest.approx(487.0)
    assert ovr["mcnemar_test"] == "exact" and ovr["significant"] is True
    assert ovr["mcnemar_p"] == pytest.approx(mcnemar(*outcomes(170, 18, 4, 8))["p_value"])
    assert "mcnemar_p" not in dag  # the comparison scheme is not tested against itself
    assert ovr["paper_kernel"] == "gaussian sigma=3.58" and ovr["paper_error_pct"] == 4.7
    assert net["scheme"] == "Neural Net" and net["paper_error_pct"] == 5.9
    assert "error_pct" not in net


def test_render_formats():
    rows = make_rows()
    text = render(rows, "table", "Platt 1999")
    assert "1-v-r" in text and "DAGSVM" in text and "13.00" in text and "paper err %" in text
    assert "paper columns: Platt 1999." in text and "continuity-corrected" in text
    markdown = render(rows, "markdown")
    assert markdown.splitlines()[0].startswith("| dataset") and "|---" in markdown.replace(
        ":", "-").replace(" ", "")
    parsed = list(csv.DictReader(io.StringIO(render(rows, "csv"))))
    assert len(parsed) == 3 and float(parsed[0]["error_pct"]) == pytest.approx(13.0)
    assert parsed[0]["significant"] == "True" and parsed[1]["mcnemar_p"] == ""
    records = json.loads(render(rows, "json"))
    assert records[1]["scheme"] == "dag" and records[1]["error_pct"] == pytest.approx(6.0)
    assert records[0]["kernel_evaluations"] == pytest.approx(819.25)
    with pytest.raises(ValueError, match="unknown format 'html'"):
        render(rows, "html")


def test_mcnemar_footnote_only_when_a_scheme_was_compared():
    a, _ = outcomes(170, 18, 4, 8)
    alone = table_rows([result("ovr", a)], {}, compare_to="dag")  # no DAG row to compare with
    assert "mcnemar_p" not in alone[0]
    assert "McNemar" not in render(alone, "table") and "sig 0.05" not in render(alone, "markdown")
    assert "mcnemar_p" in render(alone, "csv")  # machine formats keep their columns
    assert "McNemar (Dietterich 1998) vs DAGSVM" in render(make_rows(), "table")


def test_evaluation_text_with_confusion():
    meta = {"scheme": "dag", "kernel": "gaussian sigma=2", "params": {"C": 10.0},
            "dataset": "wine"}
    text = evaluation_text(SimpleNamespace(
        metadata=meta, dataset="wine", part="test", y_true=[1, 1, 2, 3], y_pred=[1, 2, 2, 3],
        seconds=0.5, kernel_evaluations=12.0, n_parameters=3456, classes=np.array([1, 2, 3]),
        confusion=np.array([[1, 1, 0], [0, 1, 0], [0, 0, 1]])))
    assert "error rate: 25.00% (1 errors)" in text
    assert "kernel evaluations per test point: 12.0" in text
    assert "classifier size: 3.5K parameters" in text and "DAGSVM" in text
    assert "confusion matrix" in text


def test_corrected_resampled_ttest_by_hand():
    from multisvm_cli.report.paired import corrected_resampled_ttest

    a, b = [5.0, 4.0, 6.0, 5.0], [3.0, 4.0, 3.0, 4.0]  # d = 2, 0, 3, 1: mean 1.5, var 5/3
    test = corrected_resampled_ttest(a, b, 0.5)
    t = 1.5 / math.sqrt((1 / 4 + 0.5) * 5 / 3)
    assert test["statistic"] == pytest.approx(t) and test["df"] == 3
    assert test["test"] == "corrected-t"
    # Student's t with 3 df, two-sided, from its closed-form CDF
    x = 3 / (3 + t * t)
    from scipy.special import betainc
    assert test["p_value"] == pytest.approx(betainc(1.5, 0.5, x))
    # the correction only widens: the plain paired t-test (ratio 0) gives a smaller p
    assert corrected_resampled_ttest(a, b, 1e-12)["p_value"] < test["p_value"]
    assert corrected_resampled_ttest(a, a, 0.5)["p_value"] == 1.0
    assert corrected_resampled_ttest([2.0, 2.0], [1.0, 1.0], 0.5)["p_value"] == 0.0
    with pytest.raises(ValueError, match="same 2 or more splits"):
        corrected_resampled_ttest([1.0], [2.0], 0.5)
    with pytest.raises(ValueError, match="same 2 or more splits"):
        corrected_resampled_ttest([1.0, 2.0], [2.0], 0.5)
    with pytest.raises(ValueError, match="n_test/n_train must be > 0"):
        corrected_resampled_ttest([1.0, 2.0], [2.0, 2.0], 0)


def test_repeats_use_the_corrected_t_test_and_show_the_spread():
    def splits(errors):
        return [{"n_test": 50, "n_train": 100, "error_pct": e} for e in errors]

    a, b = outcomes(170, 18, 4, 8)
    rows = table_rows([result("ovr", a, repeats=2, error_sd=1.29,
                              splits=splits([5.0, 4.0, 6.0, 5.0])),
                       result("dag", b, repeats=2, error_sd=0.58,
                              splits=splits([3.0, 4.0, 3.0, 4.0]))], {}, compare_to="dag")
    assert rows[0]["mcnemar_test"] == "corrected-t" and rows[0]["error_sd"] == 1.29
    t = 1.5 / math.sqrt((1 / 4 + 0.5) * 5 / 3)
    assert rows[0]["mcnemar_p"] == pytest.approx(
        corrected_t_p(t, 3)) and rows[0]["significant"] is False
    text = render(rows, "table")
    assert "error SD %" in text and "1.29" in text and "Nadeau & Bengio 2003" in text
    assert "McNemar (Dietterich" not in text
    # a single split: no SD column in the printed table, McNemar's footnote
    assert "error SD %" not in render(make_rows(), "table").splitlines()[0]
    assert "error_sd" in render(make_rows(), "csv").splitlines()[0]


def corrected_t_p(t, df):
    from scipy import stats

    return 2 * stats.t.sf(abs(t), df)


def test_dag_orders_text():
    from multisvm_cli.report.table import dag_orders_text

    text = dag_orders_text({"iris": {"errors_pct": [2.0, 4.0, 3.0],
                                     "kernel_evaluations": [20.0, 30.0, 25.0],
                                     "selected_error": 3.0}})
    assert text == ("DAGSVM class orders on iris (3 random orders, same machines): test error % "
                    "min 2.00 / mean 3.00 / max 4.00 (the run's order: 3.00); kernel evals min "
                    "20.0 / mean 25.0 / max 30.0.")
