"""A run's full-grid time extrapolated from the part of the grid it ran (its grid.csv).

    python scripts/extrapolate_grid.py RUN_DIR --points 225

Per dataset: the grid points the run scored, the fit and predict wall seconds they took
(summed over the schemes, folds and repeats as grid.csv records them: task seconds, not
elapsed time; Max Wins' shared fit counts for DAGSVM too), and that sum scaled to ``--points``
grid points per dataset, with each scheme's fit CPU seconds likewise. The extrapolation assumes
the missing points cost what the run's did on average (the grid's corners can belie it).
"""

import argparse
from pathlib import Path

import pandas as pd


def extrapolate(run_dir, points) -> pd.DataFrame:
    grid = pd.read_csv(Path(run_dir) / "grid.csv")
    grid["point"] = list(zip(grid["kernel"], grid["C"]))
    rows = []
    for dataset, part in grid.groupby("dataset", sort=False):
        run = part["point"].nunique()
        wall = float(part["fit_wall"].sum() + part["predict_wall"].sum())
        by_scheme = part.groupby("scheme")["fit_cpu"].sum() * points / run
        rows.append({"dataset": dataset, "points run": run, "task wall s (measured)": round(wall, 1),
                     f"task wall s at {points} points (extrapolated)": round(wall * points / run),
                     **{f"{s} fit CPU s at {points} (extrapolated)": round(v)
                        for s, v in by_scheme.items()}})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--points", type=int, default=225)
    args = parser.parse_args()
    print(extrapolate(args.run_dir, args.points).to_markdown(index=False))
