"""`multisvm predict MODEL FILE`: a model trained through the CLI predicts a user's csv, svmlight
and npz files exactly as its estimator predicts the same rows scaled by its saved scaler, and a
file whose columns are not the model's, a missing or malformed file, a folder that is not a
model, an existing -o file and --proba without probabilities are refused with one line."""

import csv
import importlib
import io

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_iris, load_wine

from model_files import edit_json  # rewrites the manifest: the checks behind it must refuse
from multisvm_cli.experiment.models.metadata import load_trained_model
from helpers import refused
from .saved_models import IRIS_NAMES, SPECIES, expected_labels, train_local_iris


@pytest.fixture
def wine_model(tmp_path, run_multisvm, data_home):
    """A DAGSVM model of the quickstart config's wine, trained through the CLI."""
    model = tmp_path / "wine-dag"
    code, said, err = run_multisvm("train", "quickstart", "--scheme", "dag", "--dataset", "wine",
                                   "-o", model, "--out", tmp_path / "results", "-q")
    assert code == 0, err
    return model


def predictions(text):
    """The (row, label) columns of predict's csv."""
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["row", "label"]
    assert [int(r[0]) for r in rows[1:]] == list(range(len(rows) - 1))
    return [r[1] for r in rows[1:]]


def test_csv_svmlight_and_npz_equal_the_estimators_own_predictions(wine_model, tmp_path,
                                                                  run_multisvm):
    X, y = load_wine(return_X_y=True)
    expected = expected_labels(wine_model, X)
    # the model is no constant: it tells the three cultivars apart on these rows
    assert set(expected.tolist()) == {0, 1, 2} and np.mean(expected == y) > 0.9
    np.savetxt(tmp_path / "wine.csv", X, delimiter=",", fmt="%.17g")
    np.savetxt(tmp_path / "labelled.csv", np.column_stack([X, y]), delimiter=",", fmt="%.17g")
    dump_svmlight_file(X, y, str(tmp_path / "wine.svm"), zero_based=False)
    dump_svmlight_file(X, y, str(tmp_path / "zero.libsvm"), zero_based=True)
    np.savez(tmp_path / "wine.npz", X=X)
    runs = {"wine.csv": (), "labelled.csv": (), "wine.svm": (), "wine.npz": (),
            "zero.libsvm": ("--zero-based",)}
    for name, options in runs.items():
        code, out, err = run_multisvm("predict", wine_model, tmp_path / name, *options)
        assert code == 0, err
        assert predictions(out) == [str(label) for label in expected], name
    # unscaled rows would not give these labels: the saved scaler was applied
    loaded = load_trained_model(wine_model)
    assert not np.array_equal(loaded.estimator.predict(X), expected)


def test_blocks_of_rows_give_the_same_predictions(wine_model, tmp_path, run_multisvm,
                                                   monkeypatch):
    """Predicted 7 rows at a time (a sparse file densified a block at a time for the model's
    centering scaler), the 178 rows get the labels of one block."""
    predict = importlib.import_module("multisvm_cli.experiment.models.predict")  # the module

    X, y = load_wine(return_X_y=True)
    assert load_trained_model(wine_model).scaler.method in predict.CENTERING
    dump_svmlight_file(X, y, str(tmp_path / "wine.svm"), zero_based=False)
    monkeypatch.setattr(predict, "CHUNK_ROWS", 7)
    code, out, err = run_multisvm("predict", wine_model, tmp_path / "wine.svm")
    assert code == 0, err
    assert predictions(out) == [str(v) for v in expected_labels(wine_model, X)]


def test_output_file_written_once_and_replaced_only_with_force(wine_model, tmp_path,
                                                               run_multisvm):
    X, _ = load_wine(return_X_y=True)
    np.savez(tmp_path / "some.npz", X=X[:7], y=np.arange(7))
    out = tmp_path / "out" / "predicted.csv"
    code, said, err = run_multisvm("predict", wine_model, tmp_path / "some.npz", "-o", out)
    assert code == 0 and said == "", err
    assert predictions(out.read_text()) == [str(v) for v in expected_labels(wine_model, X[:7])]
    assert "7 predictions" in err and str(out) in err
    out.write_text("mine\n")
    refused(run_multisvm("predict", wine_model, tmp_path / "some.npz", "-o", out),
            str(out), "already exists", "--force")
    assert out.read_text() == "mine\n"
    code, _, err = run_multisvm("predict", wine_model, tmp_path / "some.npz", "-o", out, "--force")
    assert code == 0, err
    assert len(predictions(out.read_text())) == 7
    assert [p.name for p in out.parent.iterdir()] == ["predicted.csv"]  # no temporary left


def test_refusals_write_nothing(wine_model, tmp_path, run_multisvm):
    X, y = load_wine(return_X_y=True)
    out = tmp_path / "never.csv"
    np.savetxt(tmp_path / "narrow.csv", X[:, :5], delimiter=",")
    np.savetxt(tmp_path / "wide.csv", np.column_stack([X, y, y]), delimiter=",")
    np.savez(tmp_path / "narrow.npz", X=X[:, :12])
    np.savez(tmp_path / "empty.npz", X=X[:0])
    (tmp_path / "garbage.npz").write_bytes(b"not a zip file")
    (tmp_path / "garbage.svm").write_text("1 1:0.5 2:0.25\n2 3:x\n")
    np.savez(tmp_path / "objects.npz", X=X.astype(object))
    dump_svmlight_file(np.column_stack([X, X[:, :1]]), y, str(tmp_path / "wide.svm"),
                       zero_based=False)
    (tmp_path / "bad.csv").write_text("1,2,3,4,5,6,7,8,9,10,11,12,13\n1,2,3,four,5,6,7,8,9,10,"
                                      "11,12,13\n")
    (tmp_path / "texts" / "a").mkdir(parents=True)
    (tmp_path / "texts" / "a" / "doc.txt").write_text("words")
    (tmp_path / "notes.txt").write_text("1 2\n")  # neither csv nor svmlight
    cases = {
        ("narrow.csv",): ("narrow.csv:1:", "5 columns", "takes 13 features"),
        ("wide.csv",): ("wide.csv:1:", "15 columns", "13 feature columns (or 14 with the label"),
        ("narrow.npz",): ("narrow.npz", "X has 12 columns", "13 features"),
        ("wide.svm",): ("wide.svm:1:", "index 14 is past the 13 features"),
        ("empty.npz",): ("empty.npz: X has no rows",),
        ("garbage.npz",): ("garbage.npz", "not a readable .npz"),
        ("garbage.svm",): ("garbage.svm:2:",),
        ("objects.npz",): ("objects.npz", "never unpickled"),
        ("bad.csv",): ("bad.csv:2:", "column 3", "'four' is not a number"),
        ("missing.csv",): ("missing.csv: file not found",),
        ("texts",): ("is a folder", "trained on documents", "13 numeric features"),
        ("notes.txt",): ("cannot tell the format of notes.txt", "--input-format csv"),
        ("narrow.csv", "--proba"): ("DAGSVM model gives no class probabilities", "--proba"),
    }
    for (name, *options), fragments in cases.items():
        refused(run_multisvm("predict", wine_model, tmp_path / name, "-o", out, *options),
                *fragments)
        assert not out.exists()
    refused(run_multisvm("predict", tmp_path / "texts", tmp_path / "narrow.csv"),
            "not a saved model")


def test_header_names_are_checked_against_the_models(tmp_path, run_multisvm, write_config):
    """A model trained on a local csv with a header keeps its feature names: a file with the
    same names (with or without the label column) is predicted, one with other names refused."""
    X = load_iris(return_X_y=True)[0]
    model = train_local_iris(tmp_path, run_multisvm, write_config)
    assert load_trained_model(model).metadata["local"]["columns"] == IRIS_NAMES
    expected = [str(v) for v in expected_labels(model, X)]
    assert set(expected) == set(SPECIES)
    np.savetxt(tmp_path / "new.csv", X, delimiter=",", fmt="%.17g", header=",".join(IRIS_NAMES),
               comments="")
    for name in ("new.csv", "iris.csv"):  # the training file itself: its label column dropped
        code, out, err = run_multisvm("predict", model, tmp_path / name)
        assert code == 0, err
        assert predictions(out) == expected, name
    swapped = [IRIS_NAMES[1], IRIS_NAMES[0], *IRIS_NAMES[2:]]
    np.savetxt(tmp_path / "swapped.csv", X, delimiter=",", header=",".join(swapped), comments="")
    refused(run_multisvm("predict", model, tmp_path / "swapped.csv"),
            "swapped.csv:1:", "feature column 0 is 'sepal_width', the model's is 'sepal_length'")
    np.savetxt(tmp_path / "plain.csv", X, delimiter=",", fmt="%.17g")  # no header: count only
    code, out, err = run_multisvm("predict", model, tmp_path / "plain.csv")
    assert code == 0 and predictions(out) == expected, err

    def names(value):
        return lambda document: document["metadata"]["local"].__setitem__("columns", value)

    edit_json(model, names(IRIS_NAMES[:3]))  # consistent JSON, but 3 names for 4 features
    refused(run_multisvm("predict", model, tmp_path / "new.csv"),
            "local.columns names 3 columns, the model takes 4 features")
    edit_json(model, names("sepal_length"))
    refused(run_multisvm("predict", model, tmp_path / "new.csv"),
            "local.columns must be the csv header's feature names")


def test_header_names_do_not_change_the_resume_cache_key(tmp_path):
    """The names a local csv's header gives are kept (for predict) but are not part of what
    identifies its cached grid points: the file's checksum already covers them."""
    from multisvm_cli import data
    from multisvm_cli.data.local.files import cache_identity

    rows = "1,2,a\n3,4,b\n5,6,a\n7,8,b\n"
    (tmp_path / "named.csv").write_text("x,y,label\n" + rows)
    named = data.load_local(data.LocalSpec("d", tmp_path / "named.csv", "csv",
                                           options={"label": "label"}))
    assert named.provenance["columns"] == ["x", "y"]
    assert "columns" not in cache_identity(named)
    (tmp_path / "plain.csv").write_text(rows)
    plain = data.load_local(data.LocalSpec("d", tmp_path / "plain.csv", "csv"))
    assert "columns" not in plain.provenance
    assert {k: v for k, v in cache_identity(named).items() if k not in ("files", "label",
                                                                         "header")} == \
        {k: v for k, v in cache_identity(plain).items() if k not in ("files", "label", "header")}
    np.testing.assert_array_equal(named.parts["all"][0], plain.parts["all"][0])


def test_proba_gives_the_models_own_probabilities(tmp_path, run_multisvm, data_home):
    """A scheme run with probability: true (Max Wins' coupled sigmoids) writes one column per
    class, each row the estimator's own predict_proba of the scaled row."""
    config = tmp_path / "prob.yaml"
    config.write_text("dataset: wine\nsplit: {test_fraction: 0.3}\nkernels: [{type: gaussian, "
                      "sigma: 3}]\nC: 1\nschemes: [maxwins]\n"
                      "scheme_options: {maxwins: {probability: true}}\n")
    model = tmp_path / "model"
    assert run_multisvm("train", config, "--scheme", "maxwins", "-o", model, "--out",
                        tmp_path / "results", "-q").code == 0
    X = load_wine(return_X_y=True)[0][:7]
    np.savez(tmp_path / "w.npz", X=X)
    run = run_multisvm("predict", model, tmp_path / "w.npz", "--proba")
    assert run.code == 0, run.err
    rows = list(csv.reader(io.StringIO(run.out)))
    loaded = load_trained_model(model)
    assert rows[0] == ["row", "label"] + [f"p_{c}" for c in loaded.estimator.classes_]
    expected = loaded.estimator.predict_proba(loaded.scaler.transform(X))
    got = np.array([[float(v) for v in r[2:]] for r in rows[1:]])
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert np.allclose(got.sum(axis=1), 1, atol=1e-5)
