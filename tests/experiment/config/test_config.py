"""Config validation: valid configs resolve to the right grid; malformed ones give one line
naming the file, the line, the key and the allowed values, with exit code 2 from the CLI."""


import numpy as np
import pytest
import yaml
from configs import config_text, write

from multisvm_cli.cli.main import main
from multisvm_cli.estimators.registry import SCHEME_NAMES
from multisvm_cli.experiment.config import ConfigError, GridPoint, load_config
from multisvm_cli.experiment.config.forms import Split, Validation
from helpers import REPO, run_process


VALID = config_text(kernels=[
    {"type": "gaussian", "sigma": [1, 2]},
    {"type": "polynomial", "degree": [2, 3], "homogeneous": [True, False]}])


def test_valid_config_expands_the_grid_and_fills_defaults(tmp_path):
    config = load_config(write(tmp_path, VALID))
    plan = config.datasets[0]
    assert config.name == "small" and config.schemes == ["ovr", "maxwins", "dag"]
    # (2 sigmas + 2 degrees x 2 kinds) x 2 C values
    assert len(plan.grid) == 12 and config.grid_size() == 36
    assert plan.grid[0] == GridPoint(kernel="gaussian", C=1.0, sigma=1.0)
    assert GridPoint(kernel="polynomial", C=10.0, degree=3, homogeneous=False) in plan.grid
    assert plan.scaling == "paper"
    assert plan.split == Split("holdout", test_fraction=0.3, seed=1)
    assert plan.validation == Validation("holdout", train_fraction=0.7, seed=0)
    assert config.compare_to == "dag" and config.seed == 0


def test_seed_option_replaces_default_seeds(tmp_path):
    config = load_config(write(tmp_path, VALID.replace("seed: 1", "seed: 4")), seed=9)
    plan = config.datasets[0]
    assert config.seed == 9
    assert plan.split.seed == 4          # an explicit seed stays
    assert plan.validation.seed == 9     # a default seed follows --seed


def test_dataset_overrides_and_kernel_C(tmp_path):
    text = VALID.replace("dataset: iris", "dataset: [iris, {name: usps, split: standard, "
                                          "kernels: [{type: linear, C: [5]}]}]")
    config = load_config(write(tmp_path, text))
    iris, usps = config.datasets
    assert iris.split.method == "holdout" and usps.split == Split("standard")
    assert usps.grid == (GridPoint(kernel="linear", C=5.0),)
    assert GridPoint(kernel="linear", C=5.0).kernel_label() == "linear"
    assert iris.grid[4].kernel_label() == "polynomial d=2 homogeneous"


def test_measured_time_comes_from_the_key_and_its_page_records_the_run(tmp_path):
    from multisvm_cli.experiment import measured_time

    shown = {}
    for path in sorted((REPO / "configs").glob("*.yaml")):
        measured = load_config(path).original_text.count("\nmeasured:")
        shown[path.stem] = measured_time(path)
        assert (shown[path.stem] == "-") == (measured == 0), path.stem
        if measured:  # the page it cites names the config
            page = yaml.safe_load(path.read_text())["measured"]["page"]
            assert path.stem in (REPO / page).read_text(), path.stem
    assert shown["decompositions-letter"] == "6 min 7 s"  # 367 s
    assert shown["godbole-20ng"] == "25 s" and shown["ramanan-rbf"] == "-"
    hours = write(tmp_path, VALID + "measured: {seconds: 7300, cores: 16, date: 2026-11-26, "
                                    "page: docs/x.md}\n")
    assert load_config(hours).name and measured_time(hours) == "2 h 1 min (16 cores)"


def test_shipped_configs_are_valid():
    sizes = {}
    for path in sorted((REPO / "configs").glob("*.yaml")):
        sizes[path.stem] = load_config(path).grid_size()
    assert sizes["platt1999-usps"] == (6 + 12) * 4 * 3
    assert sizes["platt1999-covertype"] == (5 + 12) * 4 * 3
    assert sizes["platt1999-letter-gaussian"] == 6 * 4 * 3
    assert sizes["hsu-lin-2002-rbf"] == 15 * 15 * 3 * 6  # gamma x C x schemes x datasets
    hsu_lin = load_config(REPO / "configs" / "hsu-lin-2002-rbf.yaml")
    gammas = sorted({point.gamma for point in hsu_lin.plan("dna").grid}, reverse=True)
    assert gammas == list(2.0 ** np.arange(4, -11, -1))  # Hsu & Lin's grid, exactly
    assert sorted({point.C for point in hsu_lin.plan("dna").grid}) == list(2.0 ** np.arange(-2, 13))
    assert {"quickstart", "platt1999-letter", "ramanan-linear", "ramanan-rbf",
            "godbole-graphsvm"} <= set(sizes)


# (replace this, by that) in VALID -> message fragment, line of the error
MALFORMED = {
    "wrong type for C": (("C: [1, 10]", "C: [1, ten]"), "C[1]: expected a number, got 'ten'", 7),
    "C not positive": (("C: [1, 10]", "C: [1, -10]"), "C[1]: must be > 0, got -10", 7),
    "empty C grid": (("C: [1, 10]", "C: []"), "C: must not be empty", 7),
    "empty kernel list": (("kernels:\n  - {type: gaussian, sigma: [1, 2]}\n  - {type: polynomial, "
                           "degree: [2, 3], homogeneous: [true, false]}", "kernels: []"),
                          "kernels: expected a non-empty list of kernels", 4),
    "sigma zero": (("sigma: [1, 2]", "sigma: [1, 0]"), "kernels[0].sigma[1]: must be > 0, got 0", 5),
    "sigma negative": (("sigma: [1, 2]", "sigma: -2"), "kernels[0].sigma: must be > 0", 5),
    "sigma infinite": (("sigma: [1, 2]", "sigma: [1, .inf]"), "expected a number, got inf", 5),
    "sigma repeated": (("sigma: [1, 2]", "sigma: [2, 2]"), "has a repeated value", 5),
    "unknown scheme": (("schemes: [ovr, maxwins, dag]", "schemes: [ovr, svm]"),
                       f"schemes[1]: 'svm' is not a valid scheme; allowed: "
                       f"{', '.join(SCHEME_NAMES)}", 8),
    "unknown dataset": (("dataset: iris", "dataset: mnist"),
                        "dataset: 'mnist' is not a valid dataset; allowed: ", 2),
    "unknown top-level key": (("name: small", "name: small\nkernel: rbf"),
                              "kernel: unknown key 'kernel'; allowed keys: name, seed, schemes",
                              2),
    "unknown kernel type": (("type: gaussian", "type: sigmoid"),  # (rbf is gaussian's alias)
                            "kernels[0].type: 'sigmoid' is not a valid kernel type; allowed: gaussian, "
                            "polynomial, linear", 5),
    "unknown kernel key": (("{type: gaussian, sigma: [1, 2]}", "{type: gaussian, width: 1}"),
                           "kernels[0].width: unknown key 'width'; allowed keys: type, sigma, "
                           "gamma, C",
                           5),
    "fractional degree": (("degree: [2, 3]", "degree: [2, 2.5]"),
                          "kernels[1].degree[1]: expected an integer, got 2.5", 6),
    "homogeneous not boolean": (("homogeneous: [true, false]", "homogeneous: maybe"),
                                "kernels[1].homogeneous: expected true or false, got 'maybe'", 6),
    "unknown scaling": (("name: small", "name: small\nscaling: zscore"),
                        "scaling: 'zscore' is not a valid scaling; allowed: none, minmax, "
                        "standard, standard-continuous, maxabs, paper", 2),
    "train fraction above 1": (("name: small", "name: small\nvalidation: {method: holdout, "
                                               "train_fraction: 1.5}"),
                               "validation.train_fraction: must be < 1, got 1.5", 2),
    "k-fold with k = 1": (("name: small", "name: small\nvalidation: {method: kfold, k: 1}"),
                          "validation.k: k-fold needs k >= 2, got 1", 2),
    "unknown validation method": (("name: small", "name: small\nvalidation: {method: loo}"),
                                  "'loo' is not a valid validation method; allowed: holdout, "
                                  "given, kfold", 2),
    "standard split without test part": (("split: {test_fraction: 0.3, seed: 1}",
                                          "split: standard"), "has no test part of its own", 2),
    "given validation without part": (("dataset: iris\nsplit: {test_fraction: 0.3, seed: 1}",
                                       "dataset: usps\nvalidation: given"),
                                      "validation: given needs split: standard and a dataset "
                                      "with a validation part", 2),
    "missing schemes": (("schemes: [ovr, maxwins, dag]\n", ""),
                        "missing key 'schemes'; required keys", 1),
    "options of an absent scheme": (("schemes: [ovr, maxwins, dag]",
                                     "schemes: [ovr, maxwins, dag]\nscheme_options: "
                                     "{graph: {threshold: 0.1}}"),
                                    "scheme_options.graph: scheme 'graph' is not in schemes", 9),
    "duplicate key": (("C: [1, 10]", "C: [1, 10]\nC: [2]"), "key 'C' is given twice", 8),
    "reference unknown field": (("schemes: [ovr, maxwins, dag]", "schemes: [ovr, maxwins, dag]\n"
                                 "reference: {iris: {ovr: {err: 4.7}}}"),
                                "reference.iris.ovr.err: unknown key 'err'; allowed keys: kernel, "
                                "sigma", 9),
    "test fraction of 0": (("test_fraction: 0.3", "test_fraction: 0"),
                           "split.test_fraction: must be > 0, got 0", 3),
    "name not folder-safe": (("name: small", "name: ../up"), "name: expected a folder-safe name", 1),
    "top level is a list": ((VALID, "- iris\n- wine\n"), "(top level): expected a mapping", 1),
    "YAML syntax error": (("C: [1, 10]", "C: [1, 10"), "YAML syntax error", 8),
    "measured without its page": (("name: small", "name: small\nmeasured: {seconds: 8, cores: 2, "
                                   "date: 2026-11-26}"), "measured: missing key 'page'", 2),
    "measured date not a date": (("name: small", "name: small\nmeasured: {seconds: 8, cores: 2, "
                                  "date: yesterday, page: docs/x.md}"),
                                 "measured.date: expected a date YYYY-MM-DD, got 'yesterday'", 2),
}


@pytest.mark.parametrize("case", sorted(MALFORMED), ids=lambda c: c.replace(" ", "-"))
def test_malformed_config_one_line_error(case, tmp_path, capsys):
    (old, new), fragment, line = MALFORMED[case]
    assert old in VALID
    path = write(tmp_path, VALID.replace(old, new))
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert "\n" not in message
    assert fragment in message
    assert message.startswith(f"{path}:{line}:"), message
    # the CLI: one line on stderr, exit code 2, no traceback
    with pytest.raises(SystemExit) as exited:
        main(["validate", str(path)])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and fragment in err


def test_missing_file_and_empty_file(tmp_path):
    with pytest.raises(ConfigError, match=r"nope\.yaml: no such config file"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match=r"empty\.yaml:1: \(top level\): expected a mapping"):
        load_config(write(tmp_path, "", "empty.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize("case", ["unknown scheme", "YAML syntax error", "sigma zero", None])
def test_malformed_config_real_subprocess(case, tmp_path):
    if case is None:
        path, fragment = tmp_path / "missing.yaml", "no such config file"
    else:
        (old, new), fragment, _ = MALFORMED[case]
        path = write(tmp_path, VALID.replace(old, new))
    done = run_process("validate", path, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and fragment in done.stderr


def test_validate_prints_resolved_config_and_its_fits(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["validate", str(write(tmp_path, VALID))])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    assert ("  - type: polynomial\n    degree: 3\n    homogeneous: false\n    C: [1.0, 10.0]\n"
            in out)
    # 12 points; ovr and the Max Wins/DAG family: 24 selection fits on one holdout split
    assert ("# iris: 12 grid points; 1 outer fold(s) x 1 validation split(s) x 24 points over "
            "2 scheme families (1-v-r + Max Wins/DAGSVM) = 24 selection fits, + 2 final fits"
            in out)
    assert out.rstrip().endswith("valid; 36 grid points x schemes per outer fold; 26 fits in all")
