"""The all-together machines side by side with reference solvers: CPU, wall, objective, agreement.

Ours against each reference, interleaved (the reference's fit, then ours, on the same rows):

- kernel Crammer & Singer (``cs``) against BSVM ``-s 2`` (Hsu & Lin's C++ code, ``--bsvm``: the
  directory holding its ``bsvm-train`` and ``bsvm-predict``);
- Max Wins (our ``maxwins``, libsvm's pairwise SVMs) against our ``cs``, and our Weston &
  Watkins (``ww``) against our ``cs`` at the same point (the reference is then ours);
- linear Crammer & Singer against liblinear's ``train -s 4`` (``--liblinear``: the directory of
  its ``train``), on the sets named ``-linear``.

This script builds nothing: the binaries are built elsewhere (BSVM's licence allows research
use only; it is never part of this repository).  Sets (``--sets``): satimage (4,435 training
rows, gamma 1, C 16), Letter's first 5,000 or 15,000 training rows (gamma 4, C 16), dna with
the linear kernel (C 1); each scaled to [-1, 1] on its training rows as Hsu & Lin did, tested
on the set's test part.  Every fit: tolerance 1e-3 (BSVM ``-e``, liblinear ``-e``, our
``tol``), cache 200 MB (``-m 200``, ``cache_size``, and ``memory_mb``: K(X, X) is held whole
only where it fits those 200 MB, as BSVM's cache would hold it); the binaries read svmlight files written
here (labels 1..k, features 1-based).

Printed per set and pair: the reference's and our CPU seconds (the child's rusage for a binary,
``time.process_time`` for ours, BLAS on one thread) and wall seconds, the CPU ratio (reference /
ours: above 1, ours is faster), both objectives (kernel: the dual, 1/2 sum_m beta_m' Q beta_m +
e'beta, BSVM's printed ``obj`` and ours computed from the solution; linear: the primal 1/2
||W||^2 + C sum_i xi_i, both computed here from the weights), the test predictions that differ,
and both test errors.  Usage:

    python benchmarks/joint_references.py --bsvm /tmp/bsvm --liblinear /tmp/liblinear \\
        [--sets satimage letter5000 letter15000 dna-linear] [--repeats 1]
"""

import argparse
import datetime
import os
import re
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import dump_svmlight_file
from threadpoolctl import threadpool_limits

from all_together import SCHEMES, scaled_rows
from multisvm_cli.estimators._primal import PrimalMachines
from multisvm_cli.estimators.joint.formulations import FORMULATIONS

TOL, CACHE_MB = 1e-3, 200
# name -> (dataset, training rows (None: all), gamma (None: linear kernel), C)
SETS = {"satimage": ("satimage", None, 1.0, 16.0), "letter5000": ("letter", 5000, 4.0, 16.0),
        "letter15000": ("letter", 15000, 4.0, 16.0), "dna-linear": ("dna", None, None, 1.0)}


class Problem:
    """One set's scaled rows, its class indices and its svmlight files in ``folder``."""

    def __init__(self, name, folder):
        dataset, n_rows, self.gamma, self.C = SETS[name]
        self.X, y, self.X_test, y_test = scaled_rows(dataset, n_rows)
        self.classes = np.unique(y)
        self.y, self.y_test = np.searchsorted(self.classes, y), np.searchsorted(self.classes, y_test)
        self.train, self.test = Path(folder, f"{name}.train"), Path(folder, f"{name}.test")
        dump_svmlight_file(self.X, self.y + 1, str(self.train), zero_based=False)
        dump_svmlight_file(self.X_test, self.y_test + 1, str(self.test), zero_based=False)

    def ours(self, scheme):
        """Our ``scheme`` fitted on one BLAS thread: a result dict."""
        kernel = {"kernel": "linear"} if self.gamma is None else {"gamma": self.gamma}
        model = SCHEMES[scheme](C=self.C, tol=TOL, cache_size=CACHE_MB, memory_mb=CACHE_MB, **kernel)
        with threadpool_limits(limits=1, user_api="blas"):
            wall, cpu = time.perf_counter(), time.process_time()
            model.fit(self.X, self.y)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        objective = None
        if scheme != "maxwins":
            objective = self.primal(*ours_weights(model)) if self.gamma is None \
                else dual_objective(model, scheme)
        return {"cpu": cpu, "wall": wall, "objective": objective, "iterations": model.smo_iterations_,
                "predicted": model.predict(self.X_test)}

    def primal(self, weights):
        """Crammer & Singer's primal 1/2 ||W||^2 + C sum_i max(0, max_{m != y_i} 1 + (w_m -
        w_{y_i}) x_i) at ``weights`` (k, d) on the training rows."""
        scores = np.asarray(self.X @ weights.T)
        rows = np.arange(len(self.y))
        margins = scores + 1.0 - scores[rows, self.y][:, None]
        margins[rows, self.y] = 0.0
        return 0.5 * float(np.sum(weights * weights)) + self.C * float(margins.max(axis=1).sum())


def ours_weights(model):
    """(W,) of our linear joint machine: its primal weights, dense (k, d)."""
    weights = model.machines_.weights
    return (weights.toarray() if hasattr(weights, "toarray") else np.asarray(weights),)


def dual_objective(model, scheme):
    """1/2 sum_m beta_m' (K + shift) beta_m + sum_{i, m != y_i} margin beta_im of our fitted
    joint ``model`` (its support-vector pool holds every non-zero dual row)."""
    _, margin, shift = FORMULATIONS[scheme]
    pool = model.machines_.pool if isinstance(model.machines_, PrimalMachines) else model.machines_
    beta = pool.coef.toarray()
    Q = pool.kernel.block(pool.vectors, pool.vectors) + shift
    own = beta[np.arange(len(beta)), pool.groups].sum()
    return 0.5 * float(np.sum(beta * (Q @ beta))) + margin * float(beta.sum() - own)


def run_binary(command):
    """Run ``command``: (stdout, CPU seconds of the child, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return done.stdout, cpu, wall


def predicted_labels(path):
    """Class indices (0-based) from a predict binary's output file."""
    return np.loadtxt(path, dtype=float, ndmin=1).astype(int) - 1


def bsvm(problem, folder):
    """BSVM ``-s 2`` (Crammer & Singer) on ``problem``: a result dict; its objective is the
    ``obj`` it prints."""
    model, out = Path(folder, "bsvm.model"), Path(folder, "bsvm.out")
    stdout, cpu, wall = run_binary([Path(ARGS.bsvm, "bsvm-train"), "-s", 2, "-t", 2, "-g", problem.gamma,
                                    "-c", problem.C, "-e", TOL, "-m", CACHE_MB, problem.train, model])
    run_binary([Path(ARGS.bsvm, "bsvm-predict"), problem.test, model, out])
    found = re.search(r"#iter = (\d+), obj = (\S+)", stdout)
    return {"cpu": cpu, "wall": wall, "objective": float(found.group(2)),
            "iterations": int(found.group(1)), "predicted": predicted_labels(out)}


def liblinear(problem, folder):
    """liblinear ``train -s 4`` (Crammer & Singer, no bias) on ``problem``: a result dict; its
    objective is the primal at the weights of its model file."""
    model, out = Path(folder, "liblinear.model"), Path(folder, "liblinear.out")
    stdout, cpu, wall = run_binary([Path(ARGS.liblinear, "train"), "-s", 4, "-c", problem.C,
                                    "-e", TOL, problem.train, model])
    run_binary([Path(ARGS.liblinear, "predict"), problem.test, model, out])
    found = re.search(r"#iter = (\d+)", stdout)
    return {"cpu": cpu, "wall": wall, "objective": problem.primal(liblinear_weights(model)),
            "iterations": int(found.group(1)) if found else None, "predicted": predicted_labels(out)}


def liblinear_weights(path):
    """The (k, d) weights of a liblinear multiclass model file, rows in class order 1..k."""
    lines = Path(path).read_text().splitlines()
    labels = np.array(next(line for line in lines if line.startswith("label")).split()[1:], int)
    start = lines.index("w") + 1
    weights = np.array([line.split() for line in lines[start:] if line.strip()], float)
    return weights.T[np.argsort(labels)]


def row(problem, name, reference, ours, pair):
    """One printed line: ``pair`` = (reference label, our label)."""
    differing = int(np.sum(reference["predicted"] != ours["predicted"]))
    errors = [float(np.mean(side["predicted"] != problem.y_test)) for side in (reference, ours)]
    objective = [f"{side['objective']:.4f}" if side["objective"] is not None else "-"
                 for side in (reference, ours)]
    return (f"{name}\t{pair[0]}\t{pair[1]}\t{reference['cpu']:.2f}\t{ours['cpu']:.2f}\t"
            f"{reference['cpu'] / ours['cpu']:.2f}\t{reference['wall']:.2f}\t{ours['wall']:.2f}\t"
            f"{objective[0]}\t{objective[1]}\t{differing}\t{errors[0]:.4f}\t{errors[1]:.4f}\t"
            f"{reference['iterations']}\t{ours['iterations']}")


def compare(name, folder):
    """Every pair of one set, interleaved, printed as they finish."""
    problem = Problem(name, folder)
    if problem.gamma is None:
        if ARGS.liblinear:
            reference = liblinear(problem, folder)
            print(row(problem, name, reference, problem.ours("cs"), ("liblinear -s 4", "cs linear")), flush=True)
        return
    reference = bsvm(problem, folder) if ARGS.bsvm else None
    cs = problem.ours("cs")
    if reference:
        print(row(problem, name, reference, cs, ("BSVM -s 2", "cs")), flush=True)
    print(row(problem, name, problem.ours("maxwins"), cs, ("maxwins", "cs")), flush=True)
    print(row(problem, name, cs, problem.ours("ww"), ("cs", "ww")), flush=True)


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bsvm", help="directory of BSVM's bsvm-train and bsvm-predict")
    parser.add_argument("--liblinear", help="directory of liblinear's train and predict")
    parser.add_argument("--sets", nargs="+", default=["satimage", "letter5000", "dna-linear"],
                        choices=list(SETS))
    parser.add_argument("--repeats", type=int, default=1)
    ARGS = parser.parse_args()
    for scheme in ("cs", "ww"):  # compile (or load) the solver before any timing
        SCHEMES[scheme](C=1.0).fit(*scaled_rows("satimage", 200)[:2])
    print(f"# {datetime.date.today()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f}; CPU s of one thread (BLAS on one thread), reference/ours ratio")
    print("set\treference\tours\tref_cpu\tours_cpu\tcpu_ratio\tref_wall\tours_wall\tref_objective\t"
          "ours_objective\tdiffering_predictions\tref_error\tours_error\tref_iter\tours_iter")
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(ARGS.repeats):
            for name in ARGS.sets:
                compare(name, folder)


ARGS = None

if __name__ == "__main__":
    main()
