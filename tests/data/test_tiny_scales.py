"""A column of tiny scale is scaled, never taken as constant (issue 56).

Iris x 1e-200 or x 1e-300: the variance (1e-400, 1e-600) underflows to 0 in float64, and
``standard`` scaling took every column as constant (66.7% error); it is now computed on the
column divided by its max |x|.
"""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.preprocessing import StandardScaler

from multisvm_cli.data.scaling import Scaler

X = load_iris().data
ALL = tuple(range(4))


@pytest.mark.parametrize("factor", [1e-200, 1e-300, 1e-305])
def test_a_tiny_column_is_standardized_like_the_unscaled_one(factor):
    scaled = Scaler("standard", ALL).fit(X * factor).transform(X * factor)
    np.testing.assert_allclose(scaled, StandardScaler().fit_transform(X), rtol=1e-9, atol=1e-9)
    assert np.allclose(scaled.std(axis=0), 1.0)


def test_ordinary_columns_keep_their_statistics_bit_for_bit():
    scaler = Scaler("standard", ALL).fit(X)
    reference = StandardScaler().fit(X[:, list(ALL)])
    assert np.array_equal(scaler.offset_, reference.mean_)
    assert np.array_equal(scaler.scale_, reference.scale_)


def test_a_constant_column_is_still_constant():
    block = np.column_stack([X[:, 0] * 1e-300, np.full(len(X), 3e-300)])
    scaler = Scaler("standard", (0, 1)).fit(block)
    assert scaler.scale_[1] == 1.0
    assert np.all(scaler.transform(block)[:, 1] == 0.0)
    assert scaler.scale_[0] > 0 and abs(scaler.transform(block)[:, 0].std() - 1) < 1e-9


@pytest.mark.parametrize("method", ["minmax", "maxabs"])
def test_the_other_methods_survive_tiny_scales_too(method):
    tiny = Scaler(method, ALL).fit(X * 1e-300).transform(X * 1e-300)
    np.testing.assert_allclose(tiny, Scaler(method, ALL).fit(X).transform(X), rtol=1e-9,
                               atol=1e-12)
