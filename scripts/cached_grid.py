"""What a config's resume cache holds of one dataset's grid: the measured part of a study that
has not finished (an interrupted run writes no grid.csv, but every finished grid point is in
the cache).

    python scripts/cached_grid.py RESULTS/CONFIG/cache DATASET [--code DIGEST]

Per scheme and kernel (a Gaussian's gamma as 2^k, the largest first): the grid points cached
and the sum of their fits' CPU seconds (``fit_cpu`` of each entry: one selection fit per point
and fold, Max Wins' shared fit counted for DAGSVM too, as grid.csv counts it), then each
scheme's total. Entries computed by other code (another ``versions.code`` digest,
:mod:`multisvm_cli.base.code_digest`) are left out when ``--code`` names one; without it the
script refuses a cache whose entries for the dataset mix digests. Each entry is read as a run
reads it (:class:`multisvm_cli.base.storage.PointCache` with the run's check of a result): one
that a run would refuse and recompute (unreadable, filed under another key's name, or a
malformed result) is left out, and their number is said on stderr.
"""

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from multisvm_cli.base.readers import read_json  # noqa: E402
from multisvm_cli.base.storage import MAX_ENTRY_BYTES, PointCache  # noqa: E402
from multisvm_cli.estimators import registry  # noqa: E402
from multisvm_cli.experiment.protocol.cache import check_point_result  # noqa: E402


def entries(cache, dataset):
    """(key, result) of every cache entry of ``dataset`` that a run would use (see the module
    docstring); the others are counted on stderr."""
    store, refused = PointCache(cache, check=check_point_result), 0
    for path in sorted(Path(cache).glob("*.json")):
        try:
            key = read_json(path, MAX_ENTRY_BYTES, ValueError, "resume-cache entry")["key"]
            wanted = key["dataset"] == dataset
            result = store.get(key, None, registry.get(key["scheme"]).figures) if wanted else None
        except (ValueError, TypeError, KeyError):
            wanted, result = True, None
        if wanted and result is None:
            refused += 1
        elif wanted:
            yield key, result
    if refused:
        print(f"{cache}: {refused} entries a run would refuse were left out", file=sys.stderr)


def kernel_name(point) -> str:
    """A point's kernel: gaussian 2^k for a Gaussian's gamma, else its parameters."""
    if point.get("kernel") == "gaussian" and point.get("gamma"):
        return f"gaussian 2^{math.log2(point['gamma']):g}"
    return ", ".join(f"{name} {value}" for name, value in point.items() if name != "C")


def summary(cache, dataset, code=None) -> pd.DataFrame:
    """One row per (scheme, kernel): points cached and their fit CPU seconds."""
    points, cpu, digests, gammas = defaultdict(int), defaultdict(float), set(), {}
    for key, result in entries(cache, dataset):
        digest = key["versions"]["code"]
        if code is not None and digest != code:
            continue
        digests.add(digest)
        cell = (key["scheme"], kernel_name(key["point"]))
        gammas[cell[1]] = key["point"].get("gamma") or 0.0
        points[cell] += 1
        cpu[cell] += result["fit_cpu"]
    if len(digests) > 1:
        raise SystemExit(f"{dataset}: entries of {len(digests)} code digests "
                         f"({', '.join(sorted(digests))}); name one with --code")
    table = pd.DataFrame([{"scheme": scheme, "kernel": kernel, "gamma": gammas[kernel],
                           "points": points[(scheme, kernel)],
                           "fit CPU s": round(cpu[(scheme, kernel)], 1)}
                          for scheme, kernel in points])
    return table.sort_values("gamma", ascending=False, kind="stable").drop(columns="gamma")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache", help="RESULTS/CONFIG/cache")
    parser.add_argument("dataset")
    parser.add_argument("--code", help="only entries of this code digest")
    args = parser.parse_args(argv)
    table = summary(args.cache, args.dataset, args.code)
    if table.empty:
        sys.exit(f"{args.cache}: no entry for {args.dataset}")
    wide = table.pivot_table(index="kernel", columns="scheme", values=["points", "fit CPU s"],
                             sort=False)
    wide.columns = [f"{scheme} {what}" for what, scheme in wide.columns]
    print(wide.fillna(0).to_markdown())
    totals = table.groupby("scheme", sort=False)[["points", "fit CPU s"]].sum()
    print()
    print(totals.to_markdown())


if __name__ == "__main__":
    main()
