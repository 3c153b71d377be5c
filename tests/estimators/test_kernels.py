"""Kernels as the papers write them, checked against direct formulas and libsvm's kernels."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import pairwise_kernels

from multisvm_cli.estimators.kernels import (EXP_FLOOR, GAMMA_RANGE, GRAM_TILE, MAX_DEGREE, SIGMA_RANGE, Kernel, gram_fits,
                                  rows_per_chunk)

RNG = np.random.default_rng(0)
A = RNG.normal(size=(7, 5))
B = RNG.normal(size=(4, 5))


def direct(kernel, x, y):
    """k(x, y) by the paper's formula, one pair at a time."""
    if kernel.name == "gaussian":
        return np.exp(-np.sum((x - y) ** 2) / (2 * kernel.sigma**2))
    if kernel.name == "polynomial":
        return (x @ y + (0 if kernel.homogeneous else 1)) ** kernel.degree
    return x @ y


KERNELS = [Kernel.from_params("gaussian", sigma=0.7), Kernel.from_params("gaussian", sigma=4.08),
           Kernel.from_params("polynomial", degree=3, homogeneous=True),
           Kernel.from_params("polynomial", degree=2, homogeneous=False),
           Kernel.from_params("polynomial", degree=1, homogeneous=True),
           Kernel.from_params("linear")]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: f"{k.name}-{k.sigma}-{k.degree}-{k.homogeneous}")
def test_block_matches_the_formula_and_libsvm(kernel):
    expected = np.array([[direct(kernel, x, y) for y in B] for x in A])
    np.testing.assert_allclose(kernel.block(A, B), expected, rtol=1e-12, atol=1e-12)
    params = kernel.svc_params()
    libsvm_kernel = pairwise_kernels(A, B, metric=params.pop("kernel").replace("poly", "polynomial"), **params)
    np.testing.assert_allclose(kernel.block(A, B), libsvm_kernel, rtol=1e-12, atol=1e-12)


def test_gaussian_is_parameterised_by_sigma():
    kernel = Kernel.from_params("gaussian", sigma=2.0)
    assert kernel.gamma == pytest.approx(1 / 8)
    x, y = np.array([[0.0, 0.0]]), np.array([[2.0, 0.0]])  # ||x - y||^2 = 4
    assert kernel.block(x, y)[0, 0] == pytest.approx(np.exp(-4 / 8))


def test_gram_is_symmetric_with_unit_diagonal():
    gram = Kernel.from_params("gaussian", sigma=1.5).gram(A)
    assert gram.flags.c_contiguous and gram.dtype == np.float64
    np.testing.assert_array_equal(gram, gram.T)
    np.testing.assert_allclose(np.diag(gram), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_threads", [1, 3])
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: f"{k.name}-{k.sigma}-{k.degree}-{k.homogeneous}")
def test_tiled_gram_equals_one_block_and_is_exactly_symmetric(kernel, n_threads):
    # 2.5 tiles of rows: full tiles, a partial tile, and mirror-image tiles below the diagonal.
    X = RNG.normal(size=(GRAM_TILE * 5 // 2, 6)) / 2
    gram = kernel.gram(X, n_threads)
    assert gram.shape == (len(X), len(X)) and gram.flags.c_contiguous
    np.testing.assert_array_equal(gram, gram.T)
    np.testing.assert_allclose(gram, kernel.block(X, X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gram[3, 2 * GRAM_TILE + 7], direct(kernel, X[3], X[2 * GRAM_TILE + 7]),
                               rtol=1e-12)


def test_far_gaussian_pairs_get_the_floor_value_instead_of_an_underflow():
    # sigma 0.05: exponents -||a - b||^2 / 0.005 reach about -8000 here, far below exp's
    # underflow at -708; near pairs keep the exact value.
    kernel = Kernel.from_params("gaussian", sigma=0.05)
    X = np.vstack([A, A[:3] + 0.01])
    exponents = -((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * 0.05**2)
    far = exponents < EXP_FLOOR
    assert far.sum() > 50 and (~far).sum() > len(X)
    for values in (kernel.block(X, X), kernel.gram(X)):
        np.testing.assert_allclose(values[~far], np.exp(exponents[~far]), rtol=1e-12)
        np.testing.assert_array_equal(values[far], np.exp(EXP_FLOOR))


def test_gram_refuses_overflowing_kernel_values():
    X = np.full((GRAM_TILE + 3, 2), 1e3)
    X[-1] = 1e60  # only the last, partial tile overflows
    with pytest.raises(ValueError, match="kernel values overflow"):
        Kernel.from_params("polynomial", degree=6).gram(X, n_threads=2)


def test_chunk_sizes_respect_the_memory_budget():
    assert rows_per_chunk(n_columns=1000, memory_mb=1) == 2**20 // 8000
    assert rows_per_chunk(n_columns=10**9, memory_mb=1) == 1
    assert gram_fits(7291, 512) and not gram_fits(16000, 512)


@pytest.mark.parametrize("params, message", [
    ({"kernel": "rbf"}, "unknown kernel 'rbf'"),
    ({"kernel": "gaussian", "sigma": 0}, "sigma must be"),
    ({"kernel": "gaussian", "sigma": -1.0}, "sigma must be"),
    ({"kernel": "gaussian", "sigma": float("nan")}, "sigma must be"),
    ({"kernel": "polynomial", "degree": 0}, "degree must be"),
    ({"kernel": "polynomial", "degree": 2.5}, "degree must be"),
    ({"kernel": "polynomial", "homogeneous": "yes"}, "homogeneous must be"),
])
def test_bad_kernel_parameters_raise_one_line_value_errors(params, message):
    with pytest.raises(ValueError, match=message) as error:
        Kernel.from_params(**params)
    assert "\n" not in str(error.value)


HUGE_INT = 1180591620717411303424  # 2^70: too large for libsvm's C int


@pytest.mark.parametrize("params, message", [
    ({"sigma": 1.0e-200}, r"sigma must be a number in \[7.46e-155, 4.74e\+153\] .*got 1e-200$"),
    ({"sigma": 1.0e+200}, r"sigma must be a number in \[7.46e-155, 4.74e\+153\] .*got 1e\+200$"),
    ({"sigma": 10**400}, "sigma must be a number in"),
    ({"sigma": float("inf")}, "sigma must be a number in"),
    ({"sigma": True}, "sigma must be a number in"),
    ({"sigma": "2"}, "sigma must be a number in"),
    ({"kernel": "polynomial", "degree": HUGE_INT}, rf"degree must be an integer in \[1, 100\], got {HUGE_INT}$"),
    ({"kernel": "polynomial", "degree": 101}, r"degree must be an integer in \[1, 100\], got 101$"),
    ({"kernel": "polynomial", "degree": True}, "degree must be an integer"),
    ({"kernel": "linear", "degree": HUGE_INT}, "degree must be an integer in"),  # checked whatever the kernel
    ({"gamma": 0.0}, r"gamma must be None or a number in \[2.23e-308, 8.99e\+307\], got 0.0$"),
    ({"gamma": -0.5}, "gamma must be None or a number in"),
    ({"gamma": 1e-310}, "gamma must be None or a number in"),  # subnormal
    ({"gamma": 1e308}, "gamma must be None or a number in"),  # 2 gamma overflows
    ({"gamma": float("nan")}, "gamma must be None or a number in"),
    ({"gamma": float("inf")}, "gamma must be None or a number in"),
    ({"gamma": 10**400}, "gamma must be None or a number in"),
    ({"gamma": True}, "gamma must be None or a number in"),
    ({"gamma": "0.5"}, "gamma must be None or a number in"),
    ({"kernel": "polynomial", "gamma": 0.5}, "gamma applies to the gaussian kernel only"),
    ({"kernel": "linear", "gamma": 0.5}, "gamma applies to the gaussian kernel only"),
    ({"sigma": 2.0, "gamma": 0.5}, r"sigma=2.0 and gamma=0.5 disagree \(1/\(2 sigma\^2\) = 0.125\)"),
])
def test_unusable_parameter_ranges_are_refused_naming_value_and_range(params, message):
    with pytest.raises(ValueError, match=message) as error:
        Kernel.from_params(**{"kernel": "gaussian", **params})
    assert "\n" not in str(error.value)


def test_the_range_ends_are_usable_and_the_next_floats_are_not():
    for sigma, outwards in zip(SIGMA_RANGE, (0.0, np.inf)):
        gamma = Kernel.from_params("gaussian", sigma=sigma).gamma
        assert np.isfinite(2 * gamma) and gamma >= np.finfo(np.float64).tiny
        with pytest.raises(ValueError, match="sigma must be"):
            Kernel.from_params("gaussian", sigma=float(np.nextafter(sigma, outwards)))
    for gamma, outwards in zip(GAMMA_RANGE, (0.0, np.inf)):
        assert Kernel.from_params("gaussian", gamma=gamma).gamma == gamma
        with pytest.raises(ValueError, match="gamma must be"):
            Kernel.from_params("gaussian", gamma=float(np.nextafter(gamma, outwards)))
    assert Kernel.from_params("polynomial", degree=MAX_DEGREE).degree == MAX_DEGREE
    assert Kernel.from_params("polynomial", degree=np.int64(7)).degree == 7


@pytest.mark.parametrize("gamma", [2.0**-10, 2.0**4, 0.1, 1 / 3, np.float64(0.7)])
def test_a_given_gamma_is_used_bit_for_bit(gamma):
    kernel = Kernel.from_params("gaussian", gamma=gamma)
    assert kernel.gamma == gamma and type(kernel.gamma) is float
    assert kernel.svc_params() == {"kernel": "rbf", "gamma": gamma}
    assert kernel.sigma == pytest.approx(1 / np.sqrt(2 * gamma), rel=1e-15)  # describes it only
    expected = np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(kernel.block(A, B), expected, rtol=1e-12)


def test_gamma_and_an_agreeing_sigma_make_the_same_kernel_values():
    by_sigma, by_gamma = Kernel.from_params("gaussian", sigma=2.0), Kernel.from_params("gaussian", gamma=0.125)
    assert by_sigma.gamma == by_gamma.gamma == 0.125
    np.testing.assert_array_equal(by_sigma.gram(A), by_gamma.gram(A))
    both = Kernel.from_params("gaussian", sigma=4.08, gamma=1 / (2 * 4.08**2))  # agreeing: accepted
    assert both.sigma == 4.08 and both.gamma == 1 / (2 * 4.08**2)


def test_kernels_describe_themselves_in_the_users_terms():
    assert Kernel.from_params("gaussian", gamma=0.5).label() == "gaussian gamma=0.5"
    assert Kernel.from_params("gaussian", gamma=2.0**-10).label() == "gaussian gamma=0.000976562"
    assert Kernel.from_params("gaussian", sigma=4).label() == "gaussian sigma=4"
    assert Kernel.from_params("gaussian", sigma=4.08).label() == "gaussian sigma=4.08"
    assert Kernel.from_params("polynomial", degree=3, homogeneous=True).label() == "polynomial d=3 homogeneous"
    assert Kernel.from_params("polynomial", degree=2).label() == "polynomial d=2 inhomogeneous"
    assert Kernel.from_params("linear").label() == "linear"
