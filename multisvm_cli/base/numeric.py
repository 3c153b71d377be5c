"""The one checked-number rule: what counts as an integer, a finite number, a count.

JSON, YAML and Python all let ``True`` pass as the integer 1 and let ``nan`` and ``inf`` pass as
floats; every reader of multisvm (configs, cards, model files, run folders, the resume cache)
asks these functions instead of spelling the test again.
"""

from __future__ import annotations

import math
from numbers import Integral, Real


def is_int(value) -> bool:
    """An integer (Python or numpy) that is not a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def is_number(value) -> bool:
    """A finite real number (int or float, Python or numpy) that is not a bool.

    Integers are always finite (``math.isfinite`` would overflow on a huge JSON integer)."""
    return isinstance(value, Real) and not isinstance(value, bool) and (
        isinstance(value, Integral) or math.isfinite(value))


def is_count(value, minimum: int = 0) -> bool:
    """An integer (not a bool) of at least ``minimum``."""
    return is_int(value) and value >= minimum
