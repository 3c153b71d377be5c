"""The run's figures (PNG): grid heatmaps, error-cost trade-off, CD diagram, DAG class orders.

Every figure is a ``matplotlib.figure.Figure`` rendered by the Agg canvas (no pyplot, no global
state: safe from several threads) and written to a temporary file renamed into place. Inputs are
plain data: the grid rows (grid.csv as a DataFrame), the report rows (``report.table_rows``) and
the ranking (``ranking.rank_schemes``). File names, under a run's ``figures/`` folder::

    grid-<dataset>-<kernel_type>.png   mean validation error over the grid, a panel per scheme
    tradeoff-<dataset>.png             test error against kernel evaluations
    cd-diagram.png                     average ranks, Nemenyi critical difference
    dag-orders-<dataset>.png           DAGSVM test error over random class orders

Cost: a run draws one file per dataset x kernel type (not per scheme) and lays each figure out
by hand with fixed margins in inches (a layout engine measures every text and draws each figure
twice). Measured on the quickstart (3 datasets, 7 schemes, 2 kernel types; 2 shared cores):
40 files with constrained layout took 8.5 s; these 10 files take about 1.5 s of CPU.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter

from .errors import MultisvmError
from .report import SCHEME_LABELS
from .storage import atomic_write

DPI = 100
MARKERS = "osD^vP*Xh<>p"
KERNEL_AXES = {"gaussian": "sigma", "polynomial": "degree", "linear": None}
GRID_NEEDS = ("dataset", "scheme", "kernel_type", "C", "validation_error")


# --------------------------------------------------------------------------- writing

def save_figure(fig: Figure, path) -> Path:
    """Render ``fig`` as a PNG at ``DPI`` and write it atomically to ``path`` (a temporary file
    renamed into place, with the umask's permissions: :func:`storage.atomic_write`)."""
    FigureCanvasAgg(fig)
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=DPI, metadata={"Software": None})
    return atomic_write(path, png.getvalue())


def _margins(width, height, *, left, right, bottom, top) -> dict:
    """``subplots_adjust`` fractions for margins given in inches (no layout engine: it would
    measure and draw every figure twice)."""
    return {"left": left / width, "right": 1 - right / width, "bottom": bottom / height,
            "top": 1 - top / height}


def slug(text) -> str:
    """A file-name-safe form of a dataset or scheme name."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", str(text)).strip("_") or "_"


def _label(scheme) -> str:
    return SCHEME_LABELS.get(scheme, str(scheme))


# --------------------------------------------------------------------------- grid heatmaps

def grid_heatmaps(grid: pd.DataFrame, chosen: dict, folder) -> list[Path]:
    """One PNG per dataset x kernel type: a heatmap panel of the mean validation error (%) per
    scheme, all panels on one colour scale.

    ``grid``: grid.csv rows (validation_error is a fraction; averaged over folds and repeats).
    ``chosen[(dataset, scheme)]``: the selected point's params (``kernel``, ``C``, ``sigma`` or
    ``gamma``, ``degree``, ``homogeneous``), the most frequent choice over folds; it is framed.
    Schemes with a single grid point (kernel-free schemes such as NB) have no panel. Files go
    to ``folder/grid-<dataset>-<kernel_type>.png``.
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
        ax.set_title(_label(scheme), fontsize=9)
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


# --------------------------------------------------------------------------- trade-off

def tradeoff(table_rows, folder) -> list[Path]:
    """Per dataset: test error (%) against kernel evaluations per test point (log x axis).

    One marker per scheme with error bars of +-``error_sd`` (the SD over folds x repeats; none
    for a single split); the paper's numbers, when the rows carry them, as hollow markers of the
    same colour. A scheme without kernel evaluations (NB) is a dashed horizontal line at its
    error. Files go to ``folder/tradeoff-<dataset>.png``.
    """
    rows = [r for r in table_rows if r.get("error_pct") is not None]
    paths = []
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        fig = tradeoff_figure(dataset, [r for r in rows if r["dataset"] == dataset])
        paths.append(save_figure(fig, Path(folder) / f"tradeoff-{slug(dataset)}.png"))
    return paths


def tradeoff_figure(dataset, rows) -> Figure:
    """The trade-off plot of one dataset's report rows."""
    fig = Figure(figsize=(7.5, 5.0), dpi=DPI)
    fig.subplots_adjust(**_margins(7.5, 5.0, left=0.75, right=0.2, bottom=0.6, top=0.6))
    ax = fig.add_subplot()
    any_sd = any(r.get("error_sd") for r in rows)
    for row in rows:
        label, (color, marker) = _label(row["scheme"]), _style(row["scheme"])
        evals = row.get("kernel_evaluations")
        if not evals or evals <= 0:
            ax.axhline(row["error_pct"], color=color, linestyle="--", linewidth=1.2,
                       label=f"{label} (no kernel evaluations)")
            continue
        ax.errorbar([evals], [row["error_pct"]], yerr=[row.get("error_sd") or 0.0],
                    fmt=marker, color=color, markersize=8, capsize=4,
                    label=label)
        _paper_point(ax, row, color, marker)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(_minor_tick if _spans_a_decade(rows)
                                               else lambda value, _: f"{value:g}"))
    ax.tick_params(axis="x", which="minor", labelsize=7)
    ax.set_xlabel("kernel evaluations per test point (log scale)")
    ax.set_ylabel("test error (%)")
    ax.grid(True, which="both", alpha=0.3)
    bars = "; bars: +-1 SD over folds x repeats" if any_sd else ""
    paper = "; hollow: paper" if any(r.get("paper_error_pct") is not None for r in rows) else ""
    ax.set_title(f"{dataset}: test error vs. kernel evaluations per test point\n"
                 f"(lower left is better{bars}{paper})", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    return fig


def _spans_a_decade(rows) -> bool:
    """Whether the plotted kernel evaluations (ours and the paper's) span a factor of 10 or
    more; within less, the axis may hold no power of ten and every minor tick is labelled."""
    values = [v for r in rows for v in (r.get("kernel_evaluations"),
                                        r.get("paper_kernel_evaluations")) if v and v > 0]
    return bool(values) and max(values) >= 10 * min(values)


def _minor_tick(value, _) -> str:
    """Minor log ticks labelled at 2 and 5 times a power of ten only (no crowding)."""
    leading = value / 10 ** np.floor(np.log10(value))
    return f"{value:g}" if np.isclose(leading, 2) or np.isclose(leading, 5) else ""


def _paper_point(ax, row, color, marker):
    error, evals = row.get("paper_error_pct"), row.get("paper_kernel_evaluations")
    if error is not None and evals:
        ax.plot([evals], [error], marker=marker, markersize=8, color=color,
                markerfacecolor="none", linestyle="none")


def _style(scheme):
    """A scheme's colour and marker, the same in every figure (known schemes first)."""
    from matplotlib import colormaps

    known = list(SCHEME_LABELS)
    i = known.index(scheme) if scheme in known else len(known) + sum(map(ord, str(scheme))) % 5
    return colormaps["tab10"](i % 10), MARKERS[i % len(MARKERS)]


# --------------------------------------------------------------------------- CD diagram

def cd_diagram(ranking: dict, path) -> Path:
    """Demsar's (2006) critical-difference diagram of ``ranking`` (``ranking.rank_schemes``).

    The schemes sit at their average rank on a rank axis (1 = best, on the left); a bar joins
    schemes whose ranks differ by no more than the critical difference (Nemenyi; Wilcoxon's
    test for two schemes), and the CD is drawn as a bar of its length above the axis.
    """
    return save_figure(cd_figure(ranking), path)


def cd_figure(ranking: dict) -> Figure:
    """The CD diagram as a Figure, drawn as in Demsar (2006), Figure 1.

    The rank axis runs from 1 to k with the best (lowest) rank on the left; the better half of
    the schemes is labelled on the left, the other half on the right; each thick bar below the
    axis joins a maximal run of schemes with no significantly different pair among them.
    ``fig.cliques`` lists the joined groups (scheme names, best first).
    """
    schemes = sorted(ranking["schemes"], key=ranking["average_ranks"].get)
    ranks = [ranking["average_ranks"][s] for s in schemes]
    k, half = len(schemes), (len(schemes) + 1) // 2
    cliques = _cliques(schemes, ranks, ranking["different_pairs"])
    height = 1.9 + 0.32 * half + 0.12 * len(cliques)
    fig = Figure(figsize=(8.0, height), dpi=DPI)
    fig.subplots_adjust(**_margins(8.0, height, left=0.05, right=0.05, bottom=0.05, top=0.5))
    ax = fig.add_subplot()
    ax.set_axis_off()
    low, high = 0.2, k + 0.8
    ax.set_xlim(low - _label_room(schemes, k), high + _label_room(schemes, k))
    step = 0.45
    ax.set_ylim(-step * (half + 1) - 0.3, 1.5)
    ax.plot([1, k], [0, 0], color="black", linewidth=1)
    for tick in range(1, k + 1):
        ax.plot([tick, tick], [0, 0.1], color="black", linewidth=1)
        ax.text(tick, 0.18, str(tick), ha="center", va="bottom", fontsize=9)
    cd = ranking.get("critical_difference")
    if cd is not None:
        ax.plot([1, 1 + cd], [1.0, 1.0], color="black", linewidth=2)
        ax.text(1 + cd / 2, 1.07, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    for i, (scheme, rank) in enumerate(zip(schemes, ranks)):
        left = i < half
        y = -step * ((i if left else k - 1 - i) + 1) - 0.1 * len(cliques)
        edge = low if left else high
        color = _style(scheme)[0]
        ax.plot([rank, rank, edge], [0, y, y], color=color, linewidth=1.2)
        ax.plot([rank], [0], "o", color=color, markersize=5)
        text = f"{_label(scheme)} ({rank:.2f})" if left else f"({rank:.2f}) {_label(scheme)}"
        ax.text(edge + (-0.05 if left else 0.05), y, text, ha="right" if left else "left",
                va="center", fontsize=9)
    for g, (first, last) in enumerate(cliques):
        y = -0.12 - 0.1 * g
        ax.plot([ranks[first] - 0.04, ranks[last] + 0.04], [y, y], color="black", linewidth=3,
                solid_capstyle="butt")
    ax.set_title(_cd_title(ranking), fontsize=9)
    fig.cliques = [schemes[a:b + 1] for a, b in cliques]
    return fig


def _label_room(schemes, k, width=7.9, inches_per_char=0.085) -> float:
    """Rank units beside the axis that hold the longest label (``name (r.rr)``, 9 pt) when the
    axes are ``width`` inches wide and span k + 0.6 ranks plus this room on both sides."""
    label = inches_per_char * (max(len(_label(s)) for s in schemes) + 8)
    return max(0.6, label * (k + 0.6) / (width - 2 * label))


def _cliques(schemes, ranks, different_pairs):
    """Maximal runs [first, last] of rank-ordered schemes with no different pair inside."""
    different = {frozenset(p) for p in different_pairs}
    runs = []
    for first in range(len(schemes)):
        last = first
        while last + 1 < len(schemes) and not any(
                frozenset((schemes[i], schemes[last + 1])) in different
                for i in range(first, last + 1)):
            last += 1
        if last > first and not any(a <= first and last <= b for a, b in runs):
            runs.append((first, last))
    return runs


def _cd_title(ranking) -> str:
    test = ranking["friedman"]
    title = (f"Average ranks over {ranking['n_datasets']} datasets (1 = lowest test error); "
             f"{test['test']} p = {test['p_value']:.3g}\nthick bars join schemes not "
             f"significantly different at alpha = {ranking['alpha']:g}")
    if ranking.get("critical_difference") is not None:
        title += " (Nemenyi test; CD bar above the axis)"
    return title


# --------------------------------------------------------------------------- DAG orders

def dag_orders_histogram(errors_pct, kernel_evaluations, selected_error, path, *,
                         dataset="") -> Path:
    """Histograms of DAGSVM's test error (%) and kernel evaluations per test point over N random
    class orders, the natural order's error (``selected_error``, %) marked by a vertical line."""
    return save_figure(dag_orders_figure(errors_pct, kernel_evaluations, selected_error,
                                         dataset), path)


def dag_orders_figure(errors_pct, kernel_evaluations, selected_error, dataset="") -> Figure:
    """The two-panel DAG order figure (error left, kernel evaluations right)."""
    errors = np.asarray(errors_pct, dtype=float)
    evals = np.asarray(kernel_evaluations, dtype=float)
    if errors.size == 0:
        raise ValueError("dag_orders_histogram needs the test error of at least one class order")
    fig = Figure(figsize=(10.0, 4.2), dpi=DPI)
    fig.subplots_adjust(wspace=0.22, **_margins(10.0, 4.2, left=0.65, right=0.2, bottom=0.55,
                                                top=0.75))
    left, right = fig.subplots(1, 2)
    left.hist(errors, bins=_bins(errors), color="tab:green", edgecolor="black", alpha=0.8)
    left.axvline(selected_error, color="red", linewidth=2.5,
                 label=f"natural order: {selected_error:.2f}%")
    left.set_xlabel("test error (%)")
    left.set_ylabel("number of class orders")
    left.set_title(f"mean {errors.mean():.2f}% +- {errors.std(ddof=0):.2f} (SD), "
                   f"range {errors.min():.2f} to {errors.max():.2f}", fontsize=9)
    left.legend(fontsize=8)
    if evals.size:
        right.hist(evals, bins=_bins(evals), color="tab:blue", edgecolor="black", alpha=0.8)
    right.set_xlabel("kernel evaluations per test point")
    right.set_ylabel("number of class orders")
    right.set_title("evaluation cost of the same orders", fontsize=9)
    name = f"{dataset}: " if dataset else ""
    fig.suptitle(f"{name}DAGSVM test error over {errors.size} random class orders",
                 fontsize=11, y=0.98)
    return fig


def _bins(values):
    distinct = np.unique(values).size
    return max(1, min(30, distinct if distinct > 1 else 1))


# --------------------------------------------------------------------------- everything

def draw_all(run_folder, grid: pd.DataFrame, chosen: dict, table_rows, ranking=None,
             dag_orders=None) -> list[Path]:
    """Every figure of a run into ``run_folder/figures/``; returns the paths written.

    ``dag_orders``: {dataset: {"errors_pct": [...], "kernel_evaluations": [...],
    "selected_error": float}} from the DAG order study, when it ran.
    """
    folder = Path(run_folder) / "figures"
    paths = grid_heatmaps(grid, chosen, folder) + tradeoff(table_rows, folder)
    if ranking is not None:
        paths.append(cd_diagram(ranking, folder / "cd-diagram.png"))
    for dataset, study in (dag_orders or {}).items():
        paths.append(dag_orders_histogram(study["errors_pct"], study["kernel_evaluations"],
                                          study["selected_error"],
                                          folder / f"dag-orders-{slug(dataset)}.png",
                                          dataset=dataset))
    return paths
