"""Hostile input, round four (issue #41): a user's own classifier, the files a user predicts,
and the run folders a user hands on. Each test fails without its fix: findings 1-8, 13-15 and
17 of the issue (the others have their own tests)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sklearn.datasets import load_iris

from configs import config_text
from helpers import REPO, refused

LINEAR = [{"type": "linear"}]


@pytest.fixture
def iris_model(tmp_path, run_multisvm, write_config, mirror, data_home, no_network):
    """A linear 1-v-r model of the registry's iris (4 features), trained through the CLI."""
    config = write_config(kernels=LINEAR, C=[1], schemes=["ovr"])
    model = tmp_path / "iris-ovr"
    code, _, err = run_multisvm("train", config, "--scheme", "ovr", "-o", model, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    return model


def _iris_csv(path, header=None, rows=slice(0, 5)):
    X = load_iris().data[rows]
    lines = ([header] if header else []) + [",".join(f"{v:g}" for v in row) for row in X]
    path.write_text("\n".join(lines) + "\n")
    return path


# --------------------------------------------------------------- 1. predict writes only a file

def test_predict_refuses_an_output_that_is_no_regular_file_or_is_in_the_model(
        iris_model, tmp_path, run_multisvm):
    points = _iris_csv(tmp_path / "x.csv")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(run_multisvm("predict", iris_model, points, "-o", fifo, "--force"),
            str(fifo), "not a regular file")
    assert fifo.is_fifo()
    model_file = iris_model / "model.json"
    before = model_file.read_bytes()
    refused(run_multisvm("predict", iris_model, points, "-o", model_file, "--force"),
            "inside the model folder")
    assert model_file.read_bytes() == before
    refused(run_multisvm("predict", iris_model, points, "-o", iris_model / "new.csv"),
            "inside the model folder")
    assert not (iris_model / "new.csv").exists()
    code, _, err = run_multisvm("predict", iris_model, points, "-o", tmp_path / "p.csv")
    assert code == 0 and (tmp_path / "p.csv").read_text().startswith("row,label\n"), err


# ----------------------------------------------------- 2. caches of other tools in the data home

def test_matplotlib_and_numba_caches_go_to_the_data_home(tmp_path):
    home, data_home = tmp_path / "home", tmp_path / "data-home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("MPLCONFIGDIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    env.update(HOME=str(home), MULTISVM_DATA_HOME=str(data_home))
    probe = ("import os, sys; from multisvm_cli.cli import entry; entry.tool_caches(); "
             "import numba, matplotlib; "
             "print(numba.config.CACHE_DIR); print(matplotlib.get_configdir())")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    numba_dir, mpl_dir = done.stdout.split()
    assert Path(numba_dir) == data_home / "numba" and Path(mpl_dir) == data_home / "matplotlib"
    config = tmp_path / "c.yaml"
    config.write_text(config_text(kernels=LINEAR, C=[1], schemes=["ovr"]))
    env["MULTISVM_MIRROR"] = os.environ.get("MULTISVM_MIRROR", str(REPO.parent / "shared" /
                                                                   "datasets"))
    env["MULTISVM_URL_BASE"] = "http://127.0.0.1:9"
    done = subprocess.run([sys.executable, "-m", "multisvm_cli", "reproduce-table", str(config),
                           "--out", str(tmp_path / "out"), "-q"], env=env, capture_output=True,
                          text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert list(home.iterdir()) == []  # nothing under $HOME/.cache or $HOME/.config
    assert (data_home / "matplotlib").is_dir()


# ------------------------------------------------------ 3. a first row is data unless a header

@pytest.mark.parametrize("text, fragments", [
    ("5.1,abc,1.4,0.2\n5.0,3.2,1.4,0.2\n4.9,3.1,1.5,0.1\n", ("x.csv:1:", "column 1",
                                                            "'abc' is not a number")),
    ("5.1,abc,1.4,0.2\n", ("x.csv:1:", "column 1", "'abc' is not a number")),
    ("5.1,6_7,1.4,0.2\n5.0,3.2,1.4,0.2\n", ("x.csv:1:", "column 1", "'6_7' is not a number")),
    ("5.1,3.5,1.4,0.2\n5.0,3_2,1.4,0.2\n", ("x.csv:2:", "column 1", "'3_2' is not a number")),
    ("a,b,c,d\n", ("x.csv:1:", "a header row and no data rows")),
])
def test_a_bad_first_row_is_named_not_taken_for_a_header(iris_model, tmp_path, run_multisvm,
                                                         text, fragments):
    (tmp_path / "x.csv").write_text(text)
    refused(run_multisvm("predict", iris_model, tmp_path / "x.csv"), *fragments)


def test_a_local_training_file_with_underscored_numbers_is_refused(tmp_path):
    from multisvm_cli.data import DatasetError
    from multisvm_cli.data.csv_file import read_csv

    (tmp_path / "t.csv").write_text("1,2,0\n3,4_0,1\n5,6,0\n")
    with pytest.raises(DatasetError, match=r"t.csv:2: column 1: '4_0' is not a number"):
        read_csv(tmp_path / "t.csv")
    (tmp_path / "h.csv").write_text("x,y,label\n1,2,a\n3,4,b\n")  # a header is still a header
    X, y, first = read_csv(tmp_path / "h.csv")
    assert X.tolist() == [[1, 2], [3, 4]] and y.tolist() == ["a", "b"] and first == 2


# ------------------------------- 4. a registry model's columns are its card's names, or x0..

def test_a_registry_models_columns_are_checked_by_name(iris_model, tmp_path, run_multisvm):
    other = _iris_csv(tmp_path / "other.csv", header="f0,f1,f2,target")
    refused(run_multisvm("predict", iris_model, other),
            "other.csv:1:", "feature column 0 is 'f0', the model's is 'x0'")
    named = _iris_csv(tmp_path / "named.csv", header="x0,x1,x2,x3")
    plain = _iris_csv(tmp_path / "plain.csv")
    outputs = []
    for path in (named, plain):
        code, out, err = run_multisvm("predict", iris_model, path)
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) == 6


def test_a_cards_feature_names_are_its_models_columns(tmp_path, run_multisvm, write_config,
                                                      mirror, data_home, no_network):
    from sklearn.datasets import load_wine

    from multisvm_cli import data

    names = data.get_card("wine").feature_names
    assert len(names) == 13 and names[0] == "alcohol"
    config = write_config(dataset="wine", kernels=LINEAR, C=[1], schemes=["ovr"])
    model = tmp_path / "wine-ovr"
    code, _, err = run_multisvm("train", config, "--scheme", "ovr", "-o", model, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    X = load_wine().data[:4]
    rows = [",".join(f"{v:g}" for v in row) for row in X]
    (tmp_path / "named.csv").write_text("\n".join([",".join(names), *rows]) + "\n")
    code, out, err = run_multisvm("predict", model, tmp_path / "named.csv")
    assert code == 0 and len(out.splitlines()) == 5, err
    other = [f"f{j}" for j in range(12)] + ["target"]  # the case: 13 other names
    (tmp_path / "other.csv").write_text("\n".join([",".join(other), *rows]) + "\n")
    refused(run_multisvm("predict", model, tmp_path / "other.csv"),
            "feature column 0 is 'f0', the model's is 'alcohol'")


# ------------------------------------------ 5. a folder to predict: class folders or documents

def test_a_folder_with_class_folders_and_top_level_documents_is_refused(tmp_path):
    from multisvm_cli.data import DatasetError
    from multisvm_cli.data.text.folder import document_members

    (tmp_path / "docs" / "sport").mkdir(parents=True)
    (tmp_path / "docs" / "sport" / "1.txt").write_text("goal")
    (tmp_path / "docs" / "loose.txt").write_text("a document in no class folder")
    with pytest.raises(DatasetError) as caught:
        document_members(tmp_path / "docs")
    message = str(caught.value)
    assert "loose.txt" in message and "class subfolders" in message and "\n" not in message
    (tmp_path / "docs" / "loose.txt").unlink()
    members, labelled = document_members(tmp_path / "docs")
    assert members == {"sport/1.txt": b"goal"} and labelled


# ---------------------------------------------------------------- a user's classifier (6, 7, 13, 14)

USER_MODULE = '''\
import sys

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class Tricky(ClassifierMixin, BaseEstimator):
    """Fits nothing; predicts what ``mode`` says."""

    def __init__(self, mode="ok"):
        self.mode = mode

    def fit(self, X, y):
        if self.mode == "raise":
            raise RuntimeError("boom in fit")
        if self.mode == "exit":
            sys.exit(0)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        n = X.shape[0]
        return {"ok": np.arange(n) % 3, "minus": np.full(n, -1), "frac": np.full(n, 1.9),
                "seven": np.full(n, 7), "nan": np.full(n, np.nan), "short": np.zeros(n - 1, int),
                "wide": np.zeros((n, 2), int), "text": np.array(["a"] * n)}[self.mode]
'''


def _user_config(tmp_path, monkeypatch, mode, module="hostile41_user", source=USER_MODULE):
    """A config with Max Wins and the row 'Mine' (``module:Tricky`` in ``mode``), the module
    written to a folder on sys.path."""
    folder = tmp_path / "user-modules"
    folder.mkdir(exist_ok=True)
    (folder / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(folder))
    config = tmp_path / "own.yaml"
    config.write_text(config_text(kernels=LINEAR, C=[1], schemes=None) + textwrap.dedent(f"""\
        schemes:
          - maxwins
          - {{scheme: "{module}:Tricky", label: Mine, options: {{mode: {mode}}}}}
        """))
    return config


@pytest.mark.usefixtures("mirror", "data_home", "no_network")
@pytest.mark.parametrize("mode, fragments", [
    ("minus", ("predict", "-1", "not one of the classes")),      # 6: was the last class
    ("frac", ("predict", "1.9", "not one of the classes")),      # 6: was class 1
    ("short", ("predict", "values for", "points")),
    ("wide", ("predict", "an array of shape (", ", 2)")),
    ("text", ("predict", "'a'", "not one of the classes")),
    ("seven", ("predict", "7", "not one of the classes")),       # 13: was an IndexError
    ("nan", ("predict", "nan", "not one of the classes")),       # 13
    ("raise", ("fit raised RuntimeError: boom in fit",)),         # 13: was a traceback
    ("exit", ("fit raised SystemExit",)),                         # 14: was exit 0, no table
])
def test_a_users_classifier_failing_is_one_line_naming_row_and_dataset(
        tmp_path, monkeypatch, run_multisvm, mode, fragments):
    config = _user_config(tmp_path, monkeypatch, mode)
    result = run_multisvm("reproduce-table", config, "--out", tmp_path / "out", "-q",
                          "--no-figures")
    refused(result, "dataset iris", "row 'Mine' (hostile41_user:Tricky)", *fragments)
    assert "Traceback" not in result.out


@pytest.mark.usefixtures("mirror", "data_home", "no_network")
def test_a_well_behaved_users_classifier_still_runs(tmp_path, monkeypatch, run_multisvm):
    config = _user_config(tmp_path, monkeypatch, "ok")
    result = run_multisvm("reproduce-table", config, "--out", tmp_path / "out", "-q",
                          "--no-figures", "--format", "json")
    assert result.code == 0, result.err
    rows = {r["scheme"]: r for r in json.loads(result.out)}
    assert 0 < rows["own:Mine"]["error_pct"] < 100


@pytest.mark.usefixtures("mirror", "data_home", "no_network")
def test_the_resume_cache_keys_on_the_users_module_file(tmp_path, monkeypatch):
    from multisvm_cli.experiment import Settings, load_config, reproduce

    config = _user_config(tmp_path, monkeypatch, "ok", module="hostile41_edited")

    def cached():
        run = reproduce(load_config(config), Settings(out=str(tmp_path / "out"), quiet=True))
        return json.loads((run.folder / "run.json").read_text())["grid_points"]

    assert cached()["cached"] == 0
    assert cached()["cached"] == 2  # Max Wins' point and the row's
    module = tmp_path / "user-modules" / "hostile41_edited.py"
    module.write_text(module.read_text() + "\n# the user's edit\n")
    assert cached()["cached"] == 1  # Max Wins' point only: the row is computed again
    assert cached()["cached"] == 2


# -------------------------------------------------------- 8. a run folder's config is checked

@pytest.fixture
def run_folder(tmp_path, write_config, mirror, data_home, no_network):
    from multisvm_cli.experiment import Settings, load_config, reproduce

    config = write_config(kernels=LINEAR, C=[1], schemes=["ovr", "maxwins"])
    return reproduce(load_config(config), Settings(out=str(tmp_path / "out"), quiet=True)).folder


@pytest.mark.parametrize("edit, fragment", [
    (lambda path: path.write_text(path.read_text().replace("C:", "# C:", 1) + "C: [5]\n"),
     "config.yaml is not the config the run wrote"),
    (lambda path: path.unlink(), "lacks config.yaml"),
])
def test_report_refuses_a_run_folder_whose_config_was_edited_or_deleted(
        run_folder, run_multisvm, edit, fragment):
    assert run_multisvm("report", run_folder, "--no-figures").code == 0  # untouched: redrawn
    edit(run_folder / "config.yaml")
    report = (run_folder / "report.html").read_bytes()
    refused(run_multisvm("report", run_folder, "--no-figures"), str(run_folder), fragment)
    assert (run_folder / "report.html").read_bytes() == report


# ----------------------------------------------- 15. a row too wide is refused before it is read

def test_a_very_wide_row_is_refused_before_its_values_are_parsed(iris_model, tmp_path,
                                                                 run_multisvm, monkeypatch):
    from multisvm_cli.data import delimited

    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(["1"] * 200_000) + "\n")

    def never(*args, **kwargs):
        raise AssertionError("the whole table was parsed")

    monkeypatch.setattr(delimited, "read", never)
    refused(run_multisvm("predict", iris_model, wide), "wide.csv:1:", "200000 columns",
            "takes 4 features")


# ------------------------------------------------------- 17. warnings name their own solver

def test_a_joint_solvers_bound_is_named_as_its_own():
    from multisvm_cli.experiment.run.fit_notes import fit_warnings

    note = ["ConvergenceWarning: Solver terminated early (max_iter=5)"]
    results = [{"dataset": "iris", "scheme": scheme, "kernel": "linear", "C": 1.0, "notes": note}
               for scheme in ("cs", "ww", "ovr")]
    rows = [{**r, "notes": note[0]} for r in results]
    found = fit_warnings(results, rows)
    by_scheme = {scheme: [w for w in found if w.startswith(f"iris {scheme}:")]
                 for scheme in ("cs", "ww", "ovr")}
    for scheme in ("cs", "ww"):
        assert len(by_scheme[scheme]) == 2
        assert all("the all-together solver's iteration bound" in w and "libsvm" not in w
                   for w in by_scheme[scheme])
    assert all("libsvm's iteration bound" in w for w in by_scheme["ovr"])


def test_the_proba_refusal_says_how_to_get_probabilities(iris_model, tmp_path, run_multisvm):
    points = _iris_csv(tmp_path / "x.csv")
    refused(run_multisvm("predict", iris_model, points, "--proba"),
            "this 1-v-r model gives no class probabilities: it was trained without them",
            "scheme_options: {ovr: {probability: true}}", "or drop --proba")
