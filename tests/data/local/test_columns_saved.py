"""`multisvm train` on a csv table with text and missing cells (examples/penguins.csv) saves the
column encoding fitted on its training part (no pickle); `predict` and `evaluate` encode a new
file exactly as scikit-learn's transformers fitted on those rows do, follow the saved missing
and unseen policies, and refuse a tampered encoding or a bad file in one line."""

import json

import numpy as np
import pytest

from helpers import CliResult, refused, run_cli
from model_files import edit_json
from multisvm_cli import data
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.models.metadata import load_trained_model
from multisvm_cli.experiment.splits import outer_index_folds, scaled_folds
from .test_columns import PENGUINS, reference

ROWS = PENGUINS.read_text().splitlines()
COMPLETE = [ROWS[0]] + [row for row in ROWS[1:] if "NA" not in row.split(",")]


def config_text(missing, unseen="refuse", drop=()):
    features = f"{{missing: {missing}, unseen: {unseen}, drop: [{', '.join(drop)}]}}"
    return (f"name: p\ndataset: [{{name: penguins, path: {PENGUINS}, label: species, "
            f"features: {features}}}]\nschemes: [ovr]\nkernels: [{{type: linear}}]\nC: [1]\n"
            "split: {test_fraction: 0.3, seed: 0}\n")


def trained(folder, missing, unseen="refuse", drop=()):
    """A 1-v-r model of penguins trained through the CLI (holdout 70/30); its config's path."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / f"p-{missing}-{unseen}.yaml"
    config.write_text(config_text(missing, unseen, drop))
    code, _, err = run_cli("train", config, "--scheme", "ovr", "-o", folder / "model",
                           "--out", folder / "results", "-q")
    assert code == 0, err
    return config


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """name -> (model folder, config path) for missing: drop, impute and unseen: zeros."""
    root = tmp_path_factory.mktemp("models")
    found = {}
    for name, options in {"drop": ("drop",), "impute": ("impute",),
                          "zeros": ("drop", "zeros")}.items():
        config = trained(root / name, *options)
        found[name] = (root / name / "model", config)
    return found


def predicted(model, path, *options) -> CliResult:
    return run_cli("predict", model, path, *options)


def labels_of(text):
    return [line.split(",")[1] for line in text.splitlines()[1:]]


def write_rows(path, rows):
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("missing", ["drop", "impute"])
def test_saved_encoding_predicts_as_scikit_learns_transformers_fitted_on_the_training_rows(
        models, tmp_path, missing):
    model, config = models[missing]
    plan = load_config(config).datasets[0]
    dataset = data.load_local(plan.local)
    saved = load_trained_model(model)
    table, transformer = reference(missing == "impute")
    train, _ = outer_index_folds(dataset.parts["all"][1], plan.split)[0]
    transformer.fit(table.iloc[train])
    # the saved categories and fill values are what scikit-learn learnt from the training rows
    one_hot = transformer.named_transformers_["categorical"]
    if missing == "impute":
        imputer = transformer.named_transformers_["numeric"]
        assert [saved.columns.fills[j] for j in saved.columns.numeric] == \
            imputer.statistics_.tolist()
        assert [saved.columns.fills[j] for j in saved.columns.categorical] == \
            one_hot.steps[0][1].statistics_.tolist()
        one_hot = one_hot.steps[-1][1]
    assert [list(c) for c in saved.columns.categories] == [c.tolist() for c in one_hot.categories_]
    # the file's rows (all 344 under impute, the 333 complete ones under drop), predicted
    file = PENGUINS if missing == "impute" else write_rows(tmp_path / "complete.csv", COMPLETE)
    # (reference() reads all 344 rows under impute, the 333 complete ones under drop)
    expected = saved.estimator.predict(saved.scaler.transform(transformer.transform(table)))
    result = predicted(model, file)
    assert result.code == 0, result.err
    assert labels_of(result.out) == expected.tolist()
    assert len(expected) == (344 if missing == "impute" else 333)
    assert "accuracy = " in result.err
    # the protocol's in-memory pipeline (the training fold's fitted transformer) agrees
    fold = scaled_folds(dataset, plan)[0]
    X = dataset.parts["all"][0]
    np.testing.assert_array_equal(saved.columns.encoded(X)[0], fold.columns.encoded(X)[0])
    assert saved.columns == fold.columns


def test_evaluate_encodes_the_models_own_test_part_and_a_labelled_file(models):
    model, _ = models["impute"]
    own = run_cli("evaluate", model)
    assert own.code == 0 and "data: penguins test, 104 points" in own.out, own
    filed = run_cli("evaluate", model, "--dataset", PENGUINS)
    assert filed.code == 0 and "344 points" in filed.out, filed


def test_a_missing_cell_follows_the_saved_policy(models, tmp_path):
    line = refused(predicted(models["drop"][0], PENGUINS), f"{PENGUINS}:5: bill_length_mm is "
                   "missing; the model was trained with missing: drop", "remove the row")
    assert "impute" in line
    one = write_rows(tmp_path / "one.csv", [ROWS[0], ROWS[4]])  # every feature but two NA
    found = predicted(models["impute"][0], one)
    assert found.code == 0 and len(labels_of(found.out)) == 1, found


def test_an_unseen_category_is_refused_or_zeros_as_saved(models, tmp_path):
    rows = list(COMPLETE)
    rows[3] = rows[3].replace("Torgersen", "Atlantis")
    path = write_rows(tmp_path / "atlantis.csv", rows)
    refused(predicted(models["drop"][0], path), f"{path}:4: island 'Atlantis' is a category "
            "the model's training part never had", "unseen: refuse", "--unseen zeros")
    with pytest.warns(UserWarning, match=r"1 row\(s\) hold categories .*island 'Atlantis', "
                      r"line 4\): all-zero one-hot columns"):
        found = predicted(models["zeros"][0], path)
    assert found.code == 0, found.err
    saved = load_trained_model(models["zeros"][0])
    cells = np.array([r.split(",") for r in rows[1:]], dtype=object)
    X = cells[:, 1:].copy()
    for j in range(X.shape[1]):
        if j not in saved.columns.categorical:
            X[:, j] = X[:, j].astype(float)
    encoded = saved.columns.encoded(X)[0]
    assert encoded[2, 5:8].tolist() == [0.0, 0.0, 0.0]  # island's one-hot columns: all zero
    expected = saved.estimator.predict(saved.scaler.transform(encoded))
    assert labels_of(found.out) == expected.tolist()


def test_dropped_columns_may_be_in_the_file_or_not(tmp_path):
    trained(tmp_path, "drop", drop=("year", "island"))
    model = tmp_path / "model"
    with_them = predicted(model, write_rows(tmp_path / "all.csv", COMPLETE))
    assert with_them.code == 0, with_them.err
    header = COMPLETE[0].split(",")
    keep = [j for j, name in enumerate(header) if name not in ("year", "island")]
    without = write_rows(tmp_path / "some.csv", [",".join(row.split(",")[j] for j in keep)
                                                 for row in COMPLETE])
    found = predicted(model, without)
    assert found.code == 0 and found.out == with_them.out, found.err


@pytest.mark.parametrize("change, fragment", [
    (lambda e: e["columns"][0]["categories"].append("Zzz"), "makes 11 features, the model takes 10"),
    (lambda e: e["columns"][0]["categories"].reverse(), "categories must be distinct texts in "
                                                         "sorted order"),
    (lambda e: e["columns"][1].update(kind="text"), "encoding.columns[1] must hold exactly"),
    (lambda e: e["columns"][1].update(fill="median"), "fill must be a finite number"),
    (lambda e: e["columns"][5].update(fill="unknown"), "fill must be one of its categories"),
    (lambda e: e.update(unseen="zeros"), "are not local.entry.features'"),
    (lambda e: e["columns"][2].update(name="bill"), "its column names are not local.columns"),
    (lambda e: e.pop("dropped"), "encoding must hold exactly columns, dropped, missing, unseen"),
])
def test_a_tampered_encoding_is_refused_in_one_line(models, tmp_path, change, fragment):
    import shutil

    model = tmp_path / "model"
    shutil.copytree(models["impute"][0], model)
    edit_json(model, lambda document: change(document["metadata"]["encoding"]))
    line = refused(predicted(model, PENGUINS), fragment)
    assert "train the model again" in line


def test_an_encoding_edited_without_resealing_is_refused(models, tmp_path):
    import shutil

    model = tmp_path / "model"
    shutil.copytree(models["drop"][0], model)
    edit_json(model, lambda d: d["metadata"]["encoding"].update(unseen="zeros"), seal=False)
    refused(predicted(model, PENGUINS), "changed after saving")


def test_bad_files_are_refused_in_one_line(models, tmp_path):
    model = models["impute"][0]
    header = ROWS[0].split(",")
    no_sex = write_rows(tmp_path / "no-sex.csv", [",".join(c for j, c in enumerate(
        row.split(",")) if header[j] != "sex") for row in ROWS[:5]])
    refused(predicted(model, no_sex), "6 feature columns, but the model takes 7 (island, ")
    word = write_rows(tmp_path / "word.csv", [ROWS[0], ROWS[1].replace("39.1", "long")])
    refused(predicted(model, word), f"{word}:2:", "'long' is not a number")
    moved = ROWS[0].split(",")
    moved[2], moved[3] = moved[3], moved[2]
    swapped = write_rows(tmp_path / "swapped.csv", [",".join(moved), ROWS[1]])
    refused(predicted(model, swapped), "feature column 1 is 'bill_depth_mm'")
    svm = tmp_path / "points.svm"
    svm.write_text("1 1:0.5 2:1\n")
    refused(predicted(model, svm), "a svmlight file, but the model was trained on a csv table")
    refused(predicted(model, PENGUINS, "--label", "island"),
            "feature column 0 is 'species', the model's is 'island'")


def test_a_model_saved_without_an_encoding_loads_with_plain_numeric_columns(tmp_path):
    path = write_rows(tmp_path / "n.csv", ["a,b,label"] + [f"{i},{i % 3},{'xy'[i % 2]}"
                                                           for i in range(20)])
    config = tmp_path / "n.yaml"
    config.write_text(f"name: n\ndataset: [{{name: n, path: {path}, label: label}}]\n"
                      "schemes: [ovr]\nkernels: [{type: linear}]\nC: [1]\n"
                      "split: {test_fraction: 0.3, seed: 0}\n")
    code, _, err = run_cli("train", config, "--scheme", "ovr", "-o", tmp_path / "m", "--out",
                           tmp_path / "results", "-q")
    assert code == 0, err
    assert "encoding" not in json.loads((tmp_path / "m" / "model.json").read_text())["metadata"]
    assert load_trained_model(tmp_path / "m").columns is None
