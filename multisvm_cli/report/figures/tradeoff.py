"""``tradeoff-<dataset>``: test error against kernel evaluations per test point, per scheme.

Each error carries its 95% interval (:mod:`..intervals`: Wilson's for a single test split, the
fold spread for k folds x repeats), and the error axis includes 0: two markers 0.4 points
apart on a 4.4-4.8% axis look far apart although McNemar's test may give p = 0.5. Linear models
(liblinear, or libsvm's linear kernel in primal form) are labelled as such: their "kernel
evaluations" are dot products with weight vectors.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import offset_copy

from ..intervals import error_interval, n_splits
from ..record import ERROR_PCT, label_of
from .base import figure, figure_path
from .drawing import DPI, margins, save_figure, scheme_title, style

CAPTION = ("Test error (%) against kernel evaluations per test point (log scale), one marker per "
           "scheme: lower left is better (fewer errors for less work at test time). Bars: 95% "
           "interval of the error (Wilson's for a single test split; the fold spread, error "
           "+- t SD / sqrt(J), over J folds x repeats); the error axis includes 0, so the "
           "distances between markers are not magnified. Hollow markers: the paper's numbers; a "
           "dashed line: a scheme that evaluates no kernel; \"linear model\": machines that "
           "predict through weight vectors (their evaluations are dot products).")


@figure("tradeoff", reads=("table_rows",), caption=CAPTION, order=20,
        title="Error against evaluation cost")
def draw(data, folder, fmt, dpi) -> list[Path]:
    """One ``tradeoff-<dataset>.<fmt>`` per dataset with our own errors."""
    return tradeoff(data.table_rows, folder, fmt, dpi, splits=n_splits(data.get("results")))


def tradeoff(table_rows, folder, fmt="png", dpi=None, splits=None) -> list[Path]:
    """Per dataset: test error (%) against kernel evaluations per test point (log x axis), into
    ``folder/tradeoff-<dataset>.<fmt>``; ``splits``: {(dataset, scheme): test splits}
    (:func:`..intervals.n_splits`; missing: 1, Wilson's interval)."""
    rows = [r for r in table_rows if r.get(ERROR_PCT) is not None]
    paths = []
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        fig = tradeoff_figure(dataset, [r for r in rows if r["dataset"] == dataset], splits)
        paths.append(save_figure(fig, figure_path(folder, "tradeoff", fmt, dataset), dpi))
    return paths


def tradeoff_figure(dataset, rows, splits=None) -> Figure:
    """The trade-off plot of one dataset's report rows; ``fig.intervals[scheme]`` is the
    (low, high, how) drawn for each (:func:`..intervals.error_interval`)."""
    fig = Figure(figsize=(7.5, 5.0), dpi=DPI)
    fig.subplots_adjust(**margins(7.5, 5.0, left=0.75, right=0.2, bottom=0.6, top=0.6))
    ax = fig.add_subplot()
    shifts = _shifts(rows)
    fig.intervals = {}
    for row in rows:
        name = scheme_title(row["scheme"], row.get("primal"))
        color, marker = style(row["scheme"])
        interval = error_interval(row, (splits or {}).get((dataset, row["scheme"]), 1))
        fig.intervals[row["scheme"]] = interval
        evals = row.get("kernel_evaluations")
        if not evals or evals <= 0:
            ax.axhline(row[ERROR_PCT], color=color, linestyle="--", linewidth=1.2,
                       label=f"{name} (no kernel evaluations)")
            if interval:
                ax.axhspan(interval[0], interval[1], color=color, alpha=0.08, linewidth=0)
            continue
        yerr = ([[row[ERROR_PCT] - interval[0]], [interval[1] - row[ERROR_PCT]]]
                if interval else None)
        drawn = ax.errorbar([evals], [row[ERROR_PCT]], yerr=yerr, fmt=marker, color=color,
                            markersize=8, capsize=4, label=name)
        if shifts[row["scheme"]]:  # drawn aside, its data (and the axis limits) unchanged
            shifted = offset_copy(ax.transData, fig=fig, x=shifts[row["scheme"]],
                                  units="points")
            for artist in drawn.get_children():
                artist.set_transform(shifted)
        _paper_point(ax, row, color, marker)
    _label_shared_points(ax, rows)
    _axes(ax, rows)
    kinds = {i[2] for i in fig.intervals.values() if i}
    bars = f"; bars: 95% interval ({', '.join(sorted(kinds))})" if kinds else ""
    paper = "; hollow: paper" if any(r.get("paper_error_pct") is not None for r in rows) else ""
    shared = "; equal points spread sideways and named" if _same_points(rows) else ""
    cost = ("dot products" if all(r.get("primal") for r in rows
                                  if r.get("kernel_evaluations")) else "kernel evaluations")
    ax.set_title(f"{dataset}: test error vs. {cost} per test point\n"
                 f"(lower left is better{bars}{paper}{shared})", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    return fig


def _axes(ax, rows):
    """Log x axis of evaluations (linear models' dot products said so); the error axis from
    just below 0 (:data:`ZERO_ROOM`)."""
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(_minor_tick if _spans_a_decade(rows)
                                               else lambda value, _: f"{value:g}"))
    ax.tick_params(axis="x", which="minor", labelsize=7)
    primal = [bool(r.get("primal")) for r in rows if r.get("kernel_evaluations")]
    if primal and all(primal):
        ax.set_xlabel("dot products with weight vectors per test point (linear models; log "
                      "scale)")
    elif any(primal):
        ax.set_xlabel("kernel evaluations per test point (linear models: dot products with "
                      "weight vectors; log scale)")
    else:
        ax.set_xlabel("kernel evaluations per test point (log scale)")
    ax.set_ylabel("test error (%)")
    top = max(ax.get_ylim()[1], 1.0)  # 0 included, a sliver below it: markers at 0 show whole
    ax.set_ylim(bottom=-ZERO_ROOM * top, top=top)
    ax.grid(True, which="both", alpha=0.3)


ZERO_ROOM = 0.02  # the error axis reaches this fraction of its height below 0
SHIFT_POINTS = 9  # markers at one (kernel evaluations, error) are spread this far apart


def _same_points(rows) -> list:
    """Groups (2 or more) of schemes whose markers would sit on one spot."""
    spots = {}
    for row in rows:
        evals = row.get("kernel_evaluations")
        if evals and evals > 0:
            spots.setdefault((round(evals, 6), round(row[ERROR_PCT], 6)), []).append(row)
    return [group for group in spots.values() if len(group) > 1]


def _shifts(rows) -> dict:
    """Each scheme's sideways shift in points: 0, or spread around a shared spot."""
    shifts = {row["scheme"]: 0.0 for row in rows}
    for group in _same_points(rows):
        for i, row in enumerate(group):
            shifts[row["scheme"]] = SHIFT_POINTS * (i - (len(group) - 1) / 2)
    return shifts


def _label_shared_points(ax, rows):
    """Name the schemes of each shared spot above it (their markers are spread sideways)."""
    for group in _same_points(rows):
        ax.annotate(" = ".join(label_of(r) for r in group),
                    (group[0]["kernel_evaluations"], group[0][ERROR_PCT]),
                    xytext=(0, 9), textcoords="offset points", ha="center", va="bottom",
                    fontsize=7.5)


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


