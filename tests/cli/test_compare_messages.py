"""`compare`'s and `predict`'s messages (issue #56): each refusal one line in the tool's words,
exit 2, naming the user's file (never the temporary config) and written before any run
folder exists; a file name that is not folder-safe is made safe and said; --name names the
run."""

import pytest
from sklearn.datasets import load_iris

from helpers import refused


def _iris_csv(path, rows=None):
    """iris as a csv with a header (sl, sw, pl, pw, species), ``rows``: the row indices."""
    X, y = load_iris(return_X_y=True)
    picked = range(len(y)) if rows is None else rows
    lines = ["sl,sw,pl,pw,species"] + [",".join(f"{v:g}" for v in X[i]) + f",{y[i]}"
                                       for i in picked]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("seed", ["-1", "4294967296"])
def test_a_seed_out_of_range_is_refused_by_the_option(tmp_path, run_multisvm, seed):
    data = _iris_csv(tmp_path / "iris.csv")
    out = tmp_path / "out"
    refused(run_multisvm("compare", data, "--seed", seed, "--out", out, "-q"),
            f"--seed: a seed must be an integer from 0 to 4294967295, got {seed}")
    assert not out.exists()


@pytest.mark.parametrize("rows, words", [
    ([0, 50], "5 stratified folds need 5 rows or more"),          # two rows
    ([0, 50, 100], "the data has 3 rows, at most 1 of a class"),   # one row per class
])
def test_too_few_rows_name_the_users_file_in_the_tools_words(tmp_path, run_multisvm, rows,
                                                             words):
    data = _iris_csv(tmp_path / "few.csv", rows)
    line = refused(run_multisvm("compare", data, "--label", "species", "--schemes", "ovr",
                                "--out", tmp_path / "out", "-q"), str(data), words)
    assert "multisvm-compare-" not in line and ".yaml" not in line and "n_splits" not in line
    assert not (tmp_path / "out").exists()


def test_a_test_file_too_small_to_validate_on_is_said_in_the_tools_words(tmp_path,
                                                                         run_multisvm):
    data = _iris_csv(tmp_path / "six.csv", [0, 1, 50, 51, 100, 101])
    test = _iris_csv(tmp_path / "test.csv", [2, 52, 102])
    line = refused(run_multisvm("compare", data, test, "--label", "species", "--schemes", "ovr",
                                "--out", tmp_path / "out", "-q"),
                   str(data), "needs every one of the 3 classes on both sides")
    assert "multisvm-compare-" not in line and "test_size" not in line


@pytest.mark.parametrize("name, used", [
    ("my data (v2).csv", "my-data-v2"),
    ("b" * 120 + ".csv", "b" * 87),
])
def test_a_file_name_that_is_not_folder_safe_is_made_safe_and_said(tmp_path, run_multisvm,
                                                                   name, used):
    data = _iris_csv(tmp_path / name)
    result = run_multisvm("compare", data, "--schemes", "ovr", "--kernel", "linear", "--out",
                          tmp_path / "out", "-q")
    assert result.code == 0, result.err
    assert f"runs as dataset {used} " in result.err
    assert [p.name for p in (tmp_path / "out").iterdir()] == [f"compare-{used}"]


def test_name_names_the_run(tmp_path, run_multisvm):
    data = _iris_csv(tmp_path / "my data.csv")
    result = run_multisvm("compare", data, "--name", "flowers", "--schemes", "ovr", "--kernel",
                          "linear", "--out", tmp_path / "out", "-q")
    assert result.code == 0, result.err
    assert "runs as dataset" not in result.err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["compare-flowers"]
    assert "flowers" in result.out


def test_label_takes_only_ascii_digits_as_an_index(tmp_path, run_multisvm):
    data = _iris_csv(tmp_path / "iris.csv")
    line = refused(run_multisvm("compare", data, "--label", "²", "--out", tmp_path / "out",
                                "-q"), "no label column '²'", "the columns are sl, sw")
    assert "int()" not in line


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_empty_schemes_are_refused(tmp_path, run_multisvm, value):
    data = _iris_csv(tmp_path / "iris.csv")
    refused(run_multisvm("compare", data, "--schemes", value, "--out", tmp_path / "out", "-q"),
            "--schemes is empty")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["predict", "train"])
def test_an_empty_output_name_is_refused(tmp_path, run_multisvm, command):
    args = (["predict", tmp_path / "model", tmp_path / "new.csv"] if command == "predict"
            else ["train", "quickstart", "--scheme", "ovr"])
    line = refused(run_multisvm(*args, "-o", ""), "-o is an empty name")
    assert "already exists" not in line
