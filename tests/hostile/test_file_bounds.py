"""A local or mirror file is bounded like a download: a huge file or a special one (a FIFO, a
device) is refused before it is read, and an archive is read only with the compression its
name declares (issue #33)."""

import os

import pytest

from helpers import sparse_file


# ------------------------------------------- 5. a local or mirror file bounded like a download

def test_a_huge_file_in_place_of_a_mirror_archive_is_refused_unread(tmp_path, no_network):
    from multisvm_cli import data

    mirror = tmp_path / "mirror"
    (mirror / "reuters21578").mkdir(parents=True)
    sparse_file(mirror / "reuters21578" / "reuters21578.tar.gz", 3 * 10**9)
    with pytest.raises(data.DatasetError) as caught:
        data.load("reuters21578", mirror=mirror, data_home=tmp_path / "home", progress=False)
    message = str(caught.value)
    assert "3,000,000,000 bytes, more than" in message and "not read" in message
    assert "\n" not in message


def test_an_archive_is_read_only_with_the_compression_its_name_declares(tmp_path):
    """A file named .tar.gz that is not gzip is refused at once (``r:*`` went on to try bz2
    and LZMA); a plain tar named .tar.gz too."""
    import tarfile

    from multisvm_cli.data import archives

    plain = tmp_path / "plain.tar.gz"
    with tarfile.open(plain, "w") as archive:  # no compression, named .tar.gz
        archive.add(__file__, arcname="a/doc")
    with pytest.raises(archives.DatasetError, match="cannot read the archive"):
        archives.read_members(plain, "t")
    assert archives.read_members(plain, "t", name="plain.tar") == {
        "a/doc": open(__file__, "rb").read()}
    assert archives.tar_mode("x.TAR.GZ") == "r:gz" and archives.tar_mode("x.tar") == "r:"
    with pytest.raises(archives.DatasetError, match="not named as a tar archive"):
        archives.tar_mode("x.zip")


def test_a_huge_or_special_local_file_is_refused_before_it_is_read(tmp_path):
    from multisvm_cli.data import DatasetError
    from multisvm_cli.data.local.files import LocalSpec, load_local

    huge = sparse_file(tmp_path / "huge.svm", 3 * 10**9)
    with pytest.raises(DatasetError, match=r"huge.svm: 3,000,000,000 bytes, more than 4 x "
                                           r"memory_mb"):
        load_local(LocalSpec("mine", huge, "svmlight", memory_mb=256))
    fifo = tmp_path / "pipe.svm"
    os.mkfifo(fifo)
    with pytest.raises(DatasetError, match="pipe.svm"):
        load_local(LocalSpec("mine", fifo, "svmlight"))
