"""Average ranks, Friedman, Nemenyi CD: checked against Demsar (2006)'s worked example."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.report.ranking import (critical_difference, errors_table, rank_schemes,
                                         ranking_text)

# Demsar (2006), Table 6: AUC of four C4.5 variants on 14 UCI datasets (higher is better).
NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970]])
VOTING = 12


def demsar_errors(break_voting_tie=False):
    auc = AUC.copy()
    if break_voting_tie:  # the paper's ranks come from unrounded AUCs: C4.5+cf is 2nd on voting
        auc[VOTING, 2] = 0.97501
    return pd.DataFrame(100.0 * (1.0 - auc), columns=NAMES)


def test_demsar_table6_average_ranks_and_cd():
    ranking = rank_schemes(demsar_errors(break_voting_tie=True))
    ranks = [ranking["average_ranks"][name] for name in NAMES]
    assert ranks == pytest.approx([3.143, 2.000, 2.893, 1.964], abs=5e-4)
    assert ranking["n_datasets"] == 14 and ranking["schemes"] == NAMES
    assert ranking["critical_difference"] == pytest.approx(1.25, abs=5e-3)
    # Demsar's chi2_F (his formula, no correction for ties) from these ranks is 9.28 ...
    k, n = 4, 14
    chi2_paper = 12 * n / (k * (k + 1)) * (sum(r * r for r in ranks) - k * (k + 1) ** 2 / 4)
    assert chi2_paper == pytest.approx(9.28, abs=5e-3)
    # ... and scipy divides it by the tie correction 1 - sum(t^3 - t) / (N k (k^2 - 1)): ties of
    # two on iris, lung cancer and primary tumor, all four tied on mushroom.
    correction = 1 - (3 * (2**3 - 2) + (4**3 - 4)) / (n * k * (k * k - 1))
    assert ranking["friedman"]["statistic"] == pytest.approx(chi2_paper / correction)
    assert ranking["friedman"]["p_value"] < 0.05  # Demsar: the null hypothesis is rejected
    # CD 1.25 > 3.143 - 1.964: Demsar finds no significant pair at 0.05 ...
    assert ranking["different_pairs"] == []
    # ... and at 0.10 (CD = 1.12) C4.5 is worse than C4.5+m and C4.5+m+cf.
    at_10 = rank_schemes(demsar_errors(break_voting_tie=True), alpha=0.10)
    assert at_10["critical_difference"] == pytest.approx(1.12, abs=5e-3)
    assert at_10["different_pairs"] == [["C4.5+m", "C4.5"], ["C4.5+m+cf", "C4.5"]]
    nemenyi = at_10["nemenyi_p"]
    assert 0.05 < nemenyi["C4.5"]["C4.5+m+cf"] < 0.10 and nemenyi["C4.5"]["C4.5+m"] < 0.10
    assert nemenyi["C4.5+m"]["C4.5+m+cf"] == pytest.approx(nemenyi["C4.5+m+cf"]["C4.5+m"])


def test_printed_table_ties_share_the_average_rank():
    # Ranks of the printed table counted by hand (1 = highest AUC), voting tie = 2.5 each.
    by_hand = np.array([
        [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1], [1, 2.5, 4, 2.5],
        [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1], [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5],
        [3, 2, 4, 1], [4, 1, 2.5, 2.5], [3, 1, 4, 2]])
    ranking = rank_schemes(demsar_errors())
    assert [ranking["average_ranks"][n] for n in NAMES] == pytest.approx(by_hand.mean(axis=0))


def test_exact_small_example_without_ties():
    # 3 schemes, 4 datasets, no ties: Friedman equals Demsar's formula exactly.
    errors = pd.DataFrame({"ovr": [5.0, 3.0, 8.0, 2.0], "maxwins": [4.0, 3.5, 7.0, 1.0],
                           "dag": [4.5, 2.0, 6.0, 1.5]}, index=["a", "b", "c", "d"])
    ranks = np.array([[3, 1, 2], [2, 3, 1], [3, 2, 1], [3, 1, 2]]).mean(axis=0)
    ranking = rank_schemes(errors)
    assert list(ranking["average_ranks"].values()) == pytest.approx(ranks)
    chi2 = 12 * 4 / (3 * 4) * (np.sum(ranks**2) - 3 * 16 / 4)
    assert ranking["friedman"]["statistic"] == pytest.approx(chi2)  # 3.5
    f_f = 3 * chi2 / (4 * 2 - chi2)
    assert ranking["iman_davenport"]["statistic"] == pytest.approx(f_f)
    assert ranking["critical_difference"] == pytest.approx(
        critical_difference(3, 4), rel=1e-12)
    json.dumps(ranking)  # plain data, ready for results.json
    text = ranking_text(ranking)
    assert "Max Wins 1.75" in text and "DAGSVM 1.50" in text and "1-v-r 2.75" in text
    assert "Friedman chi-square = 3.5 (2 df)" in text and "no pair at alpha = 0.05" in text


def test_same_order_on_every_dataset_saves_an_infinite_f_as_none():
    # 3 schemes ranked alike on 3 datasets: chi2_F = N(k-1) = 6, so F_F's denominator is 0;
    # the statistic is saved as None (results.json is strict JSON) and printed as inf
    errors = pd.DataFrame({"ovr": [1.0, 2.0, 3.0], "maxwins": [2.0, 3.0, 4.0],
                           "dag": [3.0, 4.0, 5.0]}, index=["a", "b", "c"])
    ranking = rank_schemes(errors)
    assert ranking["friedman"]["statistic"] == pytest.approx(6.0)
    # the exact p of 3 datasets ranking 3 schemes alike: 3! orders agreeing, (3!)^(1-3) = 1/36
    assert ranking["iman_davenport"] == {"statistic": None, "p_value": pytest.approx(1 / 36)}
    json.dumps(ranking, allow_nan=False)
    assert ("Iman-Davenport F = inf (every dataset ranks the schemes alike; the exact p of "
            "that, (k!)^(1-N), is 0.0278)." in ranking_text(ranking))


def test_caution_names_only_the_failing_condition():
    # Demsar's example: N = 14 > 10 datasets holds, k = 4 schemes fails k > 5
    text = ranking_text(rank_schemes(demsar_errors()))
    assert ("Caution: 4 schemes are too few for Friedman's chi-square approximation (Demsar "
            "2006 asks for k > 5 schemes; below") in text
    assert "datasets are too few" not in text and "N > 10" not in text
    # 6 schemes on 4 datasets: only N fails
    six = pd.DataFrame(np.arange(24.0).reshape(4, 6) % 7, columns=list("abcdef"))
    text = ranking_text(rank_schemes(six))
    assert "Caution: 4 datasets are too few" in text and "asks for N > 10 datasets;" in text
    assert "k > 5" not in text
    # 6 schemes on 11 datasets: no caution
    eleven = pd.DataFrame(np.arange(66.0).reshape(11, 6) % 7, columns=list("abcdef"))
    assert "Caution" not in ranking_text(rank_schemes(eleven))


def test_critical_difference_is_demsars_table_5():
    # Demsar Table 5(a): q_0.05 = 2.343 (k=3), 2.569 (k=4), 3.164 (k=10).
    for k, q in ((3, 2.343), (4, 2.569), (10, 3.164)):
        assert critical_difference(k, 6) == pytest.approx(q * math.sqrt(k * (k + 1) / 36),
                                                          abs=2e-3)


def test_two_schemes_use_wilcoxon():
    errors = pd.DataFrame({"ovr": [5.0, 3.0, 8.0, 2.0, 9.0, 4.0, 6.0],
                           "dag": [4.0, 2.0, 6.0, 1.0, 7.0, 3.5, 5.0]})
    ranking = rank_schemes(errors)
    assert ranking["friedman"]["test"] == "Wilcoxon signed-rank"
    assert ranking["friedman"]["p_value"] == pytest.approx(2 / 2**7)  # exact: all 7 one way
    assert ranking["critical_difference"] is None and ranking["nemenyi_p"] is None
    assert ranking["different_pairs"] == [["dag", "ovr"]]
    assert ranking["average_ranks"] == {"ovr": 2.0, "dag": 1.0}
    assert "Wilcoxon signed-rank test" in ranking_text(ranking)


def test_all_tied_is_not_significant():
    ranking = rank_schemes(pd.DataFrame(np.ones((3, 3)), columns=["a", "b", "c"]))
    assert ranking["friedman"]["p_value"] == 1.0 and ranking["different_pairs"] == []
    assert ranking["average_ranks"] == {"a": 2.0, "b": 2.0, "c": 2.0}


def test_errors_table_from_report_rows():
    rows = [{"dataset": "iris", "scheme": "ovr", "error_pct": 4.0},
            {"dataset": "iris", "scheme": "dag", "error_pct": 2.0},
            {"dataset": "wine", "scheme": "ovr", "error_pct": 1.0},
            {"dataset": "wine", "scheme": "dag", "error_pct": 3.0},
            {"dataset": "wine", "scheme": "udt", "paper_error_pct": 9.0}]
    table = errors_table(rows)
    assert list(table.columns) == ["ovr", "dag"] and list(table.index) == ["iris", "wine"]
    assert table.loc["wine", "dag"] == 3.0


@pytest.mark.parametrize("errors, message", [
    (pd.DataFrame({"a": [1.0, 2.0]}), "at least 2 schemes"),
    (pd.DataFrame({"a": [1.0], "b": [2.0]}), "at least 2 datasets"),
    (pd.DataFrame({"a": [1.0, np.nan], "b": [2.0, 1.0]}, index=["iris", "wine"]),
     "no test error for wine/a"),
    ([[1.0, 2.0], [3.0, 4.0]], "pandas DataFrame"),
])
def test_bad_input_is_one_clear_line(errors, message):
    with pytest.raises(MultisvmError, match=message):
        rank_schemes(errors)


def test_bad_alpha_and_empty_rows():
    with pytest.raises(MultisvmError, match="alpha must be between 0 and 1"):
        rank_schemes(demsar_errors(), alpha=5)
    with pytest.raises(MultisvmError, match="no report row has an error_pct"):
        errors_table([{"dataset": "iris", "scheme": "udt", "paper_error_pct": 3.0}])


# scikit_posthocs.posthoc_nemenyi_friedman(-AUC) (scikit-posthocs 0.17.1, computed once when
# multisvm dropped that dependency for scipy.stats.studentized_range): the Nemenyi p-values on
# Demsar's printed table, ties included.
SCIKIT_POSTHOCS_NEMENYI = [
    [1.0, 0.08867270928888271, 0.9716864713022134, 0.06168325891240056],
    [0.08867270928888271, 1.0, 0.22669688602641525, 0.9988823439818528],
    [0.9716864713022134, 0.22669688602641525, 1.0, 0.17005163566434356],
    [0.06168325891240056, 0.9988823439818528, 0.17005163566434356, 1.0]]


def test_nemenyi_p_values_equal_scikit_posthocs():
    nemenyi = rank_schemes(demsar_errors())["nemenyi_p"]
    got = [[nemenyi[a][b] for b in NAMES] for a in NAMES]
    assert np.asarray(got) == pytest.approx(np.asarray(SCIKIT_POSTHOCS_NEMENYI), rel=1e-12)
