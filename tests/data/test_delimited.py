"""One home for CSV reading (multisvm_cli.data.delimited): a dataset card's ``format: delimited``
file and a user's csv file are read by the same pandas call, accept the same files, and refuse
the same ones with ``FILE:LINE: what is wrong``."""

import gzip

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data import delimited

# One table of points, written in the ways both readers must accept: a byte-order mark, CRLF
# line ends, quoted fields, spaces around fields, blank rows (empty, spaces, commas only).
PLAIN = "1.5,2,0\n3,-4.25,1\n5,6e-3,0\n7,8,1\n"
VARIANTS = {
    "plain": PLAIN.encode(),
    "bom and crlf": b"\xef\xbb\xbf" + PLAIN.replace("\n", "\r\n").encode(),
    "quotes and spaces": b'"1.5", 2 ,0\n 3,"-4.25",1\n5 ,6e-3,"0"\n7,8,1\n',
    "blank rows": b"\n1.5,2,0\n  \n3,-4.25,1\n,,\n5,6e-3,0\n\n7,8,1\n\n",
    "gzip": gzip.compress(PLAIN.encode()),
}
X_EXPECTED = [[1.5, 2.0], [3.0, -4.25], [5.0, 6e-3], [7.0, 8.0]]
CARD = """\
name: mytable
title: Four points
description: Four points in a csv file.
n_classes: 2
n_features: 2
classes: [0, 1]
split: none
parts: {all: 4}
paper_scaling: none
continuous_columns: all
sources:
  - id: csv
    format: delimited
    sep: ","
    header: false
    label_column: 2
    feature_columns: [0, 2]
    label_type: int
    files:
      - {name: table.csv}
    parts:
      all: {}
"""


def load_as_card(tmp_path, monkeypatch, raw):
    """(X, y) of ``raw`` read as a user card's text file (a fresh data home each time)."""
    folder = tmp_path / "mirror" / "mytable"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "table.csv").write_bytes(raw)
    (tmp_path / "cards").mkdir(exist_ok=True)
    (tmp_path / "cards" / "mytable.yaml").write_text(CARD)
    monkeypatch.setenv("MULTISVM_CARDS", str(tmp_path / "cards"))
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(tmp_path / f"home-{len(list(tmp_path.iterdir()))}"))
    return data.load("mytable", mirror=tmp_path / "mirror", progress=False).parts["all"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_card_file_and_a_users_csv_accept_the_same_files(variant, tmp_path, monkeypatch):
    path = tmp_path / "table.csv"
    path.write_bytes(VARIANTS[variant])
    X, y, first_line = data.local.files.read_csv(path)
    np.testing.assert_array_equal(X, X_EXPECTED)
    assert y.tolist() == [0, 1, 0, 1] and y.dtype == np.int64
    assert first_line == (2 if variant == "blank rows" else 1)
    X_card, y_card = load_as_card(tmp_path, monkeypatch, VARIANTS[variant])
    np.testing.assert_array_equal(X_card, X)
    np.testing.assert_array_equal(y_card, y)


# variant -> (file text, line of the bad row, its fields, the first row's fields, first line)
RAGGED = {
    "short row": ("1,2,0\n\n3,4,1\n5,6\n", 4, 2, 3, 1),
    "long row": ("1,2,0\n3,4,1\n5,6,7,0\n", 3, 4, 3, 1),
    "after blank rows and a quoted line break": ('\n,,\n1,"2\n",0\n3,4\n', 5, 2, 3, 4),
}


@pytest.mark.parametrize("case", RAGGED)
def test_both_refuse_a_ragged_row_naming_its_line(case, tmp_path, monkeypatch):
    text, line, fields, width, first = RAGGED[case]
    path = tmp_path / "table.csv"
    path.write_text(text)
    message = f"table.csv:{line}: {fields} fields, expected {width} as on line {first}"
    with pytest.raises(data.DatasetError, match=message):
        data.local.files.read_csv(path)
    with pytest.raises(data.DatasetError, match=f"mytable: .*{message}"):
        load_as_card(tmp_path, monkeypatch, text.encode())


def test_both_refuse_text_that_is_not_utf8_or_an_empty_file(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"1,2,0\n3,\xff,1\n")
    for read in (lambda: data.local.files.read_csv(path), lambda: delimited.read(path)):
        with pytest.raises(data.DatasetError, match=r"t.csv: not UTF-8 text \(invalid start "
                                                    r"byte at byte 8\)"):
            read()
    path.write_text("\n \n,,\n")
    with pytest.raises(data.DatasetError, match="t.csv: empty file"):
        delimited.read(path, text=True)


def test_whitespace_separated_rows_and_n_columns(tmp_path):
    path = tmp_path / "w.dat"
    path.write_text(" 1  2 3 \n\n4\t5 6 9\n")
    table = delimited.read(path, sep="whitespace", n_columns=3)
    assert table.to_numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    path.write_text("1 2 3\n4 5\n")
    with pytest.raises(data.DatasetError, match="w.dat:2: 2 fields, expected 3 as on line 1"):
        delimited.read(path, sep="whitespace", n_columns=3)


def test_the_line_scan_reads_no_further_than_the_row_asked_for(tmp_path):
    """A row's line comes from the scan, which stops there: bytes far past it (here, not even
    UTF-8) are never decoded."""
    path = tmp_path / "big.csv"
    path.write_bytes(b"a,b\n\n1,2\n" + b"3,4\n" * 100_000 + b"\xff\xfe\n")
    lines = delimited.Lines(path)
    assert (lines[0], lines[1], lines[2]) == (1, 3, 4)
    assert lines[1000] == 1002
    with pytest.raises(data.DatasetError, match="not UTF-8"):
        lines[100_002]


# pandas' own readings that a user's csv must not get: each file is read as Python reads
# numbers (the cell-by-cell rule the csv reader had before pandas): file -> (X, labels)
AS_PYTHON_READS = {
    "-0 keeps its sign in a column of integers": ("1,-0,a\n2,3,b\n", [[1.0, -0.0], [2.0, 3.0]],
                                                   ["a", "b"]),
    "-0 keeps its sign beside a blank row": ("7,-0,1\n,,\n5,2,2\n", [[7.0, -0.0], [5.0, 2.0]],
                                             [1, 2]),
    "a blank row wider than the first row": ("1,2,0\n,,,\n3,4,1\n", [[1.0, 2.0], [3.0, 4.0]],
                                             [0, 1]),
    "numbers past 2**53 and the float grid": ("9007199254740993,0.1,1\n1e-320,2.5,0\n",
                                              [[9007199254740993.0, 0.1], [1e-320, 2.5]],
                                              [1, 0]),
}


@pytest.mark.parametrize("case", AS_PYTHON_READS)
def test_a_users_csv_gets_the_numbers_python_reads(case, tmp_path):
    text, X_expected, labels = AS_PYTHON_READS[case]
    path = tmp_path / "d.csv"
    path.write_text(text)
    X, y, _ = data.local.files.read_csv(path)
    assert X.tobytes() == np.asarray(X_expected, dtype=np.float64).tobytes()  # -0.0 too
    assert y.tolist() == labels


def test_pandas_readings_that_are_refused_name_the_cell_or_the_row(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("True,1,0\nFalse,2,1\n")  # pandas would read a boolean column as 1.0, 0.0
    with pytest.raises(data.DatasetError, match="d.csv:1: column 0: 'True' is not a number"):
        data.local.files.read_csv(path)
    path.write_text("a,b,label\nx,1,2,0\n")  # pandas would take the first column as an index
    with pytest.raises(data.DatasetError, match="d.csv:2: 4 fields, expected 3 as on line 1"):
        data.local.files.read_csv(path)
    path.write_text("a,b,label\n1,2,x\n3,4,5,y\n")  # the label check comes after the rows'
    with pytest.raises(data.DatasetError, match="d.csv:3: 4 fields, expected 3 as on line 1"):
        data.local.files.read_csv(path, label="nosuch")


def test_a_gzip_csv_is_read_and_bounded_by_its_decompressed_size(tmp_path):
    """A user's csv may be gzip-compressed, as a card's text file may; its dense size is
    counted on the decompressed text (rows x columns x 8 bytes) before it is read."""
    from multisvm_cli.data.bounds import check_dense_size, csv_shape

    rows = "".join(f"{i},{i % 7},{i % 2}\n" for i in range(200_000))
    path = tmp_path / "big.csv"
    path.write_bytes(gzip.compress(rows.encode()))
    with pytest.raises(data.DatasetError, match=r"big.csv: 200,001 x 3 values are 5 MB as "
                                                r"float64, more than memory_mb = 1"):
        check_dense_size(path, csv_shape(path), memory_mb=1)
    X, y, _ = data.local.files.read_csv(path)
    assert X.shape == (200_000, 2) and X[-1].tolist() == [199_999, 199_999 % 7]
    assert y.sum() == 100_000
