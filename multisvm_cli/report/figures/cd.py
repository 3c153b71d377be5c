"""``cd-diagram``: Demsar's (2006) critical-difference diagram of the schemes' average ranks.

Drawn from results.json's ranking (``ranking.rank_schemes``: two or more datasets and schemes).
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ..ranking import small_sample_caution, small_sample_failures
from ..record import label
from .base import figure, figure_path
from .drawing import DPI, margins, save_figure, style

CAPTION = ("Critical-difference diagram (Demsar 2006). Each scheme sits at its average rank over "
           "the datasets (1 = lowest test error, on the left). A thick bar joins schemes whose "
           "average ranks differ by no more than the critical difference (the CD bar above the "
           "axis): the data do not show them to differ. Schemes not joined by a bar differ "
           "significantly (Nemenyi test; Wilcoxon signed-rank test for two schemes).")


@figure("cd-diagram", reads=("ranking",), caption=CAPTION, order=10, section="ranking")
def draw(data, folder, fmt, dpi) -> list[Path]:
    """The run's CD diagram, ``cd-diagram.<fmt>``."""
    return [cd_diagram(data.ranking, figure_path(folder, "cd-diagram", fmt), dpi)]


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
        color = style(scheme)[0]
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

