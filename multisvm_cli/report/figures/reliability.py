"""``reliability-<dataset>``: reliability (calibration) curves of the schemes run with class
probabilities, with each bin's count.

For each scheme of a dataset whose results carry ``reliability`` (``probability: true``), the
test points are binned by the probability of the class predicted (ten equal-width bins, pooled
over the folds and repeats). The top panel draws each non-empty bin at (mean predicted
probability, fraction predicted right) with Wilson's 95% interval of that fraction
(:func:`.intervals.wilson`), the marker's area growing with the bin's points; no line joins the
bins, so an empty or tiny bin is not bridged by a confident-looking curve. The bottom panel
counts the points of each bin. A calibrated scheme lies on the diagonal; below it,
over-confident. (DeGroot & Fienberg 1983; the top-label curve of Guo et al. 2017.)

The legend gives each scheme's expected calibration error (:func:`ece`). Schemes whose bins,
log-loss and Brier score are all the same (Max Wins, DAGSVM and ADAG share their
probabilities) are drawn once, under a joint label ("Max Wins = DAGSVM = ADAG").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ..intervals import wilson
from ..record import label
from .base import figure, figure_path
from .drawing import DPI, margins, save_figure, style

BINS = 10  # equal-width bins of the predicted class's probability (the protocol's)
CAPTION = ("Reliability curves of the schemes run with class probabilities: the test points "
           "binned by the probability of the class each scheme predicts (ten bins, pooled over "
           "folds and repeats), each bin at its mean predicted probability (x) and the fraction "
           "of its points predicted right (y), with Wilson's 95% interval; a marker's area "
           "grows with its points, and the lower panel counts them. On the dashed diagonal a "
           "scheme is calibrated; below it, over-confident. ECE: the expected calibration "
           "error, the points' mean gap |fraction right - mean probability| over the bins. "
           "Schemes with the same probabilities are drawn once, their names joined by =.")


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


def ece(bins) -> float:
    """The expected calibration error of a scheme's ``bins``: ``sum_b (n_b / N) |acc_b -
    conf_b|`` over the bins b of n_b points (N in all), acc_b the fraction of b's points
    predicted right and conf_b their mean predicted probability (Naeini, Cooper & Hauskrecht
    2015; Guo, Pleiss, Sun & Weinberger 2017, eq. 3). 0 for a calibrated scheme."""
    x, y, n = curve(bins)
    return float(np.sum(n * np.abs(y - x)) / np.sum(n))


def shared(results) -> list[tuple[list, dict]]:
    """([schemes], result) of ``results``, the schemes with the same probabilities (same bins,
    log-loss and Brier score) joined, in the results' order."""
    groups: dict = {}
    for result in results:
        key = (repr(result["reliability"]), result.get("log_loss"), result.get("brier"))
        groups.setdefault(key, ([], result))[0].append(result["scheme"])
    return list(groups.values())


def joint_label(schemes) -> str:
    """The legend's name of schemes with the same probabilities: "Max Wins = DAGSVM = ADAG"."""
    return " = ".join(map(label, schemes))


def reliability_figure(dataset, results) -> Figure:
    """One dataset's reliability panel (markers with Wilson intervals, a scheme group each)
    over its count panel (``results``: its results.json entries that carry ``reliability``)."""
    fig = Figure(figsize=(7.5, 6.0), dpi=DPI)
    fig.subplots_adjust(**margins(7.5, 6.0, left=0.75, right=2.9, bottom=0.6, top=0.5),
                        hspace=0.12)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    top.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1)
    groups = shared(results)
    width = 1.0 / BINS / (len(groups) + 1)
    for index, (schemes, result) in enumerate(groups):
        colour, marker = style(schemes[0])
        x, y, n = curve(result["reliability"])
        low, high = np.array([wilson(int(right), int(count)) for right, count
                              in zip(np.rint(y * n), n)]).T
        below, above = np.clip(y - low, 0, None), np.clip(high - y, 0, None)  # rounding only
        top.errorbar(x, y, yerr=[below, above], fmt="none", ecolor=colour, elinewidth=1,
                     capsize=2, alpha=0.7)
        top.scatter(x, y, s=12 + 160 * n / n.sum(), color=colour, marker=marker, zorder=3,
                    label=f"{joint_label(schemes)} (ECE {ece(result['reliability']):.3f})")
        edges = np.arange(BINS) / BINS
        bottom.bar(edges + width * (index + 0.5), result["reliability"]["count"], width=width,
                   align="edge", color=colour)
    top.set(xlim=(0, 1), ylim=(0, 1.02), ylabel="fraction predicted right",
            title=f"{dataset}: reliability of the probabilities")
    bottom.set(xlabel="mean predicted probability of the predicted class", ylabel="points")
    top.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8, frameon=False)
    return fig
