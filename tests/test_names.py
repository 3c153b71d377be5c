"""Names: the schemes' labels and aliases in any case, kernel aliases, and "did you mean"."""

import pytest

from multisvm_cli.estimators.registry import scheme_name
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.config import ConfigError
from multisvm_cli.kernels import kernel_name


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
