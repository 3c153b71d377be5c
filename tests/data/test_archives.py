"""Archive cards: safe in-memory reading of a .tar.gz and its tree digest (SOURCES.md)."""

import hashlib
import io
import tarfile

import pytest

from multisvm_cli import data
from multisvm_cli.data import archives, cards

FILES = {"a/one.txt": b"first\n", "a/two.txt": b"second\n", "b/three": b"\xe9t\xe9\n"}


def make_archive(path, members=FILES, extra=()):
    """A .tar.gz of ``members`` (path -> bytes) plus ``extra`` TarInfo members without data."""
    with tarfile.open(path, "w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
        for info in extra:
            archive.addfile(info)
    return path


def listing_digest(members):
    """SOURCES.md's tree digest, spelled out: lines sorted by path, then SHA-256."""
    lines = [f"{hashlib.sha256(members[k]).hexdigest()}  {k}\n" for k in sorted(members)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def spec(digest):
    return cards.FileSpec("x.tar.gz", (), (), None, False, None, None, tree_sha256=(digest,))


def test_tree_digest_is_the_sha256_of_the_sorted_listing(tmp_path):
    members = archives.read_members(make_archive(tmp_path / "x.tar.gz"), "t")
    assert members == FILES
    assert archives.tree_listing(members).splitlines()[0].endswith("  a/one.txt")
    assert archives.tree_digest(members) == listing_digest(FILES)


def test_a_leading_dot_slash_and_folders_do_not_change_the_digest(tmp_path):
    folder = tarfile.TarInfo("./a")
    folder.type = tarfile.DIRTYPE
    path = make_archive(tmp_path / "x.tar.gz", {f"./{k}": v for k, v in FILES.items()},
                        [folder])
    assert archives.tree_digest(archives.read_members(path, "t")) == listing_digest(FILES)


def test_a_tampered_member_is_refused(tmp_path):
    path = make_archive(tmp_path / "x.tar.gz", dict(FILES, **{"b/three": b"et\n"}))
    with pytest.raises(data.DatasetError, match=r"^t: x\.tar\.gz at .* has tree digest "
                                                 r"[0-9a-f]{64}, expected [0-9a-f]{64}: "
                                                 r".*refused"):
        archives.read_verified(path, spec(listing_digest(FILES)), "t")
    digest, members = archives.read_verified(make_archive(tmp_path / "y.tar.gz"),
                                             spec(listing_digest(FILES)), "t")
    assert members == FILES


@pytest.mark.parametrize("name", ["../x", "a/../../x", "/etc/x", "a//b", ""])
def test_a_member_outside_the_folder_is_refused(tmp_path, name):
    path = make_archive(tmp_path / "x.tar.gz", {name: b"evil\n"})
    with pytest.raises(data.DatasetError, match="would land outside its folder: refused"):
        archives.read_members(path, "t")


@pytest.mark.parametrize("kind, word", [(tarfile.SYMTYPE, "symbolic link"),
                                        (tarfile.LNKTYPE, "hard link"),
                                        (tarfile.CHRTYPE, "device"),
                                        (tarfile.FIFOTYPE, "FIFO")])
def test_links_and_devices_are_refused(tmp_path, kind, word):
    link = tarfile.TarInfo("a/link")
    link.type, link.linkname = kind, "/etc/passwd"
    path = make_archive(tmp_path / "x.tar.gz", FILES, [link])
    with pytest.raises(data.DatasetError, match=f"member 'a/link' is a {word}, not a regular "
                                                "file: refused"):
        archives.read_members(path, "t")


def test_member_count_and_total_size_are_bounded(tmp_path):
    path = make_archive(tmp_path / "x.tar.gz")
    with pytest.raises(data.DatasetError, match="more than 2 members"):
        archives.read_members(path, "t", max_members=2)
    with pytest.raises(data.DatasetError, match="more than 10 bytes"):
        archives.read_members(path, "t", max_bytes=10)


def test_a_file_that_is_no_archive_is_one_line(tmp_path):
    (tmp_path / "x.tar.gz").write_bytes(b"not a tar")
    with pytest.raises(data.DatasetError, match="cannot read the archive"):
        archives.read_members(tmp_path / "x.tar.gz", "t")


@pytest.mark.parametrize("value", [0, "0" * 63, "g" * 64, [], ["a" * 64, 7]])
def test_a_digest_must_be_a_64_digit_hex_string(value):
    for field in ("sha256", "tree_sha256"):
        with pytest.raises(ValueError, match=f"{field} must be a 64-digit hex string"):
            cards._file({"name": "f", field: value})
    assert cards._file({"name": "f", "sha256": "AB" * 32}).sha256 == ("ab" * 32,)


def test_the_loader_refuses_a_tampered_archive_in_the_mirror(tmp_path, monkeypatch):
    monkeypatch.setenv("MULTISVM_URL_BASE", "http://127.0.0.1:9")
    mirror = tmp_path / "mirror"
    (mirror / "reuters21578").mkdir(parents=True)
    make_archive(mirror / "reuters21578" / "reuters21578.tar.gz", {"reut2-000.sgm": b"<x>"})
    with pytest.raises(data.DatasetError) as error:
        data.load("reuters21578", mirror=mirror, data_home=tmp_path / "home")
    message = str(error.value)
    assert "\n" not in message and "has tree digest" in message
    assert "expected 36b7ad58c8eed975" in message


@pytest.mark.slow
def test_a_downloaded_archive_is_checked_by_its_tree_digest(tmp_path, mirror, served):
    folder, base = served
    (folder / "reuters21578").mkdir()
    make_archive(folder / "reuters21578" / "reuters21578.tar.gz", {"reut2-000.sgm": b"<x>"})
    home = tmp_path / "home"
    with pytest.raises(data.DatasetError, match="has tree digest .*refused"):
        data.load("reuters21578", data_home=home, mirror=tmp_path / "none", url_base=base,
                  progress=False)
    assert not (home / "reuters21578" / "reuters21578.tar.gz").exists()
    with pytest.raises(data.DatasetError, match="announced as 125 bytes.*refused"):
        data.download.download(f"{base}/reuters21578/reuters21578.tar.gz", tmp_path / "x",
                               max_size=10, progress=False)
    (folder / "reuters21578" / "reuters21578.tar.gz").write_bytes(
        (mirror / "reuters21578" / "reuters21578.tar.gz").read_bytes())
    loaded = data.load("reuters21578", parts="test", data_home=home,
                       mirror=tmp_path / "none", url_base=base, progress=False)
    assert len(loaded.parts["test"][1]) == 2568
    assert (home / "reuters21578" / "reuters21578.tar.gz").is_file()
