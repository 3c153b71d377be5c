"""The side-by-side benchmark's own pieces: its reference DAG walk, grids, synthetic covertype
test set, and one real (small) run on USPS."""

import subprocess
import sys


import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

import compare_sklearn as bench
from multisvm_cli.experiment.config import GridPoint
from multisvm_cli.estimators import DAGSVC, MaxWinsSVC
from helpers import REPO

BENCH = REPO / "benchmarks" / "compare_sklearn.py"


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


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_protocol_config_without_reuse_writes_a_copy_that_turns_it_off(tmp_path):
    import yaml

    from multisvm_cli.experiment import load_config

    assert bench.protocol_config("platt1999-usps", False, tmp_path) == \
        bench.config_path("platt1999-usps")  # reuse on, full grid: the shipped config itself
    path = bench.protocol_config("platt1999-usps", False, tmp_path, reuse=False)
    assert yaml.safe_load(path.read_text())["reuse_across_C"] is False
    config = load_config(path)
    assert config.reuse_across_C is False
    assert len(config.datasets[0].grid) == 72  # the full grid kept
    quick = load_config(bench.protocol_config("platt1999-usps", True, tmp_path, reuse=False))
    assert quick.reuse_across_C is False and len(quick.datasets[0].grid) == 6


def test_hsu_lin_grid_order_pooled_errors_and_verdict():
    import hsu_lin_segment as hsu

    gammas, cs = hsu.grid_exponents()
    assert (gammas[0], gammas[-1], len(gammas), cs[0], cs[-1], len(cs)) == (-10, 4, 15, -2, 12, 15)
    assert hsu.grid_exponents(2) == (list(range(-10, 5, 2)), list(range(-2, 13, 2)))
    grid = hsu.svc_param_grid(2)
    # ascending C, then gamma: GridSearchCV's first best is multisvm's tie choice
    assert grid[0] == {"svc__C": [0.25], "svc__gamma": [2.0**-10]}
    assert grid[1] == {"svc__C": [0.25], "svc__gamma": [2.0**-8]}
    assert grid[8] == {"svc__C": [1.0], "svc__gamma": [2.0**-10]}
    # folds of 3 and 2 points: accuracies 2/3 and 1/2 -> 1 + 1 errors; 1 and 0 -> 0 errors
    cv = {"split0_test_score": np.array([2 / 3, 1.0]), "split1_test_score": np.array([0.5, 0.0])}
    np.testing.assert_array_equal(hsu.pooled_errors(cv, [3, 2]), [2, 2])
    ours = {"gamma": 0.5, "C": 4.0, "n_errors": 7}
    assert hsu.verdict(ours, {"gamma": 0.5, "C": 4.0, "n_errors": 7}) == "same point"
    assert hsu.verdict(ours, {"gamma": 2.0, "C": 4.0, "n_errors": 7}) == "tied"
    assert hsu.verdict(ours, {"gamma": 2.0, "C": 4.0, "n_errors": 6}) == "DIFFERENT"


def test_hsu_lin_config_is_max_wins_cv_best_on_the_grid(tmp_path):
    import yaml

    import hsu_lin_segment as hsu
    from multisvm_cli.experiment import load_config

    path = tmp_path / "hsu.yaml"
    path.write_text(yaml.safe_dump(hsu.config_dict(1, reuse=False)))
    config = load_config(path)
    plan = config.datasets[0]
    assert config.reuse_across_C is False and len(plan.grid) == 225
    assert list(plan.estimate) == ["cv-best"] and list(config.schemes) == ["maxwins"]
    assert sorted({p.C for p in plan.grid}) == [2.0**c for c in range(-2, 13)]


def test_grid_time_sums_cpu_by_gamma_and_counts_reused_machines(tmp_path):
    import grid_time

    header = "dataset,scheme,gamma,C,fit_cpu,n_reused_machines\n"
    rows = ["wine,ovr,0.5,1,2.0,0", "wine,ovr,0.5,4,1.0,2", "wine,maxwins,2,4,3.0,3",
            "wine,dag,2,4,3.0,3"]
    (tmp_path / "grid.csv").write_text(header + "\n".join(rows) + "\n")
    figures = grid_time.summarize(grid_time.read_rows([tmp_path]), grid_time.CLASSES)["wine"]
    assert figures["by_gamma"] == {0.5: 3.0, 2.0: 6.0}
    assert figures["by_C"] == {1.0: 2.0, 4.0: 7.0}
    # 3 classes: 3 machines per 1-v-r fit, 3 per Max Wins fit; DAGSVM's shared ones not counted
    assert (figures["reused"], figures["machines"]) == (5, 9)
    assert grid_time.machines_per_fit("udt", 4) == 3 + 4 + 5
