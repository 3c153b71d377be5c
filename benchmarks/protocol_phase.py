"""The side-by-side benchmark's protocol phase: the whole Table-1 protocol on USPS, ``multisvm
reproduce-table`` (reuse across C on and/or off) against GridSearchCV over SVC and
OneVsRestClassifier(SVC) with the same PredefinedSplit and grid (see compare_sklearn.py).
"""

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from multisvm_cli.experiment import Settings, config_path, load_config, reproduce
from multisvm_cli.experiment.splits import holdout_rows


def gamma_of(sigma):
    """libsvm's gamma for the Gaussian exp(-||x-y||^2 / (2 sigma^2))."""
    return 1.0 / (2.0 * sigma**2)


QUICK_PROTOCOL = {"sigma": [3.58, 5.06, 7.16], "C": [10, 100]}


def protocol_config(config, quick, folder, reuse=True):
    """The USPS Table-1 config as given, or (quick) with a 3 sigma x 2 C Gaussian grid, or
    (``reuse=False``) with ``reuse_across_C: false``."""
    import yaml

    source = config_path(config)
    if not quick and reuse:
        return source
    config = yaml.safe_load(source.read_text())
    if quick:
        config.update(name="bench-usps-quick", C=QUICK_PROTOCOL["C"],
                      kernels=[{"type": "gaussian", "sigma": QUICK_PROTOCOL["sigma"]}])
    config.update(reuse_across_C=reuse)
    config.pop("reference", None)
    path = Path(folder) / f"bench-usps-{'reuse' if reuse else 'noreuse'}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def svc_grid(points, prefix=""):
    """scikit-learn parameter grids for the config's points, one dict each, in config order
    (GridSearchCV then breaks ties towards the earlier point, as multisvm does)."""
    grid = []
    for point in points:
        kernel = {"gaussian": {"kernel": "rbf", "gamma": gamma_of(point.sigma or 1.0)},
                  "polynomial": {"kernel": "poly", "gamma": 1.0, "degree": point.degree,
                                 "coef0": 0.0 if point.homogeneous else 1.0},
                  "linear": {"kernel": "linear"}}[point.kernel]
        grid.append({prefix + key: [value] for key, value in {**kernel, "C": point.C}.items()})
    return grid


def run_ours(config_path, n_jobs, folder, mirror):
    """What ``multisvm reproduce-table`` does, through the same Python API; (wall seconds,
    results.json rows, grid.csv rows)."""
    import csv

    settings = Settings(out=str(folder), n_jobs=n_jobs, force=True, quiet=True,
                        mirror=mirror)
    start = time.perf_counter()
    run = reproduce(load_config(config_path), settings).folder
    seconds = time.perf_counter() - start
    results = json.loads((run / "results.json").read_text())["results"]
    for row in results:
        row["error_rate"] = 100.0 * row["n_errors"] / row["n_test"]
    with open(run / "grid.csv", newline="") as grid_file:
        grid = list(csv.DictReader(grid_file))
    return seconds, results, grid


def run_sklearn(parts, plan, n_jobs):
    """GridSearchCV over SVC and OneVsRestClassifier(SVC) with the runner's own 70/30 split."""
    X_train, y_train = parts["train"]
    X_test, y_test = parts["test"]
    fit_rows, _ = holdout_rows(y_train, plan.validation)
    test_fold = np.zeros(len(y_train), dtype=int)
    test_fold[fit_rows] = -1
    split = PredefinedSplit(test_fold)
    chosen, fit_times = {}, {}
    start = time.perf_counter()
    for scheme, estimator, prefix in [("maxwins", SVC(), ""),
                                      ("ovr", OneVsRestClassifier(SVC()), "estimator__")]:
        search = GridSearchCV(estimator, svc_grid(plan.grid, prefix), cv=split, n_jobs=n_jobs,
                              refit=True).fit(X_train, y_train)
        error = 100.0 * float(np.mean(search.predict(X_test) != y_test))
        chosen[scheme] = (unprefixed(search.best_params_, prefix), error)
        fit_times[scheme] = [(unprefixed(params, prefix), seconds) for params, seconds in
                             zip(search.cv_results_["params"], search.cv_results_["mean_fit_time"])]
    return time.perf_counter() - start, chosen, fit_times


def unprefixed(params, prefix):
    """GridSearchCV parameters without the meta-estimator's ``estimator__`` prefix."""
    return {key.removeprefix(prefix): value for key, value in params.items()}


def slowest_corner(grid, fit_times):
    """Seconds both sides spent fitting 1-v-r with polynomial degree 1 at C >= 100 (summed over
    those grid points): libsvm's SMO runs very long there, the same work on both sides."""
    ours = sum(float(row["fit_wall"]) for row in grid
               if row["scheme"] == "ovr" and row["kernel_type"] == "polynomial"
               and row["degree"] and float(row["degree"]) == 1 and float(row["C"]) >= 100)
    theirs = sum(seconds for params, seconds in fit_times["ovr"]
                 if params["kernel"] == "poly" and params["degree"] == 1 and params["C"] >= 100)
    return theirs, ours


def same_choice(ours, best):
    """Whether our selected point is scikit-learn's best_params_ (same kernel, sigma/degree, C)."""
    params = ours["params"]
    if not np.isclose(params["C"], best["C"]):
        return False
    if params["kernel"] == "gaussian":
        return best["kernel"] == "rbf" and np.isclose(gamma_of(params["sigma"]), best["gamma"])
    if params["kernel"] == "polynomial":
        return (best["kernel"] == "poly" and params["degree"] == best["degree"]
                and np.isclose(0.0 if params["homogeneous"] else 1.0, best["coef0"]))
    return best["kernel"] == "linear"


def bench_protocol(parts, report, n_jobs, quick, config_path, mirror, reuse=("on",)):
    """The whole Table-1 protocol on USPS: ``multisvm reproduce-table`` (reuse across C on
    and/or off, alternating with scikit-learn's run) vs GridSearchCV."""
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in reuse:
            path = protocol_config(config_path, quick, tmp, reuse=mode == "on")
            plan = load_config(path).datasets[0]
            print(f"protocol: {len(plan.grid)} grid points x (ovr, maxwins+dag) on usps, reuse "
                  f"{mode}; load {os.getloadavg()[0]:.2f}", flush=True)
            runs[mode] = run_ours(path, n_jobs, Path(tmp) / f"out-{mode}", mirror)
            if len(runs) == 1:
                t_theirs, chosen, fit_times = run_sklearn(parts, plan, n_jobs)
    for mode, (t_ours, results, grid) in runs.items():
        verdicts = []
        for scheme in ("ovr", "maxwins"):
            ours = next(row for row in results if row["scheme"] == scheme)
            best, error = chosen[scheme]
            same = same_choice(ours, best) and np.isclose(ours["error_rate"], error, atol=1e-9)
            verdicts.append(f"{scheme}: {'same choice and test error' if same else 'DIFFERENT'} "
                            f"(ours C={ours['params']['C']:g} err {ours['error_rate']:.2f}%, "
                            f"sklearn {best} err {error:.2f}%)")
        reused = sum(int(row["n_reused_machines"] or 0) for row in grid)
        note = f"reuse across C {mode} ({reused} machines reused); ours also scores DAGSVM"
        slow_theirs, slow_ours = slowest_corner(grid, fit_times)
        if slow_theirs or slow_ours:
            note += (f"; 1-v-r fits at polynomial degree 1, C >= 100 (fit seconds summed): "
                     f"sklearn {slow_theirs:.1f}, ours {slow_ours:.1f}")
        report.add("usps", "protocol", t_theirs, t_ours, "; ".join(verdicts), note)
