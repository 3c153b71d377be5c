"""``format: text``: a folder of documents, a config's local text dataset (``kind: text``, or a
``path`` that is a folder): one subfolder per class, one document per file, as
``sklearn.datasets.load_files`` reads it, decoded as Latin-1 (:data:`ENCODING`). It loads as a
text dataset (documents and labels, part ``all``; with a ``test_path`` folder, parts
``train`` and ``test``); each folder's checksum is its tree digest (as an archive's,
:mod:`..archives`).

What the folder may hold is checked by :mod:`..text.folder` before it is read (hidden files
and folders ignored; a loose document beside the class folders or an empty class folder refused,
as ``predict`` refuses them; links out, FIFOs and devices, a huge document, too many files, bytes
or classes; a test folder that is the training folder, holds its documents or has classes it
lacks). A card's delimited text files are ``format:
delimited``; a card that writes ``format: text`` (the word's meaning in cards until release
three) is refused with one line naming it (:data:`NOT_IN_CARDS`).
"""

from pathlib import Path

from .. import archives
from ..cards import Card
from ..errors import DatasetError
from ..loader import Dataset
from ..text import folder as text_folder
from ..text.sources import documents

KIND = "text"
ORDER = 4
ENCODING = "latin-1"
NOT_IN_CARDS = ("format 'text' is a config's folder of documents; a card's delimited text "
                "files are format: delimited")


def read_dataset(spec) -> Dataset:
    """The text dataset of a :class:`..local.files.LocalSpec` naming a folder (and a test
    folder), by :func:`load_text_folder`."""
    return load_text_folder(spec.name, spec.path, spec.test_path)


def load_text_folder(name, path, test_path=None, encoding=ENCODING,
                     max_files=text_folder.MAX_TEXT_FILES, max_bytes=text_folder.MAX_TEXT_BYTES,
                     **bounds) -> Dataset:
    """A text dataset from the folder ``path`` (part ``all``; with ``test_path``, parts
    ``train`` and ``test``): each subfolder is a class, each file in it a document decoded as
    ``encoding``. Its checksum is the folder's tree digest (as an archive's, :mod:`..archives`).
    DatasetError for a missing folder, fewer than two classes, a file that does not decode,
    more than ``max_files`` files or ``max_bytes`` bytes in all, and what
    :mod:`..text.folder` refuses (a loose document, an empty class folder, links out, FIFOs and
    devices, a huge document, too many classes: ``bounds``; a test folder that is the training
    folder, holds its documents or has classes it lacks)."""
    import numpy as np

    folders = {"train": Path(path), "test": Path(test_path)} if test_path else \
        {"all": Path(path)}
    text_folder.check_parts(folders)  # the same folder twice: refused before reading
    loaded, checksums = {}, {}
    for part, folder in folders.items():
        members = text_folder.text_members(folder, max_files, max_bytes, **bounds)
        texts = text_folder.decode(members, folder, encoding)
        labels = np.asarray([key.split("/", 1)[0] for key in sorted(members)], dtype=str)
        if len(set(labels.tolist())) < 2:
            raise DatasetError(f"{folder}: one class folder with documents; a classifier needs "
                               "two or more")
        loaded[part] = (documents(texts), labels)
        checksums[str(folder)] = archives.tree_digest(members)
    text_folder.check_parts(folders, {part: y for part, (_, y) in loaded.items()},
                            {part: checksums[str(folder)] for part, folder in folders.items()})
    classes = tuple(sorted(set().union(*(set(y.tolist()) for _, y in loaded.values()))))
    card = Card(name=name, title=f"local text folder {path}", description=f"Text folder {path}.",
                n_classes=len(classes), n_features=0, classes=classes,
                split="fixed" if test_path else "none",
                parts={part: len(y) for part, (_, y) in loaded.items()}, paper_scaling="none",
                continuous_columns=(), sources=(), path=Path(path), folder=name, origin="local",
                kind="text")
    return Dataset(name=name, card=card, parts=loaded, checksums=checksums,
                   sources={key: f"local {key}" for key in checksums}, source_id="local",
                   provenance={"format": "text-folder", "encoding": encoding,
                               "files": {key: {"part": part, "tree_sha256": checksums[key]}
                                         for part, key in zip(folders, checksums)}})
