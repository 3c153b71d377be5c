"""A csv header that names two columns alike (``y,...,y``), hostile (issue #56): refused as
such, in a local file, ``compare`` and a file to predict, not reported as a value that is not
a number."""

import pytest

from helpers import refused, run_cli

ROWS = "0,5.1,3.5,1\n1,4.9,3.0,2\n0,4.7,3.2,1\n1,4.6,3.1,2\n"


@pytest.mark.parametrize("header, first, second, name", [
    ("y,a,b,y", 0, 3, "y"), ("y,a,a,z", 1, 2, "a"),
])
def test_a_duplicated_header_name_is_refused_as_such(tmp_path, header, first, second, name):
    from multisvm_cli import data

    path = tmp_path / "dup.csv"
    path.write_text(f"{header}\n{ROWS}")
    for label in (None, "y"):
        with pytest.raises(data.DatasetError) as caught:
            data.load_local(data.LocalSpec("mine", path, "csv", options={"label": label}))
        assert str(caught.value) == (f"{path}:1: columns {first} and {second} are both named "
                                     f"{name!r}; each column of the header needs its own name")
    with pytest.raises(data.DatasetError, match=f"columns {first} and {second} are both named"):
        data.read_points(path, data.Columns(3, ("a", "b", "c")))


def test_compare_refuses_it_in_one_line(tmp_path, data_home):
    path = tmp_path / "dup.csv"
    path.write_text(f"y,a,b,y\n{ROWS}")
    out = tmp_path / "out"
    line = refused(run_cli("compare", path, "--out", out, "--quiet"),
                   "dup.csv:1: columns 0 and 3 are both named 'y'")
    assert "not a number" not in line and not out.exists()
