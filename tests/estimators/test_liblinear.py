"""liblinear's machines for every scheme on a 20 Newsgroups sample, linear machines' primal
weights and Table-1 figures, training memory by its formula, saved liblinear models."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_wine
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from model_files import edit_json
from multisvm_cli import data
from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
from multisvm_cli.estimators import (DAGSVC, SCHEMES, HierSVC, MaxWinsSVC, NBClassifier,
                                     OneVsRestSVC, UDTSVC)
from multisvm_cli.estimators._primal import PrimalMachines
from multisvm_cli.estimators._solvers import liblinear_memory, libsvm_memory
from multisvm_cli.estimators.reuse import MachineReuse
from multisvm_cli.persist import load_model, save_model
from multisvm_cli.report.table import footnote

GROUPS = ("comp.graphics", "comp.windows.x", "rec.autos", "rec.motorcycles", "sci.space")
PER_CLASS = {"train": 80, "test": 40}
LIBLINEAR = {"kernel": "linear", "solver": "liblinear", "C": 1.0, "random_state": 0}
SCHEME_PARAMS = {"ovr": {}, "maxwins": {}, "dag": {}, "udt": {}, "nb": {"nb": "multinomial"},
                 "graph": {"nb": "multinomial", "threshold": 0.03},
                 "hier": {"nb": "multinomial"}, "hier-svm": {"nb": "multinomial", "level1": "svm"}}


@pytest.fixture(scope="module")
def text(mirror, shared_home):
    """400 training and 200 test documents of five newsgroups, as tf-idf CSR rows (the
    vectorizer fitted on the training documents): (X_train, y_train, X_test, y_test)."""
    news = data.load("20newsgroups", mirror=mirror, data_home=shared_home)
    parts = {}
    for part, n in PER_CLASS.items():
        docs, labels = news.parts[part]
        rows = np.concatenate([np.flatnonzero(labels == g)[:n] for g in GROUPS])
        parts[part] = (docs[rows], labels[rows])
    features = fit_transform_parts(TextFeatures(), parts["train"][0], parts["test"][0])
    X_train, X_test = features.matrices
    assert sp.issparse(X_train) and X_train.shape[0] == 400
    return X_train, parts["train"][1], X_test, parts["test"][1]


def make(scheme, **params):
    name = "hier" if scheme == "hier-svm" else scheme
    return SCHEMES[name](**{**LIBLINEAR, **SCHEME_PARAMS[scheme], **params})


@pytest.mark.parametrize("scheme", list(SCHEME_PARAMS))
def test_liblinear_machines_for_every_scheme(text, scheme):
    X, y, X_test, y_test = text
    model = make(scheme).fit(X, y)
    accuracy = np.mean(model.predict(X_test) == y_test)
    # 5 newsgroups, 80 documents each: 1-v-r 83%, naive Bayes 77%, UDT 64.5%
    assert accuracy > (0.3 if scheme == "hier" else 0.6), accuracy
    if scheme.startswith("hier"):  # a point is right when routed right and then picked right
        level1, level2 = model.level_accuracies(X_test, y_test)
        assert accuracy == pytest.approx(level1 * level2)
    if scheme == "nb":
        assert not model.primal_ and model.max_train_memory_ == 0
        return
    machines = model.machines_
    assert model.primal_ and isinstance(machines, PrimalMachines) and machines.pool is None
    assert model.n_support_vectors_ == 0 and model.smo_iterations_ > 0
    n_classes, evaluations = len(GROUPS), model.kernel_evaluations(X_test)
    n_pairs = n_classes * (n_classes - 1) // 2  # (machines, dot products a point)
    expected = {"ovr": (n_classes, n_classes), "maxwins": (n_pairs, n_pairs), "dag": (n_pairs, n_classes - 1)}
    if scheme in expected:
        assert (machines.n_machines, evaluations) == expected[scheme]
    else:  # by evaluation path: at least one machine a point, at most all of them
        assert 0 < evaluations <= machines.n_machines
    weights = machines.weights.toarray() if machines.is_sparse else machines.weights
    nb = getattr(model, "nb_", getattr(model, "level1_nb_", None))  # GraphSVM's, Hier's level 1
    nb_size = 0 if nb is None else nb.feature_log_prob_.size + nb.class_log_prior_.size
    assert model.n_parameters_ == np.count_nonzero(weights) + machines.n_machines + nb_size


def test_liblinear_one_vs_rest_is_scikit_learns(text):
    """Each machine is LinearSVC(loss='hinge') on its problem: the same weights and bias as
    scikit-learn's OneVsRestClassifier(LinearSVC) gives, hence the same predictions."""
    X, y, X_test, _ = text
    ours = make("ovr").fit(X, y)
    svc = LinearSVC(loss="hinge", dual=True, C=1.0, tol=1e-3, random_state=0)  # our tol
    theirs = OneVsRestClassifier(svc).fit(X, y)
    np.testing.assert_allclose(ours.machines_.weights, np.vstack([e.coef_ for e in theirs.estimators_]),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours.decision_function(X_test), theirs.decision_function(X_test),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    # liblinear's nodes: every non-zero, the bias feature and a terminator, 16 bytes each
    assert ours.max_train_memory_ == 16 * (X.nnz + 2 * X.shape[0])


def test_liblinear_needs_the_linear_kernel():
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    for scheme, estimator in SCHEMES.items():
        if "liblinear" not in estimator._solvers:  # the all-together machines: their own solver
            with pytest.raises(ValueError, match="trains with its own all-together solver"):
                estimator(solver="liblinear").fit(X, y)
            continue
        with pytest.raises(ValueError, match="^solver 'liblinear' applies to the linear kernel only, "
                                             "not the gaussian kernel$"):
            estimator(solver="liblinear").fit(X, y)
    with pytest.raises(ValueError, match="^unknown solver 'smo'; expected one of libsvm, liblinear$"):
        OneVsRestSVC(kernel="linear", solver="smo").fit(X, y)


def test_liblinear_machines_are_never_reused(text):
    X, y, _, _ = text
    store = MachineReuse()
    for C in (0.5, 1.0):
        model = make("ovr", C=C).fit(X, y, reuse=store)
        assert model.n_reused_machines_ == 0
    assert len(store) == 0


@pytest.mark.parametrize("scheme", ["ovr", "maxwins", "hier-svm", "graph", "udt"])
def test_saved_liblinear_model_round_trip(tmp_path, text, scheme):
    X, y, X_test, _ = text
    model = make(scheme).fit(X, y)
    save_model(tmp_path / "model", model)
    names = json.loads((tmp_path / "model" / "model.json").read_text())["arrays"]
    assert "svm_vectors" not in names and "svm_coef_data" not in names
    assert ("svm_weights_data" if model.machines_.is_sparse else "svm_weights") in names
    again = load_model(tmp_path / "model").estimator
    assert again.primal_ and again.machines_.is_sparse == model.machines_.is_sparse
    np.testing.assert_array_equal(again.decision_function(X_test), model.decision_function(X_test))
    for figure in ("n_parameters_", "max_train_memory_", "smo_iterations_"):
        assert getattr(again, figure) == getattr(model, figure)
    assert again.kernel_evaluations(X_test) == model.kernel_evaluations(X_test)


def wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("scheme", ["ovr", "maxwins", "udt", "hier-svm"])
def test_libsvm_linear_machines_predict_through_primal_weights(text, scheme, sparse):
    """libsvm's linear machines give the same decisions through W = coef^T SV as through
    their support vectors (relative 1e-9), on dense (wine) and sparse (text) data."""
    X, y = (text[0], text[1]) if sparse else wine()
    params = {"nb": "gaussian"} if scheme == "hier-svm" and not sparse else {}
    model = make(scheme, solver="libsvm", **params).fit(X, y)
    machines = model.machines_
    assert isinstance(machines, PrimalMachines) and machines.pool is not None
    assert machines.n_pool == model.n_support_vectors_ > 0
    primal, by_vectors = machines.decision(X, 16), machines.pool.decision(X, 16)
    scale = np.abs(by_vectors).max()
    np.testing.assert_allclose(primal, by_vectors, rtol=1e-9, atol=1e-9 * scale)
    some = [machines.n_machines - 1, 0]
    np.testing.assert_allclose(machines.decision_some(X, some, 16),
                               machines.pool.decision_some(X, some, 16), rtol=1e-9, atol=1e-9 * scale)
    rows = np.arange(0, X.shape[0], 3)
    groups = [(0, rows), (machines.n_machines - 1, rows[::2])]
    pool_points = machines.pool.node_points(X)
    for mine, theirs, chunked in zip(machines.decision_groups(X, groups, 16),
                                     machines.pool.decision_groups(pool_points, groups, 16),
                                     machines.decision_groups(X, groups, 1e-3)):  # many chunks
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-9 * scale)
        np.testing.assert_allclose(chunked, mine, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(machines.decision(X, 1e-3), primal, rtol=1e-12, atol=1e-12 * scale)


def two_classes_on_a_line():
    X = np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [9.0, 0.0], [10.0, 0.0], [11.0, 0.0]])
    return X, np.array(["a", "a", "a", "b", "b", "b"])


def test_primal_figures_by_hand():
    """Linear machines: a kernel evaluation is a dot product with one weight vector; the size
    is the non-zero weights plus the biases."""
    X, y = two_classes_on_a_line()
    model = OneVsRestSVC(kernel="linear", C=1000.0).fit(X, y)
    # One machine; hard margin: SVs 1 and 9, w = (2 / 8, 0), boundary at 5.
    np.testing.assert_allclose(model.machines_.weights, [[0.25, 0.0]], atol=1e-9)
    assert model.primal_ and model.n_support_vectors_ == 2
    assert model.kernel_evaluations(X) == 1 and model.n_parameters_ == 1 + 1
    np.testing.assert_allclose(model.decision_function(np.array([[5.0, 0.0], [13.0, 0.0]])),
                               [0.0, 2.0], atol=1e-6)
    values = np.repeat(10.0 * np.arange(4), 3) + np.tile([-1.0, 0.0, 1.0], 4)
    line, labels = values[:, None], np.repeat(np.arange(4), 3)
    maxwins = MaxWinsSVC(kernel="linear", C=1000.0).fit(line, labels)
    assert maxwins.kernel_evaluations(line) == 6 and maxwins.n_parameters_ == 6 + 6
    assert DAGSVC.from_maxwins(maxwins).kernel_evaluations(line) == 3
    # UDT on three classes at 10c + [-2, 2]: node 0 claims class 0, node 1 class 2; -1 exits
    # at node 0 (one dot product), 10 and 19 evaluate both nodes.
    three = np.concatenate([10.0 * c + np.linspace(-2, 2, 10) for c in range(3)])[:, None]
    udt = UDTSVC(kernel="linear", C=1.0, random_state=0).fit(three, np.repeat(np.arange(3), 10))
    np.testing.assert_array_equal(udt.level_order_, [0, 2, 1])
    assert udt.kernel_evaluations(np.array([[-1.0], [10.0], [19.0]])) == pytest.approx(5 / 3)


def test_training_memory_by_the_formula():
    """16 bytes a stored value and a 16-byte terminator a row (sparse libsvm); the float64
    array in place plus one 16-byte svm_node a row (dense libsvm, a Gram matrix included);
    16 bytes a non-zero, the bias feature and the terminator a row (liblinear)."""
    X = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [4.0, 5.0, 0.0],
                  [0.0, 6.0, 0.0], [7.0, 0.0, 0.0], [5.0, 8.0, 9.0]])
    y = np.array([0, 0, 1, 1, 2, 2])
    assert libsvm_memory(X) == 8 * 6 * 3 + 16 * 6 == 240
    assert libsvm_memory(sp.csr_matrix(X)) == 16 * (10 + 6) == 256
    assert liblinear_memory(X) == liblinear_memory(sp.csr_matrix(X)) == 16 * (10 + 2 * 6) == 352
    # 1-v-r shares one 6 x 6 Gram matrix; without room for it, libsvm reads X's 6 rows
    assert OneVsRestSVC(kernel="linear").fit(X, y).max_train_memory_ == 8 * 36 + 16 * 6
    assert OneVsRestSVC(kernel="linear", memory_mb=1e-6).fit(X, y).max_train_memory_ == 240
    # pairs: 4 rows each; pair (0, 1) holds 6 non-zeros, (0, 2) and (1, 2) 7
    assert MaxWinsSVC(kernel="linear").fit(X, y).max_train_memory_ == 8 * 4 * 3 + 16 * 4
    assert MaxWinsSVC(kernel="linear").fit(sp.csr_matrix(X), y).max_train_memory_ == 16 * (7 + 4)
    assert MaxWinsSVC(kernel="linear", solver="liblinear").fit(X, y).max_train_memory_ == \
        16 * (7 + 2 * 4)
    assert NBClassifier().fit(X, y).max_train_memory_ == 0


def four_classes_in_two_clusters():
    """Feature 0 puts classes 0, 1 near 0 and 2, 3 near 10 (cluster apart); feature 1 puts the
    even classes near -1 and the odd near +1, overlapping enough that naive Bayes confuses
    0 with 1 and 2 with 3 (so Hier clusters {0, 1} and {2, 3})."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 100)
    X = np.column_stack([10.0 * (y >= 2) + rng.normal(0, 0.5, len(y)),
                         np.where(y % 2, 1.0, -1.0) + rng.normal(0, 1.5, len(y))])
    return X, y


@pytest.mark.parametrize("level1", ["nb", "svm"])
@pytest.mark.parametrize("solver", ["libsvm", "liblinear"])
def test_hier_level_accuracies_by_hand(level1, solver):
    X, y = four_classes_in_two_clusters()
    model = HierSVC(kernel="linear", solver=solver, level1=level1, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.clusters_, [0, 0, 1, 1])
    points = np.array([[0.0, -10.0], [0.0, 10.0], [10.0, -10.0], [0.0, -10.0], [10.0, 10.0]])
    labels = np.array([0, 0, 2, 2, 3])
    # routed: cluster 0, 0, 1, 0 (wrong: class 2 is in cluster 1), 1 -> level 1 = 4/5;
    # level 2 on the four routed right: picks 0 (right), 1 (wrong), 2 (right), 3 (right) -> 3/4
    np.testing.assert_array_equal(model.predict(points), [0, 1, 2, 0, 3])
    assert model.level_accuracies(points, labels) == (0.8, 0.75)
    level1_only = model.level_accuracies(points[3:4], labels[3:4])
    assert level1_only[0] == 0.0 and np.isnan(level1_only[1])
    with pytest.raises(ValueError, match="one known class label per row"):
        model.level_accuracies(points, np.array([0, 0, 2, 2, 7]))


def test_the_footnote_defines_linear_machines_figures():
    sentence = "kernel evals are dot products with weight vectors per test point"
    assert sentence in footnote(primal=True) and sentence not in footnote()


def test_a_model_saved_before_the_solver_loads_as_libsvms(tmp_path):
    """Models saved before ``solver`` and ``max_train_memory`` existed: libsvm's, memory unknown."""
    X, y = wine()
    model = OneVsRestSVC(kernel="linear").fit(X, y)
    save_model(tmp_path / "model", model)

    def older(document):
        del document["params"]["solver"], document["fitted"]["max_train_memory"]

    edit_json(tmp_path / "model", older)
    again = load_model(tmp_path / "model").estimator
    assert again.solver == "libsvm" and again.max_train_memory_ is None and again.primal_
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
