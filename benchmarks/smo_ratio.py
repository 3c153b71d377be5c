"""Platt et al. (NIPS 1999), Table 1's training-cost comparison, counted in libsvm's SMO
iterations rather than CPU seconds: 1-v-r iterations / Max Wins iterations.

Our 1-v-r shares one Gram matrix across its N SVMs, so its CPU seconds no longer show the
schemes' inherent difference; the SMO iteration count (``smo_iterations_``: the sum of
``SVC.n_iter_`` over the binary SVMs) does not depend on such speed-ups.  For each config, each
scheme is trained once on the config's training part (its scaling, the standard split) at the
paper's chosen point (the config's ``reference`` sigma and C), and also at the other scheme's
point, so that the ratio is shown both at the paper's points and at one common point.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/smo_ratio.py \
           configs/platt1999-usps.yaml configs/platt1999-letter-gaussian.yaml
"""

import argparse
import time

from multisvm_cli.estimators import REGISTRY
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.config.against_data import load_datasets
from multisvm_cli.experiment.splits import scaled_folds

SCHEMES = ("ovr", "maxwins")


def measure(config_path):
    """Rows (dataset, scheme, sigma, C, SMO iterations, CPU s, train rows) of one config."""
    config = load_config(config_path)
    datasets = load_datasets(config, quiet=True)
    rows = []
    for plan in config.datasets:
        fold = scaled_folds(datasets[plan.name], plan)[0]
        reference = config.reference[plan.name]
        points = {(reference[s]["sigma"], reference[s]["C"]) for s in SCHEMES}
        for sigma, C in sorted(points):
            for scheme in SCHEMES:
                estimator = REGISTRY[scheme].estimator(kernel="gaussian", sigma=sigma, C=C,
                                                       n_jobs=1, random_state=config.seed)
                started = time.process_time()
                estimator.fit(fold.X_train, fold.y_train)
                rows.append((plan.name, scheme, sigma, C, estimator.smo_iterations_,
                             time.process_time() - started, len(fold.y_train)))
                print(*rows[-1], sep="\t", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+")
    args = parser.parse_args()
    print("dataset\tscheme\tsigma\tC\tsmo_iterations\tcpu_s\ttrain_rows")
    for path in args.configs:
        rows = measure(path)
        config = load_config(path)
        for plan in config.datasets:
            ref = config.reference[plan.name]
            own = {s: next(r[4] for r in rows if r[0] == plan.name and r[1] == s
                           and (r[2], r[3]) == (ref[s]["sigma"], ref[s]["C"])) for s in SCHEMES}
            print(f"# {plan.name}: 1-v-r / Max Wins SMO iterations at the paper's points = "
                  f"{own['ovr'] / own['maxwins']:.2f}; paper's CPU ratio "
                  f"{ref['ovr']['cpu_time'] / ref['maxwins']['cpu_time']:.1f}")


if __name__ == "__main__":
    main()
