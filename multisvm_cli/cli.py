"""The ``multisvm`` command line: a thin layer over the estimators and the data layer."""

import os
import sys
import warnings
from contextlib import contextmanager

import click

from . import __version__
from .cli_datasets import datasets
from .errors import MultisvmError

EXIT_USER_ERROR = 2
BACKENDS = ("loky", "threading", "dask")
SCALER_PREFIX = "scaler_"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="multisvm")
def cli():
    """Compare multiclass SVM schemes (one-vs-rest, Max Wins, DAGSVM, UDT, GraphSVM, Hier)
    on the papers' datasets with one protocol, and print a Table-1 style report."""


cli.add_command(datasets)


def _data_options(command):
    command = click.option("--mirror", type=click.Path(file_okay=False), default=None,
                           help="Folder of verified dataset copies (env MULTISVM_MIRROR).")(command)
    return click.option("--data-home", type=click.Path(file_okay=False), default=None,
                        help="Download and parsed-data cache (env MULTISVM_DATA_HOME).")(command)


def _run_options(command):
    """--n-jobs, --seed, --backend, --scheduler, --out, --quiet, shared by the running commands."""
    options = [
        click.option("--n-jobs", "-j", type=int, default=None,
                     help="Parallel jobs for grid points and binary SVMs [1; -1 = all cores]."),
        click.option("--seed", type=int, default=None,
                     help="Replaces the config's seed (splits, validation, estimators)."),
        click.option("--backend", type=click.Choice(BACKENDS), default=None,
                     help="joblib backend the work runs on [threads in this process]; dask needs multisvm[dask]."),
        click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Dask scheduler address (with --backend dask)."),
        click.option("--out", type=click.Path(file_okay=False), default="results",
                     show_default=True, help="Root of run folders and of the resume cache."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
    ]
    for option in reversed(options):
        command = option(command)
    return _data_options(command)


@contextmanager
def parallel_backend(backend, scheduler, n_jobs):
    """Run the body under ``joblib.parallel_config``; dask connects a ``distributed.Client``.

    Yields (grid jobs, fit jobs): how many grid points run at once and the final fits'
    estimator n_jobs. With dask, grid points go to every worker (-1) and the final fits run
    here with --n-jobs (default 1), so large Gram matrices are not shipped to the workers.
    """
    import joblib

    if scheduler and backend != "dask":
        raise MultisvmError("--scheduler needs --backend dask")
    if backend is None:  # threads: libsvm and BLAS release the GIL, nothing is copied
        yield n_jobs or 1, n_jobs or 1
        return
    if backend != "dask":
        with joblib.parallel_config(backend=backend):
            yield n_jobs or 1, n_jobs or 1
        return
    try:
        from distributed import Client
    except ImportError:
        raise MultisvmError("the dask backend needs dask.distributed: "
                            "pip install multisvm[dask]") from None
    try:
        if scheduler:
            _probe(scheduler)
        client = Client(scheduler, timeout=30) if scheduler else Client(processes=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise MultisvmError(f"cannot reach the dask scheduler {scheduler}: "
                            f"{' '.join(str(exc).split())}") from None
    with client, joblib.parallel_config(backend="dask"):
        yield -1, n_jobs or 1


def _probe(address):
    """Fail fast (connection refused, unknown host) before distributed's retry loop."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address)
    if parts.scheme == "tcp" and parts.hostname and parts.port:
        socket.create_connection((parts.hostname, parts.port), timeout=10).close()


def _load(config_path, seed):
    from .config import load_config

    return load_config(config_path, seed=seed)


@cli.command("reproduce-table")
@click.argument("configs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]),
              default="table", show_default=True, help="How the report is printed.")
@click.option("--force", is_flag=True, help="Redo grid points already in the resume cache.")
@_run_options
def reproduce_table(configs, fmt, force, n_jobs, seed, backend, scheduler, out, quiet,
                    mirror, data_home):
    """Select, train and test every scheme of each CONFIG; print the Table-1 report.

    Each run writes results/<config-name>/<timestamp>/ (grid.csv, table.csv, table.md,
    results.json, run.json, config.yaml); finished grid points are cached and skipped when the
    same config runs again.  With several CONFIGs, csv and json print one document whose rows
    start with a "config" column; table and markdown print one report per config.

    Example: multisvm reproduce-table configs/quickstart.yaml --n-jobs 2
    """
    from .report import render
    from .runs import reproduce

    loaded = [_load(path, seed) for path in configs]
    # csv and json of several configs: one document, each row led by its config's name.
    one_document = fmt in ("csv", "json") and len(loaded) > 1
    collected = []
    with parallel_backend(backend, scheduler, n_jobs) as (grid_jobs, fit_jobs):
        for config in loaded:
            folder, rows = reproduce(config, out, n_jobs=grid_jobs, fit_jobs=fit_jobs,
                                     force=force, quiet=quiet,
                                     backend=backend or "threading", mirror=mirror,
                                     data_home=data_home)
            if one_document:
                collected += [{"config": config.name, **row} for row in rows]
            else:
                click.echo(render(rows, fmt, config.reference.get("source"),
                                  config.compare_to).rstrip("\n"))
            click.echo(f"results: {folder}", err=True)
    if one_document:
        click.echo(render(collected, fmt).rstrip("\n"))


@cli.command()
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--scheme", "-s", required=True,
              type=click.Choice(["ovr", "maxwins", "dag", "udt", "graph", "hier", "nb"]),
              help="The scheme to train.")
@click.option("--dataset", default=None, help="Which of the config's datasets [the first].")
@click.option("-o", "--output", type=click.Path(file_okay=False), default=None,
              help="Model folder [models/<config>-<dataset>-<scheme>].")
@_run_options
def train(config_path, scheme, dataset, output, n_jobs, seed, backend, scheduler, out, quiet,
          mirror, data_home):
    """Select the scheme's kernel and C on CONFIG's validation protocol, fit it on the whole
    training part and save it (model.json + model.npz, no pickle).

    Example: multisvm train configs/quickstart.yaml --scheme dag --dataset wine -o models/wine-dag
    """
    config = _load(config_path, seed)
    if scheme not in config.schemes:
        raise MultisvmError(f"{config.path}: scheme {scheme!r} is not in its schemes "
                            f"({', '.join(config.schemes)})")
    plan = config.plan(dataset) if dataset else config.datasets[0]
    output = output or os.path.join("models", f"{config.name}-{plan.name}-{scheme}")
    with parallel_backend(backend, scheduler, n_jobs) as jobs:
        _train(config, plan, scheme, output, out, jobs, quiet, mirror, data_home)


def _train(config, plan, scheme, output, out, jobs, quiet, mirror, data_home):
    """Select, fit and save; the scaler's state goes to model.npz beside the model's arrays."""
    import numpy as np
    from tqdm import tqdm

    from .persist import save_model
    from .protocol import fit_selected
    from .runs import PointCache, now_iso

    def progress(total):
        return tqdm(total=total, disable=quiet, file=sys.stderr, unit="point",
                    desc=f"{config.name}/{plan.name}/{scheme}: grid points")

    cache = PointCache(os.path.join(out, config.name, "cache"))
    estimator, scaler, chosen, dataset = fit_selected(
        config, plan, scheme, cache, n_jobs=jobs[0], fit_jobs=jobs[1], progress=progress,
        mirror=mirror, data_home=data_home, quiet=quiet)
    metadata = {
        "multisvm_version": __version__, "created": now_iso(), "config": config.name,
        "scheme": scheme, "dataset": dataset.name, "checksums": dict(dataset.checksums),
        "split": plan.split, "validation": plan.validation, "scaling": plan.scaling,
        "kernel": chosen["kernel"], "params": chosen["point"].params(),
        "validation_error": chosen["validation_error"],
        "classes": [c.item() if hasattr(c, "item") else c for c in estimator.classes_],
    }
    arrays = {SCALER_PREFIX + k: np.asarray(v) for k, v in scaler.get_state().items()}
    save_model(output, estimator, metadata=metadata, extra_arrays=arrays)
    click.echo(f"trained {scheme} on {dataset.name}: {chosen['kernel']}, C={chosen['C']:g}, "
               f"validation error {100 * chosen['validation_error']:.2f}%, "
               f"{estimator.n_parameters_ / 1000:.1f}K parameters; saved to {output}")


@cli.command()
@click.argument("model_dir", type=click.Path(file_okay=False))
@click.option("--dataset", default=None, help="Dataset to evaluate on [the model's own].")
@click.option("--part", default="test", show_default=True,
              help="Part of the dataset: test, train, validation or all.")
@click.option("--confusion", is_flag=True, help="Also print the confusion matrix.")
@_data_options
def evaluate(model_dir, dataset, part, confusion, mirror, data_home):
    """Load a saved model, predict a dataset part and print error, kernel evaluations,
    evaluation time, size (and the confusion matrix).

    Example: multisvm evaluate models/wine-dag --confusion
    """
    import numpy as np
    from sklearn.metrics import confusion_matrix

    from . import data
    from .persist import load_model
    from .protocol import part_arrays
    from .report import evaluation_text
    from .runs import Stopwatch
    from .scaling import Scaler

    model = load_model(model_dir)
    meta = model.metadata
    name = dataset or meta["dataset"]
    split = meta["split"] if name == meta["dataset"] else {"method": "standard"}
    own_part = split["method"] == "standard" and part != "all"
    loaded = data.load(name, parts=[part] if own_part else None, mirror=mirror,
                       data_home=data_home)
    X, y = part_arrays(loaded, split, part)
    state = {k[len(SCALER_PREFIX):]: v for k, v in model.extra_arrays.items()
             if k.startswith(SCALER_PREFIX)}
    X = Scaler.from_state(meta["scaling"], state).transform(X)
    watch = Stopwatch()
    predicted = model.estimator.predict(X)
    seconds = watch.wall
    changed = [f for f, digest in loaded.checksums.items()
               if meta["checksums"].get(f, digest) != digest]
    if name == meta["dataset"] and changed:
        click.echo(f"warning: the {name} files differ from those the model was trained on",
                   err=True)
    classes = np.asarray(model.estimator.classes_)
    matrix = confusion_matrix(y, predicted, labels=classes) if confusion else None
    click.echo(evaluation_text(meta, name, part, y, predicted, seconds,
                               model.estimator.kernel_evaluations(X),
                               model.estimator.n_parameters_, classes, matrix))


@cli.command()
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
def validate(config_path):
    """Check CONFIG and print it resolved (defaults filled in) with its grid size.

    Example: multisvm validate configs/platt1999-usps.yaml
    """
    import yaml

    config = _load(config_path, None)
    click.echo(yaml.safe_dump(config.resolved, sort_keys=False).rstrip())
    for plan in config.datasets:
        click.echo(f"# {plan.name}: {len(plan.grid)} grid points x {len(config.schemes)} "
                   f"schemes = {config.points_per_fold(plan)} per outer fold")
    click.echo(f"# {config.path}: valid; grid size {config.grid_size()}")


@cli.command()
@click.option("--quick", is_flag=True, help="Everyday mode: training subsets, a small protocol grid.")
@click.option("--datasets", "dataset_list", default="usps,letter,covertype", show_default=True,
              help="Comma-separated datasets.")
@click.option("--phases", default="ovr-fit,ovo-fit,maxwins-predict,dag-predict,protocol,"
              "covertype-eval", show_default=True, help="Comma-separated phases.")
@click.option("--n-jobs", "-j", type=int, default=2, show_default=True,
              help="Workers on both sides.")
@click.option("--config", "config_path", default="configs/platt1999-usps.yaml", show_default=True,
              type=click.Path(dir_okay=False), help="USPS config of the protocol phase.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the rows to this JSON file.")
@_data_options
def bench(quick, dataset_list, phases, n_jobs, config_path, json_path, mirror, data_home):
    """Time multisvm against scikit-learn side by side and print ratios (sklearn / ours).

    Phases: ovr-fit, ovo-fit, maxwins-predict, dag-predict (USPS, letter, covertype), protocol
    (the USPS Table-1 protocol vs GridSearchCV) and covertype-eval (565,892 resampled points:
    peak RSS and time). Each row also checks that both sides agree.

    Example: multisvm bench --quick --datasets usps --phases ovr-fit,maxwins-predict
    """
    from . import bench as benchmark

    if data_home:
        os.environ["MULTISVM_DATA_HOME"] = str(data_home)
    benchmark.run(benchmark.split_list(dataset_list), benchmark.split_list(phases), quick,
                  n_jobs, mirror, config_path, json_path)


def _one_line_warning(message, category, filename, lineno, line=None):
    """Warnings as the CLI shows them: ``warning: <message>``, without source lines."""
    return f"warning: {' '.join(str(message).split())}\n"


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
        exit_code = cli.main(args=argv, prog_name="multisvm", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return EXIT_USER_ERROR
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except (MultisvmError, ValueError, FileNotFoundError) as exc:
        if os.environ.get("MULTISVM_DEBUG"):
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        click.echo(f"error: {message}", err=True)
        return EXIT_USER_ERROR
    return exit_code if isinstance(exit_code, int) else 0
