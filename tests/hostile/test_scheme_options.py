"""Hostile input, round four (issue #41), the schemes' options: an ECOC code with two equal
rows (finding 9), the class-count checks of local data at ``validate`` (finding 10) and a
user's classifier's options checked by its own parameter validation (finding 11).  Each test
fails without its fix."""

import numpy as np
import pytest

from multisvm_cli.estimators import ECOCSVC

LINEAR = [{"type": "linear"}]
# four classes: rows 1 and 2 are equal, yet every column is a distinct binary problem
TWIN_ROWS = [[1, 1], [1, 1], [-1, 0], [0, -1]]


def _one_line(result):
    assert result.code != 0 and "Traceback" not in result.err, result.err
    [line] = result.err.strip().splitlines()
    return line


# ------------------------------------------------------------ 9. an ECOC code with equal rows

def test_the_estimator_refuses_a_code_with_two_equal_rows_naming_their_classes():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), np.array(["a", "b", "c", "d"] * 10)
    with pytest.raises(ValueError, match="code rows 1 and 2 are equal, so classes 'a' and 'b' "
                                         "could never be told apart"):
        ECOCSVC(code=TWIN_ROWS, kernel="linear").fit(X, y)


def test_validate_refuses_a_code_with_two_equal_rows_naming_their_classes(
        write_config, run_multisvm):
    config = write_config(dataset="vehicle", split={"test_fraction": 0.3, "seed": 1},
                          kernels=LINEAR, C=[1], schemes=["ecoc"],
                          scheme_options={"ecoc": {"code": TWIN_ROWS}})
    line = _one_line(run_multisvm("validate", config))
    assert line == (f"error: {config}:8: scheme_options.ecoc.code: vehicle: code rows 1 and 2 "
                    f"are equal, so classes 'bus' and 'opel' could never be told apart; make "
                    f"every row differ")


# ------------------------------------------------------------ 10. local data: class counts

def _local_config(tmp_path, n_classes, options, scheme):
    """A config on a local CSV of ``n_classes`` classes (8 rows each) running ``scheme``."""
    rng = np.random.default_rng(1)
    rows = [f"{a:.3f},{b:.3f},{c}" for c in range(n_classes)
            for a, b in rng.normal(size=(8, 2)) + c]
    (tmp_path / "mine.csv").write_text("x0,x1,target\n" + "\n".join(rows) + "\n")
    config = tmp_path / "local.yaml"
    config.write_text("dataset: [{name: mine, path: mine.csv, label: target}]\n"
                      "split: {test_fraction: 0.5, seed: 0}\n"
                      "kernels: [{type: linear}]\nC: [1]\n"
                      f"schemes: [{scheme}]\n"
                      f"scheme_options: {{{scheme}: {options}}}\n")
    return config


@pytest.mark.parametrize("n_classes, scheme, options, message", [
    (13, "ecoc", "{code: exhaustive}",
     "mine: code exhaustive has 2^(k-1) - 1 columns: at most 12 classes, the data has 13; use "
     "dense or sparse"),
    (3, "ecoc", "{code: [[1, 1], [1, -1], [-1, 1], [-1, -1]]}",
     "mine: code has 4 rows but the data has 3 classes: one row per class (in sorted label "
     "order)"),
    (3, "adag", "{order: [0, 1, 7]}",
     "mine: order must list every class exactly once: [0, 1, 2]"),
])
def test_validate_checks_options_against_a_local_files_classes_before_any_run_folder(
        tmp_path, run_multisvm, monkeypatch, no_network, n_classes, scheme, options, message):
    monkeypatch.chdir(tmp_path)
    config = _local_config(tmp_path, n_classes, options, scheme)
    for command in (["validate", config], ["reproduce-table", config, "--out", "out", "--quiet"]):
        line = _one_line(run_multisvm(*command))
        option = options[1:].partition(":")[0]
        assert line == f"error: {config}:6: scheme_options.{scheme}.{option}: {message}", line
        assert "np.int64" not in line
    assert not (tmp_path / "out").exists()  # refused before any run folder


# ------------------------------------------------------------ 11. a user's classifier's options

@pytest.mark.parametrize("row, key, fragment", [
    ({"scheme": "sklearn.svm:LinearSVC", "options": {"C": -5}}, "options.C",
     "The 'C' parameter of LinearSVC must be a float in the range (0.0, inf). Got -5 instead."),
    ({"scheme": "sklearn.linear_model:LogisticRegression", "options": {"solver": "nope"}},
     "options.solver", "The 'solver' parameter of LogisticRegression must be a str among"),
    ({"scheme": "sklearn.tree:DecisionTreeClassifier", "options": {"max_depth": -3}},
     "options.max_depth", "The 'max_depth' parameter of DecisionTreeClassifier must be an int "
                          "in the range [1, inf) or None. Got -3 instead."),
    ({"scheme": "sklearn.multiclass:OutputCodeClassifier", "label": "codes",
      "options": {"estimator": {"scheme": "sklearn.svm:LinearSVC", "options": {"C": -1}}}},
     "options.estimator.options.C", "The 'C' parameter of LinearSVC must be a float"),
])
def test_validate_runs_the_classifiers_own_parameter_validation(
        write_config, run_multisvm, tmp_path, monkeypatch, row, key, fragment):
    monkeypatch.chdir(tmp_path)
    config = write_config(kernels=LINEAR, C=[1], schemes=["ovr", row])
    for command in (["validate", config], ["reproduce-table", config, "--out", "out", "--quiet"]):
        line = _one_line(run_multisvm(*command))
        assert line.startswith(f"error: {config}:7: schemes[1].{key}: {fragment}"), line
    assert not (tmp_path / "out").exists()


def test_a_classifiers_good_options_still_validate(write_config, run_multisvm):
    row = {"scheme": "sklearn.tree:DecisionTreeClassifier", "options": {"max_depth": 3}}
    result = run_multisvm("validate", write_config(kernels=LINEAR, C=[1], schemes=["ovr", row]))
    assert result.code == 0, result.err
