"""Hsu & Lin's (2002) published rates as a range per dataset, from the file that types them.

Hsu & Lin's Table II is quoted by Rifkin & Klautau (JMLR 5, 2004, Table 3, p. 123) as the best
and the worst rate of the five methods on each of the ten sets. ``hsu_lin_paper.yaml`` (beside
this module) holds those numbers as printed, with their source, and the reasons why a cell of
ours is outside its range, written per config, dataset and method. No other file types their
rates (``configs/ramanan-rbf-quick.yaml`` types letter's chosen (C, gamma), said to be from
Table II, which cannot be checked here): Table II's "paper range" column (:mod:`.hsu_lin`) and
the results page's test read it here.

A printed number stands for every value it rounds from (a worst of 91.3 for 91.25 to 91.35),
unless the paper pins it. Two things pin an end, and then a cell is judged by test-row counts,
not by rounding:

- the source's "Difference" column (``diff``, best minus worst, printed to its own decimals):
  satimage's best 92.35 minus 1.050 puts the worst within 91.2945-91.3055;
- the source's size column (``size``, or ``rows`` where the printed size is not the rows the
  rates are of): a rate is a count of rows, so only the counts in that interval are left
  (satimage's worst is 1,826 of 2,000 rows, exactly 91.30). When no count fits (a size that is
  not the rates' rows), nothing is pinned and the rounding rule stays.

A rate of ours is made a count the same way: 91.25 on satimage is 1,825 rows, below 1,826. A rate
shown to fewer decimals (99.44) is judged by every value it rounds from: the caller's
``rounding``; it is outside only when every count (or value) it can be is outside.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from ..base.yaml_loader import read_yaml

PAPER_FILE = Path(__file__).with_name("hsu_lin_paper.yaml")
MAX_PAPER_BYTES = 1 << 16
ALL_METHODS = "all"  # a reasons key: every method of that dataset in that config
BELOW, ABOVE = "below", "above"


@functools.cache
def paper() -> dict:
    """The file's content: ``source`` (paper, table, page, quoting), ``ranges`` (per card:
    paper, best, worst, diff, size and optional rows) and ``reasons`` (config -> dataset ->
    method -> sentence)."""
    return read_yaml(PAPER_FILE, MAX_PAPER_BYTES, what="paper numbers")


def citation() -> str:
    """Where the ranges come from, short: ``Rifkin & Klautau (JMLR 5, 2004), Table 3, p. 123``."""
    source = paper()["source"]
    return f"{source['short']}, Table {source['table']}, p. {source['page']}"


def paper_range(dataset) -> dict | None:
    """The dataset's range as printed (``worst``, ``best`` as Decimals, ``paper``: the set's
    name there), or None for a dataset the source does not quote."""
    entry = paper()["ranges"].get(dataset)
    if entry is None:
        return None
    return {"paper": entry["paper"], "worst": _printed(dataset, "worst", entry["worst"]),
            "best": _printed(dataset, "best", entry["best"])}


def _printed(dataset, end, value) -> Decimal:
    """A number of the file as printed; refused when typed unquoted (97.68 unquoted is a float,
    whose Decimal is not 97.68, so its last printed decimal would be lost)."""
    if not isinstance(value, str):
        raise ValueError(f"{PAPER_FILE.name}: {dataset}'s {end} must be quoted as printed "
                         f"(\"{value}\"), not a number")
    return Decimal(value)


def range_text(dataset) -> str:
    """The range as a table cell, worst to best as printed (``96.667-97.333``); "" without."""
    found = paper_range(dataset)
    return "" if found is None else f"{found['worst']}-{found['best']}"


def side(dataset, rate, rounding=0.0) -> str | None:
    """``below`` or ``above`` when the rate (%) is outside the dataset's range (:func:`bounds`),
    else None (inside, no range, or no rate). ``rounding``: the rate is itself rounded by up to
    this much (0.005 for a rate shown to 2 decimals), so it is outside only when every value, or
    every row count of the source's size, it rounds from is."""
    found = bounds(dataset)
    if found is None or rate is None:
        return None
    value = Fraction(rate)
    low, high = _counted((value - Fraction(rounding), value + Fraction(rounding)),
                         found["rows"], slack=Fraction(1, 10**9))
    if high < found["worst"][0]:
        return BELOW
    if low > found["best"][1]:
        return ABOVE
    return None


def bounds(dataset) -> dict | None:
    """The values (%) each end of the dataset's range can be, as exact fractions: ``worst`` and
    ``best`` as (low, high), and ``rows``, the count the rates are of; None without a range.
    Each end is its printed value's rounding, narrowed by the ``diff`` column and then to the
    row counts left in it (see the module docstring)."""
    found, entry = paper_range(dataset), paper()["ranges"].get(dataset)
    if found is None:
        return None
    worst, best = _rounded(found["worst"]), _rounded(found["best"])
    if entry.get("diff") is not None:
        diff = _rounded(_printed(dataset, "diff", entry["diff"]))
        worst = (max(worst[0], best[0] - diff[1]), min(worst[1], best[1] - diff[0]))
        best = (max(best[0], worst[0] + diff[0]), min(best[1], worst[1] + diff[1]))
    rows = entry.get("rows") or entry.get("size")
    return {"worst": _counted(worst, rows), "best": _counted(best, rows), "rows": rows}


def reason(config, dataset, scheme) -> str | None:
    """The sentence written for a cell outside the range (the method's own, else the dataset's
    ``all``), or None when none is written."""
    written = (paper()["reasons"].get(config) or {}).get(dataset) or {}
    return written.get(scheme) or written.get(ALL_METHODS)


def _half_unit(printed: Decimal) -> Decimal:
    return Decimal(1).scaleb(printed.as_tuple().exponent) / 2


def _rounded(printed: Decimal) -> tuple[Fraction, Fraction]:
    """Every value ``printed`` rounds from: itself widened by half a unit of its last decimal."""
    half = _half_unit(printed)
    return Fraction(printed - half), Fraction(printed + half)


def _counted(interval, rows, slack=Fraction(0)) -> tuple[Fraction, Fraction]:
    """``interval`` (%) narrowed to the rates k / ``rows`` it holds (within ``slack``, for a
    rate that went through a float), or as it is when it holds none or ``rows`` is unknown."""
    if not rows:
        return interval
    low, high = interval
    first, last = math.ceil((low - slack) * rows / 100), math.floor((high + slack) * rows / 100)
    if first > last:
        return interval
    return Fraction(100 * first, rows), Fraction(100 * last, rows)
