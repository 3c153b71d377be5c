"""ECOC, the adaptive DAG and class probabilities on the shared binary machines (issue 30)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_digits, load_iris
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn.multiclass import OutputCodeClassifier

from multisvm_cli.estimators import ADAGSVC, DAGSVC, ECOCSVC, MaxWinsSVC, OneVsRestSVC
from multisvm_cli.estimators._codes import (check_code, code_matrix, exhaustive_code,
                                            n_distinct_problems, random_code)
from multisvm_cli.estimators._pairwise import pair_table
from multisvm_cli.estimators._probability import (code_coupling, cv_parts, pairwise_coupling,
                                                  sigmoid_predict, sigmoid_train)
from multisvm_cli.persist import load_model, save_model

from . import contract


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    return X[:900], y[:900], X[900:1300], y[900:1300]


@pytest.fixture(scope="module")
def maxwins(digits):
    X, y, _, _ = digits
    return MaxWinsSVC(C=10, gamma=0.05, probability=True, random_state=3).fit(X, y)


def svc_with_probability(X, y, **params):
    """SVC(probability=True) (deprecated in scikit-learn 1.9: its FutureWarnings are caught)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        svc = SVC(probability=True, random_state=0, **params).fit(X, y)
        return svc, svc.probA_, svc.probB_, svc.predict_proba(X)


@pytest.mark.parametrize("classes", [(0, 1), (0, 1, 2), tuple(range(10))])
def test_coupling_reproduces_svc_predict_proba(classes):
    """SVC's own sigmoids and pairwise decision values, coupled here, give its predict_proba.

    LIBSVM's sigmoid is P(i | i or j) of its decision value (> 0 for class i); ours is
    P(j | i or j) of f = -that value, so (A, B) becomes (A, -B)."""
    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, classes)
    X, y = X[keep] / 16.0, y[keep]
    svc, A, B, expected = svc_with_probability(X, y, C=3, gamma=0.05,
                                               decision_function_shape="ovo")
    values = svc.decision_function(X)
    f = values[:, None] if len(classes) == 2 else -values  # binary: sklearn already flipped it
    second = sigmoid_predict(f, A, -B)
    np.testing.assert_allclose(pairwise_coupling(second), expected, atol=1e-6, rtol=0)


def platt_objective(params, f, positive):
    n1, n0 = positive.sum(), (~positive).sum()
    t = np.where(positive, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))
    z = params[0] * f + params[1]
    return np.sum(t * z + np.logaddexp(0, -z))


def test_sigmoid_train_finds_platt_minimum():
    rng = np.random.default_rng(0)
    positive = rng.random(400) < 0.3
    f = np.where(positive, 1.0, -1.0) * 0.8 + rng.normal(scale=1.0, size=400)
    A, B = sigmoid_train(f, positive)
    best = minimize(platt_objective, [0.0, 0.0], args=(f, positive), method="BFGS",
                    options={"gtol": 1e-10}).x
    np.testing.assert_allclose([A, B], best, atol=1e-5)
    assert A < 0  # a larger f means the positive class more likely
    p = sigmoid_predict(f, A, B)
    assert p.min() >= 1e-7 and p.max() <= 1 - 1e-7


def test_cv_parts_are_libsvms_five_consecutive_cuts():
    parts = cv_parts(23, seed=5)
    assert [len(p) for p in parts] == [4, 5, 4, 5, 5]  # cut at i * 23 // 5
    assert sorted(np.concatenate(parts).tolist()) == list(range(23))
    assert all(np.array_equal(a, b) for a, b in zip(parts, cv_parts(23, seed=5)))


def test_code_coupling_is_exact_for_consistent_estimates():
    """Column estimates computed from a true p are reproduced: p itself is the fixed point."""
    code = np.array([[1, 1, -1, 0], [-1, 1, 0, 1], [0, -1, 1, -1], [1, -1, -1, 1]])
    p = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])
    plus, minus = p @ (code > 0), p @ (code < 0)
    r = plus / (plus + minus)
    np.testing.assert_allclose(code_coupling(r, code, np.array([5, 3, 4, 2])), p, atol=1e-8)


def test_maxwins_probabilities(digits, maxwins):
    X, y, X_test, y_test = digits
    proba = maxwins.predict_proba(X_test)
    assert proba.shape == (len(X_test), 10)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    # the sigmoids come from the machines' own decision values through Wu, Lin & Weng
    second = sigmoid_predict(maxwins.machines_.decision(X_test, 100), maxwins.probA_, maxwins.probB_)
    np.testing.assert_allclose(proba, pairwise_coupling(second), atol=1e-12)
    log_loss = -np.mean(np.log(proba[np.arange(len(y_test)), y_test]))
    assert log_loss < 0.25  # SVC(probability=True) at the same C and gamma: 0.19 here
    assert np.mean(proba.argmax(axis=1) == maxwins.predict(X_test)) > 0.97
    assert np.all(maxwins.probA_ < 0)
    # SVC's sigmoids (other folds) are close to ours
    _, A, B, _ = svc_with_probability(X, y, C=10, gamma=0.05)
    np.testing.assert_allclose(maxwins.probA_, A, rtol=0.25)


def test_readers_share_max_wins_sigmoids(digits, maxwins):
    _, _, X_test, _ = digits
    for cls in (DAGSVC, ADAGSVC):
        reader = cls.from_maxwins(maxwins)
        assert reader.probA_ is maxwins.probA_
        np.testing.assert_array_equal(reader.predict_proba(X_test), maxwins.predict_proba(X_test))
        assert not hasattr(cls.from_maxwins(maxwins, probability=False), "predict_proba")
    plain = MaxWinsSVC(C=10, gamma=0.05).fit(*digits[:2])
    with pytest.raises(ValueError, match="probability=True needs"):
        DAGSVC.from_maxwins(plain, probability=True)
    assert not hasattr(plain, "predict_proba")


def test_one_vs_rest_probabilities_are_normalised_sigmoids(digits):
    X, y, X_test, _ = digits
    model = OneVsRestSVC(C=10, gamma=0.05, probability=True).fit(X, y)
    positive = sigmoid_predict(model.decision_function(X_test), model.probA_, model.probB_)
    np.testing.assert_allclose(model.predict_proba(X_test),
                               positive / positive.sum(axis=1, keepdims=True), atol=1e-12)
    two = OneVsRestSVC(C=10, gamma=0.05, probability=True).fit(X[y < 2], y[y < 2])
    proba = two.predict_proba(X_test[:5])
    np.testing.assert_allclose(proba[:, 1], sigmoid_predict(two.decision_function(X_test[:5]),
                                                            two.probA_[0], two.probB_[0]))


def test_adag_plays_the_reversed_triangle(digits, maxwins):
    """ADAG's prediction is the tournament replayed by hand on Max Wins' decision values."""
    _, _, X_test, y_test = digits
    adag = ADAGSVC.from_maxwins(maxwins)
    values, table = maxwins.machines_.decision(X_test, 100), pair_table(10)

    def play(v, classes):
        while len(classes) > 1:
            m, half = len(classes), len(classes) // 2
            winners = []
            for t in range(half):
                i, j = sorted((classes[t], classes[m - 1 - t]))
                winners.append(j if v[table[i, j]] >= 0 else i)
            classes = winners + classes[half:m - half]
        return classes[0]

    order = [3, 1, 4, 0, 5, 9, 2, 6, 8, 7]
    for classes, model in ((list(range(10)), adag), (order, adag.with_order(order))):
        expected = [play(v, list(classes)) for v in values]
        np.testing.assert_array_equal(model.predict(X_test), expected)
    assert isinstance(adag.with_order(order), ADAGSVC)
    assert np.mean(adag.predict(X_test) == y_test) > 0.93
    # 9 machines a point, as the DAG: their unique support vectors, fewer than Max Wins' pool
    assert adag.kernel_evaluations(X_test) < maxwins.kernel_evaluations(X_test)
    dropped, nodes = adag._walk(X_test)
    assert nodes.shape == (len(X_test), 9) and len(np.unique(nodes[0])) == 9


def test_adag_fitted_alone_equals_read_from_max_wins(digits, maxwins):
    X, y, X_test, _ = digits
    alone = ADAGSVC(C=10, gamma=0.05, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(alone.predict(X_test), ADAGSVC.from_maxwins(maxwins).predict(X_test))


def test_ecoc_with_scikit_learns_code_book_predicts_as_output_code_classifier(digits):
    """Same code book, same libsvm machines (columns in data order), Euclidean decoding."""
    X, y, X_test, _ = digits
    occ = OutputCodeClassifier(SVC(C=10, gamma=0.05), code_size=1.5, random_state=0).fit(X, y)
    code = occ.code_book_.astype(int)
    model = ECOCSVC(C=10, gamma=0.05, code=code.tolist(), decoding="euclidean").fit(X, y)
    np.testing.assert_array_equal(model.code_, code)
    np.testing.assert_array_equal(model.predict(X_test), occ.predict(X_test))
    values = np.column_stack([e.decision_function(X_test) for e in occ.estimators_])
    np.testing.assert_allclose(model.machines_.decision(X_test, 100), values, atol=1e-8)


def test_ecoc_ovo_hamming_is_max_wins_and_ovr_loss_is_one_vs_rest(digits, maxwins):
    X, y, X_test, _ = digits
    ovo = ECOCSVC(C=10, gamma=0.05, code="ovo", decoding="hamming").fit(X, y)
    np.testing.assert_array_equal(ovo.predict(X_test), maxwins.predict(X_test))
    assert ovo.kernel_evaluations(X_test) == maxwins.kernel_evaluations(X_test)
    assert ovo.n_parameters_ == maxwins.n_parameters_
    ovr = ECOCSVC(C=10, gamma=0.05, code="ovr", decoding="loss").fit(X, y)
    one_vs_rest = OneVsRestSVC(C=10, gamma=0.05).fit(X, y)
    np.testing.assert_array_equal(ovr.predict(X_test), one_vs_rest.predict(X_test))
    np.testing.assert_array_equal(ovr.decision_function(X_test).argmax(axis=1),
                                  one_vs_rest.decision_function(X_test).argmax(axis=1))


def test_ecoc_decodings_by_hand(digits):
    X, y, X_test, y_test = digits
    model = ECOCSVC(C=10, gamma=0.05, code="dense", code_seed=4).fit(X, y)
    f, M = model.machines_.decision(X_test, 100), model.code_.astype(float)
    hinge = np.array([[np.maximum(0, 1 - M[r] * v).sum() for r in range(10)] for v in f])
    np.testing.assert_allclose(model.decision_function(X_test), -hinge, atol=1e-10)
    hamming = model.set_params(decoding="hamming")
    sign = np.where(f >= 0, 1, -1)
    distance = np.array([[np.sum(M[r] != s) for r in range(10)] for s in sign])
    np.testing.assert_array_equal(hamming.predict(X_test), distance.argmin(axis=1))
    assert np.mean(model.predict(X_test) == y_test) > 0.93
    # every column evaluated: kernel evaluations are the pool of unique support vectors
    assert model.kernel_evaluations(X_test) == model.machines_.n_pool == model.n_support_vectors_


def test_random_codes_follow_allwein():
    for k, sparse in ((3, False), (3, True), (10, False), (10, True), (26, False), (26, True)):
        code = code_matrix("sparse" if sparse else "dense", k, 1.5, seed=7)
        n_columns = min(int(1.5 * k), n_distinct_problems(k, sparse))
        assert code.shape == (k, n_columns)
        check_code("code", code.tolist())  # no constant or repeated column, no empty row
        assert set(np.unique(code)) <= ({-1, 0, 1} if sparse else {-1, 1})
        np.testing.assert_array_equal(code, code_matrix("sparse" if sparse else "dense", k, 1.5, 7))
    # the kept code has the largest minimum row distance of the draws: for 10 classes, a dense
    # code of 15 columns separates every two rows by at least 6 (random matrices: about 2)
    code = code_matrix("dense", 10, 1.5, seed=7).astype(float)
    distance = (15 - code @ code.T) / 2
    assert distance[~np.eye(10, dtype=bool)].min() >= 6
    assert not np.array_equal(random_code(10, 15, False, 1), random_code(10, 15, False, 2))


def test_exhaustive_code_is_dietterich_and_bakiris():
    code = exhaustive_code(4)
    np.testing.assert_array_equal(code, [[1, 1, 1, 1, 1, 1, 1], [-1, -1, -1, -1, 1, 1, 1],
                                         [-1, -1, 1, 1, -1, -1, 1], [-1, 1, -1, 1, -1, 1, -1]])
    assert exhaustive_code(12).shape == (12, 2047)
    with pytest.raises(ValueError, match="at most 12 classes"):
        code_matrix("exhaustive", 13, 1.5, 0)


@pytest.mark.parametrize("code, message", [
    ([[1, 1], [1, -1], [1, 0]], "column 1 is constant"),
    ([[1, -1], [-1, 1], [0, 0]], "columns 1 and 2 repeat one binary problem"),
    ([[1, 1, -1], [-1, 1, 1], [-1, -1, 1]], "columns 1 and 3 repeat"),
    ([[1, -1], [-1, 1, 0]], "a matrix"),
    ([[1, 2], [-1, 1]], "a matrix"),
])
def test_bad_code_matrices(code, message):
    with pytest.raises(ValueError, match=message):
        check_code("code", code)


def test_code_rows_must_match_the_classes():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="has 2 rows but the data has 3 classes"):
        ECOCSVC(code=[[1], [-1]]).fit(X, y)
    with pytest.raises(ValueError, match="row 3 has no non-zero entry"):
        ECOCSVC(code=[[1, 1], [-1, 1], [0, 0], [1, -1]]).fit(X, np.arange(len(y)) % 4)


def test_ecoc_probabilities(digits):
    X, y, X_test, y_test = digits
    model = ECOCSVC(C=10, gamma=0.05, code="dense", probability=True, random_state=0).fit(X, y)
    proba = model.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert -np.mean(np.log(proba[np.arange(len(y_test)), y_test])) < 0.3
    assert np.mean(proba.argmax(axis=1) == model.predict(X_test)) > 0.97
    np.testing.assert_array_equal(model.code_weights_, np.full(model.code_.shape[1], len(y)))


@pytest.mark.parametrize("cls, params", [
    (MaxWinsSVC, {}), (DAGSVC, {}), (ADAGSVC, {}), (OneVsRestSVC, {}),
    (ECOCSVC, {"code": "sparse", "code_size": 3}),
    (ECOCSVC, {"code": [[1, -1, 1], [-1, 0, 1], [0, 1, -1]], "decoding": "hamming"})])
def test_probability_models_survive_save_and_load(tmp_path, cls, params):
    X, y = load_iris(return_X_y=True)
    model = cls(C=2, gamma=0.5, probability=True, random_state=1, **params).fit(X, y)
    save_model(tmp_path / "m", model)
    loaded = load_model(tmp_path / "m").estimator
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.probA_, model.probA_)
    assert loaded.kernel_evaluations(X) == model.kernel_evaluations(X)


@pytest.mark.parametrize("params", [{}, {"code": "ovo", "decoding": "hamming"},
                                    {"code": "exhaustive", "decoding": "euclidean"}])
def test_ecoc_survives_save_and_load(tmp_path, params):
    X, y = load_iris(return_X_y=True)
    model = ECOCSVC(C=2, gamma=0.5, **params).fit(X, y)
    save_model(tmp_path / "m", model)
    loaded = load_model(tmp_path / "m").estimator
    np.testing.assert_array_equal(loaded.code_, model.code_)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@parametrize_with_checks([MaxWinsSVC(probability=True), OneVsRestSVC(probability=True),
                          DAGSVC(probability=True), ADAGSVC(probability=True),
                          ECOCSVC(probability=True), ECOCSVC(code="sparse", decoding="hamming"),
                          ECOCSVC(code="ovo", decoding="euclidean")])
def test_probability_schemes_are_sklearn_classifiers(estimator, check):
    name = getattr(check, "func", check).__name__
    if name == "check_classifiers_train" and estimator.probability:
        # it also asserts argmax(predict_proba) == predict; as SVC(probability=True), predict
        # keeps the scheme's own rule while the probabilities come from cross-validated
        # sigmoids, so the two may differ on a few points (SVC's documented behaviour)
        pytest.xfail("predict is the scheme's rule, not the argmax of predict_proba (as SVC)")
    contract.sklearn_check(estimator, check)


CODE_CASES = {
    "constant column": ("ecoc: {code: [[1, 1], [1, -1], [1, 0]]}",
                        "scheme_options.ecoc.code: code column 1 is constant"),
    "repeated column": ("ecoc: {code: [[1, -1, 1], [-1, 1, 1], [1, -1, -1]]}",
                        "scheme_options.ecoc.code: code columns 1 and 2 repeat one binary problem"),
    "row without a non-zero entry": ("ecoc: {code: [[1], [-1], [0]]}",
                  "scheme_options.ecoc.code: code row 3 has no non-zero entry"),
    "wrong number of rows": ("ecoc: {code: [[1, -1], [-1, 1], [1, 1], [-1, -1]]}",
                             "scheme_options.ecoc.code: iris: code has 4 rows but the data has "
                             "3 classes"),
    "probability on a scheme without": ("udt: {probability: true}",
                                        "scheme_options.udt.probability: UDT has no class "
                                        "probabilities; probability applies to ovr, maxwins"),
    "unknown decoding": ("ecoc: {decoding: manhattan}",
                         "scheme_options.ecoc.decoding: unknown decoding 'manhattan'"),
}


@pytest.mark.parametrize("case", sorted(CODE_CASES), ids=lambda c: c.replace(" ", "-"))
def test_validate_refuses_bad_codes_in_one_line(case, tmp_path, run_multisvm):
    from configs import config_text

    options, fragment = CODE_CASES[case]
    text = config_text().replace("schemes: [ovr, maxwins, dag]",
                                 f"schemes: [ovr, maxwins, dag, ecoc, udt]\nscheme_options: {{{options}}}")
    path = tmp_path / "config.yaml"
    path.write_text(text)
    code, _, err = run_multisvm("validate", path)
    lines = [x for x in err.splitlines() if not x.startswith("warning: ")]
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"error: {path}:8: ") and fragment in lines[0], err
    assert "Traceback" not in err


def test_validate_refuses_an_exhaustive_code_beyond_twelve_classes(tmp_path):
    from configs import config_text

    from multisvm_cli.experiment import load_config
    from multisvm_cli.experiment.config import ConfigError

    text = config_text().replace("dataset: iris", "dataset: letter").replace(
        "schemes: [ovr, maxwins, dag]", "schemes: [ecoc]\nscheme_options: {ecoc: {code: exhaustive}}")
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="ecoc.code: letter: code exhaustive has 2\\^\\(k-1\\) - 1 "
                                          "columns: at most 12 classes, the data has 26"):
        load_config(path)


def test_fit_group_trains_max_wins_once_for_every_reader():
    from multisvm_cli.experiment.protocol import fit_group

    X, y = load_iris(return_X_y=True)
    options = {"dag": {"order": [2, 0, 1], "probability": True}, "adag": {}}
    fitted, _, _ = fit_group(("maxwins", "dag", "adag"), {"kernel": "gaussian", "sigma": 1.0, "C": 1.0},
                             options, X, y, 1, 0)
    maxwins, dag, adag = fitted["maxwins"], fitted["dag"], fitted["adag"]
    assert dag.machines_ is maxwins.machines_ is adag.machines_
    assert maxwins.probability and dag.probA_ is maxwins.probA_  # fitted for the DAG's sake
    assert not hasattr(adag, "predict_proba") and list(dag.order) == [2, 0, 1]
    assert adag.fit_cpu_time_ == maxwins.fit_cpu_time_
    np.testing.assert_array_equal(adag.predict(X), ADAGSVC(C=1.0, sigma=1.0).fit(X, y).predict(X))


def test_final_fits_share_training_only_among_readers_of_the_trainers_point():
    from multisvm_cli.experiment.protocol.final import _final_groups

    chosen = {"maxwins": {"point": "a"}, "dag": {"point": "a"}, "adag": {"point": "b"},
              "ovr": {"point": "a"}}
    assert _final_groups(["ovr", "maxwins", "dag", "adag"], chosen) == [
        ("maxwins", "dag"), ("adag",), ("ovr",)]
    chosen["adag"]["point"] = "a"
    assert _final_groups(["maxwins", "adag", "ovr"], chosen) == [("maxwins", "adag"), ("ovr",)]


def test_model_selection_fits_no_sigmoids():
    """Probabilities change no prediction: the grid's fits leave them out, final fits keep them."""
    from multisvm_cli.experiment.protocol.fitting import selection_options

    options = {"dag": {"order": None, "probability": True}, "ecoc": {"code": "ovr", "probability": True}}
    assert selection_options(("maxwins", "dag", "adag"), options) == {
        "maxwins": {}, "dag": {"order": None}, "adag": {}}
    assert selection_options(("ecoc",), options) == {"ecoc": {"code": "ovr"}}


def test_final_tests_record_log_loss_and_brier(digits, maxwins):
    from types import SimpleNamespace

    from sklearn.metrics import log_loss

    from multisvm_cli.experiment.protocol.final import _probabilities
    from multisvm_cli.experiment.protocol.pooling import _memory_and_levels

    _, _, X_test, y_test = digits
    fold = SimpleNamespace(X_test=X_test, y_test=y_test)
    found = _probabilities(maxwins, fold)
    proba = maxwins.predict_proba(X_test)
    assert found["log_loss"] == pytest.approx(log_loss(y_test, proba, labels=range(10)), rel=1e-9)
    onehot = np.eye(10)[y_test]
    assert found["brier"] == pytest.approx(np.mean(np.sum((proba - onehot) ** 2, axis=1)))
    assert _probabilities(MaxWinsSVC(C=10, gamma=0.05).fit(*digits[:2]), fold) == {}
    tests = [{"correct": np.ones(3, bool), "log_loss": 0.1, "brier": 0.2},
             {"correct": np.ones(1, bool), "log_loss": 0.5, "brier": 0.6}]
    pooled = _memory_and_levels(tests)
    assert pooled["log_loss"] == pytest.approx(0.2) and pooled["brier"] == pytest.approx(0.3)


def test_ecoc_reads_max_wins_or_one_vs_rest_machines_when_its_code_is_theirs():
    from multisvm_cli.estimators.registry import scheme_groups
    from multisvm_cli.experiment.protocol import fit_group

    schemes = ["ovr", "maxwins", "dag", "ecoc"]
    assert scheme_groups(schemes, {"ecoc": {"code": "ovo"}}) == [("maxwins", "dag", "ecoc"), ("ovr",)]
    assert scheme_groups(schemes, {"ecoc": {"code": "ovr"}}) == [("maxwins", "dag"), ("ovr", "ecoc")]
    assert scheme_groups(schemes, {"ecoc": {"code": "dense"}}) == [("maxwins", "dag"), ("ovr",),
                                                                   ("ecoc",)]
    assert scheme_groups(schemes) == [("maxwins", "dag"), ("ovr",), ("ecoc",)]
    X, y = load_iris(return_X_y=True)
    point = {"kernel": "gaussian", "sigma": 1.0, "C": 1.0}
    for trainer, code in (("maxwins", "ovo"), ("ovr", "ovr")):
        options = {"ecoc": {"code": code, "decoding": "hamming", "probability": True}}
        fitted, _, _ = fit_group((trainer, "ecoc"), point, options, X, y, 1, 0)
        ecoc, alone = fitted["ecoc"], ECOCSVC(**point, **options["ecoc"], random_state=0).fit(X, y)
        assert ecoc.machines_ is fitted[trainer].machines_ and ecoc.probA_ is fitted[trainer].probA_
        np.testing.assert_array_equal(ecoc.code_, alone.code_)
        np.testing.assert_array_equal(ecoc.code_weights_, alone.code_weights_)
        np.testing.assert_array_equal(ecoc.predict(X), alone.predict(X))
        np.testing.assert_allclose(ecoc.predict_proba(X), alone.predict_proba(X), atol=1e-12)
    with pytest.raises(ValueError, match="from_trained reads a MaxWinsSVC"):
        ECOCSVC.from_trained(fitted["ovr"], {"code": "dense"}, y)


DECOMPOSITIONS = """\
name: decomp
dataset: iris
split: {test_fraction: 0.3, seed: 0}
kernels: [{type: gaussian, sigma: [1]}]
C: [1, 10]
schemes: [maxwins, dag, adag, ecoc]
scheme_options: {adag: {probability: true}, ecoc: {code: ovo, decoding: loss, probability: true}}
"""


@pytest.mark.slow
def test_new_schemes_run_the_protocol_and_resume_from_the_cache(tmp_path, capsys, data_home):
    """The new schemes in a whole run: one pairwise training read by DAGSVM, ADAG and ECOC-ovo,
    log-loss and Brier in the results; a rerun takes every grid point from the cache."""
    import json

    from multisvm_cli.cli.main import main

    config = tmp_path / "decomp.yaml"
    config.write_text(DECOMPOSITIONS)
    out, reports = tmp_path / "results", []
    for _ in range(2):
        with pytest.raises(SystemExit) as exited:
            main(["reproduce-table", str(config), "--out", str(out), "--quiet", "--format", "json"])
        assert exited.value.code == 0
        reports.append(json.loads(capsys.readouterr().out))
    runs = sorted((out / "decomp").glob("2*"))
    meta = [json.loads((run / "run.json").read_text())["grid_points"] for run in runs]
    assert meta == [{"total": 8, "cached": 0, "computed": 8},
                    {"total": 8, "cached": 8, "computed": 0}]
    results = json.loads((runs[-1] / "results.json").read_text())["results"]
    by_scheme = {r["scheme"]: r for r in results}
    assert "log_loss" not in by_scheme["dag"]
    for reader in ("adag", "ecoc"):  # read Max Wins' machines: its fit, its time
        if by_scheme[reader]["params"] == by_scheme["maxwins"]["params"]:
            assert by_scheme[reader]["cpu_time"] == by_scheme["maxwins"]["cpu_time"]
    for scheme in ("adag", "ecoc"):
        assert 0 < by_scheme[scheme]["log_loss"] < 0.5 and 0 < by_scheme[scheme]["brier"] < 0.3
    assert len(reports[0]) == len(reports[1])


def test_validate_refuses_an_explicit_code_with_a_classes_sweep(tmp_path, run_multisvm):
    from configs import config_text

    text = config_text().replace(
        "schemes: [ovr, maxwins, dag]",
        "schemes: [ecoc]\nscheme_options: {ecoc: {code: [[1, -1, 1], [-1, 1, 1], [1, 1, -1]]}}\n"
        "sweep: {classes: [2, 3]}")
    path = tmp_path / "config.yaml"
    path.write_text(text)
    code, _, err = run_multisvm("validate", path)
    assert code == 2 and err.count("\n") == 1, err
    assert f"{path}:9: sweep.classes: a classes sweep changes the classes, but " \
           "scheme_options.ecoc.code is a matrix" in err
    path.write_text(text.replace("[[1, -1, 1], [-1, 1, 1], [1, 1, -1]]", "sparse"))
    assert run_multisvm("validate", path)[0] == 0


@pytest.mark.slow
def test_on_usps_the_codes_reproduce_output_codes_max_wins_and_one_vs_rest(mirror, data_home):
    """The three equalities above on USPS (its first 1,500 training digits, 600 test digits,
    Platt et al.'s sigma 3.58 and C 10)."""
    from multisvm_cli import data

    usps = data.load("usps", mirror=mirror, progress=False)
    (X, y), (X_test, _) = usps.parts["train"], usps.parts["test"]
    X, y, X_test = X[:1500], y[:1500], X_test[:600]
    params = {"C": 10.0, "sigma": 3.58}
    occ = OutputCodeClassifier(SVC(C=10.0, gamma=1 / (2 * 3.58 ** 2)), code_size=1.0,
                               random_state=0).fit(X, y)
    ecoc = ECOCSVC(**params, code=occ.code_book_.astype(int).tolist(), decoding="euclidean")
    np.testing.assert_array_equal(ecoc.fit(X, y).predict(X_test), occ.predict(X_test))
    maxwins = MaxWinsSVC(**params).fit(X, y)
    ovo = ECOCSVC(**params, code="ovo", decoding="hamming").fit(X, y)
    np.testing.assert_array_equal(ovo.predict(X_test), maxwins.predict(X_test))
    ovr = ECOCSVC(**params, code="ovr", decoding="loss").fit(X, y)
    np.testing.assert_array_equal(ovr.predict(X_test), OneVsRestSVC(**params).fit(X, y).predict(X_test))
