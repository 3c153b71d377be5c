"""BLAS threads in the all-together solver, phase by phase: wall and CPU seconds of one fit.

One fit of Crammer & Singer (``cs``) or Weston & Watkins (``ww``) at each case (satimage's
4,435 training rows at gamma 1, C 16; Letter's first 5,000 rows at gamma 4, C 16; Letter's
first 15,000 with ``--large``, where K(X, X) no longer fits the 200 MB cache and rows are
computed one at a time), inputs scaled to [-1, 1] on the training rows (Hsu & Lin), with BLAS
limited to 1 and to 2 threads for the whole fit (threadpoolctl), run alone and then two
identical fits side by side in two processes (what ``-j 2`` with a process backend does; the
thread backend already gives each grid task one BLAS thread).  The solver's phases are timed
by wrapping them: the Gram matrix (``Kernel.gram``), kernel rows (``KernelRows.fetch``), the
gradient's reconstruction after unshrinking (``reconstruct``) and the Newton steps; the rest
is the compiled steps.  Printed per case, threads and side-by-side: wall and CPU seconds of
the fit and of each phase (CPU: the process's, every thread of it).

The solver's own BLAS settings apply inside (:mod:`multisvm_cli.estimators.joint.decomposition.solver`), so
after a change this measures the chosen threading, not the limit set here, for the phases it
pins.  Usage: python benchmarks/joint_threads.py [--large] [--blas 1 2] [--at-once 1 2]
"""

import argparse
import multiprocessing
import time
from collections import defaultdict

from threadpoolctl import threadpool_limits

from all_together import scaled_rows
from joint_references import SETS
from multisvm_cli.estimators.cs import CrammerSingerSVC
from multisvm_cli.estimators.ww import WestonWatkinsSVC
from multisvm_cli.estimators import kernels
from multisvm_cli.estimators.joint.decomposition import kernel_rows, newton, solver

SCHEMES = {"cs": CrammerSingerSVC, "ww": WestonWatkinsSVC}
# case -> (joint_references' set, scheme)
CASES = {f"{name}-{scheme}": (name, scheme) for name in ("satimage", "letter5000") for scheme in SCHEMES}
LARGE = {"letter15000-cs": ("letter15000", "cs")}
PHASES = (("gram", kernels.Kernel, "gram"), ("rows", kernel_rows.KernelRows, "fetch"),
          ("reconstruct", solver, "reconstruct"), ("newton", newton, "newton_step"))


def timed(owner, name, totals):
    """Wrap ``owner.name`` so that each call adds its wall and CPU seconds to totals[name]."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            totals[name][0] += time.perf_counter() - wall
            totals[name][1] += time.process_time() - cpu

    setattr(owner, name, wrapper)


def fit_case(case, blas):
    """One fit of ``case`` with BLAS limited to ``blas`` threads: phase -> [wall, cpu]."""
    name, scheme = {**CASES, **LARGE}[case]
    dataset, n_rows, gamma, C = SETS[name]
    X, y = scaled_rows(dataset, n_rows)[:2]
    totals = defaultdict(lambda: [0.0, 0.0])
    for label, owner, name in PHASES:
        timed(owner, name, totals)
    SCHEMES[scheme](C=C, gamma=gamma).fit(X[:200], y[:200])  # compile before timing
    totals.clear()
    with threadpool_limits(limits=blas, user_api="blas"):
        wall, cpu = time.perf_counter(), time.process_time()
        SCHEMES[scheme](C=C, gamma=gamma).fit(X, y)
        totals["fit"] = [time.perf_counter() - wall, time.process_time() - cpu]
    return {label: totals[name] for label, _, name in PHASES} | {"fit": totals["fit"]}


def run(case, blas, side_by_side):
    """The phase times of one fit, or of each of two fits run at once in two processes."""
    with multiprocessing.get_context("spawn").Pool(2 if side_by_side else 1) as pool:
        return pool.starmap(fit_case, [(case, blas)] * (2 if side_by_side else 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also Letter's first 15,000 rows")
    parser.add_argument("--blas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--at-once", type=int, nargs="+", default=[1, 2], choices=[1, 2],
                        help="fits run alone (1), side by side (2)")
    parser.add_argument("--cases", nargs="+", default=None, choices=[*CASES, *LARGE])
    args = parser.parse_args()
    cases = args.cases or [*CASES, *(LARGE if args.large else {})]
    names = ["fit"] + [label for label, _, _ in PHASES]
    print("case\tblas\tfits_at_once\t" + "\t".join(f"{n}_wall\t{n}_cpu" for n in names))
    for case in cases:
        for side_by_side in (at_once == 2 for at_once in args.at_once):
            for blas in args.blas:
                for phases in run(case, blas, side_by_side):
                    print(f"{case}\t{blas}\t{2 if side_by_side else 1}\t" + "\t".join(
                        f"{phases[n][0]:.2f}\t{phases[n][1]:.2f}" for n in names), flush=True)


if __name__ == "__main__":
    main()
