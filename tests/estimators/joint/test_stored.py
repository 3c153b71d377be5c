"""The joint solver's stored Gram matrix (in ordinary pages, :func:`.kernel_rows.plain_pages`), what is
read from it in place (:mod:`.stored`), and the gradient's reconstruction after unshrinking
(:func:`solver.reconstruct`): read in place from that matrix or computed in blocks from X, it
is Q beta + e."""

import numpy as np
import pytest

from multisvm_cli.estimators.joint.decomposition import solver, stored
from multisvm_cli.estimators.joint.decomposition.kernel_rows import KernelRows, plain_pages
from multisvm_cli.estimators.joint.decomposition.solver import reconstruct, solve_dual
from multisvm_cli.estimators.joint.formulations import FORMULATIONS
from multisvm_cli.estimators.kernels import Kernel, rows_per_chunk
from tests.estimators.joint.test_all_together import dual_terms, settings, tiny_problem


@pytest.mark.parametrize("kernel", [Kernel.from_params("gaussian", gamma=0.5),
                                    Kernel.from_params("polynomial", degree=2)])
def test_the_stored_gram_matrix_is_kernel_gram_bit_for_bit(kernel):
    """KernelRows' Gram matrix, filled into ordinary pages, holds exactly Kernel.gram's values
    in a writable C-contiguous float64 array, and its diagonal is the cached rows' one."""
    X, _ = tiny_problem(700, 4, seed=4)  # 700 > 256: several bands of tiles
    rows = KernelRows(X, kernel, 200.0, 2048.0)
    assert rows.full and rows.rows.dtype == np.float64 and rows.rows.flags.c_contiguous
    assert rows.rows.flags.writeable and rows.nbytes == 700 * 700 * 8
    np.testing.assert_array_equal(rows.rows, kernel.gram(X))
    np.testing.assert_array_equal(rows.diag, KernelRows(X, kernel, 0.5, 0.5).diag)
    zeros = plain_pages(3, 5)
    assert zeros.shape == (3, 5) and not zeros.any()


def test_the_gram_matrix_is_held_whole_where_it_fits_memory_mb(monkeypatch):
    """K(X, X) is held whole where it fits ``memory_mb`` (the rule of every scheme's training
    Gram matrix, kernels.gram_fits), whatever ``cache_size``; else its rows are cached in
    ``cache_size`` MB.  700 rows: 3,920,000 bytes, 3.738 MB."""
    X, y = tiny_problem(700, 4, seed=4)
    kernel = Kernel.from_params("gaussian", gamma=0.5)
    whole, cached = KernelRows(X, kernel, 0.5, 3.74), KernelRows(X, kernel, 200.0, 3.73)
    assert whole.full and whole.nbytes == 700 * 700 * 8
    assert not cached.full and cached.rows.shape == (700, 700)  # a slot for every row, filled as read
    assert KernelRows(X, kernel, 0.5, 3.73).rows.shape == (93, 700)  # 0.5 MB of 700-value rows
    grams = []  # the row counts of the Gram matrices a solve computes
    gram = Kernel.gram
    monkeypatch.setattr(Kernel, "gram", lambda self, X, *args: grams.append(X.shape[0]) or
                        gram(self, X, *args))
    fits = {memory_mb: solve_dual(X, y, 4, "cs", settings(kernel, 1.0, 1e-3, cache_size=0.5,
                                                          memory_mb=memory_mb))
            for memory_mb in (3.74, 3.73)}
    assert grams == [700]  # the first solve's, whole; the second's rows computed as read
    assert fits[3.74].n_iter == fits[3.73].n_iter
    np.testing.assert_allclose(fits[3.74].beta, fits[3.73].beta, atol=1e-9)


def some_dual(n_rows, n_classes, rng):
    """A (k, l) beta with zero rows (not support vectors) and zero entries within the others."""
    beta = rng.normal(size=(n_classes, n_rows))
    beta[:, rng.random(n_rows) < 0.4] = 0.0
    beta[rng.random(beta.shape) < 0.3] = 0.0
    return beta


@pytest.mark.parametrize("form", ["cs", "ww"])
@pytest.mark.parametrize("cache_size", [200.0, 0.02])  # the Gram matrix; a cache of ~8 rows
def test_reconstruct_equals_the_gradient_from_scratch(form, cache_size):
    """G of the given examples = Q beta + e from the dense Q; the other examples' G untouched;
    the same numbers into a G that is the transpose of an (l, k) array (as LLW hands it)."""
    X, y = tiny_problem(300, 4, seed=5)
    kernel = Kernel.from_params("gaussian", gamma=0.5)
    Q, E = dual_terms(form, X, y, kernel, 4)
    rng = np.random.default_rng(0)
    beta = some_dual(300, 4, rng)
    examples = np.flatnonzero(rng.random(300) < 0.5)
    rows = KernelRows(X, kernel, cache_size, cache_size)
    assert rows.full == (cache_size == 200.0)
    _, margin, shift = FORMULATIONS[form]
    G = np.full((4, 300), np.nan)
    reconstruct(G, beta, y, margin, shift, rows, examples, 0.01)  # blocks of a few rows
    expected = (Q @ beta.T + E).T
    np.testing.assert_allclose(G[:, examples], expected[:, examples], rtol=0.0, atol=1e-11)
    assert np.isnan(np.delete(G, examples, axis=1)).all()
    transposed = np.full((300, 4), np.nan)
    reconstruct(transposed.T, beta, y, margin, shift, rows, examples, 0.01)
    np.testing.assert_array_equal(transposed.T, G)


@pytest.mark.parametrize("every_column", [False, True])
def test_add_rows_skips_nothing_it_needs(every_column):
    """Every non-zero coefficient of every support row counts once, with the shift, into the
    given examples' columns only (all of them: the in-order pass); rows outside ``support``
    count not at all."""
    rng = np.random.default_rng(1)
    gram, beta = rng.normal(size=(50, 50)), some_dual(50, 3, rng)
    support = np.flatnonzero(np.any(beta != 0.0, axis=0))
    examples = rng.permutation(50) if every_column else np.arange(0, 50, 3)
    G = np.ones((3, 50))
    stored.add_rows(G, beta[:, support], support, gram, examples, 0.5)
    expected = 1.0 + beta @ (gram + 0.5)
    np.testing.assert_allclose(G[:, examples], expected[:, examples], rtol=0.0, atol=1e-12)
    np.testing.assert_array_equal(np.delete(G, examples, axis=1), 1.0)
    in_order = np.ones((3, 50))  # each entry's sum in the same order: the very same numbers
    for s in support:
        for m in np.flatnonzero(beta[:, s]):
            in_order[m, examples] += beta[m, s] * (gram[s, examples] + 0.5)
    np.testing.assert_array_equal(G, in_order)
    before = G.copy()
    stored.add_rows(G, np.zeros((3, 1)), support[:1], gram, examples, 0.5)  # a zero row: nothing
    np.testing.assert_array_equal(G, before)


def test_a_block_read_from_the_gram_matrix_is_the_computed_one():
    """KernelRows.block where K(X, X) is stored (gathered from it) holds the values of the
    block computed from X where it is not, within rounding, for any rows and columns."""
    X, _ = tiny_problem(300, 4, seed=6)
    kernel = Kernel.from_params("gaussian", gamma=0.5)
    stored_rows, computed_rows = KernelRows(X, kernel, 200.0, 2048.0), KernelRows(X, kernel, 0.5, 0.5)
    assert stored_rows.full and not computed_rows.full
    rng = np.random.default_rng(2)
    rows, columns = rng.choice(300, 40, replace=False), rng.choice(300, 70, replace=False)
    block = stored_rows.block(rows, columns)
    assert block.shape == (40, 70) and block.flags.c_contiguous
    np.testing.assert_array_equal(block, stored_rows.rows[np.ix_(rows, columns)])
    np.testing.assert_allclose(block, computed_rows.block(rows, columns), rtol=0.0, atol=1e-14)
    assert stored_rows.block_bytes(40, 70) == block.nbytes


@pytest.mark.parametrize("cache_size", [200.0, 0.02])
def test_add_products_is_the_product_with_the_kernel_block(cache_size):
    """G[:, examples] += coef (K[support, examples] + shift), read from the Gram matrix or
    computed in blocks of a few rows; the other columns untouched; the bytes reported: none
    read in place, the blocks' otherwise."""
    X, _ = tiny_problem(200, 4, seed=7)
    kernel = Kernel.from_params("gaussian", gamma=0.5)
    rows = KernelRows(X, kernel, cache_size, cache_size)
    rng = np.random.default_rng(3)
    support, examples = rng.choice(200, 30, replace=False), np.flatnonzero(rng.random(200) < 0.6)
    coef, G = rng.normal(size=(4, 30)), rng.normal(size=(4, 200))
    expected = G.copy()
    expected[:, examples] += coef @ (kernel.gram(X)[np.ix_(support, examples)] + 1.0)
    held = rows.add_products(G, coef, support, examples, 1.0, 0.01)  # blocks of 43 columns
    np.testing.assert_allclose(G, expected, rtol=0.0, atol=1e-12)
    assert held == (5 * len(examples) * 8 if rows.full  # G's 4 rows and one row's values
                    else rows.block_bytes(30, rows_per_chunk(30, 0.01)))


@pytest.mark.parametrize("form", ["cs", "ww"])
def test_shrinking_on_the_gram_matrix_takes_the_unshrunk_steps(form, monkeypatch):
    """A solve that shrinks and rebuilds the set-aside examples' G from the Gram matrix in
    place takes the same steps to the same beta as the solve that never shrinks (whose G is
    only ever updated): a wrong rebuilt G would send it elsewhere."""
    rebuilt = []
    original = solver.reconstruct
    monkeypatch.setattr(solver, "reconstruct",
                        lambda *args: rebuilt.append(args[5].full and len(args[6])) or original(*args))
    X, y = tiny_problem(600, 4, seed=2)
    fit = settings(Kernel.from_params("gaussian", gamma=2.0), 10.0, 1e-4)
    shrunk = solve_dual(X, y, 4, form, fit, shrinking=True)
    assert rebuilt and min(rebuilt) > 0  # examples were set aside, then rebuilt in place
    whole = solve_dual(X, y, 4, form, fit, shrinking=False)
    assert shrunk.converged and shrunk.n_iter == whole.n_iter
    np.testing.assert_allclose(shrunk.beta, whole.beta, rtol=0.0, atol=1e-10)
