"""Progress bars for long work: drawn on a terminal only, never into a redirected stream."""

import sys

from tqdm import tqdm


def progress_bar(total, description, quiet=False, stream=None):
    """A tqdm bar on ``stream`` (stderr) counting grid points; disabled with ``quiet`` or when
    the stream is not a terminal (a log file gets no ``\\r`` frames)."""
    stream = stream or sys.stderr
    drawn = not quiet and hasattr(stream, "isatty") and stream.isatty()
    return tqdm(total=total, disable=not drawn, file=stream, unit="point", desc=description)
