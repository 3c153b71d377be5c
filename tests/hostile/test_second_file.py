"""A second file, hostile (issue #56): ``compare DATA TEST`` and a config's ``test_path`` match
TEST to DATA by its header's names (the rule ``predict`` follows against a model's columns),
refuse a TEST class DATA lacks, and refuse TEST when it is DATA (the same bytes); a test folder
of documents follows the same rule."""

import shutil

import numpy as np
import pytest
from configs import config_text
from sklearn.datasets import load_iris

from helpers import refused, run_cli, write_files

HEADER = "sl,sw,pl,pw,species"


def _iris(path, header=HEADER, columns=(0, 1, 2, 3), labels=None):
    """Iris as a csv at ``path``: ``header``, the feature ``columns`` in that order, then the
    labels (``labels``: the class numbers' replacements); ``path``."""
    X, y = load_iris(return_X_y=True)
    names = [str(c) if labels is None else labels.get(c, str(c)) for c in y]
    rows = [",".join([*(f"{x:g}" for x in row[list(columns)]), name])
            for row, name in zip(X, names)]
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


@pytest.fixture
def data_csv(tmp_path):
    return _iris(tmp_path / "data.csv")


def _compare(tmp_path, data, test):
    out = tmp_path / "out"
    result = run_cli("compare", data, test, "--schemes", "maxwins", "--out", out, "--quiet",
                     "--no-figures")
    assert not out.exists()  # refused before any run folder
    return result


def test_a_test_header_in_another_order_is_refused_not_read_by_position(tmp_path, data_csv):
    """Read by position, Max Wins gave 66% error where the answer is 0%, without a word."""
    swapped = _iris(tmp_path / "swapped.csv", "sw,sl,pl,pw,species", columns=(1, 0, 2, 3))
    refused(_compare(tmp_path, data_csv, swapped), "swapped.csv:1: feature column 0 is 'sw', "
            "the training file's is 'sl'", "(sl, sw, pl, pw) in its order, or no header row")


def test_a_test_header_of_other_names_is_refused(tmp_path, data_csv):
    other = _iris(tmp_path / "other.csv", "x,y,pl,pw,species")
    refused(_compare(tmp_path, data_csv, other), "other.csv:1: feature column 0 is 'x'")


def test_the_names_rule_is_predicts(tmp_path, data_csv):
    """One rule, two callers: the test file's and predict's messages differ only in whose
    columns they name."""
    from multisvm_cli import data
    from multisvm_cli.data import csv_file, points

    assert points.check_names is csv_file.check_names
    other = _iris(tmp_path / "other.csv", "x,y,pl,pw,species")
    with pytest.raises(data.DatasetError) as by_predict:
        data.read_points(other, data.Columns(4, ("sl", "sw", "pl", "pw")))
    assert "feature column 0 is 'x', the model's is 'sl'; the file needs the model's " \
           "columns (sl, sw, pl, pw) in its order" in str(by_predict.value)


def test_a_matching_header_or_no_header_is_read(tmp_path, data_csv):
    from multisvm_cli import data

    test = _iris(tmp_path / "test.csv", "sl,sw,pl,pw,kind")  # the label column's name aside
    spec = data.LocalSpec("mine", data_csv, "csv", test_path=test)
    loaded = data.load_local(spec)
    X, y = loaded.parts["test"]
    assert X.shape == (150, 4) and X[0].tolist() == [5.1, 3.5, 1.4, 0.2]
    assert np.bincount(y).tolist() == [50, 50, 50]
    bare = tmp_path / "bare.csv"  # no header: read by position, as before
    bare.write_text("\n".join(test.read_text().splitlines()[1:]) + "\n")
    spec = data.LocalSpec("mine", data_csv, "csv", test_path=bare)
    assert data.load_local(spec).parts["test"][0][0].tolist() == [5.1, 3.5, 1.4, 0.2]


def test_a_test_class_the_data_lacks_is_refused_naming_it(tmp_path, data_csv):
    """Renaming virginica in TEST gave 32% error, without a word."""
    unseen = _iris(tmp_path / "unseen.csv", labels={2: "unknownia"})
    refused(_compare(tmp_path, data_csv, unseen), "unseen.csv: class(es) unknownia have test "
            "rows but no training rows in", "data.csv")


def test_a_test_file_that_is_the_data_is_refused(tmp_path, data_csv):
    copy = shutil.copy(data_csv, tmp_path / "copy.csv")
    refused(_compare(tmp_path, data_csv, copy), "copy.csv: the test file holds the same bytes "
            "as the training file", "a test estimate needs points held out of training")
    refused(_compare(tmp_path, data_csv, data_csv), "data.csv: the test file is the training "
            "file")


def test_a_configs_test_path_follows_the_same_rule(tmp_path, data_csv):
    _iris(tmp_path / "swapped.csv", "sw,sl,pl,pw,species", columns=(1, 0, 2, 3))
    shutil.copy(data_csv, tmp_path / "copy.csv")
    for test, fragment in (("swapped.csv", "feature column 0 is 'sw'"),
                           ("copy.csv", "holds the same bytes")):
        config = tmp_path / "local.yaml"
        config.write_text(config_text(name="local", dataset=None, kernels=[{"type": "linear"}],
                                      C=[1], schemes=["ovr"], split=None)
                          + f"dataset: [{{name: mine, path: data.csv, test_path: {test}}}]\n")
        refused(run_cli("validate", config), f"{test}", fragment)


def test_a_test_folder_holding_the_training_documents_is_refused(tmp_path):
    from multisvm_cli import data

    docs = {"spam/1": b"buy cheap now", "spam/2": b"cheap pills", "ham/a": b"hello friend",
            "ham/b": b"see you soon"}
    train = write_files(tmp_path / "train", docs)
    copy = write_files(tmp_path / "copy", docs)
    with pytest.raises(data.DatasetError, match="the test folder holds the same documents as "
                                                "the training folder"):
        data.load_text_folder("mine", train, copy)
    (copy / "ham" / "c").write_bytes(b"a new one")
    assert len(data.load_text_folder("mine", train, copy).parts["test"][1]) == 5


def test_test_labels_that_are_numbers_are_names_where_the_data_has_names(tmp_path):
    """A training file of names (``1`` among them) and a test file of numbers only: its ``1``
    is the class ``'1'``, not a number the classifier never predicts."""
    from multisvm_cli import data

    (tmp_path / "train.csv").write_text("a,b,y\n1,2,1\n3,4,1\n5,6,big\n7,8,big\n")
    (tmp_path / "test.csv").write_text("a,b,y\n1,2,1\n3,4,1\n")
    spec = data.LocalSpec("mine", tmp_path / "train.csv", "csv", test_path=tmp_path / "test.csv")
    loaded = data.load_local(spec)
    assert loaded.parts["test"][1].tolist() == ["1", "1"]
    assert loaded.card.classes == ("1", "big")
