"""Kernel functions as the papers write them, computed as BLAS matrix products.

Definitions (Platt, Cristianini, Shawe-Taylor 1999, section 5):

- ``gaussian``:   k(x, y) = exp(-||x - y||^2 / (2 sigma^2)) = exp(-gamma ||x - y||^2),
                  gamma = 1 / (2 sigma^2) (libsvm's and Ramanan et al.'s parameter)
- ``polynomial``: k(x, y) = (x . y)^d          (``homogeneous=True``)
                  k(x, y) = (x . y + 1)^d      (``homogeneous=False``)
- ``linear``:     k(x, y) = x . y

Every kernel block is one matrix product ``A @ B.T`` (squared distances from it and the row norms
for the Gaussian) followed by element-wise operations done in place, so a block costs one
allocation of its own size.  :func:`rows_per_chunk` sizes row chunks so that a block stays within
a memory budget.

Sparse input (scipy CSR, e.g. svmlight text data): a block's product is a sparse product whose
result alone is made dense (:func:`product`), and row norms are summed over the non-zeros
(:func:`squared_norms`), so a sparse X is never densified; only blocks, already bounded by
their row chunks, are dense.  Sparse operands are CSR in canonical form (:func:`as_float_rows`).
"""

import math
from dataclasses import dataclass
from functools import partial
from numbers import Integral, Real

import numpy as np

from ..base.lazy import issparse
from ..base.parallel import map_threads

# Each kernel's own parameters, as estimators, configs and saved models name them: the one table
# of them (a Gaussian's width is sigma or gamma; the polynomial's degree and homogeneous).
KERNEL_PARAMS = {"gaussian": ("sigma", "gamma"), "polynomial": ("degree", "homogeneous"), "linear": ()}
KERNEL_NAMES = tuple(KERNEL_PARAMS)
# Other names of the kernel types (libsvm's, scikit-learn's), accepted in any case by configs.
KERNEL_ALIASES = {"rbf": "gaussian", "poly": "polynomial"}


def kernel_name(given) -> str | None:
    """The kernel type that ``given`` names (a name or an alias, in any case), or None."""
    if not isinstance(given, str):
        return None
    folded = given.strip().lower()
    return folded if folded in KERNEL_PARAMS else KERNEL_ALIASES.get(folded)

BYTES_PER_VALUE = 8  # kernel blocks are float64
ELEMENTWISE_SLICE_MB = 2  # row slices of a block stay in cache through the element-wise steps
# Gram tiles of 256 x 256 (512 KB) stay in cache from the product through the element-wise steps
# and the transposed copy; measured 1.6-3.4x faster than one n x n product on USPS, Covertype
# and Letter (the symmetric product's own copy of its lower triangle walks memory by columns).
GRAM_TILE = 256
OVERFLOW_MESSAGE = "kernel values overflow; scale the features or lower the polynomial degree"
# numpy's exp takes 12-170 ns per value whose result underflows (below 2.2e-308, subnormal or
# zero) against 0.7 ns otherwise (measured, float64, AVX-512).  Gaussian exponents are floored
# here, so a far pair's kernel value is exp(-700) = 9.9e-305 instead of a subnormal or 0: a
# difference no sum of kernel values times dual coefficients can show.
EXP_FLOOR = -700.0

DEFAULT_SIGMA = 1.0
# libsvm takes the degree as a C int, but long before 2^31 the kernel itself is unusable:
# (x.y + 1)^d stays below float64's 1.8e308 only while |x.y + 1| < 1.8e308^(1/d), which is about
# 1200 at d = 100 but 2.03 at d = 1000.  Degrees used in practice are single-digit; 100 leaves room.
MAX_DEGREE = 100
# gamma must be a normal float (subnormals lose precision, 0 is no kernel) and 2 gamma finite
# (kernel blocks scale products by 2 gamma); the sigma range follows from gamma = 1/(2 sigma^2).
GAMMA_RANGE = (float(np.finfo(np.float64).tiny), float(np.finfo(np.float64).max) / 2)
GAMMA_AGREEMENT = 1e-12  # the relative gap allowed between a given gamma and 1/(2 sigma^2)


def finite_float(value):
    """``value`` as a finite float if it is a real number (bools excluded) that has one; else
    None (NaN, infinities, integers too large for a float, strings, ...)."""
    if not isinstance(value, Real) or isinstance(value, (bool, np.bool_)):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError, TypeError):
        return None
    return number if math.isfinite(number) else None


def in_gamma_range(gamma):
    """Whether ``gamma`` (a float) is usable: normal and with 2 gamma finite."""
    return GAMMA_RANGE[0] <= gamma <= GAMMA_RANGE[1]


def gaussian_gamma(sigma):
    """1 / (2 sigma^2) for a usable ``sigma``, else None: sigma must be a finite number > 0
    whose sigma^2 is finite and whose gamma is in GAMMA_RANGE.  Never raises (Python's
    ``sigma**2`` raises OverflowError and ``1 / 0.0`` ZeroDivisionError, so neither is used on
    unchecked values)."""
    sigma = finite_float(sigma)
    if sigma is None or sigma <= 0:
        return None
    square = sigma * sigma  # inf or 0.0 on overflow / underflow, never an exception
    if not 0.0 < square < math.inf:
        return None
    gamma = 1.0 / (2.0 * square)
    return gamma if in_gamma_range(gamma) else None


def _sigma_bound(estimate, inwards):
    """The usable sigma nearest to ``estimate`` (a bound of 1/sqrt(2 gamma) over GAMMA_RANGE,
    which rounding may put a float or two outside), stepping towards ``inwards``."""
    while gaussian_gamma(estimate) is None:
        estimate = float(np.nextafter(estimate, inwards))
    return estimate


# The smallest and largest usable sigma (both inclusive).
SIGMA_RANGE = (_sigma_bound(math.sqrt(0.5 / GAMMA_RANGE[1]), 1.0),
               _sigma_bound(math.sqrt(0.5 / GAMMA_RANGE[0]), 1.0))


def _sigma_for_gamma(kernel, sigma, sigma_gamma, gamma):
    """The sigma a Kernel given by ``gamma`` carries: the given sigma when it agrees, else
    1/sqrt(2 gamma); ValueError for a gamma out of range, on a non-Gaussian kernel, or one that
    disagrees with a sigma that was given."""
    value = finite_float(gamma)
    if value is None or not in_gamma_range(value):
        raise ValueError(f"gamma must be None or a number in [{GAMMA_RANGE[0]:.3g}, {GAMMA_RANGE[1]:.3g}], "
                         f"got {gamma!r}")
    if "gamma" not in KERNEL_PARAMS[kernel]:
        raise ValueError(f"gamma applies to the gaussian kernel only; leave it None for the {kernel} kernel "
                         f"(got gamma={gamma!r})")
    if sigma == DEFAULT_SIGMA:
        return math.sqrt(0.5 / value)
    if not math.isclose(sigma_gamma, value, rel_tol=GAMMA_AGREEMENT, abs_tol=0.0):
        raise ValueError(f"sigma={sigma!r} and gamma={gamma!r} disagree (1/(2 sigma^2) = {sigma_gamma!r}); "
                         f"give one of them and leave sigma at {DEFAULT_SIGMA} when giving gamma")
    return float(sigma)


@dataclass(frozen=True)
class Kernel:
    """A validated kernel: ``name`` in KERNEL_NAMES, with its sigma / degree / homogeneous.

    The Gaussian's width is given by ``sigma`` or, as libsvm writes it, by ``gamma`` =
    1 / (2 sigma^2) (``given_gamma``): when ``given_gamma`` is set it drives the kernel exactly
    and ``sigma`` only describes it (1 / sqrt(2 gamma)).  Build kernels with :meth:`from_params`,
    which checks every parameter.
    """

    name: str
    sigma: float = 1.0
    degree: int = 3
    homogeneous: bool = False
    given_gamma: float | None = None

    @classmethod
    def from_params(cls, kernel, sigma=DEFAULT_SIGMA, degree=3, homogeneous=False, gamma=None):
        """Check the estimator's kernel parameters and return the Kernel; ValueError (one line,
        naming the parameter, its value and the allowed range) if one is unusable.

        This is the one place that decides which kernel parameters are usable; it is cheap and
        has no side effects (call it for every grid point).  The rules:

        - ``sigma``: a number with gamma = 1 / (2 sigma^2) a normal float (>= 2.2e-308) and
          2 gamma finite, i.e. sigma in SIGMA_RANGE = [7.46e-155, 4.74e153]; checked whatever
          the kernel, as every estimator carries one.
        - ``gamma``: None, or (Gaussian kernel only) a number in GAMMA_RANGE =
          [2.23e-308, 8.99e307] (normal, and 2 gamma finite: kernel blocks scale products by
          2 gamma).  Exactly one of sigma and gamma drives the kernel: when ``gamma`` is given
          it is used bit for bit, and ``sigma`` must be left at its default (1.0, which then
          counts as not given) or agree with it (1 / (2 sigma^2) equal to gamma within a
          relative 1e-12).
        - ``degree``: an integer in [1, MAX_DEGREE] (see MAX_DEGREE); checked whatever the kernel.
        - ``homogeneous``: True or False.
        """
        if not isinstance(kernel, str) or kernel not in KERNEL_NAMES:
            raise ValueError(f"unknown kernel {kernel!r}; expected one of {', '.join(KERNEL_NAMES)}")
        sigma_gamma = gaussian_gamma(sigma)
        if sigma_gamma is None:
            raise ValueError(f"sigma must be a number in [{SIGMA_RANGE[0]:.3g}, {SIGMA_RANGE[1]:.3g}] "
                             f"(gamma = 1/(2 sigma^2) must be a normal float), got {sigma!r}")
        if (not isinstance(degree, Integral) or isinstance(degree, bool)
                or not 1 <= degree <= MAX_DEGREE):
            raise ValueError(f"degree must be an integer in [1, {MAX_DEGREE}], got {degree!r}")
        if not isinstance(homogeneous, (bool, np.bool_)):
            raise ValueError(f"homogeneous must be True or False, got {homogeneous!r}")
        if gamma is None:
            return cls(kernel, float(sigma), int(degree), bool(homogeneous))
        return cls(kernel, _sigma_for_gamma(kernel, sigma, sigma_gamma, gamma), int(degree),
                   bool(homogeneous), float(gamma))

    @property
    def gamma(self):
        """libsvm's gamma for the Gaussian, exp(-gamma ||x-y||^2): the given gamma itself, else
        1 / (2 sigma^2)."""
        if self.given_gamma is not None:
            return self.given_gamma
        return 1.0 / (2.0 * self.sigma**2)

    def label(self):
        """The kernel in the user's terms: ``gaussian gamma=0.5``, ``gaussian sigma=4``,
        ``polynomial d=3 homogeneous`` / ``inhomogeneous``, ``linear``."""
        if self.name == "gaussian":
            if self.given_gamma is not None:
                return f"gaussian gamma={self.given_gamma:g}"
            return f"gaussian sigma={self.sigma:g}"
        if self.name == "polynomial":
            return f"polynomial d={self.degree} {'homogeneous' if self.homogeneous else 'inhomogeneous'}"
        return "linear"

    @property
    def coef0(self):
        """The additive constant of the polynomial kernel: 0 if homogeneous, else 1."""
        return 0.0 if self.homogeneous else 1.0

    def svc_params(self):
        """The ``sklearn.svm.SVC`` kernel arguments that compute this same kernel."""
        if self.name == "gaussian":
            return {"kernel": "rbf", "gamma": self.gamma}
        if self.name == "polynomial":
            return {"kernel": "poly", "degree": self.degree, "gamma": 1.0, "coef0": self.coef0}
        return {"kernel": "linear"}

    def block(self, A, B, A_sqnorms=None, B_sqnorms=None):
        """K(A, B): the (len(A), len(B)) float64 matrix of kernel values between rows.

        ``A_sqnorms``/``B_sqnorms`` are the rows' squared norms (Gaussian only); passing them
        saves recomputing them for a fixed B such as a support-vector pool.  The element-wise
        steps run over cache-sized row slices of the product, in place.  ``A`` and ``B`` may each
        be dense or scipy-sparse (see :func:`product`); the block is always a dense ndarray.
        """
        products = product(A, B)
        if self.name == "linear":
            return products
        if self.name == "gaussian":
            A_sqnorms = squared_norms(A) if A_sqnorms is None else A_sqnorms
            B_sqnorms = squared_norms(B) if B_sqnorms is None else B_sqnorms
        step = rows_per_chunk(products.shape[1], memory_mb=ELEMENTWISE_SLICE_MB)
        for start in range(0, len(products), step):
            part = products[start:start + step]
            if self.name == "polynomial":
                part += self.coef0
                with np.errstate(over="ignore"):  # overflow shows as inf; training refuses it
                    part **= self.degree
                continue
            # -gamma ||a - b||^2 = 2 gamma a.b - gamma (|a|^2 + |b|^2); (|a|^2 + |b|^2) as one
            # term keeps K(X, X) exactly symmetric; min(., 0) undoes rounding below distance 0.
            part *= 2.0 * self.gamma
            part -= self.gamma * (A_sqnorms[start:start + step, None] + B_sqnorms[None, :])
            gaussian_exp(part)
        return products

    def block_bytes(self, n_rows, n_columns):
        """The most bytes :meth:`block` holds at once for an (n_rows, n_columns) block: the
        block, and for the Gaussian two temporaries of one element-wise row slice (the rows'
        summed squared norms and their product with gamma)."""
        size = n_rows * n_columns * BYTES_PER_VALUE
        if self.name != "gaussian":
            return size
        step = rows_per_chunk(n_columns, memory_mb=ELEMENTWISE_SLICE_MB)
        return size + 2 * min(n_rows, step) * n_columns * BYTES_PER_VALUE

    def gram(self, X, n_threads=1, out=None):
        """K(X, X) for training: a C-contiguous float64 (n, n) matrix, exactly symmetric (into
        ``out`` when given: such an (n, n) array, its values overwritten).
        ``X`` may be scipy-sparse: its tiles are then sparse products, X itself stays sparse.

        Only the GRAM_TILE-sized tiles on and above the diagonal are computed, each as one
        :meth:`block`; a tile below the diagonal is a copy of its mirror image.  Bands of tiles
        run in ``n_threads`` threads, each with one BLAS thread (see
        :func:`multisvm_cli.base.parallel.map_threads`).  Raises ValueError if a kernel value overflows (large
        polynomial degrees).
        """
        X = as_float_rows(X)
        gram = np.empty((X.shape[0], X.shape[0])) if out is None else out
        norms = squared_norms(X) if self.name == "gaussian" else None
        fill = partial(self._fill_gram_band, X, norms, gram)
        bands = range(0, X.shape[0], GRAM_TILE)
        if not all(map_threads(fill, bands, n_threads)):
            raise ValueError(OVERFLOW_MESSAGE)
        return gram

    def _fill_gram_band(self, X, norms, gram, start):
        """Fill the tiles of rows [start, start + GRAM_TILE) from the diagonal rightwards, and
        their mirror images; return whether every value is finite."""
        rows = slice(start, start + GRAM_TILE)
        finite = True
        for column in range(start, X.shape[0], GRAM_TILE):
            columns = slice(column, column + GRAM_TILE)
            tile = self.block(X[rows], X[columns], norms if norms is None else norms[rows],
                              norms if norms is None else norms[columns])
            finite = finite and bool(np.isfinite(tile).all())
            gram[rows, columns] = tile
            if column != start:
                gram[columns, rows] = tile.T
        return finite


def gaussian_exp(exponents):
    """exp() of Gaussian exponents -gamma ||a - b||^2, in place: clipped to [EXP_FLOOR, 0] first
    (0 undoes rounding below distance 0; EXP_FLOOR keeps numpy's exp off its slow underflow
    path).  Returns the array."""
    np.clip(exponents, EXP_FLOOR, 0.0, out=exponents)
    return np.exp(exponents, out=exponents)


def squared_norms(X):
    """Row-wise squared Euclidean norms ||x||^2 of a 2-D array or scipy-sparse matrix (summed
    over its stored values, without a copy of X)."""
    if issparse(X):
        from sklearn.utils.extmath import row_norms

        return row_norms(as_float_rows(X), squared=True)
    return np.einsum("ij,ij->i", X, X)


def product(A, B):
    """A @ B.T as a dense float64 ndarray (C order), for dense or scipy-sparse A and B.

    With a sparse operand the product is scipy's sparse product and only its (rows of A, rows
    of B) result is made dense: the operands themselves are never densified.
    """
    products = A @ B.T
    if issparse(products):
        return products.toarray()
    if issparse(A) or issparse(B):  # sparse x dense gives an ndarray, maybe in F order
        return np.ascontiguousarray(products, dtype=np.float64)
    return products


def as_float_rows(X):
    """``X`` as float64 rows ready for products: a C-contiguous ndarray, or if sparse a CSR
    matrix in canonical form (sorted column indices, no duplicate entries, as libsvm and
    row-wise sums need), copied only when it is not so already."""
    if not issparse(X):
        return np.ascontiguousarray(X, dtype=np.float64)
    import scipy.sparse as sp

    X = sp.csr_matrix(X, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def rows_per_chunk(n_columns, memory_mb, n_blocks=1):
    """How many rows a chunk may have so that ``n_blocks`` float64 blocks of ``n_columns``
    columns fit in ``memory_mb`` megabytes (at least 1 row)."""
    budget = memory_mb * 2**20
    return max(1, int(budget // (BYTES_PER_VALUE * max(1, n_columns) * n_blocks)))


def gram_fits(n_rows, memory_mb):
    """Whether an (n_rows, n_rows) float64 Gram matrix fits in ``memory_mb`` megabytes."""
    return n_rows * n_rows * BYTES_PER_VALUE <= memory_mb * 2**20
