"""multisvm against scikit-learn, side by side: same data, same parameters, one process.

Each phase is timed on both sides (fits best of 2, predictions best of 3, wall clock) and printed
as a ratio ``scikit-learn time / multisvm time`` (above 1 means multisvm is faster), with a check
that both sides agree:

* ``ovr-fit``        OneVsRestSVC.fit        vs OneVsRestClassifier(SVC).fit   (target >= 3x),
  scikit-learn both as a user writes it by default (one process) and with ``n_jobs`` workers
* ``ovo-fit``        MaxWinsSVC.fit          vs SVC.fit                        (target >= 1.6x)
* ``maxwins-predict`` MaxWinsSVC.predict     vs SVC.predict                    (target >= 5x)
* ``dag-predict``    DAGSVC.predict          vs SVC.predict                    (target >= 8x)
* ``protocol``       the Table-1 protocol (70/30 selection over a kernel x C grid for 1-v-r,
  Max Wins and DAG, refit, test) vs GridSearchCV over SVC and OneVsRestClassifier(SVC) with the
  same PredefinedSplit and grid (target >= 4x, same choices; in protocol_phase.py; ``--reuse
  both`` times multisvm with reuse across C on and off, two rows)
* ``covertype-eval`` prediction on Covertype's real UCI test part (565,892 points) in a child
  process: its peak RSS (target <= 2 GB) and time vs SVC.predict (target >= 5x)

Agreement: predictions must be equal except at points where one of the decision values that
decides them is within ``TIE_TOL`` of a tie; ovr-fit also reports the largest difference of
the decision values. The DAG has no scikit-learn twin, so its predictions are checked against a
plain per-point DAG walk over SVC's own pairwise decision values.

Covertype's test part is the real one: UCI rows 15,121..581,012 (the mirror's covtype.data),
scaled with the training rows' statistics as in the paper; the output gives its error rate.

It drives multisvm through its Python API (``multisvm_cli.experiment``), as the command line
does; nothing in the package imports it.

Usage::

    python benchmarks/compare_sklearn.py            # every dataset and phase (tens of minutes)
    python benchmarks/compare_sklearn.py --quick    # everyday: subsets, small protocol grid
    python benchmarks/compare_sklearn.py --datasets usps --phases ovr-fit,maxwins-predict
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from multisvm_cli import data, persist
from multisvm_cli.data import scaling
from multisvm_cli.estimators import DAGSVC, MaxWinsSVC, OneVsRestSVC
from multisvm_cli.experiment import config_path
from protocol_phase import (QUICK_PROTOCOL, bench_protocol, gamma_of, protocol_config,  # noqa: F401
                            run_ours, run_sklearn, same_choice, slowest_corner, svc_grid)

TIE_TOL = 1e-6
# Fits are timed best of 2 on both sides: a process's first large allocation (a fresh 425 MB
# Gram matrix on USPS) pays about 0.6 s of page faults that later fits do not.
FIT_REPEAT = 2
COVERTYPE_TEST_ROWS = 565_892
PHASES = ["ovr-fit", "ovo-fit", "maxwins-predict", "dag-predict", "protocol", "covertype-eval"]
TARGETS = {
    "ovr-fit": 3.0,
    "ovo-fit": 1.6,
    "maxwins-predict": 5.0,
    "dag-predict": 8.0,
    "protocol": 4.0,
    "covertype-eval": 5.0,
}
# Table 1's Gaussian parameters. USPS: the issue's reference point gamma = 0.03 on pixels in
# [0, 1], i.e. sigma = 4.08 there; scaled with the data's range (see paper_params).
PAPER_PARAMS = {
    "usps": {"sigma": 4.08, "C": 100.0},
    "letter": {"sigma": 0.447, "C": 100.0},
    "covertype": {"sigma": 1.0, "C": 10.0},
}


def timed(function, *args, repeat=1):
    """Run ``function(*args)`` ``repeat`` times; return (last result, best wall seconds)."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return result, best


def load_scaled(name, parts, mirror):
    """The dataset's parts with the paper's scaling fitted on the training part."""
    dataset = data.load(name, parts=parts, mirror=mirror, progress=False)
    scaler = scaling.make_scaler("paper", dataset.card)
    X_train, _ = dataset.parts["train"]
    scaler.fit(X_train)
    return {part: (scaler.transform(X), y) for part, (X, y) in dataset.parts.items()}, scaler


def paper_params(name, X_train):
    """(sigma, C) of Table 1 for this dataset, USPS's sigma scaled to the pixels' range."""
    params = dict(PAPER_PARAMS[name])
    if name == "usps":
        params["sigma"] *= float(X_train.max() - X_train.min())
    return params["sigma"], params["C"]


def subset(X, y, n, seed=0):
    """A stratified-enough random subset of n rows (all rows when n is None or too large)."""
    if n is None or n >= len(y):
        return X, y
    rows = np.sort(np.random.default_rng(seed).choice(len(y), n, replace=False))
    return X[rows], y[rows]


def disagreements(ours, theirs, near_tie):
    """Count differing predictions, and those not explained by a near-tie."""
    differ = ours != theirs
    return int(differ.sum()), int((differ & ~near_tie).sum())


def ovo_near_tie(svc, X):
    """Points where a pairwise decision value of SVC is within TIE_TOL of zero."""
    pairwise = svc.decision_function(X)
    return np.abs(pairwise).min(axis=1) < TIE_TOL


def dag_walk(svc, X):
    """Reference DAG: a per-point walk of the list algorithm over SVC's pairwise decisions.

    SVC's ovo columns are ordered (0,1), (0,2), ..., (1,2), ...; a positive value votes for the
    first class of the pair. The list starts as all classes in sorted order; the first is tested
    against the last and the loser is dropped, until one class remains.
    """
    n_classes = len(svc.classes_)
    column = {}
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            column[i, j] = len(column)
    pairwise = svc.decision_function(X)
    predictions = np.empty(len(X), dtype=int)
    for point, values in enumerate(pairwise):
        first, last = 0, n_classes - 1
        remaining = list(range(n_classes))
        while len(remaining) > 1:
            first, last = remaining[0], remaining[-1]
            if values[column[first, last]] > 0:
                remaining.pop()
            else:
                remaining.pop(0)
        predictions[point] = remaining[0]
    return svc.classes_[predictions]


class Report:
    """Collects one row per (dataset, phase) and prints them as a table at the end."""

    def __init__(self):
        self.rows = []

    def add(self, dataset, phase, sklearn_s, ours_s, agree, note=""):
        ratio = sklearn_s / ours_s if ours_s > 0 else float("inf")
        target = TARGETS[phase]
        row = {
            "dataset": dataset,
            "phase": phase,
            "scikit-learn (s)": round(sklearn_s, 3),
            "multisvm (s)": round(ours_s, 3),
            "ratio": round(ratio, 2),
            "target": f">= {target}x",
            "met": "yes" if ratio >= target else "NO",
            "agreement": agree,
            "note": note,
        }
        self.rows.append(row)
        print(
            f"  {dataset:10s} {phase:16s} sklearn {sklearn_s:9.3f}s  ours {ours_s:9.3f}s  "
            f"ratio {ratio:6.2f} (target {target}x)  {agree} {note}",
            flush=True,
        )

    def print(self):
        from tabulate import tabulate

        print()
        print(tabulate(self.rows, headers="keys", tablefmt="github"))


def bench_fits_and_predictions(name, parts, phases, report, n_jobs, train_rows):
    """ovr-fit, ovo-fit, maxwins-predict and dag-predict on one dataset."""
    X_train, y_train = subset(*parts["train"], train_rows)
    X_test, y_test = parts["test"] if "test" in parts else parts["validation"]
    sigma, C = paper_params(name, parts["train"][0])
    gamma = gamma_of(sigma)
    size = f"n_train={len(y_train)} n_test={len(y_test)} sigma={sigma:.3g} C={C:g}"
    print(f"{name}: {size}", flush=True)

    if "ovr-fit" in phases:
        ours, t_ours = timed(OneVsRestSVC(C=C, sigma=sigma, n_jobs=n_jobs).fit, X_train, y_train,
                             repeat=FIT_REPEAT)
        d_ours = ours.decision_function(X_test)
        # What a user writes by default (one process), and the same with n_jobs workers.
        for sklearn_jobs in (None, n_jobs):
            svc = SVC(C=C, gamma=gamma)
            theirs, t_theirs = timed(OneVsRestClassifier(svc, n_jobs=sklearn_jobs).fit,
                                     X_train, y_train, repeat=FIT_REPEAT)
            d_theirs = theirs.decision_function(X_test)
            top2 = np.sort(d_theirs, axis=1)[:, -2:]
            near_tie = (top2[:, 1] - top2[:, 0]) < TIE_TOL
            differ, unexplained = disagreements(ours.predict(X_test), theirs.predict(X_test),
                                                near_tie)
            agree = (
                f"max |decision diff| {np.abs(d_ours - d_theirs).max():.1e}; "
                f"{differ} predictions differ, {unexplained} not at a tie"
            )
            report.add(name, "ovr-fit", t_theirs, t_ours, agree,
                       f"OneVsRestClassifier(n_jobs={sklearn_jobs})")

    needs_ovo = {"ovo-fit", "maxwins-predict", "dag-predict"} & set(phases)
    if not needs_ovo:
        return
    svc, t_svc_fit = timed(SVC(C=C, gamma=gamma, decision_function_shape="ovo").fit, X_train,
                           y_train, repeat=FIT_REPEAT)
    maxwins, t_mw_fit = timed(MaxWinsSVC(C=C, sigma=sigma, n_jobs=n_jobs).fit, X_train, y_train,
                              repeat=FIT_REPEAT)
    near_tie = ovo_near_tie(svc, X_test)
    svc_pred, t_svc_pred = timed(svc.predict, X_test)
    mw_pred, t_mw_pred = timed(maxwins.predict, X_test, repeat=3)
    if "ovo-fit" in phases:
        differ, unexplained = disagreements(mw_pred, svc_pred, near_tie)
        agree = f"{differ} test predictions differ, {unexplained} not at a tie"
        note = f"unique SVs: sklearn {len(svc.support_)}, ours {maxwins.n_support_vectors_}"
        report.add(name, "ovo-fit", t_svc_fit, t_mw_fit, agree, note)
    if "maxwins-predict" in phases:
        differ, unexplained = disagreements(mw_pred, svc_pred, near_tie)
        report.add(name, "maxwins-predict", t_svc_pred, t_mw_pred,
                   f"{differ} differ, {unexplained} not at a tie")
    if "dag-predict" in phases:
        dag = DAGSVC.from_maxwins(maxwins)
        dag_pred, t_dag_pred = timed(dag.predict, X_test, repeat=3)
        differ, unexplained = disagreements(dag_pred, dag_walk(svc, X_test), near_tie)
        note = (
            f"DAG vs our Max Wins: {t_mw_pred / t_dag_pred:.2f}x; kernel evals/point "
            f"DAG {dag.kernel_evaluations(X_test):.0f}, Max Wins {maxwins.kernel_evaluations(X_test):.0f}"
        )
        report.add(name, "dag-predict", t_svc_pred, t_dag_pred,
                   f"vs DAG walk on SVC: {differ} differ, {unexplained} not at a tie", note)


def covertype_test(parts):
    """Covertype's real test part (UCI rows 15,121..581,012), checked for its size."""
    X_test, y_test = parts["test"]
    if len(y_test) != COVERTYPE_TEST_ROWS:
        raise ValueError(f"covertype's test part has {len(y_test)} rows, not "
                         f"{COVERTYPE_TEST_ROWS}: the mirror needs UCI's whole covtype.data")
    return X_test, y_test


def peak_rss_mb():
    """This process's peak resident memory in MB.

    On Linux, VmHWM of /proc/self/status: the peak of this program's own memory.  getrusage's
    ru_maxrss is not that for a child process: the parent's peak at the time of the spawn
    (subprocess uses vfork) is carried over into it.  Elsewhere, ru_maxrss (in KB on Linux).
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def covertype_child(model_dir, mirror):
    """Child process: load the saved model and the real test part, predict; print time and
    RSS."""
    loaded = persist.load_model(model_dir)
    parts, _ = load_scaled("covertype", ("train", "test"), mirror)
    X_test, y_test = covertype_test(parts)
    del parts
    start = time.perf_counter()
    predictions = loaded.estimator.predict(X_test)
    seconds = time.perf_counter() - start
    print(json.dumps({
        "seconds": seconds,
        "peak_rss_mb": peak_rss_mb(),
        "n_test": len(y_test),
        "error_rate": float(np.mean(predictions != y_test)),
    }))


def bench_covertype_eval(parts, report, mirror, n_jobs, svc_sample):
    """Peak RSS and predict time of a 565,892-point evaluation, against SVC.predict."""
    X_train, y_train = parts["train"]
    sigma, C = paper_params("covertype", X_train)
    print(f"covertype-eval: training Max Wins and SVC on {len(y_train)} rows, "
          f"sigma={sigma:g} C={C:g}", flush=True)
    maxwins = MaxWinsSVC(C=C, sigma=sigma, n_jobs=n_jobs).fit(X_train, y_train)
    svc = SVC(C=C, gamma=gamma_of(sigma)).fit(X_train, y_train)
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "model"
        persist.save_model(model_dir, maxwins)
        child = subprocess.run(
            [sys.executable, __file__, "--covertype-child", str(model_dir),
             *(["--mirror", str(mirror)] if mirror else [])],
            check=True, capture_output=True, text=True,
        )
    result = json.loads(child.stdout.strip().splitlines()[-1])
    X_test, _ = covertype_test(load_scaled("covertype", ("train", "test"), mirror)[0])
    X_sample = X_test[:svc_sample]
    _, t_sample = timed(svc.predict, X_sample)
    t_svc = t_sample * len(X_test) / len(X_sample)
    agree = (
        f"peak RSS {result['peak_rss_mb']:.0f} MB (target <= 2048 MB); "
        f"predictions on the first {svc_sample} equal: "
        f"{int((maxwins.predict(X_sample) == svc.predict(X_sample)).sum())}/{svc_sample}"
    )
    note = (
        f"real test part: {result['n_test']} UCI rows, Max Wins error "
        f"{100 * result['error_rate']:.2f}%; "
        f"SVC.predict timed on {svc_sample} rows and scaled x{len(X_test) / svc_sample:.0f}"
    )
    report.add("covertype", "covertype-eval", t_svc, result["seconds"], agree, note)


DEFAULT_PROTOCOL_CONFIG = "platt1999-usps"  # a shipped config, found from any folder


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="everyday mode: training subsets and a small protocol grid")
    parser.add_argument("--datasets", default="usps,letter,covertype",
                        help="comma-separated: usps, letter, covertype")
    parser.add_argument("--phases", default=",".join(PHASES),
                        help="comma-separated phases: " + ", ".join(PHASES))
    parser.add_argument("--n-jobs", type=int, default=2, help="workers on both sides (default 2)")
    parser.add_argument("--mirror", default=os.environ.get("MULTISVM_MIRROR"),
                        help="dataset mirror folder (default $MULTISVM_MIRROR)")
    parser.add_argument("--config", default=str(DEFAULT_PROTOCOL_CONFIG),
                        help="the USPS config of the protocol phase (default %(default)s)")
    parser.add_argument("--reuse", choices=["on", "off", "both"], default="on",
                        help="protocol phase: multisvm's reuse across C (both: two rows)")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    parser.add_argument("--covertype-child", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def run(datasets, phases, quick=False, n_jobs=2, mirror=None, config=DEFAULT_PROTOCOL_CONFIG,
        json_path=None, reuse=("on",)):
    """Run the phases on the datasets, print each row as it comes and the table at the end.

    Returns the rows (dicts). Raises ValueError for an unknown phase or dataset.
    """
    unknown = sorted(set(phases) - set(PHASES)) + sorted(set(datasets) - set(PAPER_PARAMS))
    if unknown:
        raise ValueError(f"unknown phase or dataset {', '.join(unknown)}; phases: "
                         f"{', '.join(PHASES)}; datasets: {', '.join(PAPER_PARAMS)}")
    if "protocol" in phases and "usps" in datasets and not config_path(config).is_file():
        raise ValueError(f"protocol config {config} not found; pass --config with a config "
                         f"file or a shipped config's name")
    report = Report()
    for name in datasets:
        parts_wanted = ("train", "validation") if name == "covertype" else ("train", "test")
        parts, _ = load_scaled(name, parts_wanted, mirror)
        train_rows = QUICK_TRAIN_ROWS.get(name) if quick else None
        bench_fits_and_predictions(name, parts, phases, report, n_jobs, train_rows)
        if "protocol" in phases and name == "usps":
            bench_protocol(parts, report, n_jobs, quick, config, mirror, reuse)
        if "covertype-eval" in phases and name == "covertype":
            bench_covertype_eval(parts, report, mirror, n_jobs,
                                 svc_sample=5_000 if quick else 20_000)
    report.print()
    if json_path:
        Path(json_path).write_text(json.dumps(report.rows, indent=2))
    return report.rows


def split_list(text):
    """'a, b,c' -> ['a', 'b', 'c']."""
    return [item.strip() for item in text.split(",") if item.strip()]


def main(argv=None):
    args = parse_args(argv)
    if args.covertype_child:
        covertype_child(args.covertype_child, args.mirror)
        return 0
    try:
        run(split_list(args.datasets), split_list(args.phases), args.quick, args.n_jobs,
            args.mirror, args.config, args.json,
            ["on", "off"] if args.reuse == "both" else [args.reuse])
    except ValueError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0


QUICK_TRAIN_ROWS = {"usps": 3000, "letter": 6000, "covertype": None}

if __name__ == "__main__":
    sys.exit(main())
