"""Gaussian kernels at small sigma, where most kernel values underflow: multisvm against
scikit-learn, side by side.

numpy's exp is 12-170 ns per value whose result underflows against 0.7 ns otherwise, so a grid
corner with a small sigma made kernel blocks several times slower.  multisvm floors the
exponents at ``kernels.EXP_FLOOR``; scikit-learn's ``rbf_kernel`` does not.  On Letter (4,000
training rows, 4,000 test rows, [-1, 1] scaling) this prints, for each sigma, the share of
test-to-training exponents below -708, then each row's scikit-learn time, ours and the ratio:

- kernel block K(test, train): ``rbf_kernel`` vs ``Kernel.block``;
- Max Wins prediction: ``SVC.predict`` vs ``MaxWinsSVC.predict`` (and whether they agree);
- DAG prediction: ``SVC.predict`` vs ``DAGSVC.predict``.

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/small_sigma.py [--sigmas 0.447,0.05]
"""

import argparse
import os

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from compare_sklearn import load_scaled, timed
from multisvm_cli.estimators import DAGSVC, MaxWinsSVC
from multisvm_cli.estimators.kernels import Kernel

N_ROWS = 4000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sigmas", default="0.447,0.05", help="comma-separated Gaussian sigmas")
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    parts, _ = load_scaled("letter", ["train", "test"], os.environ.get("MULTISVM_MIRROR"))
    X, y = parts["train"][0][:N_ROWS], parts["train"][1][:N_ROWS]
    X_test = parts["test"][0][:N_ROWS]
    print(f"letter: {len(X)} training rows, {len(X_test)} test rows, C=10")
    print(f"{'sigma':>6} {'phase':<18} {'sklearn s':>10} {'ours s':>8} {'ratio':>7}  note")
    for sigma in (float(s) for s in args.sigmas.split(",")):
        kernel = Kernel.from_params("gaussian", sigma=sigma)
        theirs_block, t_theirs = timed(rbf_kernel, X_test, X, kernel.gamma, repeat=3)
        _, t_ours = timed(kernel.block, X_test, X, repeat=3)
        share = np.mean(theirs_block < np.finfo(float).tiny)
        print(f"{sigma:>6g} {'kernel block':<18} {t_theirs:>10.3f} {t_ours:>8.3f} "
              f"{t_theirs / t_ours:>6.2f}x  {share:.0%} of values underflow")
        svc = SVC(C=10.0, gamma=kernel.gamma).fit(X, y)
        maxwins = MaxWinsSVC(C=10.0, sigma=sigma, n_jobs=args.n_jobs).fit(X, y)
        dag = DAGSVC.from_maxwins(maxwins)
        svc_pred, t_svc = timed(svc.predict, X_test, repeat=3)
        for name, model in (("maxwins predict", maxwins), ("dag predict", dag)):
            predicted, t_model = timed(model.predict, X_test, repeat=3)
            note = (f"{np.sum(predicted != svc_pred)} predictions differ from SVC"
                    if model is maxwins else "")
            print(f"{sigma:>6g} {name:<18} {t_svc:>10.3f} {t_model:>8.3f} "
                  f"{t_svc / t_model:>6.2f}x  {note}")


if __name__ == "__main__":
    main()
