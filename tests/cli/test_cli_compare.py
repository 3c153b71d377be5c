"""``multisvm compare DATA [TEST]``: the comparison on a user's file without a config, the
config it writes (run again by ``reproduce-table``: the same table), its overrides, and the
bad files it refuses with one line and no run folder."""

import csv
import json
import shutil

from pathlib import Path

import numpy as np
import pytest
import yaml
from sklearn.datasets import dump_svmlight_file, load_iris

from helpers import refused, run_cli, without_times, write_files


@pytest.fixture
def iris_csv(tmp_path):
    """Iris written as a csv with a header, the label column 'target' last."""
    frame = load_iris(as_frame=True).frame
    path = tmp_path / "iris.csv"
    frame.to_csv(path, index=False)
    return path


def _table(folder) -> list:
    with open(folder / "table.csv", newline="") as f:
        return without_times(list(csv.DictReader(f)))


def _run_folder(out, name):
    folders = sorted((out / name).glob("2*"))
    assert len(folders) == 1, folders
    return folders[0]


def test_compare_equals_reproduce_table_on_the_config_it_wrote(iris_csv, tmp_path, data_home):
    out = tmp_path / "out"
    result = run_cli("compare", iris_csv, "--label", "target", "--schemes", "ovr,maxwins,nb",
                     "--out", out, "--quiet", "--no-figures")
    assert result.code == 0, result.err
    run = _run_folder(out, "compare-iris-data")  # 'iris' is a registry name: -data added
    written = yaml.safe_load((run / "config.original.yaml").read_text())
    assert written["schemes"] == ["ovr", "maxwins", "nb"]
    assert written["dataset"] == [{"name": "iris-data", "path": str(iris_csv),
                                   "label": "target"}]
    assert written["split"] == {"method": "kfold", "k": 5, "seed": 0}
    assert (run / "config.yaml").read_text().startswith(
        f"# compare-iris-data: resolved from multisvm compare {iris_csv} (")
    resolved = yaml.safe_load((run / "config.yaml").read_text())["dataset"][0]
    assert resolved["scaling"] == "standard"  # a local dense file's own scaling
    assert [k["gamma"] for k in resolved["kernels"]] == [2.0 ** 4, 2.0 ** -3, 2.0 ** -10]
    assert resolved["kernels"][0]["C"] == [2.0 ** 12, 2.0 ** 5, 2.0 ** -2]
    table = _table(run)
    assert [row["scheme"] for row in table] == ["ovr", "maxwins", "nb"]
    assert {row["n_test"] for row in table} == {"150"}  # 5 folds: every point tested once
    best = min(table, key=lambda row: float(row["error_pct"]))
    answer = result.out.split("\nAnswer:\n")[1].splitlines()[0]
    label = {"ovr": "1-v-r", "maxwins": "Max Wins", "nb": "NB"}[best["scheme"]]
    assert answer.startswith(f"iris-data: best {label} {float(best['error_pct']):.2f}%")
    for config in ("config.yaml", "config.original.yaml"):
        again = run_cli("reproduce-table", run / config, "--out", tmp_path / config,
                        "--quiet", "--no-figures", "--force")
        assert again.code == 0, again.err
        assert _table(_run_folder(tmp_path / config, "compare-iris-data")) == table
        assert again.out.split("\nresults:")[0] in result.out  # the same printed table


def test_compare_overrides_and_test_file(tmp_path, data_home):
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[:100], order[100:]
    dump_svmlight_file(X[train], y[train], str(tmp_path / "flowers.svm"), zero_based=False)
    dump_svmlight_file(X[test], y[test], str(tmp_path / "flowers.t.svm"), zero_based=False)
    out = tmp_path / "out"
    result = run_cli("compare", tmp_path / "flowers.svm", tmp_path / "flowers.t.svm",
                     "--schemes", "maxwins,NB", "--kernel", "linear", "--full", "-j", "1",
                     "--out", out, "--quiet", "--no-figures", "--format", "csv")
    assert result.code == 0, result.err
    rows = list(csv.DictReader(result.out.splitlines()))
    assert [row["scheme"] for row in rows] == ["maxwins", "nb"]
    assert {row["n_test"] for row in rows} == {"50"}  # the test file's points
    run = _run_folder(out, "compare-flowers")
    written = yaml.safe_load((run / "config.original.yaml").read_text())
    assert written["kernels"] == [{"type": "linear"}]
    assert written["C"] == {"base": 2, "from": 12, "to": -2, "step": -1}  # --full
    assert "refine" not in written  # --full: the whole grid, searched once
    assert written["split"] == {"method": "standard"}
    assert written["dataset"][0]["test_path"] == str(tmp_path / "flowers.t.svm")
    resolved = yaml.safe_load((run / "config.yaml").read_text())["dataset"][0]
    assert resolved["kernels"][0]["C"] == [2.0 ** e for e in range(12, -3, -1)]
    assert resolved["scaling"] == "maxabs"  # svmlight is sparse: maxabs


def _bad_files(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "one.csv").write_text("a,b,y\n1,2,0\n3,4,0\n5,6,0\n")
    (tmp_path / "train.csv").write_text("a,b,y\n1,2,0\n3,4,1\n5,6,0\n7,8,1\n")
    (tmp_path / "wide.csv").write_text("a,b,c,y\n1,2,3,0\n4,5,6,1\n")


@pytest.mark.parametrize("args, fragments", [
    (["empty.csv"], ["empty.csv", "empty file"]),
    (["one.csv", "--label", "y"], ["one.csv", "one class"]),  # --label: no note line
    (["train.csv", "--label", "nope"], ["no label column 'nope'"]),
    (["train.csv", "wide.csv", "--label", "y"], ["wide.csv", "3 feature columns", "has 2"]),
    (["train.csv", "--label", "y", "--schemes", "ovr,foo"],
     ["error: compare: schemes[1]: 'foo' is not a valid scheme; allowed: ovr, maxwins"]),
])
def test_compare_refuses_bad_files_before_any_run_folder(tmp_path, data_home, args, fragments):
    _bad_files(tmp_path)
    out = tmp_path / "out"
    given = [tmp_path / a if a.endswith(".csv") else a for a in args]
    refused(run_cli("compare", *given, "--out", out, "--quiet"), *fragments)
    assert not out.exists()


def test_compare_on_a_folder_of_documents(tmp_path, data_home):
    words = {"sport": b"ball goal team match ", "food": b"bread cheese wine pasta "}
    files = {f"{c}/{i}.txt": text * (1 + i % 3) + b"the end" for c, text in words.items()
             for i in range(10)}
    folder = write_files(tmp_path / "texts", files)
    out = tmp_path / "out"
    result = run_cli("compare", folder, "--schemes", "ovr,nb", "--out", out, "--quiet",
                     "--no-figures", "--format", "csv")
    assert result.code == 0, result.err
    rows = list(csv.DictReader(result.out.splitlines()))
    assert [(r["scheme"], r["n_test"], float(r["error_pct"])) for r in rows] == [
        ("ovr", "20", 0.0), ("nb", "20", 0.0)]  # two vocabularies apart: no error
    written = yaml.safe_load((_run_folder(out, "compare-texts") / "config.original.yaml")
                             .read_text())
    assert written["dataset"][0]["kind"] == "text"
    assert written["features"] == {"vectorizer": "tfidf"}
    assert written["kernels"] == [{"type": "linear"}]


def test_compare_runs_libsvm_files_under_libsvm_names(mirror, tmp_path, data_home):
    for name in ("dna.scale", "dna.scale.t"):  # LIBSVM's names: the extension says nothing
        shutil.copyfile(mirror / "dna" / name, tmp_path / name)
    out = tmp_path / "out"
    result = run_cli("compare", tmp_path / "dna.scale", tmp_path / "dna.scale.t", "--schemes",
                     "ovr", "--kernel", "linear", "--out", out, "--quiet", "--no-figures",
                     "--format", "csv", "--no-refine")  # the 3-point C grid these numbers are of
    assert result.code == 0, result.err
    (row,) = csv.DictReader(result.out.splitlines())
    assert (row["scheme"], row["n_test"], row["C"]) == ("ovr", "1186", "0.25")
    assert float(row["error_pct"]) == pytest.approx(100 * 56 / 1186)  # 56 of 1186 wrong
    resolved = yaml.safe_load((_run_folder(out, "compare-dna-data") / "config.yaml")
                              .read_text())["dataset"][0]
    assert resolved["format"] == "svmlight" and resolved["scaling"] == "maxabs"


def test_compare_runs_a_csv_named_txt_and_takes_input_format(iris_csv, tmp_path, data_home):
    shutil.copyfile(iris_csv, tmp_path / "flowers.txt")
    shutil.copyfile(iris_csv, tmp_path / "flowers.data")
    tables = []
    for name, given in (("flowers.txt", []), ("flowers.data", ["--input-format", "csv"])):
        out = tmp_path / f"out-{name}"
        result = run_cli("compare", tmp_path / name, *given, "--label", "target", "--schemes",
                         "ovr", "--out", out, "--quiet", "--no-figures")
        assert result.code == 0, result.err
        run = _run_folder(out, "compare-flowers")
        entry = yaml.safe_load((run / "config.original.yaml").read_text())["dataset"][0]
        assert entry.get("format") == (given[1] if given else None)  # written where given
        tables.append([{k: v for k, v in row.items() if k != "dataset"} for row in _table(run)])
    assert tables[0] == tables[1] and tables[0][0]["n_test"] == "150"


def test_compare_refuses_a_file_it_cannot_tell_naming_input_format(tmp_path, data_home):
    (tmp_path / "points.dat").write_text("1 2 0\n3 4 1\n5 6 0\n7 8 1\n")  # spaces: neither
    out = tmp_path / "out"
    refused(run_cli("compare", tmp_path / "points.dat", "--out", out, "--quiet"),
            "cannot tell the format of points.dat", "give --input-format csv, svmlight or npz")
    assert not out.exists()
    refused(run_cli("compare", tmp_path / "points.dat", "--input-format", "svmlight",
                    "--out", out, "--quiet"), "points.dat:1:")  # read as told: not svmlight
    assert not out.exists()


def test_machine_readable_output_keeps_the_answer(iris_csv, tmp_path, data_home):
    """json: the Answer as data beside the rows (the very text the table prints after it);
    csv: stdout the table only, the Answer in the run folder's answer.csv, named on stderr."""
    out = tmp_path / "out"
    common = ("compare", iris_csv, "--label", "target", "--schemes", "ovr,maxwins,nb",
              "--out", out, "--quiet", "--no-figures")
    shown = run_cli(*common)
    assert shown.code == 0, shown.err
    text = " ".join(shown.out.split("\nAnswer:\n")[1].split("\nresults:")[0].split())
    given = run_cli(*common, "--format", "json")
    assert given.code == 0, given.err
    document = json.loads(given.out)
    assert isinstance(document, dict) and sorted(document) == ["answer", "rows"]
    assert [row["scheme"] for row in document["rows"]] == ["ovr", "maxwins", "nb"]
    found = document["answer"]
    assert found["ranked_by"] == {"key": "error_pct", "title": "error %",
                                  "order": "lowest first"}
    assert " ".join(found["text"].split()) == text  # the table's Answer, the same computation
    (entry,) = found["datasets"]
    best = min(document["rows"], key=lambda row: row["error_pct"])  # ties: the first row
    assert (entry["dataset"], entry["best"], entry["error_pct"]) == (
        "iris-data", best["scheme"], best["error_pct"])
    run = Path(document["rows"][0]["run_folder"])
    tests = json.loads((run / "results.json").read_text())["versus_best"]["iris-data"]["tests"]
    paired = entry["not_significantly_different"] + entry["significantly_worse"]
    assert {t["scheme"]: (t["p_value"], t["test"]) for t in paired} == {
        s: (t["p_value"], t["test"]) for s, t in tests.items()}
    assert {t["scheme"] for t in paired} | {best["scheme"]} == {"ovr", "maxwins", "nb"}
    assert not (run / "answer.csv").exists()  # json keeps it in the document
    given = run_cli(*common, "--format", "csv")
    assert given.code == 0, given.err
    rows = list(csv.DictReader(given.out.splitlines()))  # the table only
    assert [row["scheme"] for row in rows] == ["ovr", "maxwins", "nb"]
    run = Path(rows[0]["run_folder"])
    assert f"answer: {run / 'answer.csv'}" in given.err.splitlines()
    with open(run / "answer.csv", newline="") as f:
        (written,) = list(csv.DictReader(f))
    assert written["best"] == entry["best"] and written["ranked_by"] == "error_pct"
    assert float(written["error_pct"]) == entry["error_pct"]
    assert " ".join(written["answer"].split()) == text
    assert set(written["not_significantly_different"].split(";")) - {""} == {
        t["scheme"] for t in entry["not_significantly_different"]}
