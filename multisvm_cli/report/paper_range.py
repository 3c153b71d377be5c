"""Hsu & Lin's (2002) published rates as a range per dataset, from the file that types them.

Hsu & Lin's Table II is quoted by Rifkin & Klautau (JMLR 5, 2004, Table 3, p. 123) as the best
and the worst rate of the five methods on each of the ten sets. ``hsu_lin_paper.yaml`` (beside
this module) holds those numbers as printed, with their source, and the reasons why a cell of
ours is outside its range, written per config, dataset and method. No other file types their
rates (``configs/ramanan-rbf-quick.yaml`` types letter's chosen (C, gamma), said to be from
Table II, which cannot be checked here): Table II's "paper range" column (:mod:`.hsu_lin`) and the results page's test
read it here.

A printed number stands for every value it rounds from, so a rate is outside when it is below
``worst`` or above ``best`` by more than half a unit of their last printed decimal (a best of
99.438 stands for up to 99.4385, a worst of 91.3 from 91.25 on). A rate shown to fewer
decimals (99.44) is judged by every value it rounds from: the caller's ``rounding``.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from pathlib import Path

from ..base.yaml_loader import read_yaml

PAPER_FILE = Path(__file__).with_name("hsu_lin_paper.yaml")
MAX_PAPER_BYTES = 1 << 16
ALL_METHODS = "all"  # a reasons key: every method of that dataset in that config
BELOW, ABOVE = "below", "above"


@functools.cache
def paper() -> dict:
    """The file's content: ``source`` (paper, table, page, quoting), ``ranges`` (per card:
    paper, best, worst, size) and ``reasons`` (config -> dataset -> method -> sentence)."""
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
    for end in ("worst", "best"):
        if not isinstance(entry[end], str):  # 97.68 unquoted is a float: its Decimal is not 97.68
            raise ValueError(f"{PAPER_FILE.name}: {dataset}'s {end} must be quoted as printed "
                             f"(\"{entry[end]}\"), not a number")
    return {"paper": entry["paper"], "worst": Decimal(entry["worst"]),
            "best": Decimal(entry["best"])}


def range_text(dataset) -> str:
    """The range as a table cell, worst to best as printed (``96.667-97.333``); "" without."""
    found = paper_range(dataset)
    return "" if found is None else f"{found['worst']}-{found['best']}"


def side(dataset, rate, rounding=0.0) -> str | None:
    """``below`` or ``above`` when the rate (%) is outside the dataset's printed range (each end
    widened by half a unit of its last printed decimal), else None (inside, no range, or no
    rate). ``rounding``: the rate is itself rounded by up to this much (0.005 for a rate shown
    to 2 decimals), so it is outside only when every value it rounds from is."""
    found = paper_range(dataset)
    if found is None or rate is None:
        return None
    if rate + rounding < float(found["worst"] - _half_unit(found["worst"])):
        return BELOW
    if rate - rounding > float(found["best"] + _half_unit(found["best"])):
        return ABOVE
    return None


def reason(config, dataset, scheme) -> str | None:
    """The sentence written for a cell outside the range (the method's own, else the dataset's
    ``all``), or None when none is written."""
    written = (paper()["reasons"].get(config) or {}).get(dataset) or {}
    return written.get(scheme) or written.get(ALL_METHODS)


def _half_unit(printed: Decimal) -> Decimal:
    return Decimal(1).scaleb(printed.as_tuple().exponent) / 2
