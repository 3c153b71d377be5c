"""ECOCSVC against scikit-learn's OutputCodeClassifier(SVC), same code book, side by side.

For each dataset (USPS, Letter; the paper's scaling and Table 1's Gaussian and C, as
compare_sklearn.py), OutputCodeClassifier(SVC(C, gamma), code_size=1.5) is fitted first; its
code book (the first ``random_state`` from 0 whose book has no constant or repeated column,
which ECOCSVC refuses) is then given to ECOCSVC(code=..., decoding="euclidean"), which decodes
as OutputCodeClassifier does.  Both sides train libsvm on the same rows in the same order, so
their predictions must be equal; the script prints how many differ, and the ratios
``scikit-learn time / multisvm time`` of fit and predict (above 1: multisvm faster).  Goals
(issue 30): fit >= 1.5x, predict >= 10x.

Where multisvm gains: the dense code's columns all train on every row, so one Gram matrix
K(X, X) (BLAS, computed once) serves every column's libsvm, where each SVC recomputes kernel
values through its cache; and prediction evaluates every column through one pool of unique
support vectors (one kernel block and one matrix product per chunk of test points), where
each SVC evaluates its own support vectors.

Both sides run on one thread of work (``n_jobs=1``, OutputCodeClassifier's default) unless
``--n-jobs`` says otherwise.  ``--train-rows`` takes a seeded random subset of the training
part (the full Letter takes minutes a side).

Usage::

    python benchmarks/ecoc.py                                   # USPS and Letter, full
    python benchmarks/ecoc.py --train-rows 3000 --test-rows 2000  # a few minutes in all
"""

import argparse
import os
import time

import numpy as np
from compare_sklearn import load_scaled, paper_params, subset
from protocol_phase import gamma_of
from sklearn.multiclass import OutputCodeClassifier
from sklearn.svm import SVC

from multisvm_cli.estimators import ECOCSVC
from multisvm_cli.estimators._codes import check_code

TARGETS = {"fit": 1.5, "predict": 10.0}


def timed(function, *args):
    """(result, wall seconds) of one call."""
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def valid_book(occ, X, y, first_seed=0, tries=50):
    """(fitted OutputCodeClassifier, fit seconds, seed): the first random_state whose code book
    ECOCSVC accepts (no constant or repeated column); the book is checked before fitting."""
    for seed in range(first_seed, first_seed + tries):
        book = code_book(len(np.unique(y)), occ.code_size, seed)
        try:
            check_code("code", book)
        except ValueError:
            continue
        occ.set_params(random_state=seed)
        fitted, seconds = timed(occ.fit, X, y)
        assert np.array_equal(fitted.code_book_, book)
        return fitted, seconds, seed
    raise RuntimeError(f"no valid code book in {tries} seeds")


def code_book(n_classes, code_size, seed):
    """OutputCodeClassifier's code book for ``random_state=seed`` (its own recipe, for an
    estimator with decision_function: uniform draws > 0.5 are +1, the others -1)."""
    book = np.random.RandomState(seed).uniform(size=(n_classes, int(n_classes * code_size)))
    return np.where(book > 0.5, 1.0, -1.0)


def bench(name, mirror, train_rows, test_rows, n_jobs):
    parts, _ = load_scaled(name, ("train", "test"), mirror)
    X, y = subset(*parts["train"], train_rows)
    X_test, y_test = subset(*parts["test"], test_rows)
    sigma, C = paper_params(name, parts["train"][0])
    print(f"{name}: n_train={len(y)} n_test={len(y_test)} classes={len(np.unique(y))} "
          f"sigma={sigma:.3g} C={C:g} n_jobs={n_jobs}", flush=True)
    occ = OutputCodeClassifier(SVC(C=C, gamma=gamma_of(sigma)), code_size=1.5, n_jobs=n_jobs)
    occ, occ_fit, seed = valid_book(occ, X, y)
    ours = ECOCSVC(C=C, sigma=sigma, code=occ.code_book_.astype(int).tolist(),
                   decoding="euclidean", n_jobs=n_jobs)
    ours, our_fit = timed(ours.fit, X, y)
    theirs_pred, occ_predict = timed(occ.predict, X_test)
    ours_pred, our_predict = timed(ours.predict, X_test)
    differ = int(np.sum(ours_pred != theirs_pred))
    print(f"  code book: random_state={seed}, {occ.code_book_.shape[1]} columns; "
          f"predictions differing: {differ} of {len(y_test)}; test error "
          f"{np.mean(ours_pred != y_test):.4f} (ours) {np.mean(theirs_pred != y_test):.4f} "
          f"(scikit-learn); unique SVs {ours.n_support_vectors_}", flush=True)
    for phase, theirs_s, ours_s in (("fit", occ_fit, our_fit), ("predict", occ_predict, our_predict)):
        ratio = theirs_s / ours_s
        print(f"  {phase:8s} scikit-learn {theirs_s:8.3f}s  multisvm {ours_s:8.3f}s  ratio "
              f"{ratio:6.2f} (goal >= {TARGETS[phase]}x: {'met' if ratio >= TARGETS[phase] else 'NOT met'})",
              flush=True)
    return differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="usps,letter")
    parser.add_argument("--train-rows", type=int, default=None, help="seeded subset of the training part")
    parser.add_argument("--test-rows", type=int, default=None, help="seeded subset of the test part")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--mirror", default=os.environ.get("MULTISVM_MIRROR"))
    args = parser.parse_args()
    differ = [bench(name, args.mirror, args.train_rows, args.test_rows, args.n_jobs)
              for name in args.datasets.split(",")]
    if any(differ):
        raise SystemExit("predictions differ: see above")


if __name__ == "__main__":
    main()
