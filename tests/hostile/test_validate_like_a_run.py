"""`multisvm validate` refuses what the run would refuse (before the run makes its folder): text
feature settings, a folder whose documents hold no term; a DAG order sweep runs and its
report redraws (issue #33)."""

import pytest

from helpers import write_files

LINEAR = [{"type": "linear"}]


# ------------------------------------- 6. what `validate` passed and the run refused, refused

TEXT_CONFIG = dict(dataset="reuters21578", split=None, kernels=LINEAR, C=[1], schemes=["ovr"])


@pytest.mark.parametrize("overrides, key, fragment", [
    (dict(TEXT_CONFIG, features={"min_df": 5, "max_df": 3}), "features",
     "min_df (5) is above max_df (3)"),
    (dict(TEXT_CONFIG, features={"min_df": 0.5, "max_df": 3}), "features",
     "min_df 0.5 keeps terms in 2286 or more documents and max_df 3 in 3 or fewer"),
    (dict(TEXT_CONFIG, features={"ngram_range": [1, 1000]}), "features",
     "1 <= low <= high <= 5"),
    (dict(sweep={"classes": [2, 5]}), "sweep", "iris has 3 classes; the classes sweep "
                                                   "asks for 5"),
    (dict(dataset="glass", sweep={"train_fraction": [0.01, 0.5]}), "sweep",
     "a train_fraction of 0.01 is too small to keep every class"),
    (dict(scaling="standard", schemes=["ovr", "nb"],
          sweep={"scheme_options": {"nb": {"nb": ["gaussian", "multinomial"]}}}),
     "sweep", "nb with nb: multinomial needs non-negative features"),
    (dict(schemes=["dag"], sweep={"scheme_options": {"dag": {"order": ["natural", [2, 1]]}}}),
     "sweep", "iris: order [2, 1] must list every class exactly once: [0, 1, 2]"),
    (dict(schemes=["ovr", "nb"], scheme_options={"nb": {"solver": "liblinear"}}),
     "scheme_options.nb.solver", "nb trains no SVM, so it has no solver"),
])
def test_validate_refuses_what_the_run_would_refuse_after_making_its_folder(
        write_config, tmp_path, run_multisvm, mirror, data_home, no_network, overrides, key,
        fragment):
    config = write_config(**{"kernels": LINEAR, "C": [1], "schemes": ["ovr"], **overrides})
    for command in (["validate", config], ["reproduce-table", config, "--out", tmp_path / "out",
                                           "--quiet"]):
        result = run_multisvm(*command)
        assert result.code != 0 and "Traceback" not in result.err
        [line] = result.err.strip().splitlines()
        assert f"{config}:" in line and f": {key}: " in line and fragment in line, line
    assert not (tmp_path / "out").exists()  # refused before any run folder


def test_a_text_folder_whose_documents_hold_no_term_is_refused_by_validate(
        tmp_path, run_multisvm, no_network):
    from configs import config_text

    words = [b"the and of", b"it is the", b"of the", b"and it", b"is it", b"the of"]
    root = write_files(tmp_path / "mine", {f"{c}/{i}": text for c in "ab"
                                           for i, text in enumerate(words)})
    config = tmp_path / "words.yaml"
    config.write_text(config_text(name="words", dataset=None, kernels=LINEAR, C=[1],
                                  schemes=["ovr"], split={"test_fraction": 0.5, "seed": 0},
                                  validation={"method": "holdout", "train_fraction": 0.5,
                                              "seed": 0},
                                  features={"stop_words": "english"})
                      + f"dataset: [{{name: words, path: {root}, format: text}}]\n")
    result = run_multisvm("validate", config)
    assert result.code != 0, result.out
    [line] = result.err.strip().splitlines()
    assert "features" in line and "the vocabulary would be empty" in line, line


@pytest.mark.usefixtures("mirror", "no_network", "data_home")
def test_a_dag_order_sweep_runs_and_its_report_redraws(write_config, tmp_path, run_multisvm):
    config = write_config(kernels=LINEAR, C=[1], schemes=["dag"],
                          sweep={"scheme_options": {"dag": {"order": ["natural", [2, 1, 0]]}}})
    result = run_multisvm("reproduce-table", config, "--out", tmp_path / "out", "--quiet")
    assert result.code == 0, result.err
    [folder] = [p for p in (tmp_path / "out" / "small").glob("2*")]
    values = [line.split(",")[1] for line in (folder / "sweep.csv").read_text().splitlines()[1:]]
    assert values == ["natural", '"[2']  # "[2, 1, 0]" quoted: one cell
    assert run_multisvm("report", folder).code == 0
