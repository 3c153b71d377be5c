"""Imbalanced classes through a run (issue 55 item 5): ``class_weight`` in a config, refused in
one line where it cannot apply; the balanced accuracy and macro F1 columns equal
sklearn.metrics on the run's own predictions; the Answer ranks by balanced accuracy where they
are shown; the resume cache and the model file keep the weights apart."""

import csv
import json

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, f1_score

GLASS = """name: glass-weights
dataset: glass
scaling: paper
split: {{test_fraction: 0.3, seed: 0}}
kernels:
  - {{type: gaussian, sigma: [1]}}
C: [1, 100]
schemes: [ovr, maxwins, dag]
scheme_options: {options}
{extra}"""
BALANCED = "{ovr: {class_weight: balanced}, maxwins: {class_weight: balanced}, " \
           "dag: {class_weight: balanced}}"


def write(tmp_path, options=BALANCED, extra="", name="glass.yaml"):
    path = tmp_path / name
    path.write_text(GLASS.format(options=options, extra=extra))
    return path


def run(run_multisvm, config, out):
    result = run_multisvm("reproduce-table", config, "--out", out, "-q", "--no-figures")
    assert result.code == 0, result.err
    return result


def rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("options, words", [
    ("{cs: {class_weight: balanced}}",
     "scheme_options.cs.class_weight: C&S has no class weights; class_weight applies to ovr, "),
    ("{dag: {class_weight: balanced}}",
     "DAGSVM reads the machines of Max Wins, so both take one class_weight (DAGSVM: balanced, "
     "Max Wins: none); give both the same"),
    ("{ovr: {class_weight: {9: 2}}}", "class_weight names the label 9, which is no class of "
                                      "the data"),
    ("{ovr: {class_weight: {1: 0}}}", "class_weight weight of 1 must be a finite number > 0"),
])
def test_validate_refuses_a_class_weight_in_one_line(tmp_path, run_multisvm, mirror, options,
                                                     words):
    config = write(tmp_path, options).read_text().replace("[ovr, maxwins, dag]",
                                                           "[ovr, maxwins, dag, cs]")
    (tmp_path / "glass.yaml").write_text(config)
    result = run_multisvm("validate", tmp_path / "glass.yaml", "--mirror", mirror)
    assert result.code == 2
    assert words in result.err
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err


def test_validate_refuses_a_bad_balanced_metrics(tmp_path, run_multisvm, mirror):
    result = run_multisvm("validate", write(tmp_path, extra="balanced_metrics: sometimes\n"),
                          "--mirror", mirror)
    assert result.code == 2 and "balanced_metrics: expected auto, true or false" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_balanced_columns_are_sklearn_metrics_and_the_answer_ranks_by_them(
        tmp_path, run_multisvm, mirror, monkeypatch):
    monkeypatch.setenv("MULTISVM_MIRROR", str(mirror))
    result = run(run_multisvm, write(tmp_path), tmp_path / "out")
    folder = tmp_path / "out" / "glass-weights" / "latest"
    table, points = rows(folder / "table.csv"), rows(folder / "predictions.csv")
    for row in table:
        mine = [p for p in points if p["scheme"] == row["scheme"]]
        truth, predicted = [p["true"] for p in mine], [p["predicted"] for p in mine]
        assert float(row["balanced_accuracy"]) == pytest.approx(
            balanced_accuracy_score(truth, predicted), abs=1e-15)
        assert float(row["macro_f1"]) == pytest.approx(
            f1_score(truth, predicted, average="macro", zero_division=0), abs=1e-15)
    best = max(table, key=lambda r: float(r["balanced_accuracy"]))
    assert "bal acc" in result.out and "macro F1" in result.out
    from multisvm_cli.report.run_folder import read_results, read_table
    from multisvm_cli.report.summary import answer_record, answer_text

    saved = read_results(folder)
    _, table_rows = read_table(folder, saved)
    text = answer_text(saved, table_rows)
    assert text.startswith("glass: best by balanced accuracy ")
    assert f"{float(best['balanced_accuracy']):.3f} (error {float(best['error_pct']):.2f}%)" in text
    record = answer_record(saved, table_rows)
    assert record["ranked_by"] == {"key": "balanced_accuracy", "title": "bal acc",
                                   "order": "highest first"}


def test_balanced_columns_off_and_on_request(tmp_path, run_multisvm, mirror, monkeypatch):
    monkeypatch.setenv("MULTISVM_MIRROR", str(mirror))
    run(run_multisvm, write(tmp_path, extra="balanced_metrics: false\n"), tmp_path / "off")
    header = rows(tmp_path / "off" / "glass-weights" / "latest" / "table.csv")[0]
    assert "balanced_accuracy" not in header and "macro_f1" not in header
    iris = (tmp_path / "iris.yaml")  # iris: balanced classes, shown only when asked
    iris.write_text("name: iris-on\ndataset: iris\nsplit: {test_fraction: 0.3, seed: 0}\n"
                    "kernels:\n  - {type: gaussian, sigma: [1]}\nC: [1]\nschemes: [ovr]\n"
                    "balanced_metrics: true\n")
    run(run_multisvm, iris, tmp_path / "on")
    row, = rows(tmp_path / "on" / "iris-on" / "latest" / "table.csv")
    assert 0 < float(row["balanced_accuracy"]) <= 1 and 0 < float(row["macro_f1"]) <= 1


def test_a_changed_class_weight_never_reuses_a_cached_fit(tmp_path, run_multisvm, mirror,
                                                          monkeypatch):
    monkeypatch.setenv("MULTISVM_MIRROR", str(mirror))
    out, cache = tmp_path / "out", tmp_path / "out" / "glass-weights" / "cache"
    run(run_multisvm, write(tmp_path), out)
    first = len(list(cache.iterdir()))
    run(run_multisvm, write(tmp_path), out)  # the same config: every point from the cache
    assert len(list(cache.iterdir())) == first
    heavier = BALANCED.replace("balanced", "{1: 3}")
    run(run_multisvm, write(tmp_path, heavier), out)  # other weights: computed afresh
    assert len(list(cache.iterdir())) == 2 * first


def test_the_model_file_keeps_the_class_weight(tmp_path, run_multisvm, mirror):
    config = write(tmp_path, "{maxwins: {class_weight: {1: 3, 7: 2}}, "
                             "dag: {class_weight: {1: 3, 7: 2}}}")
    model = tmp_path / "model"
    result = run_multisvm("train", config, "--scheme", "maxwins", "-o", model, "--mirror", mirror)
    assert result.code == 0, result.err
    params = json.loads((model / "model.json").read_text())["params"]
    assert params["class_weight"] == {"1": 3, "7": 2}
    from multisvm_cli.persist import load_model

    loaded = load_model(model).estimator
    assert loaded.class_weight == {"1": 3, "7": 2}
    assert np.isfinite(loaded.decision_function(np.zeros((1, loaded.n_features_in_)))).all()
