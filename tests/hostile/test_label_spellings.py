"""Labels that would merge, hostile (issue #56): two spellings of one number in a csv label
column (``1`` / ``1.0``, ``007`` / ``7``) were read as one class without a word; they are
refused in one line naming both, in a local csv file, ``compare`` and a file to predict."""

import pytest

from helpers import refused, run_cli


def _csv(path, labels):
    rows = [f"{i},{(i * 7) % 5},{label}" for i, label in enumerate(labels)]
    path.write_text("\n".join(["a,b,y", *rows]) + "\n")
    return path


@pytest.mark.parametrize("labels, first, second, line", [
    (["1", "2", "1.0", "2", "1", "2"], "'1'", "'1.0'", 4),
    (["007", "2", "2", "7", "2", "007"], "'007'", "'7'", 5),
    (["1", "2", "1e0", "2"], "'1'", "'1e0'", 4),
    (["0", "2", "-0", "2"], "'0'", "'-0'", 4),
])
def test_two_spellings_of_one_number_are_refused_naming_both(tmp_path, labels, first, second,
                                                             line):
    from multisvm_cli import data

    path = _csv(tmp_path / "mine.csv", labels)
    with pytest.raises(data.DatasetError) as caught:
        data.load_local(data.LocalSpec("mine", path, "csv"))
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: label {second} is the same number as label "
                              f"{first} (line "), message
    assert "two spellings of one class" in message and "\n" not in message


def test_spellings_among_names_are_refused_too(tmp_path):
    """With a name among the labels they would be kept apart as names: refused all the same."""
    from multisvm_cli import data

    path = _csv(tmp_path / "mine.csv", ["1", "big", "1.0", "big"])
    with pytest.raises(data.DatasetError, match="label '1.0' is the same number as label '1'"):
        data.load_local(data.LocalSpec("mine", path, "csv"))


def test_one_spelling_each_reads_as_before(tmp_path):
    from multisvm_cli import data

    def labels(name, values):
        return data.load_local(data.LocalSpec(name, _csv(tmp_path / f"{name}.csv", values),
                                              "csv")).parts["all"][1].tolist()

    assert labels("a", ["07", "2", "07", "2"]) == [7, 2, 7, 2]
    assert labels("b", ["1.0", "2.0", "1.0", "2.0"]) == [1, 2, 1, 2]
    assert labels("c", ["x1", "1", "x1", "1"]) == ["x1", "1", "x1", "1"]


def test_compare_and_predict_refuse_them(tmp_path, data_home):
    from multisvm_cli import data

    path = _csv(tmp_path / "mine.csv", ["1", "2", "1.0", "2"])
    out = tmp_path / "out"
    refused(run_cli("compare", path, "--out", out, "--quiet"),
            "mine.csv:4: label '1.0' is the same number as label '1' (line 2)")
    assert not out.exists()
    with pytest.raises(data.DatasetError, match="label '1.0' is the same number as label '1'"):
        data.read_points(path, data.Columns(2, ("a", "b")))


@pytest.mark.parametrize("train, test, first, second", [
    (["1", "2", "1", "2"], ["1.0", "2"], "'1'", "'1.0'"),
    (["007", "2", "007", "2"], ["7", "2"], "'007'", "'7'"),
])
def test_spellings_across_data_and_test_are_refused_naming_both(tmp_path, data_home, train,
                                                               test, first, second):
    """``1`` in DATA and ``1.0`` in TEST were read as one class without a word: refused in one
    line naming both spellings and both files, by a local dataset and ``compare DATA TEST``."""
    from multisvm_cli import data

    data_file, test_file = _csv(tmp_path / "d.csv", train), _csv(tmp_path / "t.csv", test)
    expected = (f"{test_file}: label {second} is the same number as label {first} in "
                f"{data_file}: two spellings of one class")
    with pytest.raises(data.DatasetError) as caught:
        data.load_local(data.LocalSpec("d", data_file, "csv", test_path=test_file))
    assert str(caught.value).startswith(expected) and "\n" not in str(caught.value)
    out = tmp_path / "out"
    refused(run_cli("compare", data_file, test_file, "--out", out, "--quiet"), expected)
    assert not out.exists()
    same = _csv(tmp_path / "same.csv", train[:2])  # spelled as DATA: read as before
    parts = data.load_local(data.LocalSpec("d", data_file, "csv", test_path=same)).parts
    assert parts["test"][1].tolist() == parts["train"][1].tolist()[:2]
