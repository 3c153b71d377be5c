"""The run's figures: real PNG files of the expected pixel size, the selected point marked."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.image import imread
from matplotlib.patches import Rectangle

from multisvm_cli.report.figures import cd, dag_orders, drawing, tradeoff
from multisvm_cli.report.figures import heatmaps as hm
from multisvm_cli.report.figures.base import RunData, draw_figures
from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.report.ranking import rank_schemes

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def grid_frame(gamma=False):
    """iris x {ovr, dag} on 2 folds x 2 repeats: Gaussian 3 x 3, polynomial d=2,3 (both hom and
    inhom) x 2 C, linear x 3 C; NB at one point. Error = base + fold/100 (mean: base + 0.005):
    i + fold errors of 100 validation points at point i."""
    rows = []
    width = "gamma" if gamma else "sigma"
    points = ([("gaussian", {width: w}, c) for w in (1.0, 2.0, 4.0) for c in (1.0, 10.0, 100.0)]
              + [("polynomial", {"degree": d, "homogeneous": h}, c)
                 for d in (2, 3) for h in (True, False) for c in (1.0, 10.0)]
              + [("linear", {}, c) for c in (1.0, 10.0, 100.0)])
    for fold in (0, 1):
        for repeat in (0, 1):
            for scheme in ("ovr", "dag", "nb"):
                for i, (kernel_type, params, C) in enumerate(points[:1] if scheme == "nb"
                                                             else points):
                    rows.append({"dataset": "iris", "fold": fold, "repeat": repeat,
                                 "scheme": scheme, "kernel": kernel_type,
                                 "kernel_type": kernel_type, "C": C, "sigma": np.nan,
                                 "degree": np.nan, "homogeneous": np.nan, **params,
                                 "validation_error": 0.01 * i + fold / 100.0,
                                 "n_errors": i + fold, "n_validation": 100})
    return pd.DataFrame(rows)


def png_shape(path):
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    return imread(path).shape[:2]


def test_grid_heatmaps_write_one_png_per_kernel_with_a_panel_per_scheme(tmp_path):
    chosen = {("iris", "ovr"): {"kernel": "gaussian", "sigma": 2.0, "C": 100.0},
              ("iris", "dag"): {"kernel": "linear", "C": 10.0}}
    paths = hm.grid_heatmaps(grid_frame(), chosen, tmp_path / "figures")
    assert sorted(p.name for p in paths) == sorted(
        f"grid-iris-{k}.png" for k in ("gaussian", "polynomial", "linear"))
    # 2 panels (ovr, dag; NB has a single point: no panel) of 3 C x 3 sigma, 1-character ticks:
    # panel 2.2 x 1.3 in; width 0.515 + 2 x 2.2 + gap 0.315 + 1.0 = 6.23 in, height
    # 0.85 + 1.3 + 0.75 = 2.9 in, at 150 dpi
    assert png_shape(tmp_path / "figures" / "grid-iris-gaussian.png") == (435, 934)
    # polynomial rows "d=2 hom" ... (9 characters): wider margins, 4 rows of 0.3 in
    assert png_shape(tmp_path / "figures" / "grid-iris-polynomial.png") == (
        round(150 * (0.85 + 1.6 + 0.75)), round(150 * (1.035 + 2 * 2.2 + 0.835 + 1.0)))
    assert not list((tmp_path / "figures").glob(".*tmp"))  # no temporary file left behind


def test_one_figure_holds_every_scheme_on_one_colour_scale():
    rows = grid_frame()
    gaussian = rows[rows.kernel_type == "gaussian"]
    panels = [(s, hm.heatmap_cells(gaussian[gaussian.scheme == s]), None)
              for s in ("ovr", "dag")]
    panels[1] = ("dag", panels[1][1] + 10.0, {"kernel": "gaussian", "sigma": 4.0, "C": 1.0})
    fig = hm.heatmaps_figure(panels, "iris", "gaussian", n_splits=4)
    maps = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in maps] == ["1-v-r", "DAGSVM"]
    limits = [ax.images[0].get_clim() for ax in maps]
    assert limits[0] == limits[1] == (pytest.approx(0.5), pytest.approx(18.5))  # 0.5..8.5+10
    assert fig.selected_cells == {"ovr": None, "dag": (2, 0)}
    assert len(fig.axes) == 3  # two maps and one shared colour bar


def test_heatmap_cells_average_folds_and_repeats_and_mark_the_choice():
    rows = grid_frame()
    gaussian = rows[(rows.scheme == "ovr") & (rows.kernel_type == "gaussian")]
    cells = hm.heatmap_cells(gaussian)
    assert list(cells.index) == [1.0, 2.0, 4.0] and list(cells.columns) == [1.0, 10.0, 100.0]
    # point i = 5 is sigma=2, C=100: 100 * (0.05 + mean fold offset 0.005) = 5.5 %
    assert cells.loc[2.0, 100.0] == pytest.approx(5.5)
    chosen = {"kernel": "gaussian", "sigma": 2.0, "C": 100.0}
    fig = hm.heatmaps_figure([("ovr", cells, chosen)], "iris", "gaussian", n_splits=4)
    assert fig.selected_cells["ovr"] == (1, 2)
    ax = fig.axes[0]
    frames = [p for p in ax.patches if isinstance(p, Rectangle) and "selected" in p.get_label()]
    assert len(frames) == 1 and frames[0].get_xy() == (1.5, 0.5)
    labels = [t.get_text() for t in fig.texts]  # each axis label once, for all panels
    assert sum("sigma" in t for t in labels) == 1 and sum(t.startswith("C") for t in labels) == 1
    assert ax.get_title() == "1-v-r" and any("mean of 4 folds x repeats" in t for t in labels)
    texts = [t.get_text() for t in ax.texts]
    # few validation points (4 splits x 100): errors as counts, summed over the splits:
    # 5 + 0, 5 + 1, 5 + 0, 5 + 1 = 22 of 400
    assert "22/400" in texts and len(texts) == 9  # every cell annotated
    assert any("errors / validation points" in t for t in labels)


def test_gamma_polynomial_and_linear_axes(tmp_path):
    rows = grid_frame(gamma=True)
    ovr = rows[rows.scheme == "ovr"]
    gaussian = hm.heatmap_cells(ovr[ovr.kernel_type == "gaussian"])
    assert gaussian.attrs["axis"] == "gamma"
    chosen = {"kernel": "gaussian", "gamma": 4.0, "C": 1.0}
    fig = hm.heatmaps_figure([("ovr", gaussian, chosen)], "iris", "gaussian")
    assert fig.selected_cells["ovr"] == (2, 0) and "gamma" in fig.texts[0].get_text()
    poly = hm.heatmap_cells(ovr[ovr.kernel_type == "polynomial"])
    assert list(poly.index) == ["d=2 hom", "d=2 inhom", "d=3 hom", "d=3 inhom"]
    chosen = {"kernel": "polynomial", "degree": 3, "homogeneous": False, "C": 10}
    fig = hm.heatmaps_figure([("ovr", poly, chosen)], "iris", "polynomial")
    assert fig.selected_cells["ovr"] == (3, 1)
    linear = hm.heatmap_cells(ovr[ovr.kernel_type == "linear"])
    assert linear.shape == (1, 3)
    chosen = {"kernel": "linear", "C": 100.0}
    fig = hm.heatmaps_figure([("ovr", linear, chosen)], "iris", "linear")
    assert fig.selected_cells["ovr"] == (0, 2)
    # a choice on another kernel is not marked on this one
    chosen = {"kernel": "gaussian", "C": 1.0}
    fig = hm.heatmaps_figure([("ovr", linear, chosen)], "iris", "linear")
    assert fig.selected_cells["ovr"] is None
    path = drawing.save_figure(fig, tmp_path / "linear.png")
    # one panel, 3 C, tick "linear" (6 characters): 0.84 + 2.2 + 1.0 in wide, 2.9 in high
    assert png_shape(path) == (435, 606)


def table_rows():
    rows = []
    for dataset, offset in (("iris", 0.0), ("wine", 1.0), ("digits", 2.0)):
        for scheme, error, sd, evals in (("ovr", 4.0, 1.0, 120.0), ("dag", 3.0, 0.5, 40.0),
                                         ("maxwins", 3.5, None, 150.0), ("nb", 9.0, 2.0, 0.0)):
            rows.append({"dataset": dataset, "scheme": scheme, "error_pct": error + offset,
                         "error_sd": sd, "kernel_evaluations": evals})
    rows.append({"dataset": "iris", "scheme": "udt", "paper_error_pct": 5.0})  # paper only
    return rows


def test_tradeoff_one_figure_per_dataset(tmp_path):
    paths = tradeoff.tradeoff(table_rows(), tmp_path)
    assert [p.name for p in paths] == ["tradeoff-iris.png", "tradeoff-wine.png",
                                       "tradeoff-digits.png"]
    assert png_shape(paths[0]) == (750, 1125)
    fig = tradeoff.tradeoff_figure("wine", [r for r in table_rows() if r["dataset"] == "wine"])
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and "kernel evaluations" in ax.get_xlabel()
    assert "test error (%)" in ax.get_ylabel()
    labels = ax.get_legend_handles_labels()[1]
    assert sorted(labels) == ["1-v-r", "DAGSVM", "Max Wins", "NB (no kernel evaluations)"]
    nb_line = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert list(nb_line[0].get_ydata()) == [10.0, 10.0]  # wine: NB at 9 + 1 %
    points = {tuple(line.get_xydata()[0]) for line in ax.lines if line.get_marker() != "None"}
    assert (40.0, 4.0) in points and (120.0, 5.0) in points


def test_cd_diagram_joins_groups_not_significantly_different(tmp_path):
    errors = pd.DataFrame({"ovr": [5.0, 3.0, 8.0, 2.0, 6.0], "maxwins": [4.0, 3.5, 7.0, 1.0, 5.0],
                           "dag": [4.5, 2.0, 6.0, 1.5, 4.0], "nb": [9.0, 8.0, 9.5, 7.0, 9.0]})
    ranking = rank_schemes(errors)
    # ranks counted by hand: dag 7/5, maxwins 9/5, ovr 14/5, nb 4; CD(k=4, N=5) = 2.10
    assert ranking["different_pairs"] == [["maxwins", "nb"], ["dag", "nb"]]
    fig = cd.cd_figure(ranking)
    assert fig.cliques == [["dag", "maxwins", "ovr"], ["ovr", "nb"]]
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert f"CD = {ranking['critical_difference']:.2f}" in texts
    assert "DAGSVM (1.40)" in texts and "(4.00) NB" in texts
    assert "Friedman chi-square p = " in fig.axes[0].get_title()
    assert fig.axes[0].get_title().endswith(  # both of Demsar's conditions fail: both named
        "caution: 5 datasets and 4 schemes, Demsar asks for N > 10 datasets and k > 5 schemes: "
        "the test has little power")
    path = cd.cd_diagram(ranking, tmp_path / "figures" / "cd-diagram.png")
    height = 150 * (1.9 + 0.32 * 2 + 0.12 * 2 + 0.15)  # + the caution's line (N = 5)
    assert png_shape(path)[1] == 1200 and abs(png_shape(path)[0] - height) <= 1


def test_cd_diagram_two_schemes(tmp_path):
    ranking = rank_schemes(pd.DataFrame({"ovr": [5.0, 3.0, 8.0], "dag": [4.0, 3.5, 7.0]}))
    fig = cd.cd_figure(ranking)
    assert fig.cliques == [["dag", "ovr"]]  # Wilcoxon: not significant on 3 datasets
    assert "Wilcoxon signed-rank p" in fig.axes[0].get_title()
    assert not any(t.get_text().startswith("CD =") for t in fig.axes[0].texts)


def test_dag_orders_histogram(tmp_path):
    errors = [4.0, 4.5, 4.5, 5.0, 3.5, 4.0]
    evals = [30.0, 31.0, 30.5, 29.0, 30.0, 32.0]
    path = dag_orders.dag_orders_histogram(errors, evals, 4.5, tmp_path / "dag-orders-iris.png",
                                   dataset="iris")
    assert png_shape(path) == (630, 1500)
    fig = dag_orders.dag_orders_figure(errors, evals, 4.5, "iris")
    left = fig.axes[0]
    marked = [line for line in left.lines if "natural order" in line.get_label()]
    assert list(marked[0].get_xdata()) == [4.5, 4.5]
    assert sum(p.get_height() for p in left.patches) == len(errors)
    assert "6 random class orders" in fig.texts[0].get_text()
    labels = [ax.get_ylabel() for ax in fig.axes]  # each axis label once
    assert labels == ["number of class orders", ""]
    with pytest.raises(ValueError, match="at least one class order"):
        dag_orders.dag_orders_figure([], [], 1.0)


def test_draw_figures_names_the_files(tmp_path):
    chosen = {("iris", "ovr"): {"kernel": "gaussian", "sigma": 1.0, "C": 1.0}}
    rows = grid_frame()
    rows = rows[(rows.scheme == "ovr") & (rows.kernel_type == "gaussian")]
    ranking = rank_schemes(pd.DataFrame({"ovr": [1.0, 2.0, 3.0], "dag": [2.0, 1.0, 1.0],
                                         "nb": [3.0, 4.0, 5.0]}))
    study = {"iris": {"errors_pct": [1.0, 2.0], "kernel_evaluations": [3.0, 3.0],
                      "selected_error": 1.0}}
    data = RunData(values={"grid": rows, "chosen": chosen, "table_rows": table_rows()[:4],
                           "ranking": ranking, "dag_orders": study})
    paths = draw_figures(data, tmp_path / "figures")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in paths) == [
        "figures/cd-diagram.png", "figures/dag-orders-iris.png",
        "figures/grid-iris-gaussian.png", "figures/tradeoff-iris.png"]


def test_bad_grid_rows_fail_with_one_line(tmp_path):
    with pytest.raises(MultisvmError, match="lack the column.s. validation_error"):
        hm.grid_heatmaps(grid_frame().drop(columns="validation_error"), {}, tmp_path)
    with pytest.raises(MultisvmError, match="unknown kernel_type sigmoid"):
        hm.grid_heatmaps(grid_frame().assign(kernel_type="sigmoid"), {}, tmp_path)
    assert not list(tmp_path.iterdir())


def test_tradeoff_within_a_decade_labels_every_tick():
    rows = [{"dataset": "vehicle", "scheme": s, "error_pct": e, "error_sd": 4.0,
             "kernel_evaluations": k}
            for s, e, k in (("dag", 16.8, 210.0), ("maxwins", 16.6, 358.0), ("ovr", 15.1, 421.0))]
    fig = tradeoff.tradeoff_figure("vehicle", rows)
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels(minor=True) if t.get_text()]
    assert "300" in labels and "400" in labels  # no power of ten in 210..421
    wide = tradeoff.tradeoff_figure("digits", [{**rows[0], "kernel_evaluations": 30.0}, rows[2]])
    FigureCanvasAgg(wide).draw()
    minor = [t.get_text() for t in wide.axes[0].get_xticklabels(minor=True) if t.get_text()]
    assert "300" not in minor and "200" in minor  # a decade or more: 2 and 5 only
