"""``multisvm datasets list | info | fetch`` through ``cli.main`` and a real subprocess."""

import os

import pytest
from helpers import REPO, run_process


@pytest.fixture(autouse=True)
def offline_without_mirror(monkeypatch, no_network):
    """No download (conftest.no_network) and no mirror unless a test names one."""
    monkeypatch.delenv("MULTISVM_MIRROR", raising=False)


def row(table_text, name):
    return next(line.split() for line in table_text.splitlines() if line.startswith(name + " "))


def test_list_shows_sizes_and_what_is_cached(run_multisvm, partial_mirror, data_home):
    code, out, err = run_multisvm("datasets", "list")
    assert code == 0 and err == ""
    assert row(out, "letter") == ["letter", "26", "16", "train", "16,000", "/", "test", "4,000",
                                  "minmax", "no"]
    assert row(out, "usps")[-2:] == ["none", "no"]
    code, out, _ = run_multisvm("datasets", "--mirror", str(partial_mirror), "fetch", "letter",
                       "covertype")
    assert code == 2
    code, out, _ = run_multisvm("datasets", "list")
    assert row(out, "letter")[-1] == "yes"
    assert row(out, "covertype")[-2:] == ["train,", "validation"]


def test_fetch_copies_verified_files_into_the_data_home(run_multisvm, mirror, data_home):
    code, out, err = run_multisvm("datasets", "fetch", "letter", "iris", "--mirror", str(mirror),
                         "--no-progress")
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "letter: train 16,000, test 4,000 (source uci: letter-recognition.data sha256 "
        "2b89f3602cf768d3...)",
        "iris: all 150 (source sklearn: iris.csv sha256 f13ffa8fdd56fd8e...)"]
    copied = data_home / "letter" / "letter-recognition.data"
    assert copied.read_bytes() == (mirror / "letter" / "letter-recognition.data").read_bytes()


def test_fetch_covertype_caches_the_partial_parts_and_explains_the_rest(run_multisvm, partial_mirror,
                                                                        data_home):
    code, out, err = run_multisvm("datasets", "fetch", "covertype", "--mirror",
                         str(partial_mirror))
    assert code == 2
    assert out.startswith("covertype: train 11,340, validation 3,780 (source kaggle-partial")
    assert len(err.splitlines()) == 1
    assert err.startswith("error: covertype: cannot download ") and "covtype.data.gz" in err
    assert f"put it in {data_home / 'covtype'}/" in err


def test_info_prints_class_counts_and_checksums(run_multisvm, mirror, data_home):
    code, out, err = run_multisvm("datasets", "info", "letter", "--mirror", str(mirror))
    assert code == 0 and err == ""
    assert row(out, "T") == ["T", "645", "151", "796"]  # grep -c "^T," on head/tail
    assert row(out, "total") == ["total", "16000", "4000", "20000"]
    assert row(out, "uci")[:3] == ["uci", "letter-recognition.data", "mirror"]
    assert row(out, "uci")[-2:] == ["ok", "(2b89f3602cf768d3...)"]


def test_info_of_a_part_not_available_says_which_file(run_multisvm, partial_mirror, data_home):
    code, out, _ = run_multisvm("datasets", "info", "covertype", "--mirror", str(partial_mirror))
    assert code == 0
    assert row(out, "total") == ["total", "11340", "3780", "15120"]
    assert "part test: not available locally (needs covtype.data or covtype.data.gz)" in out
    assert row(out, "uci") == ["uci", "covtype.data", "missing", "-"]
    assert row(out, "uci-gz") == ["uci-gz", "covtype.data.gz", "missing", "-"]


def test_unknown_missing_and_corrupt_datasets_are_one_line_with_exit_code_2(
        run_multisvm, mirror, data_home, tmp_path):
    code, out, err = run_multisvm("datasets", "fetch", "mnist")
    assert (code, out) == (2, "")
    assert err.splitlines() == ["error: unknown dataset 'mnist'; known datasets: 20newsgroups, "
                                "abalone, car, covertype, dermatology, digits, dna, ecoli, "
                                "glass, iris, letter, letter-hsu-lin, optdigits, page-blocks, "
                                "pendigits, reuters21578, satimage, segment, shuttle, "
                                "soybean-large, usps, vehicle, vowel, vowel-hsu-lin, waveform, "
                                "wine, yeast"]
    code, _, err = run_multisvm("datasets", "fetch", "segment", "--mirror", str(tmp_path))
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("error: segment: cannot download http://127.0.0.1:9/segment/segment.dat")
    assert "https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/segment/" in err
    bad_mirror = tmp_path / "bad"
    (bad_mirror / "glass").mkdir(parents=True)
    good = (mirror / "glass" / "glass.data").read_bytes()
    (bad_mirror / "glass" / "glass.data").write_bytes(good.replace(b"1.52101", b"1.52102"))
    code, _, err = run_multisvm("datasets", "fetch", "glass", "--mirror", str(bad_mirror))
    assert code == 2 and len(err.splitlines()) == 1
    assert "glass.data at" in err and "expected dd67373f4baf2807" in err and "refused" in err
    assert not (data_home / "glass").exists()


@pytest.mark.slow
def test_real_subprocess(mirror, tmp_path):
    env = dict(os.environ, MULTISVM_DATA_HOME=str(tmp_path), MULTISVM_MIRROR=str(mirror),
               MULTISVM_URL_BASE="http://127.0.0.1:9", PYTHONPATH=str(REPO))
    done = run_process("datasets", "fetch", "vowel", "nosuch", env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout.startswith("vowel: train 528, test 462 (source uci: vowel-context.data")
    assert done.stderr.splitlines() == ["error: unknown dataset 'nosuch'; known datasets: "
                                        "20newsgroups, abalone, car, covertype, dermatology, "
                                        "digits, dna, ecoli, glass, iris, letter, letter-hsu-lin,"
                                        " optdigits, page-blocks, pendigits, reuters21578, "
                                        "satimage, segment, shuttle, soybean-large, usps, "
                                        "vehicle, vowel, vowel-hsu-lin, waveform, wine, yeast"]


def test_info_shows_the_true_counts_after_the_parsed_cache_was_tampered_with(
        run_multisvm, mirror, data_home):
    import numpy as np

    code, _, _ = run_multisvm("datasets", "fetch", "vowel", "--mirror", str(mirror))
    assert code == 0
    (path,) = (data_home / "vowel" / "parsed").glob("uci-train-*.npz")
    with np.load(path) as stored:
        X, y = stored["X"], stored["y"]
    np.savez(path, X=X[:100], y=y[:100])  # a valid npz of 100 rows
    with pytest.warns(UserWarning, match=rf"parsed cache {path}: its arrays \(X \(100, 10\)"):
        code, out, err = run_multisvm("datasets", "info", "vowel", "--mirror", str(mirror))
    assert code == 0
    assert row(out, "0") == ["0", "48", "42", "90"]
    assert row(out, "total") == ["total", "528", "462", "990"]


def test_fetch_into_an_unwritable_data_home_is_one_error_line(run_multisvm, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out, err = run_multisvm("datasets", "fetch", "vowel", "--data-home",
                         str(blocker / "home"))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"error: vowel: cannot write to {blocker / 'home' / 'vowel'} (Not a directory); set "
        "MULTISVM_DATA_HOME (or --data-home) to a writable folder with free space"]
