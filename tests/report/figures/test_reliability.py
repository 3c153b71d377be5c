"""Reliability (calibration) curves of the schemes run with class probabilities (issue 30)."""

import json

import numpy as np
import pytest

from multisvm_cli.experiment.protocol.final import reliability_counts
from multisvm_cli.report.figures.reliability import curve, ece, reliability_figure, shared

CONFIG = """\
name: prob
dataset: [iris, wine]
split: {method: kfold, k: 3, seed: 0}
kernels: [{type: gaussian, sigma: [1, 3]}]
C: [1, 10]
schemes: [ovr, maxwins, nb]
scheme_options: {maxwins: {probability: true}}
"""


def test_bins_count_points_by_the_predicted_class_probability():
    proba = np.array([[0.95, 0.05], [0.55, 0.45], [0.3, 0.7], [0.62, 0.38], [0.5, 0.5]])
    truth = np.array([[1, 0], [0, 1], [0, 1], [1, 0], [1, 0]], dtype=float)
    bins = reliability_counts(proba, truth)
    assert bins["count"] == [0, 0, 0, 0, 0, 2, 1, 1, 0, 1]  # 0.55 and 0.5 share [0.5, 0.6)
    assert bins["right"] == [0, 0, 0, 0, 0, 1, 1, 1, 0, 1]  # 0.55 picks class 0: wrong
    assert np.allclose(bins["confidence"], [0, 0, 0, 0, 0, 1.05, 0.62, 0.7, 0, 0.95])
    x, y, n = curve(bins)
    assert np.allclose(x, [0.525, 0.62, 0.7, 0.95]) and np.allclose(y, [0.5, 1, 1, 1])
    assert n.tolist() == [2, 1, 1, 1]


HAND_MADE = {"count": [0, 0, 0, 0, 0, 2, 1, 1, 0, 1], "right": [0, 0, 0, 0, 0, 1, 1, 1, 0, 1],
             "confidence": [0, 0, 0, 0, 0, 1.05, 0.62, 0.7, 0, 0.95]}


def test_ece_is_the_points_mean_gap_between_accuracy_and_confidence():
    # bins (n, acc, conf): (2, 0.5, 0.525) (1, 1, 0.62) (1, 1, 0.7) (1, 1, 0.95), N = 5:
    # (2 x 0.025 + 0.38 + 0.30 + 0.05) / 5 = 0.78 / 5
    assert ece(HAND_MADE) == pytest.approx(0.156)
    calibrated = {"count": [0] * 7 + [4, 0, 0], "right": [0] * 7 + [3, 0, 0],
                  "confidence": [0] * 7 + [3.0, 0, 0]}  # 4 points at 0.75, 3 right
    assert ece(calibrated) == pytest.approx(0.0)


def _result(scheme, bins, log_loss):
    return {"dataset": "iris", "scheme": scheme, "reliability": bins, "log_loss": log_loss,
            "brier": 0.1}


def test_schemes_with_the_same_probabilities_are_drawn_once_under_a_joint_label():
    other = {**HAND_MADE, "right": [0, 0, 0, 0, 0, 2, 1, 0, 0, 1]}
    results = [_result("ovr", other, 0.4), _result("maxwins", HAND_MADE, 0.3),
               _result("dag", HAND_MADE, 0.3), _result("adag", HAND_MADE, 0.3),
               _result("ecoc", HAND_MADE, 0.35)]  # same bins, other log-loss: its own
    assert [schemes for schemes, _ in shared(results)] == [
        ["ovr"], ["maxwins", "dag", "adag"], ["ecoc"]]
    fig = reliability_figure("iris", results)
    top, counts = fig.axes
    legend = [text.get_text() for text in top.get_legend().get_texts()]
    # ovr's bins (n, acc, conf): (2, 1, 0.525) (1, 1, 0.62) (1, 0, 0.7) (1, 1, 0.95):
    # (2 x 0.475 + 0.38 + 0.7 + 0.05) / 5 = 2.08 / 5 = 0.416
    assert legend == ["1-v-r (ECE 0.416)", "Max Wins = DAGSVM = ADAG (ECE 0.156)",
                      "ECOC (ECE 0.156)"]
    assert len(top.collections) == 6  # 3 marker sets + 3 error bars, one per group
    joined = [line for line in top.lines if line.get_linestyle() not in ("None", "")]
    assert len(joined) == 1 and list(joined[0].get_xdata()) == [0, 1]  # the diagonal only
    heights = sorted(round(p.get_height()) for p in counts.patches if p.get_height() > 0)
    assert heights == [1] * 9 + [2] * 3  # each group's counts drawn once


@pytest.mark.slow
def test_a_run_pools_the_bins_and_draws_a_curve_per_dataset(tmp_path, mirror, data_home,
                                                             run_multisvm):
    config = tmp_path / "prob.yaml"
    config.write_text(CONFIG)
    run = run_multisvm("reproduce-table", config, "--out", tmp_path / "out")
    assert run.code == 0, run.err
    folder = tmp_path / "out" / "prob" / "latest"
    results = json.loads((folder / "results.json").read_text())["results"]
    header, _, *lines = run.out.split("\n\n")[0].splitlines()  # the narrow table
    assert "log-loss" in header and "Brier" in header and "--wide" in run.out
    shown = {tuple(line.split()[:2]): line.split() for line in lines}
    for result in results:  # Max Wins' pooled scores, as results.json keeps them
        if result["scheme"] == "maxwins":
            row = shown[(result["dataset"], "Max")]
            assert row[-2:] == [f"{result['log_loss']:.4f}", f"{result['brier']:.4f}"]
    page = (folder / "report.html").read_text()
    assert "<th>log-loss</th>" in page and "<th>Brier</th>" in page  # not behind the toggle
    best = min(r["log_loss"] for r in results if r["dataset"] == "iris" and "log_loss" in r)
    assert f"lowest log-loss: Max Wins {best:.4f}" in page
    for result in results:
        if result["scheme"] == "maxwins":  # pooled over the 3 folds: every point once
            bins = result["reliability"]
            assert sum(bins["count"]) == result["n_test"]
            assert all(0 <= r <= c for r, c in zip(bins["right"], bins["count"]))
            # right by the most probable class, which may differ from the vote's prediction
            assert abs(sum(bins["right"]) - (result["n_test"] - result["n_errors"])) <= 5
        else:
            assert "reliability" not in result  # no probabilities asked for
    figures = sorted(p.name for p in (folder / "figures").glob("reliability-*"))
    assert figures == ["reliability-iris.png", "reliability-wine.png"]
    for path in (folder / "figures").glob("reliability-*"):
        path.unlink()
    assert run_multisvm("report", folder).code == 0  # redrawn from results.json alone
    assert len(list((folder / "figures").glob("reliability-*"))) == 2
    assert "Calibration of the class probabilities" in (folder / "report.html").read_text()


@pytest.mark.parametrize("edit", [
    lambda b: b["count"].__setitem__(9, b["count"][9] + 1),      # no longer n_test points
    lambda b: b["right"].__setitem__(9, b["count"][9] + 1),      # more right than points
    lambda b: b["confidence"].__setitem__(9, -1.0),              # a negative probability sum
    lambda b: b.pop("right"),                                     # a list dropped
    lambda b: b["count"].__setitem__(9, "many"),                  # not a count
])
def test_report_refuses_edited_bins_in_one_line(tmp_path, mirror, data_home, run_multisvm, edit):
    config = tmp_path / "prob.yaml"
    config.write_text(CONFIG)
    assert run_multisvm("reproduce-table", config, "--out", tmp_path / "out", "-q",
                        "--no-figures").code == 0
    path = tmp_path / "out" / "prob" / "latest" / "results.json"
    results = json.loads(path.read_text())
    edit(next(r for r in results["results"] if r.get("reliability"))["reliability"])
    path.write_text(json.dumps(results))
    run = run_multisvm("report", path.parent)
    assert run.code == 2 and len(run.err.strip().splitlines()) == 1
    assert "result's reliability is not its test points' bins" in run.err
