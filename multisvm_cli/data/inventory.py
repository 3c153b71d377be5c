"""What is where, without parsing: cached parts, parts available locally, file checksums."""

from . import archives, cache, locations
from .cards import get_card
from .errors import DatasetError
from .loader import locate, part_key
from .verify import check_size, sha256_file


def cached_parts(name, mirror=None, data_home=None):
    """The parts of ``name`` that some source has in the parsed cache, in card order (both files
    of the entry present; their content is checked when loaded)."""
    card = get_card(name)
    home, mirror_dir = locations.data_home(data_home), locations.mirror(mirror)
    cached = set()
    for src in card.sources:
        found = {spec.name: locate(card, spec, home, mirror_dir) for spec in src.files}
        for part in src.parts:
            key = part_key(src, part, found)
            path = key and cache.part_path(home, card.name, src.id, part, key)
            if path and path.is_file() and cache.record_path(path).is_file():
                cached.add(part)
    return [part for part in card.parts if part in cached]


def available_parts(name, mirror=None, data_home=None):
    """The parts of ``name`` that can be loaded without a download (cache, mirror, package)."""
    card = get_card(name)
    home, mirror_dir = locations.data_home(data_home), locations.mirror(mirror)
    available = set(cached_parts(name, mirror, data_home))
    for src in card.sources:
        for part in src.parts:
            if all(locate(card, spec, home, mirror_dir) for spec in src.files_for(part)):
                available.add(part)
    return [part for part in card.parts if part in available]


def file_status(name, mirror=None, data_home=None):
    """One row per raw file of every source: source, file, where found, checksum status."""
    card = get_card(name)
    home, mirror_dir = locations.data_home(data_home), locations.mirror(mirror)
    rows = []
    for src in card.sources:
        for spec in src.files:
            located = locate(card, spec, home, mirror_dir)
            rows.append({"source": src.id, "file": spec.name,
                         "location": f"{located.origin} {located.path}" if located else "missing",
                         "sha256": _checksum_status(spec, located),
                         "url": spec.url or ""})
    return rows


def _checksum_status(spec, located):
    if located is None:
        return "-"
    if spec.tree_sha256:
        return _tree_status(spec, located)
    seen = sha256_file(located.path)
    if not spec.sha256:
        return f"{seen[:16]}... (no canonical digest: structure checked)"
    if seen in spec.sha256:
        return f"ok ({seen[:16]}...)"
    return f"MISMATCH: {seen[:16]}..., expected {spec.sha256[0][:16]}..."



def _tree_status(spec, located):
    try:
        check_size(located.path, spec, spec.name)
        seen = archives.tree_digest(archives.read_members(located.path, spec.name,
                                                          name=spec.name))
    except DatasetError:
        return "UNREADABLE archive"
    if seen in spec.tree_sha256:
        return f"tree ok ({seen[:16]}...)"
    return f"TREE MISMATCH: {seen[:16]}..., expected {spec.tree_sha256[0][:16]}..."
