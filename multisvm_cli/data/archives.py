"""Archives of many files: read a ``.tar.gz`` safely into memory and check its tree digest.

Reading never writes to disk: each regular member becomes ``relative path -> bytes`` under a
virtual root folder. A member is refused (one DatasetError line) when its path is absolute,
has a ``..`` part or is empty, when it is a symbolic or hard link, a device, a FIFO or another
non-regular, non-folder member, or when the members pass ``MAX_MEMBERS`` in number or
``MAX_BYTES`` in total size.

The tree digest (``../shared/datasets/SOURCES.md``, "Archives of many files") is the SHA-256
of the text with one line ``<sha256 of the member's bytes>  <member path>\\n`` per regular
member, sorted by path in byte order (the ``FILES.sha256`` that ``sha256sum`` prints under
``LC_ALL=C sort``). The hashed path is the member's name in the archive with a leading ``./``
removed, so ``20news-bydate-train/alt.atheism/49960`` (20 Newsgroups) and ``reut2-000.sgm``
(Reuters-21578, files at the top level): the canonical archives' own layout.
"""

import hashlib
import posixpath
import tarfile
from pathlib import Path

from .errors import DatasetError
from .verify import check_size

MAX_MEMBERS = 100_000
MAX_BYTES = 1 << 30  # 1 GiB of member bytes in all


COMPRESSIONS = {".tar.gz": "r:gz", ".tgz": "r:gz", ".tar": "r:", ".tar.bz2": "r:bz2",
                ".tar.xz": "r:xz"}


def tar_mode(name, dataset="archive"):
    """The ``tarfile`` mode that reads an archive named ``name`` with the compression its name
    declares (``.tar.gz`` gzip, ``.tar`` none, ...): never ``r:*``, which tries every
    compression in turn and would read a large file that is not gzip for minutes as LZMA."""
    lowered = str(name).lower()
    for suffix, mode in COMPRESSIONS.items():
        if lowered.endswith(suffix):
            return mode
    raise DatasetError(f"{dataset}: {name} is not named as a tar archive (expected one of "
                       f"{', '.join(COMPRESSIONS)})")


def read_members(path, dataset, max_members=MAX_MEMBERS, max_bytes=MAX_BYTES, name=None):
    """``{relative path: bytes}`` of the regular members of the tar archive at ``path``, read
    in memory with the compression ``name`` (the card's file name; default: the path's)
    declares (:func:`tar_mode`); DatasetError for an unsafe or oversized archive (see the
    module docstring) or one that does not open."""
    members, total = {}, 0
    mode = tar_mode(name or Path(path).name, dataset)
    try:
        with tarfile.open(path, mode) as archive:
            for count, member in enumerate(archive, 1):
                if count > max_members:
                    raise _refused(dataset, path, f"has more than {max_members:,} members")
                name = member_path(member.name, dataset, path)
                if member.isdir():
                    continue
                if not member.isreg():
                    raise _refused(dataset, path, f"member {member.name!r} is a "
                                                  f"{_kind(member)}, not a regular file")
                total += member.size
                if total > max_bytes:
                    raise _refused(dataset, path, f"holds more than {max_bytes:,} bytes")
                if name in members:
                    raise _refused(dataset, path, f"member {name!r} appears twice")
                members[name] = archive.extractfile(member).read()
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise DatasetError(f"{dataset}: cannot read the archive {path}: "
                           f"{str(exc) or type(exc).__name__}") from None
    return members


def member_path(name, dataset="archive", path=""):
    """A member's name as a relative path inside the root folder (``./`` removed); DatasetError
    for an absolute path, a ``..`` part, a backslash, an empty name or one not UTF-8."""
    relative = name[2:] if name.startswith("./") else name
    try:
        relative.encode("utf-8")  # tarfile keeps undecodable bytes as surrogates
    except UnicodeEncodeError:
        raise _refused(dataset, path, f"member {name!r} has a name that is not UTF-8 "
                                      "(rename it and pack the archive again)") from None
    parts = relative.rstrip("/").split("/")
    if (not relative or relative.startswith("/") or "\\" in relative or "\0" in relative
            or any(part in ("", ".", "..") for part in parts)):
        raise _refused(dataset, path, f"member {name!r} would land outside its folder")
    return posixpath.normpath(relative)


def tree_listing(members):
    """The ``FILES.sha256`` text of ``members`` (see the module docstring)."""
    lines = sorted((name.encode("utf-8"), hashlib.sha256(data).hexdigest())
                   for name, data in members.items())
    return "".join(f"{digest}  {name.decode('utf-8')}\n" for name, digest in lines)


def tree_digest(members):
    """Hex SHA-256 of ``tree_listing(members)``."""
    return hashlib.sha256(tree_listing(members).encode("utf-8")).hexdigest()


def read_verified(path, spec, dataset):
    """``(tree digest, members)`` of the archive at ``path``; DatasetError (one line) when its
    size is not one the card allows (:func:`.verify.check_size`, before it is read) or its
    tree digest is not one the card's FileSpec ``spec`` accepts."""
    check_size(path, spec, dataset)  # bounded as its download is, before it is read
    members = read_members(path, dataset, name=spec.name)
    seen = tree_digest(members)
    if seen not in spec.tree_sha256:
        raise DatasetError(f"{dataset}: {spec.name} at {path} has tree digest {seen}, expected "
                           f"{spec.tree_sha256[0]}: a member is corrupt, missing or extra; "
                           "refused (delete it and fetch it again)")
    return seen, members


def _kind(member):
    if member.issym():
        return "symbolic link"
    if member.islnk():
        return "hard link"
    if member.ischr() or member.isblk():
        return "device"
    return "FIFO" if member.isfifo() else "special member"


def _refused(dataset, path, reason):
    return DatasetError(f"{dataset}: the archive {path} {reason}: refused")
