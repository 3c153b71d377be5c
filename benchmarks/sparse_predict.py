"""Prediction on sparse text-like data: our Max Wins and DAGSVM against scikit-learn's SVC.predict.

Data: 20,000 features about 1% dense (bag-of-words rows, l2-normalised, each class drawing most
of its words from a vocabulary of its own), 20,000 CSR test rows; the models are trained on
fewer rows (``--train-rows``) so the run takes about a minute.  Gaussian kernel, sigma 1, C 10.
Every model sees the same CSR matrices: nothing is densified (a dense copy of the test rows would
be 3.2 GB).

Prints each predict's time, its ratio to SVC.predict, whether the predictions agree, the peak of
Python-tracked memory during our predicts (tracemalloc: numpy and scipy arrays) and the process's
peak resident memory (VmHWM, everything including libsvm).

Usage: python benchmarks/sparse_predict.py [--train-rows 1000] [--test-rows 20000] [--n-jobs 1]
"""

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize
from sklearn.svm import SVC

from multisvm_cli.estimators import DAGSVC, MaxWinsSVC

N_FEATURES = 20_000
N_CLASSES = 10
WORDS = 240  # drawn per row; about 215 distinct, so about 1.1% of 20,000 features
VOCABULARY = 1000  # words of each class's own vocabulary
OWN_SHARE = 0.9  # share of a row's words drawn from its class's vocabulary
SIGMA, C = 1.0, 10.0


def text_like(n_rows, seed):
    """(X CSR float64 l2-normalised word counts, y class indices) of ``n_rows`` rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(N_CLASSES, size=n_rows)
    n_own = int(OWN_SHARE * WORDS)
    own = y[:, None] * VOCABULARY + rng.integers(VOCABULARY, size=(n_rows, n_own))
    common = rng.integers(N_FEATURES, size=(n_rows, WORDS - n_own))
    columns = np.hstack([own, common]).ravel()
    rows = np.repeat(np.arange(n_rows), WORDS)
    counts = sp.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(n_rows, N_FEATURES))
    return normalize(counts), y


def timed(function, *args):
    """(result, wall seconds, peak tracemalloc MB) of one call."""
    tracemalloc.reset_peak()
    start = time.perf_counter()
    result = function(*args)
    seconds = time.perf_counter() - start
    return result, seconds, tracemalloc.get_traced_memory()[1] / 2**20


def vm_hwm_mb():
    """The process's peak resident memory in MB (Linux /proc/self/status VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-rows", type=int, default=1000)
    parser.add_argument("--test-rows", type=int, default=20_000)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    X, y = text_like(args.train_rows, seed=0)
    X_test, y_test = text_like(args.test_rows, seed=1)
    density = X_test.nnz / (X_test.shape[0] * N_FEATURES)
    print(f"train {X.shape[0]} x {N_FEATURES}, test {X_test.shape[0]} x {N_FEATURES} CSR, "
          f"{100 * density:.2f}% dense ({X_test.data.nbytes / 2**20:.0f} MB of values; dense would be "
          f"{X_test.shape[0] * N_FEATURES * 8 / 2**30:.1f} GB); {N_CLASSES} classes, sigma {SIGMA}, C {C}")
    gamma = 1 / (2 * SIGMA**2)
    start = time.perf_counter()
    svc = SVC(C=C, gamma=gamma).fit(X, y)
    t_svc_fit = time.perf_counter() - start
    start = time.perf_counter()
    maxwins = MaxWinsSVC(C=C, sigma=SIGMA, n_jobs=args.n_jobs).fit(X, y)
    t_mw_fit = time.perf_counter() - start
    dag = DAGSVC.from_maxwins(maxwins)
    print(f"fit: SVC {t_svc_fit:.2f}s  MaxWinsSVC {t_mw_fit:.2f}s; {maxwins.n_support_vectors_} "
          f"support vectors (sparse pool: {sp.issparse(maxwins.machines_.vectors)})")
    start = time.perf_counter()
    reference = svc.predict(X_test)
    t_svc = time.perf_counter() - start
    print(f"SVC.predict {t_svc:.2f}s  error {100 * np.mean(reference != y_test):.2f}%")
    tracemalloc.start()
    for model in (maxwins, dag):
        predictions, seconds, peak = timed(model.predict, X_test)
        print(f"{type(model).__name__}.predict {seconds:.2f}s  ({t_svc / seconds:.1f}x faster than "
              f"SVC.predict)  same predictions as SVC: {np.mean(predictions == reference):.4f}  error "
              f"{100 * np.mean(predictions != y_test):.2f}%  peak traced memory {peak:.0f} MB")
    tracemalloc.stop()
    print(f"process peak resident memory (VmHWM) {vm_hwm_mb():.0f} MB")


if __name__ == "__main__":
    main()
