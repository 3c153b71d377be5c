"""The cost of :data:`multisvm_cli.estimators._solvers.LIBLINEAR_LOCK` (issue #33): liblinear
draws its coordinate order from the C library's global ``rand()``, so fits in threads at once
gave other machines from run to run; the lock lets one liblinear fit run at a time per process.

A small text task: 150 training documents of each of the 20 newsgroups (3,000, tf-idf fitted
on them), 1-v-r and Max Wins with liblinear (C = 1), fitted with ``n_jobs`` = 1 and 2 threads,
with the lock (ours) and without it (the reference: the unlocked, irreproducible fits),
interleaved ``--repeats`` times. Printed: the best wall time of each, the locked over the
unlocked ratio at ``n_jobs`` = 2, and how many distinct machines (decision values' digests)
each variant gave over its repeats.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/liblinear_lock.py [--repeats 3]
"""

import argparse
import contextlib
import hashlib
import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from multisvm_cli import data
from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
from multisvm_cli.estimators import MaxWinsSVC, OneVsRestSVC, _solvers


def task(mirror, per_class=150):
    news = data.load("20newsgroups", mirror=mirror)
    docs, y = news.parts["train"]
    rows = np.concatenate([np.flatnonzero(y == g)[:per_class] for g in np.unique(y)])
    (X,) = fit_transform_parts(TextFeatures(), docs[rows]).matrices
    return X, y[rows]


def fit_once(cls, X, y, n_jobs, locked):
    lock = _solvers.LIBLINEAR_LOCK
    if not locked:
        _solvers.LIBLINEAR_LOCK = contextlib.nullcontext()
    try:
        start = time.perf_counter()
        model = cls(kernel="linear", solver="liblinear", C=1.0, n_jobs=n_jobs).fit(X, y)
        wall = time.perf_counter() - start
    finally:
        _solvers.LIBLINEAR_LOCK = lock
    values = np.ascontiguousarray(model.decision_function(X[:300]))
    return wall, hashlib.sha1(values.tobytes()).hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y = task(os.environ.get("MULTISVM_MIRROR"))
    print(f"{X.shape[0]} documents x {X.shape[1]} terms, {len(np.unique(y))} classes")
    for cls in (OneVsRestSVC, MaxWinsSVC):
        found = {(j, locked): [] for j in (1, 2) for locked in (True, False)}
        for _ in range(args.repeats):
            for key in found:
                found[key].append(fit_once(cls, X, y, *key))
        for (j, locked), runs in found.items():
            print(f"{cls.__name__:13s} n_jobs={j} {'locked  ' if locked else 'unlocked'} "
                  f"best {min(w for w, _ in runs):6.2f} s, "
                  f"{len({d for _, d in runs})} distinct machine(s) in {len(runs)} fits")
        ratio = min(w for w, _ in found[2, True]) / min(w for w, _ in found[2, False])
        print(f"{cls.__name__:13s} locked / unlocked at n_jobs=2: {ratio:.2f}x")


if __name__ == "__main__":
    main()
