"""``multisvm report``: a run folder's figures and report.html made again from its saved files.

The run draws both once its files are written (``experiment.runs``); :func:`rebuild_report`
draws them again (after a restyle, or when they were deleted) without re-running anything.
Both read the files through the one checked reader (:mod:`multisvm_cli.report.run_folder`), so
both give the same figures, and a folder whose files are not what a run writes is refused with
one line naming the file.
"""

from __future__ import annotations

from pathlib import Path


def rebuild_report(folder) -> list[Path]:
    """Redraw ``folder/figures/`` and rewrite ``folder/report.html`` from the run's saved
    files; returns the paths written (the figures, then report.html). A folder whose files
    fail the checked reader is refused before anything is rewritten."""
    from ..report.figures import write_figures
    from ..report.html import write_report
    from ..report.run_folder import check_run

    check_run(folder)
    return write_figures(folder) + [write_report(folder)]
