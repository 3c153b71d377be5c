"""How much a 10-fold cross-validation rate moves with the draw of the folds, at fixed points.

Hsu & Lin (2002) report, for their small sets, the best 10-fold cross-validation rate over their
grid, on one draw of the folds. Ours is on another draw (``split: {method: kfold, seed: 0}``).
For each given grid point (log2 C, log2 gamma of exp(-gamma |x - x'|^2)) this prints the pooled
10-fold rate of one-vs-one (LIBSVM's SVC, Max Wins' voting) with the inputs scaled to [-1, 1] on
each training fold (``scaling: paper``), over the fold draws StratifiedKFold(10, shuffle=True,
random_state=seed) for seed = 0 .. --seeds - 1, and their min and max: the spread a rate of ours
can have against theirs from the folds alone.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/fold_draws.py vehicle 11,-4 9,-3
"""

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from multisvm_cli import data  # noqa: E402


def pooled_rates(X, y, log2_c, log2_gamma, seeds) -> list[float]:
    """The pooled 10-fold rate (%) at one point, for each fold draw."""
    model = make_pipeline(MinMaxScaler((-1, 1)),
                          SVC(C=2.0 ** log2_c, gamma=2.0 ** log2_gamma, kernel="rbf"))
    return [100 * float(np.mean(cross_val_predict(
        model, X, y, cv=StratifiedKFold(10, shuffle=True, random_state=seed)) == y))
        for seed in range(seeds)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", help="a card without a fixed split (vehicle, glass, ...)")
    parser.add_argument("points", nargs="+", help="log2 C,log2 gamma, e.g. 11,-4")
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    loaded = data.load(args.dataset, progress=False)
    X, y = next(iter(loaded.parts.values()))
    for point in args.points:
        log2_c, log2_gamma = (int(v) for v in point.split(","))
        rates = pooled_rates(X, y, log2_c, log2_gamma, args.seeds)
        print(f"{args.dataset} C=2^{log2_c} gamma=2^{log2_gamma}: "
              + " ".join(f"{r:.2f}" for r in rates)
              + f"; min {min(rates):.2f}, max {max(rates):.2f}")


if __name__ == "__main__":
    main()
