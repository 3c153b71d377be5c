"""``sweep-<dataset>``: error, training time and memory against the swept value, per scheme.

Each panel's line joins the means over the repeats. The error panel's band is the 95% interval
of the error (:mod:`..intervals`: Wilson's over the test points for one repeat, the spread over
the repeats for several); the other panels' band spans the repeats' minimum and maximum. The x
axis is logarithmic when the values are positive numbers spanning more than 20x (labelled as
powers of 2 when they are), categorical when they are not numbers (a DAG order, say); a y axis
is logarithmic when its values span more than 20x.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ..intervals import spread, wilson
from ..record import ERROR_PCT, label
from .base import figure, figure_path
from .drawing import margins, save_figure, tick_labels

PANELS = [(ERROR_PCT, "test error (%)"), ("cpu_time", "train CPU s"),
          ("max_train_memory_mb", "largest SVM's training data (MB)")]
LOG_SPAN = 20  # a range wider than this many times gets a log axis
CAPTION = ("Test error, final-fit training CPU seconds and the largest binary SVM's training "
           "memory against the swept value, one line per scheme (the mean over the repeats). "
           "Error band: its 95% interval (Wilson's over the test points for one repeat, the "
           "spread over the repeats for several); other bands: the repeats' minimum to maximum; "
           "log axes where the values span more than 20x.")


@figure("sweep", reads=("sweep",), caption=CAPTION, order=50, title="Sweep")
def draw(data, folder, fmt, dpi) -> list[Path]:
    """One ``sweep-<dataset>.<fmt>`` per dataset of sweep.csv."""
    return sweep_figures(data.sweep, folder, fmt, dpi)


def sweep_figures(frame: pd.DataFrame, folder, fmt="png", dpi=None) -> list[Path]:
    """One figure per dataset of sweep.csv (``frame``) into ``folder`` as
    ``sweep-<dataset>.<fmt>``; returns the paths written."""
    paths = []
    for dataset, rows in frame.groupby("dataset", sort=False):
        path = figure_path(folder, "sweep", fmt, dataset)
        paths.append(save_figure(sweep_figure(rows, dataset), path, dpi))
    return paths


def sweep_figure(rows: pd.DataFrame, dataset="") -> Figure:
    """The panels of :data:`PANELS` that have data, side by side, for one dataset's rows."""
    panels = [(c, t) for c, t in PANELS if c in rows and rows[c].notna().any()]
    width, height = 4.2 * len(panels) + 0.6, 3.6
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(wspace=0.35, **margins(width, height, left=0.7, right=0.2,
                                                   bottom=1.1, top=0.45))
    name = rows["sweep"].iloc[0]
    values = list(dict.fromkeys(rows["value"]))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    where = {v: (v if numeric else i) for i, v in enumerate(values)}
    for n, (column, title) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), n + 1)
        for scheme, mine in rows.groupby("scheme", sort=False):
            stats = _band(mine, column)
            x = [where[v] for v in stats.index]
            line, = ax.plot(x, stats["mean"], marker="o", label=label(scheme))
            if (stats["high"] > stats["low"]).any():
                ax.fill_between(x, stats["low"], stats["high"], alpha=0.2,
                                color=line.get_color(), linewidth=0)
        _axes(ax, rows[column], values, numeric)
        ax.set_xlabel(name)
        ax.set_title(title, fontsize=10)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", fontsize=8, ncol=len(labels),
               frameon=False)
    fig.suptitle(f"{dataset}: {name} sweep (line: mean over repeats; error band: 95% interval; "
                 "other bands: min to max)", fontsize=10)
    return fig


def _axes(ax, column, values, numeric):
    """Log scales where the range calls for them; category ticks for non-numeric values."""
    if numeric and min(values) > 0 and max(values) / min(values) > LOG_SPAN:
        ax.set_xscale("log")
    ax.set_xticks(values if numeric else range(len(values)),
                  tick_labels(values) if numeric else [str(v) for v in values])
    ax.minorticks_off()
    positive = column[column > 0]
    if len(positive) == len(column.dropna()) and len(positive) and \
            positive.max() / positive.min() > LOG_SPAN:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)



def _band(rows, column) -> pd.DataFrame:
    """Per swept value: the mean over the repeats and the band (low, high): the error's 95%
    interval (:mod:`..intervals`), the repeats' min and max for the other columns."""
    stats = rows.groupby("value", sort=False)[column].agg(["mean", "min", "max", "std", "count"])
    stats = stats.rename(columns={"min": "low", "max": "high"})
    if column != ERROR_PCT:
        return stats
    n_test = rows.groupby("value", sort=False)["n_test"].first()
    for value, row in stats.iterrows():
        if row["count"] >= 2:
            low, high = spread(row["mean"], row["std"], int(row["count"]))
        elif n_test[value] > 0:
            low, high = (100.0 * b for b in wilson(round(row["mean"] * n_test[value] / 100.0),
                                                   int(n_test[value])))
        else:
            continue
        stats.loc[value, ["low", "high"]] = low, high
    return stats
