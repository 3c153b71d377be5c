"""A model trained on documents keeps its fitted text pipeline, and `multisvm predict` on a
folder of documents featurizes them exactly as the training documents were.

Trained through the CLI on a user's text folder (seeded synthetic documents of three topics
that share words, so the model makes some errors) and on the shipped Reuters card: the saved
vocabulary and idf are the fitted vectorizer's; predict on a folder gives exactly what the
estimator gives on the same documents vectorized by the experiment path; class subfolders give
the error rate, which evaluate agrees with; unknown words are no feature; an empty document
gets the prediction of a row of zeros; a tampered vocabulary, a folder for a model of feature
vectors and a file for a text model are refused with one line."""

import csv
import io
import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from model_files import edit_arrays, edit_json
from multisvm_cli import data
from multisvm_cli.data.text.features import TextFeatures
from multisvm_cli.experiment.splits import vectorized
from multisvm_cli.experiment.models.metadata import load_trained_model
from helpers import refused

TOPICS = {"cooking": "recipe oven flour sugar butter bake dinner salt garlic pasta team",
          "space": "orbit rocket planet moon launch nasa shuttle star telescope dinner",
          "sports": "goal match team player score season coach league ball star"}
COMMON = "the of and today people said would think good time year new make".split()
FEATURES = {"vectorizer": "tfidf", "stop_words": "english", "min_df": 2, "sublinear_tf": True,
            "ngram_range": [1, 2]}


def write_documents(folder, per_class, seed, flat=False):
    """``per_class`` seeded documents of each topic under ``folder`` (one subfolder per class,
    or, ``flat``, all at its top level); {relative path: (text, class)}."""
    rng = np.random.default_rng(seed)
    written = {}
    for topic, words in TOPICS.items():
        words = words.split()
        for i in range(per_class):
            text = " ".join(rng.choice(words) if rng.random() < 0.2 else rng.choice(COMMON)
                            for _ in range(8))
            name = f"{topic}-{i:02d}.txt" if flat else f"{topic}/{i:02d}.txt"
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="latin-1")
            written[name] = (text, topic)
    return written


@pytest.fixture
def texts(tmp_path, data_home):
    """(training documents, test documents) written to texts/ and texts-test/."""
    return (write_documents(tmp_path / "texts", 20, seed=0),
            write_documents(tmp_path / "texts-test", 15, seed=1))


def train(run_multisvm, write_config, tmp_path, scheme="ovr", scaling="maxabs", **overrides):
    """A ``scheme`` model of the texts/ folder trained through the CLI; its folder."""
    settings = dict(
        dataset=[{"name": "mytexts", "path": "texts", "test_path": "texts-test",
                  "kind": "text"}],
        split="standard", validation={"method": "holdout", "train_fraction": 0.7, "seed": 0},
        features=FEATURES, scaling=scaling, kernels=[{"type": "linear"}], C=[0.1, 1, 10],
        solver="liblinear", schemes=["ovr", "nb"],
        scheme_options={"ovr": {"probability": True}, "nb": {"nb": "multinomial"}}, seed=0)
    config = write_config(**{**settings, **overrides})
    model = tmp_path / f"model-{scheme}-{scaling}"
    code, _, err = run_multisvm("train", config, "--scheme", scheme, "-o", model, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    return model


def table(text):
    """predict's csv as (header, rows)."""
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def experiment_rows(model, train_docs, docs):
    """``docs`` as the experiment path featurizes a test part: the vectorizer of the model's
    settings fitted on ``train_docs`` (:func:`vectorized`), scaled by the scaling it fitted."""
    loaded = load_trained_model(model)
    settings = TextFeatures.from_mapping(loaded.metadata["text"]["settings"])
    _, scaler, (_, X) = vectorized(settings, loaded.metadata["scaling"], train_docs, docs)
    return loaded, X


def test_the_saved_vocabulary_and_idf_are_the_fitted_vectorizers(texts, tmp_path,
                                                                  run_multisvm, write_config):
    train_texts = [text for text, _ in (texts[0][k] for k in sorted(texts[0]))]
    model = train(run_multisvm, write_config, tmp_path)
    loaded = load_trained_model(model)
    fitted = TfidfVectorizer(stop_words="english", min_df=2, sublinear_tf=True,
                             ngram_range=(1, 2)).fit(train_texts)
    vocabulary = fitted.vocabulary_
    assert loaded.text.terms == tuple(sorted(vocabulary, key=vocabulary.get))
    assert len(loaded.text.terms) == loaded.estimator.n_features_in_ > 30
    assert any(" " in term for term in loaded.text.terms)  # bigrams were kept
    np.testing.assert_array_equal(loaded.text.idf, fitted.idf_)
    assert loaded.text.settings == TextFeatures.from_mapping(FEATURES)
    assert loaded.text.encoding == "latin-1"
    # the scaling after the vectorizer is the saved scaler: maxabs, fitted on the training rows
    X = fitted.transform(train_texts)
    assert loaded.scaler.method == "maxabs"
    np.testing.assert_allclose(loaded.scaler.scale_, abs(X).max(axis=0).toarray().ravel())
    document = json.loads((model / "model.json").read_text())
    assert document["metadata"]["text"]["vocabulary_size"] == len(vocabulary)
    assert {"extra.text_terms_utf8", "extra.text_terms_ends", "extra.text_idf"} <= \
        set(document["arrays"])


def test_predict_on_a_folder_equals_the_experiment_path(texts, tmp_path, run_multisvm,
                                                        write_config):
    train_docs, test_docs = texts
    model = train(run_multisvm, write_config, tmp_path)
    names = sorted(test_docs)
    loaded, X = experiment_rows(model, [train_docs[k][0] for k in sorted(train_docs)],
                                [test_docs[k][0] for k in names])
    expected = loaded.estimator.predict(X)
    truth = np.array([test_docs[k][1] for k in names])
    wrong = int(np.sum(expected != truth))
    assert 0 < wrong < len(names) / 3  # a real classifier, not perfect on these documents

    code, out, err = run_multisvm("predict", model, tmp_path / "texts-test", "--proba")
    assert code == 0, err
    header, rows = table(out)
    assert header == ["row", "label", "p_cooking", "p_space", "p_sports"]
    assert [r[0] for r in rows] == names  # each document's path relative to the folder
    assert [r[1] for r in rows] == expected.tolist()
    proba = np.array([[float(p) for p in r[2:]] for r in rows])
    np.testing.assert_allclose(proba, loaded.estimator.predict_proba(X), rtol=1e-5)
    assert err.strip() == (f"error rate against the class folders: "
                           f"{100 * wrong / len(names):.2f}% ({wrong} of {len(names)} documents)")

    # evaluate featurizes the model's own test documents the same way
    code, out, err = run_multisvm("evaluate", model)
    assert code == 0, err
    assert f"error rate: {100 * wrong / len(names):.2f}% ({wrong} errors)" in out
    assert f"data: mytexts test, {len(names)} points" in out


def test_without_class_folders_each_top_level_file_is_a_document(texts, tmp_path,
                                                                 run_multisvm, write_config):
    """A folder of documents alone: one prediction each, by file name, no error rate; unknown
    words are no feature; an empty document is a row of zeros, predicted as one; -o writes the
    table and refuses an existing file."""
    model = train(run_multisvm, write_config, tmp_path, scheme="nb", scaling="none")
    flat = write_documents(tmp_path / "new", 4, seed=2, flat=True)
    known = flat["space-00.txt"][0]
    (tmp_path / "new" / "space-00-unknown.txt").write_text(
        f"zyzzyva {known} quux-blorp xenolith", encoding="latin-1")
    (tmp_path / "new" / "zz-empty.txt").write_text("")
    written = {**{k: text for k, (text, _) in flat.items()},
               "space-00-unknown.txt": f"zyzzyva {known} quux-blorp xenolith", "zz-empty.txt": ""}
    names = sorted(written)
    docs = [written[k] for k in names]
    loaded = load_trained_model(model)
    assert loaded.scaler.method == "none" and loaded.estimator.nb == "multinomial"
    X = loaded.text.transform(docs)
    assert not ({"zyzzyva", "quux", "blorp", "xenolith"} & set(loaded.text.terms))
    assert (X[names.index("space-00-unknown.txt")] != X[names.index("space-00.txt")]).nnz == 0
    assert X[-1].nnz == 0
    train_docs = texts[0]
    _, X_experiment = experiment_rows(model, [train_docs[k][0] for k in sorted(train_docs)],
                                      docs)
    expected = loaded.estimator.predict(X_experiment)
    empty = loaded.estimator.predict(sp.csr_matrix((1, X.shape[1])))[0]

    out_file = tmp_path / "predictions.csv"
    code, out, err = run_multisvm("predict", model, tmp_path / "new", "-o", out_file)
    assert code == 0, err
    assert out == "" and err.strip() == f"{len(names)} predictions of {tmp_path / 'new'} " \
                                         f"written to {out_file}"  # and no error rate
    header, rows = table(out_file.read_text())
    assert header == ["row", "label"] and [r[0] for r in rows] == names
    assert [r[1] for r in rows] == expected.tolist()
    assert rows[-1][1] == empty  # the empty document: the prediction of a row of zeros
    assert rows[names.index("space-00-unknown.txt")][1] == rows[names.index("space-00.txt")][1]
    refused(run_multisvm("predict", model, tmp_path / "new", "-o", out_file),
            "already exists", "--force")
    code, _, err = run_multisvm("predict", model, tmp_path / "new", "-o", out_file, "--force")
    assert code == 0, err


def test_a_tampered_vocabulary_is_refused(texts, tmp_path, run_multisvm, write_config):
    model = train(run_multisvm, write_config, tmp_path)
    folder = tmp_path / "texts-test"
    code, _, err = run_multisvm("predict", model, folder)
    assert code == 0, err

    def swap_two_bytes(arrays):
        terms = arrays["extra.text_terms_utf8"]
        terms[[0, 1]] = terms[[1, 0]]

    def repeat_a_term(arrays):  # the second term made the first (offsets kept consistent)
        utf8, ends = arrays["extra.text_terms_utf8"], arrays["extra.text_terms_ends"]
        first, second = bytes(utf8[:ends[0]]), bytes(utf8[ends[0]:ends[1]])
        arrays["extra.text_terms_utf8"] = np.frombuffer(
            first + first + bytes(utf8[ends[1]:]), dtype=np.uint8)
        arrays["extra.text_terms_ends"] = ends + (len(first) - len(second)) * \
            (np.arange(len(ends)) >= 1)

    def drop_idf(arrays):
        arrays["extra.text_idf"] = arrays["extra.text_idf"][:-1]

    edits = {
        "changed": (swap_two_bytes, False, ("extra.text_terms_utf8", "changed after saving")),
        "repeated": (repeat_a_term, True, ("bad text pipeline", "repeats the term")),
        "idf": (drop_idf, True, ("extra.text_idf", "is <f8")),
    }
    for name, (change, seal, fragments) in edits.items():
        copy = tmp_path / f"tampered-{name}"
        copy.mkdir()
        for file in model.iterdir():
            (copy / file.name).write_bytes(file.read_bytes())
        edit_arrays(copy, change, seal=seal)
        refused(run_multisvm("predict", copy, folder), *fragments)
        refused(run_multisvm("evaluate", copy), *fragments)
    sealed = tmp_path / "tampered-size"
    sealed.mkdir()
    for file in model.iterdir():
        (sealed / file.name).write_bytes(file.read_bytes())
    edit_json(sealed, lambda d: d["metadata"]["text"].update(vocabulary_size=3))
    refused(run_multisvm("predict", sealed, folder), "vocabulary holds", "vocabulary_size says 3")


def test_a_folder_for_a_numeric_model_and_a_file_for_a_text_model_are_refused(
        texts, tmp_path, run_multisvm, write_config):
    model = train(run_multisvm, write_config, tmp_path)
    numeric = tmp_path / "iris-ovr"
    iris = write_config("iris.yaml", kernels=[{"type": "linear"}], C=[1], schemes=["ovr"])
    code, _, err = run_multisvm("train", iris, "--scheme", "ovr", "-o", numeric, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    refused(run_multisvm("predict", numeric, tmp_path / "texts-test"),
            "is a folder", "trained on documents", "4 numeric features")
    (tmp_path / "points.csv").write_text("1,2,3,4\n")
    refused(run_multisvm("predict", model, tmp_path / "points.csv"),
            "points.csv: a file", "trained on documents (mytexts)", "folder of documents")
    refused(run_multisvm("predict", model, tmp_path / "missing"), "missing: not found")
    refused(run_multisvm("predict", model, tmp_path / "texts-test", "--format", "csv"),
            "--input-format and --zero-based are for files of features")  # --format: its old name
    (tmp_path / "empty").mkdir()
    refused(run_multisvm("predict", model, tmp_path / "empty"), "empty: no documents")


@pytest.mark.slow
def test_a_model_of_the_reuters_card_predicts_its_documents(mirror, shared_home, data_home,
                                                           tmp_path, run_multisvm,
                                                           write_config):
    """The shipped Reuters card (R52, ModApte): a folder of 40 of its test documents, one
    subfolder per topic, is predicted as the experiment path predicts them."""
    config = write_config(dataset="reuters21578", split="standard",
                          validation={"method": "holdout", "train_fraction": 0.7, "seed": 0},
                          features={"stop_words": "english", "min_df": 2, "max_df": 0.5,
                                    "sublinear_tf": True},
                          scaling="none", kernels=[{"type": "linear"}], C=[1],
                          solver="liblinear", schemes=["ovr"], seed=0)
    model = tmp_path / "reuters-ovr"
    code, _, err = run_multisvm("train", config, "--scheme", "ovr", "-o", model, "--out",
                                tmp_path / "results", "--mirror", mirror, "--data-home",
                                shared_home, "-q")
    assert code == 0, err
    reuters = data.load("reuters21578", mirror=mirror, data_home=shared_home)
    (train_docs, _), (test_docs, test_y) = reuters.parts["train"], reuters.parts["test"]
    rows = np.arange(0, len(test_docs), len(test_docs) // 40)[:40]
    for i in rows:  # a subfolder per topic, as a user would write them (the card's Latin-1)
        path = tmp_path / "news" / test_y[i] / f"{i:04d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(test_docs[i].encode("latin-1"))
    loaded, X = experiment_rows(model, train_docs, test_docs[rows])
    assert loaded.text.vocabulary_size == loaded.estimator.n_features_in_ > 10_000
    expected = dict(zip((f"{test_y[i]}/{i:04d}.txt" for i in rows),
                        loaded.estimator.predict(X)))
    code, out, err = run_multisvm("predict", model, tmp_path / "news")
    assert code == 0, err
    _, predicted = table(out)
    assert dict(predicted) == expected
    wrong = sum(expected[f"{test_y[i]}/{i:04d}.txt"] != test_y[i] for i in rows)
    assert wrong < 10
    assert err.strip() == f"error rate against the class folders: {100 * wrong / 40:.2f}% " \
                          f"({wrong} of 40 documents)"
    # evaluate: the whole ModApte test part, featurized by the saved pipeline
    _, X_test = experiment_rows(model, train_docs, test_docs)
    errors = int(np.sum(loaded.estimator.predict(X_test) != test_y))
    assert 0 < errors < 0.1 * len(test_y)
    code, out, err = run_multisvm("evaluate", model, "--mirror", mirror, "--data-home",
                                  shared_home)
    assert code == 0, err
    assert f"data: reuters21578 test, {len(test_y)} points" in out
    assert f"error rate: {100 * errors / len(test_y):.2f}% ({errors} errors)" in out


def test_a_version_2_model_folder_still_loads_and_predicts(tmp_path, run_multisvm,
                                                           write_config, data_home):
    """Models are saved as format version 3 (which adds the text pipeline); a folder saved as
    version 2 before it (a model of feature vectors) loads and predicts as it did; version 1
    and a version written as a float are refused."""
    from multisvm_cli.persist import FORMAT_VERSION

    config = write_config(kernels=[{"type": "linear"}], C=[1], schemes=["ovr"])
    model = tmp_path / "iris-ovr"
    code, _, err = run_multisvm("train", config, "--scheme", "ovr", "-o", model, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    assert FORMAT_VERSION == 3 and json.loads((model / "model.json").read_text())[
        "format_version"] == 3
    (tmp_path / "points.csv").write_text("5.1,3.5,1.4,0.2\n6.3,2.9,5.6,1.8\n5.9,2.8,4.3,1.3\n")
    code, before, err = run_multisvm("predict", model, tmp_path / "points.csv")
    assert code == 0, err
    assert [r[1] for r in table(before)[1]] == ["0", "2", "1"]
    edit_json(model, lambda d: d.update(format_version=2))
    assert run_multisvm("predict", model, tmp_path / "points.csv") == (0, before, "")
    for version in (1, 3.0):
        edit_json(model, lambda d: d.update(format_version=version))
        refused(run_multisvm("predict", model, tmp_path / "points.csv"),
                f"version {version}", "reads versions 2, 3")
