"""The ``multisvm`` command line: click options over :mod:`multisvm_cli.experiment`.

Each command parses its options, calls one experiment function and prints what it returns;
user errors print one line (``error: ...``) and exit with code 2, warnings print one line each.
"""

import os
import re
import shutil
import sys
import warnings

from pathlib import Path

import click

from .. import __version__
from .datasets import datasets
from .options import (ReportOptions, RunOptions, column_choices, column_options, data_options,
                      figure_options, input_format_option, report_options, run_options)
from ..base.errors import MultisvmError, one_line
from ..estimators.registry import scheme_names_help
from ..experiment.compare import DEFAULT_SCHEMES, KERNELS

EXIT_USER_ERROR = 2
DEFAULT_WIDTH = 120  # the width text wraps at when the output is not a terminal
SCHEME_HELP = scheme_names_help()  # the registry is data only: importing it is quick


def _width() -> int:
    """The terminal's width ($COLUMNS, else the terminal, else DEFAULT_WIDTH)."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def _label_column(ctx, param, value):
    """``--label``: a column's 0-based index when ``value`` is an integer written in ASCII
    digits (``-1``: the last), else its header name (``²`` is a name, never an index)."""
    if value is not None and re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    return value


def _output_name(ctx, param, value):
    """``-o``: a path, never an empty name."""
    if value is not None and not value.strip():
        raise MultisvmError("-o is an empty name; give the file or folder to write, or leave "
                            "-o out")
    return value


def _schemes(ctx, param, value):
    """``compare --schemes``: the names, comma-separated; an empty list is refused."""
    if value is None:
        return None
    names = [name.strip() for name in value.split(",")]
    if not any(names):
        raise MultisvmError("--schemes is empty; name one or more schemes, comma-separated "
                            f"(or leave it out for {','.join(DEFAULT_SCHEMES)})")
    return names


CLI_HELP = f"""Compare multiclass SVM schemes on the papers' datasets with one protocol, and
print a Table-1 style report.

A CONFIG is a YAML file, or the name of a shipped config (see 'multisvm configs'; a
./configs/<name>.yaml in the current folder comes first).

Schemes, named by name, label or alias in any case: {SCHEME_HELP}. Kernel types: gaussian
(rbf), polynomial (poly), linear."""


@click.group(help=CLI_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="multisvm")
def cli():
    """The ``multisvm`` command group; its help is :data:`CLI_HELP` (the registry's schemes)."""


cli.add_command(datasets)


@cli.command("reproduce-table")
@click.argument("configs", nargs=-1, required=True, metavar="CONFIG...")
@click.option("--dataset", "dataset_names", multiple=True, metavar="NAME",
              help="Run only this dataset of the config (repeatable); its grid points share "
                   "the resume cache with the full run.")
@report_options
def reproduce_table(configs, dataset_names, **options):
    """Select, train and test every scheme of each CONFIG; print the Table-1 report.

    Each run writes results/<config-name>/<timestamp>/ (config.original.yaml, config.yaml,
    grid.csv, table.csv, table.md, results.json, run.json, run.log, figures/, report.html;
    'multisvm report' redraws the last two); finished grid points are
    cached and skipped when the same config runs again. The run folder is printed after the
    table ("results: ..."), and with --format json it is each row's "run_folder". With several
    CONFIGs, csv and json print one document whose rows start with a "config" column; table and
    markdown print one report per config. With --dataset, only the named datasets of each
    CONFIG run (run.json and config.yaml record which), and the full run later reuses their
    grid points.

    Example: multisvm reproduce-table quickstart --n-jobs 2
    """
    from ..experiment import load_config

    given = ReportOptions(**options)
    loaded = [load_config(path, given.seed) for path in configs]
    if dataset_names:  # every name checked before any run starts
        loaded = [config.only(dataset_names) for config in loaded]
    _run_and_print(loaded, given)


def _run_and_print(loaded, given: ReportOptions, answer=False):
    """Run each config of ``loaded`` with ``given``'s settings and print its report as
    ``given.fmt`` (``answer``: with the Answer: after a table or markdown report; in json as
    the document's ``"answer"`` key beside its ``"rows"``; in csv as answer.csv in the run
    folder, named on stderr)."""
    from ..experiment import reproduce
    from ..report.table import render

    fmt, rows, record = given.fmt, [], None
    settings = given.settings()
    for config in loaded:
        run = reproduce(config, settings)
        if fmt in ("csv", "json"):
            rows += [{"config": config.name, **row, "run_folder": str(run.folder)}
                     for row in run.rows]
            click.echo(f"results: {run.folder}", err=True)
            if answer:
                record = _answer_record(run, fmt)
        else:
            _print_report(config, run, fmt, given.wide, answer)
    if fmt in ("csv", "json"):
        if len(loaded) == 1:
            rows = [{k: v for k, v in row.items() if k != "config"} for row in rows]
        click.echo(render(rows, fmt, answer=record).rstrip("\n"))


def _answer_record(run, fmt):
    """The Answer of ``run`` as data (:func:`.summary.answer_record`) for json; for csv, written
    as the run folder's answer.csv (named on stderr; stdout keeps the table only): None."""
    from ..base.storage import atomic_write
    from ..report.run_folder import read_results
    from ..report.summary import answer_csv, answer_record

    record = answer_record(read_results(run.folder), run.rows)
    if fmt == "json":
        return record
    written = atomic_write(run.folder / "answer.csv", answer_csv(record))
    click.echo(f"answer: {written}", err=True)
    return None


def _print_report(config, run, fmt, wide, answer):
    """One run's table or markdown report, its other studies, (the Answer) and its folder."""
    from ..report.hsu_lin import HSU_LIN, tables_text
    from ..report.run_folder import read_meta, read_results
    from ..report.summary import answer_text
    from ..report.verdict import across_datasets_text
    from ..report.sweep import sweep_table
    from ..report.table import dag_orders_text, prepared_notes, render

    click.echo(render(run.rows, fmt, config.reference.get("source"),
                      config.compare_to, wide=wide, width=_width()).rstrip("\n"))
    for line in prepared_notes(read_meta(run.folder)):  # a csv table's columns: what was done
        click.echo(_wrap(f"data: {line}."))
    if config.layout == HSU_LIN:  # Hsu & Lin's Tables II and III, from results.json
        click.echo("\n" + tables_text(read_results(run.folder)["results"], fmt,
                                       width=_width(), config=config.name))
    if run.ranking:
        click.echo("\n" + _wrap(across_datasets_text(run.ranking)))
    if run.dag_orders:
        click.echo("\n" + _wrap(dag_orders_text(run.dag_orders)))
    if run.sweep:
        click.echo("\n" + sweep_table(run.sweep, fmt).rstrip("\n"))
    if answer:
        click.echo("\nAnswer:\n" + _wrap(answer_text(read_results(run.folder), run.rows)))
    click.echo(f"results: {run.folder}")
    click.echo(f"report: {run.folder / 'report.html'}")


@cli.command()
@click.argument("data", metavar="DATA", type=click.Path(exists=True))
@click.argument("test", metavar="[TEST]", required=False, type=click.Path(exists=True))
@click.option("--schemes", default=None, metavar="A,B,...", callback=_schemes,
              help=f"The schemes to compare, comma-separated [{','.join(DEFAULT_SCHEMES)}]: "
                   f"{SCHEME_HELP}.")
@click.option("--label", metavar="NAME|INDEX", default=None, callback=_label_column,
              help="A csv DATA's label column, by header name or 0-based index [the header's "
                   "column named label, class, target, y, species, ...; the last where DATA "
                   "has no header].")
@click.option("--kernel", type=click.Choice(KERNELS),
              default=None,
              help="The kernel: gaussian over the gamma grid, polynomial of degree 2 and 3, or "
                   "linear [gaussian; linear for a folder of documents].")
@click.option("--full", is_flag=True,
              help="Hsu & Lin's whole grid (15 x 15 for gaussian) instead of 3 x 3 of it.")
@click.option("--refine/--no-refine", default=True,
              help="After the 3 x 3 grid, search finer around each fold's best cell, past the "
                   "grid's edge up to two 2^2 steps beyond Hsu & Lin's range (config key "
                   "refine) [--refine; --full searches the whole grid once].")
@click.option("--name", default=None, metavar="NAME",
              help="The dataset's name (the run is compare-NAME) [DATA's file name, made "
                   "folder-safe].")
@click.option("--max-classes", type=click.IntRange(min=2), default=None, metavar="N",
              help="Refuse pairwise schemes (Max Wins, DAGSVM, ADAG, Coupling) above N "
                   "classes [1000].")
@input_format_option("DATA's and TEST's")
@column_options
@report_options
def compare(data, test, schemes, label, kernel, full, name, **options):
    """Compare multiclass schemes on a csv, svmlight or npz file DATA (or a folder of
    documents, one subfolder per class) without a config: print the table and the Answer.

    The config it runs (results/compare-<name>/<timestamp>/config.original.yaml; give it to
    reproduce-table to run it again) holds: each local file's own scaling; Hsu & Lin's grid,
    gamma 2^4, 2^-3, 2^-10 and C 2^12, 2^5, 2^-2 (every exponent of 2^4..2^-10 and
    2^12..2^-2 with --full), refined around each fold's best cell unless --full or
    --no-refine; kernel and C chosen on a 70/30 split of each training part;
    5-fold cross-validation, or the TEST file when given. With --format json the Answer is the
    document's "answer" key beside its "rows"; with --format csv it is the run folder's
    answer.csv (named on stderr).

    Example: multisvm compare data/mine.csv --label target -j 2
    """
    import tempfile

    from ..experiment.compare import compare_config, compare_label, dataset_name

    input_format, max_classes = options.pop("input_format"), options.pop("max_classes")
    columns = column_choices(options)
    refine = options.pop("refine")
    grid = "full" if full else "refine" if refine else "coarse"
    given = ReportOptions(**options)
    label, note = compare_label(data, label, input_format)
    try:
        with tempfile.TemporaryDirectory(prefix="multisvm-compare-") as folder:
            config = compare_config(folder, data, test, given.seed, schemes=schemes,
                                    label=label, kernel=kernel, grid=grid, name=name,
                                    input_format=input_format, max_classes=max_classes,
                                    columns=columns)
        stem = Path(data).stem if Path(data).is_file() else Path(data).name
        if name is None and dataset_name(data) not in (stem, f"{stem}-data"):
            click.echo(f"note: {data} runs as dataset {dataset_name(data)} (a folder-safe "
                       "name; --name NAME names it)", err=True)
        _run_and_print([config], given, answer=True)
    except MultisvmError as refused:
        raise _with_label(refused, note) from None
    if note is not None:  # after the run: a refusal says it in its one line instead
        click.echo(note, err=True)


def _with_label(refused, note):
    """A refusal of compare's config as one line that also says which label column compare
    took without --label (``note``; None: the user named it): a refusal stays one line, and it
    may be about that column."""
    if note is None:
        return refused
    return MultisvmError(f"{one_line(refused)}; {note.removeprefix('note: ')}")


@cli.command()
@click.argument("config_path", metavar="CONFIG")
@click.option("--scheme", "-s", required=True,
              help=f"The scheme to train (one of the config's), by name, label or alias in "
                   f"any case: {SCHEME_HELP}.")
@click.option("--dataset", default=None, help="Which of the config's datasets [the first].")
@click.option("-o", "--output", type=click.Path(file_okay=False), default=None,
              callback=_output_name,
              help="Model folder [models/<config>-<dataset>-<scheme>]; must not exist yet.")
@click.option("--force", is_flag=True, help="Replace an existing model folder.")
@run_options
def train(config_path, scheme, dataset, output, force, **options):
    """Select the scheme's kernel and C on CONFIG's validation protocol, fit it on the whole
    training part and save it (model.json + model.npz, no pickle).

    Example: multisvm train quickstart --scheme dag --dataset wine -o models/wine-dag
    """
    from ..experiment import load_config
    from ..experiment import train as train_model

    from ..estimators.registry import scheme_name

    given = RunOptions(**options)
    config = load_config(config_path, given.seed)
    scheme = scheme_name(scheme) or scheme
    settings = given.settings()
    trained = train_model(config, scheme, dataset, output, settings, force=force)
    chosen = trained.chosen
    click.echo(f"trained {scheme} on {trained.dataset}: {chosen['kernel']}, C={chosen['C']:g}, "
               f"validation error {100 * chosen['validation_error']:.2f}%, "
               f"{trained.estimator.n_parameters_ / 1000:.1f}K parameters; saved to "
               f"{trained.folder}")


@cli.command()
@click.argument("model_dir", type=click.Path(file_okay=False))
@click.option("--dataset", default=None, metavar="NAME|FILE",
              help="Dataset to evaluate on: a registry name, or a labelled csv, svmlight or npz "
                   "file with the model's columns [the model's own].")
@click.option("--part", default=None,
              help="Part of the dataset: test, train, validation or all [test where the model's "
                   "split held rows out; all, with a warning, after a k-fold or all split].")
@click.option("--confusion", is_flag=True, help="Also print the confusion matrix.")
@input_format_option("The --dataset FILE's")
@data_options
def evaluate(model_dir, dataset, part, confusion, input_format, mirror, data_home):
    """Load a saved model, predict a dataset part (or every point of a labelled FILE) and
    print error, kernel evaluations, evaluation time, size (and the confusion matrix).

    Example: multisvm evaluate models/wine-dag --confusion
    """
    from ..experiment import evaluate as evaluate_model
    from ..report.table import evaluation_text

    result = evaluate_model(model_dir, dataset, part, confusion, mirror, data_home,
                            input_format)
    click.echo(evaluation_text(result))


@cli.command()
@click.argument("model_dir", metavar="MODEL", type=click.Path(file_okay=False))
@click.argument("file", metavar="FILE|FOLDER", type=click.Path())
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              callback=_output_name,
              help="Write the predictions to this csv file [print them]; must not exist yet.")
@click.option("--proba", is_flag=True,
              help="Add one column of class probabilities per class (schemes that give them).")
@input_format_option("FILE's", old_spelling=True)
@click.option("--zero-based/--one-based", "zero_based", default=None,
              help="Whether an svmlight FILE's indices start at 0 or 1 [as the model's "
                   "training file's; else 1].")
@click.option("--label", metavar="NAME|INDEX", default=None, callback=_label_column,
              help="A csv FILE's label column, by header name or 0-based index [the model's "
                   "training label column; else the last, where FILE has one more column "
                   "than the model's features].")
@click.option("--confusion", is_flag=True,
              help="Also print the confusion matrix against FILE's labels on stderr.")
@click.option("--force", is_flag=True, help="Replace an existing output file.")
def predict(model_dir, file, output, confusion, **reading):
    """Predict each point of FILE (csv, svmlight or npz, with the model's feature columns and
    optionally its label column) with the saved MODEL, scaled as the model's training data was;
    print a csv of row (0-based), predicted label (and p_<class> columns with --proba). Where
    FILE has labels (a csv label column, svmlight labels, an npz y), print on stderr the
    accuracy against them: accuracy = P% (right/n), error = E%, n = N. A
    model trained on documents predicts a FOLDER of documents instead (one file each, or one
    subfolder per class: then the error rate is printed too), featurized with its saved
    vocabulary; each row is a document's relative path.

    Example: multisvm predict models/wine-dag new-wines.csv -o predictions.csv
    """
    from ..experiment import PointsFile, predict as predict_file
    from ..report.table import confusion_text

    proba, force = reading.pop("proba"), reading.pop("force")
    given, old = reading.pop("input_format"), reading.pop("format_alias")
    reading["fmt"] = given or old
    found = predict_file(model_dir, file, output, proba, force, PointsFile(**reading),
                         need_labels=confusion)
    if output is None:
        click.echo(found.csv_text(), nl=False)
    else:
        click.echo(f"{len(found.labels)} predictions of {found.file} written to {output}",
                   err=True)
    if found.truth is not None:
        click.echo(found.score_text(), err=True)
    if confusion:
        click.echo(confusion_text(found.classes, found.confusion()), err=True)


@cli.command()
@click.argument("config_path", metavar="CONFIG")
@click.option("--dataset", "dataset_names", multiple=True, metavar="NAME",
              help="Check only this dataset of the config (repeatable), as "
                   "'reproduce-table --dataset' would run it.")
@data_options
def validate(config_path, dataset_names, mirror, data_home):
    """Check CONFIG as a run would (against the datasets found locally, without downloading)
    and print it resolved (defaults filled in, every grid point explicit) with its number of
    fits. Writes nothing.

    Example: multisvm validate configs/platt1999-usps.yaml
    """
    from ..experiment import summary
    from ..experiment import validate as validate_config

    config, notes = validate_config(config_path, mirror, data_home, dataset_names)
    click.echo(config.resolved_text().rstrip())
    click.echo("\n".join([*notes, summary(config)]))


@cli.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False))
@figure_options
def report_command(run_dir, figure_format, dpi, no_figures):
    """Redraw RUN_DIR's figures/ and rewrite its report.html from the files the run saved
    (grid.csv, results.json, config.yaml, run.json), without re-running anything. RUN_DIR is a
    run folder, or a config's results folder (results/<config>: its latest run).

    Example: multisvm report results/quickstart --figure-format svg
    """
    from ..experiment import rebuild_report

    paths = rebuild_report(run_dir, figure_format, dpi, figures=not no_figures)
    click.echo(f"{len(paths) - 1} figures in {paths[-1].parent / 'figures'}")
    click.echo(f"report: {paths[-1]}")


@cli.command("configs")
def configs_command():
    """List the shipped configs (name them without a path in any command).

    Example: multisvm configs
    """
    import textwrap

    from tabulate import tabulate

    from ..experiment import describe, measured_time, shipped_configs

    headers = ["config", "what it runs", "time on 2 cores"]
    rows = [[name, describe(path), measured_time(path)]
            for name, path in shipped_configs().items()]
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    room = max(30, _width() - widths[0] - widths[2] - 6)  # 2 spaces apart, 2 after a header
    for row in rows:  # wrapped at spaces only: a path such as docs/results/hsu-lin.md stays whole
        row[1] = textwrap.fill(row[1], room, break_on_hyphens=False)
    click.echo(tabulate(rows, headers=headers))


def _wrap(text) -> str:
    """Each line of ``text`` wrapped at the terminal's width."""
    import textwrap

    return "\n".join(textwrap.fill(line, _width()) for line in text.split("\n"))


def _one_line_warning(message, category, filename, lineno, line=None):
    """Warnings as the CLI shows them: ``warning: <message>``, without source lines."""
    return f"warning: {one_line(message)}\n"


def main(argv=None):
    """Entry point: run the CLI; user errors print one line and exit with code 2; warnings
    print one line each.

    Set ``MULTISVM_DEBUG=1`` to see the full traceback instead.
    """
    shown_as = warnings.formatwarning
    warnings.formatwarning = _one_line_warning
    try:
        exit_code = _run(argv)
    finally:
        warnings.formatwarning = shown_as
    sys.exit(exit_code)


def _run(argv):
    """The CLI's exit code; user errors print one line (``error: ...``) and give 2."""
    try:
        # In this mode click returns (not raises) the code of ``ctx.exit(code)``.
        args = sys.argv[1:] if argv is None else list(argv)
        exit_code = cli.main(args=args, prog_name="multisvm", standalone_mode=False,
                             obj={"argv": args})
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        click.echo("Aborted.", err=True)  # Ctrl-C: 130; SIGTERM during a run: 143
        return getattr(exc.__cause__ or exc, "exit_code", 130)
    except click.ClickException as exc:
        exc.show()
        return EXIT_USER_ERROR
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except (MultisvmError, ValueError, OSError) as exc:
        if os.environ.get("MULTISVM_DEBUG"):
            raise
        for line in getattr(exc, "lines", None) or [exc]:  # a config's several errors
            click.echo(f"error: {_one_line(line)}", err=True)
        return EXIT_USER_ERROR
    return exit_code if isinstance(exit_code, int) else 0


def _one_line(exc) -> str:
    """An exception (or a message) as one line; an OSError names its path and what went
    wrong."""
    if isinstance(exc, OSError) and not isinstance(exc, MultisvmError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}; check that the folder exists, is writable and has room"
    return one_line(exc)
