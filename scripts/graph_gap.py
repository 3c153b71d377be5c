"""Where GraphSVM's gap to MCSVM comes from (issue #59; Godbole, Sarawagi & Chakrabarti, KDD 2002).

On the godbole configs' data and features (20 Newsgroups pooled, a stratified random 70:30
split, seed 0; Reuters R52, the ModApte parts; tf-idf with English stop words, sublinear tf,
l2 rows; linear SVMs with liblinear), this fits MCSVM (1-v-r) with its C chosen as the configs
choose it (from 0.1, 1, 10 on a 30% holdout of each class of the training part), then
GraphSVM with the group SVMs on the same features and that same C, at each threshold t, for each
first stage:

- ``tfidf holdout``: multinomial NB on the tf-idf rows, confusion on a 30% held-out part (the
  shipped ``graph`` scheme, ``nb: multinomial``);
- ``tfidf cv``: the same NB, confusion from 5-fold cross-validated predictions over the whole
  training part (``confusion: cv``);
- ``counts holdout`` / ``counts cv``: the paper's NB, multinomial on the term counts of the same
  vocabulary with Laplace smoothing (alpha 1), which routes the points and gives the confusion;
  the scheme sees only the config's features, so this script composes these two stages itself
  (GraphSVM's rule: NB's class i, then one-vs-rest SVMs among {i} U F(i) on the tf-idf rows).

Printed per row: GraphSVM's test error %, NB's, the groups' extra classes (sum of |F(i)|),
GraphSVM's errors split by :func:`error_split` into ``unrecoverable`` (the true class lies
outside NB's class's group) and ``in group`` (the group's SVMs pick wrong), MCSVM's errors on
each of those sets of points, and the training CPU seconds (NB, confusion and SVMs).  Before
the table: how often the true class is among tf-idf NB's 1, 2, 3 most likely classes (what a
scheme routing by NB's ranking could at best recover).

Usage: MULTISVM_MIRROR=/path/to/datasets python scripts/graph_gap.py [--datasets 20ng r52]
       [--thresholds 0.03 0.05 0.07] [--stages "tfidf holdout" "counts cv"]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB

from multisvm_cli import data
from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
from multisvm_cli.estimators import GraphSVC, OneVsRestSVC
from multisvm_cli.estimators._base import split_holdout
from multisvm_cli.estimators._groups import confused_groups, error_split, measured_confusion

TFIDF = TextFeatures(vectorizer="tfidf", stop_words="english", sublinear_tf=True, norm="l2")
COUNTS = TextFeatures(vectorizer="counts", stop_words="english", norm="none")
STAGES = ("tfidf holdout", "tfidf cv", "counts holdout", "counts cv")
C_GRID = (0.1, 1.0, 10.0)
LINEAR = dict(kernel="linear", solver="liblinear")


def documents(name, mirror):
    """(train docs, train labels, test docs, test labels) as the godbole configs split them."""
    if name == "20ng":
        news = data.load("20newsgroups", mirror=mirror)
        docs = np.concatenate([news.parts[p][0] for p in ("train", "test")])
        labels = np.concatenate([news.parts[p][1] for p in ("train", "test")])
        return train_test_split(docs, labels, test_size=0.3, stratify=labels, random_state=0)
    reuters = data.load("reuters21578", mirror=mirror)
    (train, y_train), (test, y_test) = reuters.parts["train"], reuters.parts["test"]
    return train, test, y_train, y_test


def chosen_C(X, y):
    """MCSVM's C from C_GRID by accuracy on a 30% holdout of each class (seeded 0; a class of
    one document stays in the fit part); ties to the smaller C."""
    fit, held = split_holdout(y, 0.3, 0)
    scores = [np.mean(OneVsRestSVC(C=C, **LINEAR).fit(X[fit], y[fit]).predict(X[held]) == y[held])
              for C in C_GRID]
    return C_GRID[int(np.argmax(scores))]


def two_stages(counts, X, y, X_test, threshold, source, C):
    """GraphSVM with the paper's first stage on term counts: (NB's test classes, groups,
    predictions, training CPU s); y are class indices."""
    started = time.process_time()
    (C_train, C_test), n_classes = counts, int(y.max()) + 1
    groups = confused_groups(measured_confusion("multinomial", C_train, y, n_classes, source, 0.3, 0),
                             threshold)
    nb = MultinomialNB(alpha=1.0).fit(C_train, y)
    first = nb.predict(C_test)
    predicted = first.copy()
    for group in {tuple(g) for g in groups if len(g) > 1}:
        svm = OneVsRestSVC(C=C, **LINEAR).fit(X[np.isin(y, group)], y[np.isin(y, group)])
        points = np.isin(first, [i for i in range(n_classes) if tuple(groups[i]) == group])
        if points.any():
            predicted[points] = svm.predict(X_test[points])
    return first, groups, predicted, time.process_time() - started


def graph_row(stage, parts, threshold, C, mcsvm_pred):
    """One printed row: GraphSVM at ``threshold`` with ``stage``, against MCSVM's predictions."""
    (X, X_test), counts, y, y_test = parts
    words, source = stage.split()
    if words == "tfidf":
        model = GraphSVC(C=C, threshold=threshold, nb="multinomial", confusion=source,
                         random_state=0, **LINEAR).fit(X, y)
        first, groups, pred, cpu = (model.first_guess(X_test), model.groups_, model.predict(X_test),
                                    model.fit_cpu_time_)
    else:
        first, groups, pred, cpu = two_stages(counts, X, y, X_test, threshold, source, C)
    split = error_split(groups, first, y_test, pred)
    mcsvm_wrong = mcsvm_pred != y_test
    return (f"{threshold:>5.2f} {stage:<15} {np.mean(pred != y_test):8.2%} {np.mean(first != y_test):7.2%} "
            f"{sum(len(g) - 1 for g in groups):6d} {split['unrecoverable'].sum():7d} "
            f"{mcsvm_wrong[split['unrecoverable']].sum():7d} {split['in_group'].sum():7d} "
            f"{mcsvm_wrong[split['in_group']].sum():7d} {cpu:8.2f}")


def run(name, mirror, thresholds, stages):
    """Fit and print one dataset's table."""
    train, test, y_train, y_test = documents(name, mirror)
    classes, y_all = np.unique(np.concatenate([y_train, y_test]), return_inverse=True)
    y, y_test = y_all[:len(y_train)], y_all[len(y_train):]
    X, X_test = fit_transform_parts(TFIDF, train, test).matrices
    counts = fit_transform_parts(COUNTS, train, test).matrices if any("counts" in s for s in stages) else None
    C = chosen_C(X, y)
    mcsvm = OneVsRestSVC(C=C, **LINEAR).fit(X, y)
    mcsvm_pred = mcsvm.predict(X_test)
    print(f"\n{name}: {len(y)} train, {len(y_test)} test documents, {len(classes)} classes, "
          f"{X.shape[1]} terms; C = {C:g}; MCSVM {np.mean(mcsvm_pred != y_test):.2%} error "
          f"({np.sum(mcsvm_pred != y_test)} errors), {mcsvm.fit_cpu_time_:.2f} train CPU s")
    ranks = np.argsort(-MultinomialNB().fit(X, y).predict_joint_log_proba(X_test), axis=1)
    print("true class among tf-idf NB's top 1 / 2 / 3 classes: " + " / ".join(
        f"{np.mean((ranks[:, :m] == y_test[:, None]).any(axis=1)):.1%}" for m in (1, 2, 3)))
    print(f"{'t':>5} {'first stage':<15} {'error %':>8} {'NB %':>7} {'|F|':>6} {'unrec':>7} "
          f"{'MCSVM':>7} {'in grp':>7} {'MCSVM':>7} {'CPU s':>8}")
    for threshold in thresholds:
        for stage in stages:
            print(graph_row(stage, ((X, X_test), counts, y, y_test), threshold, C, mcsvm_pred), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=None, help="dataset mirror (default: MULTISVM_MIRROR)")
    parser.add_argument("--datasets", nargs="+", choices=("20ng", "r52"), default=["r52", "20ng"])
    parser.add_argument("--thresholds", nargs="+", type=float, default=[0.03, 0.05, 0.07])
    parser.add_argument("--stages", nargs="+", choices=STAGES, default=list(STAGES))
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name in args.datasets:
        run(name, args.mirror, args.thresholds, args.stages)


if __name__ == "__main__":
    main()
