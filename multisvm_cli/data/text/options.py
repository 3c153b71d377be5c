"""A text archive source's options, checked when its card loads (issue #33).

A card source of ``format: archive`` is read by a text reader (:mod:`.text_sources`); its
options are refused here, one ValueError line naming the source and the key, so that a user
card's mistake is told when the card loads, not as a KeyError or LookupError deep in a run:

- ``reader``: one of :data:`PART_KEY`'s, the readers of :data:`.sources.READERS` (this check
  does not import them: a card loads without numpy);
- ``encoding``: a text encoding Python knows (``latin-1``, ``utf-8``, ...);
- ``folders``: every part has a ``folder``, a relative path inside the archive, and no two
  parts share one (a test part that is the training part is no test);
- ``reuters-sgml``: every part has a ``lewissplit`` (TRAIN, TEST, NOT-USED), no two the same.
"""

from __future__ import annotations

import codecs

PART_KEY = {"folders": "folder", "reuters-sgml": "lewissplit"}  # reader -> the key naming a part


def check_archive_source(source_id, options, parts) -> None:
    """ValueError (one line) for an option of a text archive source the reader would trip on;
    ``options``: the source's options, ``parts``: part -> cut."""
    where = f"source {source_id}"
    reader = options.get("reader")
    if reader not in PART_KEY:
        raise ValueError(f"{where}: reader must be one of {', '.join(PART_KEY)}, not {reader!r}")
    encoding = options.get("encoding", "latin-1")
    if not isinstance(encoding, str) or not _text_encoding(encoding):
        raise ValueError(f"{where}: encoding {encoding!r} is not a text encoding Python knows "
                         "(e.g. latin-1, utf-8, cp1252)")
    key, seen = PART_KEY[reader], {}
    for part, cut in parts.items():
        value = cut.get(key)
        if not isinstance(value, str) or not value.strip("/"):
            wanted = "a folder inside the archive" if key == "folder" else "TRAIN or TEST"
            raise ValueError(f"{where} part {part}: the {reader} reader needs {key}: {wanted}")
        if key == "folder" and (value.startswith("/") or ".." in value.split("/")):
            raise ValueError(f"{where} part {part}: folder {value!r} must be a relative path "
                             "inside the archive")
        if value.strip("/") in seen:
            raise ValueError(f"{where}: parts {seen[value.strip('/')]} and {part} have the same "
                             f"{key} {value!r}; a test part must hold other documents than the "
                             "training part")
        seen[value.strip("/")] = part


def _text_encoding(name) -> bool:
    try:
        return codecs.lookup(name)._is_text_encoding
    except LookupError:
        return False
