"""Estimator parameters: unusable ranges refused before libsvm, gamma as the alternative to sigma,
and ``smo_iterations_`` (libsvm's SMO iterations over every binary SVM a fit trains)."""


import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.svm import SVC

from multisvm_cli.estimators import SCHEMES, DAGSVC, MaxWinsSVC, OneVsRestSVC
from multisvm_cli.estimators import _binary, _pairwise, udt
from multisvm_cli.estimators.options import MAX_C, check_C
from multisvm_cli.estimators.kernels import Kernel
from multisvm_cli.persist import load_model, save_model

X, Y = load_iris(return_X_y=True)
ALL = sorted(SCHEMES)
HUGE_INT = 1180591620717411303424  # 2^70


def machine_state(model):
    """What a fitted model's binary SVMs are: dual coefficients, their rows, intercepts."""
    machines = model.machines_
    return machines.coef.data, machines.coef.indices, machines.vectors, machines.intercept


# A. Parameter ranges that overflow or underflow the kernel or libsvm.

@pytest.mark.parametrize("params, message", [
    ({"sigma": 1.0e-200}, r"^sigma must be a number in \[7.46e-155, 4.74e\+153\] .* got 1e-200$"),
    ({"sigma": 1.0e+200}, r"^sigma must be a number in \[7.46e-155, 4.74e\+153\] .* got 1e\+200$"),
    ({"kernel": "polynomial", "degree": HUGE_INT}, rf"^degree must be an integer in \[1, 100\], got {HUGE_INT}$"),
    ({"degree": HUGE_INT}, r"^degree must be an integer in \[1, 100\]"),
    ({"gamma": 0.0}, r"^gamma must be None or a number in \[2.23e-308, 8.99e\+307\], got 0.0$"),
    ({"gamma": 1e-320}, r"^gamma must be None or a number in .*, got 1e-320$"),
    ({"gamma": float("inf")}, r"^gamma must be None or a number in .*, got inf$"),
    ({"gamma": -2.0}, r"^gamma must be None or a number in"),
    ({"gamma": "0.5"}, r"^gamma must be None or a number in"),
    ({"kernel": "linear", "gamma": 0.5}, "^gamma applies to the gaussian kernel only"),
    ({"sigma": 2.0, "gamma": 0.5}, r"^sigma=2.0 and gamma=0.5 disagree"),
    ({"C": 1e300}, r"^C must be a number in \(0, 4.5e\+15\], got 1e\+300$"),
    ({"C": 10**400}, r"^C must be a number in \(0, 4.5e\+15\]"),
    ({"C": float("inf")}, r"^C must be a number in \(0, 4.5e\+15\], got inf$"),
    ({"C": -1.0}, r"^C must be a number in \(0, 4.5e\+15\], got -1.0$"),
    ({"tol": 10**400}, "^tol must be a finite number > 0"),
])
def test_unusable_parameters_are_one_line_value_errors_on_iris(params, message):
    with pytest.raises(ValueError, match=message) as error:
        OneVsRestSVC(**params).fit(X, Y)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("scheme", ALL)
def test_every_scheme_refuses_the_issue_values(scheme):
    for params in ({"sigma": 1e-200}, {"sigma": 1e200}, {"degree": HUGE_INT}, {"gamma": 0.0}, {"C": 1e300}):
        with pytest.raises(ValueError, match=f"^{next(iter(params))} must be"):
            SCHEMES[scheme](**params).fit(X, Y)


def test_c_bound():
    check_C(MAX_C)
    check_C(5e-324)  # tiny C is merely a weak classifier
    with pytest.raises(ValueError, match="C must be a number in"):
        check_C(float(np.nextafter(MAX_C, np.inf)))


def test_large_but_usable_c_trains_a_hard_margin():
    model = MaxWinsSVC(C=1e12, gamma=0.5).fit(X, Y)
    assert model.score(X, Y) == 1.0


# B. gamma as the alternative to sigma.

@pytest.mark.parametrize("scheme", ALL)
@pytest.mark.parametrize("gamma, sigma", [(0.5, 1.0), (0.125, 2.0)])
def test_gamma_and_sigma_give_identical_models(scheme, gamma, sigma):
    assert 1 / (2 * sigma**2) == gamma  # exactly
    by_gamma = SCHEMES[scheme](gamma=gamma, C=10.0, random_state=0).fit(X, Y)
    by_sigma = SCHEMES[scheme](sigma=sigma, C=10.0, random_state=0).fit(X, Y)
    if hasattr(by_sigma, "machines_"):
        assert by_gamma.machines_.kernel.gamma == gamma
        for ours, theirs in zip(machine_state(by_gamma), machine_state(by_sigma)):
            np.testing.assert_array_equal(ours, theirs)
        assert by_gamma.machines_.n_machines > 0
    np.testing.assert_array_equal(by_gamma.predict(X), by_sigma.predict(X))
    np.testing.assert_array_equal(by_gamma.decision_function(X), by_sigma.decision_function(X))
    assert by_gamma.smo_iterations_ == by_sigma.smo_iterations_


@pytest.mark.parametrize("gamma", [2.0**-10, 2.0**4])
@pytest.mark.parametrize("C", [1.0, 100.0])
def test_extreme_grid_gammas_train_as_libsvm_does(gamma, C):
    # sklearn's SVC is libsvm's Max Wins on the same pairs, with the same gamma.
    ours = MaxWinsSVC(gamma=gamma, C=C).fit(X, Y)
    libsvm = SVC(gamma=gamma, C=C).fit(X, Y)
    np.testing.assert_array_equal(ours.predict(X), libsvm.predict(X))
    assert ours.n_support_vectors_ == len(libsvm.support_)
    assert ours.smo_iterations_ == libsvm.n_iter_.sum()
    assert OneVsRestSVC(gamma=gamma, C=C).fit(X, Y).score(X, Y) > 0.6


def test_gamma_is_a_constructor_parameter_of_every_scheme():
    for cls in SCHEMES.values():
        assert cls().get_params()["gamma"] is None
        assert cls(gamma=0.25).set_params(C=3.0).get_params()["gamma"] == 0.25


@pytest.mark.parametrize("scheme", ["ovr", "udt"])
def test_gamma_round_trips_through_saved_models(tmp_path, scheme):
    gamma = 1 / 3  # not a short decimal: JSON must keep every bit
    model = SCHEMES[scheme](gamma=gamma, random_state=0).fit(X, Y)
    save_model(tmp_path / "m", model)
    again = load_model(tmp_path / "m").estimator
    assert again.gamma == gamma and again.machines_.kernel.gamma == gamma
    assert again.machines_.kernel.label() == "gaussian gamma=0.333333"
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


def test_a_model_json_without_gamma_or_smo_iterations_is_refused(tmp_path):
    # Model folders of format 2 always record both; an older folder (format 1) is refused as a
    # whole ("train the model again"), and a format-2 one lacking them was edited by hand.
    from multisvm_cli.persist import ModelFormatError
    from model_files import edit_json

    model = OneVsRestSVC(sigma=2.0).fit(X, Y)
    for section, key in (("params", "gamma"), ("fitted", "smo_iterations")):
        save_model(tmp_path / key, model)
        edit_json(tmp_path / key, lambda document: document[section].pop(key))
        with pytest.raises(ModelFormatError, match=key):
            load_model(tmp_path / key)


# C. smo_iterations_.

def test_maxwins_iterations_are_those_of_its_pairwise_svms():
    gamma, C = 0.125, 10.0
    model = MaxWinsSVC(gamma=gamma, C=C).fit(X, Y)
    expected = 0
    for i, j in _pairwise.class_pairs(3):  # rows and labels as fit_pairwise gives them
        rows = np.concatenate([np.flatnonzero(Y == i), np.flatnonzero(Y == j)])
        labels = (np.arange(len(rows)) >= np.sum(Y == i)).astype(np.int8)
        expected += SVC(kernel="rbf", gamma=gamma, C=C, tol=1e-3).fit(X[rows], labels).n_iter_[0]
    assert expected > 0 and model.smo_iterations_ == expected
    assert DAGSVC.from_maxwins(model).smo_iterations_ == expected
    assert DAGSVC(gamma=gamma, C=C).fit(X, Y).smo_iterations_ == expected


@pytest.mark.parametrize("shared_gram", [True, False])
def test_one_vs_rest_iterations_are_those_of_its_n_svms(shared_gram):
    gamma, C = 0.5, 10.0
    # 1 KB of memory: the 150 x 150 Gram matrix does not fit, so libsvm computes the kernel itself.
    model = OneVsRestSVC(gamma=gamma, C=C, memory_mb=2048 if shared_gram else 2**-10).fit(X, Y)
    expected = 0
    for c in range(3):
        labels = (Y == c).astype(np.int8)
        if shared_gram:
            gram = Kernel.from_params("gaussian", gamma=gamma).gram(X)
            svc = SVC(kernel="precomputed", C=C, tol=1e-3).fit(gram, labels)
        else:
            svc = SVC(kernel="rbf", gamma=gamma, C=C, tol=1e-3).fit(X, labels)
        expected += svc.n_iter_[0]
    assert expected > 0 and model.smo_iterations_ == expected


@pytest.fixture
def recorded_fits(monkeypatch):
    """Every BinaryFit that fit_binary returns, wherever it is called from."""
    fits = []

    def recording(*args, **kwargs):
        fits.append(original(*args, **kwargs))
        return fits[-1]

    original = _binary.fit_binary
    for module in (_binary, _pairwise, udt):
        monkeypatch.setattr(module, "fit_binary", recording)
    return fits


@pytest.mark.parametrize("scheme, params", [
    ("udt", {}), ("graph", {"threshold": 0.0}), ("hier", {}), ("hier", {"level1": "svm"}),
    ("maxwins", {}), ("ovr", {}), ("nb", {}),
])
def test_every_trained_binary_svm_counts(recorded_fits, scheme, params):
    model = SCHEMES[scheme](random_state=0, **params).fit(X, Y)
    assert model.smo_iterations_ == sum(fit.n_iter for fit in recorded_fits)
    if scheme == "nb":
        assert model.smo_iterations_ == 0 and recorded_fits == []
        return
    assert all(fit.n_iter > 0 for fit in recorded_fits)
    n_machines = model.machines_.n_machines
    if scheme == "udt":  # 3 candidates and a node at level 1, 1 candidate and a node at level 2
        assert len(recorded_fits) == 6 and n_machines == 2
    else:
        assert len(recorded_fits) == n_machines


@pytest.mark.parametrize("scheme", ALL)
def test_smo_iterations_round_trip(tmp_path, scheme):
    model = SCHEMES[scheme](random_state=0).fit(X, Y)
    save_model(tmp_path / "m", model)
    again = load_model(tmp_path / "m").estimator
    assert again.smo_iterations_ == model.smo_iterations_
    assert isinstance(again.smo_iterations_, int) and (again.smo_iterations_ > 0) == (scheme != "nb")
