"""Sparse (CSR) input end to end: every scheme gives the dense path's results, saved models keep
sparse support vectors sparse, and a large sparse X is never densified."""

import json
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from multisvm_cli.estimators import (DAGSVC, GraphSVC, HierSVC, MaxWinsSVC, NBClassifier, OneVsRestSVC,
                                     UDTSVC)
from multisvm_cli.estimators import _base
from multisvm_cli.estimators.kernels import Kernel, squared_norms
from multisvm_cli.persist import ModelFormatError, load_model, save_model
from model_files import edit_arrays  # rewrites the manifest: the checks behind it must refuse

_X, _y = load_digits(return_X_y=True)
DIGITS = _X / 16.0  # 64 pixel intensities in [0, 1], about half of them zero
TRAIN, TEST = slice(0, 900), slice(900, 1300)

SCHEMES = {
    "ovr": lambda **kw: OneVsRestSVC(C=10.0, **kw),
    "maxwins": lambda **kw: MaxWinsSVC(C=10.0, **kw),
    "dag": lambda **kw: DAGSVC(C=10.0, **kw),
    "udt": lambda **kw: UDTSVC(C=10.0, random_state=0, **kw),
    "graph": lambda **kw: GraphSVC(C=10.0, threshold=0.01, random_state=0, **kw),
    "hier": lambda **kw: HierSVC(C=10.0, random_state=0, **kw),
    "hier-svm": lambda **kw: HierSVC(C=10.0, level1="svm", random_state=0, **kw),
    "nb": lambda **kw: NBClassifier(**kw),
}
KERNELS = {"gaussian": {"kernel": "gaussian", "sigma": 2.0},
           "polynomial": {"kernel": "polynomial", "degree": 2},
           "linear": {"kernel": "linear"}}


def text_like(n_rows, n_features, n_classes=4, words=40, vocabulary=100, seed=0):
    """Bag-of-words-like CSR word counts: 90% of each row's words come from its class's own
    vocabulary, the rest from all features.  Returns (X, y)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(n_classes, size=n_rows)
    n_own = words - words // 10
    own = y[:, None] * vocabulary + rng.integers(vocabulary, size=(n_rows, n_own))
    common = rng.integers(n_features, size=(n_rows, words - n_own))
    rows = np.repeat(np.arange(n_rows), words)
    columns = np.hstack([own, common]).ravel()
    return sp.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(n_rows, n_features)), y


def pool(model):
    """The support-vector pool of a model's machines (a linear model's: behind its primal weights)."""
    return getattr(model.machines_, "pool", model.machines_)


def assert_same_model(dense, sparse, X_test, rtol=0.0):
    """The sparse-trained model gives the dense-trained one's results on sparse test points."""
    X_sparse = sp.csr_matrix(X_test)
    np.testing.assert_array_equal(sparse.predict(X_sparse), dense.predict(X_test))
    np.testing.assert_allclose(sparse.decision_function(X_sparse), dense.decision_function(X_test),
                               rtol=rtol, atol=1e-6)
    assert sparse.kernel_evaluations(X_sparse) == dense.kernel_evaluations(X_test)
    assert sparse.n_parameters_ == dense.n_parameters_
    assert sparse.n_support_vectors_ == dense.n_support_vectors_


@pytest.mark.slow
@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_csr_input_gives_the_dense_results(scheme, kernel):
    make = SCHEMES[scheme]
    dense = make(**KERNELS[kernel]).fit(DIGITS[TRAIN], _y[TRAIN])
    sparse = make(**KERNELS[kernel]).fit(sp.csr_matrix(DIGITS[TRAIN]), _y[TRAIN])
    # naive Bayes' joint log-likelihoods reach 1e10 (variances of 1e-10 where a class's pixel
    # is always 0): they agree to rounding, relative 1e-9
    assert_same_model(dense, sparse, DIGITS[TEST], rtol=1e-9 if scheme == "nb" else 0.0)
    if hasattr(sparse, "machines_"):
        assert sp.issparse(pool(sparse).vectors) and not sp.issparse(pool(dense).vectors)
        # either model takes either kind of test points
        X_test = DIGITS[TEST]
        np.testing.assert_array_equal(dense.predict(sp.csr_matrix(X_test)), sparse.predict(X_test))


@pytest.mark.parametrize("scheme", ["ovr", "dag", "udt", "graph"])
def test_text_like_sparse_data_gives_the_dense_results(scheme):
    X, y = text_like(500, 3000, seed=1)
    extra = {"nb": "multinomial"} if scheme == "graph" else {}
    make = SCHEMES[scheme]
    dense = make(sigma=4.0, **extra).fit(X[:300].toarray(), y[:300])
    sparse = make(sigma=4.0, **extra).fit(X[:300], y[:300])
    assert_same_model(dense, sparse, X[300:].toarray())
    assert np.mean(sparse.predict(X[300:]) == y[300:]) > 0.9


def test_other_sparse_formats_and_explicit_zeros_count_as_the_dense_matrix():
    X = sp.csr_matrix(DIGITS[TRAIN])
    X.data[::7] = 0.0  # stored zeros: not parameters, not features
    dense = MaxWinsSVC(C=10.0, sigma=2.0).fit(X.toarray(), _y[TRAIN])
    rows = np.tile(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)), 2)
    columns = np.tile(X.indices, 2)
    order = np.lexsort((-columns, rows))
    halves = sp.csr_matrix((np.tile(X.data, 2)[order] / 2, columns[order], 2 * X.indptr), shape=X.shape)
    assert not halves.has_canonical_format  # every value as two halves, columns in reverse order
    for matrix in (X, X.tocoo(), X.tocsc(), halves):
        sparse = MaxWinsSVC(C=10.0, sigma=2.0).fit(matrix, _y[TRAIN])
        assert_same_model(dense, sparse, DIGITS[TEST])


def test_gaussian_nb_in_small_chunks_is_the_whole_fit(monkeypatch):
    monkeypatch.setattr(_base, "BLOCK_MB", 0.01)  # 5 rows of 64 features a chunk
    assert len(_base.nb_chunks(sp.csr_matrix(DIGITS[TRAIN]))) == 180
    dense = NBClassifier().fit(DIGITS[TRAIN], _y[TRAIN])
    sparse = NBClassifier().fit(sp.csr_matrix(DIGITS[TRAIN]), _y[TRAIN])
    np.testing.assert_allclose(sparse.nb_.theta_, dense.nb_.theta_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(sparse.nb_.var_, dense.nb_.var_, rtol=1e-9)
    assert sparse.nb_.epsilon_ == pytest.approx(dense.nb_.epsilon_, rel=1e-12)
    assert_same_model(dense, sparse, DIGITS[TEST], rtol=1e-9)


@pytest.mark.parametrize("kernel", [Kernel("gaussian", 1.5), Kernel("polynomial", degree=3),
                                    Kernel("linear")])
def test_kernel_blocks_and_gram_of_sparse_rows_equal_the_dense_ones(kernel):
    A = sp.random(300, 400, density=0.05, format="csr", random_state=0)
    B = sp.random(500, 400, density=0.05, format="csr", random_state=1)
    expected = kernel.block(A.toarray(), B.toarray())
    for left, right in ((A, B), (A.toarray(), B), (A, B.toarray())):
        block = kernel.block(left, right)
        assert isinstance(block, np.ndarray) and block.flags.c_contiguous
        np.testing.assert_allclose(block, expected, rtol=1e-12, atol=1e-12)
    gram = kernel.gram(B, n_threads=2)
    np.testing.assert_allclose(gram, kernel.gram(B.toarray()), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(gram, gram.T)
    np.testing.assert_allclose(squared_norms(A), squared_norms(A.toarray()), rtol=1e-14)


@pytest.mark.parametrize("scheme", ["ovr", "dag", "graph", "hier"])
def test_saved_sparse_model_keeps_its_vectors_sparse(tmp_path, scheme):
    model = SCHEMES[scheme](sigma=2.0).fit(sp.csr_matrix(DIGITS[TRAIN]), _y[TRAIN])
    save_model(tmp_path / "model", model)
    names = json.loads((tmp_path / "model" / "model.json").read_text())["arrays"]
    sparse_names = {"svm_vectors_data", "svm_vectors_indices", "svm_vectors_indptr", "svm_vectors_shape"}
    assert sparse_names <= set(names)
    assert "svm_vectors" not in names and names["svm_vectors_shape"] == {"shape": [2], "dtype": "<i8"}
    again = load_model(tmp_path / "model").estimator
    assert sp.issparse(again.machines_.vectors)
    assert (again.machines_.vectors != model.machines_.vectors).nnz == 0
    X_test = sp.csr_matrix(DIGITS[TEST])
    np.testing.assert_array_equal(again.predict(X_test), model.predict(X_test))
    np.testing.assert_array_equal(again.decision_function(X_test), model.decision_function(X_test))
    assert again.n_parameters_ == model.n_parameters_


def test_dense_models_keep_their_array_names(tmp_path):
    save_model(tmp_path / "model", MaxWinsSVC(sigma=2.0).fit(DIGITS[TRAIN], _y[TRAIN]))
    names = json.loads((tmp_path / "model" / "model.json").read_text())["arrays"]
    assert "svm_vectors" in names and not any(name.startswith("svm_vectors_") for name in names)



def swap_pointers(arrays):
    arrays["svm_vectors_indptr"][[3, 4]] = arrays["svm_vectors_indptr"][[4, 3]]


def column_out_of_range(arrays):
    arrays["svm_vectors_indices"][0] = 64


def rows_disagree(arrays):
    arrays["svm_vectors_shape"][0] += 1


def too_few_columns(arrays):
    arrays["svm_vectors_shape"][1] = 10


@pytest.mark.parametrize("change, message", [
    (swap_pointers, "svm_vectors_indptr is not a valid row pointer"),
    (column_out_of_range, r"svm_vectors_indices out of range 0\.\.63"),
    (rows_disagree, "svm_vectors_indptr is not a valid row pointer"),
    (too_few_columns, "svm_vectors_indices out of range 0..9"),
])
def test_tampered_sparse_vectors_are_refused(tmp_path, change, message):
    save_model(tmp_path / "model", MaxWinsSVC(sigma=2.0).fit(sp.csr_matrix(DIGITS[TRAIN]), _y[TRAIN]))
    edit_arrays(tmp_path / "model", change)  # shapes unchanged: the JSON still agrees
    with pytest.raises(ModelFormatError, match=message) as error:
        load_model(tmp_path / "model")
    assert "\n" not in str(error.value)


def test_sparse_vectors_with_the_wrong_feature_count_are_refused(tmp_path):
    save_model(tmp_path / "model", MaxWinsSVC(sigma=2.0).fit(sp.csr_matrix(DIGITS[TRAIN]), _y[TRAIN]))
    edit_arrays(tmp_path / "model", lambda arrays: arrays["svm_vectors_shape"].__setitem__(1, 65))
    with pytest.raises(ModelFormatError, match="svm_vectors must have 64 columns"):
        load_model(tmp_path / "model")


@pytest.mark.parametrize("scheme", ["ovr", "nb"])
def test_non_finite_sparse_values_are_refused(scheme):
    X = sp.csr_matrix(DIGITS[TRAIN])
    X.data[5] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN or infinity"):
        SCHEMES[scheme]().fit(X, _y[TRAIN])
    model = SCHEMES[scheme]().fit(DIGITS[TRAIN], _y[TRAIN])
    X_test = sp.csr_matrix(DIGITS[TEST])
    X_test.data[0] = np.inf
    with pytest.raises(ValueError, match="Input X contains NaN or infinity"):
        model.predict(X_test)
    with pytest.raises(ValueError, match="features"):
        model.predict(sp.csr_matrix(DIGITS[TEST, :60]))


@pytest.mark.slow
def test_a_large_sparse_matrix_is_never_densified():
    """4,000 x 20,000 at about 1% density (a dense copy: 610 MB) through a linear 1-v-r fit and
    predict: the peak of traced memory is the 4,000^2 training Gram matrix (122 MB) and a few
    sparse copies, never an X-sized dense array."""
    X, y = text_like(5000, 20_000, words=200, vocabulary=400, seed=2)
    X_train, y_train, X_test = X[:4000], y[:4000], X[4000:]
    dense_mb, gram_mb = 4000 * 20_000 * 8 / 2**20, 4000**2 * 8 / 2**20
    tracemalloc.start()
    try:
        model = OneVsRestSVC(kernel="linear").fit(X_train, y_train)
        predictions = model.predict(X_test)
        peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    assert sp.issparse(pool(model).vectors)
    assert np.mean(predictions == y[4000:]) > 0.95
    assert peak_mb < gram_mb + 40 < dense_mb / 3
