"""The Newton step's KKT system, reduced class by class (multisvm_cli/estimators/joint/decomposition/schur.py,
newton._direction), against a dense solve of the whole system."""

import numpy as np
import pytest


def kkt_reference(Q, g, classes, positions, n_rows, ridge):
    """D of the Newton step's KKT system (newton's module docstring), solved as one dense system
    of every free variable and every row's multiplier."""
    n = len(g)
    same = classes[:, None] == classes[None, :]
    H = np.zeros((n + n_rows, n + n_rows))
    H[:n, :n] = np.where(same, Q[np.ix_(positions, positions)], 0.0) + ridge * np.eye(n)
    H[n + positions, np.arange(n)] = H[np.arange(n), n + positions] = 1.0
    return np.linalg.solve(H, np.r_[-g, np.zeros(n_rows)])[:n]


def free_variables(rng, n_rows, k):
    """(classes, positions) of a random free set, class-major as np.nonzero gives it, every row
    with at least two free variables."""
    free = rng.random((k, n_rows)) < 0.5
    free[rng.integers(0, k, n_rows), np.arange(n_rows)] = True
    free[:, free.sum(axis=0) < 2] = True
    return np.nonzero(free)


def test_a_class_block_is_inverted_by_cholesky_or_else_lu(monkeypatch):
    """Positive definite: Cholesky's factor and potri (the lower triangle, which is all that
    assemble reads); indefinite: LU, whole; singular: LinAlgError (the step is not taken)."""
    from multisvm_cli.estimators.joint.decomposition import newton

    used = []
    original = newton.dpotri
    monkeypatch.setattr(newton, "dpotri", lambda *a, **k: used.append(1) or original(*a, **k))
    rng = np.random.default_rng(1)
    A = rng.normal(size=(30, 30))
    for M, cholesky in ((A @ A.T + 0.5 * np.eye(30), True), (A + A.T, False)):
        used.clear()
        inverse = newton._inverse(M)
        np.testing.assert_allclose(np.tril(inverse), np.tril(np.linalg.inv(M)), atol=1e-9)
        assert bool(used) == cholesky
    with pytest.raises(np.linalg.LinAlgError):
        newton._inverse(np.zeros((3, 3)))


@pytest.mark.parametrize("seed", [0, 1])
def test_the_reduced_system_gives_the_dense_systems_direction(seed):
    """Rows' multipliers from S, then each class's D: the same D as the whole KKT system, on a
    kernel block with a ridge (Cholesky) and with one class's block indefinite (LU)."""
    from multisvm_cli.estimators.joint.decomposition import newton

    rng = np.random.default_rng(seed)
    n_rows, k = 25, 4
    X = rng.normal(size=(n_rows, 3))
    Q = np.exp(-0.3 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    if seed == 1:  # not positive semi-definite: a class's M_m is indefinite
        Q -= 1.5 * np.eye(n_rows)
    classes, positions = free_variables(rng, n_rows, k)
    g = rng.normal(size=len(classes))
    direction, _ = newton._direction(Q, g, classes, positions, n_rows)
    ridge = newton.RIDGE * max(1.0, Q.diagonal().max())
    expected = kkt_reference(Q, g, classes, positions, n_rows, ridge)
    np.testing.assert_allclose(direction, expected, rtol=1e-8, atol=1e-10)
    assert np.allclose(np.bincount(positions, direction, n_rows), 0.0, atol=1e-10)  # row sums
