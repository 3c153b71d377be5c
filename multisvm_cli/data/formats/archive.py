"""``format: archive``: a tar archive of text documents (one file per document, one folder per
class), checked by its tree digest (:mod:`..archives`) and split into parts by
:func:`..text_sources.read_text_parts` (the source's options say how); a text card's format."""

from ..text import sources as text_sources


def read_part(part):
    """(documents, labels) of a part; the archive's parts are built once per source."""
    key = ("text parts", part.specs[0].name)
    if key not in part.memo:
        part.memo[key] = text_sources.read_text_parts(part.memo[part.specs[0].name], part.source,
                                                      part.dataset)
    return part.memo[key][part.name]
