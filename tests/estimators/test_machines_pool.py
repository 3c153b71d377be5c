"""The shared support-vector pool (estimators._machines.Machines) against the formula it
implements: f_m(x) = sum_s coef[s, m] k(vectors[s], x) + intercept[m]."""

import numpy as np
import pytest
import scipy.sparse as sp

from multisvm_cli.estimators._machines import Machines
from multisvm_cli.estimators.kernels import Kernel


def pool(kernel, rng):
    """12 pooled vectors in 4 groups; group 2 feeds no machine, one stored coefficient is 0."""
    vectors = rng.normal(size=(12, 5))
    groups = np.repeat([0, 1, 2, 3], 3)
    dense = rng.normal(size=(12, 4)) * (rng.random((12, 4)) < 0.6)
    dense[6:9] = 0.0
    coef = sp.csc_matrix(dense)
    coef.data[0] = 0.0  # an explicit zero: stored, but no support vector of its machine
    intercept = rng.normal(size=4)
    return Machines(kernel, vectors, coef, intercept, groups), vectors, coef.toarray(), intercept


@pytest.mark.parametrize("kernel", [Kernel.from_params(kernel="gaussian", sigma=1.3),
                                    Kernel.from_params(kernel="polynomial", degree=3,
                                                       homogeneous=False)])
def test_pool_decisions_equal_the_dense_formula(kernel):
    rng = np.random.default_rng(0)
    machines, vectors, dense, intercept = pool(kernel, rng)
    X = rng.normal(size=(30, 5))
    if kernel.name == "gaussian":
        gram = np.exp(-((X[:, None, :] - vectors[None, :, :]) ** 2).sum(-1) / (2 * 1.3 ** 2))
    else:
        gram = (X @ vectors.T + 1.0) ** 3
    expected = gram @ dense + intercept
    np.testing.assert_allclose(machines.decision(X, memory_mb=1), expected, rtol=1e-10, atol=1e-10)
    some = machines.decision_some(X, [1, 3], memory_mb=1)
    np.testing.assert_allclose(some, expected[:, [1, 3]], rtol=1e-10, atol=1e-10)
    # the blocks skip the group that feeds no machine and keep only the machines a group feeds
    assert [(start, stop) for start, stop, _, _ in machines._blocks] == [(0, 3), (3, 6), (9, 12)]
    for start, stop, columns, weights in machines._blocks:
        used = np.flatnonzero(np.any(dense[start:stop] != 0, axis=0))
        assert set(used) <= set(columns)
        np.testing.assert_array_equal(weights, dense[start:stop][:, columns])


def test_membership_counts_only_non_zero_coefficients():
    rng = np.random.default_rng(1)
    machines, _, dense, _ = pool(Kernel.from_params(kernel="gaussian", sigma=1.0), rng)
    np.testing.assert_array_equal(machines.membership.toarray(), (dense.T != 0).astype(np.int32))
    used = np.array([[True, False, False, False], [True, True, True, True]])
    expected = [np.count_nonzero(dense[:, 0]), np.count_nonzero(np.any(dense != 0, axis=1))]
    assert list(machines.unique_support_vectors(used)) == expected
