"""The answer report.html leads with: each scheme tested against its dataset's best scheme."""

import numpy as np
import pytest
from scipy import stats

from multisvm_cli.report.summary import (answer, answer_text, best_schemes, log_loss_text,
                                         versus_best)


def result(scheme, wrong, dataset="letter", n=100):
    correct = np.ones(n, dtype=bool)
    correct[:wrong] = False
    return {"dataset": dataset, "scheme": scheme, "correct": correct, "n_errors": wrong,
            "n_test": n}


def rows_of(results):
    return [{"dataset": r["dataset"], "scheme": r["scheme"],
             "error_pct": 100.0 * r["n_errors"] / r["n_test"]} for r in results]


def test_each_scheme_is_tested_against_the_best_not_against_compare_to():
    # best: a (points 0-4 wrong); b wrong on 0-7: 3 discordant, all against b: exact binomial
    # p = 2 x 0.5^3 = 0.25; c wrong on 0-29: 25 discordant, chi2 = (25 - 1)^2 / 25 = 23.04
    results = [result("c", 30), result("b", 8), result("a", 5)]
    found = versus_best(results, rows_of(results))
    assert found["letter"]["best"] == "a" and found["letter"]["alpha"] == 0.05
    assert found["letter"]["tests"] == {
        "b": {"p_value": pytest.approx(0.25), "test": "exact"},
        "c": {"p_value": pytest.approx(stats.chi2.sf(23.04, 1)), "test": "chi2"}}
    summary = answer({"versus_best": found, "compare_to": "c"}, rows_of(results))
    assert summary == [{"dataset": "letter", "best": "a", "error_pct": 5.0,
                        "ranked_by": "error_pct", "score": 5.0, "alpha": 0.05, "tied": [], "same": [("b", pytest.approx(0.25), "exact")],
                        "worse": [("c", pytest.approx(stats.chi2.sf(23.04, 1)), "chi2")],
                        "untested": []}]


def test_ties_go_to_the_first_row_and_a_result_without_points_is_left_out():
    results = [result("a", 5), result("b", 5), {**result("c", 9), "correct": None}]
    assert best_schemes(rows_of(results)) == {"letter": ("a", 5.0)}
    found = versus_best(results, rows_of(results))["letter"]
    assert found["tests"] == {"b": {"p_value": 1.0, "test": "exact"}}  # same points wrong
    (summary,) = answer({"versus_best": {"letter": found}}, rows_of(results))
    assert summary["untested"] == ["c"] and summary["tied"] == ["b"]


def test_an_older_run_uses_the_tests_against_compare_to_only_where_it_is_the_best():
    rows = [{"dataset": "iris", "scheme": "dag", "error_pct": "2.2"},
            {"dataset": "iris", "scheme": "ovr", "error_pct": "4.4", "mcnemar_p": "0.617",
             "mcnemar_test": "exact"},
            {"dataset": "wine", "scheme": "ovr", "error_pct": "0.0"},
            {"dataset": "wine", "scheme": "dag", "error_pct": "1.9"},
            {"dataset": "wine", "scheme": "udt", "paper_error_pct": "3.0"}]  # paper only
    iris, wine = answer({"compare_to": "dag"}, rows)
    assert iris["same"] == [("ovr", 0.617, "exact")] and iris["untested"] == []
    assert wine["best"] == "ovr" and wine["same"] == [] and wine["untested"] == ["dag"]


def test_a_run_with_probabilities_names_the_lowest_log_loss_ties_joined():
    rows = [{"dataset": "iris", "scheme": "ovr", "error_pct": "2.0", "log_loss": "0.2104"},
            {"dataset": "iris", "scheme": "maxwins", "error_pct": "3.0", "log_loss": "0.1871"},
            {"dataset": "iris", "scheme": "dag", "error_pct": "4.0", "log_loss": "0.1871"},
            {"dataset": "iris", "scheme": "nb", "error_pct": "5.0", "log_loss": ""},
            {"dataset": "wine", "scheme": "ovr", "error_pct": "1.0"}]
    iris, wine = answer({}, rows)
    assert iris["best"] == "ovr" and iris["log_loss"] == (["maxwins", "dag"], 0.1871)
    assert log_loss_text(iris["log_loss"]) == "lowest log-loss: Max Wins = DAGSVM 0.1871"
    assert "log_loss" not in wine  # no probabilities on wine: the answer as before


def test_the_answer_as_text_one_line_per_dataset():
    # as the first test: b 0.25 exact (not different), c chi2 23.04 (worse); d ties a
    results = [result("c", 30), result("b", 8), result("a", 5), result("maxwins", 5)]
    results[-1]["correct"] = results[2]["correct"].copy()
    saved = {"versus_best": versus_best(results, rows_of(results))}
    assert answer_text(saved, rows_of(results)) == (
        "letter: best a 5.00% (tied: Max Wins); not significantly different at alpha = 0.05: "
        f"b (0.25, exact); significantly worse: c ({stats.chi2.sf(23.04, 1):.2g}, chi2)")


def test_a_dataset_showing_balanced_accuracy_is_ranked_by_it_and_says_so():
    """letter shows balanced accuracy (an imbalanced test part): its best is the highest, not
    the lowest error; iris does not, and keeps the error's ranking and words."""
    from multisvm_cli.report.summary import answer_csv, answer_record, answer_text

    results = [result("a", 5), result("b", 8), result("a", 3, "iris"), result("b", 1, "iris")]
    rows = rows_of(results)
    rows[0]["balanced_accuracy"], rows[1]["balanced_accuracy"] = 0.61, 0.74
    saved = {"versus_best": versus_best(results, rows)}
    assert best_schemes(rows) == {"letter": ("b", 0.74), "iris": ("b", 1.0)}
    letter, iris = answer_text(saved, rows).splitlines()
    assert letter.startswith("letter: best by balanced accuracy b 0.740 (error 8.00%); ")
    assert iris.startswith("iris: best b 1.00%; ")
    record = answer_record(saved, rows)
    assert record["ranked_by"]["key"] == "per dataset"
    assert record["datasets"][0]["ranked_by"] == {"key": "balanced_accuracy", "title": "bal acc",
                                                  "order": "highest first"}
    assert record["datasets"][0]["balanced_accuracy"] == 0.74
    assert "ranked_by" not in record["datasets"][1]
    lines = answer_csv(record).splitlines()
    assert lines[1].startswith("letter,balanced_accuracy,b,8.0,") and lines[2].startswith(
        "iris,error_pct,b,1.0,")
