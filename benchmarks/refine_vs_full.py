"""The coarse-to-fine search (``refine: true``, compare's default) against Hsu & Lin's whole
15 x 15 grid (compare's ``--full``), side by side (issue #55, item 4).

For each dataset, two configs as ``multisvm compare`` writes them (Gaussian kernel; gamma
2^4 .. 2^-10 and C 2^12 .. 2^-2; each fold's point chosen on a 70/30 split of its training
part; the dataset's own train/test split, else 5 stratified folds; standard scaling, maxabs
for dna's svmlight files), one on the 3 x 3 grid refined, one on all 225 points, each run by
``multisvm reproduce-table`` in a fresh folder (no resume cache). Printed: per dataset the
grid points x schemes each scored (the fits of selection), the CPU seconds of the whole run
(user + system of the child process) and the wall seconds, with refine's ratios to full; per
scheme the test error of both and their difference in points (the goal: within 0.3 points,
at no more than a third of the fits).

Usage: MULTISVM_MIRROR=../shared/datasets python benchmarks/refine_vs_full.py \\
           [--datasets wine,vowel] [--schemes ovr,maxwins,dag] [-j 1]
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

FIXED_SPLIT = {"dna", "satimage", "vowel"}  # their own train/test parts
SPARSE = {"dna"}  # read from svmlight: compare scales such a file by maxabs


def config(dataset, schemes, full) -> dict:
    """compare's config on a registry ``dataset``: the 3 x 3 grid refined, or the whole grid."""
    step = -1 if full else -7
    return {"name": f"{'full' if full else 'refine'}-{dataset}", "dataset": [dataset],
            "scaling": "maxabs" if dataset in SPARSE else "standard",
            "split": ({"method": "standard"} if dataset in FIXED_SPLIT
                      else {"method": "kfold", "k": 5, "seed": 0}),
            "validation": {"method": "holdout", "train_fraction": 0.7, "seed": 0},
            "estimate": "nested",
            "kernels": [{"type": "gaussian",
                         "gamma": {"base": 2, "from": 4, "to": -10, "step": step}}],
            "C": {"base": 2, "from": 12, "to": -2, "step": step},
            **({} if full else {"refine": True}),
            "schemes": schemes, "seed": 0}


def run(document, folder, jobs) -> dict:
    """Run ``document`` in ``folder``: its grid rows, test errors, CPU and wall seconds."""
    path = Path(folder) / f"{document['name']}.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "multisvm_cli", "reproduce-table", str(path), "--out",
                    str(Path(folder) / "out"), "-q", "--no-figures", "-j", str(jobs)],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    run_folder = Path(folder) / "out" / document["name"] / "latest"
    grid = pd.read_csv(run_folder / "grid.csv")
    results = json.loads((run_folder / "results.json").read_text())["results"]
    return {"rows": len(grid), "computed": int((~grid["cached"]).sum()),
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "wall": wall, "errors": {r["scheme"]: 100.0 * r["n_errors"] / r["n_test"]
                                     for r in results}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="wine,vowel")
    parser.add_argument("--schemes", default="ovr,maxwins,dag")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args()
    schemes = args.schemes.split(",")
    totals, lines = [], []
    for dataset in args.datasets.split(","):
        measured = {}
        for full in (True, False):
            with tempfile.TemporaryDirectory(prefix="refine-bench-") as folder:
                measured[full] = run(config(dataset, schemes, full), folder, args.jobs)
        full, fine = measured[True], measured[False]
        totals.append((dataset, full["rows"], fine["rows"], fine["rows"] / full["rows"],
                       full["cpu"], fine["cpu"], fine["cpu"] / full["cpu"], full["wall"],
                       fine["wall"]))
        lines += [(dataset, s, full["errors"][s], fine["errors"][s],
                   fine["errors"][s] - full["errors"][s]) for s in schemes]
        print(f"{dataset}: done", file=sys.stderr, flush=True)
    print(pd.DataFrame(totals, columns=[
        "dataset", "fits full", "fits refine", "fits ratio", "CPU s full", "CPU s refine",
        "CPU ratio", "wall s full", "wall s refine"]).round(3).to_string(index=False))
    print()
    print(pd.DataFrame(lines, columns=["dataset", "scheme", "error % full", "error % refine",
                                       "refine - full"]).round(2).to_string(index=False))


if __name__ == "__main__":
    main()
