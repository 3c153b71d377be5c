"""``multisvm report``: a run folder's figures and report.html made again from its saved files.

The run draws both once its files are written (``experiment.runs``); :func:`rebuild_report`
draws them again (after a restyle, or when they were deleted) without re-running anything.
Both read the files through the one checked reader (:mod:`multisvm_cli.report.run_folder`), so
both give the same figures, and a folder whose files are not what a run writes is refused with
one line naming the file.

A config's results folder (``results/<config>``) stands for its latest run: the ``latest``
link that each run points at its own folder (:func:`link_latest`), or else the newest
timestamp folder holding a run.json.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...base.errors import MultisvmError

LATEST = "latest"


def rebuild_report(folder, figure_format="png", dpi=None, figures=True) -> list[Path]:
    """Redraw ``folder/figures/`` and rewrite ``folder/report.html`` from the run's saved
    files; returns the paths written (the figures, then report.html). ``folder`` may be a
    config's results folder (its latest run). A folder whose files fail the checked reader is
    refused before anything is rewritten."""
    from ...report.figures import write_figures
    from ...report.html import write_report
    from ...report.run_folder import check_run

    folder = run_folder(folder)
    check_run(folder)
    drawn = write_figures(folder, figure_format, dpi) if figures else []
    return drawn + [write_report(folder)]


def run_folder(given) -> Path:
    """The run folder ``given`` names: itself when it holds run.json, else (a config's results
    folder) its ``latest`` link or its newest run."""
    folder = Path(given)
    if (folder / "run.json").is_file() or not folder.is_dir():
        return folder
    if (folder / LATEST / "run.json").is_file():
        return (folder / LATEST).resolve()
    runs = sorted(p for p in folder.iterdir()
                  if p.is_dir() and p.name != LATEST and (p / "run.json").is_file())
    if not runs:
        raise MultisvmError(f"{folder}: neither a run folder (no run.json) nor a config's "
                            "results folder with runs; give results/<config> or "
                            "results/<config>/<timestamp>")
    return runs[-1]


def link_latest(folder) -> Path | None:
    """Point ``<config folder>/latest`` at the run ``folder`` (a relative symlink, replaced
    atomically); None where the file system has no symlinks."""
    folder = Path(folder)
    link = folder.parent / LATEST
    temporary = folder.parent / f".{LATEST}.{os.getpid()}"
    try:
        if temporary.is_symlink():
            temporary.unlink()
        os.symlink(folder.name, temporary, target_is_directory=True)
        os.replace(temporary, link)
    except OSError:
        return None
    return link
