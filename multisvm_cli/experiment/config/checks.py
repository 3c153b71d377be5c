"""The value checks of a config: mappings with allowed keys, choices, numbers, lists, ranges,
seeds and flags, each ``check_*(doc, value, path, ...)`` returning the checked value or failing
with the document's one-line error (``doc.fail``); :func:`show` and :func:`joined` write values
into those messages. Every module of the config checks its values with these."""

from __future__ import annotations

import math

from ...base.numeric import is_int, is_number
from ...base.suggest import did_you_mean  # noqa: F401  (the config's modules import it here)

RANGE_KEYS = ("base", "from", "to", "step")
MAX_GRID_POINTS = 10_000        # per dataset; raise it on purpose with max_grid_points
SEED_RANGE = (0, 2**32 - 1)     # what numpy and scikit-learn take as a random_state


def joined(values) -> str:
    """``values`` as a message lists them: ``a, b, c``."""
    return ", ".join(str(v) for v in values)


def check_mapping(doc, value, path, allowed):
    """A mapping whose keys are among ``allowed`` (an unknown one named, with a did-you-mean)."""
    if not isinstance(value, dict):
        doc.fail(path, f"expected a mapping with keys {joined(allowed)}, got {show(value)}")
    for key in value:
        if key not in allowed:
            doc.fail(path + (key,), f"unknown key {key!r}; allowed keys: {joined(allowed)}"
                                    f"{did_you_mean(key, allowed)}")
    return value


def check_choice(doc, value, path, allowed, what="value", canonical=None, aliases=()):
    """``value`` if it is one of ``allowed``; with ``canonical`` (a function giving the allowed
    name of an alias, or None), the name an alias stands for. ``aliases``: other accepted names,
    offered by "did you mean" too."""
    if canonical is not None and canonical(value) is not None:
        return canonical(value)
    if not isinstance(value, str) or value not in allowed:
        doc.fail(path, f"{show(value)} is not a valid {what}; allowed: {joined(allowed)}"
                       f"{did_you_mean(value, (*allowed, *aliases))}")
    return value


def check_number(doc, value, path, *, positive=False, integer=False, low=None, high=None):
    kind = "an integer" if integer else "a number"
    if not (is_int(value) if integer else is_number(value)):
        doc.fail(path, f"expected {kind}, got {show(value)}")
    if positive and value <= 0:
        doc.fail(path, f"must be > 0, got {value}")
    if low is not None and not low < value:
        doc.fail(path, f"must be > {low}, got {value}")
    if high is not None and not value < high:
        doc.fail(path, f"must be < {high}, got {value}")
    return value


def check_distinct(doc, checked, path, value) -> None:
    """Fail at ``path`` when two of the ``checked`` items are the same (compared by their repr:
    items may be lists); ``value``: the list as written, for the message."""
    if len(set(map(repr, checked))) != len(checked):
        doc.fail(path, f"has a repeated value: {show(value)}")


def check_list(doc, value, path, check):
    """A non-empty list (a scalar counts as a list of one) whose items pass ``check``."""
    if isinstance(value, dict) and value.keys() & {"base", "from", "to"}:
        value = check_range(doc, value, path)
    items = value if isinstance(value, list) else [value]
    if isinstance(value, dict) or value is None:
        doc.fail(path, f"expected a value or a list of values, got {show(value)}")
    if not items:
        doc.fail(path, "must not be empty")
    checked = [check(item, path + (i,) if isinstance(value, list) else path)
               for i, item in enumerate(items)]
    check_distinct(doc, checked, path, value)
    return checked


def check_range(doc, value, path) -> list:
    """The values of a range ``{base: B, from: E0, to: E1, step: S}``: B**e for e = E0, E0 + S,
    ... while e has not passed E1 (S defaults to 1, or -1 when E1 < E0), in that order.  Refused
    when empty (S pointing away from E1), when S is 0, or when a value is not a finite number
    > 0 (base <= 0, or an overflow)."""
    check_mapping(doc, value, path, RANGE_KEYS)
    for key in ("base", "from", "to"):
        if key not in value:
            doc.fail(path, f"a range needs base, from and to, e.g. {{base: 2, from: -2, to: 12}}; "
                           f"missing {key!r}")
    base = check_number(doc, value["base"], path + ("base",), positive=True)
    start = check_number(doc, value["from"], path + ("from",))
    stop = check_number(doc, value["to"], path + ("to",))
    step = check_number(doc, value.get("step", 1 if stop >= start else -1), path + ("step",))
    count = range_count(start, stop, step)
    if step == 0 or count < 1:
        doc.fail(path, f"the range from {start} to {stop} by step {step} is empty")
    if count > MAX_GRID_POINTS:
        doc.fail(path, f"the range has {count} values, more than {MAX_GRID_POINTS}")
    values = []
    for i in range(count):
        try:
            number = float(base) ** (start + i * step)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number) or number <= 0:
            doc.fail(path, f"{base} ** {start + i * step} is not a finite number > 0; "
                           f"narrow the range")
        values.append(number)
    return values


def range_count(start, stop, step) -> int:
    """How many exponents a range has (0 when empty or step is 0)."""
    if not step or (stop - start) / step < 0:
        return 0
    return int(math.floor((stop - start) / step + 1e-9)) + 1


def show(value) -> str:
    """A value as a message shows it: its repr, ``a mapping``, ``nothing (null)``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return repr(value)


def check_seed(doc, value, path):
    """A seed: an integer in SEED_RANGE (what numpy and scikit-learn take)."""
    seed = check_number(doc, value, path, integer=True)
    low, high = SEED_RANGE
    if not low <= seed <= high:
        doc.fail(path, f"a seed must be an integer from {low} to {high}, got {seed}")
    return seed


def check_flag(doc, value, path):
    """true or false."""
    if not isinstance(value, bool):
        doc.fail(path, f"expected true or false, got {show(value)}")
    return value


def check_folds(doc, value, path):
    """A k-fold's k: an integer >= 2."""
    k = check_number(doc, value, path, integer=True)
    if k < 2:
        doc.fail(path, f"k-fold needs k >= 2, got {k}")
    return k

