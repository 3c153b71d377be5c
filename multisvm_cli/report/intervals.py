"""95% intervals of a test error: Wilson's for a single test split, the fold spread for k splits.

- A single test split of n points with k errors: Wilson's (1927) score interval for a binomial
  proportion, ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with p = k/n and
  z = 1.96; unlike the normal interval p -+ z sqrt(p(1-p)/n) it stays inside [0, 1] and does not
  shrink to a point at 0 errors (Brown, Cai and DasGupta 2001 recommend it).
- J = folds x repeats splits: the error -+ ``t(0.975, J-1) s / sqrt(J)``, s the sample standard
  deviation of the J split errors (``error_sd``). The splits share training points, so their
  errors are not independent and this interval is, if anything, too narrow (Bengio and
  Grandvalet 2004): it shows the spread, not a guarantee.
"""

from __future__ import annotations

import math

from scipy import stats

from .record import ERROR_PCT

LEVEL = 0.95
WILSON = "Wilson"
SPREAD = "fold spread"


def wilson(n_errors, n, level=LEVEL) -> tuple[float, float]:
    """Wilson's score interval (fractions) of ``n_errors`` out of ``n`` points."""
    if n <= 0 or not 0 <= n_errors <= n:
        raise ValueError(f"Wilson's interval needs 0 <= errors <= n and n > 0 (got {n_errors} "
                         f"of {n})")
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = n_errors / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def spread(error_pct, error_sd, n_splits, level=LEVEL) -> tuple[float, float]:
    """The error (%) -+ t(level; J-1) SD / sqrt(J) over J = ``n_splits`` splits, within
    [0, 100]."""
    if n_splits < 2:
        raise ValueError("the fold spread needs 2 or more splits")
    half = float(stats.t.ppf(0.5 + level / 2, n_splits - 1)) * error_sd / math.sqrt(n_splits)
    return max(0.0, error_pct - half), min(100.0, error_pct + half)


def error_interval(row, n_splits=1) -> tuple[float, float, str] | None:
    """(low %, high %, how) of a report row's test error: the fold spread (:func:`spread`) when
    it was tested on ``n_splits`` >= 2 splits with an ``error_sd``, else Wilson's interval of
    its pooled errors over ``n_test`` points; None when the row has neither."""
    error = row.get(ERROR_PCT)
    if error is None:
        return None
    if n_splits >= 2 and row.get("error_sd") is not None:
        return (*spread(error, row["error_sd"], n_splits), SPREAD)
    n = row.get("n_test")
    if not n:
        return None
    low, high = wilson(round(error * n / 100.0), int(n))
    return 100.0 * low, 100.0 * high, WILSON


def n_splits(results) -> dict:
    """{(dataset, scheme): the number of test splits} of results.json's results (1 where a
    result lists no splits)."""
    return {(r["dataset"], r["scheme"]): len(r.get("splits") or []) or 1
            for r in (results or {}).get("results", [])}
