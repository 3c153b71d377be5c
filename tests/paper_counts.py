"""An independent reading of Hsu & Lin's ranges (hsu_lin_paper.yaml) for the tests, by brute
force over row counts: which values each end of a range can be, and whether a shown rate is
outside. It shares no code with multisvm_cli/report/paper_range.py, so that a test compares two
derivations of the same rule (issue 58)."""

from pathlib import Path

import yaml

PAPER = yaml.safe_load((Path(__file__).resolve().parents[1] / "multisvm_cli" / "report"
                        / "hsu_lin_paper.yaml").read_text())
EPS = 1e-9


def _half(printed: str) -> float:
    return 0.5 * 10.0 ** -len(printed.split(".")[1])


def _span(printed) -> tuple[float, float]:
    return float(printed) - _half(printed), float(printed) + _half(printed)


def ends(dataset) -> tuple[float, float]:
    """The lowest value the worst can be and the highest the best can be: the rates k / rows
    (of the rates' rows) that round to the printed end and lie a printed ``diff`` from some value
    the other end rounds from; the value bounds themselves when no count fits."""
    entry = PAPER["ranges"][dataset]
    rows = entry.get("rows") or entry["size"]
    (w_lo, w_hi), (b_lo, b_hi), (d_lo, d_hi) = (_span(entry[end])
                                                for end in ("worst", "best", "diff"))
    w_lo, w_hi = max(w_lo, b_lo - d_hi), min(w_hi, b_hi - d_lo)
    b_lo, b_hi = max(b_lo, w_lo + d_lo), min(b_hi, w_hi + d_hi)
    rates = [100 * k / rows for k in range(rows + 1)]
    worst = [r for r in rates if w_lo - EPS <= r <= w_hi + EPS]
    best = [r for r in rates if b_lo - EPS <= r <= b_hi + EPS]
    return (min(worst) if worst else w_lo), (max(best) if best else b_hi)


def side(dataset, rate, shown=0.0) -> str:
    """"below" / "above" when every count (of the rates' rows) a rate shown within ``shown``
    can be is outside :func:`ends`, "" otherwise or without a range."""
    entry = PAPER["ranges"].get(dataset)
    if entry is None:
        return ""
    rows = entry.get("rows") or entry["size"]
    mine = [100 * k / rows for k in range(rows + 1) if abs(100 * k / rows - rate) <= shown + EPS]
    low, high = (min(mine), max(mine)) if mine else (rate - shown, rate + shown)
    worst, best = ends(dataset)
    return "below" if high < worst - EPS else "above" if low > best + EPS else ""
