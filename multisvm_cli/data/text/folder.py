"""A user's text folder read safely: one subfolder per class, one document per file.

:func:`text_members` gives ``{"<class>/<file>": bytes}`` of a folder, and refuses, with one
DatasetError line naming the folder or the file, before reading what it refuses:

- a missing folder; a class folder or document that is a symbolic link leading out of the
  folder (its documents would not be the folder's);
- a document that is not a regular file (a FIFO would block the read for ever, ``/dev/zero``
  never ends, a socket or device is no document);
- more than ``max_files`` documents or ``max_bytes`` bytes in all, a document of more than
  ``max_document_bytes`` (each read bounded too, in case it grows while read), more than
  ``max_classes`` class folders;
- a class folder or document name that is not UTF-8 (it names the class and keys the folder's
  tree digest).

Hidden files and folders (a name starting with ``.``: ``.keep``, ``.DS_Store``, ``.git/``) are
not documents nor classes and are ignored, at the top level and in class folders. One layout
rule (:func:`_layout`) serves training, ``compare`` and ``predict``: a file beside the class
folders (a loose document: no class would hold it) is refused, and so is a class folder with
no document (a class with no point). :func:`document_members` reads a folder to predict
(``multisvm predict``): its class subfolders as above, or, without any, its top-level files.
:func:`check_parts` refuses a test folder that is the training folder or holds its documents
(the same tree digest), or whose classes the training folder lacks (the rule of a second
file, :mod:`..held_out`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .. import held_out
from ..errors import DatasetError

MAX_TEXT_FILES = 100_000
MAX_TEXT_BYTES = 1 << 30
MAX_DOCUMENT_BYTES = 64 << 20   # a document; Reuters' and 20 Newsgroups' are below 100 KB
MAX_TEXT_CLASSES = 1_000        # 1-v-1 would train ~500,000 machines on 1,000 classes


def text_members(folder, max_files=MAX_TEXT_FILES, max_bytes=MAX_TEXT_BYTES,
                 max_document_bytes=MAX_DOCUMENT_BYTES, max_classes=MAX_TEXT_CLASSES) -> dict:
    """``{"<class>/<file>": bytes}`` of the documents in ``folder``'s class subfolders, in
    class then file order; DatasetError for anything of the module's list."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DatasetError(f"{folder}: local text folder not found (one subfolder per class)")
    root = folder.resolve()
    classes, _ = _layout(folder)
    if len(classes) > max_classes:
        raise DatasetError(f"{folder}: {len(classes):,} class folders, more than {max_classes:,}"
                           " (one classifier per class or pair would not finish); merge classes"
                           " or use a smaller folder")
    files = []
    for class_folder in classes:
        _inside(class_folder, root)
        documents = _visible(class_folder)
        if not documents:
            raise DatasetError(f"{class_folder}: an empty class folder (no document, hidden "
                               f"files aside); put its documents in it or remove it")
        files += [(class_folder, file) for file in documents]
    return _read_all(folder, root, files, max_files, max_bytes, max_document_bytes)


def document_members(folder, max_files=MAX_TEXT_FILES, max_bytes=MAX_TEXT_BYTES,
                     max_document_bytes=MAX_DOCUMENT_BYTES, max_classes=MAX_TEXT_CLASSES):
    """(members, labelled) of a folder of documents to predict: with class subfolders, the
    documents in them as :func:`text_members` reads them (keys ``"<class>/<file>"``,
    labelled), else every file at its top level (keys ``"<file>"``, not labelled); refused as
    :func:`text_members` refuses, and when it holds no document."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DatasetError(f"{folder}: folder of documents not found")
    classes, loose = _layout(folder)
    if classes:
        members = text_members(folder, max_files, max_bytes, max_document_bytes, max_classes)
    else:
        files = [(None, file) for file in loose]
        members = _read_all(folder, folder.resolve(), files, max_files, max_bytes,
                            max_document_bytes)
    if not members:
        raise DatasetError(f"{folder}: no documents (one file per document, at its top level or"
                           f" in one subfolder per class)")
    return members, bool(classes)


def _visible(folder) -> list:
    """The entries of ``folder`` whose names do not start with ``.``, sorted."""
    return sorted(path for path in folder.iterdir() if not path.name.startswith("."))


def _layout(folder):
    """(class folders, top-level files) of ``folder``, hidden ones ignored; DatasetError when
    it holds both (the files would be in no class: no row, and no word)."""
    entries = _visible(folder)
    classes = [path for path in entries if path.is_dir()]
    loose = [path for path in entries if not path.is_dir()]
    if classes and loose:
        raise DatasetError(f"{folder}: holds class subfolders and also {len(loose):,} file(s) "
                           f"at its top level ({loose[0].name!r}...), which no class would "
                           f"hold; move them into a class folder, or out of this folder")
    return classes, loose


def _read_all(folder, root, files, max_files, max_bytes, max_document_bytes):
    """``{name: bytes}`` of ``files`` ((class folder or None, file) pairs) inside ``root``,
    each refused before it is read as the module's list says."""
    members, total = {}, 0
    for class_folder, file in files:
        size = _document_size(file, root, max_document_bytes)
        total += size
        if len(members) >= max_files or total > max_bytes:
            raise DatasetError(f"{folder}: more than {max_files:,} files or "
                               f"{max_bytes:,} bytes; too large for a text folder")
        members[_name(class_folder, file)] = _read(file, max_document_bytes)
    return members


def _inside(path, root):
    """DatasetError when ``path`` (a symbolic link, or below one) leads out of ``root``."""
    if not path.resolve().is_relative_to(root):
        raise DatasetError(f"{path}: a symbolic link out of the text folder {root}; copy the "
                           "documents into it instead")


def _document_size(file, root, limit):
    """The size of the document ``file``, refused before it is read when it is not a regular
    file inside ``root`` or is larger than ``limit``."""
    _inside(file, root)
    info = os.stat(file)
    if not stat.S_ISREG(info.st_mode):
        kind = "FIFO" if stat.S_ISFIFO(info.st_mode) else "folder" \
            if stat.S_ISDIR(info.st_mode) else "device or socket"
        raise DatasetError(f"{file}: a {kind}, not a document; a class folder holds regular "
                           "files only: remove it")
    if info.st_size > limit:
        raise DatasetError(f"{file}: {info.st_size:,} bytes, more than {limit:,} for one "
                           "document; split it or remove it")
    return info.st_size


def _read(file, limit):
    with open(file, "rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise DatasetError(f"{file}: grew past {limit:,} bytes while read; refused")
    return data


def _name(class_folder, file):
    name = file.name if class_folder is None else f"{class_folder.name}/{file.name}"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise DatasetError(f"{os.fsdecode(bytes(file))!r}: a class folder or file name that is "
                           "not UTF-8; rename it") from None
    return name


def decode(members, folder, encoding):
    """The documents of ``members`` (in key order) decoded as ``encoding``; DatasetError naming
    the first file that does not decode."""
    texts = []
    for key in sorted(members):
        try:
            texts.append(members[key].decode(encoding))
        except UnicodeDecodeError as exc:
            raise DatasetError(f"{Path(folder) / key}: not {encoding} text (byte "
                               f"{exc.start}: {exc.reason}); set the dataset's encoding or fix "
                               "the file") from None
    return texts


def check_parts(folders, labels=None, digests=None) -> None:
    """DatasetError when the test folder is the training folder or (``digests`` given: part ->
    tree digest) holds its documents, or (``labels`` given) holds classes the training folder
    lacks (``folders``, ``labels``: part -> folder, part -> labels): :mod:`..held_out`."""
    if set(folders) != {"train", "test"}:
        return
    pair = None if digests is None else (digests["test"], digests["train"])
    held_out.check_not_training(folders["test"], folders["train"], pair, what="folder")
    if labels is not None:
        held_out.matched_labels(folders["test"], folders["train"], labels["test"],
                             labels["train"], items="documents")
