"""Where a run's grid time goes: fit CPU seconds of grid.csv by gamma and by C, and reuse.

Reads one or more run folders' grid.csv (``multisvm reproduce-table`` output) and prints, per
dataset: the fit CPU seconds summed over folds, estimates and schemes for each gamma and each C
(with their share of the total), the five costliest (gamma, C) points, and how many binary
machines reuse across C handed out (``n_reused_machines``) against the machines the grid fits:
k classes give k machines for 1-v-r, k(k-1)/2 for Max Wins (DAGSVM shares them and is not
counted again), and sum over r = k..2 of (r + 1) for UDT (r one-vs-rest candidates and the
chosen node's machine at each level, an upper bound when a two-class level fits one machine).

Usage: python benchmarks/grid_time.py RUN_FOLDER... [--classes vowel=11,segment=7]
"""

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

CLASSES = {"iris": 3, "wine": 3, "glass": 6, "vowel": 11, "vehicle": 4, "segment": 7,
           "letter": 26}


def machines_per_fit(scheme, k):
    """Binary machines one fit of ``scheme`` trains on k classes (0: shared with another)."""
    return {"ovr": k, "maxwins": k * (k - 1) // 2,
            "udt": sum(r + 1 for r in range(2, k + 1))}.get(scheme, 0)


def read_rows(folders):
    rows = []
    for folder in folders:
        with open(Path(folder) / "grid.csv", newline="") as handle:
            rows += list(csv.DictReader(handle))
    return rows


def summarize(rows, classes):
    """{dataset: figures} from grid.csv rows."""
    out = {}
    for dataset in sorted({row["dataset"] for row in rows}):
        by_gamma, by_C, by_point = defaultdict(float), defaultdict(float), defaultdict(float)
        reused = machines = 0
        for row in (r for r in rows if r["dataset"] == dataset):
            cpu = float(row["fit_cpu"] or 0.0)
            gamma, C = float(row["gamma"]) if row["gamma"] else row["kernel"], float(row["C"])
            by_gamma[gamma] += cpu
            by_C[C] += cpu
            by_point[gamma, C] += cpu
            per_fit = machines_per_fit(row["scheme"], classes[dataset])
            if per_fit:
                reused += int(row["n_reused_machines"] or 0)
                machines += per_fit
        out[dataset] = {"by_gamma": dict(by_gamma), "by_C": dict(by_C),
                        "by_point": dict(by_point), "reused": reused, "machines": machines,
                        "total": sum(by_gamma.values())}
    return out


def label(value):
    """2^k for a number (gamma, C), the kernel's own name otherwise."""
    return f"2^{np.log2(value):g}" if isinstance(value, float) else str(value)


def print_summary(summary):
    for dataset, figures in summary.items():
        total = figures["total"] or 1.0
        print(f"{dataset}: fit CPU {figures['total']:.1f} s; machines reused "
              f"{figures['reused']} of {figures['machines']} "
              f"({100.0 * figures['reused'] / max(figures['machines'], 1):.1f}%)")
        for key, name in (("by_gamma", "gamma"), ("by_C", "C")):
            cells = [f"{label(v)}: {s:.1f} s ({100 * s / total:.0f}%)"
                     for v, s in sorted(figures[key].items(), key=lambda item: str(item[0])
                                        if not isinstance(item[0], float) else f"{item[0]:020.6f}")]
            print(f"  by {name}: " + ", ".join(cells))
        top = sorted(figures["by_point"].items(), key=lambda item: -item[1])[:5]
        print("  costliest points: " + ", ".join(
            f"({label(g)}, C {label(c)}) {s:.1f} s" for (g, c), s in top))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="run folders holding grid.csv")
    parser.add_argument("--classes", default="", help="extra NAME=K pairs, comma-separated")
    args = parser.parse_args(argv)
    classes = dict(CLASSES)
    for pair in filter(None, args.classes.split(",")):
        name, k = pair.split("=")
        classes[name.strip()] = int(k)
    print_summary(summarize(read_rows(args.folders), classes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
