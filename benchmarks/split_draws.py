"""How the 70/30 validation choice and the test rate move together, at fixed points.

Hsu & Lin (2002) choose a large set's point on a validation part of its training set, retrain
on the whole training set and report the rate on the given test set; ours chooses on a
stratified 70/30 holdout (``validation: {method: holdout, train_fraction: 0.7, seed: 0}``).
Where several points tie on the validation part, the tie rule (smaller C, then smaller gamma)
and the draw of the holdout decide which one is reported. For each given grid point
(log2 C, log2 gamma of exp(-gamma |x - x'|^2)) this prints, for one-vs-one (LIBSVM's SVC,
Max Wins' voting) with the inputs scaled to [-1, 1] on the whole training part (``scaling:
paper``):

- the errors on the validation part of the holdout train_test_split(train_size=0.7,
  stratify=y, random_state=seed), for seed = 0 .. --seeds - 1 (ours is seed 0's), fitted on
  the other 70%;
- the errors and the rate on the given test part, fitted on the whole training part.

``--scheme NAME`` fits that scheme of ours (``ww``, ``dag``, ...: its defaults, the Gaussian
kernel at the point) instead of one-vs-one.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/split_draws.py shuttle 7,4 11,3
           [--seeds 5] [--scheme ww]
"""

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from multisvm_cli import data  # noqa: E402
from multisvm_cli.estimators.registry import estimator  # noqa: E402


def errors(X_fit, y_fit, X_score, y_score, log2_c, log2_gamma, scheme=None) -> int:
    """The number of scored rows that one-vs-one (or ``scheme``) at one point gets wrong."""
    C, gamma = 2.0 ** log2_c, 2.0 ** log2_gamma
    model = (SVC(C=C, gamma=gamma, kernel="rbf", cache_size=500) if scheme is None
             else estimator(scheme)(C=C, gamma=gamma))
    return int(np.sum(model.fit(X_fit, y_fit).predict(X_score) != y_score))


def validation_errors(X, y, log2_c, log2_gamma, seeds, scheme=None) -> list[int]:
    """The validation errors at one point, for each draw of the 70/30 holdout."""
    counts = []
    for seed in range(seeds):
        fit, score = train_test_split(np.arange(len(y)), train_size=0.7, stratify=y,
                                      random_state=seed)
        counts.append(errors(X[fit], y[fit], X[score], y[score], log2_c, log2_gamma, scheme))
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", help="a card with a given test part (shuttle, satimage, ...)")
    parser.add_argument("points", nargs="+", help="log2 C,log2 gamma, e.g. 11,3")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--scheme", help="a scheme of ours instead of one-vs-one (e.g. ww)")
    args = parser.parse_args()
    loaded = data.load(args.dataset, progress=False)
    (X, y), (X_test, y_test) = loaded.parts["train"], loaded.parts["test"]
    scaler = MinMaxScaler((-1, 1)).fit(X)
    X, X_test = scaler.transform(X), scaler.transform(X_test)
    n_score = len(y) - int(np.floor(0.7 * len(y)))
    print(f"{args.dataset}: validation errors of {n_score} rows for holdout seeds 0-"
          f"{args.seeds - 1}; test errors of {len(y_test)} rows")
    for point in args.points:
        log2_c, log2_gamma = (int(v) for v in point.split(","))
        on_validation = validation_errors(X, y, log2_c, log2_gamma, args.seeds, args.scheme)
        on_test = errors(X, y, X_test, y_test, log2_c, log2_gamma, args.scheme)
        print(f"C=2^{log2_c} gamma=2^{log2_gamma}: validation "
              + " ".join(str(count) for count in on_validation)
              + f"; test {on_test} ({100 * (1 - on_test / len(y_test)):.3f}%)", flush=True)


if __name__ == "__main__":
    main()
