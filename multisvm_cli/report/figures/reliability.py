"""``reliability-<dataset>``: reliability (calibration) curves of the schemes run with class
probabilities.

For each scheme of a dataset whose results carry ``reliability`` (``probability: true``), the
test points are binned by the probability of the class predicted (ten equal-width bins, pooled
over the folds and repeats); each non-empty bin is drawn at (mean predicted probability,
fraction predicted right), its marker's area growing with the bin's points. A calibrated
scheme lies on the diagonal; below it, over-confident. (DeGroot & Fienberg 1983; the top-label
curve of Guo et al. 2017.)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ...estimators.registry import label
from .base import figure, figure_path
from .drawing import DPI, margins, save_figure, style

CAPTION = ("Reliability curves of the schemes run with class probabilities: the test points "
           "binned by the probability of the class each scheme predicts (ten bins, pooled over "
           "folds and repeats), each bin at its mean predicted probability (x) and the fraction "
           "of its points predicted right (y); a marker's area grows with its points. On the "
           "dashed diagonal a scheme is calibrated; below it, over-confident.")


@figure("reliability", reads=("results",), caption=CAPTION, order=25,
        title="Calibration of the class probabilities")
def draw(data, folder, fmt, dpi) -> list[Path]:
    """One ``reliability-<dataset>.<fmt>`` per dataset with a scheme run with probabilities."""
    with_bins = [r for r in data.results["results"] if r.get("reliability")]
    paths = []
    for dataset in dict.fromkeys(r["dataset"] for r in with_bins):
        fig = reliability_figure(dataset, [r for r in with_bins if r["dataset"] == dataset])
        paths.append(save_figure(fig, figure_path(folder, "reliability", fmt, dataset), dpi))
    return paths


def curve(bins) -> tuple:
    """(mean predicted probability, fraction right, points) of the non-empty bins."""
    count = np.asarray(bins["count"], dtype=float)
    used = count > 0
    return (np.asarray(bins["confidence"])[used] / count[used],
            np.asarray(bins["right"])[used] / count[used], count[used])


def reliability_figure(dataset, results) -> Figure:
    """One dataset's reliability curves, a line per scheme (``results``: its results.json
    entries that carry ``reliability``)."""
    fig = Figure(figsize=(6.0, 5.0), dpi=DPI)
    fig.subplots_adjust(**margins(6.0, 5.0, left=0.75, right=1.6, bottom=0.6, top=0.5))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1)
    for result in results:
        x, y, n = curve(result["reliability"])
        colour, marker = style(result["scheme"])
        ax.plot(x, y, color=colour, linewidth=1, label=label(result["scheme"]))
        ax.scatter(x, y, s=12 + 120 * n / n.sum(), color=colour, marker=marker, zorder=3)
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="mean predicted probability of the predicted class",
           ylabel="fraction predicted right", title=f"{dataset}: reliability of the probabilities")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8, frameon=False)
    return fig
