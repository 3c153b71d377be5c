"""The report table's columns are declared once (multisvm_cli/report/columns.py): every declared
column reaches the text table, table.csv, json, report.html, the footnote, the run checks and
the run-folder reference page, and a column added to the declaration alone reaches them all."""

import csv
import dataclasses
import importlib.util
import io
import json

import pytest

from multisvm_cli.report import columns, run_checks, table
from multisvm_cli.report.html import _parse
from multisvm_cli.report.html_table import table_html
from multisvm_cli.report.record import LABEL
from helpers import REPO, recipe_row

spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
gen_docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen_docs)


def _results(**extra):
    """Two pooled results of one dataset (DAG, the comparison scheme, and Max Wins), both
    estimates, every optional figure present."""
    common = dict(dataset="wine", kernel="gaussian sigma=2", C=8.0, n_test=4,
                  kernel_evaluations=12.5, cpu_time=0.25, smo_iterations=40.0, size=2500.0,
                  selection_time=1.5, evaluation_time=0.01, error_sd=1.25, ties=2.0,
                  max_train_memory_mb=0.5, level1_accuracy=0.75, level2_accuracy=0.5,
                  log_loss=0.3, brier=0.2, estimate="nested", bounded=True, draws=1,
                  edge="1/5 folds: smallest C 0.25",
                  balanced_accuracy=0.625, macro_f1=0.5,
                  cv_best={"kernel": "linear", "C": 2.0, "error_pct": 12.5, "ties": 1})
    return [{**common, "scheme": "dag", "n_errors": 1, "correct": [True, True, True, False],
             **extra},
            {**common, "scheme": "max-wins", "n_errors": 2, "correct": [True, False, True, False],
             **extra}]


def _rows(**extra):
    reference = {"wine": {"dag": {"error": 25, "C": 4, "sigma": 1, "kernel_evaluations": 11,
                                  "cpu_time": 0.5, "size_k": 2.0}}}
    rows = table.table_rows(_results(**extra), reference)
    return [{**row, "config": "demo", "run_folder": "results/demo/1"} for row in rows]


def _outputs(rows):
    """{output: its text} of every place a column can reach."""
    text = table.render(rows, "table", reference_source="the paper")
    csv_text = table.render(rows, "csv")
    header = next(csv.reader(io.StringIO(csv_text)))
    cells = list(csv.DictReader(io.StringIO(csv_text)))
    return {"table": text, "narrow": table.render(rows, "table", wide=False),
            "markdown": table.render(rows, "markdown"), "csv": csv_text,
            "json": table.render(rows, "json"), "html": table_html(header, cells, _parse),
            "footnote": table.footnote(estimates=("both",)),
            "reference": gen_docs.columns_section()}


def test_every_declared_column_reaches_every_output():
    out = _outputs(_rows())
    header = out["table"].splitlines()[0]
    for column in columns.COLUMNS:
        assert f'"{column.key}"' in out["json"] and column.key in out["csv"].splitlines()[0]
        assert f"| `{column.key}` | {gen_docs._cell(column.title)} |" in out["reference"]
        if not column.files_only:
            assert column.title in header and column.title in out["markdown"], column.key
            assert f">{column.title}</th>" in out["html"], column.key
        if column.narrow:
            assert column.narrow in out["narrow"].splitlines()[0], column.key
        if column.note_at:
            assert columns.note(column) in out["footnote"], column.key
        assert column.note and column.key == column.key.strip()


def test_a_rows_keys_are_the_declared_columns():
    """The declaration is the one list of the table's keys: each key a row carries is a
    declared column (besides the record's label and the linear machines' flag), once each."""
    keys = [c.key for c in columns.COLUMNS]
    assert len(keys) == len(set(keys))
    rows = _rows()
    assert {k for row in rows for k in row} - {LABEL, "primal"} <= set(keys)
    assert [row[LABEL] for row in rows[:2]] == ["DAGSVM", "max-wins"]


def test_the_run_folder_reference_section_is_generated_from_the_declaration():
    page = gen_docs.RUN_FOLDER.read_text(encoding="utf-8")
    assert gen_docs.run_folder_page(page) == page, \
        "run `python scripts/gen_docs.py --run-folder` to regenerate docs/reference/run-folder.md"
    assert "| `error_pct` | error % | error % | % | always |" in page


def test_the_footnote_paragraphs_come_from_the_notes_in_their_places():
    first, second = columns.notes()
    assert first.startswith("error % on the test part") and first.endswith("wider gaussian.")
    assert first.index("size K:") < first.index("train CPU s:")  # note_at, not table order
    assert second.count("L1/L2 acc:") == 1 and second.count("log-loss, Brier:") == 1
    assert table.footnote().split("\n")[:2] == [first, second]


def test_run_checks_and_the_reader_check_the_declared_ranges_and_numbers():
    assert run_checks.row_ranges({"error_pct": 101}, "r") == "r: error_pct 101 is not in [0, 100]"
    assert run_checks.row_ranges({"C": 0}, "r") == "r: C 0 is not > 0"
    assert run_checks.row_ranges({"n_test": 2.5}, "r") == "r: n_test 2.5 is not a count"
    assert run_checks.row_ranges({"level2_accuracy": 1.5}, "r") == \
        "r: level2_accuracy 1.5 is not in [0, 1]"
    assert run_checks.row_ranges({"size_k": -1}, "r") == "r: size_k -1 is negative"
    assert run_checks.row_ranges({"n_test": 3, "n_errors": 4}, "r") == \
        "r: n_errors 4 exceeds n_test 3"
    assert run_checks.row_ranges({"error_pct": 100, "C": 1e-9, "n_test": 3}, "r") is None
    assert "optimism" not in columns.numbers() and columns.numbers()[:3] == \
        ("C", "error_pct", "error_sd")


def test_a_new_column_is_one_declaration(monkeypatch, tmp_path):
    """docs/explanation/extending.md's recipe: one Column added (after n_test, copied from the
    pooled result's n_support_vectors); the row, every output, the checks and the reference
    page follow."""
    new = recipe_row("column", vars(columns))
    assert new.key == "n_support_vectors" and new.key not in [c.key for c in columns.COLUMNS]
    place = [c.key for c in columns.COLUMNS].index("n_test") + 1
    monkeypatch.setattr(columns, "COLUMNS",
                        columns.COLUMNS[:place] + (new,) + columns.COLUMNS[place:])
    rows = _rows(n_support_vectors=4321.0)
    assert [row["n_support_vectors"] for row in rows] == [4321.0, 4321.0]
    out = _outputs(rows)
    header = out["table"].splitlines()[0]
    assert header.index("n_test") < header.index("SVs") < header.index("kernel evals")
    assert "SVs" in out["narrow"].splitlines()[0].split()
    assert " 4321 " in out["table"].splitlines()[2] and " 4321 " in out["narrow"]
    assert "| SVs " in out["markdown"] and ">SVs</th>" in out["html"]
    assert ">4321</td>" in out["html"]
    assert json.loads(out["json"])[0]["n_support_vectors"] == 4321.0
    assert ",n_test,n_support_vectors,kernel_evaluations," in out["csv"].splitlines()[0]
    assert out["footnote"].split("\n")[1].endswith(
        "; SVs: unique support vectors of the final model (mean over folds and repeats).")
    assert "| `n_support_vectors` | SVs | SVs | support vectors | always |" in out["reference"]
    assert "n_support_vectors" in columns.numbers()
    assert run_checks.row_ranges({"n_support_vectors": -3}, "r") == \
        "r: n_support_vectors -3 is negative"


def test_declared_columns_are_well_formed():
    for column in columns.COLUMNS:
        assert column.title and column.note, column.key
        assert column.check is None or column.number or column.key == "n_test", column.key
        # a copied column shown only when some row carries it names its own key (the pooled
        # result has it only where the run computed it: the balanced measures)
        assert not (column.copied and column.when) or column.when == column.key, column.key
    with pytest.raises(dataclasses.FrozenInstanceError):
        columns.COLUMNS[0].title = "x"


def test_the_narrow_table_shows_log_loss_and_brier_only_in_a_run_with_probabilities():
    # no draws split: no draws column; a balanced test part: no balanced columns
    results = _results(cv_best=None, draws=None, balanced_accuracy=None, macro_f1=None)
    results[1].update(log_loss=0.41234, brier=0.25)
    narrow = table.render(table.table_rows(results), "table", wide=False).splitlines()
    assert narrow[0].split()[-2:] == ["log-loss", "Brier"]
    assert narrow[2].split()[-2:] == ["0.3000", "0.2000"]      # DAG's pooled values
    assert narrow[3].split()[-3:] == ["1", "0.4123", "0.2500"]  # after Max Wins' p
    without = [{k: v for k, v in r.items() if k not in ("log_loss", "brier")} for r in results]
    plain = table.render(table.table_rows(without), "table", wide=False).splitlines()
    assert plain[0].split() == ["dataset", "scheme", "kernel", "C", "error", "%", "SD", "%",
                                "n_test", "k-evals", "CPU", "s", "size", "K", "p"]
    assert [line.split()[:3] for line in plain[2:4]] == [["wine", "DAGSVM", "gaussian"],
                                                        ["wine", "max-wins", "gaussian"]]
