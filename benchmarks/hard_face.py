"""The all-together solver on its hard face (issue 57): this tree's solver against a baseline
commit's, side by side in one run.

Letter's first N training rows (5,000 by default; ``--rows``) scaled to [-1, 1] on those rows
(Hsu & Lin's scaling), one cold solve each of Crammer & Singer's dual at gamma 2^-10, C 2^12
and Weston & Watkins' at gamma 2^-9, C 2^10 (the corner of Hsu & Lin's grid that held most of
the study's CPU: a kernel close to a constant and a large C), tol 1e-3, cache 200 MB, BLAS on
one thread (OMP/OPENBLAS/MKL_NUM_THREADS=1 for every process).  Each solve runs in its own
process: the baseline's from a checkout of the baseline commit (``--baseline``, a folder, e.g.
``git worktree add --detach /work/wt/base 92b0f04``), this tree's from here, one after the
other.  Printed per scheme: each solver's CPU seconds (``time.process_time`` around
``solve_dual``), steps and status, the CPU ratio (baseline / this tree), the dual objectives'
relative difference with the largest that tol allows (|f - f'| <= tol / 2 ||beta - beta'||_1,
by convexity), and how many of Letter's test rows both predict the same class.

The first solve in a fresh environment compiles the solver (numba, cached on disk afterwards):
a warm-up solve on 200 rows runs in each process first, so that no timing includes it.

Usage: OMP_NUM_THREADS=1 MULTISVM_MIRROR=../shared/datasets python benchmarks/hard_face.py
           --baseline /work/wt/base [--rows 5000] [--schemes cs ww]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

CORNERS = {"cs": (2.0**-10, 2.0**12), "ww": (2.0**-9, 2.0**10)}  # scheme: (gamma, C)
TOL, CACHE_MB, MEMORY_MB = 1e-3, 200.0, 2048.0
THREADS = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def letter_rows(n_rows):
    """(X, y, X_test, y_test): Letter's first ``n_rows`` training rows and its test part, scaled
    to [-1, 1] with those rows' min / max; y as class indices."""
    from sklearn.preprocessing import MinMaxScaler

    from multisvm_cli import data

    parts = data.load("letter").parts
    (X, labels), (X_test, test_labels) = parts["train"], parts["test"]
    scaler = MinMaxScaler((-1, 1)).fit(X[:n_rows])
    classes, y = np.unique(labels[:n_rows], return_inverse=True)
    return (scaler.transform(X[:n_rows]), y, scaler.transform(X_test),
            np.searchsorted(classes, test_labels))


def solver():
    """solve_dual and TrainSettings of the multisvm_cli this process imports (the joint solver
    moved into joint/decomposition/ after 92b0f04)."""
    from multisvm_cli.estimators._binary import TrainSettings
    try:
        from multisvm_cli.estimators.joint.decomposition.solver import solve_dual
    except ImportError:
        from multisvm_cli.estimators.joint.solver import solve_dual
    return solve_dual, TrainSettings


def work(args):
    """One process's solve: warm-up, then the timed cold solve; beta and figures to ``--out``."""
    import time

    from multisvm_cli.estimators.kernels import Kernel

    solve_dual, TrainSettings = solver()
    X, y, _, _ = letter_rows(args.rows)
    gamma, C = CORNERS[args.scheme]
    kernel = Kernel.from_params("gaussian", gamma=gamma)
    solve_dual(X[:200], y[:200], y.max() + 1, args.scheme, TrainSettings(kernel, 1.0, TOL, CACHE_MB, MEMORY_MB))
    started = time.process_time()
    solution = solve_dual(X, y, y.max() + 1, args.scheme,
                          TrainSettings(kernel, C, TOL, CACHE_MB, MEMORY_MB))
    cpu = time.process_time() - started
    np.save(args.out + ".npy", solution.beta)
    with open(args.out + ".json", "w") as handle:
        json.dump({"tree": os.path.dirname(os.path.dirname(sys.modules["multisvm_cli"].__file__)),
                   "cpu_s": cpu, "steps": int(solution.n_iter), "status": int(solution.status)}, handle)


def run_worker(tree, scheme, rows, out):
    """Run :func:`work` in a fresh process importing multisvm_cli from ``tree`` (None: this
    one); returns its figures and beta."""
    env = {**os.environ, **THREADS}
    command = [sys.executable, __file__, "--worker", scheme, "--rows", str(rows), "--out", out]
    if tree is not None:
        command[1:1] = ["-c", _FROM_TREE.format(tree=tree)]
    subprocess.run(command, env=env, check=True)
    with open(out + ".json") as handle:
        figures = json.load(handle)
    return figures, np.load(out + ".npy")


# A -c program that imports multisvm_cli from another checkout: the editable install's finder
# (first on sys.meta_path) is dropped, the checkout put first on sys.path.
_FROM_TREE = ("import runpy, sys; sys.meta_path = [f for f in sys.meta_path if 'editable' not in "
              "getattr(f, '__module__', '') + str(f)]; sys.path.insert(0, {tree!r}); "
              "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")


def compare(scheme, rows, base, mine):
    """The printed line of one scheme: both solves' figures, objectives and predictions."""
    from multisvm_cli.estimators.kernels import Kernel

    X, y, X_test, y_test = letter_rows(rows)
    gamma, _ = CORNERS[scheme]
    kernel = Kernel.from_params("gaussian", gamma=gamma)
    shift, margin = (0.0, 1.0) if scheme == "cs" else (1.0, 2.0)
    Q = kernel.gram(X) + shift
    objectives = []
    for _, beta in (base, mine):
        E = np.full(beta.shape, margin)
        E[np.arange(len(y)), y] = 0.0
        objectives.append(0.5 * np.sum(beta * (Q @ beta)) + np.sum(E * beta))
    del Q
    scores = [(kernel.block(X_test, X) + shift) @ beta for _, beta in (base, mine)]
    agree = float(np.mean(scores[0].argmax(1) == scores[1].argmax(1)))
    bound = TOL / 2 * np.abs(base[1] - mine[1]).sum() / abs(objectives[0])
    (b, _), (m, _) = base, mine
    print(f"# {scheme}: baseline solver from {b['tree']}, this one from {m['tree']}")
    print(f"{scheme}\t{rows}\t{b['cpu_s']:.1f}\t{m['cpu_s']:.1f}\t{b['cpu_s'] / m['cpu_s']:.2f}x\t"
          f"{b['steps']}\t{m['steps']}\t{b['status']}/{m['status']}\t"
          f"{abs(objectives[1] - objectives[0]) / abs(objectives[0]):.1e}\t{bound:.1e}\t"
          f"{agree:.4f}\t{float(np.mean(scores[1].argmax(1) == y_test)):.4f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a checkout of the baseline commit")
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--schemes", nargs="+", default=list(CORNERS), choices=list(CORNERS))
    parser.add_argument("--worker", choices=list(CORNERS), dest="scheme", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scheme:
        return work(args)
    if not args.baseline:
        parser.error("--baseline is required")
    print("scheme\trows\tbase_cpu_s\tcpu_s\tratio\tbase_steps\tsteps\tstatus(1=converged)\t"
          "rel_objective_diff\tits_tol_bound\ttest_agreement\ttest_accuracy")
    with tempfile.TemporaryDirectory() as folder:
        print(f"# baseline from {args.baseline}, this tree {os.path.dirname(os.path.dirname(__file__)) or '.'}")
        for scheme in args.schemes:
            base = run_worker(args.baseline, scheme, args.rows, os.path.join(folder, "base"))
            mine = run_worker(None, scheme, args.rows, os.path.join(folder, "mine"))
            compare(scheme, args.rows, base, mine)


if __name__ == "__main__":
    main()
