"""`compare`'s label column is said, never guessed in silence (issue #55, item 3): without
--label, a header's one column named like a label is taken and named on stderr, a header with
none is refused listing the columns and naming --label, a headerless file's last column is
taken and said; a misspelt --label (compare's or predict's) gets the closest column name."""

import numpy as np
from sklearn.datasets import load_iris

from helpers import refused
from tests.experiment.models.saved_models import train_local_iris

IRIS_HEADER = ["sepal_length", "sepal_width", "petal_length", "petal_width", "species"]


def _iris(path, header):
    """scikit-learn's iris as a csv: four features and the species name last, under ``header``
    (None: no header row)."""
    data = load_iris()
    rows = np.column_stack([data.data.astype(str), data.target_names[data.target]])
    np.savetxt(path, rows, delimiter=",", fmt="%s", comments="",
               header="" if header is None else ",".join(header))
    if header is None:
        path.write_text(path.read_text().lstrip("\n"))
    return path


def _compare(run_multisvm, data, out, *more):
    return run_multisvm("compare", data, *more, "--schemes", "ovr", "--kernel", "linear",
                        "--out", out, "-q")


def test_a_label_named_column_is_taken_and_said(tmp_path, run_multisvm):
    data = _iris(tmp_path / "iris.csv", IRIS_HEADER)
    result = _compare(run_multisvm, data, tmp_path / "out")
    assert result.code == 0, result.err
    notes = [line for line in result.err.splitlines() if line.startswith("note:")]
    assert notes == [f"note: {data}: label column 'species', by its name (--label NAME|INDEX "
                     f"names another)"]
    config = next((tmp_path / "out").rglob("config.original.yaml")).read_text()
    assert "label: species" in config
    # the same table with --label species says nothing and runs the same error
    again = _compare(run_multisvm, data, tmp_path / "again", "--label", "species")
    assert again.code == 0 and "note:" not in again.err, again.err
    assert again.out.splitlines()[2].split()[4] == result.out.splitlines()[2].split()[4]


def test_a_header_without_a_label_name_is_refused_listing_the_columns(tmp_path, run_multisvm):
    data = _iris(tmp_path / "abcde.csv", list("abcde"))
    refused(_compare(run_multisvm, data, tmp_path / "out"), str(data),
            "no column is named like a label", "the columns are a, b, c, d, e", "--label")
    assert not (tmp_path / "out").exists()
    # --label e runs it
    result = _compare(run_multisvm, data, tmp_path / "out", "--label", "e")
    assert result.code == 0 and "note:" not in result.err, result.err


def test_two_label_names_are_refused(tmp_path, run_multisvm):
    data = _iris(tmp_path / "two.csv", ["a", "class", "c", "d", "species"])
    refused(_compare(run_multisvm, data, tmp_path / "out"),
            "2 columns are named like a label (class, species)", "--label")


def test_a_headerless_file_takes_its_last_column_and_says_so(tmp_path, run_multisvm):
    data = _iris(tmp_path / "plain.csv", None)
    result = _compare(run_multisvm, data, tmp_path / "out")
    assert result.code == 0, result.err
    assert f"note: {data} has no header row: its last column (4) is the label" in result.err


def test_a_misspelt_label_gets_a_did_you_mean(tmp_path, run_multisvm):
    data = _iris(tmp_path / "iris.csv", IRIS_HEADER)
    refused(_compare(run_multisvm, data, tmp_path / "out", "--label", "Species"),
            "no label column 'Species'", "(did you mean 'species'?)")
    line = refused(_compare(run_multisvm, data, tmp_path / "out", "--label", "colour"),
                   "no label column 'colour'")
    assert "did you mean" not in line


def test_predict_a_misspelt_label_gets_a_did_you_mean(tmp_path, run_multisvm, write_config):
    model = train_local_iris(tmp_path, run_multisvm, write_config)
    data = _iris(tmp_path / "new.csv", IRIS_HEADER)
    refused(run_multisvm("predict", model, data, "--label", "Species"),
            "no label column 'Species'", "(did you mean 'species'?)")


def test_the_commands_guide_lists_the_declared_label_names():
    """The guide's list of label-like names is :data:`LABEL_NAMES`, in its order."""
    import re
    from pathlib import Path

    from multisvm_cli.data.csv_file import LABEL_NAMES

    guide = Path(__file__).parents[2] / "docs" / "guides" / "commands.md"
    text = " ".join(guide.read_text().split())
    listed = re.search(r"a header's one column named like a label \(([^)]*)\)", text).group(1)
    assert re.findall(r"`([^`]+)`", listed) == list(LABEL_NAMES)


def test_a_refused_file_names_the_label_column_it_took_in_its_one_line(tmp_path, run_multisvm):
    """A refusal stays one line, and says which column compare took as the label (the refusal
    may be about it); the note is not printed on its own."""
    data = tmp_path / "one.csv"
    data.write_text("a,b,Class\n1,2,0\n3,4,0\n5,6,0\n")
    result = _compare(run_multisvm, data, tmp_path / "out")
    assert result.code == 2 and result.out == "", result
    (error,) = result.err.splitlines()
    assert error.startswith("error: ") and "one class" in error, error
    assert error.endswith(f"; {data}: label column 'Class', by its name (--label NAME|INDEX "
                          "names another)"), error
    assert not (tmp_path / "out").exists()
