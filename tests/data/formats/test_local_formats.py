"""A local data format is one module of the format registry (``data/formats/``): dropping a
toy format's file into the registry's folder is all it takes for a config's ``format:`` (and
its extension), ``load_local``, a run, ``read_points`` and ``multisvm predict --format`` to
read files of it."""

import sys
import textwrap

import numpy as np
import pytest
from sklearn.datasets import load_digits

from multisvm_cli import data
from multisvm_cli.data import formats
from multisvm_cli.experiment import Settings, load_config, reproduce

pytestmark = pytest.mark.usefixtures("no_network")

TOY = '''\
"""``format: tab``, a toy: one point a line, its label, a tab, then its features separated
by tabs."""

from pathlib import Path

import numpy as np

from ..errors import DatasetError

EXTENSIONS = (".tab", ".tsv")


def read_local(spec, files):
    return {part: (*_read(path), 1, None) for part, path in files.items()}


def read_points(path, columns, memory_mb):
    return _read(path)


def _read(path):
    rows = [line.split("\\t") for line in Path(path).read_text().splitlines()]
    if any(len(row) != len(rows[0]) for row in rows):
        raise DatasetError(f"{path}: a ragged row")
    table = np.array(rows, dtype=np.float64)
    return table[:, 1:], table[:, 0].astype(np.int64)
'''


@pytest.fixture
def toy_format(tmp_path, monkeypatch):
    """The module ``tab.py`` (:data:`TOY`) in a folder added to the registry's folders."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "tab.py").write_text(TOY)
    monkeypatch.setattr(formats, "__path__", [*formats.__path__, str(folder)])
    monkeypatch.setattr(formats, "FORMATS", formats.listed())
    yield
    sys.modules.pop(f"{formats.__name__}.tab", None)
    if hasattr(formats, "tab"):
        delattr(formats, "tab")


def write_points(tmp_path, X, y):
    """The points as the toy's ``points.tab`` and as ``points.csv`` (label last)."""
    (tmp_path / "points.tab").write_text("".join(
        "\t".join([str(label)] + [str(int(v)) for v in row]) + "\n" for row, label in zip(X, y)))
    (tmp_path / "points.csv").write_text("".join(
        ",".join([str(int(v)) for v in row] + [str(label)]) + "\n" for row, label in zip(X, y)))


def test_the_local_formats_are_the_registry_modules_that_read_local_files():
    assert formats.local_names() == ("csv", "svmlight", "npz")
    assert formats.infer_format("a.CSV") == "csv" and formats.infer_format("a.libsvm") == \
        "svmlight" and formats.infer_format("a.npz") == "npz"
    assert formats.infer_format("a.txt") is None and formats.infer_format("noextension") is None
    assert formats.names() == ("archive", "delimited", "hdf5", "sklearn", "svmlight")
    assert formats.config_names() == ("csv", "svmlight", "npz", "text")  # text: a folder


def test_a_format_module_in_the_registry_folder_is_a_local_format(toy_format, tmp_path):
    assert formats.local_names() == ("csv", "svmlight", "npz", "tab")
    assert formats.infer_format(tmp_path / "x.TSV") == "tab"
    assert "tab" not in formats.names()  # it reads no card
    X, y = load_digits(return_X_y=True)
    write_points(tmp_path, X[:5], y[:5])
    config = tmp_path / "toy.yaml"
    config.write_text("dataset: [{path: points.tab}]\nsplit: {test_fraction: 0.4}\n"
                      "kernels: [{type: linear}]\nC: [1]\nschemes: [ovr]\n")
    spec = load_config(config).datasets[0].local
    assert (spec.format, spec.sparse, spec.read_options()) == ("tab", False, {})
    loaded = data.load_local(spec)
    np.testing.assert_array_equal(loaded.parts["all"][0], X[:5])
    assert loaded.parts["all"][1].tolist() == [0, 1, 2, 3, 4]
    assert loaded.card.classes == (0, 1, 2, 3, 4) and loaded.card.n_features == 64
    assert loaded.provenance["format"] == "tab" and spec.entry()["format"] == "tab"
    points, labels = data.read_points(tmp_path / "points.tab", data.Columns(64))
    np.testing.assert_array_equal(points, X[:5])
    assert labels.tolist() == [0, 1, 2, 3, 4]


def test_a_run_on_the_toy_format_gives_the_table_of_the_same_points_as_csv(toy_format,
                                                                            tmp_path):
    X, y = load_digits(return_X_y=True)
    write_points(tmp_path, X[:400], y[:400])
    config = tmp_path / "both.yaml"
    config.write_text("dataset:\n  - {name: astab, path: points.tab}\n"
                      "  - {name: ascsv, path: points.csv}\n"
                      "split: {test_fraction: 0.3, seed: 0}\nkernels: [{type: linear}]\n"
                      "C: [1, 10]\nschemes: [ovr, maxwins]\n")
    run = reproduce(load_config(config), Settings(out=str(tmp_path / "out"), quiet=True))
    tables = {}
    for row in run.rows:
        kept = {k: v for k, v in row.items() if k not in ("dataset", "cpu_time",
                                                          "selection_time", "evaluation_time")}
        tables.setdefault(row["dataset"], []).append(kept)
    assert len(tables["astab"]) == 2 and tables["astab"] == tables["ascsv"]
    # 7 of the 120 test points wrong for 1-v-r, none for Max Wins, as from the csv
    assert [row["error_pct"] for row in tables["astab"]] == pytest.approx([700 / 120, 0.0])


def test_predict_format_names_the_registry_local_formats(toy_format, tmp_path, run_multisvm):
    (tmp_path / "new.txt").write_text("1\t2\n")
    code, _, err = run_multisvm("predict", tmp_path / "model", tmp_path / "new.txt",
                                "--format", "nosuch")
    assert code == 2 and "'nosuch' is not one of 'csv', 'svmlight', 'npz', 'tab'" in err
    code, _, err = run_multisvm("predict", tmp_path / "model", tmp_path / "new.txt",
                                "--format", "tab")
    assert code != 0 and "--format" not in err  # accepted; the missing model is refused
