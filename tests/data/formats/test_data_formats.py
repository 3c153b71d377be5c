"""The data formats registry (multisvm_cli.data.formats): a card's ``format`` -> its reader.

This file is also a toy data format, ``toy-json`` (its ``read_part`` below): registering it is
the one step a format outside the package needs; a card naming it then loads, is checked and
goes through the parsed cache like any registry dataset.
"""

import hashlib
import json

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data import formats
from multisvm_cli.base.readers import read_json

POINTS = {"X": [[0.5, 1.0], [1.5, -2.0], [2.5, 3.0], [3.5, 4.25]], "y": ["b", "a", "b", "a"]}


def read_part(part):
    """``format: toy-json``: one JSON file {"X": [[...]], "y": [...]}; the cut's
    ``rows: [start, stop)`` keeps those points; ``scale`` (an option) multiplies X."""
    document = read_json(part.paths[0], 1 << 20, data.DatasetError, "toy-json file")
    start, stop = part.cut.get("rows", [0, len(document["y"])])
    X = np.asarray(document["X"][start:stop], dtype=np.float64) * part.options["scale"]
    return X, np.asarray(document["y"][start:stop], dtype=str)


CARD = """\
name: toy
title: A toy dataset in a toy format
description: Four points in a JSON file.
n_classes: 2
n_features: 2
classes: [a, b]
split: fixed
parts: {train: 3, test: 1}
paper_scaling: none
continuous_columns: all
sources:
  - id: json
    format: %s
    scale: 2.0
    files:
      - {name: points.json, sha256: %s}
    parts:
      train: {rows: [0, 3]}
      test: {rows: [3, 4]}
"""


def write_toy(folder, points, fmt="toy-json"):
    """A user cards folder with toy.yaml (format ``fmt``) and a mirror with its points.json
    (holding ``points``), under ``folder``; returns (cards, mirror)."""
    raw = json.dumps(points).encode()
    mirror, cards = folder / "mirror", folder / "cards"
    (mirror / "toy").mkdir(parents=True)
    (mirror / "toy" / "points.json").write_bytes(raw)
    cards.mkdir()
    (cards / "toy.yaml").write_text(CARD % (fmt, hashlib.sha256(raw).hexdigest()))
    return cards, mirror


@pytest.fixture
def toy_card(tmp_path, monkeypatch, data_home):
    """The toy card (its points: POINTS) as a user card; returns the mirror."""
    cards, mirror = write_toy(tmp_path, POINTS)
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    return mirror


def test_every_module_of_the_package_is_a_format():
    assert formats.names() == ("archive", "delimited", "hdf5", "sklearn", "svmlight")
    assert formats.FORMATS["delimited"] == "multisvm_cli.data.formats.delimited"
    assert formats.FORMATS["text"] == "multisvm_cli.data.formats.text"  # a config's folder
    assert formats.reader("svmlight").__module__ == "multisvm_cli.data.formats.svmlight"


def test_a_registered_format_loads_a_card_and_its_parsed_cache(toy_card, monkeypatch):
    monkeypatch.setitem(formats.FORMATS, "toy-json", __name__)
    loaded = data.load("toy", mirror=toy_card, progress=False)
    X, y = loaded.parts["train"]
    np.testing.assert_array_equal(X, [[1.0, 2.0], [3.0, -4.0], [5.0, 6.0]])
    assert y.tolist() == ["b", "a", "b"]
    np.testing.assert_array_equal(loaded.parts["test"][0], [[7.0, 8.5]])
    assert loaded.sources["points.json"].startswith("mirror ")
    again = data.load("toy", parts="test", mirror=toy_card, progress=False)
    assert again.sources["points.json"].startswith("parsed cache ")
    np.testing.assert_array_equal(again.parts["test"][0], [[7.0, 8.5]])
    assert again.parts["test"][1].tolist() == ["a"]


def test_what_a_reader_gives_is_checked_against_the_card(tmp_path, monkeypatch, data_home):
    monkeypatch.setitem(formats.FORMATS, "toy-json", __name__)
    cards, mirror = write_toy(tmp_path, {**POINTS, "y": ["b", "a", "c", "a"]})
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    with pytest.raises(data.DatasetError, match="toy train part .*labels not in the card's "
                                                "classes: c"):
        data.load("toy", mirror=mirror, progress=False)
    assert not list(data_home.rglob("*.npz"))  # nothing cached


def test_register_refuses_a_taken_name():
    formats.register("delimited", "multisvm_cli.data.formats.delimited")  # the same: no change
    with pytest.raises(ValueError, match="already read by multisvm_cli.data.formats.delimited"):
        formats.register("delimited", "somewhere.else")


def test_a_card_with_an_unknown_format_is_refused_with_the_known_ones(toy_card):
    with pytest.raises(data.DatasetError, match=r"format must be one of archive, delimited, "
                                                r"hdf5, sklearn, svmlight, not 'toy-json'"):
        data.get_card("toy")


def test_a_card_saying_text_is_refused_with_one_line_naming_delimited(tmp_path, monkeypatch):
    """``text`` is a config's folder of documents; a card's delimited text is ``delimited``
    (a user card of the old word is told the new one, not read as something else)."""
    cards, _ = write_toy(tmp_path, POINTS, fmt="text")
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    with pytest.raises(data.DatasetError) as raised:
        data.get_card("toy")
    message = str(raised.value)
    assert "\n" not in message and message.endswith(
        "format 'text' is a config's folder of documents; a card's delimited text files are "
        "format: delimited")


def test_a_format_may_check_a_downloaded_file_the_card_has_no_digest_for(tmp_path,
                                                                         monkeypatch):
    """``check_file``: the delimited format checks a file without a known SHA-256 by its
    labels (a format without one, such as this toy, keeps only the size bounds)."""
    from multisvm_cli.data.formats import delimited

    monkeypatch.setitem(formats.FORMATS, "toy-json", __name__)
    assert formats.file_check("delimited") is delimited.check_file
    assert formats.file_check("svmlight") is None and formats.file_check("toy-json") is None
    card = data.get_card("glass")
    source = card.sources[0]
    path = tmp_path / "glass.data"
    path.write_text("1,1.5,1,1,1,1,1,1,1,1,1\n2,1.5,1,1,1,1,1,1,1,1,4\n")
    with pytest.raises(data.DatasetError, match=r"glass: glass.data has labels not in the card: "
                                                r"\['4'\]; refused"):
        delimited.check_file(card, source, source.files[0], path)
    path.write_text("1,1.5,1,1,1,1,1,1,1,1,1\n2,1.5,1,1,1,1,1,1,1,1,7\n")
    delimited.check_file(card, source, source.files[0], path)  # classes 1 and 7: accepted
