"""The kernel and C grid of a config: its entries expanded into checked grid points."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...estimators.options import check_C
from ...estimators.kernels import KERNEL_ALIASES, KERNEL_NAMES, KERNEL_PARAMS, Kernel, kernel_name
from ...base.numeric import is_number
from .checks import (check_choice, check_flag, check_list, check_mapping, check_number, joined,
                     range_count, show)

KERNEL_TYPES = KERNEL_NAMES
KERNEL_ORDER = {"linear": 0, "polynomial": 1, "gaussian": 2}  # simpler first (ties)
# a kernel entry's keys: its type, its parameters (the one table in kernels.py) and its own C
KERNEL_KEYS = {kind: ("type", *names, "C") for kind, names in KERNEL_PARAMS.items()}
ALL_PARAMS = tuple(dict.fromkeys(name for names in KERNEL_PARAMS.values() for name in names))


@dataclass(frozen=True)
class GridPoint:
    """One (kernel, C) point of the grid, as estimator parameters."""

    kernel: str
    C: float
    sigma: float | None = None
    degree: int | None = None
    homogeneous: bool | None = None
    gamma: float | None = None  # a Gaussian given by gamma (then sigma is None)

    def params(self) -> dict:
        """The estimator keyword arguments of this point (only those the kernel uses), in the
        user's terms: ``sigma`` or ``gamma`` as the config gave it."""
        params = {"kernel": self.kernel, "C": self.C}
        if self.kernel == "gaussian":
            params.update({"gamma": self.gamma} if self.gamma is not None
                          else {"sigma": self.sigma})
        if self.kernel == "polynomial":
            params.update(degree=self.degree, homogeneous=self.homogeneous)
        return params

    def kernel_label(self) -> str:
        """How Table 1 names the kernel (``Kernel.label``): ``gaussian sigma=4``, ``polynomial d=3
        homogeneous``."""
        return Kernel.from_params(**{k: v for k, v in self.params().items() if k != "C"}).label()

    def simplicity(self) -> tuple:
        """The tie-break key (smaller is simpler), independent of the grid's order: smaller C,
        then linear < polynomial < Gaussian, then the lower degree (homogeneous before
        inhomogeneous), then the wider Gaussian (smaller gamma = 1/(2 sigma^2), i.e. larger
        sigma)."""
        gamma = 0.0
        if self.kernel == "gaussian":
            gamma = self.gamma if self.gamma is not None else 1.0 / (2.0 * self.sigma ** 2)
        return (self.C, KERNEL_ORDER[self.kernel], self.degree or 0, not self.homogeneous,
                gamma)


def _kernels(doc, value, path, C_values, max_points, required=()):
    """Expand the kernel entries and C values into the list of grid points (at most
    ``max_points``: the count is checked before the points are built); ``required``: the
    config's required keys, named when C is missing."""
    if not isinstance(value, list) or not value:
        doc.fail(path, f"expected a non-empty list of kernels, got {show(value)}")
    _check_grid_size(doc, value, path, C_values, max_points)
    grid = []
    for i, entry in enumerate(value):
        where = path + (i,)
        if not isinstance(entry, dict):
            doc.fail(where, f"expected a mapping like {{type: gaussian, sigma: [1, 2]}}, "
                            f"got {show(entry)}")
        kind = check_choice(doc, entry.get("type"), where + ("type",), KERNEL_TYPES, "kernel type",
                            kernel_name, tuple(KERNEL_ALIASES))
        check_mapping(doc, entry, where, KERNEL_KEYS[kind])
        Cs = _C_list(doc, entry["C"], where + ("C",)) if "C" in entry else C_values
        if Cs is None:
            doc.fail((), f"missing key 'C'; required keys: {joined(required)} (or a C list in "
                         f"every kernel entry)")
        for point in _kernel_points(doc, entry, where, kind):
            grid.extend(GridPoint(C=C, **point) for C in Cs)
    if len(set(grid)) != len(grid):
        doc.fail(path, "two kernel entries give the same grid point")
    return tuple(grid)


def _check_grid_size(doc, entries, path, C_values, max_points):
    """Refuse a grid of more than ``max_points`` points before building it."""
    def count(value):
        if isinstance(value, dict):  # a range: its size if well formed (checked later)
            numbers = [value.get(k) for k in ("from", "to", "step")]
            numbers[2] = numbers[2] if numbers[2] is not None else 1
            if all(is_number(n) for n in numbers):
                start, stop, step = numbers
                return range_count(start, stop, step if value.get("step") is not None
                                   else (1 if stop >= start else -1))
            return 1
        return len(value) if isinstance(value, list) else 1

    total = 0
    for entry in entries:
        if isinstance(entry, dict):
            values = [count(entry.get(key, 1))
                      for key in ALL_PARAMS]
            total += math.prod(values) * count(entry.get("C", C_values or []))
    if total > max_points:
        doc.fail(path, f"the grid has {total} points, more than max_grid_points = {max_points}; "
                       f"set max_grid_points higher on purpose to run it")


def _kernel_points(doc, entry, where, kind):
    """The kernel parameter sets of one entry, each checked by ``Kernel.from_params`` (the
    check the estimators run: a value that would overflow the kernel is refused here)."""
    points = _kernel_values(doc, entry, where, kind)
    for point in points:
        key = next((k for k in ("sigma", "gamma", "degree") if k in point), "type")
        try:
            Kernel.from_params(**point)
        except ValueError as exc:
            doc.fail(where + (key,), str(exc))
    return points


def _kernel_values(doc, entry, where, kind):
    if kind == "gaussian":
        given = [key for key in ("sigma", "gamma") if key in entry]
        if len(given) != 1:
            doc.fail(where, "a gaussian kernel needs exactly one of sigma or gamma (a number > 0, "
                            "a list or a range; gamma = 1/(2 sigma^2))")
        key = given[0]
        values = check_list(doc, entry[key], where + (key,),
                            lambda v, p: float(check_number(doc, v, p, positive=True)))
        return [{"kernel": kind, key: v} for v in values]
    if kind == "polynomial":
        if "degree" not in entry:
            doc.fail(where, "a polynomial kernel needs degree (an integer >= 1 or a list)")
        degrees = check_list(doc, entry["degree"], where + ("degree",),
                             lambda v, p: check_number(doc, v, p, integer=True, positive=True))
        kinds = check_list(doc, entry.get("homogeneous", False), where + ("homogeneous",),
                           lambda v, p: check_flag(doc, v, p))
        return [{"kernel": kind, "degree": d, "homogeneous": h} for d in degrees for h in kinds]
    return [{"kernel": "linear"}]


def _C_list(doc, value, path):
    """A list of C values, each checked as the estimators check C (``check_C``)."""
    def one(v, p):
        C = float(check_number(doc, v, p, positive=True))
        try:
            check_C(C)
        except ValueError as exc:
            doc.fail(p, str(exc))
        return C

    return check_list(doc, value, path, one)



def kernel_entries(grid) -> list:
    """The resolved config's ``kernels`` of a grid: one kernel entry per kernel (in grid order),
    each with its own C list."""
    kernels = []
    for point in grid:
        params = point.params()
        params.pop("C")
        entry = {"type": params.pop("kernel"), **params}
        if kernels and {k: v for k, v in kernels[-1].items() if k != "C"} == entry:
            kernels[-1]["C"].append(point.C)
        else:
            kernels.append({**entry, "C": [point.C]})
    return kernels
