"""``dag-orders-<dataset>``: the DAG scheme's test error and cost over random class orders.

Drawn from results.json's dag_orders (the order study, when the config asked for it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ...estimators.registry import ORDER_STUDY
from ..record import label
from .base import figure, figure_path
from .drawing import DPI, margins, save_figure

CAPTION = (f"Left: histogram of {label(ORDER_STUDY)}'s test error over random orders of the "
           "classes in the DAG, the red line at the natural order's error. Right: kernel "
           "evaluations per test point of the same orders. A narrow histogram means the class "
           "order matters little.")


@figure("dag-orders", reads=("dag_orders",), caption=CAPTION, order=30,
        title=f"{label(ORDER_STUDY)} class orders")
def draw(data, folder, fmt, dpi) -> list[Path]:
    """One ``dag-orders-<dataset>.<fmt>`` per dataset of the order study."""
    return [dag_orders_histogram(study["errors_pct"], study["kernel_evaluations"],
                                 study["selected_error"],
                                 figure_path(folder, "dag-orders", fmt, dataset),
                                 dataset=dataset, dpi=dpi)
            for dataset, study in data.dag_orders.items()]


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

