"""`multisvm train` then `multisvm evaluate`: the saved model reproduces the report's numbers,
and a model folder altered by hand is refused with one line and exit code 2."""

import json
import re
import shutil

import numpy as np
import pytest


CONFIG = """\
name: wine-models
dataset: wine
split: {test_fraction: 0.3, seed: 0}
kernels:
  - {type: gaussian, sigma: [1, 4]}
  - {type: polynomial, degree: 2, homogeneous: true}
C: [1, 10]
schemes: [ovr, maxwins, dag]
"""




@pytest.fixture
def trained(tmp_path, run_multisvm, data_home):
    """The report of the config and a DAGSVM model trained from it."""
    config = tmp_path / "wine.yaml"
    config.write_text(CONFIG)
    out, model = tmp_path / "results", tmp_path / "model"
    code, report, err = run_multisvm("reproduce-table", str(config), "--out", str(out), "-q",
                            "--format", "json")
    assert code == 0, err
    code, said, err = run_multisvm("train", str(config), "--scheme", "dag", "-o", str(model),
                          "--out", str(out), "-q")
    assert code == 0, err
    assert said.startswith("trained dag on wine: ") and str(model) in said
    return {r["scheme"]: r for r in json.loads(report)}, model


@pytest.mark.slow
def test_evaluate_reproduces_the_report(trained, run_multisvm):
    table, model = trained
    code, text, err = run_multisvm("evaluate", str(model), "--confusion")
    assert code == 0, err
    dag = table["dag"]
    assert f"model: DAGSVM, {dag['kernel']}, C={dag['C']:g} (trained on wine)" in text
    assert "data: wine test, 54 points" in text
    assert f"error rate: {dag['error_pct']:.2f}%" in text
    assert f"kernel evaluations per test point: {dag['kernel_evaluations']:.1f}" in text
    assert f"classifier size: {dag['size_k']:.1f}K parameters" in text
    rows = re.findall(r"^ *([0-2]) +(\d+) +(\d+) +(\d+)$", text, flags=re.M)
    confusion = np.array([[int(v) for v in row[1:]] for row in rows])
    assert confusion.shape == (3, 3) and confusion.sum() == 54
    assert 54 - np.trace(confusion) == round(dag["error_pct"] * 54 / 100)
    meta = json.loads((model / "model.json").read_text())["metadata"]
    assert meta["scheme"] == "dag" and meta["dataset"] == "wine" and meta["classes"] == [0, 1, 2]
    assert meta["checksums"] and meta["multisvm_version"] and meta["scaling"] == "paper"
    code, text, _ = run_multisvm("evaluate", str(model), "--part", "all")
    assert code == 0 and "data: wine all, 178 points" in text


def alter_version(model):
    path = model / "model.json"
    document = json.loads(path.read_text())
    document["format_version"] = 99
    path.write_text(json.dumps(document))


def alter_array(model):
    arrays = dict(np.load(model / "model.npz", allow_pickle=False))
    name = next(k for k, v in arrays.items() if v.ndim == 2)
    arrays[name] = arrays[name][:-1]
    np.savez(model / "model.npz", **arrays)


def alter_json_shape(model):
    path = model / "model.json"
    document = json.loads(path.read_text())
    name = next(iter(document["arrays"]))
    document["arrays"][name]["shape"] = [12345]
    path.write_text(json.dumps(document))


def truncate_json(model):
    path = model / "model.json"
    path.write_text(path.read_text()[:100])


ALTERATIONS = {"unknown format version": (alter_version, "version"),
               "array shape changed in model.npz": (alter_array, "model.npz"),
               "array shape changed in model.json": (alter_json_shape, "model.npz"),
               "model.json cut short": (truncate_json, "not valid JSON"),
               "model.npz deleted": (lambda m: (m / "model.npz").unlink(), "model.npz")}


@pytest.mark.slow
@pytest.mark.parametrize("alteration", sorted(ALTERATIONS))
def test_model_altered_by_hand_is_refused(trained, run_multisvm, alteration):
    _, model = trained
    alter, fragment = ALTERATIONS[alteration]
    alter(model)
    code, out, err = run_multisvm("evaluate", str(model))
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and fragment in err, err


def test_train_refuses_scheme_outside_config(tmp_path, run_multisvm):
    config = tmp_path / "wine.yaml"
    config.write_text(CONFIG)
    code, _, err = run_multisvm("train", str(config), "--scheme", "udt", "-o", str(tmp_path / "m"))
    assert code == 2 and "scheme 'udt' is not in its schemes (ovr, maxwins, dag)" in err


COVERTYPE = """\
name: covertype-given
dataset: covertype
validation: given
kernels: [{type: gaussian, sigma: 1}]
C: 10
schemes: [dag]
"""


@pytest.mark.slow
def test_covertype_trains_from_the_partial_copy(partial_mirror, data_home, tmp_path, run_multisvm,
                                                monkeypatch):
    """validation: given (Platt's Covertype protocol) needs only the train and validation
    parts, which the mirror's partial copy has; with one grid point the final model is the
    validation model, so evaluating it on the validation part gives the selection's error."""
    monkeypatch.setenv("MULTISVM_MIRROR", str(partial_mirror))
    monkeypatch.setenv("MULTISVM_URL_BASE", "http://127.0.0.1:9")  # no network
    config = tmp_path / "covertype.yaml"
    config.write_text(COVERTYPE)
    model = tmp_path / "model"
    code, said, err = run_multisvm("train", str(config), "--scheme", "dag", "-o", str(model),
                          "--out", str(tmp_path / "results"), "-q")
    assert code == 0, err
    validation_error = json.loads((model / "model.json").read_text())["metadata"][
        "validation_error"]
    code, text, err = run_multisvm("evaluate", str(model), "--part", "validation")
    assert code == 0, err
    assert "data: covertype validation, 3780 points" in text
    assert f"error rate: {100 * validation_error:.2f}% ({round(validation_error * 3780)} errors)" \
        in text
    code, _, err = run_multisvm("evaluate", str(model))  # the test part needs the full UCI file
    assert code == 2 and "covtype.data.gz" in err and err.count("\n") == 1  # its URL


@pytest.mark.slow
def test_a_shipped_kfold_config_trains_and_evaluates_on_every_row(tmp_path, run_multisvm, data_home):
    """ramanan-rbf-quick (10-fold, Gaussian given by gamma) trains a model that `evaluate`
    measures without options: on every row, with a warning that it is a training error."""
    model = tmp_path / "m"
    code, said, err = run_multisvm("train", "ramanan-rbf-quick", "--scheme", "dag", "--dataset",
                          "iris", "-o", str(model), "--out", str(tmp_path / "results"), "-q")
    assert code == 0, err
    assert said.startswith("trained dag on iris: gaussian gamma=")
    with pytest.warns(UserWarning, match="training error, not a test estimate"):
        code, text, err = run_multisvm("evaluate", str(model))
    assert code == 0, err
    assert "data: iris all, 150 points" in text
    errors = int(re.search(r"error rate: [0-9.]+% \((\d+) errors?\)", text).group(1))
    code, named, err = run_multisvm("evaluate", str(model), "--part", "all")
    assert code == 0 and f"({errors} error" in named
    code, _, err = run_multisvm("evaluate", str(model), "--part", "test")
    assert code == 2 and err.startswith("error: part 'test' is not defined for a kfold split")


def test_predict_and_evaluate_read_libsvm_names_as_compare_does(mirror, tmp_path, run_multisvm):
    """A model trained from a config's ``path: dna.scale`` (no ``format:``) predicts and
    evaluates ``dna.scale.t``, told svmlight by its content; ``--input-format`` (and
    ``predict``'s earlier ``--format``) gives the same."""
    for name in ("dna.scale", "dna.scale.t"):
        shutil.copyfile(mirror / "dna" / name, tmp_path / name)
    config, model = tmp_path / "dna.yaml", tmp_path / "model"
    config.write_text("dataset: [{name: mydna, path: dna.scale, test_path: dna.scale.t}]\n"
                      "kernels: [{type: linear}]\nC: [1]\nschemes: [ovr]\n")
    code, _, err = run_multisvm("train", config, "--scheme", "ovr", "-o", model,
                                "--out", tmp_path / "results", "-q")
    assert code == 0, err
    said = []
    for given in ([], ["--input-format", "svmlight"], ["--format", "svmlight"]):
        code, out, err = run_multisvm("predict", model, tmp_path / "dna.scale.t", *given)
        assert code == 0, err
        said.append((out, err))
    assert said[0] == said[1] == said[2] and len(said[0][0].splitlines()) == 1 + 1186
    assert "accuracy = 94.77% (1124/1186), error = 5.23%, n = 1186" in said[0][1]
    code, text, err = run_multisvm("evaluate", model, "--dataset", tmp_path / "dna.scale.t")
    assert code == 0, err
    assert "1186 points" in text and "error rate: 5.23% (62 errors)" in text
    code, _, err = run_multisvm("evaluate", model, "--input-format", "csv")
    assert code == 2 and "--input-format is for a file given as --dataset" in err, err
    (tmp_path / "points.dat").write_text("1 2\n")
    code, _, err = run_multisvm("evaluate", model, "--dataset", tmp_path / "points.dat")
    assert code == 2 and "give --input-format csv, svmlight or npz" in err, err
