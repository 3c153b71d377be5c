"""The grid heatmaps: mean validation error over each dataset's grid, one panel per scheme.

``grid-<dataset>-<kernel_type>.png`` under a run's ``figures/``: one file per dataset x kernel type
(not per scheme), the panels on one colour scale, the selected point framed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..errors import MultisvmError
from ..estimators.registry import label
from .drawing import DPI, save_figure, slug
from .run_folder import GRID_NEEDS

KERNEL_AXES = {"gaussian": "sigma", "polynomial": "degree", "linear": None}


def grid_heatmaps(grid: pd.DataFrame, chosen: dict, folder) -> list[Path]:
    """One PNG per dataset x kernel type: a heatmap panel of the mean validation error (%) per
    scheme, all panels on one colour scale.

    ``grid``: grid.csv rows (validation_error is a fraction; averaged over folds and repeats).
    ``chosen[(dataset, scheme)]``: the selected point's params (``kernel``, ``C``, ``sigma`` or
    ``gamma``, ``degree``, ``homogeneous``), the most frequent choice over folds; it is framed.
    Schemes with a single grid point (kernel-free schemes such as naive Bayes) have no panel.
    Files go to ``folder/grid-<dataset>-<kernel_type>.png``.
    """
    _check_grid(grid)
    paths = []
    for (dataset, kernel_type), rows in grid.groupby(["dataset", "kernel_type"], sort=False):
        panels = []
        for scheme, mine in rows.groupby("scheme", sort=False):
            cells = heatmap_cells(mine)
            if cells.size >= 2:
                panels.append((scheme, cells, chosen.get((dataset, scheme))))
        if not panels:
            continue
        fig = heatmaps_figure(panels, dataset, kernel_type, n_splits=_n_splits(rows))
        name = f"grid-{slug(dataset)}-{slug(kernel_type)}.png"
        paths.append(save_figure(fig, Path(folder) / name))
    return paths


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
    """Mean validation error (%) with the kernel parameter as the index and C as the columns."""
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
    if axis == "degree":
        cells.attrs["homogeneous"] = sorted(set(frame["homogeneous"].map(_truth)))
    return cells


PANEL_COLUMNS = 3  # heatmap panels per row


def heatmaps_figure(panels, dataset, kernel_type, n_splits=1) -> Figure:
    """The annotated heatmaps of ``panels`` [(scheme, cells from ``heatmap_cells``, chosen
    params or None)] in one figure, on one colour scale, each chosen point framed.

    Laid out by hand (fixed margins in inches, no layout engine: it would draw every figure
    twice). ``fig.selected_cells[scheme]`` is the framed cell as (row, column) or None.
    """
    n_rows, n_cols = max(c.shape[0] for _, c, _ in panels), max(c.shape[1] for _, c, _ in panels)
    columns = min(len(panels), PANEL_COLUMNS)
    lines = -(-len(panels) // columns)
    tick_chars = max(len(_tick(v)) for _, c, _ in panels for v in c.index)
    panel_w, panel_h = max(2.2, 0.62 * n_cols + 0.3), max(1.3, 0.3 * n_rows + 0.4)
    left, right, top, bottom = 0.55 + 0.065 * tick_chars, 1.0, 0.85, 0.75
    gap_w, gap_h = 0.25 + 0.065 * tick_chars, 0.55
    width = left + right + columns * panel_w + (columns - 1) * gap_w
    height = top + bottom + lines * panel_h + (lines - 1) * gap_h
    fig = Figure(figsize=(width, height), dpi=DPI)
    spec = fig.add_gridspec(lines, columns, left=left / width, right=1 - right / width,
                            bottom=bottom / height, top=1 - top / height,
                            wspace=gap_w / panel_w, hspace=gap_h / panel_h)
    values = np.concatenate([c.to_numpy().ravel() for _, c, _ in panels])
    low, high = np.nanmin(values), np.nanmax(values)
    fig.selected_cells = {}
    for k, (scheme, cells, chosen) in enumerate(panels):
        ax = fig.add_subplot(spec[k // columns, k % columns])
        image = ax.imshow(cells.to_numpy(), cmap="RdYlGn_r", aspect="auto", origin="lower",
                          vmin=low, vmax=high if high > low else low + 1e-9)
        _annotate_cells(ax, image, cells.to_numpy())
        ax.set_xticks(range(cells.shape[1]), [f"{c:g}" for c in cells.columns], fontsize=8)
        ax.set_yticks(range(cells.shape[0]), [_tick(v) for v in cells.index], fontsize=8)
        ax.set_title(label(scheme), fontsize=9)
        if k % columns == 0:
            ax.set_ylabel(_row_label(kernel_type, cells), fontsize=8)
        if k // columns == lines - 1 or k + columns >= len(panels):
            ax.set_xlabel("C" + _spacing(cells.columns), fontsize=8)
        fig.selected_cells[scheme] = _mark_selected(ax, cells, kernel_type, chosen)
    bar = fig.add_axes([1 - (right - 0.15) / width, bottom / height, 0.15 / width,
                        1 - (top + bottom) / height])
    fig.colorbar(image, cax=bar).set_label("mean validation error (%)", fontsize=8)
    where = f", mean of {n_splits} folds x repeats" if n_splits > 1 else ""
    fig.suptitle(f"{dataset}, {kernel_type} kernel: validation error over the grid{where}",
                 fontsize=10, y=1 - 0.12 / height, va="top")
    fig.text(0.01, 0.1 / height, "blue frame: the selected point (the most frequent over "
             "folds x repeats)", fontsize=7.5, va="bottom")
    return fig


def _annotate_cells(ax, image, values):
    for (i, j), value in np.ndenumerate(values):
        if np.isnan(value):
            continue
        red, green, blue, _ = image.cmap(image.norm(value))
        dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
        ax.text(j, i, f"{value:.1f}", ha="center", va="center", fontsize=8,
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
    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="blue", linewidth=3,
                           label="selected point (most frequent over folds)"))
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


def _truth(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value) and not (isinstance(value, float) and np.isnan(value))


def _n_splits(rows) -> int:
    keys = [k for k in ("fold", "repeat") if k in rows]
    return int(rows[keys].drop_duplicates().shape[0]) if keys else 1
