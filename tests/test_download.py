"""Downloads against a local http.server on 127.0.0.1 (never the internet)."""

import functools
import gzip
import hashlib
import http.server
import threading

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data.download import download

LETTER_SHA = "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder; ``/cut/...`` paths announce the full length but stop half-way."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        if not self.path.startswith("/cut/"):
            return super().do_GET()
        body = (self.directory_path / self.path[len("/cut/"):]).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True


@pytest.fixture
def served(tmp_path):
    """(folder, base URL): a local HTTP server over ``folder``, stopped after the test."""
    folder = tmp_path / "served"
    folder.mkdir()

    class Handler(QuietHandler):
        directory_path = folder

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def no_mirror(monkeypatch):
    monkeypatch.delenv("MULTISVM_MIRROR", raising=False)


def serve(folder, dataset, name, content):
    (folder / dataset).mkdir(exist_ok=True)
    (folder / dataset / name).write_bytes(content)


def leftovers(data_home):
    return sorted(p.name for p in data_home.rglob("*") if p.is_file())


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


def test_covertype_goes_through_sklearns_fetcher(served, data_home, no_mirror, monkeypatch):
    """Without a URL base, covtype.data.gz is fetched by scikit-learn's own fetcher (which
    checks fetch_covtype's SHA-256); a file failing that check is refused and not kept."""
    from sklearn.datasets import _covtype
    from sklearn.datasets._base import RemoteFileMetadata

    folder, base = served
    serve(folder, "covtype", "covtype.data.gz", gzip.compress(b"2596,51,3,5\n"))
    monkeypatch.delenv("MULTISVM_URL_BASE", raising=False)
    monkeypatch.setattr(_covtype, "ARCHIVE", RemoteFileMetadata(
        filename="covtype.data.gz", url=f"{base}/covtype/covtype.data.gz",
        checksum=_covtype.ARCHIVE.checksum))
    with pytest.raises(data.DatasetError, match=r"covertype: cannot download http://127\.0\.0\.1"
                                                 r".*SHA256 checksum of covtype\.data\.gz .* "
                                                 r"differs from expected .*put it in"):
        data.load("covertype", parts=["test"], progress=False)
    assert leftovers(data_home) == []
