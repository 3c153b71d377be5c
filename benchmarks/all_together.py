"""Hsu & Lin (2002)'s training-time comparison on Letter: the all-together methods against Max Wins.

Crammer & Singer (``cs``) and Weston & Watkins (``ww``), trained by our own dual solver, against
Max Wins (libsvm's pairwise SVMs) on the first N rows of Letter's training part (5,000 and
15,000 by default), inputs scaled to [-1, 1] on those rows, the Gaussian kernel at gamma 2^2 and
C 2^4 (Hsu & Lin's best Letter parameters), every scheme's defaults otherwise (cache 200 MB, tol
1e-3).  Printed per scheme and size: training CPU seconds (fit_cpu_time_), the solver's
iterations (SMO iterations summed over the pairs for Max Wins; one example's sub-problem a step
for cs and ww), training memory (max_train_memory_), support vectors, test error on Letter's
test part, and the CPU ratio to Max Wins at that size; then how each scheme's CPU time grows
with the rows (the exponent a of time ~ rows^a between the two sizes).

The first fit of cs or ww in a fresh environment compiles the solver (numba, cached on disk
afterwards); a warm-up fit on 200 rows runs first so that no timing includes it.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/all_together.py [--rows 5000 15000]
           [--schemes maxwins cs ww]
"""

import argparse
import math

import numpy as np
from sklearn.preprocessing import MinMaxScaler

from multisvm_cli import data
from multisvm_cli.estimators import MaxWinsSVC
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.ww import WestonWatkinsSVC

SCHEMES = {"maxwins": MaxWinsSVC, "cs": CrammerSingerSVC, "ww": WestonWatkinsSVC}
GAMMA, C = 2.0**2, 2.0**4


def letter_rows(n_rows):
    """(X_train, y_train, X_test, y_test): Letter's first ``n_rows`` training rows and its test
    part, scaled to [-1, 1] with the training rows' min / max."""
    parts = data.load("letter").parts
    X, y = parts["train"]
    scaler = MinMaxScaler((-1, 1)).fit(X[:n_rows])
    return scaler.transform(X[:n_rows]), y[:n_rows], scaler.transform(parts["test"][0]), parts["test"][1]


def measure(scheme, n_rows):
    """One fit: a dict of the printed figures."""
    X, y, X_test, y_test = letter_rows(n_rows)
    model = SCHEMES[scheme](C=C, gamma=GAMMA).fit(X, y)
    return {"scheme": scheme, "rows": n_rows, "cpu_s": model.fit_cpu_time_,
            "iterations": model.smo_iterations_, "memory_mb": model.max_train_memory_ / 2**20,
            "support_vectors": model.n_support_vectors_,
            "test_error": float(np.mean(model.predict(X_test) != y_test))}


def growth(small, large):
    """The exponent a of cpu ~ rows^a between two measurements of one scheme."""
    return math.log(large["cpu_s"] / small["cpu_s"]) / math.log(large["rows"] / small["rows"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[5000, 15000])
    parser.add_argument("--schemes", nargs="+", default=list(SCHEMES), choices=list(SCHEMES))
    args = parser.parse_args()
    for scheme in args.schemes:  # compile (or load) the solver before any timing
        if scheme != "maxwins":
            measure(scheme, 200)
    print("scheme\trows\tcpu_s\titerations\tmemory_mb\tsupport_vectors\ttest_error\tcpu_vs_maxwins")
    results = {}
    for n_rows in args.rows:
        for scheme in args.schemes:
            row = results[scheme, n_rows] = measure(scheme, n_rows)
            base = results.get(("maxwins", n_rows))
            ratio = f"{row['cpu_s'] / base['cpu_s']:.1f}x" if base else "-"
            print(f"{scheme}\t{n_rows}\t{row['cpu_s']:.1f}\t{row['iterations']}\t{row['memory_mb']:.1f}\t"
                  f"{row['support_vectors']}\t{row['test_error']:.4f}\t{ratio}", flush=True)
    if len(args.rows) >= 2:
        small, large = min(args.rows), max(args.rows)
        for scheme in args.schemes:
            print(f"# {scheme}: CPU time grows as rows^{growth(results[scheme, small], results[scheme, large]):.2f} "
                  f"from {small} to {large} rows")


if __name__ == "__main__":
    main()
