"""Names: the schemes' labels and aliases in any case, kernel aliases, and "did you mean"."""

import re
from pathlib import Path

import pytest

import multisvm_cli.estimators as estimators
from multisvm_cli.estimators.registry import REGISTRY, scheme_name
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.config import ConfigError
from multisvm_cli.estimators.kernels import kernel_name


# What configs, saved models and reports already name: a scheme may gain names, never lose one
# (name -> its label, then its aliases).  A new scheme needs no line here: the tests below read
# the registry.
PUBLISHED = {"ovr": ("1-v-r", "ova", "onevsrest", "onevsall"),
             "maxwins": ("Max Wins", "ovo", "onevsone"), "dag": ("DAGSVM",), "adag": ("ADAG",),
             "ecoc": ("ECOC", "outputcode"), "cs": ("C&S", "crammersinger"),
             "ww": ("W&W", "westonwatkins"), "udt": ("UDT",), "graph": ("GraphSVM",),
             "hier": ("Hier",), "nb": ("NB",)}
INDEX = Path(__file__).resolve().parents[2] / "docs" / "index.md"


@pytest.mark.parametrize("name", PUBLISHED)
def test_no_scheme_loses_its_name_label_or_aliases(name):
    label, *aliases = PUBLISHED[name]
    assert name in REGISTRY and REGISTRY[name].label == label
    assert set(aliases) <= set(REGISTRY[name].aliases)


@pytest.mark.parametrize("scheme", REGISTRY.values(), ids=lambda s: s.name)
def test_every_name_label_and_alias_of_the_registry_names_its_scheme(scheme):
    for given in (scheme.name, scheme.label, *scheme.aliases):
        for spelled in (given, given.upper(), given.lower(), given.replace(" ", "-")):
            assert scheme_name(spelled) == scheme.name, spelled


def test_every_list_of_schemes_is_the_registrys(run_multisvm):
    """``--help``, ``estimators.__all__`` and the API reference's classes, docs/index.md's
    sentence: each names every registered scheme."""
    assert set(estimators.SCHEMES) == set(REGISTRY)
    classes = [scheme.class_name for scheme in REGISTRY.values()]
    assert set(classes) <= set(estimators.__all__)
    assert all(getattr(estimators, name) is REGISTRY[s].estimator
               for name, s in zip(classes, REGISTRY))
    folded = " ".join(run_multisvm("--help").out.split())
    assert all(f"{s.name} ({s.label}" in folded for s in REGISTRY.values()), folded
    sentence = re.search(r"The schemes are (.*?) as a baseline\.",
                         " ".join(INDEX.read_text(encoding="utf-8").split())).group(1)
    missing = [s.label for s in REGISTRY.values()
               if not re.search(rf"(?<![\w&-]){re.escape(s.label)}(?![\w&-])", sentence)]
    assert not missing, f"docs/index.md does not name {missing}"


@pytest.mark.parametrize("given, name", [
    ("ovo", "maxwins"), ("ova", "ovr"), ("OVO", "maxwins"), ("DAGSVM", "dag"), ("dagsvm", "dag"),
    ("Max Wins", "maxwins"), ("max wins", "maxwins"), ("max-wins", "maxwins"), ("1-v-r", "ovr"),
    ("GraphSVM", "graph"), ("UDT", "udt"), ("Hier", "hier"), ("NB", "nb"), ("dag", "dag")])
def test_scheme_aliases_name_one_scheme(given, name):
    assert scheme_name(given) == name


def test_unknown_scheme_and_kernel_are_none():
    assert scheme_name("svm") is None and scheme_name(3) is None
    assert kernel_name("RBF") == "gaussian" and kernel_name("poly") == "polynomial"
    assert kernel_name("sigmoid") is None


def test_aliases_validate(write_config):
    path = write_config(kernels=[{"type": "RBF", "sigma": [1, 2]}, {"type": "Linear"}],
                        schemes=["ova", "Max Wins", "DAGSVM"], compare_to="ovo",
                        scheme_options={"DAGSVM": {"order": "natural"}})
    config = load_config(path)
    assert config.schemes == ["ovr", "maxwins", "dag"] and config.compare_to == "maxwins"
    assert {p.kernel for p in config.datasets[0].grid} == {"gaussian", "linear"}
    assert "dag" in config.scheme_options
    assert "type: gaussian" in config.resolved_text()


@pytest.mark.parametrize("overrides, hint", [
    ({"schemes": ["ovr", "maxwin"]}, "did you mean 'maxwins'?"),
    ({"kernels": [{"type": "gausian", "sigma": 1}]}, "did you mean 'gaussian'?"),
    ({"dataset": "irsi"}, "did you mean 'iris'?"),
    ({"sead": 1}, "did you mean 'seed'?"),
])
def test_did_you_mean(write_config, overrides, hint):
    with pytest.raises(ConfigError, match=hint.replace("?", r"\?")):
        load_config(write_config(**overrides))


def test_validate_reports_every_independent_error_each_on_one_line(write_config, run_multisvm):
    path = write_config(schemes=["ovr", "maxwin"], sead=1,
                        kernels=[{"type": "gausian", "sigma": 1}], compare_to="dag")
    result = run_multisvm("validate", path)
    lines = result.err.splitlines()
    assert result.code == 2 and len(lines) == 3 and all(l.startswith("error: ") for l in lines)
    assert "sead: unknown key 'sead'" in lines[0] and "did you mean 'seed'?" in lines[0]
    assert "schemes[1]: 'maxwin' is not a valid scheme" in lines[1]
    assert "kernels[0].type: 'gausian' is not a valid kernel type" in lines[2]


def test_several_errors_stay_one_line_in_the_message_and_stop_at_20():
    error = ConfigError.several([f"x.yaml:{i}: e{i}" for i in range(30)])
    assert len(error.lines) == 20 and "\n" not in str(error)
    assert str(error).startswith("20 errors: x.yaml:0: e0; x.yaml:1: e1")


@pytest.mark.slow
def test_evaluate_names_the_parts_and_speaks_of_features(run_multisvm, tmp_path, data_home):
    model = tmp_path / "wine-dag"
    trained = run_multisvm("train", "quickstart", "--scheme", "DAGSVM", "--dataset", "wine",
                           "-o", model, "--out", tmp_path / "results", "--quiet")
    assert trained.code == 0, trained.err
    assert trained.out.startswith("trained dag on wine: ")
    result = run_multisvm("evaluate", model, "--part", "validation")
    assert result.code == 2
    assert result.err == ("error: wine has no validation part (under the model's holdout split "
                          "it has: all, test, train); choose one with --part\n")
    result = run_multisvm("evaluate", model, "--dataset", "iris", "--part", "all")
    assert result.code == 2 and "iris has 4 features, the model was trained on 13 (wine)" \
        in result.err


def test_train_names_the_closest_dataset_and_scheme(run_multisvm, tmp_path):
    result = run_multisvm("train", "quickstart", "--scheme", "dag", "--dataset", "wien", "-o",
                          tmp_path / "m")
    assert result.code == 2 and "it has: iris, wine, digits (did you mean 'wine'?)" in result.err
    result = run_multisvm("train", "quickstart", "--scheme", "dagg", "-o", tmp_path / "m")
    assert result.code == 2 and "(did you mean 'dag'?)" in result.err
