"""1-v-r linear SVMs on 20 Newsgroups tf-idf (issue #19): ours with liblinear against
scikit-learn's ``LinearSVC`` and ``OneVsRestClassifier(LinearSVC)``.

The 18,846 documents of 20 Newsgroups (bydate train and test pooled) are split 70:30 at random
(stratified, seeded); tf-idf features are fitted on the training documents only
(``TextFeatures``, ``min_df`` 2 by default).  Every model solves the same problems:
L1-loss (hinge) SVMs in the dual, C = 1, tol = 1e-4 (LinearSVC's default), bias as liblinear's
extra feature of value 1, rows visited in liblinear's seeded random order.
``OneVsRestClassifier(LinearSVC)`` fits one LinearSVC per class, as ours does, so its machines
are ours; ``LinearSVC`` runs liblinear's own one-vs-rest loop in one call, whose random
sequence continues from class to class, so its machines differ within tol.

Printed per model: fit wall and CPU seconds, predict seconds, test accuracy, predictions equal
to ours (share), and our fit time over theirs.  Runs in one thread.  With the hinge loss at
tol 1e-4 liblinear stops at its 1000 iterations on some classes (its ConvergenceWarning is
silenced here; every model stops at the same point, so the comparison holds).

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/text_linear.py [--min-df 2] [--repeats 3]
"""

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

from multisvm_cli import data
from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
from multisvm_cli.estimators import OneVsRestSVC

C, TOL = 1.0, 1e-4


def load(mirror, min_df, seed=0):
    """(X_train, y_train, X_test, y_test): a stratified random 70:30 split of all documents,
    tf-idf fitted on the training part."""
    news = data.load("20newsgroups", mirror=mirror)
    docs = np.concatenate([news.parts[p][0] for p in ("train", "test")])
    labels = np.concatenate([news.parts[p][1] for p in ("train", "test")])
    train_docs, test_docs, y_train, y_test = train_test_split(
        docs, labels, test_size=0.3, stratify=labels, random_state=seed)
    X_train, X_test = fit_transform_parts(TextFeatures(min_df=min_df), train_docs, test_docs).matrices
    return X_train, y_train, X_test, y_test


def models():
    """name -> a fresh model; all solve the same hinge-loss problems."""
    svc = LinearSVC(loss="hinge", dual=True, C=C, tol=TOL, intercept_scaling=1.0, random_state=0)
    return {
        "ours (liblinear)": OneVsRestSVC(kernel="linear", solver="liblinear", C=C, tol=TOL, n_jobs=1),
        "LinearSVC": svc,
        "OneVsRest(LinearSVC)": OneVsRestClassifier(svc),
    }


def measure(model, X_train, y_train, X_test, repeats):
    """(best fit wall s, its CPU s, best predict s, predictions)."""
    fits, predicts = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(X_train, y_train)
        fits.append((time.perf_counter() - wall, time.process_time() - cpu))
        started = time.perf_counter()
        predictions = model.predict(X_test)
        predicts.append(time.perf_counter() - started)
    wall, cpu = min(fits)
    return wall, cpu, min(predicts), predictions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=os.environ.get("MULTISVM_MIRROR"))
    parser.add_argument("--min-df", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    X_train, y_train, X_test, y_test = load(args.mirror, args.min_df)
    print(f"20 Newsgroups tf-idf: train {X_train.shape[0]} x {X_train.shape[1]} "
          f"({X_train.nnz} non-zeros), test {X_test.shape[0]}; hinge loss, C={C:g}, tol={TOL:g}")
    rows, ours = [], None
    for name, model in models().items():
        wall, cpu, predict, predictions = measure(model, X_train, y_train, X_test, args.repeats)
        ours = (wall, predictions) if ours is None else ours
        rows.append((name, wall, cpu, predict, np.mean(predictions == y_test),
                     np.mean(predictions == ours[1]), ours[0] / wall))
        if name.startswith("ours"):
            print(f"ours: largest binary SVM's training memory {model.max_train_memory_ / 2**20:.1f} MiB, "
                  f"size {model.n_parameters_} parameters, {model.kernel_evaluations(X_test[:1]):.0f} "
                  f"dot products a test point")
    print(f"{'model':<22} {'fit s':>7} {'fit CPU s':>9} {'predict s':>9} {'accuracy':>8} "
          f"{'same as ours':>12} {'ours/theirs':>11}")
    for name, wall, cpu, predict, accuracy, same, ratio in rows:
        print(f"{name:<22} {wall:7.2f} {cpu:9.2f} {predict:9.3f} {accuracy:8.2%} {same:12.2%} {ratio:11.2f}")


if __name__ == "__main__":
    main()
