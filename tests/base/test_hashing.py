"""multisvm_cli.base.hashing: the one array digest, and the stored digests built on it.

The pinned hex digests below were computed by the code before the digests moved into
``hashing`` (commit 6cd5a40's ``data/cache.py``, ``data/text_features.py`` and
``estimators/reuse.py``): existing parsed-data and text-feature caches stay valid only while
these stay byte-identical.
"""

import hashlib
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from multisvm_cli.base import hashing
from multisvm_cli.data.cache import arrays_sha256
from multisvm_cli.data.text.cache import arrays_sha256 as text_arrays_sha256
from multisvm_cli.estimators.reuse import data_digest, digest as reuse_digest
from multisvm_cli.persist import npy
from multisvm_cli.persist.format import ModelFormatError

X = np.arange(12, dtype=np.float64).reshape(3, 4) / 7
Y = np.array([1, 2, 1], dtype=np.int64)
CSR = sp.csr_matrix(np.array([[0, 1.5, 0], [2, 0, 0], [0, 0, -3]]))


def test_digest_is_hashlib_over_text_bytes_and_c_order_array_bytes():
    by_hand = hashlib.sha256(b"head" + b"\x00\x01" + X.tobytes(order="C") + Y.tobytes())
    assert hashing.sha256_hex("head", b"\x00\x01", X, Y) == by_hand.hexdigest()
    # C order, whatever the array's layout: a Fortran copy and a strided view hash the same
    assert hashing.sha256_hex(np.asfortranarray(X)) == hashing.sha256_hex(X)
    assert hashing.sha256_hex(X[:, ::2]) == hashlib.sha256(X[:, ::2].tobytes()).hexdigest()
    assert hashing.sha256_hex(X[:, ::2]) != hashing.sha256_hex(X[:, :2])
    # the dtype's bytes, not its values: int32 and int64 copies of Y differ
    assert hashing.sha256_hex(Y) != hashing.sha256_hex(Y.astype(np.int32))
    assert hashing.digest(X, algorithm="sha1").digest() == hashlib.sha1(X.tobytes()).digest()


def test_array_bytes_is_a_view_for_contiguous_arrays():
    view = hashing.array_bytes(X)
    assert view.dtype == np.uint8 and view.size == X.nbytes and np.shares_memory(view, X)
    assert hashing.array_bytes(np.float64(2.5)).tobytes() == np.float64(2.5).tobytes()


def test_parsed_cache_digests_are_unchanged():
    assert arrays_sha256(X, Y) == \
        "85e234de0e946c26d66558da17d8bd4b8b13e44986712108bd178cb51e4dffdd"
    assert arrays_sha256(np.asfortranarray(X), Y) == arrays_sha256(X, Y)
    assert arrays_sha256(CSR, np.array(["a", "b", "a"])) == \
        "5b76e29647f207ab4db76574d0363304f5023d0906f7f5ca989e49b80feab3ea"
    texts = np.empty(2, dtype=object)
    texts[:] = ["hello wörld", "x"]
    assert arrays_sha256(texts, Y[:2]) == \
        "5193b2de5627e7f4affef74b6a9a5899435ee2c09d6d8df37fecc1345cc9c18b"


def test_text_features_cache_digest_is_unchanged():
    arrays = {"vocabulary_size": np.asarray([5], dtype=np.int64), "0_data": CSR.data,
              "0_indices": CSR.indices, "0_indptr": CSR.indptr,
              "0_shape": np.asarray(CSR.shape, dtype=np.int64)}
    assert text_arrays_sha256(arrays) == \
        "b7af41984eb0b819e8a79e119bf896c46bf2cfdb8b4c0c8d9cc9f8093df1b813"


def test_reuse_key_digest_is_unchanged():
    assert reuse_digest(X, Y).hex() == "0b6b7c1f317ef049d449c98b3dfa7e136836f89f"
    assert data_digest(CSR).hex() == "78abd11c1209e96404e881acccddaf943c5ea1cd"
    assert data_digest(X.T).hex() == "9d9b4d095d6177ddd8a9900feb4c5ac84f496cab"


def test_model_member_digest_on_load_is_the_written_members_sha256(tmp_path):
    arrays = {"coef": np.asfortranarray(X), "labels": np.array(["a", "bb"])}
    path = tmp_path / "model.npz"
    written = npy.write_arrays(path, arrays)
    with zipfile.ZipFile(path) as archive:  # the whole stored .npy member, hashed by hand
        assert written == {name: hashlib.sha256(archive.read(name + ".npy")).hexdigest()
                           for name in arrays}
    specs = {name: {"shape": list(a.shape), "dtype": a.dtype.str} for name, a in arrays.items()}
    with npy.open_archive(path) as archive:
        headers = npy.read_headers(archive, specs)
        for name, array in arrays.items():
            np.testing.assert_array_equal(npy.read_data(archive, headers[name], written[name]),
                                          array)
        with pytest.raises(ModelFormatError, match="changed after saving"):
            npy.read_data(archive, headers["coef"], written["labels"])
