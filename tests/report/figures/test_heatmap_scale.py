"""Grid heatmaps: one colour scale per dataset across its kernels, a constant grid without
offset text, the table's scheme order, and the frame's note when it is not the lowest mean."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from multisvm_cli.report.figures import heatmaps as hm


def grid(errors_by_point, splits=1):
    """grid.csv rows of iris: {(scheme, kernel_type, param, C): validation error (fraction)}."""
    rows = []
    for (scheme, kind, param, C), error in errors_by_point.items():
        for fold in range(splits):
            rows.append({"dataset": "iris", "scheme": scheme, "kernel_type": kind, "C": C,
                         "sigma": param if kind == "gaussian" else np.nan, "gamma": np.nan,
                         "degree": param if kind == "polynomial" else np.nan,
                         "homogeneous": False, "validation_error": error + 0.01 * fold,
                         "fold": fold, "repeat": 0, "n_validation": 32})
    return pd.DataFrame(rows)


def test_one_scale_per_dataset_across_kernels_in_the_table_order(tmp_path, monkeypatch):
    points = {}
    for scheme in ("dag", "ovr"):
        for C in (1.0, 10.0):
            points[(scheme, "gaussian", 1.0, C)] = 0.05
            points[(scheme, "gaussian", 2.0, C)] = 0.10
            points[(scheme, "polynomial", 2, C)] = 0.40 if C == 10.0 else 0.20
    drawn = []
    monkeypatch.setattr(hm, "save_figure", lambda fig, path, dpi=None: drawn.append(fig) or path)
    hm.grid_heatmaps(grid(points), {}, tmp_path, order=["ovr", "dag"])
    assert len(drawn) == 2
    for fig in drawn:
        maps = [ax for ax in fig.axes if ax.images]
        assert [ax.get_title() for ax in maps] == ["1-v-r", "DAGSVM"]  # the table's order
        assert [ax.images[0].get_clim() for ax in maps] == [pytest.approx((5.0, 40.0))] * 2
        assert maps[0].images[0].get_cmap().name == "viridis"
    assert "(32 validation points per split)" in drawn[0].texts[-2].get_text()


def test_constant_grid_has_a_plain_scale_without_offset_text():
    assert hm.colour_scale([37.5, 37.5, 37.5]) == (37.0, 38.0)
    assert hm.colour_scale([0.0, 0.0]) == (0.0, 1.0)
    cells = pd.DataFrame([[37.5, 37.5]], index=[1.0], columns=[1.0, 10.0])
    cells.attrs["axis"] = "sigma"
    fig = hm.heatmaps_figure([("ovr", cells, None)], "iris", "gaussian")
    bar = [ax for ax in fig.axes if not ax.images][0]
    FigureCanvasAgg(fig).draw()
    assert bar.yaxis.get_offset_text().get_text() == ""
    labels = [t.get_text() for t in bar.get_yticklabels()]
    assert labels and all("e" not in t for t in labels)


def test_the_note_says_when_the_frame_is_not_the_lowest_mean():
    # two folds: the framed point (C=10) is the most frequent choice, but C=1 has the lowest mean
    cells = pd.DataFrame([[4.0, 5.0]], index=[1.0], columns=[1.0, 10.0])
    cells.attrs["axis"] = "sigma"
    chosen = {"kernel": "gaussian", "sigma": 1.0, "C": 10.0}
    fig = hm.heatmaps_figure([("ovr", cells, chosen)], "iris", "gaussian", n_splits=2)
    assert fig.lowest_elsewhere == ["1-v-r"]
    note = fig.texts[-1].get_text()
    assert "chosen most often over the 2 folds" in note and "not the lowest mean for 1-v-r" in note
    fig = hm.heatmaps_figure([("ovr", cells, {**chosen, "C": 1.0})], "iris", "gaussian",
                             n_splits=2)
    assert fig.lowest_elsewhere == [] and "not the lowest" not in fig.texts[-1].get_text()
