"""A user's own scikit-learn classifier as a row of the table (issue 29, item 3)."""

import csv
import json

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.multiclass import OutputCodeClassifier
from sklearn.svm import SVC, LinearSVC

from multisvm_cli.estimators.own import OwnClassifier

CONFIG = """\
name: own-rows
dataset: [iris, wine]
split: {test_fraction: 0.3, seed: 0}
kernels: [{type: gaussian, sigma: [1, 3]}]
C: [1, 10]
schemes:
  - maxwins
  - {scheme: "sklearn.svm:LinearSVC", label: LinearSVC, options: {C: 0.5}}
  - scheme: "sklearn.multiclass:OutputCodeClassifier"
    label: SkOutputCode
    options: {estimator: {scheme: "sklearn.svm:SVC", options: {gamma: 0.1}}, code_size: 2}
"""


def test_own_classifier_predicts_as_the_class_itself():
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    ours = OwnClassifier(target="sklearn.multiclass:OutputCodeClassifier", random_state=3,
                         options={"estimator": {"scheme": "sklearn.svm:SVC"}, "code_size": 2}).fit(X, y)
    theirs = OutputCodeClassifier(SVC(), code_size=2, random_state=3).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    linear = OwnClassifier(target="sklearn.svm:LinearSVC", options={"C": 0.5}).fit(X, y)
    np.testing.assert_allclose(linear.decision_function(X),
                               LinearSVC(C=0.5, random_state=None).fit(X, y).decision_function(X))
    assert linear.n_parameters_ is None and linear.kernel_evaluations(X) is None
    assert linear.smo_iterations_ is None and linear.fit_cpu_time_ >= 0


@pytest.mark.slow
def test_rows_run_end_to_end_with_blank_figures(tmp_path, mirror, data_home, run_multisvm):
    config = tmp_path / "own.yaml"
    config.write_text(CONFIG)
    run = run_multisvm("reproduce-table", config, "--out", tmp_path / "results", "-q",
                       "--format", "json")
    assert run.code == 0, run.err
    rows = {(r["dataset"], r["scheme"]): r for r in json.loads(run.out)}
    assert set(rows) == {(d, s) for d in ("iris", "wine")
                         for s in ("maxwins", "own:LinearSVC", "own:SkOutputCode")}
    for dataset in ("iris", "wine"):
        own = rows[dataset, "own:LinearSVC"]
        assert own["kernel_evaluations"] is None and own["size_k"] is None
        assert own["smo_iterations"] is None and own["cpu_time"] >= 0
        assert own["kernel"] == "-" and own["mcnemar_p"] is not None  # compared with Max Wins
        assert rows[dataset, "maxwins"]["kernel_evaluations"] > 0
    folder = tmp_path / "results" / "own-rows" / "latest"
    with open(folder / "table.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    linear = next(r for r in table if r["scheme"] == "own:LinearSVC" and r["dataset"] == "iris")
    assert linear["kernel_evaluations"] == "" and linear["size_k"] == ""  # blank, never 0
    html = (folder / "report.html").read_text()
    assert "LinearSVC" in html and "SkOutputCode" in html
    # the resolved config names the rows again and replays to the same errors
    rerun = run_multisvm("reproduce-table", folder / "config.yaml", "--out", tmp_path / "again",
                         "-q", "--format", "json", "--no-figures")
    assert rerun.code == 0, rerun.err
    again = {(r["dataset"], r["scheme"]): r["error_pct"] for r in json.loads(rerun.out)}
    assert again == {key: row["error_pct"] for key, row in rows.items()}


@pytest.mark.parametrize("target, message", [
    ("sklearn.linear_model:Ridge", "is not a scikit-learn classifier"),
    ("os:getcwd", "is not a scikit-learn estimator class"),
    ("../my_model.py:Model", "no file paths"),
    ("no_such_package.models:Model", "cannot be imported"),
])
def test_a_row_that_is_not_an_installed_classifier_is_refused_in_one_line(
        tmp_path, run_multisvm, target, message):
    config = tmp_path / "bad.yaml"
    config.write_text(CONFIG.replace("sklearn.svm:LinearSVC", target).replace("{C: 0.5}", "{}"))
    for command in ("validate", "reproduce-table"):
        run = run_multisvm(command, config, "--out", tmp_path / "results") if command != "validate" \
            else run_multisvm(command, config)
        assert run.code == 2 and message in run.err and len(run.err.strip().splitlines()) == 1
        assert "schemes[1].scheme" in run.err
    assert not (tmp_path / "results").exists()  # refused before any run folder


def test_an_unknown_option_or_a_clashing_label_is_refused(tmp_path, run_multisvm):
    config = tmp_path / "bad.yaml"
    config.write_text(CONFIG.replace("{C: 0.5}", "{kernel: rbf}"))
    run = run_multisvm("validate", config)
    assert run.code == 2 and "sklearn.svm:LinearSVC has no parameter 'kernel'" in run.err
    config.write_text(CONFIG.replace("label: LinearSVC", "label: Max Wins"))
    run = run_multisvm("validate", config)
    assert run.code == 2 and "'Max Wins' names a multisvm scheme" in run.err


def test_a_users_classifier_is_never_saved_as_a_model(tmp_path, mirror, data_home, run_multisvm):
    config = tmp_path / "own.yaml"
    config.write_text(CONFIG)
    run = run_multisvm("train", config, "--scheme", "LinearSVC", "--dataset", "iris",
                       "-o", tmp_path / "model")
    assert run.code == 2 and "writes no pickles" in run.err
    assert not (tmp_path / "model").exists()


def test_a_cached_point_of_a_users_classifier_keeps_its_figures_blank():
    from multisvm_cli.experiment.protocol import check_point_result

    entry = {"n_errors": 1, "n_validation": 10, "validation_error": 0.1, "fit_cpu": 0.1,
             "fit_wall": 0.1, "predict_wall": 0.01, "n_support_vectors": None,
             "kernel_evaluations": None, "size": None, "notes": []}
    check_point_result(entry, 10, figures=False)
    with pytest.raises(ValueError, match="n_support_vectors must be a finite number"):
        check_point_result(entry, 10)  # a scheme of ours must have its figures
    with pytest.raises(ValueError, match="size must be null"):
        check_point_result({**entry, "size": 0.0}, 10, figures=False)
