"""The per-scheme result record is declared once (multisvm_cli/report/record.py): a run's
records carry only its keys and their scheme's label, the test error's key is spelled once in
the package, and only the record asks the scheme registry for a label."""

import ast
import re

from multisvm_cli.estimators.registry import label as registry_label
from multisvm_cli.experiment import Settings, load_config, reproduce
from multisvm_cli.report import columns, record
from multisvm_cli.report.run_folder import read_results
from helpers import REPO

PACKAGE = REPO / "multisvm_cli"
SMALL = """\
name: small
dataset: [iris]
split: {test_fraction: 0.3}
kernels: [{type: linear}]
C: [1, 100]
schemes: [ovr, dag, maxwins]
"""


def test_a_runs_records_carry_the_declared_keys_and_their_labels(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    run = reproduce(load_config(path), Settings(out=str(tmp_path / "out"), quiet=True))
    saved = read_results(run.folder)
    for result in saved["results"]:
        assert set(result) <= record.RESULT_KEYS, set(result) - record.RESULT_KEYS
        assert result[record.LABEL] == registry_label(result["scheme"])
        for split in result["splits"]:
            assert set(split) <= record.SPLIT_KEYS, set(split) - record.SPLIT_KEYS
            assert split[record.ERROR_PCT] == columns.error_pct(split["n_errors"],
                                                                 split["n_test"])
    assert [r[record.LABEL] for r in saved["table"]] == [
        registry_label(r["scheme"]) for r in saved["table"]]
    assert "DAGSVM" in {r[record.LABEL] for r in run.rows}


def test_a_saved_record_without_a_label_falls_back_to_the_registry():
    assert record.label_of({"scheme": "dag"}) == registry_label("dag")
    assert record.label_of({"scheme": "dag", "label": "mine"}) == "mine"
    assert record.labels([{"scheme": "ovr"}]) == {"ovr": registry_label("ovr")}


def test_the_test_errors_key_is_spelled_once_in_the_package():
    spelled = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
               if re.search(r"[\"']error_pct[\"']", path.read_text(encoding="utf-8"))]
    assert spelled == ["report/record.py"]
    assert record.ERROR_PCT in record.SPLIT_KEYS
    assert columns.column(record.ERROR_PCT).title == "error %"


def test_only_the_record_asks_the_registry_for_a_label():
    asking = []
    for path in (PACKAGE / "report").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("registry") \
                    and any(alias.name == "label" for alias in node.names):
                asking.append(path.name)
    assert asking == ["record.py"]
