"""The run's figures (PNG, SVG or PDF): grid heatmaps, error-cost trade-off, CD diagram, DAG class orders.

Drawn and written as :mod:`.drawing` says; the grid heatmaps are :mod:`.heatmaps`. Inputs are
plain data: the grid rows (grid.csv as a DataFrame), the report rows (``table.table_rows``) and
the ranking (``ranking.rank_schemes``). File names, under a run's ``figures/`` folder (``.png`` shown; ``.svg`` or ``.pdf`` with
``--figure-format``)::

    grid-<dataset>-<kernel_type>.png   mean validation error over the grid, a panel per scheme
    tradeoff-<dataset>.png             test error against kernel evaluations
    cd-diagram.png                     average ranks, Nemenyi critical difference
    bayes-signed-rank.png              Bayesian signed-rank test per pair (.verdict_figure)
    dag-orders-<dataset>.png           the DAG scheme's test error over random class orders

Cost: a run draws one file per dataset x kernel type (not per scheme) and lays each figure out
by hand with fixed margins in inches (a layout engine measures every text and draws each figure
twice). Measured on the quickstart (3 datasets, 7 schemes, 2 kernel types; 2 shared cores):
40 files with constrained layout took 8.5 s; these 10 files take about 1.5 s of CPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.transforms import offset_copy

from ..errors import MultisvmError
from ..estimators.registry import ORDER_STUDY, SCHEME_NAMES, label
from .drawing import DPI, FIGURE_FORMATS, margins, save_figure, slug
from .heatmaps import grid_heatmaps
from .ranking import small_sample_caution, small_sample_failures
from .run_folder import read_figure_data, read_sweep
from .sweep_figures import sweep_figures
from .verdict_figure import FILE_STEM as BAYES_STEM, bayes_diagram

MARKERS = "osD^vP*Xh<>p"


# --------------------------------------------------------------------------- trade-off

def tradeoff(table_rows, folder, fmt="png", dpi=None) -> list[Path]:
    """Per dataset: test error (%) against kernel evaluations per test point (log x axis).

    One marker per scheme with error bars of +-``error_sd`` (the SD over folds x repeats; none
    for a single split); the paper's numbers, when the rows carry them, as hollow markers of the
    same colour. A scheme without kernel evaluations (naive Bayes) is a dashed horizontal line
    at its error. Files go to ``folder/tradeoff-<dataset>.png``.
    """
    rows = [r for r in table_rows if r.get("error_pct") is not None]
    paths = []
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        fig = tradeoff_figure(dataset, [r for r in rows if r["dataset"] == dataset])
        paths.append(save_figure(fig, Path(folder) / f"tradeoff-{slug(dataset)}.{fmt}", dpi))
    return paths


def tradeoff_figure(dataset, rows) -> Figure:
    """The trade-off plot of one dataset's report rows."""
    fig = Figure(figsize=(7.5, 5.0), dpi=DPI)
    fig.subplots_adjust(**margins(7.5, 5.0, left=0.75, right=0.2, bottom=0.6, top=0.6))
    ax = fig.add_subplot()
    any_sd = any(r.get("error_sd") for r in rows)
    shifts = _shifts(rows)
    for row in rows:
        name, (color, marker) = label(row["scheme"]), _style(row["scheme"])
        evals = row.get("kernel_evaluations")
        if not evals or evals <= 0:
            ax.axhline(row["error_pct"], color=color, linestyle="--", linewidth=1.2,
                       label=f"{name} (no kernel evaluations)")
            continue
        drawn = ax.errorbar([evals], [row["error_pct"]], yerr=[row.get("error_sd") or 0.0],
                            fmt=marker, color=color, markersize=8, capsize=4, label=name)
        if shifts[row["scheme"]]:  # drawn aside, its data (and the axis limits) unchanged
            shifted = offset_copy(ax.transData, fig=fig, x=shifts[row["scheme"]],
                                  units="points")
            for artist in drawn.get_children():
                artist.set_transform(shifted)
        _paper_point(ax, row, color, marker)
    _label_shared_points(ax, rows)
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
    shared = "; equal points spread sideways and named" if _same_points(rows) else ""
    ax.set_title(f"{dataset}: test error vs. kernel evaluations per test point\n"
                 f"(lower left is better{bars}{paper}{shared})", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    return fig


SHIFT_POINTS = 9  # markers at one (kernel evaluations, error) are spread this far apart


def _same_points(rows) -> list:
    """Groups (2 or more) of schemes whose markers would sit on one spot."""
    spots = {}
    for row in rows:
        evals = row.get("kernel_evaluations")
        if evals and evals > 0:
            spots.setdefault((round(evals, 6), round(row["error_pct"], 6)), []).append(row)
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
        ax.annotate(" = ".join(label(r["scheme"]) for r in group),
                    (group[0]["kernel_evaluations"], group[0]["error_pct"]),
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


def _style(scheme):
    """A scheme's colour and marker, the same in every figure (known schemes first)."""
    from matplotlib import colormaps

    known = list(SCHEME_NAMES)
    i = known.index(scheme) if scheme in known else len(known) + sum(map(ord, str(scheme))) % 5
    return colormaps["tab10"](i % 10), MARKERS[i % len(MARKERS)]


# --------------------------------------------------------------------------- CD diagram

def cd_diagram(ranking: dict, path, dpi=None) -> Path:
    """Demsar's (2006) critical-difference diagram of ``ranking`` (``ranking.rank_schemes``).

    The schemes sit at their average rank on a rank axis (1 = best, on the left); a bar joins
    schemes whose ranks differ by no more than the critical difference (Nemenyi; Wilcoxon's
    test for two schemes), and the CD is drawn as a bar of its length above the axis.
    """
    return save_figure(cd_figure(ranking), path, dpi)


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
    caution = small_sample_caution(ranking["n_datasets"], k)
    height = 1.9 + 0.32 * half + 0.12 * len(cliques) + (0.15 if caution else 0.0)
    fig = Figure(figsize=(8.0, height), dpi=DPI)
    fig.subplots_adjust(**margins(8.0, height, left=0.05, right=0.05, bottom=0.05,
                                  top=0.65 if caution else 0.5))
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
        text = f"{label(scheme)} ({rank:.2f})" if left else f"({rank:.2f}) {label(scheme)}"
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
    room = inches_per_char * (max(len(label(s)) for s in schemes) + 8)
    return max(0.6, room * (k + 0.6) / (width - 2 * room))


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
    failures = small_sample_failures(ranking["n_datasets"], len(ranking["schemes"]))
    if failures:
        title += (f"\ncaution: {' and '.join(have for have, _ in failures)}, Demsar asks for "
                  f"{' and '.join(asked for _, asked in failures)}: the test has little power")
    return title


# --------------------------------------------------------------------------- DAG orders

def dag_orders_histogram(errors_pct, kernel_evaluations, selected_error, path, *,
                         dataset="", dpi=None) -> Path:
    """Histograms of the DAG scheme's test error (%) and kernel evaluations per test point over N
    random class orders, the natural order's error (``selected_error``, %) marked by a vertical
    line."""
    return save_figure(dag_orders_figure(errors_pct, kernel_evaluations, selected_error,
                                         dataset), path, dpi)


def dag_orders_figure(errors_pct, kernel_evaluations, selected_error, dataset="") -> Figure:
    """The two-panel DAG order figure (error left, kernel evaluations right)."""
    errors = np.asarray(errors_pct, dtype=float)
    evals = np.asarray(kernel_evaluations, dtype=float)
    if errors.size == 0:
        raise ValueError("dag_orders_histogram needs the test error of at least one class order")
    fig = Figure(figsize=(10.0, 4.2), dpi=DPI)
    fig.subplots_adjust(wspace=0.22, **margins(10.0, 4.2, left=0.65, right=0.2, bottom=0.55,
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
    for ax in (left, right):  # counts of orders: whole numbers; the y label once, on the left
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_title("evaluation cost of the same orders", fontsize=9)
    name = f"{dataset}: " if dataset else ""
    fig.suptitle(f"{name}{label(ORDER_STUDY)} test error over {errors.size} random class orders",
                 fontsize=11, y=0.98)
    return fig


def _bins(values):
    distinct = np.unique(values).size
    return max(1, min(30, distinct if distinct > 1 else 1))


# --------------------------------------------------------------------------- everything

def draw_all(run_folder, grid: pd.DataFrame, chosen: dict, table_rows, ranking=None,
             dag_orders=None, fmt="png", dpi=None) -> list[Path]:
    """Every figure of a run into ``run_folder/figures/`` as ``fmt`` files (png, svg or pdf) at
    ``dpi``; returns the paths written.

    ``dag_orders``: {dataset: {"errors_pct": [...], "kernel_evaluations": [...],
    "selected_error": float}} from the DAG order study, when it ran.
    """
    folder = Path(run_folder) / "figures"
    paths = (grid_heatmaps(grid, chosen, folder, fmt, dpi, _order(table_rows))
             + tradeoff(table_rows, folder, fmt, dpi))
    if ranking is not None:
        paths.append(cd_diagram(ranking, folder / f"cd-diagram.{fmt}", dpi))
    if ranking is not None and ranking.get("verdict"):
        paths.append(bayes_diagram(ranking["verdict"], folder / f"{BAYES_STEM}.{fmt}", dpi))
    for dataset, study in (dag_orders or {}).items():
        paths.append(dag_orders_histogram(study["errors_pct"], study["kernel_evaluations"],
                                          study["selected_error"],
                                          folder / f"dag-orders-{slug(dataset)}.{fmt}",
                                          dataset=dataset, dpi=dpi))
    return paths


FIGURE_NAMES = ("grid-*", "tradeoff-*", "cd-diagram", BAYES_STEM, "dag-orders-*",
                "sweep-*")  # + "." + a format


def _order(table_rows) -> list:
    """The schemes in the table's order (figures' panels follow it)."""
    return list(dict.fromkeys(r["scheme"] for r in table_rows))


def write_figures(run_folder, fmt="png", dpi=None) -> list[Path]:
    """Every figure of a run, drawn from its saved files (``run_folder.read_figure_data``), into
    ``run_folder/figures/`` as ``fmt`` files at ``dpi``; figures of an earlier drawing not made
    again (in any format) are removed: only files named as this module names its figures
    (:data:`FIGURE_NAMES`), and never through a symlinked ``figures/`` (refused in one line: it
    would draw and delete outside the run)."""
    figures = Path(run_folder) / "figures"
    if figures.is_symlink() or figures.exists() and not figures.is_dir():
        raise MultisvmError(f"{figures} is a symlink or not a folder; `multisvm report` draws "
                            f"only into a real figures/ folder inside the run: remove it")
    paths = draw_all(run_folder, **read_figure_data(run_folder), fmt=fmt, dpi=dpi)
    swept = read_sweep(run_folder)
    if swept is not None:
        paths += sweep_figures(swept, figures, fmt, dpi)
    drawn = {f for name in FIGURE_NAMES for kind in FIGURE_FORMATS
             for f in figures.glob(f"{name}.{kind}")}
    for stale in drawn - set(paths):
        stale.unlink()
    return paths
