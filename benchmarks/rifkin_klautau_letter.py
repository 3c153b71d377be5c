"""The CPU cost of letter's binary SVMs under rifkin-klautau-2004-letter, measured on a sample of
columns, to extrapolate the config's time (docs/results/rifkin-klautau.md: the config takes
hours on 2 cores, so it was not run whole).

At Rifkin & Klautau's chosen point (their Tables 16-17, p. 137: gamma 2^-1; C 4 for OVA and
DEN, 16 for SPA, 32 for AVA) and on one 10-fold cross-validation training part (the first
14,400 of the 16,000 training rows, standardized on themselves), it fits ``--columns`` columns
of each code (OVA: class b against the rest; DEN and SPA: columns of the seeded codes
``code_size: allwein``; AVA: pairs of classes), one binary SVM each through multisvm's
OneVsRestSVC on the column's rows, one BLAS thread, and prints the CPU seconds of each (after
one warm-up fit) and each code's columns x mean.

    python benchmarks/rifkin_klautau_letter.py [--columns 3]
"""

import argparse
import time

import numpy as np
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from multisvm_cli import data
from multisvm_cli.estimators import OneVsRestSVC
from multisvm_cli.estimators._codes import code_matrix, ovo_code, ovr_code

POINT = {"OVA": 4, "DEN": 4, "SPA": 16, "AVA": 32}  # C at gamma 2^-1 (Tables 16-17)
FOLD_ROWS = 14_400


def codes(k):
    """Each scheme's code for ``k`` classes (AVA's columns: every pair)."""
    return {"OVA": ovr_code(k), "DEN": code_matrix("dense", k, "allwein", 0),
            "SPA": code_matrix("sparse", k, "allwein", 0), "AVA": ovo_code(k)}


def column_seconds(X, index, column, C):
    """CPU seconds of one binary SVM: the column's +1 classes against its -1 classes."""
    entries = column[index]
    rows = entries != 0
    start = time.process_time()
    OneVsRestSVC(C=C, gamma=0.5).fit(X[rows], entries[rows] > 0)
    return time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=3)
    args = parser.parse_args()
    X, y = data.load("letter").parts["train"]
    X, y = StandardScaler().fit_transform(X[:FOLD_ROWS]), y[:FOLD_ROWS]
    index = np.searchsorted(np.unique(y), y)
    with threadpool_limits(1):
        column_seconds(X, index, ovr_code(26)[:, 0], 4)  # warm-up
        for name, code in codes(26).items():
            picks = np.linspace(0, code.shape[1] - 1, args.columns).astype(int)
            seconds = [column_seconds(X, index, code[:, b], POINT[name]) for b in picks]
            mean = float(np.mean(seconds))
            print(f"{name}: {code.shape[1]} columns, CPU s of columns {picks.tolist()}: "
                  f"{[round(s, 2) for s in seconds]}, mean {mean:.2f}, x columns "
                  f"{mean * code.shape[1]:.0f} s", flush=True)


if __name__ == "__main__":
    main()
