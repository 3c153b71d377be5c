"""Figures that do not overstate: 95% intervals (Wilson's; the fold spread), an error axis from
0, powers of 2 on a power-of-2 grid, counts where validation points are few, linear models
named as such."""

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from scipy import stats

from multisvm_cli.report.figures import drawing, sweep, tradeoff
from multisvm_cli.report.figures import heatmaps as hm
from multisvm_cli.report.intervals import error_interval, n_splits, spread, wilson

Z = stats.norm.ppf(0.975)


@pytest.mark.parametrize("errors, n", [(1, 45), (7, 200), (100, 200), (3, 10)])
def test_wilson_endpoints_solve_the_score_equation(errors, n):
    """Wilson's interval is {p: (k/n - p)^2 <= z^2 p (1 - p) / n}: its ends are the roots."""
    low, high = wilson(errors, n)
    for p in (low, high):
        assert (errors / n - p) ** 2 == pytest.approx(Z * Z * p * (1 - p) / n, rel=1e-9)
    assert low < errors / n < high


def test_wilson_at_zero_errors_and_symmetry():
    assert wilson(0, 54) == (0.0, pytest.approx(Z * Z / (54 + Z * Z)))  # 6.64%
    low, high = wilson(50, 100)
    assert low + high == pytest.approx(1.0)
    with pytest.raises(ValueError, match="0 <= errors <= n"):
        wilson(5, 3)


def test_fold_spread_and_which_interval_a_row_gets():
    # J = 6 splits, SD 1.2: half-width t(0.975, 5) 1.2 / sqrt 6 = 2.5706 x 0.4899 = 1.2593
    assert spread(4.0, 1.2, 6) == (pytest.approx(2.7407, abs=1e-4), pytest.approx(5.2593, abs=1e-4))
    assert spread(0.5, 1.2, 6)[0] == 0.0  # never below 0
    row = {"error_pct": 100 / 45, "error_sd": 1.2, "n_test": 45}
    assert error_interval(row, 6)[2] == "fold spread"
    low, high, how = error_interval(row, 1)
    assert how == "Wilson" and (low, high) == tuple(pytest.approx(100 * b) for b in wilson(1, 45))
    assert error_interval({"error_pct": 2.0}, 1) is None
    assert n_splits({"results": [{"dataset": "a", "scheme": "b", "splits": [{}, {}, {}]},
                                 {"dataset": "a", "scheme": "c"}]}) == {("a", "b"): 3,
                                                                        ("a", "c"): 1}


def test_tradeoff_draws_intervals_from_zero_and_names_linear_models():
    """The figure of issue 32: 4.40% and 4.80% of 1,000 points (McNemar p = 0.5). Its error
    axis includes 0 and each marker carries its Wilson interval."""
    rows = [{"scheme": "dag", "error_pct": 4.4, "n_test": 1000, "kernel_evaluations": 40.0},
            {"scheme": "ovr", "error_pct": 4.8, "n_test": 1000, "kernel_evaluations": 90.0,
             "primal": True}]
    fig = tradeoff.tradeoff_figure("usps", rows)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert -0.05 * high < low < 0.0 and high > 5.0  # 0 on the axis, not 4.4 to 4.8
    for row in rows:
        low, high = (100 * b for b in wilson(round(row["error_pct"] * 10), 1000))
        assert fig.intervals[row["scheme"]] == (pytest.approx(low), pytest.approx(high), "Wilson")
    segments = [c for c in ax.collections if len(c.get_segments())]
    ends = sorted(tuple(np.round(s[:, 1], 6)) for c in segments for s in c.get_segments())
    assert ends == sorted((round(fig.intervals[s][0], 6), round(fig.intervals[s][1], 6))
                          for s in ("dag", "ovr"))
    assert "1-v-r (linear model)" in ax.get_legend_handles_labels()[1]
    assert "linear models: dot products with weight vectors" in ax.get_xlabel()
    assert "95% interval (Wilson)" in ax.get_title()
    assert ax.get_title().startswith("usps: test error vs. kernel evaluations")  # mixed
    alone = tradeoff.tradeoff_figure("usps", rows[1:]).axes[0]
    assert alone.get_title().startswith("usps: test error vs. dot products per test point")
    assert alone.get_xlabel().startswith("dot products with weight vectors per test point")


def test_powers_of_two_ticks():
    grid = [2.0 ** k for k in range(-9, 4, 2)]
    assert drawing.tick_labels(grid)[0] == "$2^{-9}$" and drawing.tick_labels(grid)[-1] == "$2^{3}$"
    assert drawing.tick_labels([0.1, 1.0, 10.0]) == ["0.1", "1", "10"]
    assert drawing.tick_labels([1.0, 2.0]) == ["1", "2"]  # two values are no grid
    assert not drawing.powers_of_two([0.5, 1.0, 3.0])
    rows = pd.DataFrame([{"dataset": "usps", "scheme": "ovr", "kernel_type": "gaussian",
                          "C": C, "gamma": gamma, "sigma": np.nan, "validation_error": 0.1,
                          "n_errors": 100, "n_validation": 1000}
                         for gamma in (2.0 ** -9, 2.0 ** -7, 2.0 ** -5) for C in (1.0, 10.0)])
    fig = hm.heatmaps_figure([("ovr", hm.heatmap_cells(rows), None)], "usps", "gaussian")
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["$2^{-9}$", "$2^{-7}$", "$2^{-5}$"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "10"]


def test_cells_show_counts_when_few_points_else_enough_decimals():
    assert hm.cell_text(5.5, (22.0, 400.0)) == "22/400"
    # 10,000 points: one error is 0.01%, which a 0.1% rounding would hide: 2 decimals;
    # 12,000 points: one error is 0.0083%: 3 decimals (at most 3)
    assert hm.cell_text(4.41, (441.0, 10000.0)) == "4.41"
    assert hm.cell_text(4.4083, (529.0, 12000.0)) == "4.408"
    assert hm.cell_text(4.40833, (5290.0, 120000.0)) == "4.408"
    assert hm.cell_text(4.44, None) == "4.4"  # grid.csv without counts


def test_heatmap_of_a_linear_model_says_so():
    rows = pd.DataFrame([{"dataset": "20ng", "scheme": "ovr", "kernel_type": "linear", "C": C,
                          "validation_error": 0.2, "n_errors": 20, "n_validation": 100}
                         for C in (0.5, 1.0, 2.0)])
    cells = hm.heatmap_cells(rows)
    cells.attrs["linear_model"] = True
    fig = hm.heatmaps_figure([("ovr", cells, None)], "20ng", "linear")
    assert fig.axes[0].get_title() == "1-v-r (linear model)"
    assert any(t.get_text().startswith("20ng, linear models: validation error") for t in fig.texts)
    assert any("linear model $w \\cdot x + b$" in t.get_text() for t in fig.texts)
    FigureCanvasAgg(fig).draw()
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["$2^{-1}$", "$2^{0}$",
                                                                     "$2^{1}$"]


def test_sweep_error_band_is_the_95_percent_interval():
    frame = pd.DataFrame([{"sweep": "classes", "value": v, "dataset": "letter", "scheme": "ovr",
                           "repeat": r, "n_test": 500, "error_pct": e, "cpu_time": 1.0 + r}
                          for v, r, e in ((2, 0, 4.0), (2, 1, 6.0), (4, 0, 2.0))])
    band = sweep._band(frame[frame.value == 2], "error_pct")
    half = stats.t.ppf(0.975, 1) * math.sqrt(2.0) / math.sqrt(2)  # SD of 4, 6 = sqrt 2
    assert band.loc[2, ["low", "high"]].tolist() == [0.0, pytest.approx(5.0 + half)]
    band = sweep._band(frame[frame.value == 4], "error_pct")  # one repeat: Wilson's, 10 of 500
    assert band.loc[4, ["low", "high"]].tolist() == [pytest.approx(100 * b) for b in
                                                     wilson(10, 500)]
    cpu = sweep._band(frame[frame.value == 2], "cpu_time")  # other panels: min to max
    assert cpu.loc[2, ["low", "high"]].tolist() == [1.0, 2.0]
