"""The class limit of pairwise schemes is a config key (issue #56): ``max_classes`` (default
1,000; it was the environment variable MULTISVM_MAX_CLASSES), set by a config or by
``compare --max-classes``, and checked by ``validate``, a run, ``compare`` and ``train``
alike: above it a pairwise scheme (one SVM per pair of classes) is refused in one line before
any run folder or model folder exists."""

import numpy as np

from helpers import refused
from multisvm_cli.experiment.compare import compare_config, compare_config_text


def _four_classes(path):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 10)
    X = rng.normal(size=(40, 2)) + y[:, None]
    lines = ["a,b,y"] + [f"{a:.3f},{b:.3f},{c}" for (a, b), c in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _config(tmp_path, limit):
    _four_classes(tmp_path / "four.csv")
    path = tmp_path / "four.yaml"
    path.write_text("name: four\ndataset: [{name: four, path: four.csv}]\n"
                    "split: {test_fraction: 0.3, seed: 1}\nkernels: [{type: linear}]\nC: [1]\n"
                    f"schemes: [nb, dag]\n{limit}")
    return path


def test_compare_sets_the_limit_and_is_refused_before_a_run_folder(tmp_path, run_multisvm):
    data = _four_classes(tmp_path / "four.csv")
    out = tmp_path / "out"
    refused(run_multisvm("compare", data, "--schemes", "nb,dag", "--max-classes", "3", "--out",
                         out, "-q"),
            str(data), "4 classes, more than 3: DAGSVM would train 6 pairwise SVMs",
            "max_classes (compare: --max-classes)")
    assert not out.exists()
    assert run_multisvm("compare", data, "--schemes", "dag", "--max-classes", "1").code == 2
    assert compare_config(tmp_path, data, max_classes=3).max_classes == 3
    assert compare_config(tmp_path, data).max_classes is None
    assert "max_classes" not in compare_config_text(data)  # the config it runs reads as before


def test_validate_refuses_above_the_configs_limit_and_checks_the_key(tmp_path, run_multisvm):
    config = _config(tmp_path, "max_classes: 3\n")
    refused(run_multisvm("validate", config), f"{config}: schemes: four has 4 classes, more "
                                              "than 3: DAGSVM would train 6 pairwise SVMs")
    assert run_multisvm("validate", _config(tmp_path, "max_classes: 4\n")).code == 0
    assert run_multisvm("validate", _config(tmp_path, "")).code == 0
    for value, words in (("1", "max_classes: must be > 1, got 1"),
                         ("lots", "max_classes: expected an integer, got 'lots'")):
        refused(run_multisvm("validate", _config(tmp_path, f"max_classes: {value}\n")),
                f"{config}:7: {words}")


def test_train_refuses_a_pairwise_scheme_above_the_limit(tmp_path, run_multisvm):
    config = _config(tmp_path, "max_classes: 3\n")
    model = tmp_path / "model"
    refused(run_multisvm("train", config, "--scheme", "dag", "-o", model, "-q"),
            f"{config}: schemes: four has 4 classes, more than 3: DAGSVM would train 6")
    assert not model.exists()
    result = run_multisvm("train", config, "--scheme", "nb", "-o", model, "-q")
    assert result.code == 0, result.err
    assert (model / "model.npz").is_file()
