"""Progress of long work: a bar on a terminal, or one line at most every 30 s in a log.

``mode`` (``--progress``): ``bar`` (a tqdm bar), ``lines`` (``LineProgress``: one line on
stderr at most every :data:`LINE_EVERY` seconds, with points done and the ETA), ``none``, or
``auto`` (the default: a bar on a terminal, lines otherwise; ``--quiet`` means none).

The ETA weighs grid points by their expected cost, not by count (:func:`point_cost`): each
scheme's class states the cost of one of its fits (``_point_cost``, in rows^2 kernel products
plus a fixed cost per binary problem, see :mod:`multisvm_cli.estimators._base`).  Points of one
dataset run in mixed order, so each dataset's points weigh the mean cost of its schemes;
datasets run one after another, and the done cost follows them in that order.  (Measured on
ramanan-rbf's six small sets: each dataset's share of the wall time within a factor 2 of this
model's, where rows^2 alone put iris's 50 times too low and the first minutes' ETA at hours for
a 20-minute run.)

A run whose schemes train with the compiled all-together solver makes it ready first, as its
own phase (:mod:`.compile_phase`): its compile, about a minute the first time, comes before
the grid and this clock, never in a grid point's time or the ETA.
"""

from __future__ import annotations

import sys
import time

from tqdm import tqdm

from ...estimators.registry import estimator

MODES = ("auto", "bar", "lines", "none")
LINE_EVERY = 30.0  # seconds between progress lines


def point_cost(scheme, n_rows, n_classes) -> float:
    """Expected relative cost of one grid point of ``scheme`` (its class's ``_point_cost``)."""
    return float(estimator(scheme)._point_cost(n_rows, n_classes))


def progress_bar(total, description, quiet=False, stream=None, mode="auto", segments=None,
                 clock=time.monotonic):
    """Progress over ``total`` grid points on ``stream`` (stderr) as ``mode`` says; with
    ``segments`` [(points, cost per point), ...] (in run order) the lines' ETA weighs points
    by cost."""
    stream = stream or sys.stderr
    mode = resolved_mode(mode, quiet, stream)
    if mode == "lines":
        return LineProgress(total, description, stream, segments, clock)
    return tqdm(total=total, disable=mode != "bar", file=stream, unit="point",
                desc=description)


def resolved_mode(mode, quiet, stream) -> str:
    """``mode`` with ``auto`` resolved: ``none`` if ``quiet``, else a bar on a terminal
    ``stream``, lines otherwise."""
    if mode != "auto":
        return mode
    terminal = hasattr(stream, "isatty") and stream.isatty()
    return "none" if quiet else ("bar" if terminal else "lines")


class LineProgress:
    """``update(n)`` / ``close()`` like a tqdm bar, writing one line at most every
    :data:`LINE_EVERY` seconds: points done of total, percent of the expected cost, ETA."""

    def __init__(self, total, description, stream, segments=None, clock=time.monotonic):
        self.total, self.description, self.stream, self.clock = total, description, stream, clock
        self.segments = segments or [(total, 1.0)]
        self.done = 0
        self.started = self.last = clock()

    def cost_done(self) -> float:
        """The share (0..1) of the expected cost of the points done so far."""
        left, spent = self.done, 0.0
        for points, cost in self.segments:
            spent += min(left, points) * cost
            left -= min(left, points)
        whole = sum(points * cost for points, cost in self.segments)
        return spent / whole if whole else 1.0

    def update(self, n=1):
        self.done += n
        now = self.clock()
        if now - self.last >= LINE_EVERY and self.done < self.total:
            self.last = now
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()

    def line(self, now) -> str:
        share, elapsed = self.cost_done(), now - self.started
        eta = f"ETA {duration(elapsed * (1 - share) / share)}" if share > 0 else "ETA unknown"
        return (f"{self.description}: {self.done}/{self.total} points, {100 * share:.0f}% of "
                f"the expected cost, {duration(elapsed)} elapsed, {eta}")

    def close(self):
        pass


def duration(seconds) -> str:
    """``seconds`` as the progress lines write them: 0m42s, 26m27s, 1h05m."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"
