"""The verdict across datasets: Holm-corrected Wilcoxon signed-rank tests (checked against
Demsar 2006's worked example, exact p-values counted by hand and Holm's procedure by hand),
the Bayesian signed-rank test (checked against baycomp, Benavoli et al.'s own package), its
figure, the ``rope`` config key, and the verdict of a run folder saved before it existed.

autorank is not used as a cross-check: its post-hoc test is Nemenyi's (and a one-sided
Wilcoxon for exactly two populations), it has no Holm-corrected pairwise Wilcoxon, and it
pulls in statsmodels; the Holm numbers are checked by hand instead."""

import json
import math
from itertools import combinations

import baycomp
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from .test_ranking import NAMES, demsar_errors

from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.experiment import load_config
from multisvm_cli.report.ranking import rank_schemes
from multisvm_cli.report.verdict import (ON_BOUND, across_datasets_text, bayes_decision,
                                         bayes_signed_rank, compare_pairs, holm,
                                         ranking_with_verdict, signed_rank, verdict_text)
from multisvm_cli.report.figures.bayes import bayes_diagram, bayes_figure

# three schemes on six datasets, built so that every |difference| is distinct (exact p-values):
# b is worse than a everywhere; c beats a only on the first dataset, by the smallest margin
BASE = np.array([5.0, 10.0, 2.0, 7.0, 12.0, 3.0])
THREE = pd.DataFrame({"a": BASE, "b": BASE + [1, 2, 3, 4, 5, 6],
                      "c": BASE + [-1.5, 2.2, 3.9, 4.1, 5.8, 7.3]})


def exact_p(t, n):
    """Two-sided exact Wilcoxon p: 2 P(T <= t), counting the 2^n sign patterns by hand."""
    count = sum(1 for r in range(n + 1) for subset in combinations(range(1, n + 1), r)
                if sum(subset) <= t)
    return min(1.0, 2 * count / 2**n)


def test_exact_p_values_and_holm_by_hand():
    verdict = compare_pairs(THREE)
    pairs = {(p["a"], p["b"]): p for p in verdict["pairs"]}
    # average ranks a 7/6, b 13/6, c 16/6: the pairs come better-ranked first
    assert list(pairs) == [("a", "b"), ("a", "c"), ("b", "c")]
    # a vs b: a better on all 6, T = 0; a vs c: c better only at rank 1, T = 1;
    # b vs c: |d| = 2.5, .2, .9, .1, .8, 1.3, c better only on the largest (rank 6), T = 6
    assert [pairs[k]["wilcoxon"]["statistic"] for k in pairs] == [0.0, 1.0, 6.0]
    assert pairs["b", "c"]["wilcoxon"]["r_plus"] == 15.0
    assert pairs["b", "c"]["wilcoxon"]["r_minus"] == 6.0
    raw = [pairs[k]["wilcoxon"]["p_value"] for k in pairs]
    assert exact_p(0, 6) == 2 / 64 and exact_p(1, 6) == 4 / 64 and exact_p(6, 6) == 28 / 64
    assert raw == pytest.approx([2 / 64, 4 / 64, 28 / 64], rel=1e-12)
    # Holm over m = 3: 3 x 0.03125, max(that, 2 x 0.0625), max(that, 1 x 0.4375)
    assert [pairs[k]["wilcoxon"]["p_holm"] for k in pairs] == pytest.approx(
        [0.09375, 0.125, 0.4375], rel=1e-12)
    assert pairs["a", "b"]["wins"] == [6, 0, 0] and pairs["a", "c"]["wins"] == [5, 0, 1]
    assert pairs["a", "b"]["mean_difference"] == pytest.approx(-3.5)
    # a raw p of 0.031 is not significant once corrected for three pairs ...
    assert ("no pair differs at alpha = 0.05 (the closest: a vs b, p = 0.0312, Holm-adjusted "
            "0.0938).") in verdict_text(verdict)
    # ... and is at alpha = 0.10
    at_10 = verdict_text(compare_pairs(THREE, alpha=0.10))
    assert "Holm-corrected for 3 pairs (Demsar 2006): a better than b (p = 0.0312, Holm " \
           "0.0938)." in at_10
    json.dumps(verdict, allow_nan=False)  # plain data for results.json


def test_holm_step_down_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06,
    # max(0.06, 1 x 0.04) = 0.06 (adjusted p-values never decrease down the sorted list)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1
    assert holm([0.2]) == [0.2]


def test_wilcoxon_is_demsars_worked_example():
    # Demsar (2006), section 3.1.3: C4.5+m against C4.5 over the 14 datasets of his Table 2:
    # R+ = 93, R- = 12 (zero differences split), T = 12, below the critical value 21 for
    # N = 14 at alpha = 0.05; with ties, p comes from the normal approximation
    errors = demsar_errors()
    d = errors["C4.5+m"].to_numpy() - errors["C4.5"].to_numpy()
    test = signed_rank(d)
    assert (test["r_plus"], test["r_minus"], test["statistic"]) == (93.0, 12.0, 12.0)
    n = 14
    ties = np.unique(np.round(np.abs(d), 9), return_counts=True)[1]  # two zeros, two 0.5s
    assert sorted(ties[ties > 1]) == [2, 2]
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - sum(t**3 - t for t in ties) / 48)
    z = (12 - n * (n + 1) / 4) / sd
    assert z == pytest.approx(-2.5437, abs=1e-4)
    assert test["p_value"] == pytest.approx(2 * stats.norm.cdf(z), rel=1e-9)
    assert test["p_value"] < 0.05  # as Demsar concludes
    assert test["p_value"] == pytest.approx(stats.wilcoxon(
        errors["C4.5+m"], errors["C4.5"], zero_method="zsplit").pvalue, rel=1e-12)
    # all six pairs through compare_pairs: each p is scipy's on the differences rounded to
    # 1e-9 points, Holm over 6 by hand
    verdict = compare_pairs(errors)
    raw = [p["wilcoxon"]["p_value"] for p in verdict["pairs"]]
    for pair, p in zip(verdict["pairs"], raw):
        rounded = np.round(errors[pair["a"]] - errors[pair["b"]], 9)
        assert p == pytest.approx(stats.wilcoxon(rounded, zero_method="zsplit").pvalue,
                                  rel=1e-12)
    # unrounded, 100 (1 - AUC) makes ties of AUC differences differ by float noise: the
    # C4.5+m+cf vs C4.5+m p would move from 0.43206 (ties kept) to 0.43217
    first = verdict["pairs"][0]
    assert (first["a"], first["b"], round(raw[0], 5)) == ("C4.5+m+cf", "C4.5+m", 0.43206)
    assert stats.wilcoxon(errors["C4.5+m+cf"], errors["C4.5+m"],
                          zero_method="zsplit").pvalue == pytest.approx(0.43217, abs=1e-5)
    order = np.argsort(raw)
    by_hand = np.maximum.accumulate([(6 - i) * raw[j] for i, j in enumerate(order)])
    assert [verdict["pairs"][j]["wilcoxon"]["p_holm"] for j in order] == pytest.approx(
        np.minimum(by_hand, 1.0))
    assert signed_rank(np.zeros(4)) == {"statistic": 5.0, "r_plus": 5.0, "r_minus": 5.0,
                                        "p_value": 1.0}


@pytest.mark.parametrize("seed, rope", [(0, 1.0), (7, 0.5), (3, 2.0), (11, 0.0)])
def test_bayesian_signed_rank_is_baycomps(seed, rope):
    rng = np.random.RandomState(seed)
    for n in (3, 8, 14):
        err_a = rng.uniform(1, 20, n)
        err_b = err_a + rng.normal(0.6, 1.5, n)
        ours = bayes_signed_rank(err_a - err_b, rope, seed=seed, n_samples=20_000)
        # baycomp takes scores (higher better): accuracies; its "left" is the first better
        theirs = baycomp.SignedRankTest.probs(100 - err_a, 100 - err_b, rope=rope,
                                              nsamples=20_000, random_state=seed)
        if rope == 0:  # baycomp returns (left, right) without a ROPE
            theirs = (theirs[0], 0.0, theirs[1])
        assert [ours[k] for k in ("p_left", "p_rope", "p_right")] == pytest.approx(
            theirs, abs=0.01)
        assert sum(ours.values()) == pytest.approx(1.0)


def test_bayesian_verdict_on_demsars_data_against_baycomp():
    errors = demsar_errors()
    verdict = compare_pairs(errors, rope=1.0, seed=5, n_samples=20_000)
    assert verdict["bayes"] == {"samples": 20_000, "prior": 0.5, "seed": 5, "decide": 0.95}
    for pair in verdict["pairs"]:
        theirs = baycomp.SignedRankTest.probs(100 - errors[pair["a"]].to_numpy(),
                                              100 - errors[pair["b"]].to_numpy(), rope=1.0,
                                              nsamples=20_000, random_state=5)
        assert list(pair["bayes"].values()) == pytest.approx(theirs, abs=0.01)
    # C4.5+m+cf (best average rank) against C4.5 (worst): 0.965 more than 1 point better
    worst = next(p for p in verdict["pairs"] if (p["a"], p["b"]) == ("C4.5+m+cf", "C4.5"))
    assert worst["bayes"]["p_left"] == pytest.approx(0.965, abs=0.01)
    assert bayes_decision(worst["bayes"]) == "left"
    assert "  C4.5+m+cf vs C4.5: 0.96" in verdict_text(verdict)


def test_bayesian_decisions_and_bounds():
    # every difference within the ROPE: each pair sum is too, so theta_rope = 1 in every sample
    inside = bayes_signed_rank(np.array([0.3, -0.2, 0.5, 0.1]), 1.0, n_samples=1000)
    assert inside == {"p_left": 0.0, "p_rope": 1.0, "p_right": 0.0}
    assert bayes_decision(inside) == "rope"
    # every d_i < -2r: every pair sum but d_0 + d_0 = 0 is below -2r, so theta_left = 1 - w_0^2
    # and theta_rope = w_0^2 with w_0 ~ Beta(0.5, N): P(rope) = P(w_0 > 1/sqrt 2) exactly
    for n in (3, 6):
        d = -np.linspace(2.5, 10.0, n)
        left = bayes_signed_rank(d, 1.0, seed=n)
        assert left["p_rope"] == pytest.approx(stats.beta(0.5, n).sf(2**-0.5), abs=0.002)
        assert left["p_right"] == 0.0 and bayes_decision(left) == "left"
    right = bayes_signed_rank(np.full(10, 3.0), 1.0, n_samples=2000)  # b better, mirrored
    assert right["p_right"] > 0.99 and bayes_decision(right) == "right"
    # sums exactly on 2r (here 1 + 1 = 2 x 1) count half to each side, float noise included
    edge = bayes_signed_rank(np.array([1.0, 1.0 + ON_BOUND / 10]), 1.0, n_samples=5000, seed=1)
    twin = bayes_signed_rank(np.array([1.0, 1.0]), 1.0, n_samples=5000, seed=1)
    assert edge == twin
    assert bayes_decision({"p_left": 0.5, "p_rope": 0.45, "p_right": 0.05}) == "undecided"
    with pytest.raises(MultisvmError, match="rope must be a number of points >= 0"):
        compare_pairs(THREE, rope=-1.0)
    with pytest.raises(MultisvmError, match="at least 2 schemes on at least 2 datasets"):
        compare_pairs(THREE.iloc[:1])


def test_figure_draws_the_probabilities(tmp_path):
    verdict = compare_pairs(demsar_errors(), seed=5)
    fig = bayes_figure(verdict)
    assert [bar[0] for bar in fig.bars] == [f"{p['a']} vs {p['b']}" for p in verdict["pairs"]]
    for bar, pair in zip(fig.bars, verdict["pairs"]):
        assert bar[1:4] == tuple(pair["bayes"].values())
        assert bar[4] == bayes_decision(pair["bayes"])
    ax = fig.axes[0]
    widths = sorted(round(p.get_width(), 6) for p in ax.patches if p.get_width() > 0)
    expected = sorted(round(v, 6) for p in verdict["pairs"] for v in p["bayes"].values()
                      if v > 0)
    assert widths == expected  # one segment per nonzero probability, as wide as it
    at = {t.get_position()[1]: t.get_text() for t in ax.get_yticklabels()}
    assert at[max(at)] == fig.bars[0][0] and at[min(at)] == fig.bars[-1][0]  # first on top
    path = bayes_diagram(verdict, tmp_path / "bayes-signed-rank.png")
    height = 150 * (1.45 + 0.32 * 6)  # 150 dpi, 6 pairs
    image = path.read_bytes()
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    width_px, height_px = int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")
    assert width_px == 150 * 8.5 and abs(height_px - height) <= 1


def test_old_run_folder_gets_its_verdict_from_the_table():
    errors = demsar_errors().iloc[:5]
    errors.index = [f"set{i}" for i in range(5)]
    table = [{"dataset": d, "scheme": s, "error_pct": float(errors.loc[d, s])}
             for d in errors.index for s in NAMES]
    ranking = rank_schemes(errors)
    old = {"table": table, "ranking": ranking}
    filled = ranking_with_verdict(old)
    assert "verdict" not in ranking  # the saved document is left as it was
    assert filled["verdict"] == compare_pairs(errors, rope=1.0, seed=0)
    text = across_datasets_text(filled)
    assert text.startswith("Average rank over 5 datasets")
    assert "Bayesian signed-rank test over the 5 datasets" in text
    assert "with 5 datasets even an exact test cannot go below p = 0.0625." in text  # 2 / 2^5
    saved = {**ranking, "verdict": compare_pairs(errors, rope=3.0)}
    assert ranking_with_verdict({"table": table, "ranking": saved}) is saved
    assert ranking_with_verdict({"table": table}) is None


def test_report_html_of_an_old_run_folder_shows_the_verdict(tmp_path):
    from .test_report_html import ROWS, fake_run

    from multisvm_cli.report.html import write_report

    run = fake_run(tmp_path / "run")  # its results.json's ranking has no verdict
    assert "verdict" not in json.loads((run / "results.json").read_text())["ranking"]
    text = write_report(run).read_text()
    errors = pd.DataFrame({s: [r["error_pct"] for r in ROWS if r["scheme"] == s]
                           for s in ("ovr", "dag")})
    pair = compare_pairs(errors)["pairs"][0]  # ovr (4.44, 0) vs dag (2.22, 1.85): one win each
    assert (pair["a"], pair["b"]) == ("ovr", "dag")  # tied average ranks: the table's order
    probs = "".join(f"<td>{pair['bayes'][o]:.3f}</td>" for o in ("p_left", "p_rope", "p_right"))
    assert "<td>1-v-r</td><td>DAGSVM</td>" in text and f"{probs}<td>undecided</td>" in text
    assert "the 1 pair undecided (every pair&#x27;s probabilities" in text
    assert text.index("Friedman") < text.index("Holm-corrected for 1 pair (Demsar 2006)")


def test_rope_config_key(tmp_path, run_multisvm):
    from configs import write_config

    assert load_config(write_config(tmp_path)).rope == 1.0
    config = load_config(write_config(tmp_path, rope=2.5))
    assert config.rope == 2.5 and config.resolved["rope"] == 2.5
    assert load_config(write_config(tmp_path, rope=0)).rope == 0.0
    for value, message in ((-1, "rope: must be from 0 to 50 points of test error (1 = one "
                                "point of accuracy), got -1"),
                           (60, "must be from 0 to 50 points of test error"),
                           ("wide", "rope: expected a number, got 'wide'"),
                           (True, "rope: expected a number, got True"),
                           (float("nan"), "rope: expected a number")):
        path = write_config(tmp_path, rope=value)
        code, _, err = run_multisvm("validate", path)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, err
        assert lines[0].startswith(f"error: {path}:8: ") and message in lines[0], err
