"""Covertype, whole: the UCI file from the mirror, its three parts, the small parsed cache."""

import collections

import numpy as np
import pytest

from multisvm_cli import data

ALL_ROWS = {1: 211840, 2: 283301, 3: 35754, 4: 2747, 5: 9493, 6: 17367, 7: 20510}


@pytest.fixture
def cover(mirror, shared_home):
    return data.load("covertype", mirror=mirror, data_home=shared_home)


@pytest.mark.slow
def test_the_three_parts_of_the_uci_file(cover):
    assert cover.source_id == "uci"
    assert cover.checksums == {"covtype.data": "0a9371cef7c964b5475d6053cc3e0894"
                                               "a5aa6f65ad1ed3ecb01c45aa96217945"}
    shapes = {part: X.shape for part, (X, y) in cover.parts.items()}
    assert shapes == {"train": (11340, 54), "validation": (3780, 54), "test": (565892, 54)}
    X_test, y_test = cover.parts["test"]
    assert X_test.dtype == np.float64
    expected = {c: n - 2160 for c, n in ALL_ROWS.items()}  # the first 15,120 rows: 2,160 each
    assert collections.Counter(y_test.tolist()) == expected
    assert set(np.unique(X_test[:, 10:])) == {0.0, 1.0}


@pytest.mark.slow
def test_train_and_validation_equal_the_kaggle_file(cover, mirror, shared_home):
    kaggle = data.load("covertype", parts=["train", "validation"], source="kaggle-partial",
                       mirror=mirror, data_home=shared_home)
    for part in ("train", "validation"):
        np.testing.assert_array_equal(cover.parts[part][0], kaggle.parts[part][0])
        np.testing.assert_array_equal(cover.parts[part][1], kaggle.parts[part][1])


@pytest.mark.slow
def test_the_parsed_cache_is_small_and_exact(cover, mirror, shared_home):
    folder = shared_home / "covertype" / "parsed"
    [test_entry] = folder.glob("uci-test-*.npz")
    with np.load(test_entry) as stored:
        dtypes = {name: stored[name].dtype.name for name in stored.files
                  if name.startswith("X_columns_")}
        binary = stored["X_columns_uint8"]
    assert "X" not in dtypes and set(dtypes.values()) <= {"uint8", "int16", "uint16"}
    assert binary.shape[1] >= 44  # the 44 binary columns (and slope) as uint8
    size = sum(path.stat().st_size for path in folder.glob("uci-*.npz"))
    assert size < 45e6  # float64 would take 581,012 x 54 x 8 = 251 MB
    again = data.load("covertype", parts="test", mirror=mirror, data_home=shared_home)
    assert again.sources["covtype.data"].startswith("parsed cache ")
    np.testing.assert_array_equal(again.parts["test"][0], cover.parts["test"][0])
