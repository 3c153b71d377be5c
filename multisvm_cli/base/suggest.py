"""The one "did you mean" of the package: the closest known name to a misspelt one."""

import difflib


def did_you_mean(given, known) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``known`` to ``given`` (difflib, compared
    in lower case), or ``""``."""
    if not isinstance(given, str):
        return ""
    folded = {str(k).lower(): str(k) for k in known}
    close = difflib.get_close_matches(given.lower(), list(folded), n=1, cutoff=0.75)
    return f" (did you mean {folded[close[0]]!r}?)" if close else ""
