"""The side-by-side benchmark's own pieces: its reference DAG walk, grids, synthetic covertype
test set, and one real (small) run on USPS."""

import subprocess
import sys

from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

import compare_sklearn as bench
from multisvm_cli.experiment.config import GridPoint
from multisvm_cli.estimators import DAGSVC, MaxWinsSVC

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "compare_sklearn.py"


def test_reference_dag_walk_on_svc_equals_dagsvc():
    X, y = load_wine(return_X_y=True)
    X = MinMaxScaler((-1, 1)).fit_transform(X)
    sigma, C = 2.0, 10.0
    svc = SVC(C=C, gamma=bench.gamma_of(sigma), decision_function_shape="ovo").fit(X, y)
    dag = DAGSVC.from_maxwins(MaxWinsSVC(C=C, sigma=sigma).fit(X, y))
    walked = bench.dag_walk(svc, X)
    np.testing.assert_array_equal(walked, dag.predict(X))
    # The walk is not Max Wins in disguise: on random points the two must disagree somewhere.
    noise = np.random.default_rng(0).uniform(-1.5, 1.5, size=(2000, X.shape[1]))
    assert (bench.dag_walk(svc, noise) != svc.predict(noise)).any()


def test_svc_grid_keeps_config_order_and_translates_kernels():
    points = [GridPoint("gaussian", 10.0, sigma=2.0),
              GridPoint("polynomial", 1.0, degree=3, homogeneous=True),
              GridPoint("polynomial", 1.0, degree=2, homogeneous=False),
              GridPoint("linear", 100.0)]
    grid = bench.svc_grid(points, prefix="estimator__")
    assert grid == [
        {"estimator__kernel": ["rbf"], "estimator__gamma": [0.125], "estimator__C": [10.0]},
        {"estimator__kernel": ["poly"], "estimator__gamma": [1.0], "estimator__degree": [3],
         "estimator__coef0": [0.0], "estimator__C": [1.0]},
        {"estimator__kernel": ["poly"], "estimator__gamma": [1.0], "estimator__degree": [2],
         "estimator__coef0": [1.0], "estimator__C": [1.0]},
        {"estimator__kernel": ["linear"], "estimator__C": [100.0]},
    ]
    ours = {"params": {"kernel": "gaussian", "sigma": 2.0, "C": 10.0}}
    assert bench.same_choice(ours, {"kernel": "rbf", "gamma": 0.125, "C": 10.0})
    assert not bench.same_choice(ours, {"kernel": "rbf", "gamma": 0.125, "C": 100.0})


def test_covertype_evaluation_uses_the_real_test_part():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(50, 54)), rng.integers(1, 8, size=50)
    with pytest.raises(ValueError, match="has 50 rows, not 565892"):
        bench.covertype_test({"test": (X, y)})
    assert not hasattr(bench, "covertype_sized_test")  # no resampled test set any more


def test_quick_run_on_usps_agrees_with_scikit_learn(mirror, data_home, capsys):
    rows = bench.run(["usps"], ["maxwins-predict", "dag-predict"], quick=True, n_jobs=1,
                     mirror=str(mirror))
    assert [row["phase"] for row in rows] == ["maxwins-predict", "dag-predict"]
    assert rows[0]["agreement"] == "0 differ, 0 not at a tie"
    assert rows[1]["agreement"] == "vs DAG walk on SVC: 0 differ, 0 not at a tie"
    assert all(row["scikit-learn (s)"] > 0 and row["multisvm (s)"] > 0 for row in rows)
    assert "| usps" in capsys.readouterr().out


def test_bench_script_refuses_an_unknown_phase():
    done = subprocess.run([sys.executable, str(BENCH), "--phases", "warp"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: unknown phase or dataset warp; phases: ovr-fit, ovo-fit, maxwins-predict, "
        "dag-predict, protocol, covertype-eval; datasets: usps, letter, covertype"]


def test_slowest_corner_sums_both_sides_degree_one_one_vs_rest_fits_at_large_c():
    grid = [
        {"scheme": "ovr", "kernel_type": "polynomial", "degree": "1", "C": "1000.0", "fit_wall": "40.5"},
        {"scheme": "ovr", "kernel_type": "polynomial", "degree": "1", "C": "100.0", "fit_wall": "6.5"},
        {"scheme": "ovr", "kernel_type": "polynomial", "degree": "1", "C": "10.0", "fit_wall": "3.0"},
        {"scheme": "ovr", "kernel_type": "polynomial", "degree": "2", "C": "1000.0", "fit_wall": "2.0"},
        {"scheme": "maxwins", "kernel_type": "polynomial", "degree": "1", "C": "1000.0", "fit_wall": "9.0"},
        {"scheme": "ovr", "kernel_type": "gaussian", "degree": "", "C": "1000.0", "fit_wall": "1.0"},
    ]
    fit_times = {"ovr": [({"kernel": "poly", "degree": 1, "C": 1000.0}, 42.0),
                         ({"kernel": "poly", "degree": 1, "C": 100.0}, 8.0),
                         ({"kernel": "poly", "degree": 3, "C": 1000.0}, 5.0),
                         ({"kernel": "rbf", "gamma": 0.1, "C": 1000.0}, 1.0)]}
    assert bench.slowest_corner(grid, fit_times) == (50.0, 47.0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM is Linux's")
def test_child_peak_memory_is_its_own_not_the_parents():
    parent_memory = np.ones(80_000_000)  # 610 MB resident here before the child is spawned
    child = (f"import sys; sys.path.insert(0, {str(BENCH.parent)!r}); import numpy as np; "
             "from compare_sklearn import peak_rss_mb; "
             "a = np.ones(25_000_000); print(peak_rss_mb())")  # 190 MB of its own
    output = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                            check=True).stdout
    assert 190 < float(output) < 500
    assert parent_memory[-1] == 1.0
