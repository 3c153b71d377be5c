"""A user's file under the name people give it: its format told from its content where its
extension says nothing (each format's ``sniff``, :func:`multisvm_cli.data.formats.infer_format`),
LIBSVM's own ``dna.scale`` / ``dna.scale.t`` among them; a config's entry shares the rule."""

import shutil

import numpy as np
import pytest

from multisvm_cli import data
from multisvm_cli.data import formats
from multisvm_cli.experiment import ConfigError, load_config


@pytest.fixture
def dna_files(mirror, tmp_path):
    """LIBSVM's dna files under LIBSVM's names, ``dna.scale`` and ``dna.scale.t``."""
    for name in ("dna.scale", "dna.scale.t"):
        shutil.copyfile(mirror / "dna" / name, tmp_path / name)
    return tmp_path / "dna.scale", tmp_path / "dna.scale.t"


def test_libsvm_names_are_told_svmlight_by_their_content(dna_files):
    assert [formats.infer_format(path) for path in dna_files] == ["svmlight", "svmlight"]


def test_csv_npz_and_unknown_content_under_names_that_say_nothing(tmp_path):
    (tmp_path / "iris.txt").write_text("a,b,species\n1,2,setosa\n3,4.5,virginica\n")
    (tmp_path / "quoted").write_text('"x, y",z\n1,0\n')  # quotes, no extension
    np.savez(tmp_path / "arrays.npz", X=np.eye(2), y=np.arange(2))
    shutil.copyfile(tmp_path / "arrays.npz", tmp_path / "arrays.bin")
    (tmp_path / "spaces.dat").write_text("1 2 3\n4 5 6\n")  # neither csv nor svmlight
    (tmp_path / "labels.t").write_text("1\n2\n")  # an svmlight line needs a feature
    assert formats.infer_format(tmp_path / "iris.txt") == "csv"
    assert formats.infer_format(tmp_path / "quoted") == "csv"
    assert formats.infer_format(tmp_path / "arrays.bin") == "npz"
    assert formats.infer_format(tmp_path / "spaces.dat") is None
    assert formats.infer_format(tmp_path / "labels.t") is None
    assert formats.infer_format(tmp_path / "absent.t") is None  # no content to read
    with pytest.raises(data.DatasetError, match=r"^cannot tell the format of spaces\.dat from "
                       r"its extension or its first lines; give --input-format csv, svmlight "
                       r"or npz$"):
        formats.given_or_told(tmp_path / "spaces.dat", None, "--input-format")
    assert formats.given_or_told(tmp_path / "spaces.dat", "csv", "--input-format") == "csv"


@pytest.mark.parametrize("first, svmlight, csv", [
    (b"3 2:1 7:0.5\n1 1:-1.5e-3 4:2 # a comment\n", True, False),
    (b"+1 qid:3 1:0.25\n-1 qid:3 2:1\n", True, False),
    (b"1,2,0\n3,4,1\n", False, True),
    (b"\xef\xbb\xbfa,b\n1,2\n", False, True),  # a byte-order mark
    (b"1,2,0\n3,4\n", False, False),  # ragged
    (b"3 2:1 7:x\n", False, False),
    (b"PK\x03\x04\x14\x00", False, False),
])
def test_each_format_sniffs_its_own_first_bytes(first, svmlight, csv):
    assert formats.module("svmlight").sniff(first) is svmlight
    assert formats.module("csv").sniff(first) is csv
    assert formats.module("npz").sniff(first) is first.startswith(b"PK")


def test_a_cut_last_line_is_not_judged():
    line = b"1 " + b" ".join(b"%d:0.5" % i for i in range(1, 200)) + b"\n"
    first = (line * (formats.SNIFF_BYTES // len(line) + 1))[:formats.SNIFF_BYTES - 2] + b"x:"
    assert len(first) == formats.SNIFF_BYTES and formats.module("svmlight").sniff(first)
    assert not formats.module("svmlight").sniff(first[:-1])  # a whole file: judged whole


def test_a_config_entry_with_libsvm_names_needs_no_format(dna_files, tmp_path):
    config = tmp_path / "dna.yaml"
    config.write_text("dataset: [{name: mydna, path: dna.scale, test_path: dna.scale.t}]\n"
                      "kernels: [{type: linear}]\nC: [1]\nschemes: [ovr]\n")
    spec = load_config(config).datasets[0].local
    assert spec.format == "svmlight" and spec.sparse
    loaded = data.load_local(spec)
    assert {part: X.shape for part, (X, _) in loaded.parts.items()} == {
        "train": (2000, 180), "test": (1186, 180)}
    assert loaded.card.classes == (1, 2, 3)
    (tmp_path / "d.dat").write_text("1 2 3\n4 5 6\n")
    config.write_text("dataset: [{name: d, path: d.dat}]\nkernels: [{type: linear}]\nC: [1]\n"
                      "schemes: [ovr]\n")
    with pytest.raises(ConfigError, match=r"dataset\[0\]\.path: cannot tell the format of "
                                          r"d\.dat .*; give format: csv, svmlight or npz"):
        load_config(config)
