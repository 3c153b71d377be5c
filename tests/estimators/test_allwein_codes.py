"""ECOC's ``code_size: allwein``: Allwein, Schapire & Singer's (2000) random codes, drawn as the
paper (p. 136) and Rifkin & Klautau (2004, p. 119 and note 10) describe (issue 39)."""

import time

import numpy as np
import pytest
from sklearn.datasets import load_digits

from multisvm_cli.estimators import ECOCSVC
from multisvm_cli.estimators._codes import (DRAW_BATCH, N_DRAWS, _draw_entries, _valid,
                                            all_columns, allwein_code, check_code_size,
                                            code_matrix, min_row_distances)
from multisvm_cli.persist import load_model, save_model


@pytest.mark.parametrize("k, dense, sparse", [
    (6, 26, 39),     # satimage and glass: Rifkin & Klautau's Table 5 (p. 126)
    (10, 34, 50),    # pendigits, optdigits, yeast: Table 5
    (11, 35, 52),    # vowel: ceil(10 log2 11) = 35, ceil(15 log2 11) = 52
    (26, 48, 71),    # letter: Table 5
])
def test_columns_are_ceil_10_and_15_log2_k(k, dense, sparse):
    assert code_matrix("dense", k, "allwein", 0).shape == (k, dense)
    assert code_matrix("sparse", k, "allwein", 0).shape == (k, sparse)


def test_too_few_distinct_problems_give_every_problem_once():
    # 4 classes: ceil(10 log2 4) = 20 dense columns, but only 7 distinct problems
    code = code_matrix("dense", 4, "allwein", 3)
    np.testing.assert_array_equal(code, all_columns(4, False))
    assert code.shape == (4, 7)


def test_entries_are_drawn_with_the_papers_probabilities():
    rng = np.random.default_rng(0)
    sparse = np.concatenate([_draw_entries(rng, 26, 71, True) for _ in range(4)])
    assert sparse.shape == (4 * DRAW_BATCH, 26, 71)
    # 26 entries a column: a column lacks a sign with probability about 2 x 0.75^26, so the
    # redraws barely move the frequencies from 1/2, 1/4, 1/4
    assert abs(np.mean(sparse == 0) - 0.5) < 0.005
    assert abs(np.mean(sparse == 1) - 0.25) < 0.005
    assert abs(np.mean(sparse == -1) - 0.25) < 0.005
    dense = _draw_entries(rng, 26, 48, False)
    assert set(np.unique(dense)) == {-1, 1} and abs(np.mean(dense == 1) - 0.5) < 0.005
    # every column has both signs, at once (redrawn), also for few classes
    small = _draw_entries(rng, 6, 39, True)
    assert ((small > 0).any(axis=1) & (small < 0).any(axis=1)).all()


@pytest.mark.parametrize("k, sparse", [(6, False), (6, True), (11, True)])
def test_the_kept_code_is_the_best_of_the_draws(k, sparse):
    code = code_matrix("sparse" if sparse else "dense", k, "allwein", 5)
    # the same 10,000 draws, seeded alike: the kept code is valid and has their largest rho
    rng = np.random.default_rng(5)
    n_columns = code.shape[1]
    rhos = []
    for _ in range(N_DRAWS // DRAW_BATCH):
        draws = _draw_entries(rng, k, n_columns, sparse)
        rhos.append(min_row_distances(draws[_valid(draws, opposites=True)]))
    rhos = np.concatenate(rhos)
    rho = min_row_distances(code[None])[0]
    assert rho == rhos.max()
    assert rho > np.median(rhos)
    assert _valid(code[None], opposites=True)[0]
    assert not (code == 0).all(axis=1).any()
    # no two identical columns (the papers' rule)
    assert len(np.unique(code, axis=1).T) == n_columns


def test_same_seed_same_code():
    first = code_matrix("sparse", 10, "allwein", 11)
    np.testing.assert_array_equal(first, code_matrix("sparse", 10, "allwein", 11))
    assert not np.array_equal(first, code_matrix("sparse", 10, "allwein", 12))
    # and not scikit-learn's count: code_size 1.5 gives 15 columns
    assert code_matrix("sparse", 10, 1.5, 11).shape == (10, 15)


def test_ten_thousand_draws_take_well_under_a_second():
    allwein_code.cache_clear()
    start = time.process_time()
    code = allwein_code(26, True, 1)
    assert time.process_time() - start < 1.0
    assert code.shape == (26, 71)


@pytest.mark.parametrize("value", ["allwien", "1.5", 0, -1, float("nan"), float("inf"), True,
                                   None, [1]])
def test_bad_code_sizes_are_refused(value):
    with pytest.raises(ValueError, match="or 'allwein'"):
        check_code_size("code_size", value)


def test_ecoc_trains_decodes_and_reloads_the_papers_code(tmp_path):
    X, y = load_digits(return_X_y=True)
    keep = y < 6
    X, y = X[keep][:500] / 16.0, y[keep][:500]
    model = ECOCSVC(C=10, gamma=0.05, code="dense", code_size="allwein", code_seed=2,
                    decoding="hamming").fit(X, y)
    np.testing.assert_array_equal(model.code_, code_matrix("dense", 6, "allwein", 2))
    assert model.code_.shape == (6, 26)
    assert model.machines_.decision(X[:5], 100).shape == (5, 26)
    # 26 of 31 problems for 6 classes: the kept code repeats some problem with opposite signs,
    # as the papers allow, and a saved model with it loads
    canonical = model.code_ * np.where(model.code_[0] < 0, -1, 1)
    assert len(np.unique(canonical, axis=1).T) < 26
    assert np.mean(model.predict(X) == y) > 0.95
    save_model(tmp_path / "m", model)
    loaded = load_model(tmp_path / "m").estimator
    np.testing.assert_array_equal(loaded.code_, model.code_)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match="code_size must be a number > 0"):
        ECOCSVC(code="dense", code_size="paper").fit(X, y)
