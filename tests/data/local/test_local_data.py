"""Your own data: local csv / svmlight / npz files in a config give the registry's table, their
provenance reaches run.json, the model and the resume cache, and every bad file is one line
with file and line number (exit code 2, no run folder)."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_digits

from multisvm_cli import data
from multisvm_cli.experiment import Settings, load_config, reproduce

TIMES = ("cpu_time", "selection_time", "evaluation_time")


pytestmark = pytest.mark.usefixtures("no_network")




def write_digits(folder):
    """scikit-learn's digits as csv (header, label column 'target'), svmlight and npz."""
    X, y = load_digits(return_X_y=True)
    header = ",".join([f"p{j}" for j in range(64)] + ["target"])
    rows = [",".join(str(int(v)) for v in row) + f",{label}" for row, label in zip(X, y)]
    (folder / "digits.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    dump_svmlight_file(X, y, str(folder / "digits.svm"), zero_based=False)
    np.savez(folder / "digits.npz", X=X, y=y)


CONFIG = """\
name: {name}
dataset:
  - digits
{entries}
scaling: maxabs
split: {{test_fraction: 0.3, seed: 0}}
kernels:
  - {{type: gaussian, sigma: [1, 2]}}
  - {{type: linear}}
C: [1, 10]
schemes: [ovr, maxwins, dag]
"""


def table_by_dataset(rows):
    tables = {}
    for row in rows:
        kept = {k: v for k, v in row.items() if k not in TIMES + ("dataset",)}
        tables.setdefault(row["dataset"], []).append(kept)
    return tables


def same_table_as_registry_digits(tmp_path, run_multisvm, entries, names):
    write_digits(tmp_path)
    path = tmp_path / "mine.yaml"
    path.write_text(CONFIG.format(name="mine", entries=entries))
    code, out, err = run_multisvm("reproduce-table", path, "--format", "json", "--out",
                             tmp_path / "out", "--quiet")
    assert code == 0, err
    tables = table_by_dataset(json.loads(out))
    assert len(tables["digits"]) == 3
    assert [r["error_pct"] for r in tables["digits"]] == pytest.approx([300 / 540, 600 / 540,
                                                                        600 / 540])
    for name in names:
        # libsvm's sparse solver sums kernel products in another order than its dense one, so
        # its SMO may take an iteration more or less; every other number is the same but the
        # training memory (the sparse copy stores only the non-zeros)
        def without_steps(rows):
            return [{k: v for k, v in r.items() if k not in ("smo_iterations",
                                                             "max_train_memory_mb")}
                    for r in rows]

        steps = [(r["smo_iterations"], d["smo_iterations"])
                 for r, d in zip(tables[name], tables["digits"])]
        assert without_steps(tables[name]) == without_steps(tables["digits"]), name
        assert all(abs(a - b) <= 1e-3 * b for a, b in steps), (name, steps)


@pytest.mark.slow
def test_digits_as_csv_and_npz_give_the_registry_digits_table(tmp_path, run_multisvm):
    same_table_as_registry_digits(
        tmp_path, run_multisvm, "  - {name: mycsv, path: digits.csv, label: target}\n"
                          "  - {name: mynpz, path: digits.npz}", ["mycsv", "mynpz"])


@pytest.mark.slow
def test_digits_as_svmlight_gives_the_registry_digits_table(tmp_path, run_multisvm):
    same_table_as_registry_digits(tmp_path, run_multisvm, "  - {name: mysvm, path: digits.svm}",
                                  ["mysvm"])


@pytest.mark.slow
def test_a_model_trained_on_svmlight_data_evaluates_on_it_sparse(tmp_path, run_multisvm):
    write_digits(tmp_path)
    config = tmp_path / "mine.yaml"
    config.write_text(CONFIG.format(name="mine", entries="").replace(
        "  - digits\n", "  - {name: mysvm, path: digits.svm}\n"))
    code, out, err = run_multisvm("train", config, "--scheme", "ovr", "-o", tmp_path / "m",
                             "--out", tmp_path / "out", "--quiet")
    assert code == 0, err
    assert out.startswith("trained ovr on mysvm: gaussian sigma=1, C=1, validation error 0.79%")
    code, out, err = run_multisvm("evaluate", tmp_path / "m")
    assert code == 0, err
    # the test part of the same split: 3 errors of 540, as 1-v-r in the digits table
    assert "data: mysvm test, 540 points" in out and "error rate: 0.56% (3 errors)" in out


@pytest.mark.slow
def test_dna_runs_end_to_end_as_sparse_data(mirror, data_home, tmp_path):
    config = tmp_path / "dna.yaml"
    config.write_text("dataset: dna\nkernels: [{type: gaussian, sigma: 4}]\nC: [1]\n"
                      "schemes: [ovr]\n")
    run = reproduce(load_config(config), Settings(out=str(tmp_path / "out"), quiet=True))
    (row,) = run.rows
    assert row["kernel"] == "gaussian sigma=4" and 0 < row["error_pct"] < 10
    results = json.loads((run.folder / "results.json").read_text())
    assert results["results"][0]["n_test"] == 1186


def test_local_files_load_like_the_registry_digits(tmp_path):
    write_digits(tmp_path)
    X, y = data.load("digits").parts["all"]
    for fmt, name in (("csv", "digits.csv"), ("svmlight", "digits.svm"), ("npz", "digits.npz")):
        spec = data.LocalSpec(name="mine", path=tmp_path / name, format=fmt)
        loaded = data.load_local(spec)
        X_local, y_local = loaded.parts["all"]
        assert sp.issparse(X_local) == (fmt == "svmlight")
        dense = X_local.toarray() if sp.issparse(X_local) else X_local
        np.testing.assert_array_equal(dense, X)
        np.testing.assert_array_equal(y_local, y)
        assert loaded.card.classes == tuple(range(10)) and loaded.card.split == "none"
        record = loaded.provenance["files"][name]
        assert record["size"] == (tmp_path / name).stat().st_size
        assert loaded.checksums == {name: record["sha256"]}


def test_svmlight_columns_are_the_union_of_train_and_test(tmp_path):
    (tmp_path / "a.svm").write_text("1 1:1 3:2\n2 2:5\n")
    (tmp_path / "a.t").write_text("1 7:1\n2 1:1\n")
    spec = data.LocalSpec(name="a", path=tmp_path / "a.svm", test_path=tmp_path / "a.t",
                          format="svmlight")
    loaded = data.load_local(spec)
    assert loaded.parts["train"][0].shape == (2, 7) and loaded.parts["test"][0].shape == (2, 7)
    assert loaded.card.parts == {"train": 2, "test": 2} and loaded.card.split == "fixed"


@pytest.mark.slow
def test_a_changed_local_file_is_recomputed_and_evaluate_warns(tmp_path, run_multisvm, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_digits(tmp_path)
    config = tmp_path / "mine.yaml"
    config.write_text(CONFIG.format(name="mine", entries="").replace(
        "  - digits\n", "  - {name: mycsv, path: digits.csv, label: target}\n"))
    settings = Settings(out=str(tmp_path / "out"), quiet=True)
    first = reproduce(load_config(config), settings)
    meta = json.loads((first.folder / "run.json").read_text())
    files = meta["local_data"]["mycsv"]["files"]
    assert files["digits.csv"]["size"] == (tmp_path / "digits.csv").stat().st_size
    assert files["digits.csv"]["sha256"] == data.local.files.sha256_file(tmp_path / "digits.csv")
    again = json.loads((reproduce(load_config(config), settings).folder / "run.json").read_text())
    # 3 kernels x 2 C: 1-v-r 6 rows, Max Wins and DAG 12
    assert again["grid_points"]["cached"] == again["grid_points"]["total"] == 18
    code, out, err = run_multisvm("train", config, "--scheme", "dag", "--dataset", "mycsv",
                             "-o", tmp_path / "model", "--out", tmp_path / "out", "--quiet")
    assert code == 0, err
    model = json.loads((tmp_path / "model" / "model.json").read_text())
    assert model["metadata"]["local"]["files"]["digits.csv"]["size"] == files["digits.csv"]["size"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run_multisvm("evaluate", tmp_path / "model")
    assert code == 0, err
    # one pixel of the first digit changes: same size, other SHA-256
    text = (tmp_path / "digits.csv").read_text().splitlines()
    text[1] = "1" + text[1][1:]
    (tmp_path / "digits.csv").write_text("\n".join(text) + "\n")
    changed = json.loads((reproduce(load_config(config), settings).folder / "run.json")
                         .read_text())
    assert changed["grid_points"]["cached"] == 0 and changed["grid_points"]["computed"] == 18
    with pytest.warns(UserWarning, match="the mycsv files differ from those the model was "
                                         r"trained on \(digits.csv\): the model was trained on "
                                         "other data"):
        code, out, err = run_multisvm("evaluate", tmp_path / "model")
    assert code == 0


@pytest.mark.slow
def test_resolved_config_keeps_the_local_entry_and_replays(tmp_path, run_multisvm):
    write_digits(tmp_path)
    (tmp_path / "conf").mkdir()
    config = tmp_path / "conf" / "mine.yaml"
    config.write_text(CONFIG.format(name="mine", entries="").replace(
        "  - digits\n", "  - {name: mynpz, path: ../digits.npz}\n"))
    run = reproduce(load_config(config), Settings(out=str(tmp_path / "out"), quiet=True))
    saved = run.folder / "config.yaml"
    assert f"path: {tmp_path / 'digits.npz'}" in saved.read_text()
    code, out, err = run_multisvm("validate", saved)
    assert code == 0, err
    replay = reproduce(load_config(saved), Settings(out=str(tmp_path / "out2"), quiet=True))
    drop = lambda rows: [{k: v for k, v in r.items() if k not in TIMES} for r in rows]  # noqa
    assert drop(replay.rows) == drop(run.rows)


# --------------------------------------------------------------------------- errors

GOOD_CSV = "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n"
GOOD_SVM = "1 1:1 2:3\n2 2:1\n1 1:2\n2 1:1 2:2\n"

# case -> (files to write, the dataset entry, expected "file:line: message" fragment)
ERRORS = {
    "ragged csv row": ({"d.csv": "a,b,label\n1,2,x\n3,4,5,y\n5,6,x\n"}, "path: d.csv",
                       "d.csv:3: 4 fields, expected 3 as on line 1"),
    "non-numeric value": ({"d.csv": "a,b,label\n1,2,x\n3,four,y\n5,6,x\n"}, "path: d.csv",
                          "d.csv:3: column 1 ('b'): 'four' is not a number"),
    "missing label column": ({"d.csv": GOOD_CSV}, "path: d.csv, label: target",
                             "d.csv:1: no label column 'target'; the columns are a, b, label"),
    "label index out of range": ({"d.csv": GOOD_CSV}, "path: d.csv, label: 5",
                                 "d.csv:1: no label column 5; the file has 3 columns"),
    "one class": ({"d.csv": "1,2,7\n3,4,7\n5,6,7\n"}, "path: d.csv",
                  "d.csv:1: the label column has one class (7) in all 3 rows"),
    "nan value": ({"d.csv": "a,b,label\n1,2,x\n\n3,nan,y\n5,6,x\n"}, "path: d.csv",
                  "d.csv:4: b is missing (1 rows have a missing cell); --missing drop"),
    "inf value": ({"d.csv": "a,b,label\n1,2,x\n\n3,inf,y\n5,6,x\n"}, "path: d.csv",
                  "d.csv:4: column 1 ('b'): 'inf' is NaN or inf"),
    "inf value svmlight": ({"d.svm": "1 1:1\n2 1:inf\n"}, "path: d.svm",
                           "d.svm:2: '1:inf': NaN or inf value"),
    "svmlight line does not parse": ({"d.svm": "1 1:1\n# note\n2 1:x 2:1\n"}, "path: d.svm",
                                     "d.svm:3: '1:x': the value is not a number"),
    "svmlight pair without colon": ({"d.svm": "1 1:1\n2 3\n"}, "path: d.svm",
                                    "d.svm:2: '3' is not index:value"),
    "duplicate index": ({"d.svm": "1 1:1\n2 2:1 2:3\n"}, "path: d.svm",
                        "d.svm:2: index 2 is repeated"),
    "decreasing index": ({"d.svm": "1 3:1 2:1\n2 2:1\n"}, "path: d.svm",
                         "d.svm:1: indices must increase: 2 follows 3"),
    "index 0 in a one-based file": ({"d.svm": "1 1:1\n2 0:1 2:1\n"}, "path: d.svm",
                                    "d.svm:2: index 0 in a one-based file"),
    "non-integral label": ({"d.svm": "1 1:1\n2.5 1:2\n"}, "path: d.svm",
                           "d.svm:2: label 2.5 is not a whole number"),
    "missing test_path file": ({"d.svm": GOOD_SVM}, "path: d.svm, test_path: d.t",
                               "mine.yaml:4: dataset[0].test_path: file d.t not found"),
    "missing path file": ({}, "path: gone.csv",
                          "mine.yaml:4: dataset[0].path: file gone.csv not found"),
    "unknown extension and content": ({"d.dat": "1 2 0\n3 4 1\n"}, "path: d.dat",
                                      "mine.yaml:4: dataset[0].path: cannot tell the format of "
                                      "d.dat from its extension or its first lines; give "
                                      "format: csv, svmlight or npz"),
    "npz object array": ({"d.npz": None}, "path: d.npz",
                         "d.npz: Object arrays cannot be loaded when allow_pickle=False"),
    "centering a sparse file": ({"d.svm": GOOD_SVM}, "path: d.svm, scaling: minmax",
                                "mine.yaml:4: dataset[0].scaling: mine (svmlight) is sparse: "
                                "minmax scaling would center it"),
    "svmlight label option": ({"d.svm": GOOD_SVM}, "path: d.svm, label: 0",
                              "mine.yaml:4: dataset[0].label: label is for csv files"),
    "registry name": ({"d.csv": GOOD_CSV}, "path: d.csv, name: iris",
                      "mine.yaml:4: dataset[0].name: 'iris' is a registry dataset"),
}

ERROR_CONFIG = """\
name: bad
split: {{test_fraction: 0.5, seed: 0}}
dataset:
  - {{name: mine, {entry}}}
kernels: [{{type: linear}}]
C: [1]
schemes: [ovr]
"""


@pytest.mark.parametrize("case", ERRORS)
def test_each_bad_file_is_one_line_with_file_and_line_exit_2_no_run_folder(case, tmp_path,
                                                                            run_multisvm):
    files, entry, expected = ERRORS[case]
    for name, text in files.items():
        if text is None:
            np.savez(tmp_path / name, X=np.zeros((4, 2)), y=np.array([1, "a", 2, 3], object))
        else:
            (tmp_path / name).write_text(text)
    if "name: iris" in entry:
        config_text = ERROR_CONFIG.format(entry=entry).replace("name: mine, ", "")
    else:
        config_text = ERROR_CONFIG.format(entry=entry)
    config = tmp_path / "mine.yaml"
    config.write_text(config_text)
    for command in (["validate"], ["reproduce-table", "--out", tmp_path / "out"]):
        code, out, err = run_multisvm(*command, config)
        assert code == 2, (command, out, err)
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert err.startswith("error: ") and expected in err, err
        where = expected.split(":", 2)
        assert f"{tmp_path / where[0]}:{where[1]}:" in err or expected.startswith("d.npz"), err
        assert not (tmp_path / "out").exists()


def test_header_is_detected_and_can_be_forced(tmp_path):
    (tmp_path / "n.csv").write_text("1,2,a\n3,4,b\n")
    X, y, line = data.local.files.read_csv(tmp_path / "n.csv")
    assert X.shape == (2, 2) and y.tolist() == ["a", "b"] and line == 1
    (tmp_path / "h.csv").write_text("x,y,c\n1,2,a\n3,4,b\n")
    X, y, line = data.local.files.read_csv(tmp_path / "h.csv", label="c")
    assert X.tolist() == [[1, 2], [3, 4]] and line == 2
    with pytest.raises(data.DatasetError, match="h.csv:1: column 0: 'x' is not a number"):
        data.local.files.read_csv(tmp_path / "h.csv", header=False)
    with pytest.raises(data.DatasetError, match="named but the file has no header row"):
        data.local.files.read_csv(tmp_path / "n.csv", label="c", header=False)


# --------------------------------------------------------------------------- user cards

def user_card(folder, name="myvowel"):
    """The registry's vowel card under another name, reading the mirror's vowel folder."""
    text = (Path(data.get_card("vowel").path)).read_text()
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(
        text.replace("\nname: vowel\n", f"\nname: {name}\nfolder: vowel\n"))


def test_user_cards_are_listed_marked_and_loaded(tmp_path, run_multisvm, mirror, data_home,
                                                 monkeypatch):
    user_card(tmp_path / "cards")
    code, out, err = run_multisvm("datasets", "list", "--cards", tmp_path / "cards")
    assert code == 0, err
    line = next(l for l in out.splitlines() if l.startswith("myvowel "))
    assert line.split()[:3] == ["myvowel", "11", "10"]
    assert line.endswith(f"user card {tmp_path / 'cards' / 'myvowel.yaml'}")
    assert not next(l for l in out.splitlines() if l.startswith("vowel ")).endswith(".yaml")
    monkeypatch.setenv("MULTISVM_CARDS", str(tmp_path / "cards"))
    assert data.get_card("myvowel").origin == "user"
    loaded = data.load("myvowel", mirror=mirror)
    assert loaded.parts["train"][0].shape == (528, 10)


def test_a_user_card_may_not_replace_a_registry_card(tmp_path, run_multisvm):
    user_card(tmp_path / "cards", "iris")
    code, out, err = run_multisvm("datasets", "list", "--cards", tmp_path / "cards")
    assert code == 2 and len(err.splitlines()) == 1
    assert "user card " in err and "has the name of the registry dataset 'iris'" in err


# --------------------------------------------------------------------------- memory

@pytest.mark.slow
def test_a_large_sparse_file_is_never_densified(tmp_path, monkeypatch):
    """20,000 x 20,000 at 1% (4M stored values): dense it would take 3.2 GB."""
    import tracemalloc

    from multisvm_cli.experiment.splits import scaled_folds, validation_splits

    n, per_row = 20_000, 200
    rng = np.random.default_rng(0)
    offsets = rng.integers(0, 100, n)
    columns = np.sort((offsets[:, None] + 100 * np.arange(per_row)) % n, axis=1)
    X = sp.csr_matrix((rng.integers(1, 100, n * per_row).astype(float), columns.ravel(),
                       np.arange(0, n * per_row + 1, per_row)), shape=(n, n))
    dump_svmlight_file(X, rng.integers(0, 3, n), str(tmp_path / "big.svm"), zero_based=False)
    del X

    def refusing(method):
        def densify(self, *args, **kwargs):
            if min(self.shape) > 1:  # a row of column statistics may be dense; a matrix not
                raise AssertionError(f"a {self.shape} sparse matrix was densified")
            return method(self, *args, **kwargs)
        return densify

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refusing(cls.toarray))
        monkeypatch.setattr(cls, "todense", refusing(cls.todense))
    config = tmp_path / "big.yaml"
    config.write_text("dataset: [{name: big, path: big.svm}]\nscaling: maxabs\n"
                      "split: {test_fraction: 0.25}\nkernels: [{type: linear}]\nC: [1]\n"
                      "schemes: [ovr]\n")
    plan = load_config(config).datasets[0]
    dataset = data.load_local(plan.local)
    assert dataset.parts["all"][0].nnz == n * per_row
    tracemalloc.start()
    try:
        (fold,) = scaled_folds(dataset, plan)
        splits = validation_splits(fold, plan.validation)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sp.issparse(fold.X_train) and fold.X_train.shape == (15_000, n)
    assert sp.issparse(splits[0][0]) and abs(fold.X_train).max() == 1.0
    assert peak < 600e6, peak  # the stored values are 48 MB as CSR
