"""The parsed cache is tied to the verified raw files, and a data home that cannot be written
does not break loading: tampered entries are rebuilt, unwritable folders are one warning or one
DatasetError."""

import errno
import json
import os
import re
import shutil
import warnings

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data import cache
from helpers import counts

VOWEL_TRAIN = {c: 48 for c in range(11)}


@pytest.fixture(autouse=True)
def no_mirror_setting(monkeypatch):
    """No mirror from the environment: each test names the folders it reads."""
    monkeypatch.delenv("MULTISVM_MIRROR", raising=False)


def entry(data_home, part="train"):
    """The .npz of vowel's uci ``part`` in the parsed cache."""
    (path,) = (data_home / "vowel" / "parsed").glob(f"uci-{part}-*.npz")
    return path


def arrays(path):
    with np.load(path, allow_pickle=False) as stored:
        return stored["X"], stored["y"]


def load_quietly(mirror):
    """load('vowel') that fails the test on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return data.load("vowel", mirror=mirror)


def cut_rows(path, data_home):
    X, y = arrays(path)
    np.savez(path, X=X[:100], y=y[:100])


def reversed_columns(path, data_home):
    X, y = arrays(path)
    np.savez(path, X=X[:, ::-1], y=y)


def shuffled_labels(path, data_home):
    X, y = arrays(path)
    np.savez(path, X=X, y=np.random.default_rng(0).permutation(y))


def other_valid_npz(path, data_home):
    """A valid npz of the right shape and classes, but other numbers."""
    rng = np.random.default_rng(1)
    np.savez(path, X=rng.normal(size=(528, 10)), y=rng.integers(0, 11, 528))


def other_entry(path, data_home):
    """The test part's entry (arrays and a matching record) copied over the train part's."""
    other = entry(data_home, "test")
    shutil.copyfile(other, path)
    shutil.copyfile(cache.record_path(other), cache.record_path(path))


def record_removed(path, data_home):
    cache.record_path(path).unlink()


def record_garbled(path, data_home):
    record_file = cache.record_path(path)
    record = json.loads(record_file.read_text())
    record["files"] = [1]
    record_file.write_text(json.dumps(record))


def not_an_npz(path, data_home):
    path.write_bytes(b"not a zip file")


def consistent_but_not_the_card(path, data_home):
    """Arrays and record agree with each other (a re-written record), but not with the card."""
    X, y = arrays(path)
    record = {k: v for k, v in cache._read_record(cache.record_path(path)).items()
              if k in ("dataset", "source", "part", "key", "files")}
    cache.write_part(path, X[:100], y[:100], record)


@pytest.mark.parametrize("tamper, reason", [
    (cut_rows, r"its arrays \(X \(100, 10\) float64, y \(100,\) int64\) have sha256 "
               r"[0-9a-f]{16}\.\.\., not the [0-9a-f]{16}\.\.\. recorded when they were parsed "
               r"from the verified raw files"),
    (reversed_columns, r"its arrays \(X \(528, 10\) float64, y \(528,\) int64\) have sha256"),
    (shuffled_labels, r"its arrays \(X \(528, 10\) float64, y \(528,\) int64\) have sha256"),
    (other_valid_npz, r"its arrays .* have sha256 .* not the .* recorded"),
    (other_entry, r"its record is for vowel/uci/test/[0-9a-f]{16}, not vowel/uci/train/"),
    (record_removed, r"no record of its arrays' SHA-256 \(uci-train-[0-9a-f]{16}\.json is "
                     r"missing\)"),
    (not_an_npz, r"not a readable parsed-cache \.npz"),
    (record_garbled, r"its record does not list the raw files vowel-context\.data"),
    (consistent_but_not_the_card, r"vowel train part \(source uci\): shape \(100, 10\), "
                                  r"expected \(528, 10\)"),
])
def test_tampered_parsed_cache_is_discarded_and_rebuilt(mirror, data_home, tamper, reason):
    first = data.load("vowel", mirror=mirror)
    path = entry(data_home)
    tamper(path, data_home)
    with pytest.warns(UserWarning) as caught:
        rebuilt = data.load("vowel", mirror=mirror)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert messages[0].startswith(f"parsed cache {path}: ")
    assert messages[0].endswith("; discarded, parsing the raw files again")
    assert "\n" not in messages[0]
    assert re.search(reason, messages[0]), messages[0]
    # the rebuilt arrays are the verified ones, from the raw file, and cached again
    assert rebuilt.sources["vowel-context.data"].startswith("mirror ")
    assert counts(rebuilt.parts["train"][1]) == VOWEL_TRAIN
    for part in ("train", "test"):
        np.testing.assert_array_equal(rebuilt.parts[part][0], first.parts[part][0])
        np.testing.assert_array_equal(rebuilt.parts[part][1], first.parts[part][1])
    again = load_quietly(mirror)
    assert again.sources["vowel-context.data"].startswith("parsed cache ")
    np.testing.assert_array_equal(again.parts["train"][0], first.parts["train"][0])
    np.testing.assert_array_equal(again.parts["train"][1], first.parts["train"][1])


def test_record_ties_the_arrays_to_the_verified_raw_file(mirror, data_home):
    loaded = data.load("vowel", mirror=mirror)
    path = entry(data_home)
    record = cache._read_record(cache.record_path(path))
    X, y = loaded.parts["train"]
    assert record["arrays_sha256"] == cache.arrays_sha256(X, y)
    assert record["X"] == {"shape": [528, 10], "dtype": "<f8"}
    assert record["y"] == {"shape": [528], "dtype": "<i8"}
    assert (record["dataset"], record["source"], record["part"]) == ("vowel", "uci", "train")
    assert record["key"] == path.stem.split("-")[-1]
    assert record["files"] == [{
        "name": "vowel-context.data",
        "sha256": "1e5c40bdd0b6705c75586eb23f5d9c3078e9588f48bc5c2c98da219fe83fff29",
        "origin": f"mirror {mirror / 'vowel' / 'vowel-context.data'}"}]


def test_arrays_sha256_covers_values_order_shape_and_dtype():
    X = np.arange(12, dtype=np.float64).reshape(4, 3)
    y = np.array([0, 1, 1, 2])
    base = cache.arrays_sha256(X, y)
    assert base == cache.arrays_sha256(X.copy(), y.copy())
    assert base == cache.arrays_sha256(np.asfortranarray(X), y)  # same values, other layout
    for X2, y2 in [(X[::-1], y), (X[:, ::-1], y), (X, y[::-1]), (X.reshape(3, 4), y),
                   (X.astype(np.float32), y), (X, y.astype(np.int32)), (X[:3], y[:3])]:
        assert cache.arrays_sha256(X2, y2) != base
    letters = np.array(["A", "B", "B", "A"])
    assert cache.arrays_sha256(X, letters) != cache.arrays_sha256(X, np.array(["A", "B", "A",
                                                                             "B"]))


def test_a_record_of_another_raw_file_is_refused(mirror, data_home):
    data.load("vowel", mirror=mirror)
    path = entry(data_home)
    X, y = arrays(path)
    record = cache._read_record(cache.record_path(path))
    record["files"][0]["sha256"] = "0" * 64
    cache.write_part(path, X, y, {k: record[k] for k in ("dataset", "source", "part", "key",
                                                          "files")})
    with pytest.warns(UserWarning, match=r"it was parsed from a vowel-context\.data with sha256 "
                                         r"0000000000000000\.\.\., not the verified one"):
        data.load("vowel", mirror=mirror)
    assert cache._read_record(cache.record_path(path))["files"][0]["sha256"].startswith("1e5c")


def readonly(folder):
    """chmod 0o500 ``folder``; skip when that does not stop writes (running as root)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o500)
    if os.access(folder, os.W_OK):
        folder.chmod(0o700)
        pytest.skip("chmod 0o500 does not stop this user writing (root)")
    return folder


@pytest.fixture
def restore_permissions(tmp_path):
    yield
    for folder in [tmp_path, *tmp_path.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o700)


def test_read_only_data_home_loads_from_the_mirror_with_one_warning(
        mirror, data_home, restore_permissions):
    readonly(data_home)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vowel = data.load("vowel", mirror=mirror)
    assert [str(w.message) for w in caught] == [
        f"cannot write the parsed cache in {data_home / 'vowel' / 'parsed'} (Permission denied): "
        "vowel is used uncached and will be parsed again next time (set MULTISVM_DATA_HOME to a "
        "writable folder)"]
    assert counts(vowel.parts["train"][1]) == VOWEL_TRAIN
    assert list(data_home.iterdir()) == []


def test_full_disk_while_caching_loads_with_one_warning_and_leaves_nothing(
        mirror, data_home, monkeypatch):
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", no_space)  # the cache writes with numpy.savez
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vowel = data.load("vowel", mirror=mirror)
    assert len(caught) == 1
    assert "(No space left on device): vowel is used uncached" in str(caught[0].message)
    assert counts(vowel.parts["train"][1]) == VOWEL_TRAIN
    assert list((data_home / "vowel" / "parsed").iterdir()) == []


def test_download_into_a_read_only_data_home_is_one_error(data_home, restore_permissions):
    readonly(data_home)
    with pytest.raises(data.DatasetError) as error:
        data.load("vowel")
    assert str(error.value) == (
        f"vowel: cannot write to {data_home / 'vowel'} (Permission denied); set "
        "MULTISVM_DATA_HOME (or --data-home) to a writable folder with free space")


def test_download_into_an_unwritable_data_home_is_one_error(tmp_path, monkeypatch):
    """The same without chmod (works as root): the data home lies under a regular file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(blocker / "home"))
    with pytest.raises(data.DatasetError, match=r"^vowel: cannot write to .*a-file/home/vowel "
                                                 r"\(Not a directory\); set MULTISVM_DATA_HOME "
                                                 r"\(or --data-home\) to a writable folder"):
        data.load("vowel")


def test_fetch_copy_into_an_unwritable_data_home_is_one_error(mirror, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the parsed cache cannot be written either
        with pytest.raises(data.DatasetError, match=r"^vowel: cannot write to .*a-file/home/"
                                                     r"vowel \(Not a directory\); set "
                                                     r"MULTISVM_DATA_HOME"):
            data.fetch("vowel", mirror=mirror, data_home=blocker / "home")


def test_raw_file_of_the_wrong_size_is_refused_before_hashing(mirror, data_home, tmp_path):
    fake = tmp_path / "mirror"
    (fake / "vowel").mkdir(parents=True)
    raw = (mirror / "vowel" / "vowel-context.data").read_bytes()
    (fake / "vowel" / "vowel-context.data").write_bytes(raw + b"\n")
    with pytest.raises(data.DatasetError, match=r"vowel: vowel-context\.data at .* is 73,566 "
                                                 r"bytes, expected 73,565: the file is corrupt "
                                                 r"or another version; refused"):
        data.load("vowel", mirror=fake)


def test_card_sizes_match_the_mirror(mirror):
    for name in data.names():
        card = data.get_card(name)
        for spec in card.files:
            path = mirror / card.folder / spec.name
            if spec.size and path.is_file():
                assert path.stat().st_size in spec.size, (name, spec.name)


def test_card_size_must_be_a_positive_number_of_bytes():
    from multisvm_cli.data.cards import _file

    assert _file({"name": "f", "size": 10}).size == (10,)
    assert _file({"name": "f", "size": [10, 12]}).size == (10, 12)
    assert _file({"name": "f"}).size == ()
    for bad in (0, -3, "10", 1.5, True, [10, "x"]):
        with pytest.raises(ValueError, match="file f: size must be a positive number of bytes"):
            _file({"name": "f", "size": bad})
