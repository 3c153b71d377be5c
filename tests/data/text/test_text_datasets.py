"""Text cards on the mirror: 20 Newsgroups (bydate) and Reuters-21578 R52; text features."""


import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from multisvm_cli import data
from multisvm_cli.cli.main import main
from multisvm_cli.data import archives
from multisvm_cli.data.text import features as text_features
from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
from helpers import counts, write_files


@pytest.fixture
def news(mirror, shared_home):
    return data.load("20newsgroups", mirror=mirror, data_home=shared_home)


@pytest.fixture
def reuters(mirror, shared_home):
    return data.load("reuters21578", mirror=mirror, data_home=shared_home)


@pytest.mark.slow
def test_20newsgroups_bydate(news):
    (X_train, y_train), (X_test, y_test) = news.parts["train"], news.parts["test"]
    assert (len(X_train), len(X_test)) == (11314, 7532)
    assert X_train.dtype == object and all(isinstance(d, str) for d in X_test)
    assert len(set(y_train)) == len(set(y_test)) == 20 == news.card.n_classes
    assert (counts(y_train)["alt.atheism"], counts(y_test)["alt.atheism"]) == (480, 319)
    assert (counts(y_train)["talk.religion.misc"], counts(y_test)["talk.religion.misc"]) == \
        (377, 251)
    assert news.card.kind == "text"
    assert news.checksums == {"20news-bydate.tar.gz": "20701c5675b5327116388288aa3225c6"
                                                      "1bc1005708ccbda9bfb83c22891263d6"}


@pytest.mark.slow
def test_20newsgroups_reproduces_scikit_learns_documented_vocabulary(news):
    """scikit-learn documents (11314, 130107) for TfidfVectorizer on fetch_20newsgroups' train."""
    X_train = news.parts["train"][0]
    assert TfidfVectorizer().fit_transform(X_train).shape == (11314, 130107)


@pytest.mark.slow
def test_20newsgroups_pools_to_18846_documents_for_a_random_split(news):
    from multisvm_cli.experiment.splits import pooled

    X, y = pooled(news)
    assert len(X) == len(y) == 18846 and X.dtype == object


@pytest.mark.slow
def test_reuters_r52(reuters):
    (X_train, y_train), (X_test, y_test) = reuters.parts["train"], reuters.parts["test"]
    assert (len(X_train), len(X_test)) == (6532, 2568)
    assert len(set(y_train)) == len(set(y_test)) == 52
    assert (counts(y_train)["earn"], counts(y_test)["earn"]) == (2840, 1083)
    assert (counts(y_train)["acq"], counts(y_test)["acq"]) == (1596, 696)
    assert X_train[0].startswith("BAHIA COCOA REVIEW\nShowers continued throughout the week")


@pytest.mark.slow
@pytest.mark.parametrize("folder, archive, digest", [
    ("20newsgroups", "20news-bydate.tar.gz", "20701c5675b5327116388288aa3225c6"),
    ("reuters21578", "reuters21578.tar.gz", "36b7ad58c8eed9757491616f30ade5d7")])
def test_tree_listing_is_the_mirrors_files_sha256(mirror, folder, archive, digest):
    members = archives.read_members(mirror / folder / archive, folder)
    listing = archives.tree_listing(members)
    assert listing == (mirror / folder / "FILES.sha256").read_text()
    assert archives.tree_digest(members).startswith(digest)


@pytest.mark.slow
def test_text_parts_come_back_from_the_parsed_cache(reuters, mirror, shared_home):
    again = data.load("reuters21578", mirror=mirror, data_home=shared_home)
    assert again.sources["reuters21578.tar.gz"].startswith("parsed cache ")
    assert list(again.parts["test"][0]) == list(reuters.parts["test"][0])
    np.testing.assert_array_equal(again.parts["test"][1], reuters.parts["test"][1])


@pytest.mark.slow
def test_a_tampered_text_cache_is_discarded(mirror, tmp_path):
    home = tmp_path / "home"
    first = data.load("reuters21578", parts="test", mirror=mirror, data_home=home)
    [entry] = (home / "reuters21578" / "parsed").glob("*-test-*.npz")
    with np.load(entry) as stored:
        arrays = dict(stored)
    arrays["X_utf8"] = arrays["X_utf8"].copy()
    arrays["X_utf8"][10] = ord("#")
    np.savez(entry, **arrays)
    with pytest.warns(UserWarning, match="discarded"):
        again = data.load("reuters21578", parts="test", mirror=mirror, data_home=home)
    assert list(again.parts["test"][0]) == list(first.parts["test"][0])


def test_the_vocabulary_is_fitted_on_the_training_documents_only(tmp_path):
    train = ["apple banana", "banana cherry", "apple cherry"]
    test = ["zucchini apple", "zucchini"]
    features = fit_transform_parts(TextFeatures(), train, test, cache_dir=tmp_path)
    X_train, X_test = features.matrices
    assert features.vocabulary_size == 3 and X_test.shape == (2, 3)
    assert X_test[1].nnz == 0  # "zucchini" is no feature
    assert features.mean_nonzeros == 2.0
    np.testing.assert_allclose(X_test[0].toarray(), [[1.0, 0.0, 0.0]])
    counted = fit_transform_parts(TextFeatures(vectorizer="counts", norm="none"), train, test)
    np.testing.assert_array_equal(counted.matrices[1].toarray(), [[1, 0, 0], [0, 0, 0]])


@pytest.mark.slow
def test_reuters_features_fit_on_train_only(reuters):
    (X_train, _), (X_test, _) = reuters.parts["train"], reuters.parts["test"]
    settings = TextFeatures(stop_words="english", sublinear_tf=True)
    features = fit_transform_parts(settings, X_train, X_test)
    train_only = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit(X_train)
    everything = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit(
        list(X_train) + list(X_test))
    assert features.vocabulary_size == len(train_only.vocabulary_) < len(everything.vocabulary_)
    assert features.matrices[1].shape == (2568, features.vocabulary_size)


def test_the_features_cache_is_checked_and_rebuilt(tmp_path):
    train, test = ["a1 b2 c3", "b2 c3", "c3 d4"], ["a1 d4"]
    first = fit_transform_parts(TextFeatures(), train, test, cache_dir=tmp_path)
    [entry] = tmp_path.glob("*.npz")
    with np.load(entry) as stored:
        arrays = dict(stored)
    arrays["1_data"] = arrays["1_data"] * 2
    np.savez(entry, **arrays)
    again = fit_transform_parts(TextFeatures(), train, test, cache_dir=tmp_path)
    np.testing.assert_array_equal(again.matrices[1].toarray(), first.matrices[1].toarray())
    other = fit_transform_parts(TextFeatures(), train, ["a1"], cache_dir=tmp_path)
    assert other.matrices[1].nnz == 1 and len(list(tmp_path.glob("*.npz"))) == 2


@pytest.mark.parametrize("settings, message", [
    ({"vectorizer": "bm25"}, "vectorizer must be one of"),
    ({"min_df": 0}, "min_df and max_df"),
    ({"ngram_range": (2, 1)}, "ngram_range"),
    ({"sublinear_tf": True, "vectorizer": "binary"}, "sublinear_tf is for the tfidf")])
def test_bad_feature_settings_are_one_line(settings, message):
    with pytest.raises(data.DatasetError, match=message):
        TextFeatures(**settings)


@pytest.mark.slow
def test_datasets_list_and_info_show_the_text_cards(capsys, mirror, shared_home):
    with pytest.raises(SystemExit):
        main(["datasets", "--mirror", str(mirror), "--data-home", str(shared_home), "list"])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("reuters21578 "))
    assert line.split()[:3] == ["reuters21578", "52", "text"]
    assert "train 6,532 / test 2,568" in line
    with pytest.raises(SystemExit) as stop:
        main(["datasets", "info", "20newsgroups", "--mirror", str(mirror), "--data-home",
              str(shared_home)])
    out = capsys.readouterr().out
    assert stop.value.code == 0
    total = next(x for x in out.splitlines() if x.startswith("total "))
    assert total.split() == ["total", "11314", "7532", "18846"]
    assert "tree ok (20701c5675b53271...)" in out
    assert "text documents" in out


def test_documents_digest_separates_parts():
    assert text_features.documents_digest(["a", "b"], ["c"]) != \
        text_features.documents_digest(["a"], ["b", "c"])


def test_a_users_text_folder(tmp_path):
    root = write_files(tmp_path / "mine", {"spam/1.txt": b"buy now", "spam/2.txt": b"cheap \xe9",
                                           "ham/a.txt": b"hello friend", ".readme": b"hidden"})
    mine = data.load_text_folder("mine", root)
    X, y = mine.parts["all"]
    assert list(y) == ["ham", "spam", "spam"] and list(X) == ["hello friend", "buy now",
                                                              "cheap \xe9"]
    assert mine.card.kind == "text" and mine.card.classes == ("ham", "spam")
    assert mine.checksums == {str(root): archives.tree_digest(
        {"ham/a.txt": b"hello friend", "spam/1.txt": b"buy now", "spam/2.txt": b"cheap \xe9"})}
    with pytest.raises(data.DatasetError, match="more than 2 files"):
        data.load_text_folder("mine", root, max_files=2)
    with pytest.raises(data.DatasetError, match="too large for a text folder"):
        data.load_text_folder("mine", root, max_bytes=20)
    with pytest.raises(data.DatasetError, match="not utf-8 text"):
        data.load_text_folder("mine", root, encoding="utf-8")
    one = write_files(tmp_path / "one", {"spam/1.txt": b"x"})
    with pytest.raises(data.DatasetError, match="one class folder"):
        data.load_text_folder("one", one)
    with pytest.raises(data.DatasetError, match="not found"):
        data.load_text_folder("none", tmp_path / "nothing")


def test_settings_from_a_config_mapping():
    settings = TextFeatures.from_mapping({"vectorizer": "binary", "ngram_range": [1, 2],
                                          "min_df": 2, "max_df": 0.5})
    assert settings.ngram_range == (1, 2) and settings.vectorizer == "binary"
    with pytest.raises(data.DatasetError, match="unknown setting.*idf"):
        TextFeatures.from_mapping({"idf": True})
    with pytest.raises(data.DatasetError, match="ngram_range"):
        TextFeatures.from_mapping({"ngram_range": 3})
