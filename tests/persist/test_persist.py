"""Saved models load back identical, and anything tampered with is refused with one line.

The tampering helpers reseal manifest.json (a consistent edit), so these tests reach the checks
behind the manifest; tests/persist/test_model_integrity.py covers the manifest itself."""

import json
import multiprocessing
import os
import pickle
import stat
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.preprocessing import StandardScaler

from multisvm_cli.estimators import DAGSVC, REGISTRY, GraphSVC, HierSVC, MaxWinsSVC, NBClassifier, OneVsRestSVC
from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.persist import FORMAT_VERSION, ModelFormatError, ModelPathError, load_model, save_model

from model_files import edit_arrays, edit_json, load_repeatedly, save_repeatedly  # edits reseal the manifest

X, _y = load_iris(return_X_y=True)
X = StandardScaler().fit_transform(X)
Y = np.array(["setosa", "versicolor", "virginica"])[_y]
TRAIN, TEST = np.arange(0, 150, 2), np.arange(1, 150, 2)

# every scheme of the registry (one added to it is saved and loaded here as it is), some with
# parameters whose saved state differs from the default's, and Hier with an SVM first level
ESTIMATORS = {name: scheme.estimator(C=10.0, random_state=0) for name, scheme in REGISTRY.items()}
ESTIMATORS.update({
    "ovr": OneVsRestSVC(C=10.0, sigma=1.5),
    "maxwins": MaxWinsSVC(C=10.0, kernel="polynomial", degree=2),
    "dag": DAGSVC(C=10.0, order=["virginica", "setosa", "versicolor"]),
    "graph": GraphSVC(C=10.0, threshold=0.0, random_state=0),
    "hier-svm": HierSVC(C=10.0, level1="svm", random_state=0),
})


@pytest.fixture(scope="module")
def fitted():
    return {name: est.fit(X[TRAIN], Y[TRAIN]) for name, est in ESTIMATORS.items()}


@pytest.fixture
def saved(tmp_path, fitted):
    path = tmp_path / "model"
    save_model(path, fitted["dag"], metadata={"dataset": "iris"}, extra_arrays={"scaler_mean": np.arange(4.0)})
    return path


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_round_trip_predicts_identically_with_the_same_figures(tmp_path, fitted, name):
    model = fitted[name]
    save_model(tmp_path / name, model, metadata={"dataset": "iris", "seed": 0},
               extra_arrays={"scaler_mean": X.mean(axis=0)})
    loaded = load_model(tmp_path / name)
    again = loaded.estimator
    assert type(again) is type(model) and again.get_params() == model.get_params()
    np.testing.assert_array_equal(again.classes_, model.classes_)
    np.testing.assert_array_equal(again.predict(X[TEST]), model.predict(X[TEST]))
    np.testing.assert_array_equal(again.decision_function(X[TEST]), model.decision_function(X[TEST]))
    assert again.kernel_evaluations(X[TEST]) == model.kernel_evaluations(X[TEST])
    for figure in ("n_parameters_", "n_support_vectors_", "fit_cpu_time_", "fit_wall_time_", "n_features_in_",
                   "smo_iterations_"):
        assert getattr(again, figure) == getattr(model, figure)
    assert loaded.metadata == {"dataset": "iris", "seed": 0}
    np.testing.assert_array_equal(loaded.extra_arrays["scaler_mean"], X.mean(axis=0))
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary folders left


def test_json_records_the_format(saved):
    document = json.loads((saved / "model.json").read_text())
    assert document["format_version"] == FORMAT_VERSION and document["scheme"] == "dag"
    assert document["params"]["order"] == ["virginica", "setosa", "versicolor"]
    assert document["arrays"]["classes"]["shape"] == [3]


def test_saving_again_replaces_the_model_and_never_overwrites_other_folders(tmp_path, fitted, saved):
    save_model(saved, fitted["nb"])
    assert isinstance(load_model(saved).estimator, NBClassifier)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a saved model"):
        save_model(other, fitted["nb"])
    assert (other / "keep.txt").read_text() == "mine"


def bump_version(d):
    d["format_version"] = FORMAT_VERSION + 1


def unknown_scheme(d):
    d["scheme"] = "forest"


def unknown_param(d):
    d["params"]["nu"] = 0.5  # a libsvm parameter these estimators do not take


def bad_sigma(d):
    d["params"]["sigma"] = -1.0


def drop_key(d):
    del d["arrays"]


def reshape_in_json(d):
    d["arrays"]["svm_intercept"]["shape"] = [2]


def index_out_of_range(arrays):
    arrays["svm_coef_indices"] = arrays["svm_coef_indices"] + 1000


def remove_array(arrays):
    del arrays["svm_intercept"]


def add_array(arrays):
    arrays["surprise"] = np.zeros(3)


def reshape_array(arrays):
    arrays["svm_intercept"] = arrays["svm_intercept"][:2]


def shuffle_classes(arrays):
    arrays["classes"] = arrays["classes"][::-1].copy()


@pytest.mark.parametrize("change, message", [
    (bump_version, "unknown model format"), (unknown_scheme, "unknown scheme"),
    (unknown_param, "inconsistent dag model"), (bad_sigma, "sigma must be"), (drop_key, "needs the keys"),
    (reshape_in_json, "array 'svm_intercept' is"),
])
def test_tampered_json_is_refused(saved, change, message):
    edit_json(saved, change)
    with pytest.raises(ModelFormatError, match=message) as error:
        load_model(saved)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("change, message", [
    (remove_array, r"missing \['svm_intercept'\]"), (add_array, r"unexpected \['surprise'\]"),
    (reshape_array, "array 'svm_intercept' is"), (index_out_of_range, "out of range"),
    (shuffle_classes, "sorted order"),
])
def test_tampered_arrays_are_refused(saved, change, message):
    edit_arrays(saved, change)  # index_out_of_range and shuffle_classes keep shapes: JSON still agrees
    with pytest.raises(ModelFormatError, match=message):
        load_model(saved)


def test_not_json_and_pickles_are_refused(saved):
    (saved / "model.npz").write_bytes(pickle.dumps({"svm_intercept": np.zeros(3)}))
    with pytest.raises(ModelFormatError, match="unreadable model arrays"):
        load_model(saved)
    (saved / "model.json").write_text("{not json")
    with pytest.raises(ModelFormatError, match="not valid JSON"):
        load_model(saved)


@pytest.mark.parametrize("limit, name", [("MAX_JSON_BYTES", "model.json"),
                                         ("MAX_MANIFEST_BYTES", "manifest.json")])
def test_json_files_over_their_limit_are_refused(saved, monkeypatch, limit, name):
    monkeypatch.setattr(f"multisvm_cli.persist.load.{limit}", 100)
    with pytest.raises(ModelFormatError, match=rf"{name}: larger than 100 bytes; too large for a saved "
                                               rf"model's JSON file$"):
        load_model(saved)


def test_object_arrays_inside_the_npz_are_never_unpickled(saved):
    edit_arrays(saved, lambda arrays: arrays.update(classes=np.array([{"a": 1}, None, "x"], dtype=object)))
    edit_json(saved, lambda d: d["arrays"]["classes"].update(dtype="|O"))
    with pytest.raises(ModelFormatError, match="unreadable model arrays"):
        load_model(saved)


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelFormatError, match="not a saved model"):
        load_model(tmp_path / "nowhere")


def test_unfitted_or_foreign_estimators_are_not_saved(tmp_path):
    from sklearn.exceptions import NotFittedError
    from sklearn.svm import SVC

    with pytest.raises(NotFittedError):
        save_model(tmp_path / "m", OneVsRestSVC())
    with pytest.raises(ValueError, match="not one of the multisvm schemes"):
        save_model(tmp_path / "m", SVC().fit(X, Y))


def test_extra_arrays_keep_their_shape_scalars_included(tmp_path, fitted):
    extra = {"scale": np.float64(2.5), "low": np.array(-1.0), "columns": np.arange(3)}
    save_model(tmp_path / "model", fitted["ovr"], extra_arrays=extra)
    loaded = load_model(tmp_path / "model").extra_arrays
    assert loaded["scale"].shape == () and loaded["scale"] == 2.5
    assert loaded["low"].shape == () and loaded["low"] == -1.0
    np.testing.assert_array_equal(loaded["columns"], [0, 1, 2])


def test_overwrite_false_refuses_an_existing_model_in_one_line(tmp_path, fitted):
    path = tmp_path / "model"
    path.mkdir()  # an empty folder is fine
    save_model(path, fitted["ovr"], overwrite=False)
    with pytest.raises(ModelPathError, match=r"model exists; pass --force to replace it$") as error:
        save_model(path, fitted["nb"], overwrite=False)
    assert isinstance(error.value, MultisvmError) and "\n" not in str(error.value)
    assert isinstance(load_model(path).estimator, OneVsRestSVC)
    save_model(path, fitted["nb"])  # overwrite=True (the default) replaces it
    assert isinstance(load_model(path).estimator, NBClassifier)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ModelPathError, match="exists and is not a saved model"):
        save_model(tmp_path / "file", fitted["nb"])


@pytest.mark.parametrize("umask, file_mode, folder_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700),
                                                           (0o002, 0o664, 0o775)])
def test_saved_files_follow_the_umask(tmp_path, fitted, umask, file_mode, folder_mode):
    old = os.umask(umask)
    try:
        save_model(tmp_path / "model", fitted["ovr"])
    finally:
        os.umask(old)
    path = tmp_path / "model"
    assert stat.S_IMODE(path.stat().st_mode) == folder_mode
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in path.iterdir()}
    assert modes == {"model.json": file_mode, "model.npz": file_mode, "manifest.json": file_mode}


@pytest.mark.slow
def test_concurrent_saves_all_succeed_and_leave_nothing_behind(tmp_path, fitted):
    """4 processes save 30 times each to one folder while a fifth loads it: every save succeeds
    (the last one wins), every load sees a whole model, and no staging or old folder remains."""
    source, target = tmp_path / "source", tmp_path / "models" / "shared"
    save_model(source, fitted["dag"])
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=5, mp_context=context) as pool:
        writers = [pool.submit(save_repeatedly, source, target, w, 30) for w in range(4)]
        reader = pool.submit(load_repeatedly, target, 60)
        errors = [e for w in writers for e in w.result()]
        read_errors = reader.result()
    assert errors == []
    # a load fails only before the first save: never on a half-written or half-swapped model
    assert all("not a saved model" in e and "model.json is missing" in e for e in read_errors)
    loaded = load_model(target)
    assert loaded.metadata["save"] == 29  # the last save of the writer that saved last
    assert sorted(p.name for p in target.parent.iterdir()) == ["shared"]
    assert sorted(p.name for p in target.iterdir()) == ["manifest.json", "model.json", "model.npz"]


def test_an_old_folder_left_by_a_crashed_save_is_removed_by_the_next_save(tmp_path, fitted):
    stale = tmp_path / ".model.old-0123"
    stale.mkdir()
    (stale / "model.json").write_text("{}")
    save_model(tmp_path / "model", fitted["ovr"])
    save_model(tmp_path / "model", fitted["nb"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
