"""Text datasets from an archive's members: documents (str) and their labels, per part.

Readers (a card source's ``reader``), each ``members -> {part: (documents, labels)}`` with
documents a numpy object array of str and labels a unicode array:

- ``folders``: one folder per part (the cut's ``folder``), one subfolder per class, one
  document per file, read as ``encoding`` (default Latin-1, as scikit-learn's
  ``load_files(..., encoding="latin1")``). Files in class order, then by name.
- ``reuters-sgml``: Reuters-21578's ``reut2-*.sgm`` (Latin-1 SGML), Godbole's single-label
  topics (R52 for the ModApte split): the documents with ``TOPICS="YES"`` whose
  ``LEWISSPLIT`` is a part's ``lewissplit``, that carry exactly one topic, of the topics with at
  least one document in every part. A document is its TITLE, a newline, then its BODY, with the
  SGML character references decoded.
"""

import html
import re

from ..errors import DatasetError

DOCUMENT = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
ATTRIBUTE = re.compile(r'([A-Z]+)="([^"]*)"')
TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
LABEL = re.compile(r"<D>(.*?)</D>", re.S)
TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)


def documents(texts):
    """A numpy object array of str (never a fixed-width unicode array: documents vary a lot)."""
    import numpy as np

    array = np.empty(len(texts), dtype=object)
    array[:] = list(texts)
    return array


def decoded(members, name, encoding, dataset):
    """Member ``name``'s bytes as text; DatasetError naming the member when they do not
    decode as ``encoding``."""
    try:
        return members[name].decode(encoding)
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{dataset}: archive member {name} is not {encoding} text (byte "
                           f"{exc.start}: {exc.reason}); set the source's encoding: in its "
                           "card") from None


def read_folders(members, cuts, options, dataset):
    """``folders`` reader (see the module docstring)."""
    import numpy as np

    encoding = str(options.get("encoding", "latin-1"))
    parts = {}
    for part, cut in cuts.items():
        prefix = f"{str(cut['folder']).strip('/')}/"
        files = sorted(name[len(prefix):].split("/", 1) for name in members
                       if name.startswith(prefix) and name.count("/") == 2)
        if not files:
            raise DatasetError(f"{dataset}: the archive has no documents in {prefix}")
        texts = [decoded(members, f"{prefix}{label}/{name}", encoding, dataset)
                 for label, name in files]
        parts[part] = (documents(texts), np.asarray([label for label, _ in files], dtype=str))
    return parts


def read_reuters(members, cuts, options, dataset):
    """``reuters-sgml`` reader (see the module docstring)."""
    import numpy as np

    encoding = str(options.get("encoding", "latin-1"))
    splits = {str(cut["lewissplit"]): part for part, cut in cuts.items()}
    found = {part: [] for part in cuts}
    files = sorted(name for name in members if re.fullmatch(r"reut2-\d{3}\.sgm", name))
    if not files:
        raise DatasetError(f"{dataset}: the archive has no reut2-NNN.sgm files")
    for name in files:
        for match in DOCUMENT.finditer(decoded(members, name, encoding, dataset)):
            attributes = dict(ATTRIBUTE.findall(match.group(1)))
            part = splits.get(attributes.get("LEWISSPLIT"))
            topics = _topics(match.group(2))
            if part and attributes.get("TOPICS") == "YES" and len(topics) == 1:
                found[part].append((topics[0], _text(match.group(2))))
    shared = set.intersection(*({topic for topic, _ in docs} for docs in found.values()))
    return {part: (documents([text for topic, text in docs if topic in shared]),
                   np.asarray([topic for topic, _ in docs if topic in shared], dtype=str))
            for part, docs in found.items()}


def _topics(element):
    block = TOPICS.search(element)
    return [label.strip() for label in LABEL.findall(block.group(1))] if block else []


def _text(element):
    title, body = TITLE.search(element), BODY.search(element)
    return html.unescape(f"{title.group(1) if title else ''}\n{body.group(1) if body else ''}")


READERS = {"folders": read_folders, "reuters-sgml": read_reuters}


def read_text_parts(members, source, dataset):
    """``{part: (documents, labels)}`` of every part of ``source`` (a card Source)."""
    reader = READERS.get(source.options.get("reader"))
    if reader is None:
        raise DatasetError(f"{dataset}: unknown text reader {source.options.get('reader')!r}; "
                           f"known: {', '.join(READERS)}")
    return reader(members, source.parts, source.options, dataset)
