"""The LIBSVM multiclass sets (dna, pendigits): svmlight parsing into CSR, the CSR parsed cache
verified like the dense one, and maxabs scaling that keeps sparse data sparse."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from multisvm_cli import data
from multisvm_cli.cli.main import main
from multisvm_cli.data import cache
from multisvm_cli.data.scaling import Scaler, make_scaler
from helpers import counts


pytestmark = pytest.mark.usefixtures("no_network")


def test_dna_and_pendigits_load_as_csr_with_the_libsvm_sizes(mirror, data_home):
    dna = data.load("dna", mirror=mirror)
    X, y = dna.parts["train"]
    assert sp.isspmatrix_csr(X) and X.shape == (2000, 180) and X.nnz == 91233
    assert counts(y) == {1: 464, 2: 485, 3: 1051}  # SOURCES.md
    assert dna.parts["test"][0].shape == (1186, 180)
    assert set(np.unique(X.data)) == {1.0}
    assert dna.checksums["dna.scale"].startswith("f74937ccb8908628")
    pen = data.load("pendigits", mirror=mirror)
    assert pen.parts["train"][0].shape == (7494, 16) and pen.parts["test"][0].shape == (3498, 16)
    assert pen.parts["train"][0].max() == 100.0
    # the first line of the file: "9 1:47 2:100 3:27 ... 15:40"
    assert pen.parts["train"][1][0] == 9
    np.testing.assert_array_equal(pen.parts["train"][0][0].toarray()[0, :3], [47, 100, 27])


def test_info_shows_the_libsvm_sizes(mirror, data_home, capsys):
    for name, rows in (("dna", ["total", "2000", "1186", "3186"]),
                       ("pendigits", ["total", "7494", "3498", "10992"])):
        with pytest.raises(SystemExit) as stop:
            main(["datasets", "info", name, "--mirror", str(mirror)])
        out = capsys.readouterr().out
        assert stop.value.code == 0
        total = next(line.split() for line in out.splitlines() if line.startswith("total"))
        assert total == rows
        assert "ok (" in out


def test_csr_parsed_cache_is_reused_and_a_tampered_entry_rebuilt(mirror, data_home):
    first = data.load("dna", mirror=mirror)
    (entry,) = (data_home / "dna" / "parsed").glob("libsvm-train-*.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = data.load("dna", mirror=None, data_home=data_home)  # no mirror: cache only
    assert "parsed cache" in again.sources["dna.scale"]
    assert (again.parts["train"][0] != first.parts["train"][0]).nnz == 0
    with np.load(entry) as stored:
        arrays = dict(stored)
    assert set(arrays) == {"X_data", "X_indices", "X_indptr", "X_shape", "y"}
    arrays["X_indices"] = arrays["X_indices"][::-1].copy()  # same values, other columns
    np.savez(entry, **arrays)
    with pytest.warns(UserWarning, match="discarded, parsing the raw files again"):
        rebuilt = data.load("dna", mirror=mirror)
    assert (rebuilt.parts["train"][0] != first.parts["train"][0]).nnz == 0
    X, y, record = cache.read_part(entry)
    assert record["X"]["sparse"] == "csr" and record["X"]["nnz"] == 91233


def test_maxabs_scales_sparse_without_densifying_and_matches_dense(mirror, data_home):
    pen = data.load("pendigits", mirror=mirror)
    X_train, X_test = pen.parts["train"][0], pen.parts["test"][0]
    scaler = make_scaler("paper", pen.card).fit(X_train)
    assert scaler.method == "maxabs"
    scaled = scaler.transform(X_test)
    assert sp.isspmatrix_csr(scaled) and scaled.nnz == X_test.nnz
    dense = Scaler("maxabs", tuple(range(16))).fit(X_train.toarray())
    np.testing.assert_array_equal(scaled.toarray(), dense.transform(X_test.toarray()))
    # index 16 never occurs in the LIBSVM files (grep -c " 16:" gives 0): an all-zero column
    assert X_train[:, 15].nnz == 0 and scaler.scale_[15] == 1.0
    np.testing.assert_array_equal(abs(scaler.transform(X_train)).max(axis=0).toarray(),
                                  [[1.0] * 15 + [0.0]])


@pytest.mark.parametrize("method", ["minmax", "standard", "standard-continuous"])
def test_centering_scalings_refuse_sparse_input_naming_maxabs(method):
    X = sp.random(10, 5, density=0.3, format="csr", random_state=0)
    with pytest.raises(ValueError, match=r"sparse: .* use scaling: maxabs .* or none"):
        Scaler(method, (0, 1, 2, 3, 4)).fit(X)


def test_maxabs_state_round_trip_and_all_zero_column():
    X = np.array([[0.0, -4.0, 0.0], [2.0, 1.0, 0.0]])
    scaler = Scaler("maxabs", (0, 1, 2)).fit(X)
    np.testing.assert_array_equal(scaler.transform(X), [[0, -1, 0], [1, 0.25, 0]])
    restored = Scaler.from_state("maxabs", scaler.get_state())
    np.testing.assert_array_equal(restored.transform(sp.csr_matrix(X)).toarray(),
                                  scaler.transform(X))
