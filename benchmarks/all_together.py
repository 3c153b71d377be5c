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

With ``--path``, it times warm starts along C (issue #38): on vowel and vehicle (every row,
[-1, 1]), for each gamma (``--log2-gammas``, default 0 and -4) and scheme (cs, ww), the dual at
every C of Hsu & Lin's 15 (2^-2 .. 2^12) solved cold (from beta = 0, as every grid point was
at commit 1733594: no reuse) and warm (from the previous C's solve, with its kernel rows, as
the grid does with ``reuse_across_C``), the two interleaved point by point, each timed in CPU
seconds of ``solve_dual`` (``time.process_time``, BLAS on one thread).  Printed per path: the
CPU seconds and steps of both, their ratio, the largest relative difference of the dual
objective over the path with the largest bound tol allows it (|f_warm - f_cold| <= tol / 2
||beta_warm - beta_cold||_1, by convexity), and how many training rows' predictions differ;
then the totals.

The first fit of cs or ww in a fresh environment compiles the solver (numba, cached on disk
afterwards); a warm-up fit on 200 rows runs first so that no timing includes it.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/all_together.py [--rows 5000 15000]
           [--schemes maxwins cs ww] [--small-sets] [--path [--log2-gammas 0 -4]]
"""

import argparse
import math
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MinMaxScaler
from threadpoolctl import threadpool_limits

from multisvm_cli import data
from multisvm_cli.estimators import MaxWinsSVC
from multisvm_cli.estimators._binary import TrainSettings
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.joint.decomposition.solver import solve_dual
from multisvm_cli.estimators.joint.formulations import FORMULATIONS
from multisvm_cli.estimators.kernels import Kernel
from multisvm_cli.estimators.reuse import PathSlot
from multisvm_cli.estimators.ww import WestonWatkinsSVC

SCHEMES = {"maxwins": MaxWinsSVC, "cs": CrammerSingerSVC, "ww": WestonWatkinsSVC}
GAMMA, C = 2.0**2, 2.0**4
SMALL_SETS, HARD_C, HARD_GAMMA = ("vowel", "vehicle", "glass"), 2.0**11, 2.0**-10
PATH_SETS, PATH_C, TOL = ("vowel", "vehicle"), [2.0**e for e in range(-2, 13)], 1e-3


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


def objective(form, beta, Q, y):
    """The dual objective 1/2 sum_m beta_m' Q beta_m + e' beta of a solution ``beta`` (l, k)."""
    E = np.full(beta.shape, FORMULATIONS[form][1])
    E[np.arange(len(y)), y] = 0.0
    return 0.5 * np.sum(beta * (Q @ beta)) + np.sum(E * beta)


def timed(X, y, form, C, kernel, path=None):
    """(solution, CPU seconds) of one solve at ``C`` (cache 200 MB, tol 1e-3)."""
    started = time.process_time()
    solution = solve_dual(X, y, y.max() + 1, form, TrainSettings(kernel, C, TOL, 200.0, 2048.0),
                          path=path)
    return solution, time.process_time() - started


def one_path(X, y, form, gamma):
    """Cold and warm solves along PATH_C, interleaved: the printed figures of one path."""
    kernel, slot = Kernel.from_params("gaussian", gamma=gamma), PathSlot()
    Q = kernel.gram(X) + FORMULATIONS[form][2]
    out = {"cold_s": 0.0, "warm_s": 0.0, "cold_steps": 0, "warm_steps": 0, "gap": 0.0,
           "bound": 0.0, "differ": 0}
    for C in PATH_C:
        cold, cold_s = timed(X, y, form, C, kernel)
        warm, warm_s = timed(X, y, form, C, kernel, slot)
        out["cold_s"] += cold_s
        out["warm_s"] += warm_s
        out["cold_steps"] += cold.n_iter
        out["warm_steps"] += warm.n_iter
        f_cold, f_warm = objective(form, cold.beta, Q, y), objective(form, warm.beta, Q, y)
        out["gap"] = max(out["gap"], abs(f_warm - f_cold) / abs(f_cold))
        bound = TOL / 2 * np.abs(warm.beta - cold.beta).sum() / abs(f_cold)
        out["bound"] = max(out["bound"], bound)
        out["differ"] += int(np.sum((Q @ warm.beta).argmax(1) != (Q @ cold.beta).argmax(1)))
    return out


def warm_path(log2_gammas, schemes):
    """Time cold against warm solves along C on PATH_SETS and print each path and the total."""
    threadpool_limits(1)
    print("set\tscheme\tgamma\tcold_cpu_s\twarm_cpu_s\tratio\tcold_steps\twarm_steps\t"
          "max_rel_objective_diff\tits_tol_bound\tdiffering_predictions (15 C: 2^-2..2^12)")
    total = {"cold_s": 0.0, "warm_s": 0.0}
    X, labels = small_set(PATH_SETS[0])
    for form in schemes:  # compile (or load) the warm start's code before any timing
        slot = PathSlot()
        for C in (1.0, 2.0):
            timed(X[:100], np.unique(labels[:100], return_inverse=True)[1], form, C,
                  Kernel.from_params("gaussian", gamma=1.0), slot)
    for name in PATH_SETS:
        X, labels = small_set(name)
        y = np.unique(labels, return_inverse=True)[1]
        for form in schemes:
            for log2_gamma in log2_gammas:
                row = one_path(X, y, form, 2.0**log2_gamma)
                total["cold_s"] += row["cold_s"]
                total["warm_s"] += row["warm_s"]
                print(f"{name}\t{form}\t2^{log2_gamma}\t{row['cold_s']:.2f}\t{row['warm_s']:.2f}\t"
                      f"{row['cold_s'] / row['warm_s']:.1f}x\t{row['cold_steps']}\t"
                      f"{row['warm_steps']}\t{row['gap']:.1e}\t{row['bound']:.1e}\t"
                      f"{row['differ']} of {15 * len(y)}", flush=True)
    print(f"# all paths: cold {total['cold_s']:.1f} CPU s, warm {total['warm_s']:.1f} CPU s, "
          f"{total['cold_s'] / total['warm_s']:.1f}x less with warm starts")


def growth(small, large):
    """The exponent a of cpu ~ rows^a between two measurements of one scheme."""
    return math.log(large["cpu_s"] / small["cpu_s"]) / math.log(large["rows"] / small["rows"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[5000, 15000])
    parser.add_argument("--schemes", nargs="+", default=list(SCHEMES), choices=list(SCHEMES))
    parser.add_argument("--small-sets", action="store_true",
                        help="time the large-C, small-gamma corner on vowel, vehicle and glass")
    parser.add_argument("--path", action="store_true",
                        help="time warm starts along C on vowel and vehicle (cold against warm)")
    parser.add_argument("--log2-gammas", type=int, nargs="+", default=[0, -4])
    args = parser.parse_args()
    for scheme in args.schemes:  # compile (or load) the solver before any timing
        if scheme != "maxwins":
            measure(scheme, 200)
    if args.path:
        warm_path(args.log2_gammas, [s for s in args.schemes if s != "maxwins"])
        return
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
