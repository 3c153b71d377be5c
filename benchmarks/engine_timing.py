"""Quick timing of the engine against scikit-learn on USPS and Letter (a developer's check of the
speed targets; the full side-by-side benchmark is compare_sklearn.py).

Reads the mirror directly (``MULTISVM_MIRROR``, default ../shared/datasets):
- USPS: usps.h5 (7291 train / 2007 test, pixels in [0, 1]); gamma 0.03 (sigma ~ 4.08), C 100.
- Letter: first 16,000 rows train / last 4,000 test, features scaled to [-1, 1] by the training
  minimum and maximum; sigma 0.447, C 100 (Platt et al. Table 1).
- ``--covertype``: a covertype-sized prediction (565,892 points resampled from the Kaggle copy's
  rows, continuous columns standardised) with MaxWins and DAG trained on 11,340 rows (sigma 1,
  C 10), reporting time and the process's peak RSS.

Times are the best of 2 runs for fits and of 5 (SVC: 2) for predictions: the first touch of
a fresh 425 MB Gram matrix alone costs about 0.5 s on a cold virtual machine.

Usage: python benchmarks/engine_timing.py [--usps] [--letter] [--covertype] [--n-jobs 2]
"""

import argparse
import os
import resource
import time
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from multisvm_cli.estimators import DAGSVC, MaxWinsSVC, OneVsRestSVC

MIRROR = Path(os.environ.get("MULTISVM_MIRROR", Path(__file__).resolve().parents[2] / "shared" / "datasets"))


def timed(function, *args, repeat=1):
    """(result, best wall seconds over ``repeat`` calls)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return result, best


def usps():
    with h5py.File(MIRROR / "usps" / "usps.h5", "r") as f:
        return (f["train/data"][:].astype(float), f["train/target"][:],
                f["test/data"][:].astype(float), f["test/target"][:])


def letter():
    frame = pd.read_csv(MIRROR / "letter" / "letter-recognition.data", header=None)
    X, y = frame.iloc[:, 1:].to_numpy(float), frame.iloc[:, 0].to_numpy()
    low, high = X[:16000].min(axis=0), X[:16000].max(axis=0)
    X = 2 * (X - low) / (high - low) - 1
    return X[:16000], y[:16000], X[16000:], y[16000:]


def compare(name, data, sigma, C, n_jobs, with_ovr):
    X, y, X_test, y_test = data
    gamma = 1 / (2 * sigma**2)
    print(f"\n== {name}: {X.shape[0]} train x {X.shape[1]} features, {len(X_test)} test; sigma {sigma:.3f} C {C}")
    svc, t_svc_fit = timed(SVC(C=C, gamma=gamma).fit, X, y, repeat=2)
    maxwins, t_mw_fit = timed(MaxWinsSVC(C=C, sigma=sigma, n_jobs=n_jobs).fit, X, y, repeat=2)
    dag = DAGSVC.from_maxwins(maxwins)
    ref, t_svc_pred = timed(svc.predict, X_test, repeat=2)
    mw_pred, t_mw_pred = timed(maxwins.predict, X_test, repeat=5)
    dag_pred, t_dag_pred = timed(dag.predict, X_test, repeat=5)
    print(f"SVC.fit {t_svc_fit:.2f}s  MaxWinsSVC.fit {t_mw_fit:.2f}s (CPU {maxwins.fit_cpu_time_:.2f}s)  "
          f"speed-up {t_svc_fit / t_mw_fit:.2f}x (target >= 1.6)")
    print(f"SVC.predict {t_svc_pred:.2f}s  MaxWins.predict {t_mw_pred:.3f}s ({t_svc_pred / t_mw_pred:.1f}x, "
          f"target >= 5)  DAG.predict {t_dag_pred:.3f}s ({t_svc_pred / t_dag_pred:.1f}x, target >= 8)")
    print(f"predictions equal to SVC: Max Wins {np.mean(mw_pred == ref):.4f}; error Max Wins "
          f"{100 * np.mean(mw_pred != y_test):.2f}%  DAG {100 * np.mean(dag_pred != y_test):.2f}%")
    print(f"kernel evaluations: Max Wins {maxwins.kernel_evaluations(X_test):.0f}  DAG "
          f"{dag.kernel_evaluations(X_test):.0f};  size {maxwins.n_parameters_ / 1000:.0f}K parameters")
    if with_ovr:
        _, t_ref = timed(OneVsRestClassifier(SVC(C=C, gamma=gamma)).fit, X, y, repeat=2)
        ovr, t_ovr = timed(OneVsRestSVC(C=C, sigma=sigma, n_jobs=n_jobs).fit, X, y, repeat=2)
        print(f"OneVsRestClassifier(SVC).fit {t_ref:.2f}s  OneVsRestSVC.fit {t_ovr:.2f}s  "
              f"speed-up {t_ref / t_ovr:.2f}x (target >= 3)")


def covertype(n_jobs):
    frame = pd.read_csv(MIRROR / "covtype" / "kaggle-forest-cover-type-prediction-train.csv")
    X, y = frame.iloc[:, 1:-1].to_numpy(float), frame.iloc[:, -1].to_numpy()
    mean, std = X[:11340, :10].mean(axis=0), X[:11340, :10].std(axis=0)
    X[:, :10] = (X[:, :10] - mean) / std
    model = MaxWinsSVC(C=10, sigma=1.0, n_jobs=n_jobs).fit(X[:11340], y[:11340])
    test = X[11340:][np.random.default_rng(0).integers(0, len(X) - 11340, 565_892)]
    for scheme in (model, DAGSVC.from_maxwins(model)):
        _, seconds = timed(scheme.predict, test)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{type(scheme).__name__}.predict on {len(test)} points: {seconds:.1f}s, "
              f"peak RSS so far {peak_mb:.0f} MB (target <= 2048)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--usps", action="store_true")
    parser.add_argument("--letter", action="store_true")
    parser.add_argument("--covertype", action="store_true")
    parser.add_argument("--no-ovr", action="store_true", help="skip the one-vs-rest fits")
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    everything = not (args.usps or args.letter or args.covertype)
    if args.usps or everything:
        compare("USPS", usps(), np.sqrt(1 / (2 * 0.03)), 100, args.n_jobs, not args.no_ovr)
    if args.letter or everything:
        compare("Letter", letter(), 0.447, 100, args.n_jobs, False)
    if args.covertype:
        covertype(args.n_jobs)


if __name__ == "__main__":
    main()
