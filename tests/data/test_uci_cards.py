"""The cards of the UCI sets Rifkin & Klautau, Allwein et al. and Wu, Lin & Weng use beside the
older ones: each loads from the mirror (checked by SHA-256) with the rows, classes and features
../shared/datasets/SOURCES.md gives, and their nominal columns and missing cells (yeast's 1,484
rows, abalone's 28 ring values, dermatology's "?" ages, soybean's "?" cells) come out as the
cards say. The encoding itself (``missing``, ``fill``, ``one_hot``) on small tables."""

import csv

import numpy as np
import pandas as pd
import pytest

from multisvm_cli import data
from multisvm_cli.data import nominal
from helpers import counts

ABALONE_RINGS = {1: 1, 2: 1, 3: 15, 4: 57, 5: 115, 6: 259, 7: 391, 8: 568, 9: 689, 10: 634,
                 11: 487, 12: 267, 13: 203, 14: 126, 15: 103, 16: 67, 17: 58, 18: 42, 19: 32,
                 20: 26, 21: 14, 22: 6, 23: 9, 24: 2, 25: 1, 26: 1, 27: 2, 29: 1}
SOYBEAN_TRAIN = {"alternarialeaf-spot": 40, "brown-spot": 40, "frog-eye-leaf-spot": 40,
                 "phytophthora-rot": 40, "anthracnose": 20, "brown-stem-rot": 20,
                 "cyst-nematode": 6, "diaporthe-pod-&-stem-blight": 6, "herbicide-injury": 4,
                 "2-4-d-injury": 1,
                 **dict.fromkeys(["bacterial-blight", "bacterial-pustule", "charcoal-rot",
                                  "diaporthe-stem-canker", "downy-mildew",
                                  "phyllosticta-leaf-spot", "powdery-mildew",
                                  "purple-seed-stain", "rhizoctonia-root-rot"], 10)}
SOYBEAN_TEST = {**{name: 10 for name, n in SOYBEAN_TRAIN.items() if n == 10},
                "alternarialeaf-spot": 51, "brown-spot": 52, "frog-eye-leaf-spot": 51,
                "phytophthora-rot": 48, "anthracnose": 24, "brown-stem-rot": 24,
                "2-4-d-injury": 15, "cyst-nematode": 8, "diaporthe-pod-&-stem-blight": 9,
                "herbicide-injury": 4}

# name -> {part: (rows, class counts)}, features (SOURCES.md; car, abalone and soybean-large
# one 0/1 column per nominal value)
EXPECTED = {
    "yeast": ({"all": {"CYT": 463, "NUC": 429, "MIT": 244, "ME3": 163, "ME2": 51, "ME1": 44,
                       "EXC": 35, "VAC": 30, "POX": 20, "ERL": 5}}, 8),
    "ecoli": ({"all": {"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20, "omL": 5, "imL": 2,
                       "imS": 2}}, 7),
    "dermatology": ({"all": {1: 112, 2: 61, 3: 72, 4: 49, 5: 52, 6: 20}}, 34),
    "optdigits": ({"train": dict(zip(range(10), [376, 389, 380, 389, 387, 376, 377, 387, 380,
                                                 382])),
                   "test": dict(zip(range(10), [178, 182, 177, 183, 181, 182, 181, 179, 174,
                                                180]))}, 64),
    "page-blocks": ({"all": {1: 4913, 2: 329, 3: 28, 4: 88, 5: 115}}, 10),
    "car": ({"all": {"unacc": 1210, "acc": 384, "good": 69, "vgood": 65}}, 21),
    "abalone": (None, 10),
    "soybean-large": ({"train": SOYBEAN_TRAIN, "test": SOYBEAN_TEST}, 99),
    "waveform": ({"all": {0: 1657, 1: 1647, 2: 1696}}, 21),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_card_loads_the_mirror_file_with_the_sources_counts(mirror, data_home, name):
    parts, n_features = EXPECTED[name]
    dataset = data.load(name, mirror=mirror, progress=False)
    card = data.get_card(name)
    assert card.n_features == n_features
    assert all(len(d) == 64 for d in dataset.checksums.values())
    assert set(dataset.checksums) == {spec.name for spec in card.files}
    if parts is None:        # abalone: rows 1..3,133 train, the rest test
        X = np.vstack([dataset.parts["train"][0], dataset.parts["test"][0]])
        y = np.concatenate([dataset.parts["train"][1], dataset.parts["test"][1]])
        assert (len(dataset.parts["train"][1]), len(y)) == (3133, 4177)
        parts = {"all": ABALONE_RINGS}
        found = {"all": (X, y)}
    else:
        found = dataset.parts
    assert set(found) == set(parts)
    for part, expected in parts.items():
        X, y = found[part]
        assert X.shape == (sum(expected.values()), n_features) and X.dtype == np.float64
        assert counts(y) == expected
        assert np.isfinite(X).all()
    assert len({c for expected in parts.values() for c in expected}) == card.n_classes


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def test_yeast_and_abalone_keep_their_quirks(mirror, data_home):
    yeast = data.load("yeast", mirror=mirror, progress=False)
    first = yeast.parts["all"][0][0]       # ADT1_YEAST 0.58 0.61 0.47 0.13 0.50 0.00 0.48 0.22
    np.testing.assert_array_equal(first, [0.58, 0.61, 0.47, 0.13, 0.50, 0.00, 0.48, 0.22])
    card = data.get_card("abalone")
    assert card.n_classes == 28 and 28 not in card.classes and max(card.classes) == 29
    X, _ = data.load("abalone", parts=["train"], mirror=mirror, progress=False).parts["train"]
    np.testing.assert_array_equal(X[0], [1, 0, 0, 0.455, 0.365, 0.095, 0.514, 0.2245, 0.101,
                                         0.15])                 # M,0.455,...,0.15,15
    assert (X[:, :3].sum(axis=1) == 1).all() and card.continuous_columns == tuple(range(3, 10))


def test_dermatology_fills_the_missing_ages_with_the_mean_known_age(mirror, data_home):
    rows = _rows(mirror / "dermatology" / "dermatology.data")
    ages = [row[33] for row in rows]
    known = [float(a) for a in ages if a != "?"]
    assert len(known) == 358
    card = data.get_card("dermatology")
    assert card.sources[0].options["fill"] == {33: float(np.mean(known))}
    X, _ = data.load("dermatology", mirror=mirror, progress=False).parts["all"]
    missing = [i for i, a in enumerate(ages) if a == "?"]
    assert missing == [33, 34, 35, 36, 262, 263, 264, 265]      # lines 34-37, 263-266
    assert (X[missing, 33] == np.mean(known)).all()
    np.testing.assert_array_equal(np.delete(X[:, 33], missing), known)


def test_soybean_fills_with_the_training_modes_then_codes_each_value(mirror, data_home):
    train = _rows(mirror / "soybean" / "soybean-large.data")
    test = _rows(mirror / "soybean" / "soybean-large.test")
    options = data.get_card("soybean-large").sources[0].options
    for column in range(1, 36):
        known = pd.Series([row[column] for row in train if row[column] != "?"])
        tally = known.value_counts()
        assert (tally == tally.max()).sum() == 1, column          # no tie to break
        if any(row[column] == "?" for row in train + test):
            assert str(options["fill"][column]) == tally.idxmax(), column
        seen = sorted({row[column] for row in train + test} - {"?"}, key=int)
        assert [str(v) for v in options["one_hot"][column]] == seen, column
    dataset = data.load("soybean-large", mirror=mirror, progress=False)
    for rows, part in ((train, "train"), (test, "test")):
        X, _ = dataset.parts[part]
        assert set(np.unique(X)) == {0.0, 1.0}
        assert (X.sum(axis=1) == 35).all()                        # one value per attribute
    X, _ = dataset.parts["test"]
    first_hole = next(i for i, row in enumerate(test) if row[2] == "?")
    block = sum(len(options["one_hot"][c]) for c in range(1, 2))   # attribute 2's columns
    assert X[first_hole, block + options["fill"][2]] == 1.0


def test_car_codes_each_attribute_value_as_its_own_column(mirror, data_home):
    X, y = data.load("car", mirror=mirror, progress=False).parts["all"]
    assert (X.sum(axis=1) == 6).all() and len({tuple(row) for row in X}) == 1728
    np.testing.assert_array_equal(X[0], [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0,
                                         1, 0, 0, 1, 0, 0])    # vhigh,vhigh,2,2,small,low
    assert y[0] == "unacc" and y[-1] == "vgood"


def _table(rows):
    return pd.DataFrame(rows, dtype=str)


def test_encode_fills_codes_and_parses():
    table = _table([["a", "1.5", "?"], ["b", "?", "x"], ["a", "2", "y"]])
    options = {"missing": "?", "fill": {2: 0.25, 3: "y"}, "one_hot": {1: ["a", "b"],
                                                                       3: ["x", "y"]}}
    X = nominal.encode(table, 1, options, "toy")
    np.testing.assert_array_equal(X, [[1, 0, 1.5, 0, 1], [0, 1, 0.25, 1, 0],
                                      [1, 0, 2, 0, 1]])
    assert nominal.wanted(options) and not nominal.wanted({"sep": ","})


@pytest.mark.parametrize("options, message", [
    ({"missing": "?", "one_hot": {0: ["a", "b"]}}, r"toy: column 1 has a missing cell \('\?', data row 2\) and the card "
                       r"gives no fill for it"),
    ({"missing": "?", "fill": {1: 0}, "one_hot": {0: ["a"]}},
     r"toy: column 0, data row 2: 'b' is not one of the card's values a"),
    ({"missing": "?", "fill": {1: 0}, "one_hot": {0: ["a", "a"]}},
     r"toy: one_hot column 0 must list distinct values"),
    ({"missing": "?", "fill": {"1": 0}}, r"toy: the card's fill must map column numbers"),
    ({}, r"toy: column 0, data row 1: 'a' is not a number \(a nominal column needs one_hot"),
])
def test_encode_refuses_in_one_line(options, message):
    table = _table([["a", "1"], ["b", "?"]])
    with pytest.raises(data.DatasetError, match=message):
        nominal.encode(table, 0, options, "toy")
