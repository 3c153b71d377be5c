"""``grid-<dataset>-<kernel_type>``: mean validation error over the grid, a panel per scheme.

One file per dataset x kernel type (not per scheme), every panel of a dataset on one colour
scale (viridis), the selected point framed. Each cell is labelled with its errors as a count
over the validation points (summed over the splits) when those are few (fewer than
:data:`COUNT_BELOW`: a 0.1% rounding would hide why a cell was chosen, and a percentage of 32
points looks more precise than it is), else as a percentage with enough decimals to show one
error. A grid of powers of 2 is labelled as such (``2^-9``, not 0.00195312); linear models
(liblinear, or libsvm's linear kernel in primal form) are labelled as such.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ...base.errors import MultisvmError
from ..run_folder import GRID_NEEDS
from .base import figure, figure_path
from .drawing import DPI, powers_of_two, save_figure, scheme_title, tick_labels

KERNEL_AXES = {"gaussian": "sigma", "polynomial": "degree", "linear": None}
COLOURS = "viridis"  # sequential, colour-blind safe, lightness rises with the error (greyscale)
COUNT_BELOW = 10_000  # a cell's validation points (over its splits) below which it shows counts
CAPTION = ("One figure per dataset and kernel type, one panel per scheme on a shared colour "
           "scale. Mean validation error at each grid point, averaged over folds and repeats: "
           "rows are the kernel parameter (sigma, gamma or degree), columns the penalty C; "
           "darker is lower. Where the validation points are few, a cell shows its errors as a "
           "count over those points (summed over the splits), else a percentage. The framed "
           "cell is the point selected most often (the note under each map says where it is "
           "not the lowest mean). A minimum on the edge of the grid suggests the grid should "
           "be wider.")


@figure("grid", reads=("grid", "table_rows"), caption=CAPTION, order=40,
        title="Model selection grids", folded=True)
def draw(data, folder, fmt, dpi) -> list[Path]:
    """One ``grid-<dataset>-<kernel_type>.<fmt>`` per dataset x kernel type."""
    rows = data.table_rows
    linear = {(r["dataset"], r["scheme"]) for r in rows if r.get("primal")}
    return grid_heatmaps(data.grid, data.get("chosen") or {}, folder, fmt, dpi,
                         list(dict.fromkeys(r["scheme"] for r in rows)), linear)


def grid_heatmaps(grid: pd.DataFrame, chosen: dict, folder, fmt="png", dpi=None,
                  order=None, linear_models=()) -> list[Path]:
    """One figure per dataset x kernel type: a heatmap panel of the mean validation error (%) per
    scheme, every panel of a dataset (all its kernel types) on one colour scale.

    ``grid``: grid.csv rows (validation_error is a fraction; averaged over folds and repeats).
    ``chosen[(dataset, scheme)]``: the selected point's params (``kernel``, ``C``, ``sigma`` or
    ``gamma``, ``degree``, ``homogeneous``), the most frequent choice over folds; it is framed.
    ``order``: the schemes in the table's order (the panels follow it); ``linear_models``:
    the (dataset, scheme) pairs whose machines are linear models. Schemes with a single
    grid point (kernel-free schemes such as naive Bayes) have no panel. Files go to
    ``folder/grid-<dataset>-<kernel_type>.<fmt>``.
    """
    _check_grid(grid)
    rank = {scheme: i for i, scheme in enumerate(order or [])}
    paths = []
    for dataset, mine in grid.groupby("dataset", sort=False):
        figures = []
        for kernel_type, rows in mine.groupby("kernel_type", sort=False):
            panels = []
            for scheme, points in rows.groupby("scheme", sort=False):
                cells = heatmap_cells(points)
                if cells.size >= 2:
                    cells.attrs["linear_model"] = (dataset, scheme) in set(linear_models)
                    panels.append((scheme, cells, chosen.get((dataset, scheme))))
            panels.sort(key=lambda panel: rank.get(panel[0], len(rank)))
            if panels:
                figures.append((kernel_type, panels))
        values = np.concatenate([c.to_numpy().ravel() for _, panels in figures
                                 for _, c, _ in panels] or [np.zeros(0)])
        scale = colour_scale(values)
        for kernel_type, panels in figures:
            rows = mine[mine["kernel_type"] == kernel_type]
            fig = heatmaps_figure(panels, dataset, kernel_type, n_splits=_n_splits(rows),
                                  scale=scale, n_validation=_n_validation(rows))
            path = figure_path(folder, "grid", fmt, f"{dataset}-{kernel_type}")
            paths.append(save_figure(fig, path, dpi))
    return paths


def colour_scale(values) -> tuple[float, float]:
    """(low, high) of the colour scale over ``values`` (%, NaN ignored); a constant grid gets a
    range of one percentage point around its value (no offset text, one plain colour)."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    if high - low < 1e-9:
        return max(0.0, low - 0.5), max(0.0, low - 0.5) + 1.0
    return low, high


def _check_grid(grid):
    missing = [c for c in GRID_NEEDS if c not in grid]
    if missing:
        raise MultisvmError(f"the grid rows lack the column(s) {', '.join(missing)}; pass "
                            "grid.csv as written by the run")
    unknown = sorted(set(grid["kernel_type"].astype(str)) - set(KERNEL_AXES))
    if unknown:
        raise MultisvmError(f"unknown kernel_type {', '.join(unknown)} in the grid rows; "
                            f"expected one of {', '.join(KERNEL_AXES)}")


def kernel_axis(rows: pd.DataFrame) -> str | None:
    """The kernel parameter of the heatmap's rows: sigma, gamma (when the grid gives it), degree
    (with homogeneous) or None for the linear kernel."""
    kernel_type = rows["kernel_type"].iloc[0]
    if kernel_type == "gaussian" and "gamma" in rows and rows["gamma"].notna().any():
        return "gamma"
    return KERNEL_AXES.get(kernel_type)


def heatmap_cells(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean validation error (%) with the kernel parameter as the index and C as the columns;
    ``attrs["counts"]``: (errors, validation points) per cell summed over the splits, two
    arrays of the cells' shape (None when grid.csv lacks n_errors or n_validation)."""
    axis = kernel_axis(rows)
    frame = rows.assign(error=100.0 * rows["validation_error"].astype(float),
                        C=rows["C"].astype(float))
    if axis is None:
        frame = frame.assign(param="linear", order=0.0)
    elif axis == "degree":
        hom = frame["homogeneous"].map(_truth)
        both = hom.nunique() > 1
        frame = frame.assign(param=[f"d={int(d)}" + ((" hom" if h else " inhom") if both else "")
                                    for d, h in zip(frame["degree"], hom)],
                             order=frame["degree"].astype(float) + 0.5 * (~hom))
    else:
        frame = frame.assign(param=frame[axis].astype(float), order=frame[axis].astype(float))
    cells = frame.pivot_table(index=["order", "param"], columns="C", values="error",
                              aggfunc="mean").sort_index().droplevel(0)
    cells = cells.sort_index(axis=1)
    cells.attrs["axis"] = axis
    cells.attrs["counts"] = _counts(frame, cells)
    if axis == "degree":
        cells.attrs["homogeneous"] = sorted(set(frame["homogeneous"].map(_truth)))
    return cells


def _counts(frame, cells):
    """(errors, points) summed over each cell's splits, aligned with ``cells``; None when a row
    lacks its counts."""
    if not {"n_errors", "n_validation"} <= set(frame):
        return None
    numbers = frame[["n_errors", "n_validation"]].apply(pd.to_numeric, errors="coerce")
    if numbers.isna().to_numpy().any():
        return None
    sums = frame.assign(n_errors=numbers["n_errors"], n_validation=numbers["n_validation"]) \
        .pivot_table(index=["order", "param"], columns="C", values=["n_errors", "n_validation"],
                     aggfunc="sum").sort_index().droplevel(0)
    errors = sums["n_errors"].reindex(index=cells.index, columns=cells.columns)
    points = sums["n_validation"].reindex(index=cells.index, columns=cells.columns)
    return errors.to_numpy(dtype=float), points.to_numpy(dtype=float)


def cell_text(value, counts=None) -> str:
    """A cell's label: ``errors/points`` when its validation points (over its splits) are
    fewer than :data:`COUNT_BELOW`, else the mean error (%) with the decimals that show one
    error of those points (1 to 3); ``counts``: (errors, points) or None."""
    if counts is not None and np.isfinite(counts[1]) and counts[1] > 0:
        errors, points = counts
        if points < COUNT_BELOW:
            return f"{errors:.0f}/{points:.0f}"
        return f"{value:.{int(min(3, max(1, np.ceil(np.log10(points / 100.0)))))}f}"
    return f"{value:.1f}"


PANEL_COLUMNS = 3  # heatmap panels per row


def heatmaps_figure(panels, dataset, kernel_type, n_splits=1, scale=None,
                    n_validation=None) -> Figure:
    """The annotated heatmaps of ``panels`` [(scheme, cells from ``heatmap_cells``, chosen
    params or None)] in one figure, on one colour scale (``scale``: (low, high) in %, shared by
    a dataset's figures; else these panels' range), each chosen point framed.

    Sequential, colour-blind-safe colours (viridis: dark = low error, readable in greyscale),
    each cell labelled with its error. ``fig.lowest_elsewhere`` lists the schemes whose framed
    point (the most frequent choice over folds) is not their lowest mean, as the note says.

    Laid out by hand (fixed margins in inches, no layout engine: it would draw every figure
    twice). ``fig.selected_cells[scheme]`` is the framed cell as (row, column) or None.
    """
    n_rows, n_cols = max(c.shape[0] for _, c, _ in panels), max(c.shape[1] for _, c, _ in panels)
    columns = min(len(panels), PANEL_COLUMNS)
    lines = -(-len(panels) // columns)
    tick_chars = max(len(_tick(v)) for _, c, _ in panels for v in c.index)
    panel_w, panel_h = max(2.2, 0.62 * n_cols + 0.3), max(1.3, 0.3 * n_rows + 0.4)
    left, right, top, bottom = 0.45 + 0.065 * tick_chars, 1.0, 0.85, 0.75
    gap_w, gap_h = 0.25 + 0.065 * tick_chars, 0.55
    width = left + right + columns * panel_w + (columns - 1) * gap_w
    height = top + bottom + lines * panel_h + (lines - 1) * gap_h
    fig = Figure(figsize=(width, height), dpi=DPI)
    spec = fig.add_gridspec(lines, columns, left=left / width, right=1 - right / width,
                            bottom=bottom / height, top=1 - top / height,
                            wspace=gap_w / panel_w, hspace=gap_h / panel_h)
    low, high = scale or colour_scale(
        np.concatenate([c.to_numpy().ravel() for _, c, _ in panels]))
    fig.selected_cells, fig.lowest_elsewhere = {}, []
    for k, (scheme, cells, chosen) in enumerate(panels):
        ax = fig.add_subplot(spec[k // columns, k % columns])
        image = _draw_panel(fig, ax, scheme, cells, chosen, kernel_type, (low, high))
    bar = fig.add_axes([1 - (right - 0.15) / width, bottom / height, 0.15 / width,
                        1 - (top + bottom) / height])
    # each axis label once, for all panels: the y label left of the first column, the x label
    # under the last row
    cells = panels[0][1]
    fig.text(0.1 / width, 1 - (top + lines * panel_h / 2 + (lines - 1) * gap_h / 2) / height,
             _row_label(kernel_type, cells), rotation=90, ha="left", va="center", fontsize=8)
    fig.text((left + (width - left - right) / 2) / width, 0.32 / height,
             "C" + _spacing(cells.columns), ha="center", va="bottom", fontsize=8)
    colorbar = fig.colorbar(image, cax=bar)
    colorbar.formatter.set_useOffset(False)
    colorbar.set_label("mean validation error (%)", fontsize=8)
    where = f", mean of {n_splits} folds x repeats" if n_splits > 1 else ""
    points = f" ({n_validation} validation points per split)" if n_validation else ""
    counted = any(c.attrs.get("counts") is not None and np.nanmin(c.attrs["counts"][1])
                  < COUNT_BELOW for _, c, _ in panels)
    shown = "cells: errors / validation points, summed over the splits\n" if counted else ""
    kind = ("linear models" if all(c.attrs.get("linear_model") for _, c, _ in panels)
            else f"{kernel_type} kernel")
    fig.suptitle(f"{dataset}, {kind}: validation error over the grid{where}"
                 f"{points}", fontsize=10, y=1 - 0.12 / height, va="top")
    fig.text(0.01, (0.04 if shown else 0.1) / height,
             shown + _frame_note(n_splits, fig.lowest_elsewhere),
             fontsize=7.5, va="bottom")
    return fig


def _draw_panel(fig, ax, scheme, cells, chosen, kernel_type, scale):
    """One scheme's annotated heatmap on ``ax`` (colours on ``scale``), its chosen point framed
    and recorded in ``fig.selected_cells`` (and ``fig.lowest_elsewhere``); its image."""
    image = ax.imshow(cells.to_numpy(), cmap=COLOURS, aspect="auto", origin="lower",
                      vmin=scale[0], vmax=scale[1])
    _annotate_cells(ax, image, cells.to_numpy(), cells.attrs.get("counts"))
    ax.set_xticks(range(cells.shape[1]), tick_labels(cells.columns), fontsize=8)
    ax.set_yticks(range(cells.shape[0]), _row_ticks(cells.index), fontsize=8)
    if kernel_type == "linear":  # one row, no parameter: the axis label says it
        ax.set_yticks([])
    name = scheme_title(scheme, cells.attrs.get("linear_model"))
    ax.set_title(name, fontsize=9)
    fig.selected_cells[scheme] = _mark_selected(ax, cells, kernel_type, chosen)
    if _lowest_elsewhere(cells, fig.selected_cells[scheme]):
        fig.lowest_elsewhere.append(name)
    return image


def _frame_note(n_splits, lowest_elsewhere) -> str:
    """What the frame marks, and where it is not on the lowest mean."""
    if n_splits <= 1:
        return "framed: the selected point (lowest validation error; ties go to the simpler model)"
    note = (f"framed: the point chosen most often over the {n_splits} folds x repeats "
            "(each chooses its own lowest)")
    if lowest_elsewhere:
        note += f"; not the lowest mean for {', '.join(lowest_elsewhere)}"
    return note


def _lowest_elsewhere(cells, framed) -> bool:
    """Whether the framed cell's mean is above the panel's lowest mean."""
    if framed is None:
        return False
    values = cells.to_numpy()
    return bool(values[framed] > np.nanmin(values) + 1e-9)


def _annotate_cells(ax, image, values, counts=None):
    for (i, j), value in np.ndenumerate(values):
        if np.isnan(value):
            continue
        red, green, blue, _ = image.cmap(image.norm(value))
        dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
        text = cell_text(value, None if counts is None else (counts[0][i, j], counts[1][i, j]))
        ax.text(j, i, text, ha="center", va="center", fontsize=8 if len(text) <= 5 else 7,
                color="white" if dark else "black")


def _mark_selected(ax, cells, kernel_type, chosen):
    """Frame the chosen point's cell; returns its (row, column) or None when not on this map."""
    if not chosen or chosen.get("kernel", kernel_type) != kernel_type:
        return None
    cols = [j for j, c in enumerate(cells.columns) if np.isclose(c, float(chosen["C"]))]
    rows = [i for i, v in enumerate(cells.index) if _same_param(v, chosen, kernel_type)]
    if not cols or not rows:
        return None
    i, j = rows[0], cols[0]
    for colour, width, name in (("white", 4.5, "_frame"), ("black", 1.5, "selected point")):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=colour,
                               linewidth=width, label=name))  # white and black: on any cell
    return (i, j)


def _same_param(value, chosen, kernel_type) -> bool:
    if kernel_type == "linear":
        return True
    if kernel_type == "polynomial":
        hom = " hom" if _truth(chosen.get("homogeneous")) else " inhom"
        return value in (f"d={int(chosen['degree'])}", f"d={int(chosen['degree'])}{hom}")
    param = chosen.get("gamma") if chosen.get("gamma") is not None else chosen.get("sigma")
    return param is not None and np.isclose(float(value), float(param))


def _row_label(kernel_type, cells) -> str:
    if kernel_type == "linear" and cells.attrs.get("linear_model"):
        return "linear model $w \\cdot x + b$"
    if kernel_type == "linear":
        return "linear kernel $x \\cdot y$ (no parameter)"
    if kernel_type == "polynomial":
        forms = {False: "$(x \\cdot y + 1)^d$", True: "$(x \\cdot y)^d$"}
        return "degree $d$ of " + " or ".join(forms[h] for h in cells.attrs["homogeneous"])
    if cells.attrs.get("axis") == "gamma":
        return "$\\gamma$ in $\\exp(-\\gamma\\,\\|x-y\\|^2)$" + _spacing(cells.index)
    return "$\\sigma$ in $\\exp(-\\|x-y\\|^2 / 2\\sigma^2)$" + _spacing(cells.index)


def _spacing(values) -> str:
    """' (log-spaced)' when the grid values form a geometric series of 3 or more."""
    values = np.asarray(values, dtype=float)
    if values.size < 3 or np.any(values <= 0):
        return ""
    ratios = values[1:] / values[:-1]
    return " (log-spaced grid)" if np.allclose(ratios, ratios[0]) else ""


def _tick(value) -> str:
    return f"{value:g}" if isinstance(value, (float, int, np.floating)) else str(value)


def _row_ticks(index) -> list[str]:
    """The kernel parameter's tick labels: powers of 2 where the grid is (``2^-9``)."""
    numeric = all(isinstance(v, (float, int, np.floating)) for v in index)
    return tick_labels(index) if numeric and powers_of_two(index) else [_tick(v) for v in index]


def _truth(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value) and not (isinstance(value, float) and np.isnan(value))


def _n_validation(rows):
    """Validation points per split (one grid point of one scheme), or None when unknown or
    different between splits."""
    if "n_validation" not in rows:
        return None
    first = rows[(rows["scheme"] == rows["scheme"].iloc[0]) & (rows["C"] == rows["C"].iloc[0])]
    counts = pd.to_numeric(first["n_validation"], errors="coerce").dropna().unique()
    return int(counts[0]) if len(counts) == 1 else None


def _n_splits(rows) -> int:
    keys = [k for k in ("fold", "repeat") if k in rows]
    return int(rows[keys].drop_duplicates().shape[0]) if keys else 1
