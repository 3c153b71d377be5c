"""The data layer on the real files of the mirror: shapes, class counts, splits, sources."""

import collections
import shutil

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data import cache
from helpers import counts

LETTER_COUNTS = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [
    789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792, 783, 753, 803, 783, 758,
    748, 796, 813, 764, 752, 787, 786, 734]))
USPS_TRAIN = [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]
USPS_TEST = [359, 264, 198, 166, 200, 160, 170, 147, 166, 177]


def test_registry_names_and_cards():
    assert data.names() == ["20newsgroups", "abalone", "car", "covertype", "dermatology",
                            "digits", "dna", "ecoli", "glass", "iris", "letter", "letter-hsu-lin",
                            "optdigits", "page-blocks", "pendigits", "reuters21578", "satimage",
                            "segment", "shuttle", "soybean-large", "usps", "vehicle", "vowel",
                            "vowel-hsu-lin", "waveform", "wine", "yeast"]
    letter = data.get_card("letter")
    assert (letter.n_classes, letter.n_features, letter.split) == (26, 16, "fixed")
    assert letter.parts == {"train": 16000, "test": 4000}
    covertype = data.get_card("covertype")
    assert covertype.continuous_columns == tuple(range(10))
    assert covertype.binary_columns == tuple(range(10, 54))
    assert covertype.parts == {"train": 11340, "validation": 3780, "test": 565892}
    assert data.get_card("vehicle").parts == {"all": 846}


def test_covertype_card_checks_the_decompressed_file_and_knows_sklearns_archive():
    from sklearn.datasets._covtype import ARCHIVE

    card = data.get_card("covertype")
    spec = card.source("uci").files[0]
    assert (spec.name, spec.size, spec.gunzip) == ("covtype.data", (75169317,), True)
    assert spec.sha256 == ("0a9371cef7c964b5475d6053cc3e0894a5aa6f65ad1ed3ecb01c45aa96217945",)
    assert spec.url.endswith("/covtype/covtype.data.gz")
    archive = card.source("uci-gz").files[0]
    assert archive.name == ARCHIVE.filename and archive.sha256 == (ARCHIVE.checksum,)


def test_unknown_name_and_part_are_one_line_errors():
    with pytest.raises(data.DatasetError, match="unknown dataset 'mnist'.*letter"):
        data.load("mnist")
    with pytest.raises(data.DatasetError, match="letter has no part validation"):
        data.load("letter", parts=["validation"])


def test_letter_split(mirror, data_home):
    letter = data.load("letter", mirror=mirror)
    (X_train, y_train), (X_test, y_test) = letter.parts["train"], letter.parts["test"]
    assert X_train.shape == (16000, 16) and X_test.shape == (4000, 16)
    assert X_train.dtype == np.float64
    assert y_train[0] == "T"
    np.testing.assert_array_equal(X_train[0], [2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10, 8, 0, 8, 0, 8])
    total = collections.Counter(y_train.tolist()) + collections.Counter(y_test.tolist())
    assert dict(total) == LETTER_COUNTS
    assert letter.checksums == {"letter-recognition.data": data.get_card("letter").sha256s[
        "letter-recognition.data"][0]}
    assert letter.sources["letter-recognition.data"].startswith("mirror ")


def test_usps_split_and_scale(mirror, data_home):
    usps = data.load("usps", mirror=mirror)
    (X_train, y_train), (X_test, y_test) = usps.parts["train"], usps.parts["test"]
    assert X_train.shape == (7291, 256) and X_test.shape == (2007, 256)
    assert counts(y_train) == dict(enumerate(USPS_TRAIN))
    assert counts(y_test) == dict(enumerate(USPS_TEST))
    np.testing.assert_array_equal(y_train[:10], [6, 5, 4, 7, 3, 6, 3, 1, 0, 1])
    assert X_train.min() == 0.0 and X_train.max() == 1.0
    # canonical values are (v + 1) / 2 of ESL values v with 3 decimals (not float32 noise)
    v = 2 * X_train - 1
    np.testing.assert_allclose(v, np.round(v, 3), rtol=0, atol=1e-12)


def test_usps_esl_text_and_hdf5_give_the_same_arrays(mirror, data_home):
    import h5py

    from_h5 = data.load("usps", parts=["test"], mirror=mirror, source="hdf5")
    from_text = data.load("usps", parts=["test"], mirror=mirror, source="esl")
    assert from_text.checksums == {
        "zip.test": "0b4c03aae4ecb9a71fa440e84de1f6f330e5ac58a04d37a8557b005379bdec95"}
    np.testing.assert_array_equal(from_text.parts["test"][0], from_h5.parts["test"][0])
    np.testing.assert_array_equal(from_text.parts["test"][1], from_h5.parts["test"][1])
    # the raw HDF5 values are (v + 1) / 2 of the ESL text, to float32 precision
    with h5py.File(mirror / "usps" / "usps.h5", "r") as store:
        raw = store["test/data"][...]
    assert np.abs(from_text.parts["test"][0] - raw).max() < 6e-8


def test_usps_train_part_needs_zip_train_for_the_esl_source(mirror, data_home):
    with pytest.raises(data.DatasetError, match=r"zip\.train .*hastie.*put it in"):
        data.load("usps", parts=["train"], mirror=mirror, source="esl")


def test_covertype_partial_source(partial_mirror, data_home):
    cover = data.load("covertype", parts=["train", "validation"], mirror=partial_mirror)
    assert cover.source_id == "kaggle-partial"
    (X_train, y_train), (X_val, y_val) = cover.parts["train"], cover.parts["validation"]
    assert X_train.shape == (11340, 54) and X_val.shape == (3780, 54)
    assert counts(y_train) == {c: 1620 for c in range(1, 8)}
    assert counts(y_val) == {c: 540 for c in range(1, 8)}
    np.testing.assert_array_equal(X_train[0, :10], [2596, 51, 3, 258, 0, 510, 221, 232, 148,
                                                    6279])
    assert y_train[0] == 5
    assert set(np.unique(X_train[:, 10:])) == {0.0, 1.0}


def test_covertype_test_part_without_the_full_file_says_what_to_get(partial_mirror, data_home):
    with pytest.raises(data.DatasetError) as error:
        data.load("covertype", mirror=partial_mirror)
    message = str(error.value)
    assert "\n" not in message
    assert "get covtype.data from " in message
    assert "https://archive.ics.uci.edu/ml/machine-learning-databases/covtype/covtype.data.gz" \
        in message
    assert str(data_home / "covtype") in message
    assert "kaggle-partial source found, it gives only train, validation" in message


def test_vowel_sources_agree(mirror, data_home):
    uci = data.load("vowel", mirror=mirror)
    esl = data.load("vowel", mirror=mirror, source="esl")
    for part, size, per_class in (("train", 528, 48), ("test", 462, 42)):
        X, y = uci.parts[part]
        assert X.shape == (size, 10)
        assert counts(y) == {c: per_class for c in range(11)}
        np.testing.assert_array_equal(X, esl.parts[part][0])
        np.testing.assert_array_equal(y, esl.parts[part][1])


@pytest.mark.parametrize("name, shape, expected", [
    ("glass", (214, 9), {1: 70, 2: 76, 3: 17, 5: 13, 6: 9, 7: 29}),
    ("vehicle", (846, 18), {"bus": 218, "opel": 212, "saab": 217, "van": 199}),
    ("segment", (2310, 19), {c: 330 for c in range(1, 8)}),
    ("iris", (150, 4), {0: 50, 1: 50, 2: 50}),
    ("wine", (178, 13), {0: 59, 1: 71, 2: 48}),
    ("digits", (1797, 64), {0: 178, 1: 182, 2: 177, 3: 183, 4: 181, 5: 182, 6: 181, 7: 179,
                            8: 174, 9: 180}),
])
def test_unsplit_datasets(mirror, data_home, name, shape, expected):
    dataset = data.load(name, mirror=mirror)
    X, y = dataset.parts["all"]
    assert list(dataset.parts) == ["all"]
    assert X.shape == shape and X.dtype == np.float64
    assert counts(y) == expected
    assert len(dataset.checksums) >= 1 and all(len(d) == 64 for d in dataset.checksums.values())


def test_wine_uci_file_equals_sklearns_copy(mirror, data_home):
    sk = data.load("wine", mirror=mirror)
    uci = data.load("wine", mirror=mirror, source="uci")
    assert sk.source_id == "sklearn"
    np.testing.assert_array_equal(sk.parts["all"][0], uci.parts["all"][0])
    np.testing.assert_array_equal(sk.parts["all"][1], uci.parts["all"][1])


def test_second_load_comes_from_the_parsed_cache(mirror, data_home):
    first = data.load("letter", mirror=mirror)
    parsed = sorted((data_home / "letter" / "parsed").glob("*.npz"))
    assert [p.name.split("-")[:2] for p in parsed] == [["uci", "test"], ["uci", "train"]]
    for path in parsed:  # plain arrays, readable without pickle
        with np.load(path, allow_pickle=False) as stored:
            assert stored["y"].dtype.kind == "U"
    second = data.load("letter", mirror=mirror)
    assert second.sources["letter-recognition.data"].startswith("parsed cache ")
    assert second.checksums == first.checksums
    for part in ("train", "test"):
        np.testing.assert_array_equal(second.parts[part][0], first.parts[part][0])
        np.testing.assert_array_equal(second.parts[part][1], first.parts[part][1])


def test_raw_file_in_the_data_home_comes_before_the_mirror(mirror, data_home, tmp_path):
    (data_home / "glass").mkdir(parents=True)
    shutil.copy(mirror / "glass" / "glass.data", data_home / "glass" / "glass.data")
    dataset = data.load("glass", mirror=tmp_path / "empty-mirror")
    assert dataset.sources["glass.data"] == f"cache {data_home / 'glass' / 'glass.data'}"


def test_wrong_checksum_is_refused_and_nothing_parsed(mirror, data_home, tmp_path):
    fake_mirror = tmp_path / "mirror"
    (fake_mirror / "letter").mkdir(parents=True)
    raw = (mirror / "letter" / "letter-recognition.data").read_bytes()
    altered = raw.replace(b"T,2,8", b"T,3,8", 1)
    (fake_mirror / "letter" / "letter-recognition.data").write_bytes(altered)
    with pytest.raises(data.DatasetError, match=r"letter: letter-recognition\.data at .* has "
                                                 r"sha256 [0-9a-f]{64}, expected 2b89f36.*refused"):
        data.load("letter", mirror=fake_mirror)
    assert not (data_home / "letter").exists()


@pytest.mark.slow
def test_changed_raw_file_without_known_checksum_invalidates_the_parsed_cache(mirror, data_home):
    import gzip

    folder = data_home / "usps"
    folder.mkdir(parents=True)
    text = (mirror / "usps" / "zip.test").read_bytes()
    (folder / "zip.test.gz").write_bytes(gzip.compress(text))
    first = data.load("usps", parts=["test"], source="esl-gz")
    assert first.parts["test"][1][0] == 9
    (folder / "zip.test.gz").write_bytes(gzip.compress(b"7" + text[1:]))
    second = data.load("usps", parts=["test"], source="esl-gz")
    assert second.parts["test"][1][0] == 7
    assert second.checksums["zip.test.gz"] != first.checksums["zip.test.gz"]
    assert len(list((folder / "parsed").glob("esl-gz-test-*.npz"))) == 2


def test_parsed_cache_key_depends_on_the_digests():
    source = data.get_card("letter").source("uci")
    assert cache.key(source, "train", ["a" * 64]) != cache.key(source, "train", ["b" * 64])
    assert cache.key(source, "train", ["a" * 64]) != cache.key(source, "test", ["a" * 64])
