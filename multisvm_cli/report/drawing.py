"""Writing a figure: PNG, SVG or PDF at a chosen DPI, atomically; fixed margins; file-name slugs.

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

DPI = 150                         # the figures' default resolution (PNG pixels per inch)
FIGURE_FORMATS = ("png", "svg", "pdf")
NO_DATE = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}


def save_figure(fig: Figure, path, dpi=None) -> Path:
    """Render ``fig`` in the format of ``path``'s suffix (png, svg or pdf) at ``dpi`` [DPI] and
    write it atomically (a temporary file renamed into place, with the umask's permissions:
    :func:`storage.atomic_write`); vector files carry no date, so a redraw is byte-identical."""
    fmt = Path(path).suffix.lstrip(".")
    if fmt not in FIGURE_FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; allowed: {', '.join(FIGURE_FORMATS)}")
    FigureCanvasAgg(fig)
    data = io.BytesIO()
    fig.savefig(data, format=fmt, dpi=dpi or DPI, metadata=NO_DATE[fmt])
    return atomic_write(path, data.getvalue())


def margins(width, height, *, left, right, bottom, top) -> dict:
    """``subplots_adjust`` fractions for margins given in inches (no layout engine: it would
    measure and draw every figure twice)."""
    return {"left": left / width, "right": 1 - right / width, "bottom": bottom / height,
            "top": 1 - top / height}


def slug(text) -> str:
    """A file-name-safe form of a dataset or scheme name."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", str(text)).strip("_") or "_"

