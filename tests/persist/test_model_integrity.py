"""Hostile and faulty model folders: every tampering is refused with one line.

Each case trains a real scheme on iris, saves it as `multisvm train` does (training metadata and
the scaler's state under ``extra.scaler_*``), alters the folder and loads it.  A case alters the
folder consistently (manifest.json resealed, ``seal=True``), so that the check behind the
manifest must catch it, and again without resealing, when the manifest must.
"""

import io
import json
import re
import tracemalloc
import zipfile
from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.datasets import load_iris

from multisvm_cli.data import Dataset
from multisvm_cli.estimators import REGISTRY, GraphSVC, HierSVC, NBClassifier
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.models.metadata import (check_training_metadata, load_trained_model,
                                                   save_trained_model, training_metadata)
from multisvm_cli.persist import ModelFormatError, load_model
from multisvm_cli.data.scaling import Scaler

from model_files import edit_arrays, edit_json, reseal, sync_specs

X_RAW, Y = load_iris(return_X_y=True)
SCALER = Scaler(method="standard", columns=(0, 1, 2, 3)).fit(X_RAW[::2])
X = SCALER.transform(X_RAW)
TRAIN = np.arange(0, 150, 2)

# every scheme of the registry (one added to it is checked here as it is), GraphSVM and Hier
# with parameters that give them groups of SVMs to tamper with, and multinomial naive Bayes
ESTIMATORS = {name: scheme.estimator(C=10.0, sigma=1.0, random_state=0)
              for name, scheme in REGISTRY.items()}
ESTIMATORS.update({
    "graph": GraphSVC(C=10.0, sigma=1.0, threshold=0.0, random_state=0),
    "hier": HierSVC(C=10.0, sigma=1.0, level1="svm", random_state=0),
    "nb-multinomial": NBClassifier(C=10.0, sigma=1.0, nb="multinomial"),
})


def features(name):
    """The scaled iris features, or the raw ones (non-negative) for multinomial naive Bayes."""
    return X_RAW if name == "nb-multinomial" else X


CONFIG = """\
name: iris-models
dataset: iris
scaling: standard
split: {test_fraction: 0.5, seed: 0}
validation: {method: holdout, train_fraction: 0.7, seed: 0}
kernels: [{type: gaussian, sigma: 1}]
C: 10
schemes: [ovr, dag, udt, graph, hier, nb]
"""
# the raw files' checksums as `multisvm train` records them (the data itself is sklearn's iris)
IRIS = Dataset("iris", card=None, parts={}, checksums={"iris.data": "0123456789abcdef" * 4},
               sources={}, source_id="uci")


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("config") / "iris-models.yaml"
    path.write_text(CONFIG)
    return load_config(path)


@pytest.fixture(scope="module")
def fitted():
    models = {name: est.fit(features(name)[TRAIN], Y[TRAIN]) for name, est in ESTIMATORS.items()}
    assert any(len(g) > 1 for g in models["graph"].groups_)  # GraphSVM has a group of SVMs to tamper with
    return models


@pytest.fixture(scope="module")
def metadata(config, fitted):
    """name -> the metadata `multisvm train` writes for that model (its writer's output)."""
    plan = config.datasets[0]
    return {name: training_metadata(config.name, plan, plan.grid[0], 0.04, IRIS, model)
            for name, model in fitted.items()}


@pytest.fixture
def save(tmp_path, fitted, metadata):
    def saving(name):
        path = tmp_path / name
        save_trained_model(path, fitted[name], SCALER, metadata[name])
        return path
    return saving


# Alterations: each takes (model folder, seal) and changes the folder.

def json_change(change):
    return lambda path, seal: edit_json(path, change, seal=seal)


def array_change(change, specs=False):
    """Change arrays; with ``specs`` also write their new shapes and dtypes into model.json."""
    def altering(path, seal):
        edit_arrays(path, change, seal=seal and not specs)
        if specs:
            sync_specs(path, seal=seal)
    return altering


def metadata_change(change):
    return json_change(lambda d: change(d["metadata"]))


def set_item(name, value):
    return lambda arrays: arrays.__setitem__(name, value(arrays[name]) if callable(value) else value)


def nested_text(depth):
    def altering(path, seal):
        text = (path / "model.json").read_text()
        deep = "[" * depth + "]" * depth
        (path / "model.json").write_text(text.replace('"config": "iris-models"', f'"config": {deep}', 1))
        if seal:
            reseal(path)
    return altering


def npy_as_npz(path, seal):
    np.save(path / "model.npy", np.arange(10.0))
    (path / "model.npy").replace(path / "model.npz")


def zip_bomb(megabytes, in_json):
    """Replace svm_vectors by a deflated member expanding to ``megabytes`` of zeros (the issue's
    2.5 GB is the same at a larger scale); ``in_json``: declare its shape in model.json too."""
    def altering(path, seal):
        n_features = 4
        n_rows = megabytes * (1 << 20) // (8 * n_features)
        with np.load(path / "model.npz") as npz:
            arrays = dict(npz)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, array in arrays.items():
                target = zipfile.ZipInfo(name + ".npy")
                target.compress_type = zipfile.ZIP_DEFLATED if name == "svm_vectors" else zipfile.ZIP_STORED
                with archive.open(target, "w", force_zip64=True) as member:
                    if name != "svm_vectors":
                        np.lib.format.write_array(member, array)
                        continue
                    header = {"descr": "<f8", "fortran_order": False, "shape": (n_rows, n_features)}
                    np.lib.format.write_array_header_1_0(member, header)
                    zeros = bytes(1 << 20)
                    for _ in range(megabytes):
                        member.write(zeros)
        (path / "model.npz").write_bytes(buffer.getvalue())
        if in_json:
            edit_json(path, lambda d: d["arrays"]["svm_vectors"].update(shape=[n_rows, n_features]), seal=seal)
        elif seal:
            reseal(path)
    return altering


def header_claims_more(path, seal):
    """A stored svm_vectors member whose .npy header declares 10^9 rows it does not hold."""
    with np.load(path / "model.npz") as npz:
        arrays = dict(npz)
    with zipfile.ZipFile(path / "model.npz", "w", zipfile.ZIP_STORED) as archive:
        for name, array in arrays.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                if name == "svm_vectors":
                    header = {"descr": "<f8", "fortran_order": False, "shape": (10 ** 9, 4)}
                    np.lib.format.write_array_header_1_0(member, header)
                    member.write(array.tobytes())
                else:
                    np.lib.format.write_array(member, array)
    edit_json(path, lambda d: d["arrays"]["svm_vectors"].update(shape=[10 ** 9, 4]), seal=seal)


def delete(*names):
    def altering(path, seal):
        for name in names:
            (path / name).unlink()
    return altering


@dataclass
class Case:
    id: str
    model: str
    alter: object
    message: str  # a fragment of the one-line error once the manifest agrees
    trained: bool = False  # loaded with load_trained_model (metadata and scaler checked too)


CASES = [
    # issue 2: consistent edits that used to be accepted
    Case("sigma changed", "dag", json_change(lambda d: d["params"].update(sigma=3.0)),
         "metadata params sigma differ", trained=True),
    Case("classes turned into strings", "dag",
         array_change(set_item("classes", lambda c: c.astype(str)), specs=True),
         "metadata classes [0, 1, 2] differ from the model's classes ['0', '1', '2']", trained=True),
    Case("scaler method bogus", "ovr", array_change(set_item("extra.scaler_method", np.array("bogus")),
                                                    specs=True), "scaler method must be one of", trained=True),
    Case("naive Bayes negative variance", "nb",
         array_change(set_item("nb_var", lambda v: np.r_[[-v[0]], v[1:]])),
         "nb_var must be > 0"),
    Case("naive Bayes zero variance", "nb", array_change(set_item("nb_var", np.zeros((3, 4)))), "nb_var must be > 0"),
    Case("wrong-length class prior", "nb", array_change(set_item("nb_class_prior", lambda p: p[:2]), specs=True),
         "array 'nb_class_prior' is <f8 [2]; a nb model needs <f8 [3]"),
    Case("class prior not the counts", "nb", array_change(set_item("nb_class_prior", np.array([0.5, 0.25, 0.25]))),
         "class_prior must be the class counts over their sum"),
    Case("multinomial log-probabilities", "nb-multinomial",
         array_change(set_item("nb_feature_log_prob", lambda p: p + 0.5)), "log-probabilities summing to 1"),
    Case("GraphSVM garbage confusion", "graph",
         array_change(set_item("confusion", lambda c: np.random.default_rng(0).normal(size=c.shape))),
         "confusion rows must be shares in [0, 1]"),
    Case("GraphSVM confusion that disagrees with its groups", "graph",
         array_change(set_item("confusion", np.eye(3))), "groups disagree with the confusion rates"),
    Case("GraphSVM confusion of another size", "graph",
         array_change(set_item("confusion", np.eye(4) / 1.0), specs=True),
         "array 'confusion' is <f8 [4, 4]; a graph model needs <f8 [3, 3]"),
    Case("Hier clusters that disagree with the confusion", "hier",
         array_change(set_item("confusion", np.full((3, 3), 1 / 3))), "clusters disagree with the clustering"),
    Case("UDT level order not a permutation", "udt", array_change(set_item("level_order", np.array([0, 0, 1]))),
         "level_order must be a permutation"),
    Case("pooled indices out of order", "ovr",
         array_change(set_item("svm_coef_indices", lambda i: np.r_[i[1], i[0], i[2:]])),
         "coef_indices must increase strictly"),
    Case("infinite dual coefficient", "dag", array_change(set_item("svm_coef_data", lambda d: np.r_[np.inf, d[1:]])),
         "non-finite values"),
    Case("fitted n_features as text", "dag", json_change(lambda d: d["fitted"].update(n_features_in="4")),
         "fitted n_features_in must be an integer >= 1"),
    Case("fitted time negative", "dag", json_change(lambda d: d["fitted"].update(fit_cpu_time=-1.0)),
         "fitted fit_cpu_time must be a finite number >= 0"),
    Case("NaN in model.json", "dag", json_change(lambda d: d["fitted"].update(fit_wall_time=float("nan"))),
         "not valid JSON (NaN is not a number JSON allows)"),
    Case("unknown top-level key", "dag", json_change(lambda d: d.update(comment="hi")), "and no others"),
    Case("more machines than the scheme has", "dag",
         array_change(set_item("svm_intercept", lambda b: np.r_[b, 0.0]), specs=True),
         "array 'svm_intercept' must be 1-d with 3..3 entries"),
    # issue 6: a model.npz that expands far beyond its size on disk
    Case("zip bomb, model.json unchanged", "ovr", zip_bomb(64, in_json=False), "is compressed"),
    Case("zip bomb declared in model.json", "ovr", zip_bomb(64, in_json=True), "is compressed"),
    Case("header declares more than the member holds", "ovr", header_claims_more,
         "its header declares 32000000000"),
    # issue 10: evaluate on tampered metadata and files
    *[Case(f"metadata lacks {key}", "dag", metadata_change(lambda m, key=key: m.pop(key)),
           f"lacks '{key}'", trained=True) for key in ("dataset", "split", "scaling", "checksums")],
    Case("checksums as a list", "dag", metadata_change(lambda m: m.update(checksums=["iris.data"])),
         "checksums must be an object", trained=True),
    Case("checksum not a SHA-256", "dag", metadata_change(lambda m: m.update(checksums={"iris.data": "abc"})),
         "checksums must be an object {file name: SHA-256", trained=True),
    Case("split as a string", "dag", metadata_change(lambda m: m.update(split="holdout")),
         "split must be an object whose method is standard | all | holdout | kfold", trained=True),
    Case("split share out of range", "dag", metadata_change(lambda m: m["split"].update(test_fraction=1.5)),
         "split.test_fraction must be a number in (0, 1)", trained=True),
    Case("unknown scaling", "dag", metadata_change(lambda m: m.update(scaling="zscore")),
         "scaling must be one of", trained=True),
    Case("validation error above 1", "dag", metadata_change(lambda m: m.update(validation_error=2)),
         "validation_error must be a number in [0, 1]", trained=True),
    Case("unknown dataset", "dag", metadata_change(lambda m: m.update(dataset="../../etc")),
         "dataset must be one of", trained=True),
    Case("scaler columns out of range", "dag",
         array_change(set_item("extra.scaler_columns", np.array([0, 1, 2, 40]))),
         "scaler columns must be distinct indices in 0..3", trained=True),
    Case("scaler offset not finite", "dag",
         array_change(set_item("extra.scaler_offset", lambda o: np.r_[np.nan, o[1:]])),
         "scaler offset must be 4 finite numbers", trained=True),
    Case("scaler scale of the wrong length", "dag",
         array_change(set_item("extra.scaler_scale", lambda s: s[:3]), specs=True),
         "scaler scale must be 4 finite numbers", trained=True),
    Case("scaler for other features", "dag",
         array_change(set_item("extra.scaler_n_features", np.array(7))),
         "the scaler is for 7 features, the model for 4", trained=True),
    Case(".npy renamed to model.npz", "dag", npy_as_npz, "unreadable model arrays"),
    Case("deeply nested JSON", "dag", nested_text(100_000), "not valid JSON (nested too deeply)"),
    Case("JSON nested past the limit", "dag", nested_text(40), "nested deeper than 32 levels"),
    # the manifest itself
    Case("manifest missing", "dag", delete("manifest.json"), "manifest.json is missing"),
    Case("model.npz missing", "dag", delete("model.npz"), "model.npz: missing"),
]


def refusal(path, case):
    load = load_trained_model if case.trained else load_model
    with pytest.raises(ModelFormatError) as error:
        load(path)
    message = str(error.value)
    assert "\n" not in message and message.startswith(str(path)), message
    assert error.value.__cause__ is None
    return message


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_consistent_tampering_is_refused_by_validation(save, case):
    path = save(case.model)
    (load_trained_model if case.trained else load_model)(path)  # loads before the alteration
    case.alter(path, True)
    tracemalloc.start()
    try:
        message = refusal(path, case)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert case.message in message
    assert peak < 16 << 20  # nothing near the declared sizes was allocated


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_tampering_without_resealing_is_refused(save, case):
    path = save(case.model)
    case.alter(path, False)
    refusal(path, case)


EDITS_AFTER_SAVING = {
    "params in model.json": (json_change(lambda d: d["params"].update(sigma=3.0)),
                             "model.json: changed after saving"),
    "metadata in model.json": (metadata_change(lambda m: m.update(dataset="wine")),
                               "model.json: changed after saving"),
    "an array's values": (array_change(set_item("svm_intercept", lambda b: b + 1.0)),
                          "array 'svm_intercept' changed after saving"),
    "the scaler's values": (array_change(set_item("extra.scaler_offset", lambda o: o + 1.0)),
                            "array 'extra.scaler_offset' changed after saving"),
}


@pytest.mark.parametrize("edit", sorted(EDITS_AFTER_SAVING))
def test_valid_edits_after_saving_are_refused_by_the_manifest(save, edit):
    alter, fragment = EDITS_AFTER_SAVING[edit]
    path = save("dag")
    alter(path, False)
    assert fragment in refusal(path, Case(edit, "dag", alter, fragment, trained=True))


def test_a_resealed_valid_edit_loads(save):
    """The manifest guards against accidental and partial edits; a consistent, resealed one that
    every check accepts loads (it is then simply another model)."""
    path = save("dag")
    edit_json(path, lambda d: d["params"].update(sigma=3.0) or d["metadata"]["params"].update(sigma=3.0))
    assert load_trained_model(path).estimator.sigma == 3.0


def test_garbage_manifest_is_refused(save):
    path = save("dag")
    (path / "manifest.json").write_text(json.dumps({"format": "multisvm-manifest", "files": []}))
    assert "not a multisvm manifest" in refusal(path, Case("", "dag", None, ""))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_trained_models_load_with_their_checked_metadata_and_scaler(save, fitted, metadata, name):
    path = save(name)
    trained = load_trained_model(path)
    test = features(name)[1::2]
    np.testing.assert_array_equal(trained.estimator.predict(test), fitted[name].predict(test))
    np.testing.assert_allclose(trained.scaler.transform(X_RAW[1::2]), X[1::2])
    assert trained.metadata == metadata[name] and trained.extra_arrays == {}
    assert metadata[name]["scheme"] == name.split("-")[0] and metadata[name]["classes"] == [0, 1, 2]


def test_check_training_metadata_returns_only_its_fields(metadata):
    written = metadata["dag"]
    assert written["params"] == {"kernel": "gaussian", "C": 10.0, "sigma": 1.0}
    assert check_training_metadata({**written, "note": "kept out"}, "m") == written
    with pytest.raises(ModelFormatError, match=r"^m: model.json metadata: classes must be a list of at least two"):
        check_training_metadata({**written, "classes": [1, 1]}, "m")
    with pytest.raises(ModelFormatError, match="split with method holdout must hold exactly method, seed, "
                                               "test_fraction"):
        check_training_metadata({**written, "split": {"method": "holdout", "test_fraction": 0.3}}, "m")
    with pytest.raises(ModelFormatError, match=r"params.C must be a number in \(0, "):
        check_training_metadata({**written, "params": {"kernel": "gaussian", "C": -1}}, "m")


@pytest.mark.parametrize("params, fragment", [
    ({"kernel": "gaussian", "C": 1.0, "gamma": 0.0}, "params.gamma must be None or a number in"),
    ({"kernel": "gaussian", "C": 1.0, "sigma": 0.0}, "params.sigma must be a number in"),
    ({"kernel": "polynomial", "C": 1.0, "gamma": 0.5}, "params of a polynomial kernel must hold kernel, "
                                                      "C and optionally degree, homogeneous"),
    ({"kernel": "linear", "C": 1.0, "sigma": 2.0}, "params of a linear kernel must hold kernel, C, got"),
    ({"kernel": "polynomial", "C": 1.0, "degree": 1.5}, "params.degree must be an integer in"),
    ({"kernel": "rbf", "C": 1.0}, "params must be an object whose kernel is gaussian | polynomial | linear"),
])
def test_training_metadata_params_are_checked_per_kernel(metadata, params, fragment):
    with pytest.raises(ModelFormatError, match=re.escape(fragment)):
        check_training_metadata({**metadata["dag"], "params": params}, "m")
