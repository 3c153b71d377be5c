"""Exact reuse across C (issue #22): how many binary SVMs of a Gaussian grid a MachineReuse store
hands out instead of training, and how much libsvm CPU time that saves.

For each dataset, gamma and scheme, the scheme is fitted at every C of Hsu & Lin's grid
(C = 2^-2 .. 2^12), in ascending order, once with one store for the whole C sweep (the grid's
kernel task) and once without reuse.  Printed per row: binary SVMs trained without reuse, how
many the store gave instead and their share, libsvm CPU seconds (the binary fits' own
``process_time``) without and with the store, SMO iterations without and with, whether the test
predictions agree, and the largest difference of a machine's output on the test points between
the two runs, in units of libsvm's tol (a reused machine and a fresh one are both tol-accurate
solutions of the same problem).  DAGSVM trains Max Wins' machines, so it is not listed.

Data: the paper's scaling ([-1, 1], fitted on the training rows); vowel's own train/test split;
segment has one part, split 70/30 per class (seeded).  ``--rows`` keeps a random subset of the
training rows.  Runs in one thread (CPU seconds are process-wide).

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/reuse_across_c.py \
           [--datasets vowel,segment] [--log2-gammas -10,-7,-4,-1,2,4] [--schemes ovr,maxwins,udt,graph,hier]
"""

import argparse
import os

import numpy as np
from sklearn.model_selection import train_test_split

from multisvm_cli import data
from multisvm_cli.data import scaling
from multisvm_cli.estimators import REGISTRY
from multisvm_cli.estimators.reuse import MachineReuse

LOG2_C = range(-2, 13)
TOL = 1e-3


class Ledger(MachineReuse):
    """A store that also counts the binary fits asked for and sums the libsvm CPU seconds of
    those trained; with ``reuse=False`` it never hands a machine out (the baseline)."""

    def __init__(self, reuse=True):
        super().__init__()
        self.reuse, self.n_fits, self.cpu_seconds = reuse, 0, 0.0

    def covers(self, key, C):
        return self.reuse and super().covers(key, C)

    def lookup(self, key, C):
        self.n_fits += 1
        return super().lookup(key, C) if self.reuse else None

    def store(self, key, C, fit, sides=None):
        self.cpu_seconds += fit.cpu_seconds
        if self.reuse:
            super().store(key, C, fit, sides)


def load(name, mirror, rows, seed=0):
    """((X_train, y_train), (X_test, y_test)) scaled as the paper does."""
    dataset = data.load(name, mirror=mirror, progress=False)
    if "train" in dataset.parts:
        train, test = dataset.parts["train"], dataset.parts["test"]
    else:
        X, y = dataset.parts["all"]
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                            random_state=seed)
        train, test = (X_train, y_train), (X_test, y_test)
    if rows is not None and rows < len(train[1]):
        keep = np.sort(np.random.default_rng(seed).choice(len(train[1]), rows, replace=False))
        train = (train[0][keep], train[1][keep])
    scaler = scaling.make_scaler("paper", dataset.card).fit(train[0])
    return (scaler.transform(train[0]), train[1]), (scaler.transform(test[0]), test[1])


def sweep(scheme, gamma, train, X_test, reuse):
    """Fit ``scheme`` at every C in ascending order through one Ledger; returns (ledger,
    SMO iterations, [test predictions], [machine outputs on the test points])."""
    ledger, iterations, predictions, outputs = Ledger(reuse), 0, [], []
    for log2_C in LOG2_C:
        model = REGISTRY[scheme].estimator(C=2.0**log2_C, gamma=gamma, tol=TOL, n_jobs=1,
                                           random_state=0)
        model.fit(*train, reuse=ledger)
        iterations += model.smo_iterations_
        predictions.append(model.predict(X_test))
        outputs.append(model.machines_.decision(X_test, model.memory_mb))
    return ledger, iterations, predictions, outputs


def measure(scheme, gamma, train, test):
    """One row: fits, reused, share, CPU s without / with, SMO iterations without / with,
    predictions agree, largest output difference / tol."""
    base, base_iter, base_pred, base_out = sweep(scheme, gamma, train, test[0], reuse=False)
    mine, mine_iter, mine_pred, mine_out = sweep(scheme, gamma, train, test[0], reuse=True)
    agree = all(np.array_equal(a, b) for a, b in zip(base_pred, mine_pred))
    worst = max((np.abs(a - b).max(initial=0.0) for a, b in zip(base_out, mine_out)), default=0.0)
    return (base.n_fits, mine.n_reused, mine.n_reused / max(base.n_fits, 1), base.cpu_seconds,
            mine.cpu_seconds, base_iter, mine_iter, agree, worst / TOL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="vowel,segment")
    parser.add_argument("--log2-gammas", default="-10,-7,-4,-1,2,4")
    parser.add_argument("--schemes", default="ovr,maxwins,udt,graph,hier")
    parser.add_argument("--rows", type=int, default=None, help="training rows kept (default all)")
    args = parser.parse_args()
    print("dataset\tlog2_gamma\tscheme\tfits\treused\tshare\tcpu_s_without\tcpu_s_with\t"
          "smo_without\tsmo_with\tpredictions_agree\tmax_diff_over_tol", flush=True)
    for name in args.datasets.split(","):
        train, test = load(name, os.environ.get("MULTISVM_MIRROR"), args.rows)
        totals = np.zeros(5)
        for log2_gamma in (int(g) for g in args.log2_gammas.split(",")):
            for scheme in args.schemes.split(","):
                row = measure(scheme, 2.0**log2_gamma, train, test)
                totals += [row[0], row[1], row[3], row[4], not row[7]]
                print(name, log2_gamma, scheme, row[0], row[1], f"{row[2]:.3f}", f"{row[3]:.3f}",
                      f"{row[4]:.3f}", row[5], row[6], row[7], f"{row[8]:.2f}", sep="\t", flush=True)
        print(f"# {name} ({len(train[1])} training rows): {totals[1]:.0f} of {totals[0]:.0f} binary "
              f"SVMs reused ({totals[1] / totals[0]:.1%}); libsvm CPU {totals[2]:.2f} s -> "
              f"{totals[3]:.2f} s (saved {totals[2] - totals[3]:.2f} s, "
              f"{1 - totals[3] / totals[2]:.1%}); sweeps whose predictions differ: {totals[4]:.0f}",
              flush=True)


if __name__ == "__main__":
    main()
