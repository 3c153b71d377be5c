"""A run folder's record files: the one writer and the one checked reader of each of them.

The run (``experiment.runs``) writes grid.csv, table.csv, table.md, results.json and
predictions.csv with :func:`write_tables`, a sweep's sweep.csv with :func:`write_sweep` and
run.json with :func:`write_meta`; the figures (:mod:`.figures`, through
``figures.base.RunData``), report.html (:mod:`.html`) and ``multisvm report`` read them back
only through :func:`read_results`, :func:`read_grid`, :func:`read_table`, :func:`read_meta`,
:func:`read_config_text`, :func:`read_sweep` and :func:`read_predictions` (:func:`check_run`:
all of them, and config.yaml against run.json's record of it, :func:`check_config`). Every
file is read through
:mod:`multisvm_cli.base.readers` (bounded; JSON strict: no NaN or Infinity, no duplicate key) and
every value passed on is checked with :mod:`multisvm_cli.base.numeric`, so a file that is not what
a run writes (cut off, edited by hand) is refused with one line naming it, never a traceback
from matplotlib or pandas. Each file is also checked against results.json and its ranges
(:mod:`.run_checks`: the run's columns in order, errors in [0, 100], counts, every row), so
an edited number is refused, not drawn.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import MultisvmError, one_line
from ..base.hashing import sha256_hex
from ..base.numeric import is_number
from ..base.readers import read_json, read_text
from ..base.storage import atomic_write, to_json, write_json
from . import columns, point_record, run_checks
from .point_record import PREDICTION_COLUMNS, PROBABILITY_PREFIX, predictions_text
from .hsu_lin import HSU_LIN, TABLE_1, tables_text
from .record import ERROR_PCT
from .results_shape import TABLE_KEYS, results_problem
from .table import render

GRID_COLUMNS = ["dataset", "repeat", "estimate", "fold", "scheme", "kernel", "kernel_type", "C",
                "sigma", "gamma", "degree", "homogeneous", "validation_error", "n_errors",
                "n_validation", "n_support_vectors", "kernel_evaluations", "size", "fit_cpu",
                "fit_wall", "predict_wall", "smo_iterations", "n_reused_machines", "cached",
                "notes"]
STAGE = "stage"  # a refined search's stage of each point (refine: true): in its grid.csv only
GRID_NEEDS = ("dataset", "scheme", "kernel_type", "C", "validation_error")
GRID_NUMBERS = ("C", "validation_error")  # what the heatmaps draw: finite in every row
SWEEP_COLUMNS = ["sweep", "value", "dataset", "scheme", "repeat", "classes", "n_train", "n_test",
                 ERROR_PCT, "cpu_time", "evaluation_time", "max_train_memory_mb",
                 "kernel_evaluations", "size", "level1_accuracy", "level2_accuracy"]
# sweep.csv's numbers: each finite in every row (the last three may be empty: naive Bayes
# records no memory before it was recorded, and only Hier has levels)
SWEEP_NUMBERS = (ERROR_PCT, "cpu_time", "evaluation_time", "kernel_evaluations", "size")
SWEEP_OPTIONAL = ("max_train_memory_mb", "level1_accuracy", "level2_accuracy")
LIMIT = 1 << 30          # bytes of grid.csv, table.csv or results.json
SMALL_LIMIT = 16 << 20   # bytes of run.json or config.yaml
CONFIG_SHA256 = "config_sha256"  # run.json's record of config.yaml (:func:`check_config`)


# --------------------------------------------------------------------------- writing

@dataclass(frozen=True)
class RunTables:
    """What :func:`write_tables` writes of a run.

    ``name``: the config's; ``results``: the protocol's per-scheme results
    (:class:`.record.Result`; their per-point ``correct`` and the DAG order studies are left
    out of results.json: the studies are ``dag_orders``); ``grid_rows``: grid.csv's rows;
    ``rows``: the report rows; ``checksums``: the datasets' files; ``compare_to``: the
    comparison scheme; ``repeats``; ``source``: the reference numbers' source (table.md's
    footnote); ``ranking``; ``dag_orders``: {dataset: study}; ``versus_best``: each scheme's
    paired test against its dataset's best (``summary.versus_best``); ``layout`` (the
    config's, kept in results.json): ``hsu-lin`` adds Hsu & Lin's tables to table.md
    (:mod:`.hsu_lin`)."""

    name: str
    results: list
    grid_rows: list
    rows: list
    checksums: dict
    compare_to: str
    repeats: int
    source: str | None = None
    ranking: dict | None = None
    dag_orders: dict | None = None
    versus_best: dict | None = None
    layout: str = TABLE_1


def write_tables(folder, run: RunTables):
    """grid.csv, table.csv, table.md and results.json of a run (:class:`RunTables`), each
    written atomically, and its predictions.csv (:func:`.point_record.predictions_text`, its
    record kept in results.json). results.json is strict JSON (a non-finite number is refused
    here, as the reader would refuse it)."""
    import pandas as pd

    folder = Path(folder)
    staged = any(STAGE in row for row in run.grid_rows)
    grid = pd.DataFrame(run.grid_rows).reindex(columns=GRID_COLUMNS + [STAGE] * staged)
    atomic_write(folder / "grid.csv", grid.to_csv(index=False))
    atomic_write(folder / "table.csv", render(run.rows, "csv"))
    public = [{k: v for k, v in r.items() if k not in ("correct", "dag_orders", "points")}
              for r in run.results]
    markdown = render(run.rows, "markdown", run.source, run.compare_to)
    if run.layout == HSU_LIN:
        markdown += "\n\n" + tables_text(public, "markdown", config=run.name)
    atomic_write(folder / "table.md", markdown + "\n")
    saved = {"config": run.name, "checksums": run.checksums, "compare_to": run.compare_to,
             "repeats": run.repeats, "layout": run.layout, "results": public, "table": run.rows}
    if run.ranking is not None:
        saved["ranking"] = run.ranking
    if run.dag_orders:
        saved["dag_orders"] = run.dag_orders
    if run.versus_best:
        saved["versus_best"] = run.versus_best
    predictions = predictions_text(run.results) \
        if any("points" in r for r in run.results) else None  # the protocol's (not hand-made)
    if predictions is not None:
        saved[point_record.KEY] = predictions[1]
    atomic_write(folder / "results.json", to_json(saved, indent=2, allow_nan=False) + "\n")
    if predictions is not None:
        atomic_write(folder / "predictions.csv", predictions[0])


def write_sweep(folder, rows) -> Path:
    """sweep.csv: one row per value x scheme x repeat (:data:`SWEEP_COLUMNS`), atomically."""
    import pandas as pd

    frame = pd.DataFrame(rows).reindex(columns=SWEEP_COLUMNS)
    return atomic_write(Path(folder) / "sweep.csv", frame.to_csv(index=False))


def write_meta(folder, meta: dict) -> Path:
    """run.json (argv, versions, host, status, ...), written atomically."""
    return write_json(Path(folder) / "run.json", meta)


# --------------------------------------------------------------------------- reading

def run_file(folder, name) -> Path:
    """``folder/name``, refused with one line when the folder or the file is missing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise MultisvmError(f"no run folder at {folder}; give a folder that `multisvm "
                            "reproduce-table` wrote (results/<config>/<timestamp>)")
    path = folder / name
    if not path.is_file():
        raise MultisvmError(f"{folder} lacks {name}: it is not a finished run folder; give one "
                            "that `multisvm reproduce-table` wrote to the end")
    return path


def _malformed(path, what) -> MultisvmError:
    return MultisvmError(f"{path} is malformed ({what}); it was not written by a finished run: "
                         "rerun the config")


def read_results(folder) -> dict:
    """results.json, checked: the results' and report rows' names and numbers, the ranking and
    the DAG order studies (every field the figures and report.html read)."""
    path = run_file(folder, "results.json")
    results = read_json(path, LIMIT, what="results.json")
    problem = results_problem(results) or run_checks.results_ranges(results)
    if problem:
        raise _malformed(path, problem)
    return results


def read_grid(folder):
    """grid.csv as a DataFrame, checked: whole rows only, the columns the heatmaps need, a
    finite C and validation error in every row."""
    path = run_file(folder, "grid.csv")
    grid = _read_csv(path, GRID_NEEDS)
    for column in GRID_NUMBERS:
        if not all(map(is_number, grid[column].tolist())):
            raise _malformed(path, f"a row's {column} is not a finite number")
    _cross_check(path, folder, lambda results: run_checks.columns_problem(
        grid.columns, GRID_COLUMNS + [STAGE] * (STAGE in grid.columns))
        or run_checks.grid_problem(grid, results, read_meta(folder)))
    return grid


def _cross_check(path, folder, problem_of) -> None:
    """Refuse ``path`` when ``problem_of(results)`` (:mod:`.run_checks`, against the folder's
    checked results.json) names a problem; a folder without results.json is refused by
    :func:`read_results` wherever a run folder is read whole (:func:`check_run`)."""
    if not (Path(folder) / "results.json").is_file():
        return
    problem = problem_of(read_results(folder))
    if problem:
        raise _malformed(path, problem)


def read_sweep(folder):
    """sweep.csv as a DataFrame (None when the run swept nothing), checked: whole rows, every
    column of :data:`SWEEP_COLUMNS`, one swept setting, a finite number in every row's
    :data:`SWEEP_NUMBERS` and a finite number or nothing in :data:`SWEEP_OPTIONAL`."""
    path = Path(folder) / "sweep.csv"
    if not path.is_file():
        return None
    frame = _read_csv(path, SWEEP_COLUMNS, dtype={"classes": str, "value": str})
    if len(frame) == 0 or frame["sweep"].nunique() != 1 or frame["value"].isna().any():
        raise _malformed(path, "no rows, several swept settings or a row without a value")
    for column in SWEEP_NUMBERS + SWEEP_OPTIONAL + ("repeat",):
        values = frame[column].tolist()
        empty_ok = column in SWEEP_OPTIONAL
        if not all(is_number(v) or (empty_ok and v != v) for v in values):
            raise _malformed(path, f"a row's {column} is not a finite number")
    if not all(r >= 0 and float(r).is_integer() for r in frame["repeat"]):
        raise _malformed(path, "a row's repeat is not a count")
    frame["value"] = [_value(v) for v in frame["value"]]
    _cross_check(path, folder, lambda results: run_checks.columns_problem(
        frame.columns, SWEEP_COLUMNS) or run_checks.sweep_problem(frame, results))
    return frame


def read_predictions(folder):
    """predictions.csv as a DataFrame of texts (None for a run folder from before the file),
    checked: whole rows, :data:`PREDICTION_COLUMNS` then ``p_<class>`` columns, against
    results.json (:func:`.run_checks.predictions_problem`: counts, ids, probabilities, and per
    dataset x scheme as many rows as n_test, as many wrong as n_errors) and against the run's
    record of it there (:mod:`.point_record`: classes, test points, predictions). A folder
    whose results.json has that record must have the file, a regular one (not a link)."""
    import pandas as pd

    path = Path(folder) / "predictions.csv"
    record = _point_record(folder)
    if record is not None and (path.is_symlink() or not path.exists()):
        raise _malformed(path, "missing or a link, though results.json records that the run "
                               "wrote it")
    if record is None and not path.is_file():
        return None
    text = read_text(path, LIMIT, what="predictions.csv")
    header = _whole_rows(path, text)
    extra = header[len(PREDICTION_COLUMNS):]
    if header[:len(PREDICTION_COLUMNS)] != PREDICTION_COLUMNS or not all(
            c.startswith(PROBABILITY_PREFIX) for c in extra):
        raise _malformed(path, f"its columns are not {', '.join(PREDICTION_COLUMNS)}, then "
                               f"{PROBABILITY_PREFIX}<class> ones")
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    _cross_check(path, folder, lambda results: run_checks.predictions_problem(frame, results)
                 or (record and point_record.record_problem(frame, record,
                                                            PROBABILITY_PREFIX)))
    return frame


def _point_record(folder):
    """results.json's record of predictions.csv (:mod:`.point_record`), None when the folder
    has no results.json or it is from before the record."""
    if not (Path(folder) / "results.json").is_file():
        return None
    return read_results(folder).get(point_record.KEY)


def read_run_file(folder, name):
    """Another .json or .csv file of the run folder (one a figure reads, by its name): strict,
    bounded JSON, or a DataFrame of whole CSV rows; None when the run has no such file."""
    path = Path(folder) / name
    if not path.is_file():
        return None
    if name.endswith(".json"):
        return read_json(path, LIMIT, what=name)
    return _read_csv(path, ())


def _read_csv(path, needs, dtype=None):
    """A run's CSV file as a DataFrame: whole rows only (:func:`_whole_rows`), with the
    columns ``needs``; refused with one line otherwise."""
    import pandas as pd

    text = read_text(path, LIMIT, what=path.name)
    header = _whole_rows(path, text)
    missing = [column for column in needs if column not in header]
    if missing:
        raise _malformed(path, f"it lacks the column(s) {', '.join(missing)}")
    try:
        return pd.read_csv(io.StringIO(text), dtype=dtype)
    except (ValueError, pd.errors.ParserError) as exc:
        raise _malformed(path, f"not CSV: {one_line(exc)}") from None


def _value(text):
    """A swept value back from sweep.csv: a number where it reads as one, else the text."""
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and "." not in text else number


def _whole_rows(path, text) -> list:
    """The CSV header of ``text``, once every row is known to have one field per column and
    the file to end with its last row's newline (a file cut off mid-row is refused)."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise _malformed(path, f"not CSV: {exc}") from None
    if not rows or not text.endswith("\n"):
        raise _malformed(path, "empty or cut off mid-row")
    short = next((n for n, row in enumerate(rows[1:], 2) if len(row) != len(rows[0])), None)
    if short is not None:
        raise _malformed(path, f"row {short} has {len(rows[short - 1])} fields, the header "
                               f"{len(rows[0])}")
    return rows[0]


def read_table(folder, results: dict) -> tuple[list, list]:
    """The report table as (column keys, rows of strings exactly as in table.csv); from
    results.json's "table" (``results``, as :func:`read_results` returns it) when the run has
    no table.csv. Every number column holds a finite number or nothing."""
    path = Path(folder) / "table.csv"
    if not path.is_file():
        table = results["table"]
        header = list(dict.fromkeys(key for row in table for key in row))
        return header, [{k: "" if row.get(k) is None else str(row[k]) for k in header}
                        for row in table]
    text = read_text(path, LIMIT, what="table.csv")
    header = _whole_rows(path, text)
    missing = [key for key in TABLE_KEYS if key not in header]
    if missing:
        raise _malformed(path, f"it lacks the column(s) {', '.join(missing)}")
    rows = list(csv.DictReader(io.StringIO(text)))
    numbers = columns.numbers()  # the report rows' numbers: each a finite number or empty
    for row in rows:
        wrong = [k for k in numbers if row.get(k) and not _number_text(row[k])]
        if wrong:
            raise _malformed(path, f"the {row['dataset']} {row['scheme']} row's "
                                   f"{', '.join(wrong)} is not a finite number")
    problem = run_checks.table_problem(rows, results, numbers)
    if problem:
        raise _malformed(path, problem)
    return header, rows


def _number_text(text: str) -> bool:
    try:
        return is_number(float(text))
    except ValueError:
        return False


def read_meta(folder) -> dict:
    """run.json as a mapping ({} when the folder has none)."""
    path = Path(folder) / "run.json"
    if not path.is_file():
        return {}
    meta = read_json(path, SMALL_LIMIT, what="run.json")
    if not isinstance(meta, dict):
        raise _malformed(path, "not a JSON object")
    return meta


def read_config_text(folder) -> str | None:
    """config.yaml's text (None when the folder has none)."""
    path = Path(folder) / "config.yaml"
    return read_text(path, SMALL_LIMIT, what="config.yaml") if path.is_file() else None


def config_record(text) -> dict:
    """What run.json records of the config.yaml the run writes (``text``): its SHA-256."""
    return {CONFIG_SHA256: sha256_hex(text)}


def check_config(folder) -> None:
    """Refuse a finished run folder without config.yaml, or whose config.yaml is not the one
    its run.json records (edited after the run: ``multisvm report`` would show it above
    results it did not give); a run.json from before the record is checked for the file only."""
    path = run_file(folder, "config.yaml")
    recorded = read_meta(folder).get(CONFIG_SHA256)
    if recorded is not None and config_record(read_config_text(folder)) != {
            CONFIG_SHA256: recorded}:
        raise MultisvmError(f"{path} is not the config the run wrote (its SHA-256 is not "
                            f"run.json's {CONFIG_SHA256}): it was edited after the run; put "
                            f"the run's config back, or rerun the config")


def check_run(folder) -> None:
    """Read and check every record file of a finished run folder (results.json, grid.csv,
    table.csv, predictions.csv, run.json, config.yaml): ``multisvm report`` refuses a damaged folder before it
    rewrites anything."""
    read_table(folder, read_results(folder))
    read_grid(folder)
    read_sweep(folder)
    read_predictions(folder)
    read_meta(folder)
    check_config(folder)
