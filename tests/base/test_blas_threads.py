"""Predictions running side by side in threads (grid points) must leave BLAS as they found it."""

import threading

import numpy as np
import pytest
from sklearn.datasets import load_digits
from threadpoolctl import threadpool_info

from multisvm_cli.estimators import DAGSVC, MaxWinsSVC


def blas_threads():
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


@pytest.mark.slow
def test_concurrent_predictions_leave_blas_limits_as_they_were():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    maxwins = MaxWinsSVC(sigma=3.0, n_jobs=2).fit(X, y)
    dag = DAGSVC.from_maxwins(maxwins)
    expected = maxwins.predict(X[:600]), dag.predict(X[:600])
    before = blas_threads()
    results = []

    def predict_many():
        for _ in range(150):
            results.append((maxwins.predict(X[:600]), dag.predict(X[:600])))

    threads = [threading.Thread(target=predict_many) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert blas_threads() == before
    assert len(results) == 300
    for mw, walked in results:
        np.testing.assert_array_equal(mw, expected[0])
        np.testing.assert_array_equal(walked, expected[1])


def test_map_threads_keeps_order_and_limits_blas_only_in_its_pool():
    from multisvm_cli.base.parallel import map_threads

    before = blas_threads()
    seen = []

    def task(item):
        seen.append(blas_threads())
        return item * item

    assert map_threads(task, range(7), 3) == [0, 1, 4, 9, 16, 25, 36]  # in order
    assert all(all(n == 1 for n in threads) for threads in seen)  # one BLAS thread in the pool
    assert blas_threads() == before  # restored afterwards
    seen.clear()
    assert map_threads(task, [5], 3) == [25]  # one item: run here, BLAS as the caller left it
    assert map_threads(task, range(3), 1) == [0, 1, 4]
    assert seen == [before] * 4
