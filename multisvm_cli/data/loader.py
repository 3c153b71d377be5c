"""``load``: a dataset's parts as float64 arrays, from the first place that has them.

Loading order, for the first source of the card that gives all requested parts: the parsed
cache, then the raw files in the data home, then the mirror; when no source is available
locally, the raw files are downloaded (the first source whose files can be). Every raw file is
checked before use: against its size and SHA-256, or (where the canonical digest cannot be known
here) by its structure and labels, with the SHA-256 seen recorded in ``Dataset.checksums``.

A parsed-cache entry is used only when it is tied to those checked raw files: its arrays have
the SHA-256 recorded when they were parsed, its record names this dataset, source, part and the
raw files' digests, and its arrays have the card's shape and classes. Anything else is one
warning, and the entry is discarded and rebuilt from the raw files. A data home that cannot be
written (read-only, full) is one warning when parsing (the arrays are used uncached) and one
DatasetError when a raw file must be downloaded into it.
"""

import importlib.resources
import importlib.util
import os
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from . import archives, cache, formats, locations
from .cards import get_card
from .download import DataHomeError, download, download_unpacked, not_writable, remove_stale_parts
from .errors import DatasetError
from .verify import check_part, check_sha256, sha256_file


@dataclass
class Dataset:
    """Loaded parts of a dataset.

    ``parts`` maps part name -> (X, y labels), X float64 of shape (n, n_features) (or CSR), or
    for a text card (``card.kind == "text"``) an object array of n str documents; ``checksums``
    maps each raw file used -> the SHA-256 it had; ``sources`` maps it -> where it was read
    from; ``source_id`` names the card's source (distribution) used. ``provenance`` is empty
    for a registry dataset; a local one (:mod:`.local`) records how it was read and each file's
    path, SHA-256 and size.
    """

    name: str
    card: object
    parts: dict
    checksums: dict
    sources: dict
    source_id: str
    provenance: dict = field(default_factory=dict)
    # a local csv table's text / missing cells (.encoding.Encoding): X is then an object array
    # the protocol encodes per training part; None: X is numbers as it is
    encoding: object = None


@dataclass(frozen=True)
class Located:
    """A raw file found locally: its path and a word saying where (cache, mirror, package)."""

    path: Path
    origin: str


def load(name, parts=None, mirror=None, data_home=None, progress=True, *, source=None,
         url_base=None):
    """Load dataset ``name``; ``parts`` limits the parts read (default: all of the card's).

    ``source`` picks one of the card's sources (distributions) instead of the first that works;
    ``mirror``, ``data_home``, ``url_base`` override the settings of ``locations``. Raises
    DatasetError (one line) for an unknown name or part, a missing file (naming it, its URL and
    where to put it), or a file that fails its checks.
    """
    card = get_card(name)
    wanted = _wanted_parts(card, parts)
    home, mirror_dir = locations.data_home(data_home), locations.mirror(mirror)
    candidates = _candidates(card, wanted, source)
    for src in candidates:
        found = _locate_all(card, src, home, mirror_dir)
        dataset = _from_parsed_cache(card, src, wanted, found, home)
        if dataset is not None:
            return dataset
        if all(found.get(spec.name) for part in wanted for spec in src.files_for(part)):
            return _parse(card, src, wanted, found, home)
    return _download_and_parse(card, candidates, wanted, home, mirror_dir,
                               locations.url_base(url_base), progress)


def locate(card, spec, home, mirror_dir):
    """Where raw file ``spec`` of ``card`` is found locally, or None."""
    if spec.package:
        path = package_file(spec.package, spec.name)
        return Located(path, "package") if path.is_file() else None
    for folder, origin in ((home, "cache"), (mirror_dir, "mirror")):
        if folder is not None and (Path(folder) / card.folder / spec.name).is_file():
            return Located(Path(folder) / card.folder / spec.name, origin)
    return None


def package_file(package, name):
    """The path of file ``name`` shipped in the installed ``package`` (``sklearn.datasets.data``),
    found in its folder on disk without importing it (``multisvm datasets list`` imports no
    scikit-learn), else through ``importlib.resources`` (a package inside a zip)."""
    top, _, below = package.partition(".")
    found = importlib.util.find_spec(top)
    for folder in (found.submodule_search_locations or []) if found else []:
        path = Path(folder, *filter(None, below.split(".")), name)
        if path.is_file():
            return path
    return Path(str(importlib.resources.files(package) / name))


def part_key(src, part, found):
    """The parsed-cache key of ``part``; None when a file with no known SHA-256 is absent."""
    digests = _accepted_digests(src, part, found)
    return None if digests is None else cache.key(src, part, digests)


def _accepted_digests(src, part, found):
    """Per raw file of ``part``: the card's accepted SHA-256 or tree digests (a list), or the
    SHA-256 of the local file where the card knows none; None when such a file is absent."""
    digests = []
    for spec in src.files_for(part):
        if spec.digests:
            digests.append(list(spec.digests))
        elif found.get(spec.name):
            digests.append(sha256_file(found[spec.name].path))
        else:
            return None
    return digests


def _wanted_parts(card, parts):
    wanted = tuple(card.parts) if parts is None else (parts,) if isinstance(parts, str) \
        else tuple(parts)
    unknown = [part for part in wanted if part not in card.parts]
    if unknown or not wanted:
        raise DatasetError(f"{card.name} has no part {', '.join(unknown) or '(none asked)'}; "
                           f"its parts: {', '.join(card.parts)}")
    return tuple(part for part in card.parts if part in wanted)


def _candidates(card, wanted, source_id):
    sources = [card.source(source_id)] if source_id else list(card.sources)
    candidates = [src for src in sources if src.provides(wanted)]
    if not candidates:
        raise DatasetError(f"no source of {card.name} gives the {', '.join(wanted)} part(s)"
                           + (f" (source {source_id} gives {', '.join(sources[0].parts)})"
                              if source_id else ""))
    return candidates


def _locate_all(card, src, home, mirror_dir):
    return {spec.name: locate(card, spec, home, mirror_dir) for spec in src.files}


def _from_parsed_cache(card, src, wanted, found, home):
    """The wanted parts from the parsed cache, or None when one is absent or was discarded."""
    loaded, checksums, origins = {}, {}, {}
    for part in wanted:
        digests = _accepted_digests(src, part, found)
        if digests is None:
            return None
        key = cache.key(src, part, digests)
        path = cache.part_path(home, card.name, src.id, part, key)
        entry = _cached_part(card, src, part, key, digests, path)
        if entry is None:
            return None
        X, y, record = entry
        loaded[part] = (X, y)
        for file in record["files"]:
            checksums[file["name"]] = file["sha256"]
            origins[file["name"]] = f"parsed cache {path} (from {file['origin']})"
    return Dataset(card.name, card, loaded, checksums, origins, src.id)


def _cached_part(card, src, part, key, digests, path):
    """``(X, y, record)`` of a parsed-cache entry that is tied to the checked raw files and
    agrees with the card; None when absent. A mismatching entry is discarded, with a warning."""
    try:
        entry = cache.read_part(path)
        if entry is None:
            return None
        X, y, record = entry
        _check_record(card, src, part, key, digests, record)
        check_part(card, part, X, y, src.id)
        return entry
    except (cache.Mismatch, DatasetError) as exc:
        warnings.warn(f"parsed cache {path}: {exc}; discarded, parsing the raw files again",
                      UserWarning, stacklevel=4)
        cache.discard(path)
        return None


def _check_record(card, src, part, key, digests, record):
    """cache.Mismatch unless ``record`` names this dataset, source, part and key, and the part's
    raw files with SHA-256 the card accepts (or, where it knows none, the local file's)."""
    where = [record.get(field) for field in ("dataset", "source", "part", "key")]
    if where != [card.name, src.id, part, key]:
        raise cache.Mismatch(f"its record is for {'/'.join(map(str, where))}, not "
                             f"{card.name}/{src.id}/{part}/{key}")
    files = record.get("files")
    names = [spec.name for spec in src.files_for(part)]
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files) \
            or [f.get("name") for f in files] != names:
        raise cache.Mismatch(f"its record does not list the raw files {', '.join(names)}")
    for file, accepted in zip(files, digests):
        if file.get("sha256") not in (accepted if isinstance(accepted, list) else [accepted]):
            raise cache.Mismatch(f"it was parsed from a {file['name']} with sha256 "
                                 f"{str(file.get('sha256'))[:16]}..., not the verified one")


def _parse(card, src, wanted, found, home):
    """Verify and parse every part of ``src`` whose files are all present, cache each, and
    return the wanted ones."""
    readable = [part for part in src.parts
                if all(found.get(spec.name) for spec in src.files_for(part))]
    used = {spec.name: spec for part in readable for spec in src.files_for(part)}
    tables = {}
    seen = {name: _verify(card, spec, found[name], tables) for name, spec in used.items()}
    origins = {name: f"{found[name].origin} {found[name].path}" for name in used}
    loaded = {}
    unwritable = None
    for part in readable:
        X, y = _read_part(card, src, part, found, tables)
        check_part(card, part, X, y, src.id)
        files = [spec.name for spec in src.files_for(part)]
        key = part_key(src, part, found)
        path = cache.part_path(home, card.name, src.id, part, key)
        record = {"dataset": card.name, "source": src.id, "part": part, "key": key,
                  "files": [{"name": f, "sha256": seen[f], "origin": origins[f]} for f in files]}
        try:
            cache.write_part(path, X, y, record)
        except OSError as exc:
            unwritable = unwritable or (path.parent, exc)
        loaded[part] = (X, y)
    if unwritable:
        folder, exc = unwritable
        warnings.warn(f"cannot write the parsed cache in {folder} "
                      f"({exc.strerror or type(exc).__name__}): {card.name} is used uncached and "
                      "will be parsed again next time (set MULTISVM_DATA_HOME to a writable "
                      "folder)", UserWarning, stacklevel=3)
    wanted_files = list(dict.fromkeys(spec.name for part in wanted
                                      for spec in src.files_for(part)))
    return Dataset(card.name, card, {part: loaded[part] for part in wanted},
                   {f: seen[f] for f in wanted_files}, {f: origins[f] for f in wanted_files},
                   src.id)


def _verify(card, spec, located, tables):
    """SHA-256 (an archive's: tree digest) of a located file, checked against the card where
    the card knows it; a verified archive's members go into ``tables``."""
    if located.origin == "package":
        return sha256_file(located.path)
    if spec.tree_sha256:
        digest, tables[spec.name] = archives.read_verified(located.path, spec, card.name)
        return digest
    return check_sha256(located.path, spec, card.name)


def check_file(card, spec, path):
    """Check a raw file by its SHA-256, or an archive by its tree digest; returns the digest."""
    if spec.tree_sha256:
        return archives.read_verified(path, spec, card.name)[0]
    return check_sha256(path, spec, card.name)


def _read_part(card, src, part, found, tables):
    """(X, y) of one part, by the reader of the source's format (:mod:`.formats`); ``tables``
    memoises parsed files across the source's parts."""
    return formats.read_part(card, src, part, {name: f.path for name, f in found.items() if f},
                             tables)


def _download_and_parse(card, candidates, wanted, home, mirror_dir, url_base, progress):
    for src in candidates:
        found = _locate_all(card, src, home, mirror_dir)
        missing = [spec for part in wanted for spec in src.files_for(part)
                   if not found.get(spec.name)]
        if all(_downloadable(src, spec, url_base) for spec in missing):
            try:
                for spec in dict.fromkeys(missing):
                    _fetch(card, src, spec, home, url_base, progress)
            except DataHomeError:
                raise
            except DatasetError as exc:
                raise DatasetError(f"{exc}{_partial_note(card, candidates, home, mirror_dir)}") \
                    from None
            return _parse(card, src, wanted, _locate_all(card, src, home, mirror_dir), home)
    raise DatasetError(_missing_message(card, candidates, wanted, home, mirror_dir))


def _downloadable(src, spec, url_base):
    return bool(spec.download and spec.url)


def _fetch(card, src, spec, home, url_base, progress):
    """Download one raw file into ``<home>/<dataset>/``, checked before it is renamed."""
    folder = Path(home) / card.folder
    try:
        if spec.packing:
            url = f"{url_base}/{card.folder}/{spec.name}{spec.packing}" if url_base else spec.url
            download_unpacked(url, folder / spec.name, spec.sha256, spec.size, progress,
                              packing=spec.packing)
            return
        url = f"{url_base}/{card.folder}/{spec.name}" if url_base else spec.url
        download(url, folder / spec.name, spec.sha256, check=_download_check(card, src, spec),
                 progress=progress, sizes=spec.size, max_size=spec.max_size)
    except DataHomeError as exc:
        raise DataHomeError(f"{card.name}: {exc}") from None
    except DatasetError as exc:
        unpack = ", decompress it (gzip -d reads it)" if spec.packing else ""
        raise DatasetError(f"{card.name}: {exc}; get {spec.name} from {spec.url}{unpack} and put "
                           f"it in {folder}/ (or in <mirror>/{card.folder}/ with --mirror)") \
            from None


def _download_check(card, src, spec):
    """A check for a downloaded file: an archive's tree digest; for a file without known
    SHA-256, its format's ``check_file`` (:mod:`.formats`: for text, its rows, columns and
    labels); None when the SHA-256 is the check."""
    if spec.tree_sha256:
        return lambda path: archives.read_verified(path, spec, card.name)
    check = None if spec.sha256 else formats.file_check(src.format)
    return check and (lambda path: check(card, src, spec, path))


def _missing_message(card, candidates, wanted, home, mirror_dir):
    """One line: which file is missing for which parts, its URL, where to put it."""
    src = candidates[0]
    found = _locate_all(card, src, home, mirror_dir)
    missing = [spec for spec in dict.fromkeys(s for p in wanted for s in src.files_for(p))
               if not found.get(spec.name)]
    files = ", ".join(f"{spec.name} ({spec.url})" for spec in missing)
    where = f"{Path(home) / card.folder}/" + (f" or {Path(mirror_dir) / card.folder}/"
                                              if mirror_dir else " (or a mirror, --mirror)")
    return (f"{card.name}: the {', '.join(wanted)} part(s) need {files}, not found and not "
            f"downloadable here; put it in {where}"
            f"{_partial_note(card, candidates, home, mirror_dir)}")


def _partial_note(card, candidates, home, mirror_dir):
    """' (source S gives only P)' for sources found locally that lack some wanted part."""
    partial = [f"{src.id} source found, it gives only {', '.join(src.parts)}"
               for src in card.sources if src not in candidates
               and all(locate(card, spec, home, mirror_dir) for spec in src.files)]
    return f" ({'; '.join(partial)})" if partial else ""


def fetch(name, parts=None, mirror=None, data_home=None, progress=True, *, url_base=None):
    """``load``, then make the data home self-contained: raw files read from the mirror are
    copied into ``<data_home>/<folder>/`` (checked again, written to a temporary file and
    renamed). Returns the Dataset; raises DatasetError like ``load``."""
    dataset = load(name, parts, mirror, data_home, progress, url_base=url_base)
    card, home = dataset.card, locations.data_home(data_home)
    src = card.source(dataset.source_id)
    for spec in src.files:
        located = locate(card, spec, home, locations.mirror(mirror))
        if located is not None and located.origin == "mirror":
            _copy_verified(card, spec, located.path, Path(home) / card.folder / spec.name)
    return dataset


def _copy_verified(card, spec, origin, target):
    """Copy ``origin`` to ``target`` through ``.<name>.part-<pid>-copy``, checked before the
    rename; DataHomeError when the data home cannot be written."""
    temp = target.with_name(f".{target.name}.part-{os.getpid()}-copy")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_parts(target.parent)
        shutil.copyfile(origin, temp)
        check_file(card, spec, temp)
        os.replace(temp, target)
    except OSError as exc:
        if exc.filename == str(origin):
            raise DatasetError(f"{card.name}: cannot read {origin} "
                               f"({exc.strerror or type(exc).__name__})") from None
        raise DataHomeError(f"{card.name}: {not_writable(target.parent, exc)}") from None
    finally:
        if temp.exists():
            temp.unlink()
