"""Text datasets through the config and the protocol: the features section and its refusals,
the solver key, the vocabulary fitted on training documents only, and a user's text folder
run end to end through reproduce-table."""

import json

import pytest

from multisvm_cli.experiment.config import ConfigError, load_config
from multisvm_cli.experiment.plans import load_plan_data
from multisvm_cli.experiment.protocol.plan import plan_options
from multisvm_cli.experiment.config.forms import Split
from multisvm_cli.experiment.splits import (outer_index_folds, scaled_folds,
                                            validation_index_splits, validation_splits)
from multisvm_cli.experiment.models.metadata import load_trained_model

WORDS = {"sport": "ball goal team match score", "space": "orbit rocket planet moon star",
         "food": "bread cheese apple soup salt"}


def make_text_folder(root, per_class=20):
    """One subfolder per class; document i of a class holds its class words and ``uniqN``,
    a word no other document has."""
    n = 0
    for label, words in WORDS.items():
        (root / label).mkdir(parents=True)
        for i in range(per_class):
            (root / label / f"{i:03d}.txt").write_text(f"{words} uniq{n}\n")
            n += 1
    return root


def text_config(tmp_path, extra=""):
    make_text_folder(tmp_path / "texts")
    path = tmp_path / "text.yaml"
    path.write_text("name: mytext\n"
                    "dataset: [{name: mytexts, path: texts}]\n"
                    "split: {test_fraction: 0.3, seed: 0}\n"
                    "kernels: [{type: linear}]\n"
                    "C: [1]\n"
                    "schemes: [ovr, nb]\n"
                    "scheme_options: {nb: {nb: multinomial}}\n" + extra)
    return path


def refusal(path):
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_features_on_a_numeric_dataset_is_refused(write_config):
    message = refusal(write_config(features={"vectorizer": "tfidf"}))
    assert ":8: features: features is for text datasets and csv files; 'iris' is numeric" in message


def test_a_densifying_scaling_on_text_is_refused(tmp_path):
    message = refusal(text_config(tmp_path, "scaling: standard\n"))
    assert "scaling: 'mytexts' is text (a sparse matrix): standard scaling" in message
    assert "maxabs" in message


def test_an_unknown_vectorizer_key_is_refused(tmp_path):
    message = refusal(text_config(tmp_path, "features: {vectoriser: tfidf}\n"))
    assert "text.yaml:8: features: unknown setting(s) vectoriser" in message
    message = refusal(text_config(tmp_path / "b", "features: {vectorizer: bm25}\n"))
    assert "vectorizer must be one of tfidf, counts, binary" in message


def test_text_defaults_and_the_resolved_features(tmp_path):
    config = load_config(text_config(tmp_path, "features: {min_df: 1, ngram_range: [1, 2]}\n"))
    plan = config.datasets[0]
    assert plan.scaling == "none" and plan.local.format == "text"
    assert plan.features.ngram_range == (1, 2) and plan.features.vectorizer == "tfidf"
    entry = config.resolved["dataset"][0]
    assert entry["features"]["ngram_range"] == [1, 2] and entry["format"] == "text"


def test_solver_resolution_top_dataset_scheme(tmp_path):
    path = text_config(tmp_path, "solver: liblinear\n")
    config = load_config(path)
    assert plan_options(config.study(), config.datasets[0])["ovr"]["solver"] == "liblinear"
    text = path.read_text().replace("path: texts}", "path: texts, solver: libsvm}")
    path.write_text(text.replace("{nb: {nb: multinomial}}",
                                 "{nb: {nb: multinomial}, ovr: {solver: liblinear}}")
                    .replace("schemes: [ovr, nb]", "schemes: [ovr, maxwins, nb]"))
    config = load_config(path)
    options = plan_options(config.study(), config.datasets[0])
    assert config.datasets[0].solver == "libsvm"  # the dataset's wins over the top level's
    assert options["ovr"]["solver"] == "liblinear"  # the scheme's wins over the dataset's
    assert options["maxwins"]["solver"] == "libsvm"
    assert "solver" not in options["nb"]


def test_liblinear_with_a_gaussian_kernel_is_refused(write_config):
    message = refusal(write_config(solver="liblinear"))
    assert ":8: solver: solver liblinear" in message
    assert "the grid has the gaussian kernel" in message


def test_no_vocabulary_comes_from_held_out_documents(tmp_path):
    """Every document has a word of its own: a validation split's fitted vocabulary holds the
    class words and the fitting documents' own words only, and so does the outer fold's."""
    config = load_config(text_config(tmp_path, "features: {norm: none, vectorizer: counts}\n"))
    plan = config.datasets[0]
    dataset = load_plan_data(plan)
    fold = scaled_folds(dataset, plan)[0]
    shared = len(" ".join(WORDS.values()).split())
    n_train = len(fold.y_train)
    assert n_train == 42 and fold.X_train.shape[1] == shared + n_train
    assert fold.text_stats == {"vocabulary_size": shared + n_train, "mean_nonzeros": 6.0}
    assert fold.X_test.shape[1] == fold.X_train.shape[1]
    assert fold.X_test.sum(axis=1).A1.tolist() == [5.0] * len(fold.y_test)  # uniq words unseen
    (fit_rows, score_rows), = validation_index_splits(fold.y_train, plan.validation)
    (X_fit, _, X_score, _), = validation_splits(fold, plan.validation)
    assert X_fit.shape[1] == X_score.shape[1] == shared + len(fit_rows) < shared + n_train
    assert X_score.sum(axis=1).A1.tolist() == [5.0] * len(score_rows)


def test_a_text_folder_runs_through_reproduce_table(tmp_path, monkeypatch, run_multisvm,
                                                    data_home):
    from sklearn.feature_extraction.text import TfidfVectorizer

    path = text_config(tmp_path, "solver: liblinear\n")
    monkeypatch.chdir(tmp_path)
    result = run_multisvm("reproduce-table", path, "--no-figures", "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    folder = tmp_path / rows[0]["run_folder"]
    results = json.loads((folder / "results.json").read_text())["results"]
    dataset = load_plan_data(load_config(path).datasets[0])
    X, y = dataset.parts["all"]
    (train, _), = outer_index_folds(y, Split("holdout", test_fraction=0.3, seed=0))
    expected = len(TfidfVectorizer().fit(list(X[train])).vocabulary_)
    assert expected == 15 + 42
    for row in results:
        assert row["features"] == {"vocabulary_size": expected, "mean_nonzeros": 6.0}
    assert {r["scheme"]: (r["n_errors"], r["n_test"]) for r in results} == {"ovr": (0, 18), "nb": (0, 18)}
    assert (data_home / "text-features").is_dir()
    # train fits the same outer training part, and saves its vocabulary with the model
    trained = run_multisvm("train", path, "--scheme", "ovr", "-o", tmp_path / "model", "-q")
    assert trained.code == 0, trained.err
    model = load_trained_model(tmp_path / "model")
    assert model.text.vocabulary_size == expected == model.estimator.n_features_in_
