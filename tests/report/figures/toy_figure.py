"""A toy figure kind, registered in this one file and nowhere else (tests/report/figures/test_figure_registry.py).

Per dataset, a bar per scheme of its test errors as counts over the test points.
"""

from matplotlib.figure import Figure

from multisvm_cli.report.figures import figure
from multisvm_cli.report.figures.base import figure_path
from multisvm_cli.report.figures.drawing import save_figure

NAME = "toy-errors"
CAPTION = "Toy: each scheme's test errors, counted over the dataset's test points."
DRAWN = {}  # {dataset: {scheme: errors}}, what the last drawing drew


@figure(NAME, reads=("table_rows",), caption=CAPTION, title="Toy errors", order=35)
def draw(data, folder, fmt, dpi):
    paths = []
    for dataset in dict.fromkeys(r["dataset"] for r in data.table_rows):
        rows = [r for r in data.table_rows if r["dataset"] == dataset and r.get("n_test")]
        counts = {r["scheme"]: round(r["error_pct"] * r["n_test"] / 100) for r in rows}
        DRAWN[dataset] = counts
        fig = Figure(figsize=(3.0, 2.0))
        fig.add_subplot().bar(list(counts), list(counts.values()))
        paths.append(save_figure(fig, figure_path(folder, NAME, fmt, dataset), dpi))
    return paths
