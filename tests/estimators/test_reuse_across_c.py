"""Exact reuse across C (issue #22): a binary SVM with no support vector at the bound C' is the
machine of every C >= C', so a MachineReuse store hands it out instead of retraining.

How close is "the same machine"?  The reused machine and a fresh libsvm fit at the larger C both
meet libsvm's stopping rule (maximal KKT violation <= tol) for the same problem; they are two
tol-accurate solutions, not bit-identical in general (most often they are: SMO takes the same
steps when no alpha ever reaches the bound).  Their difference is proportional to tol, with a
factor that grows with the problem's conditioning: on the training points, over gamma
2^-4..2^4 and C 2^-2..2^12 on iris, wine, glass, vowel and segment, at most 2.4 tol (tol 1e-3 ->
1e-6: 1.5e-3 -> 2.4e-6), so the tests at gamma 2 assert 5 tol; at gamma 2^-7, C >= 2^11 on vowel
(alphas ~1000) it reaches 16 tol, and there the reused machine is about as close to a
tol = 1e-9 fit as the fresh fit is (training points: 8.5e-3 and 8.0e-3; test points: 1.3e-2
both): it is the solver's tolerance, not an approximation.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.preprocessing import MinMaxScaler

from multisvm_cli import data
from multisvm_cli.estimators import (DAGSVC, UDTSVC, GraphSVC, HierSVC, MaxWinsSVC,
                                     NBClassifier, OneVsRestSVC)
from multisvm_cli.estimators.reuse import MachineReuse, data_digest, has_bounded_sv
from multisvm_cli.estimators.kernels import Kernel

TOL = 1e-3
BOUND = 5 * TOL  # see the module's docstring
C_VALUES = (1.0, 10.0, 100.0, 1000.0)
DATASETS = {"iris": "all", "wine": "all", "glass": "all", "vowel": "train"}


def scaled(name, mirror):
    X, y = data.load(name, mirror=mirror, progress=False).parts[DATASETS[name]]
    return MinMaxScaler((-1, 1)).fit_transform(X), y


def machine_values(model, X):
    return model.machines_.decision(X, model.memory_mb)


def ascending_fits(scheme, X, y, gamma, C_values=C_VALUES, tol=TOL, **params):
    """[(fit with a shared store, fresh fit)] at ascending C."""
    store = MachineReuse()
    return [(scheme(C=C, gamma=gamma, tol=tol, random_state=0, **params).fit(X, y, reuse=store),
             scheme(C=C, gamma=gamma, tol=tol, random_state=0, **params).fit(X, y))
            for C in C_values]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(DATASETS))
@pytest.mark.parametrize("scheme", [OneVsRestSVC, MaxWinsSVC, DAGSVC, UDTSVC, GraphSVC, HierSVC])
def test_reused_machines_equal_fresh_fits_at_the_larger_C(name, scheme, mirror, data_home):
    X, y = scaled(name, mirror)
    fits = ascending_fits(scheme, X, y, gamma=2.0)
    for reused, fresh in fits:
        assert reused.machines_.n_machines == fresh.machines_.n_machines
        np.testing.assert_allclose(machine_values(reused, X), machine_values(fresh, X), rtol=0, atol=BOUND)
        assert np.mean(reused.predict(X) == fresh.predict(X)) >= 0.99
        assert reused.smo_iterations_ <= fresh.smo_iterations_
        assert fresh.n_reused_machines_ == 0
        if scheme is UDTSVC:  # the same nodes, chosen in the same order
            np.testing.assert_array_equal(reused.level_order_, fresh.level_order_)
    counts = [reused.n_reused_machines_ for reused, _ in fits]
    assert counts[0] == 0  # nothing stored yet
    if scheme not in (GraphSVC, HierSVC):  # their few machines may all keep a bounded SV here
        assert counts[-1] > 0, counts
    if scheme is MaxWinsSVC and name == "vowel":  # every pair separable at C = 1000
        assert counts[-1] == 55 and fits[-1][0].smo_iterations_ == 0


def test_the_difference_is_libsvms_tolerance(mirror, data_home):
    X, y = scaled("vowel", mirror)
    worst = {}
    for tol in (1e-3, 1e-6):
        fits = ascending_fits(MaxWinsSVC, X, y, gamma=2.0**-4, C_values=2.0 ** np.arange(-2, 13, 2), tol=tol)
        assert sum(reused.n_reused_machines_ for reused, _ in fits) == 138
        worst[tol] = max(np.abs(machine_values(r, X) - machine_values(f, X)).max() for r, f in fits)
        assert worst[tol] <= 5 * tol
    assert worst[1e-3] > 1e-4 and worst[1e-6] < worst[1e-3] / 100


def test_a_reused_machine_is_as_accurate_as_a_fresh_fit(mirror, data_home):
    # vowel's worst-conditioned corner of the grid: small gamma, large C, alphas ~1000.
    X, y = scaled("vowel", mirror)
    store, errors = MachineReuse(), {"reused": 0.0, "fresh": 0.0}
    for C in 2.0 ** np.arange(-2, 13):
        reused = MaxWinsSVC(C=C, gamma=2.0**-7).fit(X, y, reuse=store)
        if reused.n_reused_machines_ and C >= 2**11:
            accurate = machine_values(MaxWinsSVC(C=C, gamma=2.0**-7, tol=1e-9).fit(X, y), X)
            fresh = MaxWinsSVC(C=C, gamma=2.0**-7).fit(X, y)
            for name, model in (("reused", reused), ("fresh", fresh)):
                errors[name] = max(errors[name], np.abs(machine_values(model, X) - accurate).max())
    assert 5 * TOL < errors["fresh"] < 50 * TOL  # libsvm's own tol-accuracy here
    assert errors["reused"] <= errors["fresh"] + TOL


def three_clusters():
    """Two points a class on a line, clusters 10 apart: with gamma = 0.5 the classes barely see
    each other, so every machine is separable with alphas ~0.6 (free for C >= 1), while at
    C = 0.001 every alpha is at the bound."""
    X = np.array([[-10.0], [-9.0], [0.0], [1.0], [10.0], [11.0]])
    return X, np.array([0, 0, 1, 1, 2, 2])


def bounded(model):
    """Per machine: whether it has a support vector at the bound C."""
    coef = model.machines_.coef.tocsc()
    return [has_bounded_sv(coef[:, m].data, model.C) for m in range(coef.shape[1])]


@pytest.mark.parametrize("scheme", [OneVsRestSVC, MaxWinsSVC])
def test_reuse_counts_by_hand(scheme):
    X, y = three_clusters()
    store = MachineReuse()
    models = {}
    expected = [(1e-3, 0),    # nothing stored
                (100.0, 0),   # stored at 0.001, but with bounded SVs
                (1000.0, 3),  # stored at 100 without bounded SVs: 100 <= 1000
                (100.0, 3),   # the same C again
                (50.0, 0),    # below 100: trained (and now stored at 50)
                (70.0, 3)]    # 50 <= 70
    for C, reused in expected:
        model = scheme(C=C, gamma=0.5).fit(X, y, reuse=store)
        assert model.n_reused_machines_ == reused, C
        assert (model.smo_iterations_ == 0) == (reused == 3)
        models.setdefault(C, model)
    assert bounded(models[1e-3]) == [True] * 3
    assert bounded(models[100.0]) == [False] * 3 and bounded(models[50.0]) == [False] * 3
    assert store.n_reused == 9 and len(store) == 3
    np.testing.assert_array_equal(machine_values(models[1000.0], X), machine_values(models[100.0], X))


def test_dag_after_max_wins_at_the_same_C_reuses_every_pair():
    X, y = three_clusters()
    store = MachineReuse()
    maxwins = MaxWinsSVC(C=1e-3, gamma=0.5).fit(X, y, reuse=store)
    dag = DAGSVC(C=1e-3, gamma=0.5).fit(X, y, reuse=store)  # bounded, but the same C
    assert (maxwins.n_reused_machines_, dag.n_reused_machines_, dag.smo_iterations_) == (0, 3, 0)
    np.testing.assert_array_equal(machine_values(dag, X), machine_values(maxwins, X))
    assert DAGSVC.from_maxwins(maxwins).n_reused_machines_ == 0


def test_a_machine_with_a_bounded_sv_is_never_reused():
    # Two overlapping blobs: no smooth machine separates them, at any C of the grid.
    X, y = make_blobs(n_samples=120, centers=[[0, 0], [0.5, 0]], cluster_std=1.0, random_state=0)
    store = MachineReuse()
    for C in (1.0, 10.0, 100.0, 1000.0):
        model = OneVsRestSVC(C=C, gamma=0.1).fit(X, y, reuse=store)
        fresh = OneVsRestSVC(C=C, gamma=0.1).fit(X, y)
        assert bounded(fresh) == [True]
        assert model.n_reused_machines_ == 0 and model.smo_iterations_ == fresh.smo_iterations_
        np.testing.assert_array_equal(machine_values(model, X), machine_values(fresh, X))
    assert store.n_reused == 0


def test_the_store_rule():
    store, key = MachineReuse(), ("problem",)
    free, at_bound = SimpleNamespace(dual_coef=np.array([0.5, -0.5])), SimpleNamespace(dual_coef=np.array([1.0, -0.3]))
    store.store(key, 1.0, at_bound)  # |y a| = 1.0 >= C: libsvm's UPPER_BOUND
    assert store.lookup(key, 2.0) is None and store.lookup(key, 1.0) is at_bound
    store.store(key, 1.0, free)
    assert store.lookup(key, 1.0) is free and store.lookup(key, 1e9) is free
    assert store.lookup(key, 0.5) is None and store.lookup(("other",), 2.0) is None
    assert store.covers(key, 3.0) and not store.covers(key, 0.9)
    assert store.n_reused == 3  # three lookups found one; covers() counts nothing
    store.store(key, 4.0, at_bound)  # a later bounded fit does not hide the free one
    assert store.lookup(key, 3.0) is free and store.lookup(key, 4.0) is at_bound
    assert has_bounded_sv(np.array([-2.0]), 2.0) and not has_bounded_sv(np.array([-2.0]), 2.0000001)


def test_the_key_distinguishes_data_rows_labels_kernel_and_tol():
    X = np.arange(12.0).reshape(6, 2)
    rows, positive = np.arange(4), np.array([True, True, False, False])
    gaussian = Kernel.from_params("gaussian", sigma=1.0)
    base = MachineReuse.key(data_digest(X), rows, positive, gaussian, 1e-3)
    assert base == MachineReuse.key(data_digest(X.copy()), list(rows), positive.copy(), gaussian, 1e-3)
    changed = X.copy()
    changed[5, 1] += 1e-12  # a row the problem does not use: still another training X
    variants = [MachineReuse.key(data_digest(changed), rows, positive, gaussian, 1e-3),
                MachineReuse.key(data_digest(X), np.array([0, 1, 2, 5]), positive, gaussian, 1e-3),
                MachineReuse.key(data_digest(X), rows, positive[::-1], gaussian, 1e-3),
                MachineReuse.key(data_digest(X), rows, positive, Kernel.from_params("gaussian", sigma=2.0), 1e-3),
                MachineReuse.key(data_digest(X), rows, positive, Kernel.from_params("linear"), 1e-3),
                MachineReuse.key(data_digest(X), rows, positive, gaussian, 1e-4)]
    assert len({base, *variants}) == 1 + len(variants)


def test_fits_on_other_data_or_kernel_reuse_nothing():
    X, y = three_clusters()
    store = MachineReuse()
    OneVsRestSVC(C=100.0, gamma=0.5).fit(X, y, reuse=store)
    moved = X.copy()
    moved[0, 0] -= 0.5
    assert OneVsRestSVC(C=1000.0, gamma=0.5).fit(moved, y, reuse=store).n_reused_machines_ == 0
    assert OneVsRestSVC(C=1000.0, gamma=0.25).fit(X, y, reuse=store).n_reused_machines_ == 0
    # Other labels: only class 2's problem (rows 4, 5 against the rest) is the same as before.
    assert OneVsRestSVC(C=1000.0, gamma=0.5).fit(X, [0, 1, 1, 0, 2, 2], reuse=store).n_reused_machines_ == 1
    # Reversed labels: the same three problems, numbered the other way round.
    assert OneVsRestSVC(C=1000.0, gamma=0.5).fit(X, y[::-1], reuse=store).n_reused_machines_ == 3
    assert OneVsRestSVC(C=1000.0, gamma=0.5).fit(X, y, reuse=store).n_reused_machines_ == 3


def test_a_fully_reused_one_vs_rest_computes_no_gram_matrix(monkeypatch):
    X, y = three_clusters()
    store = MachineReuse()
    OneVsRestSVC(C=100.0, gamma=0.5).fit(X, y, reuse=store)

    def no_gram(*args, **kwargs):
        raise AssertionError("Gram matrix computed")

    monkeypatch.setattr(Kernel, "gram", no_gram)
    assert OneVsRestSVC(C=1000.0, gamma=0.5).fit(X, y, reuse=store).n_reused_machines_ == 3


def test_reuse_with_a_shared_gram_and_threads(mirror, data_home):
    X, y = scaled("vowel", mirror)
    gram = Kernel.from_params("gaussian", gamma=2.0).gram(X)
    counts = {}
    for n_jobs in (1, 2):
        store = MachineReuse()
        for C in (10.0, 100.0, 1000.0):
            model = OneVsRestSVC(C=C, gamma=2.0, n_jobs=n_jobs).fit(X, y, gram=gram, reuse=store)
            fresh = OneVsRestSVC(C=C, gamma=2.0).fit(X, y)
            np.testing.assert_allclose(machine_values(model, X), machine_values(fresh, X), rtol=0, atol=BOUND)
            counts.setdefault(n_jobs, []).append(model.n_reused_machines_)
    assert counts[1] == counts[2] and counts[1][-1] == 11


def test_without_a_store_nothing_changes():
    X, y = three_clusters()
    assert OneVsRestSVC(C=10.0, gamma=0.5).fit(X, y).n_reused_machines_ == 0
    assert NBClassifier().fit(X, y, reuse=MachineReuse()).n_reused_machines_ == 0
    with pytest.raises(TypeError, match="reuse must be a MachineReuse store or None, got dict"):
        OneVsRestSVC().fit(X, y, reuse={})


def test_the_benchmark_counts_every_binary_fit(mirror, data_home):
    import reuse_across_c as bench

    train, test = bench.load("vowel", mirror, rows=None)
    fits, reused, share, cpu_without, cpu_with, smo_without, smo_with, agree, worst = bench.measure(
        "maxwins", 2.0**2, train, test)
    assert fits == 15 * 55 and reused == 634 and share == pytest.approx(634 / 825)
    assert smo_with < smo_without / 3 and 0 <= cpu_with and 0 < cpu_without  # CPU: not timed here
    assert agree and worst < 5


def test_a_fit_stopped_at_the_iteration_bound_is_never_reused():
    """A machine SMO left at max_iter is no solution: a larger C refits instead of reusing."""
    from sklearn.datasets import load_iris

    from multisvm_cli.estimators import OneVsRestSVC
    from multisvm_cli.estimators.reuse import MachineReuse

    X, y = load_iris(return_X_y=True)
    store = MachineReuse()
    for C in (100.0, 1000.0):
        model = OneVsRestSVC(C=C, kernel="gaussian", gamma=2.0, max_iter=3).fit(X, y,
                                                                                 reuse=store)
        assert model.n_reused_machines_ == 0
    assert store.n_reused == 0
    free = MachineReuse()  # the same problems without the bound do reuse at the larger C
    OneVsRestSVC(C=100.0, kernel="gaussian", gamma=2.0).fit(X, y, reuse=free)
    assert OneVsRestSVC(C=1000.0, kernel="gaussian", gamma=2.0).fit(
        X, y, reuse=free).n_reused_machines_ > 0
