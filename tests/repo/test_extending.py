"""The recipes of docs/explanation/extending.md work as written: each code block marked
``<!-- recipe: NAME -->`` is read from the page and run as the module the page says to write
(a scheme, a scheme's option, a figure, a card data format, a local format), or checked against
what the package holds (the dataset card), with numbers that would be wrong if the recipe were;
the config key's and the column's recipes are run by their tables' tests, and a test here checks
that some test runs every recipe."""

import dataclasses
import hashlib
import importlib.util
import re
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import yaml
from sklearn.datasets import load_iris

from multisvm_cli import data
from multisvm_cli.data import formats
from multisvm_cli.estimators import registry
from multisvm_cli.estimators.maxwins import MaxWinsSVC
from multisvm_cli.experiment import load_config
from multisvm_cli.persist import load_model, save_model
from multisvm_cli.report.figures import base as figures_base
from multisvm_cli.report.figures import drawing
from helpers import REPO, recipes, refused


def load_recipe(name, module, tmp_path, monkeypatch):
    """The recipe ``name`` imported as the package's module ``module`` (its relative imports
    resolve as in the package), for one test."""
    path = tmp_path / f"{module.rpartition('.')[2]}.py"
    path.write_text(recipes()[name], encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module, path)
    loaded = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module, loaded)
    spec.loader.exec_module(loaded)
    return loaded


def test_the_page_holds_every_recipe_and_a_test_runs_each():
    names = {"scheme", "scheme-line", "scheme-option", "config-key", "column", "figure", "card",
             "format", "local-format"}
    assert set(recipes()) == names
    tests = "".join(path.read_text(encoding="utf-8") for path in (REPO / "tests").rglob("*.py"))
    for name in names:
        assert re.search(rf'(recipes\(\)\[|recipe\w*\()"{name}"', tests), f"no test runs {name}"


@pytest.fixture
def vote(tmp_path, monkeypatch):
    """The page's scheme, registered by the page's registry line for one test."""
    load_recipe("scheme", "multisvm_cli.estimators.vote", tmp_path, monkeypatch)
    line = recipes()["scheme-line"].strip().rstrip(",")
    scheme = eval(line, {"Scheme": registry.Scheme, "_HERE": "multisvm_cli.estimators"})
    monkeypatch.setitem(registry.REGISTRY, scheme.name, scheme)
    return scheme


def test_the_scheme_recipe_trains_predicts_and_saves(vote, tmp_path):
    X, y = load_iris(return_X_y=True)
    assert registry.scheme_name("Vote") == "vote" and registry.label("vote") == "Vote"
    model = registry.estimator("vote")(sigma=0.5, C=1.0).fit(X, y)
    maxwins = MaxWinsSVC(sigma=0.5, C=1.0).fit(X, y)
    assert model.n_parameters_ == maxwins.n_parameters_  # the same machines
    assert model.kernel_evaluations(X) == maxwins.kernel_evaluations(X)
    scores = model.decision_function(X)
    pairwise = maxwins.machines_.decision(X, maxwins.memory_mb, maxwins.n_jobs)
    weights = np.tanh(np.abs(pairwise))  # the votes of pairs (0, 1), (0, 2), (1, 2)
    np.testing.assert_allclose(scores[:, 0], np.where(pairwise[:, 0] < 0, weights[:, 0], 0)
                               + np.where(pairwise[:, 1] < 0, weights[:, 1], 0))
    np.testing.assert_array_equal(model.predict(X), scores.argmax(axis=1))
    assert (model.predict(X) == y).mean() > 0.95
    save_model(tmp_path / "model", model)
    loaded = load_model(tmp_path / "model").estimator
    assert type(loaded).__name__ == "VoteSVC"
    np.testing.assert_array_equal(loaded.decision_function(X), scores)


@pytest.fixture
def slope(vote, tmp_path, monkeypatch):
    """The page's scheme option: its class loaded, and named by the vote scheme's registry line
    (as vote.py's own class would be, had it gained the option there)."""
    load_recipe("scheme-option", "multisvm_cli.estimators.vote_slope", tmp_path, monkeypatch)
    target = "multisvm_cli.estimators.vote_slope:SlopeVoteSVC"
    monkeypatch.setitem(registry.REGISTRY, "vote", dataclasses.replace(vote, target=target))


def test_the_scheme_option_recipe_is_checked_by_the_config_and_reaches_the_estimator(
        slope, write_config, run_multisvm, tmp_path, monkeypatch):
    """One entry of _option_constraints and its constructor parameter: the config takes the
    option and refuses a bad value with the constraint's sentence, the docs list it, and a
    trained model is fitted with it (its votes tanh(4 |f|), not tanh(|f|))."""
    assert registry.REGISTRY["vote"].options[:3] == ("probability", "class_weight", "slope")
    rest = dict(kernels=[{"type": "gaussian", "sigma": [2]}], C=[1], schemes=["vote"])
    path = write_config(scheme_options={"vote": {"slope": 4}}, **rest)
    assert load_config(path).scheme_options == {"vote": {"slope": 4}}
    validated = run_multisvm("validate", path)
    assert validated.code == 0 and "vote: {slope: 4}" in validated.out, validated
    bad = write_config("bad.yaml", scheme_options={"vote": {"slope": 0}}, **rest)
    refused(run_multisvm("validate", bad), "bad.yaml:8: scheme_options.vote.slope: slope must "
                                            "be a finite number > 0, got 0; allowed: a number > 0")
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    import gen_docs

    page = gen_docs.config_page()
    assert "| `vote` | Vote | `probability`, `class_weight`, `slope`, `cache_size`," in page
    assert "| `slope` | a number &gt; 0 |" in page

    trained = run_multisvm("train", path, "--scheme", "vote", "-o", tmp_path / "model")
    assert trained.code == 0, trained.err
    model = load_model(tmp_path / "model").estimator
    assert type(model).__name__ == "SlopeVoteSVC" and model.get_params()["slope"] == 4
    X, _ = load_iris(return_X_y=True)
    X = X[:20] + 0.5  # points near the boundaries, where the slope changes the votes
    pairwise = model.machines_.decision(X, model.memory_mb, model.n_jobs)
    first = (np.where(pairwise[:, 0] < 0, np.tanh(4 * np.abs(pairwise[:, 0])), 0)
             + np.where(pairwise[:, 1] < 0, np.tanh(4 * np.abs(pairwise[:, 1])), 0))
    np.testing.assert_allclose(model.decision_function(X)[:, 0], first)


def test_the_figure_recipe_registers_and_draws_error_counts(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(drawing, "save_figure",
                        lambda fig, path, dpi: drawn.append((fig, path)) or path)
    try:
        load_recipe("figure", "multisvm_cli.report.figures.errors", tmp_path, monkeypatch)
        kind = next(k for k in figures_base.registered() if k.name == "errors")
        assert kind.title == "Error counts" and kind.order == 35
        rows = [{"dataset": "iris", "scheme": "ovr", "error_pct": 100 * 2 / 45, "n_test": 45},
                {"dataset": "iris", "scheme": "dag", "error_pct": 100 * 1 / 45, "n_test": 45},
                {"dataset": "wine", "scheme": "ovr", "error_pct": 100 * 3 / 54, "n_test": 54}]
        paths = kind.draw(SimpleNamespace(table_rows=rows), tmp_path, "png", 100)
    finally:
        figures_base.unregister("errors")
    assert [p.name for p in paths] == ["errors-iris.png", "errors-wine.png"]
    heights = [[bar.get_height() for bar in fig.axes[0].patches] for fig, _ in drawn]
    assert heights == [[2, 1], [3]]


def test_the_card_recipe_is_the_shipped_glass_card():
    card = yaml.safe_load(recipes()["card"])
    shipped = yaml.safe_load((REPO / "datasets" / "glass.yaml").read_text(encoding="utf-8"))
    assert card.pop("description") and shipped.pop("description")
    assert card == shipped


def test_the_format_recipe_reads_a_card_of_npy_files(tmp_path, monkeypatch, data_home):
    npy = load_recipe("format", "multisvm_cli.data.formats.npy", tmp_path, monkeypatch)
    monkeypatch.setitem(formats.FORMATS, "npy", "multisvm_cli.data.formats.npy")
    mirror, cards = tmp_path / "mirror", tmp_path / "cards"
    (mirror / "pairs").mkdir(parents=True)
    X = np.array([[0.5, 1.0], [1.5, -2.0], [2.5, 3.0], [3.5, 4.25]])
    np.save(mirror / "pairs" / "X.npy", X)
    np.save(mirror / "pairs" / "y.npy", np.array([1, 2, 1, 2]))
    files = "".join(f"      - {{name: {name}, sha256: "
                    f"{hashlib.sha256((mirror / 'pairs' / name).read_bytes()).hexdigest()}}}\n"
                    for name in ("X.npy", "y.npy"))
    cards.mkdir()
    (cards / "pairs.yaml").write_text(
        "name: pairs\ntitle: Four points\ndescription: Four points in .npy files.\n"
        "n_classes: 2\nn_features: 2\nclasses: [1, 2]\nsplit: none\nparts: {all: 4}\n"
        "paper_scaling: none\ncontinuous_columns: all\nsources:\n  - id: npy\n"
        f"    format: npy\n    files:\n{files}    parts:\n      all: {{}}\n")
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    loaded = data.load("pairs", mirror=mirror, progress=False)
    points, labels = loaded.parts["all"]
    np.testing.assert_array_equal(points, X)
    assert labels.tolist() == [1, 2, 1, 2]
    assert loaded.sources["X.npy"].startswith("mirror ")
    (tmp_path / "bad.npy").write_bytes(b"not an array")
    bad = SimpleNamespace(paths=(tmp_path / "bad.npy",) * 2, dataset="pairs")
    with pytest.raises(data.DatasetError, match=r"^pairs: .*bad\.npy: not \.npy \("):
        npy.read_part(bad)


def test_the_local_format_recipe_reads_a_config_and_its_option_is_declared_once(
        tmp_path, monkeypatch):
    from multisvm_cli.experiment import ConfigError, load_config
    from multisvm_cli.experiment.models.metadata import _local_metadata

    load_recipe("local-format", "multisvm_cli.data.formats.ssv", tmp_path, monkeypatch)
    monkeypatch.setitem(formats.FORMATS, "ssv", "multisvm_cli.data.formats.ssv")
    assert "ssv" in formats.local_names() and formats.infer_format("a.SSV") == "ssv"
    assert formats.option_owners()["label_first"] == ("ssv",)
    (tmp_path / "pts.ssv").write_text("1;0.5;2.5\n2;1.5;-3\n1;2;4\n2;-1;0.25\n")
    (tmp_path / "pts.csv").write_text("0.5,2.5,1\n1.5,-3,2\n")
    rest = "split: {test_fraction: 0.5}\nkernels: [{type: linear}]\nC: [1]\nschemes: [ovr]\n"

    def config(entry):
        (tmp_path / "c.yaml").write_text(f"dataset: [{entry}]\n{rest}")
        return load_config(tmp_path / "c.yaml")

    spec = config("{name: pts, path: pts.ssv, label_first: true}").datasets[0].local
    assert spec.read_options() == {"label_first": True} and spec.entry()["label_first"] is True
    loaded = data.load_local(spec)
    np.testing.assert_array_equal(loaded.parts["all"][0], [[0.5, 2.5], [1.5, -3], [2, 4],
                                                           [-1, 0.25]])
    assert loaded.parts["all"][1].tolist() == [1, 2, 1, 2]
    assert loaded.provenance["label_first"] is True
    default = config("{name: pts, path: pts.ssv}").datasets[0].local
    assert default.read_options() == {"label_first": False}
    assert data.load_local(default).parts["all"][1].tolist() == [2, -3, 4, 0]
    with pytest.raises(ConfigError, match="label_first: expected true or false, got 1"):
        config("{name: pts, path: pts.ssv, label_first: 1}")
    with pytest.raises(ConfigError, match="label_first is for ssv files, not csv"):
        config("{name: pts, path: pts.csv, label_first: true}")
    record = {"entry": spec.entry(), "files": {"pts.ssv": {"part": "all", "path": "p",
                                                           "sha256": "0" * 64, "size": 1}}}
    assert _local_metadata(record, "model")["entry"]["label_first"] is True
    with pytest.raises(Exception, match="local.entry must be a local dataset entry"):
        _local_metadata({**record, "entry": {**spec.entry(), "label_first": "yes"}}, "model")
