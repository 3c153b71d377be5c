"""Labelled files scored: `multisvm predict MODEL FILE` prints on stderr the accuracy against the
file's labels (a csv label column: the model's or --label's; svmlight labels; an npz y), with
--confusion the confusion matrix, rows of labels the model never saw counted as errors and
named; `multisvm evaluate MODEL --dataset FILE` gives the whole evaluate report on the file.
Every number is computed again here with scikit-learn from the model's own estimator."""

import re

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_iris, load_wine
from sklearn.metrics import accuracy_score, confusion_matrix

from helpers import refused
from .saved_models import IRIS_NAMES, SPECIES, expected_labels, train_local_iris


def accuracy_line(truth, predicted, unseen=0):
    """The line predict should print, computed with scikit-learn."""
    n = len(truth)
    right = int(round(accuracy_score(np.asarray(truth).astype(str),
                                     np.asarray(predicted).astype(str)) * n))
    note = (f"; {unseen} rows have labels the model was not trained on, counted as errors"
            if unseen else "")
    return (f"accuracy = {100 * right / n:.2f}% ({right}/{n}), "
            f"error = {100 * (n - right) / n:.2f}%, n = {n}{note}")


def printed_matrix(err):
    """The confusion matrix printed on stderr: (column names, rows of counts)."""
    lines = err.splitlines()
    start = lines.index("confusion matrix (rows: true class, columns: predicted class):")
    header, body = lines[start + 1].split(), lines[start + 3:]
    return header, [[int(v) for v in row.split()[1:]] for row in body if row.strip()]


@pytest.fixture
def iris_model(tmp_path, run_multisvm, write_config):
    """A DAGSVM model trained on a local iris csv whose label column is ``species`` (first)."""
    return train_local_iris(tmp_path, run_multisvm, write_config)


def relabelled(y):
    """Iris labels with every 7th row moved to the next species: some predictions are wrong."""
    labels = SPECIES[y].copy()
    labels[::7] = SPECIES[(y[::7] + 1) % 3]
    return labels


def test_a_labelled_csv_gets_the_accuracy_line_and_the_confusion_matrix(iris_model, tmp_path,
                                                                        run_multisvm):
    X, y = load_iris(return_X_y=True)
    truth, predicted = relabelled(y), expected_labels(iris_model, X)
    assert 0.7 < accuracy_score(truth, predicted) < 0.95  # neither all right nor all wrong
    np.savetxt(tmp_path / "scored.csv", np.column_stack([truth, X.astype(str)]), delimiter=",",
               fmt="%s", header=",".join(["species", *IRIS_NAMES]), comments="")
    code, out, err = run_multisvm("predict", iris_model, tmp_path / "scored.csv", "--confusion")
    assert code == 0, err
    assert out.splitlines()[1:] == [f"{i},{p}" for i, p in enumerate(predicted)]
    assert err.splitlines()[0] == accuracy_line(truth, predicted)
    names, matrix = printed_matrix(err)
    assert names == SPECIES.tolist()
    assert matrix == confusion_matrix(truth, predicted, labels=SPECIES).tolist()
    # the same rows as an npz with y, and without labels: no line at all
    np.savez(tmp_path / "scored.npz", X=X, y=truth)
    code, _, err = run_multisvm("predict", iris_model, tmp_path / "scored.npz")
    assert code == 0 and err.strip() == accuracy_line(truth, predicted), err
    np.savetxt(tmp_path / "plain.csv", X, delimiter=",", fmt="%.17g")
    code, out, err = run_multisvm("predict", iris_model, tmp_path / "plain.csv")
    assert code == 0 and err == "" and len(out.splitlines()) == 151, err


def test_label_by_name_or_index_and_unseen_labels_counted_wrong(iris_model, tmp_path,
                                                                run_multisvm):
    X, y = load_iris(return_X_y=True)
    truth, predicted = relabelled(y), expected_labels(iris_model, X)
    truth[[3, 60, 120]] = "iris-nova"  # a class the model never saw: 3 rows, each wrong
    table = np.column_stack([X[:, :2].astype(str), truth, X[:, 2:].astype(str)])
    np.savetxt(tmp_path / "middle.csv", table, delimiter=",", fmt="%s",
               header=",".join([*IRIS_NAMES[:2], "truth", *IRIS_NAMES[2:]]), comments="")
    np.savetxt(tmp_path / "bare.csv", table, delimiter=",", fmt="%s")  # no header: by index
    expected = accuracy_line(truth, predicted, unseen=3)
    right = int(np.sum(truth == predicted))
    for name, label in (("middle.csv", "truth"), ("bare.csv", "2")):
        code, _, err = run_multisvm("predict", iris_model, tmp_path / name, "--label", label,
                                    "-o", tmp_path / f"{name}.out")
        assert code == 0, err
        assert err.splitlines()[1] == expected, name
    # evaluate reads the model's own label column (species), and warns of the unseen rows
    np.savetxt(tmp_path / "own.csv", np.column_stack([truth, X.astype(str)]), delimiter=",",
               fmt="%s", header=",".join(["species", *IRIS_NAMES]), comments="")
    unseen = (f"3 rows of {tmp_path / 'own.csv'} have labels the model was not trained on "
              f"(iris-nova); each is counted as an error")
    with pytest.warns(UserWarning, match=re.escape(unseen)):
        code, said, err = run_multisvm("evaluate", iris_model, "--dataset", tmp_path / "own.csv")
    assert code == 0, err
    assert f"error rate: {100 * (150 - right) / 150:.2f}% ({150 - right} errors)" in said
    code, _, err = run_multisvm("predict", iris_model, tmp_path / "bare.csv", "--label", "2",
                                "--confusion")
    # the unseen rows are in no row of the matrix: 147 points counted
    seen = truth != "iris-nova"
    assert printed_matrix(err)[1] == confusion_matrix(truth[seen], predicted[seen],
                                                      labels=SPECIES).tolist()


def test_svmlight_labels_are_scored_and_evaluate_takes_a_file(tmp_path, run_multisvm,
                                                              data_home):
    """A wine model (whole-number classes): an svmlight file's labels are scored; evaluate on
    the file gives the report evaluate gives on the registry's rows of wine (part all)."""
    model = tmp_path / "wine-dag"
    code, _, err = run_multisvm("train", "quickstart", "--scheme", "dag", "--dataset", "wine",
                                "-o", model, "--out", tmp_path / "results", "-q")
    assert code == 0, err
    X, y = load_wine(return_X_y=True)
    predicted = expected_labels(model, X)
    dump_svmlight_file(X, y, str(tmp_path / "wine.svm"), zero_based=False)
    code, _, err = run_multisvm("predict", model, tmp_path / "wine.svm")
    assert code == 0 and err.strip() == accuracy_line(y, predicted), err
    wrong = int(np.sum(predicted != y))
    code, on_file, err = run_multisvm("evaluate", model, "--dataset", tmp_path / "wine.svm",
                                      "--confusion")
    assert code == 0, err
    lines = on_file.splitlines()
    assert lines[1] == f"data: {tmp_path / 'wine.svm'} file, 178 points"
    assert lines[2] == f"error rate: {100 * wrong / 178:.2f}% ({wrong} errors)"
    code, on_registry, _ = run_multisvm("evaluate", model, "--part", "all", "--confusion")
    assert code == 0
    varying = (1, 4)  # the data line names the source; the time is measured
    assert [v for i, v in enumerate(on_file.splitlines()) if i not in varying] == \
        [v for i, v in enumerate(on_registry.splitlines()) if i not in varying]
    assert printed_matrix(on_file)[1] == confusion_matrix(y, predicted).tolist()


def test_bad_labels_are_refused_with_one_line(iris_model, tmp_path, run_multisvm):
    X, y = load_iris(return_X_y=True)
    np.savetxt(tmp_path / "plain.csv", X, delimiter=",", fmt="%.17g")
    np.savetxt(tmp_path / "named.csv", np.column_stack([X.astype(str), SPECIES[y]]),
               delimiter=",", fmt="%s", header=",".join([*IRIS_NAMES, "kind"]), comments="")
    np.savez(tmp_path / "points.npz", X=X)
    out = tmp_path / "never.csv"
    cases = {
        ("named.csv", "--label", "nope"): ("named.csv:1:", "no label column 'nope'", "kind"),
        ("named.csv", "--label", "9"): ("no label column 9", "5 columns"),
        ("plain.csv", "--label", "species"): ("plain.csv:1:", "only the model's 4 feature",
                                              "drop --label"),
        ("points.npz", "--label", "0"): ("--label is for a csv file", "npz"),
        ("plain.csv", "--confusion"): ("plain.csv: no labels", "drop --confusion"),
    }
    for (name, *options), fragments in cases.items():
        refused(run_multisvm("predict", iris_model, tmp_path / name, *options, "-o", out),
                *fragments)
        assert not out.exists(), name
    refused(run_multisvm("evaluate", iris_model, "--dataset", tmp_path / "plain.csv"),
            "plain.csv: no labels", "multisvm predict")
    refused(run_multisvm("evaluate", iris_model, "--dataset", tmp_path / "named.csv", "--part",
                         "test"), "--part test: a file is evaluated whole")
    refused(run_multisvm("evaluate", iris_model, "--dataset", tmp_path / "missing.csv"),
            "missing.csv: file not found")
