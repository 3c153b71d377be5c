"""Writing a figure: PNG at a fixed DPI, atomically; fixed margins in inches; file-name slugs.

Every figure of a run is a ``matplotlib.figure.Figure`` rendered by the Agg canvas (no pyplot, no
global state: safe from several threads), laid out by hand with fixed margins in inches (a
layout engine measures every text and draws each figure twice), and written to a temporary file
renamed into place.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..storage import atomic_write

DPI = 100


def save_figure(fig: Figure, path) -> Path:
    """Render ``fig`` as a PNG at ``DPI`` and write it atomically to ``path`` (a temporary file
    renamed into place, with the umask's permissions: :func:`storage.atomic_write`)."""
    FigureCanvasAgg(fig)
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=DPI, metadata={"Software": None})
    return atomic_write(path, png.getvalue())


def margins(width, height, *, left, right, bottom, top) -> dict:
    """``subplots_adjust`` fractions for margins given in inches (no layout engine: it would
    measure and draw every figure twice)."""
    return {"left": left / width, "right": 1 - right / width, "bottom": bottom / height,
            "top": 1 - top / height}


def slug(text) -> str:
    """A file-name-safe form of a dataset or scheme name."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", str(text)).strip("_") or "_"

