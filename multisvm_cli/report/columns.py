"""The report table's columns, each declared once: :data:`COLUMNS`.

A :class:`Column` carries everything the program says or checks about one column of the
Table-1 report: its key (table.csv's header, results.json's "table" rows), its title (the
text table, table.md and report.html), its title in the terminal's narrow table, its unit,
how a value is shown, the range a run folder's reader checks, and its note (the footnote's
words, or the run-folder reference's where the footnote does not explain it). From it come:

- the columns of :func:`.table.render` (all formats) and their order;
- report.html's headings and its essential columns (:mod:`.html_table`);
- the footnote's column paragraphs (:func:`notes`);
- the numbers and ranges :mod:`.run_folder` and :mod:`.run_checks` check;
- the "Columns of the table" section of docs/reference/run-folder.md (``scripts/gen_docs.py``).

A new column of the table is one :class:`Column` added here, at its place in the table: with
``copied=True`` the row takes its value from the same key of the pooled result, which
``experiment.protocol.pooling`` fills; nothing else names it (tests/report/test_columns.py
adds one and follows it to every output).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..estimators.registry import shared_group
from .balance import BALANCED_ACCURACY, MACRO_F1
from .record import ERROR_PCT, label


@dataclass(frozen=True)
class Range:
    """The values a run folder's reader accepts in a number column (:mod:`.run_checks`):
    ``low`` to ``high`` (None: unbounded), ``low`` itself excluded when ``open_low``, whole
    numbers only when ``whole``; ``problem`` ends the refusal's line."""

    low: float
    high: float | None
    problem: str
    open_low: bool = False
    whole: bool = False

    def holds(self, value: float) -> bool:
        """Whether ``value`` (a float) is in the range."""
        if self.whole and not value.is_integer():
            return False
        above = value > self.low if self.open_low else value >= self.low
        return above and (self.high is None or value <= self.high)


PERCENT = Range(0, 100, "is not in [0, 100]")
FRACTION = Range(0, 1, "is not in [0, 1]")
COUNT = Range(0, None, "is not a count", whole=True)
NONNEGATIVE = Range(0, None, "is negative")
POSITIVE = Range(0, None, "is not > 0", open_low=True)


@dataclass(frozen=True)
class Column:
    """One column of the report table.

    - ``key``: its name in table.csv, results.json's "table" rows and ``--format json``;
    - ``title``: its heading in the text table, table.md and report.html;
    - ``note``: what it holds; the footnote prints it when ``note_at`` is (paragraph, place),
      else only the run-folder reference does (columns sharing a note share its words;
      ``{shared}`` names the schemes that share fits);
    - ``narrow``: its heading in the terminal's table without ``--wide`` ("": not shown there),
      ``narrow_if_filled``: shown there only when some row has a value (a run without
      probabilities keeps its narrow table),
      ``narrow_note``: that heading's gloss in the narrow table's "Columns:" line
      (``{against}``: the comparison scheme);
    - ``unit``: the unit of its numbers (the reference page);
    - ``fmt``: how a value is shown (a format spec or a function; None: ``g`` for floats);
    - ``number``: a finite number or empty in every row (checked on read), ``check``: its
      :class:`Range`;
    - ``when``: shown only when some row carries this key ("": always);
    - ``files_only``: in table.csv and ``--format json`` only, not in the text tables;
    - ``copied``: the row takes the value of the same key of the pooled result
      (``experiment.protocol.pooling``) when it has one (the other columns' values are
      worked out by ``table.table_rows``).
    """

    key: str
    title: str
    note: str = ""
    narrow: str = ""
    narrow_note: str = ""
    unit: str = ""
    fmt: str | Callable | None = None
    number: bool = False
    check: Range | None = None
    note_at: tuple[int, int] | None = None
    when: str = ""
    files_only: bool = False
    copied: bool = False
    narrow_if_filled: bool = False


def _yes_no(value) -> str:
    return "yes" if value else "no"


def _ties(value) -> str:
    return f"{value:.1f}" if not float(value).is_integer() else f"{value:.0f}"


def _evaluations(value) -> str:
    return f"{value:.0f}" if float(value).is_integer() or value >= 100 else f"{value:.1f}"


_LEVELS = ("L1/L2 acc: Hier's level-1 accuracy and level-2 accuracy on the points level 1 "
           "routed right (mean over folds)")
_PROBABILITIES = ("log-loss, Brier: of the class probabilities on the test part (mean over its "
                  "points of -ln p(true class) and of sum_c (p_c - [c true])^2), for schemes "
                  "run with probability")
_MCNEMAR = ("the paired test of the scheme against the comparison scheme (see the footnote's "
            "McNemar or corrected-t line)")
_PAPER = "the paper's {what} (the config's reference numbers; see the footnote's paper line)"

COLUMNS = (
    Column("config", "config", "the config's name (a report of several configs)",
           narrow="config", when="config"),
    Column("dataset", "dataset", "the dataset's name", narrow="dataset"),
    Column("scheme", "scheme", "the multiclass scheme, by its label", narrow="scheme",
           fmt=label),
    Column("kernel", "kernel", "the selected kernel (with the splits that chose it when they "
           "differ)", narrow="kernel"),
    Column("C", "C", "the selected C", narrow="C", number=True, check=POSITIVE),
    Column(ERROR_PCT, "error %", "error % on the test part (pooled over folds and repeats) "
           "of n_test points", narrow="error %", unit="%", fmt=".2f", number=True,
           check=PERCENT, note_at=(1, 1)),
    Column("error_sd", "error SD %", "error SD %: sample standard deviation of the test error "
           "over folds x repeats (blank for a single split)", narrow="SD %",
           unit="percentage points", fmt=".2f", number=True, note_at=(1, 2)),
    Column("draws", "draws", "draws: the random train/test draws of a draws split; its error % "
           "is then their mean test error (each draw tests n_test points) and its SD theirs",
           narrow="draws", unit="draws", fmt=".0f", number=True, check=COUNT, when="draws"),
    Column(BALANCED_ACCURACY, "bal acc", "balanced accuracy: scikit-learn's "
           "balanced_accuracy_score, the mean per-class recall, on the test points the error is "
           "counted on (shown when the smallest test class has under a fifth of the largest's "
           "rows, or balanced_metrics: true); where shown, the Answer ranks by it", narrow="bal acc",
           unit="fraction", fmt=".3f", number=True, check=FRACTION, when=BALANCED_ACCURACY,
           narrow_if_filled=True, copied=True),
    Column(MACRO_F1, "macro F1", "macro F1: scikit-learn's f1_score(average='macro'), the "
           "unweighted mean of the classes' F1 on those test points (shown with bal acc)",
           narrow="macro F1", unit="fraction", fmt=".3f", number=True, check=FRACTION,
           when=MACRO_F1, narrow_if_filled=True, copied=True),
    Column("n_test", "n_test", "the test points the error is counted on", narrow="n_test",
           unit="points", fmt=".0f", check=COUNT),
    Column("kernel_evaluations", "kernel evals", "kernel evals: per test point",
           narrow="k-evals", narrow_note="kernel evaluations per test point",
           unit="per test point", fmt=_evaluations, number=True, check=NONNEGATIVE,
           note_at=(1, 3)),
    Column("cpu_time", "train CPU s", "train CPU s: final fit", narrow="CPU s",
           narrow_note="training CPU seconds", unit="s", fmt=".2f", number=True,
           check=NONNEGATIVE, note_at=(1, 5)),
    Column("smo_iterations", "SMO iters", "SMO iters: libsvm's SMO iterations summed over the "
           "final fit's binary SVMs (mean over folds)", unit="iterations", fmt=".0f",
           number=True, check=NONNEGATIVE, note_at=(1, 6)),
    Column("size_k", "size K", "size K: thousands of parameters", narrow="size K",
           unit="1000 parameters", fmt=".1f", number=True, check=NONNEGATIVE, note_at=(1, 4)),
    Column("selection_time", "select s", "select s: wall seconds summed over the scheme's grid "
           "points (shared {shared} fits counted for each)", unit="s", fmt=".2f", number=True,
           check=NONNEGATIVE, note_at=(1, 7)),
    Column("evaluation_time", "eval s", "eval s: wall seconds to predict the test part",
           unit="s", fmt=".2f", number=True, check=NONNEGATIVE, note_at=(1, 8)),
    Column("mcnemar_p", "McNemar p", "p-value of " + _MCNEMAR, narrow="p",
           narrow_note="paired test vs {against}", fmt=".3g", number=True),
    Column("mcnemar_test", "test", "which test gave p: chi2, exact or corrected-t"),
    Column("significant", "sig 0.05", "whether p < 0.05 (yes / no)", fmt=_yes_no),
    Column("ties", "ties", "ties: grid points tied at the lowest validation error (mean over "
           "folds), broken towards smaller C, then the simpler kernel, then the wider gaussian",
           unit="grid points", fmt=_ties, note_at=(1, 9)),
    Column("max_train_memory_mb", "max SVM MB", "max SVM MB: the largest binary SVM's training "
           "data in its solver (Godbole et al.'s maximum memory to train any SVM; the largest "
           "over folds)", unit="MB", fmt=".3f", number=True, check=NONNEGATIVE,
           note_at=(2, 1), copied=True),
    Column("level1_accuracy", "L1 acc", _LEVELS, unit="fraction", fmt=".3f", number=True,
           check=FRACTION, note_at=(2, 2), copied=True),
    Column("level2_accuracy", "L2 acc", _LEVELS, unit="fraction", fmt=".3f", number=True,
           check=FRACTION, note_at=(2, 2), copied=True),
    Column("log_loss", "log-loss", _PROBABILITIES, narrow="log-loss", unit="nats", fmt=".4f",
           number=True, note_at=(2, 3), narrow_if_filled=True, copied=True),
    Column("brier", "Brier", _PROBABILITIES, narrow="Brier", fmt=".4f", number=True,
           note_at=(2, 3), narrow_if_filled=True, copied=True),
    Column("cv_best_kernel", "cv-best kernel", "the kernel Hsu & Lin's cv-best estimate chose",
           when="cv_best_error_pct"),
    Column("cv_best_C", "cv-best C", "the C Hsu & Lin's cv-best estimate chose",
           when="cv_best_error_pct"),
    Column("cv_best_error_pct", "cv-best err %", "Hsu & Lin's (2002) cv-best error: the lowest "
           "k-fold cross-validation error over the grid (optimistic)", narrow="cv-best %",
           unit="%", fmt=".2f", when="cv_best_error_pct"),
    Column("optimism", "optimism", "error % - cv-best err %", narrow="optimism",
           unit="percentage points", fmt=".2f", when="cv_best_error_pct"),
    Column("cv_best_ties", "cv-best ties", "grid points tied at the lowest cross-validation "
           "error", unit="grid points", when="cv_best_error_pct"),
    Column("paper_kernel", "paper kernel", _PAPER.format(what="kernel"), when="paper_error_pct"),
    Column("paper_C", "paper C", _PAPER.format(what="C"), when="paper_error_pct"),
    Column("paper_error_pct", "paper err %", _PAPER.format(what="test error"),
           narrow="paper %", unit="%", fmt="g", when="paper_error_pct"),
    Column("paper_kernel_evaluations", "paper k-evals", _PAPER.format(what="kernel evaluations"),
           unit="per test point", fmt=_evaluations, when="paper_error_pct"),
    Column("paper_cpu_time", "paper CPU s", _PAPER.format(what="training CPU time"), unit="s",
           when="paper_error_pct"),
    Column("paper_size_k", "paper size K", _PAPER.format(what="classifier size"),
           unit="1000 parameters", when="paper_error_pct"),
    Column("estimate", "estimate", "the row's estimate: nested or cv-best", files_only=True),
    Column("bounded", "bounded", "True when a final fit stopped at libsvm's iteration bound "
           "(report.html marks its error with an asterisk)", files_only=True, when="bounded"),
    Column("edge", "edge", "the folds whose chosen point is the smallest or largest C or "
           "gamma they searched (on an axis of three values or more), and which edges",
           files_only=True, when="edge"),
    Column("run_folder", "run_folder", "the run folder of the row (a report of several "
           "configs)", files_only=True, when="run_folder"),
)


def error_pct(n_errors, n_test) -> float:
    """The test error in % of ``n_errors`` wrong out of ``n_test`` points (``error_pct`` of a
    result, a split, a sweep row and the table)."""
    return 100.0 * n_errors / n_test


def column(key) -> Column | None:
    """The declared column of ``key``, or None."""
    return next((c for c in COLUMNS if c.key == key), None)


def shown(rows, fmt="table") -> list[Column]:
    """The columns a report of ``rows`` has in format ``fmt``, in order: those always shown,
    those whose ``when`` key some row carries, and (csv and json) the files-only ones."""
    files = fmt in ("csv", "json")
    return [c for c in COLUMNS if (files or not c.files_only)
            and (not c.when or any(c.when in row for row in rows))]


def display(key, value) -> str:
    """A report value as the tables and report.html show it (its column's ``fmt``)."""
    if value is None:
        return ""
    declared = column(key)
    fmt = declared.fmt if declared else None
    if callable(fmt):
        return fmt(value)
    if fmt:
        return format(value, fmt)
    return f"{value:g}" if isinstance(value, float) else str(value)


def note(col: Column) -> str:
    """A column's note, the shared-fit group named."""
    return col.note.format(shared="/".join(map(label, shared_group())))


def notes() -> list[str]:
    """The footnote's column paragraphs: each one the notes placed in it (``note_at``), in
    their places, joined by "; " (a note shared by columns once)."""
    placed = sorted((c.note_at, note(c)) for c in COLUMNS if c.note_at)
    paragraphs: dict[int, list[str]] = {}
    for (paragraph, _), text in placed:
        if text not in paragraphs.setdefault(paragraph, []):
            paragraphs[paragraph].append(text)
    return ["; ".join(texts) + "." for _, texts in sorted(paragraphs.items())]


def balanced_note() -> str:
    """The footnote's line on the balanced columns, for a table that shows them."""
    return "; ".join(note(column(key)) for key in (BALANCED_ACCURACY, MACRO_F1)) + "."


def narrow_titles(rows=None) -> dict:
    """{key: narrow heading} of the terminal's table without ``--wide``, in table order; with
    ``rows``, a ``narrow_if_filled`` column only when some row has a value in it."""
    return {c.key: c.narrow for c in COLUMNS if c.narrow and not (
        rows is not None and c.narrow_if_filled
        and all(row.get(c.key) in (None, "") for row in rows))}


def narrow_notes(against) -> str:
    """The narrow table's glosses of its short headings ("k-evals: kernel evaluations ...")."""
    return "; ".join(f"{c.narrow}: {c.narrow_note.format(against=against)}"
                     for c in COLUMNS if c.narrow_note)


def copied(result) -> dict:
    """The ``copied`` columns' values of a pooled result (those it has, not None)."""
    return {c.key: result[c.key] for c in COLUMNS
            if c.copied and result.get(c.key) is not None}


def numbers() -> tuple:
    """The keys of the columns that hold a finite number or nothing in every row."""
    return tuple(c.key for c in COLUMNS if c.number)


def ranges() -> dict:
    """{key: Range} of the columns a run folder's reader checks."""
    return {c.key: c.check for c in COLUMNS if c.check}
