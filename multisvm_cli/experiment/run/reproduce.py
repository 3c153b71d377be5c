"""One ``reproduce-table`` run: a run folder that is a complete, replayable record.

Layout under the results root (``Settings.out``, default ``results/``)::

    results/<config-name>/
        cache/<sha256>.json        one small file per finished grid point (the resume cache)
        latest -> <timestamp>      the newest run (a relative link, replaced atomically)
        <timestamp>/               one folder per run, never overwritten (``-2``, ``-3`` suffixes)
            config.original.yaml   the config exactly as the user wrote it
            config.yaml            the resolved config: every default filled in, every grid
                                   point explicit; ``multisvm validate`` accepts it and
                                   ``multisvm reproduce-table`` runs it to the same table
            grid.csv               every grid point of every fold and repeat: validation error,
                                   support vectors, kernel evaluations per validation point,
                                   classifier size, times (long format)
            table.csv, table.md    the Table-1 report (a sweep: one dataset row per value)
            sweep.csv              a swept config's rows, value x scheme x repeat (its table
                                   and sweep-*.png figures are in report.html)
            results.json           everything the report is made from: per scheme every
                                   split's (fold x repeat) choice, counts and test error; the
                                   ranking over datasets; the DAG order study
            predictions.csv        every test point of every dataset x scheme: split, row
                                   id, true and predicted label, class probabilities
            figures/*.png          grid maps, error against kernel evaluations, CD diagram,
                                   DAG orders (:mod:`multisvm_cli.report.figures`)
            report.html            all of it in one self-contained page
            run.json               argv, versions, host, BLAS, CPU, memory, n_jobs, seed, git
                                   commit, start/end, status, warnings, config.yaml's SHA-256
                                   (``multisvm report`` refuses an edited config.yaml)
            run.log                what happened, one line each (start, warnings, end)

grid.csv, table.csv, table.md, results.json, predictions.csv and run.json are written, and
read back, by :mod:`multisvm_cli.report.run_folder` alone. Every file is written atomically
(:mod:`multisvm_cli.base.storage`); run.json says ``running``
while the run goes on and ``done``, ``failed`` or ``interrupted`` at the end (``done`` only
once report.html is in place; SIGTERM ends a run as ``interrupted``, as Ctrl-C does:
:mod:`.interrupt`).
"""

from __future__ import annotations

import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ...base.errors import one_line
from ...base.storage import PointCache, atomic_write, new_run_dir
from .fit_notes import bounded, fit_warnings
from .interrupt import run_interruptible, sigterm_as_interrupt
from .compile_phase import compile_phase
from .progress import point_cost, progress_bar
from ..config.against_data import load_datasets
from ..protocol import Stopwatch, check_point_result, run_protocol
from .provenance import now_iso, run_metadata
from .report import link_latest
from .settings import Settings, workers


@dataclass
class Run:
    """A finished run: its folder and the report's rows."""

    folder: Path
    rows: list
    ranking: dict | None = None     # report.ranking.rank_schemes over the datasets (2 or more)
    dag_orders: dict | None = None  # {dataset: the DAG order study} when asked for
    sweep: list | None = None       # sweep.csv's rows when the config sweeps (.sweep)


def point_cache(config_name, settings: Settings) -> PointCache:
    """The resume cache of the config named ``config_name`` under the results root; every
    entry is checked before use."""
    return PointCache(Path(settings.out) / config_name / "cache", force=settings.force,
                      check=check_point_result)


def reproduce(config, settings: Settings = Settings()) -> Run:
    """Run a config's protocol in a new run folder and write every output file there.

    The data is loaded and checked against the config first: nothing is written for a config
    the data refutes. Warnings are shown as usual and also recorded in run.json and run.log.
    Raises what the protocol raises, after recording ``failed`` (or ``interrupted``) with the
    reason in run.json.
    """
    log = RunLog()
    local = settings.backend != "dask" and not settings.scheduler  # Dask stops its own workers
    with sigterm_as_interrupt(local), log.recording_warnings():
        datasets = load_datasets(config, settings.mirror, settings.data_home, settings.quiet)
        with workers(settings) as jobs:
            folder = new_run_dir(settings.out, config.name)
            return _run(config, settings, jobs, datasets, folder, log)


def _run(config, settings, jobs, datasets, folder, log) -> Run:
    """The run itself, in its new folder; run.json and run.log are written however it ends."""
    from ...report.html import write_report
    from ...report.run_folder import config_record, write_meta

    atomic_write(folder / "config.original.yaml", config.original_text)
    resolved = config.resolved_text()
    atomic_write(folder / "config.yaml", resolved)
    meta = {**run_metadata(settings, jobs, config.seed, config.path), **config_record(resolved)}
    if config.selected_from is not None:  # --dataset: only some of the file's datasets
        meta["datasets"] = {"selected": [plan.name for plan in config.datasets],
                            "of": config.selected_from}
    local = {name: dataset.provenance for name, dataset in datasets.items()
             if dataset.provenance}
    if local:  # each local file's path, SHA-256 and size, and how it was read
        meta["local_data"] = local
    write_meta(folder, meta)
    log.open(folder / "run.log")
    log.add(f"started {config.name} ({config.path}) in {folder}")
    watch = Stopwatch()

    def interrupted(name):  # in the main thread, on SIGINT / SIGTERM (see .interrupt)
        meta.update(ended=now_iso(), status="interrupted", error=f"interrupted by {name}",
                    warnings=log.warnings)
        log.add(f"interrupted by {name}")
        _close(folder, meta, log)

    try:
        def work():
            return _on_backend(jobs, _compute, config, settings, jobs, datasets, folder, log)

        # a Dask client answers in the thread that made it, and Dask stops its own workers:
        # there the work stays in this thread (Ctrl-C as before, between fits)
        results, grid_rows, rows, ranking, swept = (
            work() if jobs.backend == "dask" else run_interruptible(work, interrupted))
    except BaseException as exc:
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        meta.update(ended=now_iso(), status=status, error=one_line(exc),
                    warnings=log.warnings)
        log.add(f"{status}: {meta['error'] or type(exc).__name__}")
        _close(folder, meta, log)
        raise
    cached = sum(r["cached"] for r in grid_rows)
    meta.update(ended=now_iso(), status="done", wall_seconds=round(watch.wall, 3),
                grid_points={"total": len(grid_rows), "cached": cached,
                             "computed": len(grid_rows) - cached}, warnings=log.warnings)
    log.add(f"done in {watch.wall:.1f} s: {len(grid_rows)} grid points, {cached} from the cache")
    write_report(folder, meta)  # the page shows the final run.json ...
    _close(folder, meta, log)   # ... which says done only once the page is in place
    link_latest(folder)
    return Run(folder, rows, ranking, dag_order_studies(results) or None, swept)


def _protocol(config, settings, jobs, datasets):
    """(results, grid rows, checksums, sweep rows or None): the protocol once, or once per
    swept value and repeat (:func:`.sweep.run_sweep`) when the config sweeps; both take the
    config's :class:`..config.resolved.Study`."""
    from .sweep import run_sweep

    study = config.study()
    segments = progress_segments(study, datasets) if study.sweep is None else None

    def progress(total):
        return progress_bar(total, f"{config.name}: grid points", settings.quiet,
                            mode=settings.progress, segments=segments)

    cache = point_cache(config.name, settings)
    compile_phase(config.schemes, settings.quiet, settings.progress)  # before the grid's clock
    if study.sweep is None:
        return (*run_protocol(study, datasets, cache, n_jobs=jobs.grid, fit_jobs=jobs.fit,
                              progress=progress), None)
    return run_sweep(study, datasets, cache, n_jobs=jobs.grid, fit_jobs=jobs.fit,
                     progress=progress)


def _on_backend(jobs, work, *args):
    """``work(*args)`` on the joblib backend of ``jobs`` (joblib's backend setting is per
    thread, and the work runs in a worker thread: see .interrupt)."""
    import joblib

    if jobs.backend == "threads":
        return work(*args)
    with joblib.parallel_config(backend=jobs.backend):
        return work(*args)


def _compute(config, settings, jobs, datasets, folder, log):
    """The protocol, the fit warnings, the tables and the figures: (results, grid rows, table
    rows, ranking, sweep rows or None).  Runs in a worker thread
    (:func:`.interrupt.run_interruptible`)."""
    from ...report.figures import write_figures
    from ...report.run_folder import RunTables, write_sweep, write_tables
    from ...report.summary import versus_best
    from ...report.table import table_rows

    results, grid_rows, checksums, swept = _protocol(config, settings, jobs, datasets)
    for text in fit_warnings(results, grid_rows):
        warnings.warn(text, UserWarning, stacklevel=1)
    for result in results:
        result["bounded"] = bounded(result)  # the table marks its error with a *
    rows = table_rows(results, config.reference, config.compare_to)
    ranking = rank_over_datasets(rows, config.rope, config.seed) if swept is None else None
    if swept is not None:
        write_sweep(folder, swept)
    write_tables(folder, RunTables(
        config.name, results, grid_rows, rows, checksums, compare_to=config.compare_to,
        repeats=config.repeats, source=config.reference.get("source"), ranking=ranking,
        dag_orders=dag_order_studies(results), versus_best=versus_best(results, rows),
        layout=config.layout))
    figures = Stopwatch()
    if settings.figures:
        write_figures(folder, settings.figure_format, settings.dpi)
        log.add(f"figures in {figures.wall:.2f} s")
    return results, grid_rows, rows, ranking, swept


def progress_segments(study, datasets) -> list:
    """[(grid points, expected cost per point)] per dataset of ``study`` (a
    :class:`..config.resolved.Study`) in run order, for the ETA (:func:`.progress.point_cost`,
    averaged over its schemes)."""
    import numpy as np

    from ..protocol import grid_tasks

    segments = []
    for plan in study.plans:
        labels = [y for _, y in datasets[plan.name].parts.values()]
        n_rows = plan.split.n_train or sum(len(y) for y in labels)  # a draw's training rows
        n_classes = len(np.unique(np.concatenate(labels))) if labels else 2
        points = study.repeats * len(plan.estimate) * plan.split.outer_folds * sum(
            len(group) for _, group in grid_tasks(plan, study.schemes))
        cost = np.mean([point_cost(s, n_rows, n_classes) for s in study.schemes])
        segments.append((points, float(cost)))
    return segments


def _close(folder, meta, log):
    """Write the final run.json and run.log; an I/O error here must not hide the run's own."""
    from ...report.run_folder import write_meta

    try:
        write_meta(folder, meta)
        log.write(folder / "run.log")
    except OSError:
        pass


class RunLog:
    """run.log's lines (timestamped), and the warnings of the run, which are also shown.

    Once :meth:`open` names the file, each line is appended to it as it comes (flushed per
    line, so a long run's log can be followed); :meth:`write` rewrites it whole, atomically."""

    def __init__(self):
        self.lines = []
        self.warnings = []
        self.path = None
        self._lock = threading.Lock()

    def open(self, path):
        self.path = path
        self.write(path)

    def add(self, line):
        text = f"{now_iso()} {line}"
        with self._lock:
            self.lines.append(text)
            if self.path is not None:
                try:
                    with open(self.path, "a", encoding="utf-8") as stream:
                        stream.write(text + "\n")
                except OSError:
                    pass

    def write(self, path):
        with self._lock:
            atomic_write(path, "".join(line + "\n" for line in self.lines))

    @contextmanager
    def recording_warnings(self):
        """A context in which every warning is shown once per message and recorded here."""
        with warnings.catch_warnings():
            shown = warnings.showwarning

            def record(message, category, filename, lineno, file=None, line=None):
                text = one_line(message)
                if text not in self.warnings:  # shown and recorded once per run
                    self.warnings.append(text)
                    self.add(f"warning: {text}")
                    shown(message, category, filename, lineno, file, line)

            warnings.showwarning = record
            yield self


def rank_over_datasets(rows, rope=None, seed=0):
    """``report.ranking.rank_schemes`` of the report rows' test errors when there are 2 or more
    datasets and schemes to rank (else None), with its ``verdict``: the pairwise tests of
    ``report.verdict.compare_pairs`` at the config's ``rope`` (points of test error; None:
    the default) and ``seed``."""
    from ...report.ranking import errors_table, rank_schemes
    from ...report.record import ERROR_PCT
    from ...report.verdict import DEFAULT_ROPE, compare_pairs

    ours = [row for row in rows if row.get(ERROR_PCT) is not None]
    if len({r["dataset"] for r in ours}) < 2 or len({r["scheme"] for r in ours}) < 2:
        return None
    errors = errors_table(ours)
    ranking = rank_schemes(errors)
    ranking["verdict"] = compare_pairs(errors, DEFAULT_ROPE if rope is None else rope,
                                       ranking["alpha"], seed)
    return ranking


def dag_order_studies(results) -> dict:
    """{dataset: DAG order study} of the protocol's results (see protocol.dag_order_study)."""
    return {r["dataset"]: r["dag_orders"] for r in results if r.get("dag_orders")}
