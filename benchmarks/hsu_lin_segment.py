"""Hsu & Lin's grid on segment: Max Wins' cv-best choice against GridSearchCV(SVC), timed.

The row of issue #22: segment, inputs scaled to [-1, 1] with each training fold's min/max (the
ramanan configs' ``scaling: paper``), 10 stratified folds (seed 0), the Gaussian kernel on Hsu &
Lin's grid (gamma 2^-10..2^4 x C 2^-2..2^12, 225 points).  Our side is ``multisvm
reproduce-table`` through the Python API (Max Wins, ``estimate: cv-best``), run with reuse
across C on and off; scikit-learn's side is ``GridSearchCV(Pipeline(MinMaxScaler(-1, 1), SVC()),
same grid, cv=the same folds)``.  Printed: both choices and their pooled 10-fold errors, whether
they are the same point or tied (same pooled error count), and the time ratios
``scikit-learn / multisvm`` with reuse on and off (above 1: multisvm is faster).

Ties: multisvm breaks ties on the pooled error count towards the smaller C, then the smaller
gamma; scikit-learn's best_params_ takes the highest mean fold accuracy, first in its grid's order
(listed here in the same order).  The two criteria can differ when folds have unequal sizes, so
the script also names scikit-learn's best point under the pooled count.

``--step 2`` keeps every other gamma and C (8 x 8 = 64 points) for a loaded machine.  The order
of the three runs alternates (``--order``) so that a load change does not favour one side.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/hsu_lin_segment.py [--step 2] [-j 2]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from multisvm_cli import data
from multisvm_cli.experiment import Settings, load_config, reproduce
from multisvm_cli.experiment.splits import outer_index_folds, pooled

SPLIT = {"method": "kfold", "k": 10, "seed": 0}
LOG2_GAMMA = (-10, 4)
LOG2_C = (-2, 12)


def grid_exponents(step=1):
    """(log2 gammas, log2 Cs) of Hsu & Lin's grid, every ``step``-th value of each."""
    return (list(range(LOG2_GAMMA[0], LOG2_GAMMA[1] + 1, step)),
            list(range(LOG2_C[0], LOG2_C[1] + 1, step)))


def config_dict(step, reuse, dataset="segment"):
    """The multisvm config of the row: Max Wins, cv-best, 10 folds, Hsu & Lin's grid."""
    gammas, cs = grid_exponents(step)
    return {"name": f"hsu-lin-{dataset}-{'reuse' if reuse else 'noreuse'}",
            "dataset": [dataset], "scaling": "paper", "split": dict(SPLIT),
            "estimate": "cv-best", "schemes": ["maxwins"], "seed": 0,
            "kernels": [{"type": "gaussian", "gamma": [2.0**g for g in gammas]}],
            "C": [2.0**c for c in cs], "reuse_across_C": reuse}


def svc_param_grid(step=1):
    """GridSearchCV's grid, one dict per point, ascending C then gamma (multisvm's tie order)."""
    gammas, cs = grid_exponents(step)
    return [{"svc__C": [2.0**c], "svc__gamma": [2.0**g]} for c in cs for g in gammas]


def pooled_errors(cv_results, fold_sizes):
    """Each grid point's pooled error count over the folds, from its per-fold accuracies."""
    scores = np.array([cv_results[f"split{i}_test_score"] for i in range(len(fold_sizes))])
    return np.rint((1.0 - scores) * np.asarray(fold_sizes)[:, None]).astype(int).sum(axis=0)


def run_ours(step, reuse, n_jobs, mirror, folder):
    """Wall seconds of multisvm's cv-best run and its choice (gamma, C, pooled errors, ties)."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    path = Path(folder) / f"hsu-lin-{'on' if reuse else 'off'}.yaml"
    path.write_text(yaml.safe_dump(config_dict(step, reuse), sort_keys=False))
    settings = Settings(out=str(Path(folder) / "out"), n_jobs=n_jobs, force=True, quiet=True,
                        mirror=mirror, figures=False)
    start = time.perf_counter()
    run = reproduce(load_config(path), settings).folder
    seconds = time.perf_counter() - start
    import json

    row = json.loads((run / "results.json").read_text())["results"][0]
    best = row.get("cv_best") or row
    return seconds, {"gamma": best["params"]["gamma"], "C": best["params"]["C"],
                     "n_errors": best["n_errors"], "ties": best.get("ties")}, run


def run_sklearn(X, y, folds, step, n_jobs):
    """Wall seconds of GridSearchCV on the same folds; its best_params_ and pooled best."""
    pipe = Pipeline([("scale", MinMaxScaler(feature_range=(-1, 1))), ("svc", SVC())])
    start = time.perf_counter()
    search = GridSearchCV(pipe, svc_param_grid(step), cv=folds, n_jobs=n_jobs,
                          refit=False).fit(X, y)
    seconds = time.perf_counter() - start
    errors = pooled_errors(search.cv_results_, [len(test) for _, test in folds])
    params = search.cv_results_["params"]
    best = params[search.best_index_]
    first = int(np.argmin(errors))  # the first of the smallest pooled counts, in our tie order
    return seconds, {
        "best_params_": {"gamma": best["svc__gamma"], "C": best["svc__C"],
                         "n_errors": int(errors[search.best_index_])},
        "pooled": {"gamma": params[first]["svc__gamma"], "C": params[first]["svc__C"],
                   "n_errors": int(errors[first]), "ties": int((errors == errors[first]).sum())},
    }


def verdict(ours, theirs):
    """'same point', 'tied' (same pooled error count, another point) or 'DIFFERENT'."""
    if np.isclose(ours["gamma"], theirs["gamma"]) and np.isclose(ours["C"], theirs["C"]):
        return "same point"
    return "tied" if ours["n_errors"] == theirs["n_errors"] else "DIFFERENT"


def show(choice):
    return (f"gamma=2^{np.log2(choice['gamma']):g} C=2^{np.log2(choice['C']):g} "
            f"pooled errors {choice['n_errors']}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step", type=int, default=1,
                        help="every step-th gamma and C of the grid (default 1: all 225 points)")
    parser.add_argument("-j", "--n-jobs", type=int, default=2, help="workers on both sides")
    parser.add_argument("--mirror", default=os.environ.get("MULTISVM_MIRROR"))
    parser.add_argument("--order", default="on,sklearn,off",
                        help="order of the runs: on, off, sklearn (default %(default)s)")
    args = parser.parse_args(argv)
    dataset = data.load("segment", mirror=args.mirror, progress=False)
    X, y = pooled(dataset)
    folds = outer_index_folds(y, SPLIT)
    gammas, cs = grid_exponents(args.step)
    print(f"segment: {len(y)} rows, 10 folds, {len(gammas)} gammas x {len(cs)} Cs; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    times, choices = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.order.split(","):
            if name == "sklearn":
                times[name], choices[name] = run_sklearn(X, y, folds, args.step, args.n_jobs)
            else:
                times[name], choices[name], _ = run_ours(args.step, name == "on", args.n_jobs,
                                                         args.mirror, Path(tmp) / name)
            print(f"  {name:8s} {times[name]:8.1f} s  load {os.getloadavg()[0]:.2f}", flush=True)
    theirs = choices["sklearn"]
    print(f"scikit-learn best_params_: {show(theirs['best_params_'])}")
    print(f"scikit-learn, pooled count, our tie order: {show(theirs['pooled'])} "
          f"({theirs['pooled']['ties']} points tied)")
    for name in ("on", "off"):
        if name in choices:
            ours = choices[name]
            print(f"multisvm reuse {name:3s}: {show(ours)} ({ours['ties']} tied) -> "
                  f"{verdict(ours, theirs['pooled'])}; "
                  f"ratio sklearn/multisvm {times['sklearn'] / times[name]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
