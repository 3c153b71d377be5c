"""The figure registry: every figure of a run is one :class:`FigureKind`, registered by its module.

A kind says what it is called, what it reads from the run folder, how it is drawn and how it is
read (its caption); three things read the registry and nothing else knows the figures:

- :func:`draw_figures` / :func:`write_figures` draw every registered kind whose data the run has;
- :func:`stale_figures` finds the files of an earlier drawing that this one did not make again;
- ``report.html`` (:mod:`..html`) shows each kind's files under its title with its caption.

Adding a figure is one new module in this package (found and imported by the package, see
``__init__``) that decorates its drawing function with :func:`figure`::

    @figure("my-figure", reads=("table_rows",), caption="What the reader sees and how to read it.")
    def my_figure(data, folder, fmt, dpi):
        fig = ...                                # a matplotlib Figure from data.table_rows
        return [save_figure(fig, figure_path(folder, "my-figure", fmt, dpi=dpi))]

Files are named ``<name>.<fmt>`` or ``<name>-<part>.<fmt>`` (``part``: a dataset, say), in a
run's ``figures/`` folder. The idea follows benchopt's plot registry (one entry per plot kind
that the result page iterates).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ...base.errors import MultisvmError
from .drawing import FIGURE_FORMATS, slug

# what a figure may read, and the run folder's file each comes from (RunData's fields); a
# figure may also read any other .json or .csv file of the run folder by its name (a file
# another part of the run writes): checked JSON, or a DataFrame of whole CSV rows
FILE_KINDS = (".json", ".csv")
SOURCES = {"results": "results.json", "table_rows": "results.json (table)",
           "chosen": "results.json (results' params)", "ranking": "results.json (ranking)",
           "dag_orders": "results.json (dag_orders)", "grid": "grid.csv", "sweep": "sweep.csv"}


@dataclass(frozen=True)
class FigureKind:
    """One kind of figure: ``name`` (its files' stem, or the stem's start before ``-<part>``),
    ``reads`` (the :data:`SOURCES` it needs: it is drawn only when each is there and not
    empty), ``draw(data, folder, fmt, dpi) -> [paths]``, ``caption`` (how to read it, shown in
    report.html), ``title`` (its section's heading there; None: none), ``order`` (its place in
    report.html, low first), ``section`` ("figures", or "ranking": beside the ranking text) and
    ``folded`` (report.html shows its files folded behind a click: many small figures)."""

    name: str
    reads: tuple
    draw: Callable
    caption: str
    title: str | None = None
    order: int = 100
    section: str = "figures"
    folded: bool = False

    def owns(self, path: Path) -> bool:
        """Whether ``path`` (any format) is one of this kind's files."""
        stem = Path(path).stem
        return Path(path).suffix.lstrip(".") in FIGURE_FORMATS and (
            stem == self.name or stem.startswith(self.name + "-"))


FIGURES: dict[str, FigureKind] = {}


def figure(name, *, reads, caption, title=None, order=100, section="figures", folded=False):
    """Register the decorated ``draw(data, folder, fmt, dpi)`` as the figure kind ``name``.

    Refused (ValueError) when ``reads`` names something the run folder does not give, or when
    ``name`` is taken or would own another kind's files (``a`` and ``a-b``)."""
    unknown = [source for source in reads if not readable(source)]
    if unknown:
        raise ValueError(f"figure {name!r} reads {', '.join(unknown)}; a figure reads only "
                         f"{', '.join(SOURCES)} or a .json or .csv file of the run folder")
    clash = [other for other in FIGURES if other == name or other.startswith(name + "-")
             or name.startswith(other + "-")]
    if clash:
        raise ValueError(f"figure {name!r} clashes with the registered figure {clash[0]!r}: "
                         "each kind's file names must be its own")

    def register(draw):
        FIGURES[name] = FigureKind(name, tuple(reads), draw, caption, title, order, section,
                                   folded)
        return draw

    return register


def readable(source) -> bool:
    """Whether a figure may read ``source``: one of :data:`SOURCES`, or the name of a .json or
    .csv file in the run folder (no folder part)."""
    return source in SOURCES or (isinstance(source, str) and source.endswith(FILE_KINDS)
                                 and Path(source).name == source and not source.startswith("."))


def unregister(name) -> None:
    """Remove the figure kind ``name`` (a test's toy figure, say)."""
    FIGURES.pop(name, None)


def registered() -> list[FigureKind]:
    """Every registered kind in report.html's order (the package's modules imported first)."""
    import importlib

    importlib.import_module(__package__)  # its __init__ imports every figure module
    return sorted(FIGURES.values(), key=lambda kind: (kind.order, kind.name))


def figure_path(folder, name, fmt, part=None) -> Path:
    """``folder/<name>.<fmt>``, or ``folder/<name>-<part>.<fmt>`` with ``part`` made file-safe."""
    stem = name if part is None else f"{name}-{slug(part)}"
    return Path(folder) / f"{stem}.{fmt}"


@dataclass
class RunData:
    """What the figures read: given values, else loaded on first use from ``folder`` through
    the run folder's checked readers (:mod:`..run_folder`); a value the run does not have (a
    ranking of one dataset, a sweep of an unswept run, a file it did not write) is None."""

    folder: Path | None = None
    values: dict = field(default_factory=dict)

    def get(self, name):
        if not readable(name):
            raise KeyError(f"a figure reads only {', '.join(SOURCES)} or a .json or .csv "
                           f"file; not {name!r}")
        if name not in self.values:
            self.values[name] = None if self.folder is None else self._load(name)
        return self.values[name]

    def __getattr__(self, name):  # data.table_rows; only for names not set on the instance
        if name.startswith("_") or name not in SOURCES:
            raise AttributeError(name)
        return self.get(name)

    def _load(self, name):
        from ..run_folder import read_grid, read_results, read_run_file, read_sweep
        from ..verdict import ranking_with_verdict

        if name.endswith(FILE_KINDS):
            return read_run_file(self.folder, name)
        if name == "grid":
            return read_grid(self.folder)
        if name == "sweep":
            return read_sweep(self.folder)
        results = self.get("results") if name != "results" else read_results(self.folder)
        if name == "results":
            return results
        if name == "chosen":
            return {(r["dataset"], r["scheme"]): r["params"] for r in results["results"]}
        if name == "table_rows":
            return results["table"]
        if name == "ranking":
            return ranking_with_verdict(results)  # a run saved before the verdict: computed
        return results.get(name)  # dag_orders

    def has(self, name) -> bool:
        """Whether the run gives ``name``, not empty."""
        value = self.get(name)
        return value is not None and not (hasattr(value, "__len__") and len(value) == 0)


def draw_figures(data: RunData, folder, fmt="png", dpi=None) -> list[Path]:
    """Every registered kind whose sources ``data`` has, drawn into ``folder`` as ``fmt`` files
    (png, svg or pdf) at ``dpi``; returns the paths written."""
    paths = []
    for kind in registered():
        if all(data.has(source) for source in kind.reads):
            paths += kind.draw(data, Path(folder), fmt, dpi)
    return paths


def stale_figures(folder, drawn) -> list[Path]:
    """The files in ``folder`` that some registered kind owns (in any format) but that are not
    among ``drawn``: an earlier drawing's, not made again."""
    kinds = registered()
    drawn = {Path(p) for p in drawn}
    return sorted(p for p in Path(folder).glob("*") if p.is_file() and p not in drawn
                  and any(kind.owns(p) for kind in kinds))


def write_figures(run_folder, fmt="png", dpi=None) -> list[Path]:
    """Every figure of a run, drawn from its saved files, into ``run_folder/figures/`` as
    ``fmt`` files at ``dpi``; files of an earlier drawing not made again (in any format) are
    removed: only files a registered kind owns (:func:`stale_figures`), and never through a
    symlinked ``figures/`` (refused in one line: it would draw and delete outside the run)."""
    figures = Path(run_folder) / "figures"
    if figures.is_symlink() or figures.exists() and not figures.is_dir():
        raise MultisvmError(f"{figures} is a symlink or not a folder; `multisvm report` draws "
                            f"only into a real figures/ folder inside the run: remove it")
    paths = draw_figures(RunData(Path(run_folder)), figures, fmt, dpi)
    if figures.is_dir():
        for stale in stale_figures(figures, paths):
            stale.unlink()
    return paths
