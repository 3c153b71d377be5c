"""The linear all-together machines (issue 38, part 3): our Crammer & Singer in the primal
weights against ``LinearSVC(multi_class='crammer_singer', fit_intercept=False)`` (liblinear's
``Solver_MCSVM_CS``), side by side, on dna, USPS and 20 Newsgroups tf-idf.

Both solve the same problem (Crammer & Singer's primal, no bias, C = 1 by default) by the same
method (Keerthi et al. 2008's sequential dual method, liblinear's shrinking and stopping rule),
each with its own random row order, stopping at the same tolerance on the same quantity (the
largest KKT violation of a row during a pass over all rows; ``--tol``, our default 1e-3).
dna and USPS: their training parts as the mirror holds them (dna CSR, USPS dense);
20 Newsgroups: text_linear.py's 70:30 stratified split of all 18,846 documents, tf-idf fitted
on the training part (``min_df`` 2).

The fits are interleaved, reference first, ``--repeats`` times each; printed per dataset: the
smallest fit CPU seconds of each (time.process_time, one BLAS thread), our CPU over theirs, both
primal objectives 1/2 ||W||^2 + C sum_i max_m (e_im + w_m' x_i - w_{y_i}' x_i) and their
relative difference, liblinear's passes and our steps (sub-problems), and the share of test
predictions on which the two agree; then W&W's fit (no reference: its CPU and steps only).
Our time includes the fit's own overhead (validation, a dense X's copy to CSR, the prediction
weights); a warm-up fit first loads the compiled solver, so no timing includes compiling.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/linear_all_together.py
           [--datasets dna usps 20newsgroups] [--tol 1e-3] [--repeats 3] [--C 1]
"""

import argparse
import datetime
import os
import time

import numpy as np
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from multisvm_cli import data
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.ww import WestonWatkinsSVC
from text_linear import load as newsgroups_split


def load(name):
    """(X_train, y_train, X_test, y_test), labels as class indices."""
    if name == "20newsgroups":
        X, y, X_test, y_test = newsgroups_split(os.environ.get("MULTISVM_MIRROR"), min_df=2)
    else:
        parts = data.load(name).parts
        (X, y), (X_test, y_test) = parts["train"], parts["test"]
    classes = np.unique(y)
    return X, np.searchsorted(classes, y), X_test, np.searchsorted(classes, y_test)


def primal(weights, X, y, C):
    """Crammer & Singer's primal objective at the weights (k, d)."""
    weights = weights.toarray() if hasattr(weights, "toarray") else np.asarray(weights)
    scores = np.asarray(X @ weights.T)
    own = scores[np.arange(len(y)), y][:, None]
    margins = np.ones_like(scores)
    margins[np.arange(len(y)), y] = 0.0
    return 0.5 * float(np.sum(weights * weights)) + C * float(np.sum(np.max(scores + margins - own, axis=1)))


def timed(fit):
    """(CPU seconds, the fitted model) of ``fit()``."""
    start = time.process_time()
    model = fit()
    return time.process_time() - start, model


def compare(name, C, tol, repeats):
    """Time both on one dataset and print a row."""
    X, y, X_test, y_test = load(name)
    reference = lambda: LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=tol,
                                  max_iter=100_000, random_state=0).fit(X, y)
    ours = lambda: CrammerSingerSVC(kernel="linear", C=C, tol=tol, random_state=0).fit(X, y)
    theirs_s, mine_s = [], []
    for _ in range(repeats):
        seconds, theirs = timed(reference)
        theirs_s.append(seconds)
        seconds, mine = timed(ours)
        mine_s.append(seconds)
    p_theirs, p_mine = primal(theirs.coef_, X, y, C), primal(mine.machines_.weights, X, y, C)
    agree = float(np.mean(theirs.predict(X_test) == mine.predict(X_test)))
    print(f"{name}\t{X.shape[0]}x{X.shape[1]}\t{min(theirs_s):.3f}\t{min(mine_s):.3f}\t"
          f"{min(mine_s) / min(theirs_s):.2f}\t{p_theirs:.6g}\t{p_mine:.6g}\t"
          f"{(p_mine - p_theirs) / p_theirs:+.2e}\t{theirs.n_iter_}\t{mine.smo_iterations_}\t"
          f"{agree:.4f}", flush=True)
    seconds = min(timed(lambda: WestonWatkinsSVC(kernel="linear", C=C, tol=tol, random_state=0)
                        .fit(X, y))[0] for _ in range(repeats))
    print(f"# {name}: W&W {seconds:.3f} CPU s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["dna", "usps", "20newsgroups"])
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, C {args.C:g}, "
          f"tol {args.tol:g}, {args.repeats} repeats, one BLAS thread, CPU seconds (the least)")
    print("dataset\trows x features\tLinearSVC_s\tours_s\tours/LinearSVC\tobjective_LinearSVC\t"
          "objective_ours\trelative_difference\tLinearSVC_passes\tour_steps\ttest_agreement")
    with threadpool_limits(1):
        X, y = np.random.default_rng(0).normal(size=(60, 4)), np.arange(60) % 3
        for scheme in (CrammerSingerSVC, WestonWatkinsSVC):  # load the compiled solver
            scheme(kernel="linear").fit(X, y)
        for name in args.datasets:
            compare(name, args.C, args.tol, args.repeats)


if __name__ == "__main__":
    main()
