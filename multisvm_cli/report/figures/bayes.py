"""The Bayesian signed-rank test's figure: one stacked bar per pair of schemes.

Drawn from a verdict (``verdict.compare_pairs``, saved in results.json under the ranking) and
written as :mod:`.drawing` says (Agg canvas, margins in inches, atomic write), to a run's
``figures/bayes-signed-rank.<format>``. Each bar spans 0 to 1 and is split into P(left) (the
first, better-ranked scheme better by more than the ROPE), P(rope) (practically equivalent) and
P(right) (the second scheme better), the pairs in the verdict's order, the first at the top; a
dotted line at the decision level (0.95) from each end shows how far a side is from deciding.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..record import label
from ..verdict import OUTCOMES, bayes_decision, decision_words
from .base import figure, figure_path
from .drawing import DPI, margins, save_figure

FILE_STEM = "bayes-signed-rank"   # figures/<stem>.<format>
CAPTION = ("Bayesian signed-rank test (Benavoli et al. 2017), one bar per pair of schemes, the "
           "better-ranked scheme first: the posterior probability that the first scheme's test "
           "error is lower by more than the ROPE (blue), that the two are within the ROPE of "
           "each other (grey), and that the second is better (orange). A probability beyond the "
           "dotted 0.95 line decides; otherwise the datasets do not.")
COLOURS = {"p_left": "#4c72b0", "p_rope": "#c8c8c8", "p_right": "#dd8452"}
WIDTH, ROW, INCH_PER_CHAR = 8.5, 0.32, 0.075   # inches; a 9 pt label character


@figure(FILE_STEM, reads=("ranking",), caption=CAPTION, order=15, section="ranking")
def draw(data, folder, fmt, dpi) -> list[Path]:
    """The verdict's figure, ``bayes-signed-rank.<fmt>``, when the ranking has a verdict."""
    verdict = data.ranking.get("verdict")
    return [bayes_diagram(verdict, figure_path(folder, FILE_STEM, fmt), dpi)] if verdict else []


def bayes_diagram(verdict: dict, path, dpi=None) -> Path:
    """:func:`bayes_figure` of ``verdict`` written to ``path`` (png, svg or pdf) at ``dpi``."""
    return save_figure(bayes_figure(verdict), path, dpi)


def bayes_figure(verdict: dict) -> Figure:
    """The stacked bars of ``verdict``'s pairs. ``fig.bars`` lists, per pair from the top,
    (pair label, p_left, p_rope, p_right, decision) as drawn."""
    pairs = verdict["pairs"]
    names = [f"{label(p['a'])} vs {label(p['b'])}" for p in pairs]
    decide = verdict["bayes"]["decide"]
    left_room = 0.3 + INCH_PER_CHAR * max(map(len, names))
    height = 1.45 + ROW * len(pairs)
    fig = Figure(figsize=(WIDTH, height), dpi=DPI)
    fig.subplots_adjust(**margins(WIDTH, height, left=left_room, right=1.5, bottom=0.5,
                                  top=0.85))
    ax = fig.add_subplot()
    rows = range(len(pairs))[::-1]  # the first pair at the top
    fig.bars = []
    for y, pair, name in zip(rows, pairs, names):
        start = 0.0
        for outcome in OUTCOMES:
            width = pair["bayes"][outcome]
            ax.barh(y, width, left=start, height=0.7, color=COLOURS[outcome],
                    edgecolor="white", linewidth=0.5)
            if width >= 0.08:
                ax.text(start + width / 2, y, f"{width:.2f}", ha="center", va="center",
                        fontsize=8, color="white" if outcome != "p_rope" else "black")
            start += width
        decision = bayes_decision(pair["bayes"], decide)
        ax.text(1.02, y, decision_words(pair, decide), ha="left", va="center", fontsize=8,
                fontweight="bold" if decision != "undecided" else "normal")
        fig.bars.append((name, *(pair["bayes"][o] for o in OUTCOMES), decision))
    for x in (1 - decide, decide):
        ax.axvline(x, color="black", linestyle=":", linewidth=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, len(pairs) - 0.4)
    ax.set_yticks(list(rows), names, fontsize=9)
    ax.set_xlabel("posterior probability", fontsize=9)
    ax.tick_params(axis="x", labelsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    handles = [Patch(color=COLOURS[o]) for o in OUTCOMES]
    rope = verdict["rope"]
    ax.legend(handles, ["first better", f"within the ROPE (+-{rope:g} point"
                        f"{'' if rope == 1 else 's'} of error)",
                        "second better"], loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3,
              fontsize=8, frameon=False)
    fig.suptitle(f"Bayesian signed-rank test over {verdict['n_datasets']} datasets "
                 f"(Benavoli et al. 2017); dotted: the {decide:g} decision level",
                 fontsize=10, y=1 - 0.12 / height)
    return fig

