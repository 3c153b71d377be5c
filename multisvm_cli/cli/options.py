"""The options several commands share, and the small objects that carry them into a command.

A decorator here adds a group of click options to a command (:func:`figure_options`,
:func:`data_options`, :func:`run_options`, :func:`report_options`); the command takes them as
``**options`` and hands them to :class:`RunOptions` or :class:`ReportOptions` (the field names
are the options' parameter names), which builds the experiment's ``Settings``. Nothing here
imports the experiment layer until a command runs: ``multisvm --help`` stays quick.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from .datasets import cards_option
from ..base.errors import MultisvmError

FORMATS = ("table", "markdown", "csv", "json")
FIGURE_FORMATS = ("png", "svg", "pdf")  # report.figures.drawing.FIGURE_FORMATS (not imported: slow)


SEED_MAX = 2 ** 32 - 1  # numpy's seeds: 0 .. 2^32 - 1


def _seed(ctx, param, value):
    """``--seed``: a whole number from 0 to :data:`SEED_MAX`, refused in one line before any
    run folder exists."""
    if value is not None and not 0 <= value <= SEED_MAX:
        raise MultisvmError(f"--seed: a seed must be an integer from 0 to {SEED_MAX}, got "
                            f"{value}")
    return value


def _added(command, options):
    """``command`` with ``options`` (click decorators) added, shown in their order."""
    for option in reversed(options):
        command = option(command)
    return command


def _local_format(ctx, param, value):
    """``--input-format``: one of the format registry's local formats, checked as
    ``click.Choice`` checks (listing them imports their modules, which only a command that
    reads a file needs: ``multisvm --help`` stays quick)."""
    if value is None:
        return None
    from ..data.formats import local_names

    return click.Choice(local_names()).convert(value, param, ctx)


def input_format_option(files, old_spelling=False):
    """The ``--input-format FORMAT`` option (parameter ``input_format``) of a command reading
    ``files`` (for its help), with ``--format`` too, hidden (parameter ``format_alias``), where
    ``old_spelling``: ``predict``'s earlier name for it."""
    def added(command):
        options = [click.option(
            "--input-format", "input_format", metavar="FORMAT", default=None,
            callback=_local_format,
            help=f"{files} format, a local data format (a name it does not know is answered "
                 f"with those it knows) [from the extension, else the content].")]
        if old_spelling:
            options.append(click.option("--format", "format_alias", default=None, hidden=True,
                                        callback=_local_format))
        return _added(command, options)
    return added


def figure_options(command):
    """--figure-format, --dpi and --no-figures, shared by reproduce-table and report."""
    return _added(command, [
        click.option("--figure-format", type=click.Choice(FIGURE_FORMATS), default="png",
                     show_default=True, help="File format of figures/ (svg and pdf for papers)."),
        click.option("--dpi", type=click.IntRange(20, 1200), default=150, show_default=True,
                     help="Resolution of the figures (pixels per inch of a PNG)."),
        click.option("--no-figures", "no_figures", is_flag=True,
                     help="Draw no figures (quick reruns; report.html shows the tables only)."),
    ])


def data_options(command):
    """--data-home, --mirror and --cards: where datasets are found."""
    command = cards_option(command)
    command = click.option("--mirror", type=click.Path(file_okay=False), default=None,
                           help="Folder of verified dataset copies (env MULTISVM_MIRROR).")(command)
    return click.option("--data-home", type=click.Path(file_okay=False), default=None,
                        help="Download and parsed-data cache (env MULTISVM_DATA_HOME).")(command)


def run_options(command):
    """--n-jobs, --seed, --backend, --scheduler, --out, --quiet and the data options, shared by
    the running commands (:class:`RunOptions`)."""
    return data_options(_added(command, [
        click.option("--n-jobs", "-j", type=int, default=None,
                     help="Grid points and binary SVMs run at once [1; -1 = every core; more "
                          "than the cores is lowered to them; 0 is refused]."),
        click.option("--seed", type=int, default=None, callback=_seed,
                     help="Replaces the config's seed (splits, validation, estimators) "
                          f"[0..{SEED_MAX}]."),
        click.option("--backend", default=None, metavar="loky|threading|dask",  # checked by
                     # experiment.settings.workers (importing it here would slow every command)
                     help="joblib backend the work runs on [threads in this process]; dask "
                          "needs multisvm[dask]."),
        click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Dask scheduler address (with --backend dask)."),
        click.option("--out", type=click.Path(file_okay=False), default="results",
                     show_default=True, help="Root of run folders and of the resume cache."),
        click.option("--quiet", "-q", is_flag=True,
                     help="No progress bar or lines (as --progress none)."),
    ]))


def report_options(command):
    """--format, --wide, --force, --progress, the figure and the run options: those of the
    commands that run a config and print its report (reproduce-table, compare;
    :class:`ReportOptions`)."""
    return run_options(figure_options(_added(command, [
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                     show_default=True, help="How the report is printed."),
        click.option("--wide", is_flag=True,
                     help="Every column in the terminal table (by default it fits 120 columns; "
                          "table.csv, table.md and report.html have them all)."),
        click.option("--force", is_flag=True, help="Redo grid points already in the resume cache."),
        click.option("--progress", type=click.Choice(["bar", "lines", "none"]), default=None,
                     help="How progress shows [a bar on a terminal; else one line at most every "
                          "30 s with points done and the ETA]."),
    ])))


@dataclass(frozen=True)
class RunOptions:
    """What :func:`run_options` gives a command: how and where it runs (``seed`` replaces the
    config's; the rest go to the experiment's ``Settings``)."""

    n_jobs: int | None
    seed: int | None
    backend: str | None
    scheduler: str | None
    out: str
    quiet: bool
    mirror: str | None
    data_home: str | None

    def settings(self, **more):
        """The experiment's ``Settings`` of these options and ``more`` (its other fields), with
        the command line that run.json records (set by ``main``; absent under click's test
        runner)."""
        from ..experiment import Settings

        root = click.get_current_context().find_root()
        args = (root.obj or {}).get("argv")
        return Settings(out=self.out, n_jobs=self.n_jobs, backend=self.backend,
                        scheduler=self.scheduler, quiet=self.quiet, mirror=self.mirror,
                        data_home=self.data_home,
                        argv=None if args is None else (root.info_name, *args), **more)


@dataclass(frozen=True)
class ReportOptions(RunOptions):
    """What :func:`report_options` gives a command: the run options, how the report prints
    (``fmt``, ``wide``) and the run's ``force``, ``progress`` and figures."""

    fmt: str
    wide: bool
    force: bool
    progress: str | None
    figure_format: str
    dpi: int
    no_figures: bool

    def settings(self, **more):
        """The experiment's ``Settings``: the run options', with the report options'."""
        return super().settings(force=self.force, figure_format=self.figure_format,
                                dpi=self.dpi, figures=not self.no_figures,
                                progress=self.progress or "auto", **more)


COLUMN_OPTIONS = ("drop", "categorical", "missing", "unseen")  # data.columns.FIELDS


def column_options(command):
    """--drop, --categorical, --missing and --unseen: a csv table's columns as they come (a
    config's ``features:`` keys of a csv dataset, :mod:`..data.columns`); the command takes
    them as parameters of those names (None: not given)."""
    return _added(command, [
        click.option("--drop", default=None, metavar="COL,...",
                     help="Columns of a csv DATA to leave out (a name, an id), by header name."),
        click.option("--categorical", default=None, metavar="auto|COL,...",
                     help="Text columns one-hot encoded: those whose cells are all text, or the "
                          "named ones [auto]."),
        click.option("--missing", type=click.Choice(["refuse", "drop", "impute"]), default=None,
                     help="Cells NA, empty, ?, nan (pandas' NA spellings): refuse the file, drop "
                          "their rows, or impute (median; most frequent for text) [refuse]."),
        click.option("--unseen", type=click.Choice(["refuse", "zeros"]), default=None,
                     help="A TEST category the training part never saw: refuse, or all-zero "
                          "one-hot columns [refuse]."),
    ])


def column_choices(options) -> dict:
    """The column options given (popped from a command's ``options``) as a ``features:``
    mapping: only those given."""
    given = {key: options.pop(key) for key in COLUMN_OPTIONS}
    return {key: value for key, value in given.items() if value is not None}
