"""Hsu & Lin (2002) data: the satimage, shuttle, letter-hsu-lin and vowel-hsu-lin cards, the
Unix compress (.Z) reader that shuttle's canonical training file needs, and refusal of content
that does not match a card (issue 34, "Data" and "Bad input"; issue 39: vowel's 528 rows)."""

import hashlib
import random
import shutil
import subprocess

import numpy as np
import pytest

from .lzw_reference import compress
from multisvm_cli import data
from multisvm_cli.data import unix_compress
from multisvm_cli.data.errors import DatasetError
from multisvm_cli.experiment.config import load_config
from multisvm_cli.experiment.config.forms import Split, Validation
from local_server import leftovers, serve
from helpers import REPO, counts

SHUTTLE_TRN_SHA = "87b24ee9fb5137e1d417659cf905d84d0e15342bbaa60770f1ae83da1a38200a"
SHUTTLE_TRN_SIZE = 1153518
# shuttle.trn.Z as UCI serves it (SOURCES.md): read only when a mirror holds it
SHUTTLE_Z_SHA = "ffd2cbf221d4982ccc77c674621c23291447f3fd9484c00d8078858965e0e7ed"


# ---- the cards -------------------------------------------------------------------------------

def test_satimage_card_gives_the_statlog_split(mirror, data_home):
    """SOURCES.md's sizes, checksums, first rows and class counts (no class 6)."""
    sat = data.load("satimage", progress=False)
    (X, y), (Xt, yt) = sat.parts["train"], sat.parts["test"]
    assert (X.shape, Xt.shape) == ((4435, 36), (2000, 36))
    assert counts(y) == {1: 1072, 2: 479, 3: 961, 4: 415, 5: 470, 7: 1038}
    assert counts(yt) == {1: 461, 2: 224, 3: 397, 4: 211, 5: 237, 7: 470}
    assert X[0, :4].tolist() == [92, 115, 120, 94] and X[0, -4:].tolist() == [84, 107, 113, 87]
    assert Xt[0, :4].tolist() == [80, 102, 102, 79] and (y[0], yt[0]) == (3, 3)
    assert (X.min(), X.max()) == (27, 157)
    assert sat.checksums == {
        "sat.trn": "e896dc88a960fa2404160fc4c3cb3dc53fcf4afd80ba920bf2d261bd42d12613",
        "sat.tst": "4b9167b8a92baafafed7c8809aef86d0683a5e685c19d98d119fa6974f0f2479"}
    card = sat.card
    assert (card.classes, card.paper_scaling, card.split) == ((1, 2, 3, 4, 5, 7), "minmax",
                                                              "fixed")


def test_shuttle_card_gives_the_statlog_split(mirror, data_home):
    """The decompressed shuttle.trn is checked by its size and SHA-256; class 1 is 78%."""
    shuttle = data.load("shuttle", progress=False)
    (X, y), (Xt, yt) = shuttle.parts["train"], shuttle.parts["test"]
    assert (X.shape, Xt.shape) == ((43500, 9), (14500, 9))
    assert counts(y) == {1: 34108, 2: 37, 3: 132, 4: 6748, 5: 2458, 6: 6, 7: 11}
    assert counts(yt) == {1: 11478, 2: 13, 3: 39, 4: 2155, 5: 809, 6: 4, 7: 2}
    assert X[0].tolist() == [50, 21, 77, 0, 28, 0, 27, 48, 22] and y[0] == 2
    assert Xt[0].tolist() == [55, 0, 81, 0, -6, 11, 25, 88, 64] and yt[0] == 4
    assert (X.min(), X.max(), Xt.min(), Xt.max()) == (-13839, 13148, -26739, 15164)
    assert round(float(np.mean(y == 1)), 4) == 0.7841
    assert shuttle.checksums["shuttle.trn"] == SHUTTLE_TRN_SHA
    spec = shuttle.card.source("uci").file("shuttle.trn")
    assert (spec.size, spec.packing, spec.url.endswith("/shuttle.trn.Z")) == \
        ((SHUTTLE_TRN_SIZE,), ".Z", True)


def test_letter_hsu_lin_is_the_first_15000_rows_and_letter_is_unchanged(mirror, data_home):
    """letter-hsu-lin cuts the same UCI file 15,000 / 5,000; letter stays Platt's 16,000 /
    4,000."""
    hsu = data.load("letter-hsu-lin", progress=False)
    platt = data.load("letter", progress=False)
    assert platt.card.parts == {"train": 16000, "test": 4000}
    X, y = hsu.parts["train"]
    Xt, yt = hsu.parts["test"]
    assert (X.shape, Xt.shape) == ((15000, 16), (5000, 16))
    whole_X = np.vstack([platt.parts["train"][0], platt.parts["test"][0]])
    whole_y = np.concatenate([platt.parts["train"][1], platt.parts["test"][1]])
    np.testing.assert_array_equal(X, whole_X[:15000])
    np.testing.assert_array_equal(Xt, whole_X[15000:])
    assert y.tolist() == whole_y[:15000].tolist() and yt.tolist() == whole_y[15000:].tolist()
    assert (y[0], X[0, :3].tolist()) == ("T", [2, 8, 3])
    assert (counts(y)["A"], counts(yt)["A"], counts(y)["Z"], counts(yt)["Z"]) == \
        (583, 206, 540, 194)
    assert hsu.checksums == platt.checksums


def test_vowel_hsu_lin_is_the_528_training_rows_and_vowel_is_unchanged(mirror, data_home):
    """vowel-hsu-lin is vowel's training part alone (Hsu & Lin's Table I: 528 rows), one part
    for k-fold; vowel keeps its 528 / 462 split (990 rows pooled); both sources agree."""
    hsu = data.load("vowel-hsu-lin", progress=False)
    vowel = data.load("vowel", progress=False)
    assert (hsu.card.split, hsu.card.parts) == ("none", {"all": 528})
    assert vowel.card.parts == {"train": 528, "test": 462}
    X, y = hsu.parts["all"]
    assert X.shape == (528, 10) and counts(y) == {label: 48 for label in range(11)}
    assert (y[0], X[0].tolist()) == (0, [-3.639, 0.418, -0.67, 1.779, -0.168, 1.627, -0.388,
                                         0.529, -0.874, -0.814])
    assert (y[-1], X[-1, :3].tolist()) == (10, [-4.261, 1.827, -0.482])
    np.testing.assert_array_equal(X, vowel.parts["train"][0])
    assert hsu.checksums == vowel.checksums == {
        "vowel-context.data": "1e5c40bdd0b6705c75586eb23f5d9c3078e9588f48bc5c2c98da219fe83fff29"}
    esl = data.load("vowel-hsu-lin", source="esl", progress=False)
    np.testing.assert_array_equal(esl.parts["all"][0], X)
    assert esl.parts["all"][1].tolist() == y.tolist()


# ---- the .Z reader ---------------------------------------------------------------------------

def samples():
    rng = random.Random(0)
    return {
        "empty": b"", "one byte": b"a", "KwKwK": b"ab" * 3 + b"a" * 5000,
        "random": bytes(rng.getrandbits(8) for _ in range(70000)),
        "three letters": bytes(rng.choice(b"abc\n") for _ in range(200000)),
    }


# (maxbits, block mode, CLEAR once the table has been full for N codes)
MODES = [(16, True, None), (16, True, 1), (12, True, 50), (10, True, 3), (10, False, None),
         (9, True, 3)]


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: f"{mode}")
def test_reader_inverts_the_reference_encoder(mode):
    """Every width change, group padding, CLEAR, full table and the KwKwK case."""
    for name, content in samples().items():
        packed = compress(content, *mode)
        assert unix_compress.decompress(packed, len(content), name) == content, name


@pytest.mark.parametrize("mode", [m for m in MODES if m[0] >= 10], ids=lambda mode: f"{mode}")
def test_reference_streams_read_the_same_with_gzip(mode):
    """An independent reader (gzip's unlzw) gives the same content from the encoder's streams,
    so the two tests above are not circular. (gzip reads maxbits-9 streams differently.)"""
    if shutil.which("gzip") is None:
        pytest.skip("no gzip here")
    for name, content in samples().items():
        packed = compress(content, *mode)
        done = subprocess.run(["gzip", "-dc"], input=packed, capture_output=True, check=True)
        assert done.stdout == content, name


def test_reader_reads_ncompress_streams():
    """ncompress (the compress program's code) writes, this module reads; and back."""
    ncompress = pytest.importorskip("ncompress")
    for name, content in samples().items():
        if content:
            assert unix_compress.decompress(ncompress.compress(content), None, name) == content
            assert ncompress.decompress(compress(content)) == content


@pytest.fixture(scope="module")
def shuttle_z(mirror):
    """(content, .Z stream) of the mirror's shuttle.trn, packed by the reference encoder with a
    CLEAR whenever the 16-bit table has been full for 1,000 codes."""
    content = (mirror / "shuttle" / "shuttle.trn").read_bytes()
    return content, compress(content, 16, True, 1000)


@pytest.mark.slow
def test_reader_gives_shuttle_trn_with_the_cards_checksum(mirror, shuttle_z, tmp_path):
    content, packed = shuttle_z
    assert hashlib.sha256(content).hexdigest() == SHUTTLE_TRN_SHA
    (tmp_path / "shuttle.trn.Z").write_bytes(packed)
    assert unix_compress.is_compressed(tmp_path / "shuttle.trn.Z")
    written = unix_compress.decompress_file(tmp_path / "shuttle.trn.Z", tmp_path / "out",
                                            SHUTTLE_TRN_SIZE, "shuttle.trn.Z")
    assert written == SHUTTLE_TRN_SIZE
    assert hashlib.sha256((tmp_path / "out").read_bytes()).hexdigest() == SHUTTLE_TRN_SHA
    uci = mirror / "shuttle" / "shuttle.trn.Z"  # UCI's own bytes, where a mirror holds them
    if uci.is_file() and hashlib.sha256(uci.read_bytes()).hexdigest() == SHUTTLE_Z_SHA:
        assert unix_compress.decompress(uci.read_bytes(), SHUTTLE_TRN_SIZE, "uci") == content


@pytest.mark.parametrize("stream, says", [
    (b"", "not a Unix compress"),
    (b"\x1f\x8b\x08\x00", "not a Unix compress"),                   # a gzip header
    (b"\x1f\x9d\x08abc", "maxbits 8"),
    (b"\x1f\x9d\x91abc", "maxbits 17"),
    (b"\x1f\x9d\xf0abc", "flags 0xf0"),                             # reserved bits set
    (b"\x1f\x9d\x90\x00\x03", "first code 256 is not a byte"),
    (b"\x1f\x9d\x90\x41\xf8\x03", "code 508 at bit 9 is not defined yet"),
])
def test_corrupt_streams_are_refused_with_one_line_naming_the_file(stream, says):
    with pytest.raises(DatasetError, match=says) as refused:
        unix_compress.decompress(stream, 1000, "shuttle.trn.Z")
    message = str(refused.value)
    assert "shuttle.trn.Z" in message and "refused" in message and "\n" not in message


def test_a_stream_past_its_bound_is_refused_early():
    """A 'zip bomb' (1 MB of one byte packs into 3 kB) stops at the bound."""
    packed = compress(b"\0" * 1_000_000)
    assert len(packed) < 3_000
    with pytest.raises(DatasetError, match=r"^bomb\.Z decompresses to more than 100,000 "
                                           r"bytes: refused$"):
        unix_compress.decompress(packed, 100_000, "bomb.Z")
    assert unix_compress.decompress(packed, None, "bomb.Z") == b"\0" * 1_000_000


def test_a_packed_file_larger_than_its_bound_allows_is_not_read(tmp_path):
    path = tmp_path / "big.Z"
    rng = random.Random(1)
    path.write_bytes(compress(bytes(rng.getrandbits(8) for _ in range(5000))))
    assert path.stat().st_size > 5000
    with pytest.raises(DatasetError, match=r"big\.Z is larger than a \.Z stream of at most 100 "
                                           r"bytes of content can be: refused"):
        unix_compress.decompress_file(path, tmp_path / "out", 100, "big.Z")
    assert not (tmp_path / "out").exists()


# ---- a shuttle.trn.Z at hand ------------------------------------------------------------------

def test_a_local_z_is_read_through_the_bounded_reader(mirror, shuttle_z, tmp_path, data_home,
                                                      monkeypatch):
    """The uci-z source reads a .Z at hand; here a user card names the reference encoder's
    stream (UCI's own bytes are the registry card's), and the arrays equal the uci source's."""
    content, packed = shuttle_z
    folder = tmp_path / "z-mirror" / "shuttle"
    folder.mkdir(parents=True)
    (folder / "shuttle.trn.Z").write_bytes(packed)
    (folder / "shuttle.tst").symlink_to(mirror / "shuttle" / "shuttle.tst")
    card = (REPO / "datasets" / "shuttle.yaml").read_text()
    card = card.replace("name: shuttle\n", "name: shuttle-z\nfolder: shuttle\n")
    card = card.replace(SHUTTLE_Z_SHA, hashlib.sha256(packed).hexdigest())
    card = card.replace("size: 319869", f"size: {len(packed)}")
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "shuttle-z.yaml").write_text(card)
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    local = data.load("shuttle-z", mirror=tmp_path / "z-mirror", progress=False)
    given = data.load("shuttle", source="uci", progress=False)
    assert local.source_id == "uci-z" and local.checksums["shuttle.trn.Z"] == \
        hashlib.sha256(packed).hexdigest()
    for part in ("train", "test"):
        np.testing.assert_array_equal(local.parts[part][0], given.parts[part][0])
        assert local.parts[part][1].tolist() == given.parts[part][1].tolist()


def test_a_local_z_of_other_bytes_or_past_its_bound_is_refused(mirror, shuttle_z, tmp_path,
                                                               data_home):
    """The registry card's uci-z source takes UCI's .Z bytes only (a .Z's bytes depend on the
    program); the parser's bound stops a .Z whose content is larger than the source says."""
    folder = tmp_path / "z-mirror" / "shuttle"
    folder.mkdir(parents=True)
    (folder / "shuttle.trn.Z").write_bytes(shuttle_z[1])
    (folder / "shuttle.tst").symlink_to(mirror / "shuttle" / "shuttle.tst")
    with pytest.raises(DatasetError, match=r"^shuttle: shuttle\.trn\.Z at .* is 325,947 bytes, "
                                           r"expected 319,869: .*refused"):
        data.load("shuttle", mirror=tmp_path / "z-mirror", source="uci-z", progress=False)
    from multisvm_cli.data import parsers

    small = tmp_path / "small.Z"
    small.write_bytes(compress(b"1 2 3\n4 5 6\n"))
    options = {"sep": "whitespace", "header": False}
    assert parsers.read_table(small, options, "t").to_numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    with pytest.raises(DatasetError, match=r"^t: .*small\.Z decompresses to more than 11 bytes"):
        parsers.read_table(small, {**options, "max_unpacked_bytes": 11}, "t")


# ---- downloading shuttle.trn.Z ---------------------------------------------------------------

def serve_shuttle(folder, mirror, packed):
    serve(folder, "shuttle", "shuttle.trn.Z", packed)
    serve(folder, "shuttle", "shuttle.tst", (mirror / "shuttle" / "shuttle.tst").read_bytes())


def test_shuttle_is_downloaded_as_z_and_kept_decompressed(mirror, shuttle_z, served, data_home,
                                                          monkeypatch):
    monkeypatch.delenv("MULTISVM_MIRROR", raising=False)
    folder, base = served
    content, packed = shuttle_z
    serve_shuttle(folder, mirror, packed)
    shuttle = data.load("shuttle", url_base=base, progress=False)
    assert shuttle.checksums["shuttle.trn"] == SHUTTLE_TRN_SHA
    assert counts(shuttle.parts["train"][1])[1] == 34108
    assert (data_home / "shuttle" / "shuttle.trn").read_bytes() == content
    assert [p for p in leftovers(data_home) if p.startswith("shuttle")] == \
        ["shuttle.trn", "shuttle.tst"]


@pytest.mark.parametrize("change, says", [
    (lambda content: compress(content.replace(b"50 21 77", b"51 21 77", 1)),
     r"shuttle\.trn decompressed from http://127\.0\.0\.1:\d+/shuttle/shuttle\.trn\.Z is "
     r"1,153,518 bytes with sha256 [0-9a-f]{16}\.\.\., expected 1,153,518 bytes and "
     r"87b24ee9fb5137e1\.\.\.: refused"),
    (lambda content: compress(content + b"1 2 3 4 5 6 7 8 9 1\n"),
     r"shuttle\.trn\.Z decompresses to more than 1,153,518 bytes: refused"),
    (lambda content: b"\x1f\x9d\x90" + b"\xff" * 1000,
     r"shuttle\.trn\.Z: corrupt \.Z stream"),
])
@pytest.mark.slow
def test_a_z_download_with_other_content_is_refused_and_not_kept(
        mirror, shuttle_z, served, data_home, monkeypatch, change, says):
    monkeypatch.delenv("MULTISVM_MIRROR", raising=False)
    folder, base = served
    serve_shuttle(folder, mirror, change(shuttle_z[0]))
    with pytest.raises(DatasetError, match=says) as refused:
        data.load("shuttle", url_base=base, progress=False)
    assert "\n" not in str(refused.value) and str(refused.value).startswith("shuttle: ")
    assert ("get shuttle.trn from https://archive.ics.uci.edu/ml/machine-learning-databases/"
            "statlog/shuttle/shuttle.trn.Z, decompress it (gzip -d reads it) and put it in "
            f"{data_home / 'shuttle'}/") in str(refused.value)
    assert not (data_home / "shuttle" / "shuttle.trn").exists()
    assert not [p for p in leftovers(data_home) if ".part-" in p or p.endswith(".npz")]


# ---- content that does not match the card ----------------------------------------------------

@pytest.mark.parametrize("dataset, folder, name, old, new", [
    ("satimage", "satimage", "sat.trn", b"92 115 120 94", b"92 115 120 95"),
    ("satimage", "satimage", "sat.tst", b"80 102 102 79", b"80 102 102 78"),
    ("shuttle", "shuttle", "shuttle.trn", b"50 21 77", b"51 21 77"),
    ("shuttle", "shuttle", "shuttle.tst", b"55 0 81", b"55 0 82"),
    ("shuttle", "shuttle", "shuttle.trn", b"50 21 77 0 28 0 27 48 22 2\n", b""),  # a row gone
])
def test_a_mirror_file_with_other_content_is_refused_and_never_used(
        mirror, data_home, tmp_path, run_multisvm, dataset, folder, name, old, new):
    bad = tmp_path / "bad-mirror"
    (bad / folder).mkdir(parents=True)
    for original in (mirror / folder).iterdir():
        (bad / folder / original.name).symlink_to(original)
    (bad / folder / name).unlink()
    content = (mirror / folder / name).read_bytes()
    assert old in content
    (bad / folder / name).write_bytes(content.replace(old, new, 1))
    with pytest.raises(DatasetError, match=rf"^{dataset}: {name} at .* (is \d|has sha256)"):
        data.load(dataset, mirror=bad, progress=False)
    result = run_multisvm("datasets", "fetch", dataset, "--mirror", bad)
    assert result.code == 2 and result.out == "" and len(result.err.splitlines()) == 1
    assert f"{name} at" in result.err and "refused" in result.err
    assert not (data_home / folder).exists() and not list(data_home.rglob("*.npz"))


# ---- the shipped configs ---------------------------------------------------------------------

SMALL = ["iris", "wine", "glass", "vowel-hsu-lin", "vehicle", "segment"]  # vowel: its 528 rows
LARGE = ["dna", "satimage", "letter-hsu-lin", "shuttle"]


def test_hsu_lin_2002_is_their_grid_and_their_two_protocols():
    """225 points exactly (gamma 2^4..2^-10, C 2^12..2^-2); cv-best 10-fold on the small sets;
    70/30 choice, retrain, given test set on the large ones; [-1, 1] scaling but for dna."""
    config = load_config(REPO / "configs" / "hsu-lin-2002.yaml")
    assert [plan.name for plan in config.datasets] == SMALL + LARGE
    assert config.schemes == ["ovr", "maxwins", "dag", "ww", "cs"]  # Hsu & Lin's five methods
    for plan in config.datasets:
        assert sorted({p.gamma for p in plan.grid}) == list(2.0 ** np.arange(-10, 5))
        assert sorted({p.C for p in plan.grid}) == list(2.0 ** np.arange(-2, 13))
        assert len(plan.grid) == 225 and {p.kernel for p in plan.grid} == {"gaussian"}
        assert plan.validation == Validation("holdout", train_fraction=0.7, seed=0)
        if plan.name in SMALL:
            assert (plan.split.method, plan.split.k, plan.estimate) == \
                ("kfold", 10, ("cv-best",))
        else:
            assert (plan.split, plan.estimate) == (Split("standard"), ("nested",))
        assert plan.scaling == ("none" if plan.name == "dna" else "paper")


def test_hsu_lin_2002_quick_runs_both_protocols_on_a_coarse_grid():
    config = load_config(REPO / "configs" / "hsu-lin-2002-quick.yaml")
    estimates = {plan.name: plan.estimate for plan in config.datasets}
    assert estimates == {"iris": ("cv-best",), "wine": ("cv-best",), "dna": ("nested",)}
    grid = config.plan("dna").grid
    assert sorted((p.gamma, p.C) for p in grid) == sorted(
        (2.0 ** g, 2.0 ** c) for g in (2, -2, -6) for c in (10, 4, -2))
