"""A training Gram matrix handed to ``fit`` (shared by fits that differ only in C) is what the
binary SVMs read, and the protocol scores a kernel's C values from one such matrix."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.svm import SVC

from multisvm_cli.estimators import MaxWinsSVC, OneVsRestSVC
from multisvm_cli.estimators.kernels import Kernel
from multisvm_cli.experiment.protocol import PointJob, same_kernel_tasks, score_points
from helpers import standardized


def test_one_vs_rest_with_the_shared_gram_is_the_same_fit():
    X, y = standardized(load_digits, 500)
    gram = Kernel.from_params("gaussian", sigma=4.0).gram(X)
    own = OneVsRestSVC(C=10.0, sigma=4.0).fit(X, y)
    shared = OneVsRestSVC(C=10.0, sigma=4.0).fit(X, y, gram=gram)
    np.testing.assert_array_equal(shared.decision_function(X), own.decision_function(X))


def test_max_wins_with_the_shared_gram_still_equals_libsvm():
    X, y = standardized(load_digits, 600)
    sigma, C = 4.0, 10.0
    reference = SVC(C=C, gamma=1 / (2 * sigma**2)).fit(X, y)
    gram = Kernel.from_params("gaussian", sigma=sigma).gram(X)
    model = MaxWinsSVC(C=C, sigma=sigma).fit(X, y, gram=gram)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    assert model.n_support_vectors_ == len(reference.support_)


@pytest.mark.parametrize("scheme", [OneVsRestSVC, MaxWinsSVC])
def test_the_gram_matrix_given_is_the_one_read(scheme):
    # K = identity: every point is orthogonal to every other one, so every point of every binary
    # problem becomes a support vector; the estimator's own Gaussian kernel would give far fewer.
    X, y = standardized(load_iris)
    own = scheme(C=10.0, sigma=2.0).fit(X, y)
    identity = scheme(C=10.0, sigma=2.0).fit(X, y, gram=np.eye(len(X)))
    assert own.n_support_vectors_ < 60
    assert identity.n_support_vectors_ == len(X)


@pytest.mark.parametrize("gram, message", [
    (np.eye(149), r"gram must be the \(150, 150\) kernel matrix K\(X, X\); got shape \(149, 149\)"),
    (np.full((150, 150), np.nan), "gram contains NaN or infinity"),
])
def test_a_wrong_gram_matrix_is_a_clear_error(gram, message):
    X, y = standardized(load_iris)
    with pytest.raises(ValueError, match=message):
        OneVsRestSVC().fit(X, y, gram=gram)


class Point:
    def __init__(self, **params):
        self._params = params

    def params(self):
        return dict(self._params)


def test_points_differing_only_in_c_form_one_task_per_fold_and_group():
    class Fold:
        def __init__(self, index):
            self.index = index

    folds = [Fold(0), Fold(1)]
    points = [Point(kernel="gaussian", sigma=s, C=c) for s in (1.0, 2.0) for c in (1, 10, 100)]
    groups = [("ovr",), ("maxwins", "dag")]
    todo = [PointJob(fold, point, group) for fold in folds for point in points for group in groups]
    tasks = same_kernel_tasks(todo)
    assert len(tasks) == 2 * 2 * 2  # folds x sigmas x groups
    for task in tasks:
        assert [job.point.params()["C"] for job in task.jobs] == [1, 10, 100]
        assert [p["C"] for p in task.points] == [1, 10, 100]
        assert len({(job.fold.index, job.group, job.point.params()["sigma"])
                    for job in task.jobs}) == 1
        assert {job.group for job in task.jobs} == {task.group}


def test_score_points_equals_one_fit_per_point():
    X, y = standardized(load_digits, 800)
    splits = [(X[:500], y[:500], X[500:], y[500:])]
    points = [{"kernel": "gaussian", "sigma": 4.0, "C": c} for c in (0.1, 1.0, 10.0)]
    for group, maker in [(("ovr",), OneVsRestSVC), (("maxwins", "dag"), MaxWinsSVC)]:
        scored = score_points(group, points, {}, splits, seed=0)
        for params, result in zip(points, scored):
            model = maker(**params, random_state=0).fit(X[:500], y[:500])
            expected = int(np.sum(model.predict(X[500:]) != y[500:]))
            assert result[group[0]]["n_errors"] == expected
            assert result[group[0]]["n_validation"] == 300
        errors = [result[group[0]]["n_errors"] for result in scored]
        assert len(set(errors)) > 1  # the C values really gave different models


@pytest.mark.slow
def test_grid_fit_cpu_counts_only_its_own_task_when_tasks_run_side_by_side(
        tmp_path, capsys, data_home, write_config):
    # Two grid threads: a point's fit CPU is its own thread's work, never more than its wall
    # time (the process's clock would count the neighbouring task's fits too).
    import pandas as pd

    from multisvm_cli.cli.main import main

    config = write_config(name="digits-cpu", dataset="digits",
                          split={"test_fraction": 0.3, "seed": 0},
                          kernels=[{"type": "gaussian", "sigma": [3, 5, 8, 13]}], C=[1, 10, 100],
                          schemes=["ovr", "maxwins"])
    with pytest.raises(SystemExit) as exited:
        main(["reproduce-table", str(config), "--out", str(tmp_path / "out"), "--quiet",
              "-j", "2"])
    assert exited.value.code == 0
    grid = pd.read_csv(next((tmp_path / "out" / "digits-cpu").glob("2*")) / "grid.csv")
    assert len(grid) == 24 and (grid.fit_cpu > 0).all()
    assert (grid.fit_cpu <= grid.fit_wall * 1.02 + 0.002).all(), grid[["fit_cpu", "fit_wall"]]


@pytest.mark.parametrize("kernel", [Kernel.from_params("gaussian", gamma=0.25),
                                    Kernel.from_params("polynomial", degree=3),
                                    Kernel.from_params("linear"), "precomputed"])
def test_libsvm_fit_gives_the_machine_svc_gives(kernel):
    from multisvm_cli.estimators._binary import TrainSettings
    from multisvm_cli.estimators._solvers import libsvm_fit

    X, y = standardized(load_iris)
    positive = y == 1
    gaussian = Kernel.from_params("gaussian", gamma=0.25)
    settings = TrainSettings(gaussian if kernel == "precomputed" else kernel, 10.0, 1e-3, 200,
                             2048)
    if kernel == "precomputed":
        data, params = gaussian.gram(X), {"kernel": "precomputed"}
    else:
        data, params = X, kernel.svc_params()
    support, dual_coef, intercept, n_iter = libsvm_fit(data, positive, settings, params)
    svc = SVC(C=10.0, **({"gamma": 1.0} if kernel == "precomputed" else {}), **params).fit(
        data, positive.astype(int))
    np.testing.assert_array_equal(support, svc.support_)
    np.testing.assert_array_equal(dual_coef, svc.dual_coef_[0])
    assert intercept == svc.intercept_[0] and n_iter == svc.n_iter_[0] > 0
