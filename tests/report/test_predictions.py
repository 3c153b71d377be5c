"""predictions.csv and report.html's per-class section, end to end: a quickstart-sized run
(iris and wine, a seeded 30% holdout) through the CLI, its file checked against results.json,
against scikit-learn fitted here on the same folds, and against a cached rerun."""

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix, recall_score
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from multisvm_cli import data
from multisvm_cli.cli.main import main
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.splits import scaled_folds
from multisvm_cli.report.html import OLD_FOLDER_NOTE
from helpers import real_run, run_cli

CONFIG = """\
name: points
dataset: [iris, wine]
scaling: paper
split: {test_fraction: 0.3, seed: 0}
validation: {method: holdout, train_fraction: 0.7, seed: 0}
kernels:
  - {type: gaussian, sigma: [1, 3]}
C: [1, 100]
schemes: [ovr, maxwins, dag, nb]
scheme_options: {dag: {order: natural, probability: true}}
seed: 0
"""
SKLEARN = {"ovr": lambda svc: OneVsRestClassifier(svc), "maxwins": lambda svc: svc}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(run folder, config path, results root, data home) of one real run of CONFIG."""
    home = tmp_path_factory.mktemp("points")
    folder, _, config = real_run(home, "points", CONFIG)
    return folder, config, home


def results_of(folder) -> dict:
    saved = json.loads((folder / "results.json").read_text())
    return {(r["dataset"], r["scheme"]): r for r in saved["results"]}


def test_predictions_agree_with_results_json_and_scikit_learn(run):
    folder, config_path, _ = run
    points = pd.read_csv(folder / "predictions.csv")
    results = results_of(folder)
    assert list(points.columns) == ["dataset", "scheme", "repeat", "fold", "row", "true",
                                    "predicted", "p_0", "p_1", "p_2"]
    for (dataset, scheme), result in results.items():
        mine = points[(points.dataset == dataset) & (points.scheme == scheme)]
        assert len(mine) == result["n_test"] == {"iris": 45, "wine": 54}[dataset]
        assert int((mine.true != mine.predicted).sum()) == result["n_errors"]
    config = load_config(config_path)
    for dataset in ("iris", "wine"):
        loaded = data.load(dataset, progress=False)
        y = loaded.parts["all"][1]
        fold = scaled_folds(loaded, config.plan(dataset))[0]
        _, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=0)
        for scheme, wrap in SKLEARN.items():
            mine = points[(points.dataset == dataset) & (points.scheme == scheme)]
            assert list(mine.row) == sorted(test)  # row: the point's index in the dataset
            assert list(mine.true) == list(y[mine.row])
            params = results[(dataset, scheme)]["params"]
            svc = SVC(C=params["C"], gamma=1 / (2 * params["sigma"] ** 2))
            expected = wrap(svc).fit(fold.X_train, fold.y_train).predict(fold.X_test)
            assert list(mine.predicted) == list(expected)
        dag = points[(points.dataset == dataset) & (points.scheme == "dag")]
        proba = dag[["p_0", "p_1", "p_2"]].to_numpy()
        assert np.allclose(proba.sum(axis=1), 1)
        true_p = proba[np.arange(len(dag)), dag.true.to_numpy()]
        log_loss = -np.mean(np.log(np.clip(true_p, 1e-15, 1)))
        assert log_loss == pytest.approx(results[(dataset, "dag")]["log_loss"], rel=1e-12)
    # probabilities where the scheme gives them (DAGSVM's are its Max Wins machines': shared)
    for (dataset, scheme), result in results.items():
        mine = points[(points.dataset == dataset) & (points.scheme == scheme)]
        given = mine[["p_0", "p_1", "p_2"]].notna().all(axis=1)
        assert given.all() if scheme in ("dag", "maxwins") else not given.any()
        assert given.all() == (result.get("log_loss") is not None)


def html_tables(text, heading):
    """The tables after ``heading`` (an h3) up to the next heading, as lists of cell rows."""
    section = text.split(f"<h3>{heading}</h3>", 1)[1].split("<h", 1)[0]
    tables = re.findall(r"<table>(.*?)</table>", section, re.S)
    return [[re.findall(r"<t[hd]>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", t)]
            for t in tables]


def test_report_html_shows_the_best_schemes_confusion_matrix_and_every_recall(run):
    folder, _, _ = run
    points = pd.read_csv(folder / "predictions.csv")
    table = pd.read_csv(folder / "table.csv")
    text = (folder / "report.html").read_text()
    for dataset in ("iris", "wine"):
        ours = table[(table.dataset == dataset) & table.error_pct.notna()]
        best = ours.scheme.iloc[int(np.argmin(ours.error_pct.to_numpy()))]  # ties: the first
        confusion, recalls = html_tables(text, dataset)
        mine = points[(points.dataset == dataset) & (points.scheme == best)]
        expected = confusion_matrix(mine.true, mine.predicted, labels=[0, 1, 2])
        assert confusion[0] == ["true \\ predicted", "0", "1", "2"]
        assert np.array_equal([[int(c) for c in row[1:]] for row in confusion[1:]], expected)
        assert [row[0] for row in recalls[1:]] == ["1-v-r", "Max Wins", "DAGSVM", "NB"]
        for row, scheme in zip(recalls[1:], ("ovr", "maxwins", "dag", "nb")):
            mine = points[(points.dataset == dataset) & (points.scheme == scheme)]
            recall = recall_score(mine.true, mine.predicted, average=None, labels=[0, 1, 2])
            assert row[1:] == [f"{100 * r:.1f}" for r in recall]
    assert "Confusion matrix of the best scheme, " in text


def test_report_refuses_a_flipped_label_in_one_line(run, tmp_path, capsys):
    folder, _, _ = run
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    lines = (copy / "predictions.csv").read_text().splitlines(keepends=True)
    cells = lines[1].split(",")
    cells[6] = str((int(cells[6]) + 1) % 3)  # the first point's predicted label, flipped
    lines[1] = ",".join(cells)
    (copy / "predictions.csv").write_text("".join(lines))
    html = (copy / "report.html").read_bytes()
    with pytest.raises(SystemExit) as exited:
        main(["report", str(copy)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1, err
    assert "predictions.csv is malformed (its iris ovr rows (45, " in err
    assert "are not results.json's n_test 45, n_errors" in err and "rerun the config" in err
    assert (copy / "report.html").read_bytes() == html


@pytest.mark.parametrize("edit, message", [
    (lambda text: text.replace("iris,ovr,0,0,0,0,", "iris,ovr,0,0,3,0,", 1),
     "a test point (dataset, scheme, repeat, fold, row) has several rows"),
    (lambda text: text.replace("iris,ovr,0,0,0,0,", "iris,ovr,0,0,1,0,", 1),
     "a test point (dataset, repeat, fold, row) is not in every scheme's rows"),
    (lambda text: text.replace("dataset,scheme", "scheme,dataset", 1), "its columns are not"),
    (lambda text: text.replace("\niris,maxwins,0,0,0,0,0", "\niris,maxwins,0,0,0,1,1", 1),
     "a test point's true label differs between schemes"),
])
def test_report_refuses_other_edits(run, tmp_path, capsys, edit, message):
    folder, _, _ = run
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    path = copy / "predictions.csv"
    edited = edit(path.read_text())
    assert edited != path.read_text()
    path.write_text(edited)
    with pytest.raises(SystemExit) as exited:
        main(["report", str(copy)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1 and message in err, err


def test_a_cached_rerun_with_two_jobs_writes_the_same_file(run):
    folder, config, home = run
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MULTISVM_DATA_HOME", str(home / "data-home"))
        result = run_cli("reproduce-table", config, "--out", home / "out", "--quiet", "-j", "2")
    assert result.code == 0, result.err
    again = max((home / "out" / "points").glob("2*"))
    assert again != folder
    meta = json.loads((again / "run.json").read_text())
    assert meta["grid_points"]["cached"] == meta["grid_points"]["total"] > 0
    assert (again / "predictions.csv").read_bytes() == (folder / "predictions.csv").read_bytes()


def test_an_old_run_folder_without_predictions_opens_with_a_note(run, tmp_path):
    folder, _, _ = run
    copy = tmp_path / "old"
    shutil.copytree(folder, copy)
    (copy / "predictions.csv").unlink()
    saved = json.loads((copy / "results.json").read_text())
    del saved["test_points"]  # a run from before the file has no record of it either
    (copy / "results.json").write_text(json.dumps(saved, indent=2) + "\n")
    with pytest.raises(SystemExit) as exited:
        main(["report", str(copy)])
    assert exited.value.code == 0
    text = (copy / "report.html").read_text()
    assert "<h2>Per-class results</h2>" in text and "Confusion matrix" not in text
    assert OLD_FOLDER_NOTE.split(":")[0] in text
