"""``class_weight`` (issue 55 item 5): the schemes' binary machines are scikit-learn's
``SVC(class_weight=...)`` / ``LinearSVC(class_weight=...)`` machines, LIBSVM's ``-wi``, with
the multiclass weights mapped onto each machine's two sides as :mod:`multisvm_cli.estimators.weights`
documents; on glass from the mirror (70, 76, 17, 13, 9 and 29 rows: its smallest class holds an
eighth of its largest's)."""

import numpy as np
import pytest
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC, LinearSVC

from multisvm_cli import data
from multisvm_cli.estimators import DAGSVC, MaxWinsSVC, OneVsRestSVC, UDTSVC
from multisvm_cli.estimators.reuse import MachineReuse, has_bounded_sv
from multisvm_cli.estimators.weights import class_weights, side_weights

GAMMA, C = 0.5, 10.0


@pytest.fixture(scope="module")
def glass():
    from tests.conftest import MIRROR

    if not MIRROR.is_dir():
        pytest.skip("dataset mirror is absent (set MULTISVM_MIRROR)")
    X, y = data.load("glass", mirror=MIRROR, progress=False).parts["all"]
    return MinMaxScaler((-1, 1)).fit_transform(X), np.asarray(y)


def skewed_pair(glass):
    """Glass's largest class (76 rows) against its smallest (9 rows): a two-class problem."""
    X, y = glass
    labels, counts = np.unique(y, return_counts=True)
    keep = np.isin(y, [labels[np.argmax(counts)], labels[np.argmin(counts)]])
    return X[keep], y[keep]


@pytest.mark.parametrize("weight", ["balanced", "largest-10"])
def test_max_wins_predicts_as_svc_with_the_same_class_weight(glass, weight):
    X, y = glass
    labels, counts = np.unique(y, return_counts=True)
    if weight != "balanced":  # a mapping that names one class (the others keep 1)
        weight = {labels[np.argmax(counts)].item(): 10.0}
    ours = MaxWinsSVC(C=C, gamma=GAMMA, class_weight=weight).fit(X, y)
    svc = SVC(C=C, gamma=GAMMA, class_weight=weight).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), svc.predict(X))
    plain = MaxWinsSVC(C=C, gamma=GAMMA).fit(X, y)
    assert not np.array_equal(plain.predict(X), ours.predict(X))  # the weights change machines


@pytest.mark.parametrize("solver", ["libsvm", "liblinear"])
def test_two_classes_one_vs_rest_is_svc_balanced(glass, solver):
    X, y = skewed_pair(glass)
    if solver == "libsvm":
        ours = OneVsRestSVC(C=C, gamma=GAMMA, class_weight="balanced").fit(X, y)
        theirs = SVC(C=C, gamma=GAMMA, class_weight="balanced").fit(X, y)
        np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                                   atol=1e-9)
    else:
        ours = OneVsRestSVC(C=1.0, kernel="linear", solver="liblinear",
                            class_weight="balanced").fit(X, y)
        theirs = LinearSVC(C=1.0, loss="hinge", dual=True, intercept_scaling=1.0, random_state=0,
                           tol=1e-3, class_weight="balanced").fit(X, y)
        np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                                   atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_one_vs_rest_machines_are_svc_with_the_documented_side_weights(glass):
    """Class c against the rest: w_+ = n / (N n_c), w_- = (N - 1) n / (N (n - n_c))."""
    X, y = glass
    labels, counts = np.unique(y, return_counts=True)
    n, k = len(y), len(labels)
    model = OneVsRestSVC(C=C, gamma=GAMMA, class_weight="balanced").fit(X, y)
    values = model.decision_function(X)
    for c, label in enumerate(labels):
        positive = y == label
        sides = {0: (k - 1) * n / (k * (n - counts[c])), 1: n / (k * counts[c])}
        svc = SVC(C=C, gamma=GAMMA, class_weight=sides).fit(X, positive.astype(int))
        # two tol-accurate solutions (ours reads the shared Gram matrix): within 5 tol, as
        # tests/estimators/test_reuse_across_c.py's, and the same sign on every point
        np.testing.assert_allclose(values[:, c], svc.decision_function(X), atol=5e-3)
        np.testing.assert_array_equal(values[:, c] > 0, svc.decision_function(X) > 0)


def test_weights_follow_the_documented_formulas(glass):
    X, y = glass
    labels, y_index = np.unique(y, return_inverse=True)
    counts = np.bincount(y_index)
    from sklearn.utils.class_weight import compute_class_weight

    balanced = class_weights("balanced", labels, y_index)
    np.testing.assert_allclose(balanced, compute_class_weight("balanced", classes=labels, y=y))
    assert class_weights(None, labels, y_index) is None
    named = class_weights({str(labels[0]): 3.0}, labels, y_index)  # a JSON key names it too
    assert named[0] == 3.0 and np.all(named[1:] == 1.0)
    rows = np.arange(len(y))
    w_neg, w_pos = side_weights(balanced[y_index], rows, y_index == 0)
    assert w_pos == pytest.approx(len(y) / (len(labels) * counts[0]))
    assert w_neg == pytest.approx((len(labels) - 1) * len(y) / (len(labels) * (len(y) - counts[0])))


@pytest.mark.parametrize("bad, words", [
    ({"no-such-class": 2.0}, "names the label 'no-such-class', which is no class of the data"),
    ({1: -1.0}, "must be a finite number > 0"),
    ("balance", "must be balanced or a mapping"),
    ({}, "must be balanced or a mapping"),
])
def test_bad_class_weight_is_refused_in_one_line(glass, bad, words):
    X, y = glass
    with pytest.raises(ValueError, match=words) as raised:
        MaxWinsSVC(C=C, gamma=GAMMA, class_weight=bad).fit(X, y)
    assert "\n" not in str(raised.value)


def test_readers_of_weighted_pairwise_machines_carry_the_weight(glass):
    X, y = glass
    maxwins = MaxWinsSVC(C=C, gamma=GAMMA, class_weight="balanced").fit(X, y)
    dag = DAGSVC.from_trained(maxwins, {"class_weight": "balanced"})
    assert dag.class_weight == "balanced"
    alone = DAGSVC(C=C, gamma=GAMMA, class_weight="balanced").fit(X, y)
    np.testing.assert_array_equal(dag.predict(X), alone.predict(X))


@pytest.mark.parametrize("scheme", [OneVsRestSVC, MaxWinsSVC, UDTSVC])
def test_reuse_across_C_with_weights_equals_fresh_fits(glass, scheme):
    """The store's bound test reads each side's C w: a weighted machine reused at a larger C is
    a solution there (within 5 tol, as tests/estimators/test_reuse_across_c.py's)."""
    X, y = glass
    store, reused_any = MachineReuse(), 0
    for C_value in (1.0, 10.0, 100.0):
        params = dict(C=C_value, gamma=2.0, class_weight="balanced", random_state=0)
        reused = scheme(**params).fit(X, y, reuse=store)
        fresh = scheme(**params).fit(X, y)
        reused_any += reused.n_reused_machines_
        np.testing.assert_allclose(reused.machines_.decision(X, 2048),
                                   fresh.machines_.decision(X, 2048), rtol=0, atol=5e-3)
    assert reused_any > 0


def test_a_store_never_hands_a_machine_of_other_weights(glass):
    X, y = glass
    store = MachineReuse()
    OneVsRestSVC(C=1.0, gamma=GAMMA).fit(X, y, reuse=store)
    weighted = OneVsRestSVC(C=1.0, gamma=GAMMA, class_weight="balanced").fit(X, y, reuse=store)
    assert weighted.n_reused_machines_ == 0


def test_bound_test_reads_each_sides_C():
    dual_coef = np.array([0.5, -2.0])  # a positive at 0.5, a negative at 2
    assert not has_bounded_sv(dual_coef, 1.0, (4.0, 1.0))  # C_- = 4, C_+ = 1: both free
    assert has_bounded_sv(dual_coef, 1.0, (2.0, 1.0))  # C_- = 2: the negative is at its bound
    assert has_bounded_sv(dual_coef, 1.0)  # unit weights: |-2| >= 1
