"""Writing a figure: PNG, SVG or PDF at a chosen DPI, atomically; fixed margins; file-name slugs;
the shared styles (a scheme's colour and marker) and tick labels (powers of 2).

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

import numpy as np

from ...estimators.registry import SCHEME_NAMES
from ...base.storage import atomic_write
from ..record import label

DPI = 150                         # the figures' default resolution (PNG pixels per inch)
FIGURE_FORMATS = ("png", "svg", "pdf")
MARKERS = "osD^vP*Xh<>p"
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



def style(scheme):
    """A scheme's colour and marker, the same in every figure (registered schemes first)."""
    from matplotlib import colormaps

    known = list(SCHEME_NAMES)
    i = known.index(scheme) if scheme in known else len(known) + sum(map(ord, str(scheme))) % 5
    return colormaps["tab10"](i % 10), MARKERS[i % len(MARKERS)]


def powers_of_two(values) -> bool:
    """Whether ``values`` (3 or more) are all integer powers of 2: a grid such as 2^-9 ... 2^3,
    whose ticks read better as powers than as 0.00195312."""
    values = np.asarray([float(v) for v in values], dtype=float)
    if values.size < 3 or np.any(~np.isfinite(values)) or np.any(values <= 0):
        return False
    exponents = np.log2(values)
    return bool(np.allclose(exponents, np.round(exponents), rtol=0, atol=1e-9))


def tick_labels(values) -> list[str]:
    """Tick labels of grid values: ``$2^{-9}$`` when they are powers of 2
    (:func:`powers_of_two`), else ``%g`` (``0.5``, ``100``)."""
    if powers_of_two(values):
        return [f"$2^{{{int(round(np.log2(float(v))))}}}$" for v in values]
    return [f"{float(v):g}" for v in values]


def scheme_title(scheme, primal=False) -> str:
    """A scheme's label in a figure; ``primal``: its machines are linear models predicting
    through weight vectors (liblinear, or libsvm's linear kernel in primal form), said so
    instead of a kernel machine's wording."""
    return f"{label(scheme)} (linear model)" if primal else label(scheme)
