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

With ``--small-sets``, it times instead the hard corner of Hsu & Lin's grid on their small
sets (vowel, vehicle, glass: every row, [-1, 1] scaling): a large C (2^11) with a small gamma
(2^-10), where the kernel is close to a constant and the all-together solvers take millions of
steps; each fit's CPU time, steps and the ratio to Max Wins, and whether the step bound stopped
it.

The first fit of cs or ww in a fresh environment compiles the solver (numba, cached on disk
afterwards); a warm-up fit on 200 rows runs first so that no timing includes it.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/all_together.py [--rows 5000 15000]
           [--schemes maxwins cs ww] [--small-sets]
"""

import argparse
import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MinMaxScaler

from multisvm_cli import data
from multisvm_cli.estimators import MaxWinsSVC
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.ww import WestonWatkinsSVC

SCHEMES = {"maxwins": MaxWinsSVC, "cs": CrammerSingerSVC, "ww": WestonWatkinsSVC}
GAMMA, C = 2.0**2, 2.0**4
SMALL_SETS, HARD_C, HARD_GAMMA = ("vowel", "vehicle", "glass"), 2.0**11, 2.0**-10


def scaled_rows(name, n_rows=None):
    """(X_train, y_train, X_test, y_test): the first ``n_rows`` (None: all) rows of a set's
    training part and its test part, scaled to [-1, 1] with the training rows' min / max (Hsu &
    Lin's scaling)."""
    parts = {part: (dense(X), y) for part, (X, y) in data.load(name).parts.items()}
    X, y = parts["train"]
    scaler = MinMaxScaler((-1, 1)).fit(X[:n_rows])
    return scaler.transform(X[:n_rows]), y[:n_rows], scaler.transform(parts["test"][0]), parts["test"][1]


def dense(X):
    """``X`` as a dense array (sets stored as svmlight, e.g. dna, load as CSR)."""
    return X.toarray() if hasattr(X, "toarray") else X


def letter_rows(n_rows):
    """:func:`scaled_rows` of Letter's first ``n_rows`` training rows."""
    return scaled_rows("letter", n_rows)


def measure(scheme, n_rows):
    """One fit: a dict of the printed figures."""
    X, y, X_test, y_test = letter_rows(n_rows)
    model = SCHEMES[scheme](C=C, gamma=GAMMA).fit(X, y)
    return {"scheme": scheme, "rows": n_rows, "cpu_s": model.fit_cpu_time_,
            "iterations": model.smo_iterations_, "memory_mb": model.max_train_memory_ / 2**20,
            "support_vectors": model.n_support_vectors_,
            "test_error": float(np.mean(model.predict(X_test) != y_test))}


def small_set(name):
    """(X, y): every row of a small set (all its parts), scaled to [-1, 1]."""
    parts = data.load(name).parts.values()
    X = np.vstack([part[0] for part in parts])
    return MinMaxScaler((-1, 1)).fit_transform(X), np.concatenate([part[1] for part in parts])


def hard_corner(schemes):
    """Time every scheme on each small set at (HARD_C, HARD_GAMMA) and print the ratios."""
    print(f"set\tscheme\tcpu_s\titerations\tbound_reached\tcpu_vs_maxwins  (C 2^11, gamma 2^-10)")
    for name in SMALL_SETS:
        X, y = small_set(name)
        base = None
        for scheme in schemes:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                model = SCHEMES[scheme](C=HARD_C, gamma=HARD_GAMMA).fit(X, y)
            bounded = any(issubclass(w.category, ConvergenceWarning) for w in caught)
            base = model.fit_cpu_time_ if scheme == "maxwins" else base
            ratio = f"{model.fit_cpu_time_ / base:.0f}x" if base and scheme != "maxwins" else "-"
            print(f"{name}\t{scheme}\t{model.fit_cpu_time_:.2f}\t{model.smo_iterations_}\t"
                  f"{'yes' if bounded else 'no'}\t{ratio}", flush=True)


def growth(small, large):
    """The exponent a of cpu ~ rows^a between two measurements of one scheme."""
    return math.log(large["cpu_s"] / small["cpu_s"]) / math.log(large["rows"] / small["rows"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[5000, 15000])
    parser.add_argument("--schemes", nargs="+", default=list(SCHEMES), choices=list(SCHEMES))
    parser.add_argument("--small-sets", action="store_true",
                        help="time the large-C, small-gamma corner on vowel, vehicle and glass")
    args = parser.parse_args()
    for scheme in args.schemes:  # compile (or load) the solver before any timing
        if scheme != "maxwins":
            measure(scheme, 200)
    if args.small_sets:
        hard_corner(args.schemes)
        return
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
