"""The binary solvers: libsvm's C-SVC and liblinear's L1-loss SVC, and the memory their data takes.

Both are scikit-learn's copies: libsvm through ``sklearn.svm._libsvm.fit`` (the entry point
``SVC.fit`` calls) or ``SVC`` itself, liblinear through ``LinearSVC(loss="hinge", dual=True)``
(dual coordinate descent, Hsieh et al. 2008).  Each returns one binary machine whose output
f(x) > 0 means the positive class.

Training memory (Godbole et al. 2002's "memory to train an SVM") is what the solver's copy of
the training data takes, counted as the solver's C structures store it (:func:`libsvm_memory`,
:func:`liblinear_memory`); the solver's working memory (kernel cache, alphas, gradients) and
its 8-byte row pointers are not counted.
"""

import threading
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, LinearSVC

from .errors import NonFiniteSolution

try:  # the libsvm entry point SVC.fit calls (see libsvm_fit)
    from sklearn.svm._libsvm import fit as _LIBSVM_FIT
    from sklearn.svm._libsvm import set_verbosity_wrap as _LIBSVM_QUIET
except ImportError:  # pragma: no cover
    _LIBSVM_FIT = None

NODE_BYTES = 16  # libsvm's svm_node / svm_csr_node and liblinear's feature_node: int + double, padded
VALUE_BYTES = 8  # a float64
LIBLINEAR_MAX_ITER = 1000  # LinearSVC's default bound on liblinear's outer iterations
LIBSVM_MIN_ITER_BOUND = 10**7  # upstream LIBSVM's Solver::Solve: max(10^7, 100 l) iterations
INT_MAX = 2**31 - 1
NON_FINITE_MESSAGE = ("The dual coefficients or intercepts are not finite. The input data may "
                      "contain large values and need to be preprocessed.")  # scikit-learn's too
BOUND_MESSAGE = "Solver terminated early (max_iter={})"  # scikit-learn's own words
# liblinear draws its coordinate order from the C library's one global rand(), seeded by
# srand(seed) at the start of each fit (scikit-learn issue 8410): two fits at once in threads
# interleave their draws and give other machines from run to run. One fit at a time per process.
LIBLINEAR_LOCK = threading.Lock()


def iteration_bound(max_iter, n_rows):
    """The SMO iteration bound libsvm gets for a binary problem of ``n_rows`` rows (-1: none).

    ``max_iter`` "libsvm" is upstream LIBSVM's (svm.cpp, ``Solver::Solve``): max(10^7, 100 l),
    l = the problem's rows, capped at INT_MAX, printing "WARNING: reaching max number of
    iterations" when reached; scikit-learn's copy dropped it (``SVC(max_iter=-1)``).  None,
    "none" or -1: no bound; an integer: that bound.
    """
    if max_iter == "libsvm":
        return max(LIBSVM_MIN_ITER_BOUND, min(INT_MAX, 100 * n_rows))
    if max_iter in (None, "none"):
        return -1
    return int(max_iter)


def libsvm_memory(X):
    """Bytes libsvm's copy of training rows ``X`` takes (X: a dense array, a CSR matrix, or a
    precomputed Gram matrix, which is dense input).

    Sparse (scikit-learn's ``csr_to_libsvm``): one 16-byte ``svm_csr_node`` (index, value) per
    stored value plus one terminator per row: 16 (nnz + n).  Dense (``dense_to_libsvm``: one
    16-byte ``svm_node`` (dim, ind, pointer) per row, whose pointer reads the row of the
    contiguous float64 array in place): 8 n d + 16 n; for a Gram matrix, 8 n^2 + 16 n.
    """
    n_rows = X.shape[0]
    if sp.issparse(X):
        return NODE_BYTES * (X.nnz + n_rows)
    return VALUE_BYTES * n_rows * X.shape[1] + NODE_BYTES * n_rows


def liblinear_memory(X):
    """Bytes liblinear's copy of training rows ``X`` takes: scikit-learn's ``csr_to_sparse`` /
    ``dense_to_sparse`` store one 16-byte ``feature_node`` (index, value) per non-zero value,
    one for the bias feature and one terminator per row: 16 (nnz + 2 n), dense or sparse X
    (only non-zeros count; a sparse X's explicitly stored zeros are copied, so they count)."""
    nonzeros = X.nnz if sp.issparse(X) else np.count_nonzero(X)
    return NODE_BYTES * (int(nonzeros) + 2 * X.shape[0])


def class_weight_of(sides):
    """scikit-learn's ``class_weight`` of a binary problem labelled 0 (negative) and 1
    (positive) with side weights ``sides`` = (w_-, w_+) (None: unit weights)."""
    return None if sides is None else {0: sides[0], 1: sides[1]}


def liblinear_fit(X, positive, settings, sides=None):
    """liblinear's L1-loss (hinge) SVM, solved in the dual, on rows ``X`` (dense or CSR, kept
    as it is) with labels ``positive``: (weights w (n_features,), bias b, iterations), with
    f(x) = w . x + b > 0 meaning positive.

    The bias is liblinear's: an extra feature of constant value ``intercept_scaling`` = 1 whose
    weight is b, so, unlike libsvm's, the bias is regularized with w (the problem solved is
    min 1/2 (||w||^2 + b^2) + C sum_i max(0, 1 - y_i (w . x_i + b))).  The coordinate descent
    visits the rows in a random order, seeded with 0 here, drawn from the C library's global
    ``rand()``: fits in one process hold :data:`LIBLINEAR_LOCK` so that no other fit's draws
    interleave with theirs, and a fit is the same machine under any ``-j`` and backend.
    ``sides`` = (w_-, w_+): the class weights of the two sides (liblinear's per-class C).
    """
    model = LinearSVC(loss="hinge", dual=True, C=settings.C, tol=settings.tol,
                      intercept_scaling=1.0, max_iter=LIBLINEAR_MAX_ITER, random_state=0,
                      class_weight=class_weight_of(sides))
    with config_context(assume_finite=True), LIBLINEAR_LOCK:  # finite: checked by the estimator
        model.fit(X, positive.astype(np.int8))
    return (np.ravel(model.coef_[0]).astype(np.float64), float(model.intercept_[0]),
            int(np.max(model.n_iter_)))


def libsvm_fit(X, positive, settings, kernel_params, sides=None):
    """libsvm's C-SVC on rows ``X`` (or a precomputed Gram matrix) with labels ``positive``:
    (support row indices, dual coefficients y_s alpha_s, intercept b, SMO iterations), with
    f(x) = sum_s dual_coef[s] k(x_s, x) + b > 0 meaning positive, exactly as
    ``SVC(**kernel_params, C=, tol=, cache_size=, class_weight=).fit(X, positive)`` gives them
    (``dual_coef_[0]``, ``intercept_[0]``, ``n_iter_[0]``); ``sides`` = (w_-, w_+) are the
    two sides' class weights (libsvm's per-class C, C w; None: 1 each).

    It calls the same libsvm entry point ``SVC.fit`` calls (``sklearn.svm._libsvm.fit``) with
    the arguments ``SVC.fit`` passes, without SVC's per-call parameter and array checks (done
    once per fit here: ``X`` is finite float64, C and the kernel are checked by the estimator).
    Those checks cost 0.6 ms a call, 4x libsvm's own time on a 100-row problem, and dominated
    the small datasets' grids (Max Wins on vowel: 3.1 s of 3.9 s).  If the private entry point
    is missing or changed, ``SVC`` itself is used.  tests/estimators/test_shared_gram.py checks both give
    the same machine.
    """
    labels = positive.astype(np.float64)  # SVC's encoding of the classes {False, True}: 0, 1
    if _LIBSVM_FIT is not None and not sp.issparse(X):  # sparse rows go through SVC's sparse path
        try:
            return _direct_libsvm(np.ascontiguousarray(X, dtype=np.float64), labels, settings,
                                  kernel_params, sides)
        except TypeError:  # another scikit-learn's signature: go through SVC
            pass
    params = {"gamma": 1.0, **kernel_params} if kernel_params["kernel"] == "precomputed" \
        else kernel_params
    svc = SVC(C=settings.C, tol=settings.tol, cache_size=settings.cache_size,
              max_iter=iteration_bound(settings.max_iter, X.shape[0]),
              class_weight=class_weight_of(sides), **params)
    with config_context(assume_finite=True):  # checked by the estimator / where the Gram was made
        try:
            svc.fit(X, positive.astype(np.int8))
        except ValueError as exc:  # SVC refuses its own non-finite solution with a ValueError
            if _solved_non_finite(svc):
                raise NonFiniteSolution(NON_FINITE_MESSAGE) from exc
            raise
    dual_coef = svc.dual_coef_.toarray() if sp.issparse(svc.dual_coef_) else svc.dual_coef_
    return (svc.support_, np.ravel(dual_coef[0]).copy(), float(svc.intercept_[0]),
            int(svc.n_iter_[0]))


def _solved_non_finite(svc) -> bool:
    """Whether ``svc``'s fit solved its problem to a non-finite solution (the dual coefficients
    or intercept it keeps before its own finiteness check; False when it got no solution)."""
    dual_coef, intercept = getattr(svc, "_dual_coef_", None), getattr(svc, "_intercept_", None)
    if dual_coef is None or intercept is None:
        return False
    dual_coef = dual_coef.data if sp.issparse(dual_coef) else dual_coef
    return not (np.isfinite(dual_coef).all() and np.isfinite(intercept).all())


def _direct_libsvm(X, labels, settings, kernel_params, sides=None):
    """``sklearn.svm._libsvm.fit`` with SVC's defaults (C-SVC, shrinking, no probability), the
    class weights ``sides`` (SVC's ``class_weight_`` of labels 0, 1; unit weights for None),
    the settings' iteration bound (:func:`iteration_bound`; a fit stopped there
    warns as ``SVC`` does) and SVC's sign flip for two classes."""
    kernel = kernel_params["kernel"]
    bound = iteration_bound(settings.max_iter, X.shape[0])
    _LIBSVM_QUIET(0)  # as SVC(verbose=False) sets it before every fit
    (support, _, _, dual_coef, intercept, _, _, status, n_iter) = _LIBSVM_FIT(
        X, labels, svm_type=0, sample_weight=np.empty(0),
        class_weight=np.ones(2) if sides is None else np.asarray(sides, dtype=np.float64),
        kernel=kernel, C=settings.C, nu=0.5, probability=0,
        degree=int(kernel_params.get("degree", 3)), shrinking=1, tol=settings.tol,
        cache_size=settings.cache_size, coef0=float(kernel_params.get("coef0", 0.0)),
        gamma=float(kernel_params.get("gamma", 1.0)), epsilon=0.1, max_iter=bound,
        random_seed=0)
    if status == 1:  # scikit-learn's fit_status 1: the iteration bound was reached
        warnings.warn(BOUND_MESSAGE.format(bound), ConvergenceWarning)
    elif status:
        warnings.warn(f"libsvm stopped with status {status}", ConvergenceWarning)
    dual_coef, intercept = -dual_coef[0], -float(intercept[0])
    if not (np.isfinite(dual_coef).all() and np.isfinite(intercept)):
        raise NonFiniteSolution(NON_FINITE_MESSAGE)
    return support, dual_coef, intercept, int(np.ravel(n_iter)[0])


