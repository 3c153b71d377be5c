"""Downloads against a local http.server on 127.0.0.1 (never the internet)."""

import gzip
import hashlib
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data import download as download_module
from multisvm_cli.data.download import download
from local_server import leftovers, serve  # noqa: E402  (tests/ is on sys.path)
from helpers import REPO


LETTER_SHA = "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2"


@pytest.fixture
def no_mirror(monkeypatch):
    monkeypatch.delenv("MULTISVM_MIRROR", raising=False)


def test_good_file_is_downloaded_verified_and_cached(mirror, served, data_home, no_mirror):
    folder, base = served
    serve(folder, "letter", "letter-recognition.data",
          (mirror / "letter" / "letter-recognition.data").read_bytes())
    letter = data.load("letter", url_base=base, progress=False)
    cached = data_home / "letter" / "letter-recognition.data"
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == LETTER_SHA
    assert letter.checksums == {"letter-recognition.data": LETTER_SHA}
    assert letter.parts["train"][0].shape == (16000, 16) and letter.parts["train"][1][0] == "T"
    assert [p for p in leftovers(data_home) if p.startswith(".")] == []


@pytest.mark.parametrize("damage", ["truncated", "altered"])
def test_damaged_file_is_refused_and_not_cached(mirror, served, data_home, no_mirror, damage):
    folder, base = served
    good = (mirror / "letter" / "letter-recognition.data").read_bytes()
    bad = good[: len(good) - 1000] if damage == "truncated" else good.replace(b"T,2", b"T,3", 1)
    serve(folder, "letter", "letter-recognition.data", bad)
    with pytest.raises(data.DatasetError, match=r"letter-recognition\.data downloaded from "
                                                 r"http://127\.0\.0\.1.* has sha256 .*refused, "
                                                 r"not cached.*put it in"):
        data.load("letter", url_base=base, progress=False)
    assert leftovers(data_home) == []


def test_interrupted_transfer_leaves_nothing(mirror, served, tmp_path):
    folder, base = served
    serve(folder, "letter", "letter-recognition.data",
          (mirror / "letter" / "letter-recognition.data").read_bytes())
    target = tmp_path / "home" / "letter-recognition.data"
    with pytest.raises(data.DatasetError, match="stopped after 356282 of 712565 bytes"):
        download(f"{base}/cut/letter/letter-recognition.data", target, (LETTER_SHA,),
                 progress=False)
    assert list(target.parent.iterdir()) == []


@pytest.mark.slow
def test_file_without_known_checksum_is_checked_by_structure(mirror, served, data_home,
                                                             no_mirror):
    folder, base = served
    text = (mirror / "usps" / "zip.test").read_bytes()
    packed = gzip.compress(text)
    serve(folder, "usps", "zip.test.gz", packed)
    usps = data.load("usps", parts=["test"], source="esl-gz", url_base=base, progress=False)
    assert usps.checksums == {"zip.test.gz": hashlib.sha256(packed).hexdigest()}
    reference = data.load("usps", parts=["test"], mirror=mirror, source="hdf5")
    np.testing.assert_array_equal(usps.parts["test"][0], reference.parts["test"][0])
    np.testing.assert_array_equal(usps.parts["test"][1], reference.parts["test"][1])


@pytest.mark.slow
def test_file_with_wrong_structure_is_refused(mirror, served, data_home, no_mirror):
    folder, base = served
    lines = (mirror / "usps" / "zip.test").read_bytes().splitlines(keepends=True)
    serve(folder, "usps", "zip.test.gz", gzip.compress(b"".join(lines[:-5])))
    with pytest.raises(data.DatasetError, match=r"zip\.test\.gz has 2002 rows x 257 columns, "
                                                 r"expected 2007 x 257.*refused"):
        data.load("usps", parts=["test"], source="esl-gz", url_base=base, progress=False)
    assert leftovers(data_home) == []


def test_no_network_and_no_mirror_names_file_url_and_folder(served, data_home, no_mirror):
    folder, base = served  # serves nothing: every file is a 404
    with pytest.raises(data.DatasetError) as error:
        data.load("segment", url_base=base, progress=False)
    message = str(error.value)
    assert "\n" not in message
    assert "HTTP error 404" in message
    assert "https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/segment/segment.dat" \
        in message
    assert f"put it in {data_home / 'segment'}/" in message
    assert leftovers(data_home) == []


def test_file_that_cannot_be_downloaded_says_where_to_get_it(data_home, no_mirror, tmp_path):
    with pytest.raises(data.DatasetError, match=r"usps: the test part\(s\) need zip\.test "
                                                 r"\(https://hastie.*\), not found and not "
                                                 r"downloadable here; put it in"):
        data.load("usps", parts=["test"], source="esl", mirror=tmp_path)


def test_covertype_is_downloaded_as_gz_and_checked_decompressed(served, data_home, no_mirror):
    """covtype.data is fetched as <base>/covtype/covtype.data.gz and refused (nothing kept)
    when its decompressed bytes are not the card's."""
    folder, base = served
    serve(folder, "covtype", "covtype.data.gz", gzip.compress(b"2596,51,3,5\n"))
    with pytest.raises(data.DatasetError, match=r"covertype: covtype\.data decompressed from "
                                                 r"http://127\.0\.0\.1.*covtype\.data\.gz is 12 "
                                                 r"bytes .*expected 75,169,317 bytes.*put it in"):
        data.load("covertype", parts=["test"], url_base=base, progress=False)
    assert leftovers(data_home) == []


def test_gunzipped_download_keeps_the_checked_content(served, tmp_path):
    """The .gz's own bytes (its header's time) do not matter: the content is checked."""
    folder, base = served
    content = b"1,2,3\n" * 1000
    digest = hashlib.sha256(content).hexdigest()
    serve(folder, "d", "f.gz", gzip.compress(content, mtime=12345))
    target = tmp_path / "home" / "f"
    assert download_module.download_gunzipped(f"{base}/d/f.gz", target, (digest,),
                                              (len(content),), progress=False) == digest
    assert target.read_bytes() == content
    assert sorted(p.name for p in target.parent.iterdir()) == ["f"]
    with pytest.raises(data.DatasetError, match="decompresses to more than 100 bytes"):
        download_module.download_gunzipped(f"{base}/d/f.gz", tmp_path / "home" / "g", (),
                                           (100,), progress=False)
    assert sorted(p.name for p in target.parent.iterdir()) == ["f"]


VOWEL_SIZE = 73565


@pytest.fixture
def count_written(monkeypatch):
    """The sizes of the chunks ``download`` writes to its temporary file."""
    written = []
    write = download_module._write

    def counting(sink, chunk):
        written.append(len(chunk))
        write(sink, chunk)

    monkeypatch.setattr(download_module, "_write", counting)
    return written


@pytest.mark.parametrize("prefix, message", [
    ("/huge", r"vowel: vowel-context\.data from http://127\.0\.0\.1:\d+/huge/vowel/"
              r"vowel-context\.data is longer than the 73,565 bytes the card records: stopped "
              r"after 73,565 bytes, refused, not cached; get vowel-context\.data from https://"),
    ("/huge-announced", r"vowel: vowel-context\.data at http://127\.0\.0\.1:\d+/huge-announced/"
                        r"vowel/vowel-context\.data is announced as 300,000,000 bytes, the card "
                        r"records 73,565 bytes: refused, not downloaded; get "),
])
def test_oversized_download_stops_at_the_card_size(served, data_home, no_mirror, count_written,
                                                   prefix, message):
    folder, base = served
    with pytest.raises(data.DatasetError, match=message):
        data.load("vowel", url_base=base + prefix, progress=False)
    assert sum(count_written) <= VOWEL_SIZE  # never more than the card's size is written
    assert sum(count_written) <= VOWEL_SIZE + download_module.CHUNK_BYTES
    if prefix == "/huge-announced":
        assert count_written == []
    assert leftovers(data_home) == []


def test_short_file_is_refused_by_its_size(mirror, served, tmp_path):
    folder, base = served
    good = (mirror / "letter" / "letter-recognition.data").read_bytes()
    serve(folder, "letter", "short", good[:-1000])
    target = tmp_path / "home" / "letter-recognition.data"
    with pytest.raises(data.DatasetError, match=r"letter-recognition\.data downloaded from .* is "
                                                 r"711,565 bytes, expected 712,565 bytes: "
                                                 r"refused, not cached"):
        download(f"{base}/letter/short", target, sizes=(712565,), progress=False)
    with pytest.raises(data.DatasetError, match=r"has sha256 [0-9a-f]{64}, expected 2b89f360.* "
                                                 r"\(711,565 bytes, expected 712,565 bytes\): "
                                                 r"refused, not cached"):
        download(f"{base}/letter/short", target, (LETTER_SHA,), sizes=(712565,),
                 progress=False)
    assert list(target.parent.iterdir()) == []


def test_stale_partial_files_are_removed_on_the_next_fetch(mirror, served, data_home,
                                                           no_mirror):
    folder, base = served
    serve(folder, "vowel", "vowel-context.data",
          (mirror / "vowel" / "vowel-context.data").read_bytes())
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    home = data_home / "vowel"
    home.mkdir(parents=True)
    stale = home / f".vowel-context.data.part-{int(gone.stdout)}-x1y2z3"
    live = home / f".vowel.train.part-{os.getpid()}-a1b2c3"  # a writer still running
    old_unnamed = home / ".vowel.test.part-k2j4h5g6"  # older versions: no pid in the name
    new_unnamed = home / ".vowel.test.part-q9w8e7r6"
    for path in (stale, live, old_unnamed, new_unnamed):
        path.write_bytes(b"0" * 1000)
    two_hours_ago = time.time() - 7200
    os.utime(old_unnamed, (two_hours_ago, two_hours_ago))
    data.load("vowel", url_base=base, progress=False)
    assert sorted(p.name for p in home.iterdir() if p.is_file()) == sorted([
        live.name, new_unnamed.name, "vowel-context.data"])


def fetch_in_subprocess(base, data_home, prefix="/slow"):
    """``multisvm datasets fetch vowel`` downloading from ``base + prefix``; SIGINT is left to
    Python's default handler even when this test runs in a background job (where it is
    ignored)."""
    env = dict(os.environ, MULTISVM_DATA_HOME=str(data_home), MULTISVM_URL_BASE=base + prefix,
               PYTHONPATH=str(REPO))
    env.pop("MULTISVM_MIRROR", None)
    return subprocess.Popen(
        [sys.executable, "-m", "multisvm_cli", "datasets", "fetch", "vowel", "--no-progress"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_part_file(folder, process, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        parts = list(folder.glob(".vowel-context.data.part-*"))
        if parts:
            return parts[0]
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"no partial file appeared in {folder}: {process.communicate()}")


@pytest.mark.slow
def test_sigint_during_a_download_aborts_with_130_and_leaves_nothing(mirror, served,
                                                                     data_home):
    folder, base = served
    serve(folder, "vowel", "vowel-context.data",
          (mirror / "vowel" / "vowel-context.data").read_bytes())
    process = fetch_in_subprocess(base, data_home)
    part = wait_for_part_file(data_home / "vowel", process)
    assert part.name.startswith(f".vowel-context.data.part-{process.pid}-")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.strip() == "Aborted."
    assert leftovers(data_home) == []


@pytest.mark.slow
def test_sigkill_leftover_is_removed_by_the_next_fetch(mirror, served, data_home, no_mirror):
    folder, base = served
    serve(folder, "vowel", "vowel-context.data",
          (mirror / "vowel" / "vowel-context.data").read_bytes())
    process = fetch_in_subprocess(base, data_home)
    part = wait_for_part_file(data_home / "vowel", process)
    process.kill()
    process.communicate(timeout=60)
    assert part.exists()  # what a SIGKILL leaves behind
    vowel = data.load("vowel", url_base=base, progress=False)
    assert vowel.parts["train"][0].shape == (528, 10)
    assert not part.exists()
    assert [p for p in leftovers(data_home) if p.startswith(".")] == []


def test_keyboard_interrupt_propagates_untouched_and_removes_the_temporary_file(
        tmp_path, monkeypatch):
    class Interrupted:
        headers = {"Content-Length": str(VOWEL_SIZE)}
        reads = 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self, size):
            self.reads += 1
            if self.reads > 1:
                raise KeyboardInterrupt
            return b"0" * size

    monkeypatch.setattr(download_module.urllib.request, "urlopen",
                        lambda url, timeout: Interrupted())
    target = tmp_path / "home" / "vowel-context.data"
    with pytest.raises(KeyboardInterrupt):
        download("http://127.0.0.1:9/vowel-context.data", target, sizes=(VOWEL_SIZE,),
                 progress=False)
    assert list(target.parent.iterdir()) == []
