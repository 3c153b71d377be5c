"""Class probabilities from binary SVMs: Platt's sigmoid per machine, then coupling.

Sigmoid (Platt 1999, "Probabilistic outputs for support vector machines"), fitted as LIBSVM
fits it (``svm_binary_svc_probability``): each binary problem's decision values come from an
internal 5-fold cross-validation of its own training rows (a seeded random permutation cut
into 5 consecutive parts, as LIBSVM's ``perm``), and the sigmoid
P(positive | f) = 1 / (1 + exp(A f + B)) is fitted to them with Lin, Lin & Weng 2007's Newton
method with backtracking line search (LIBSVM's ``sigmoid_train``, :func:`sigmoid_train`),
Platt's regularised targets (N+ + 1) / (N+ + 2) and 1 / (N- + 2).  A fold whose training part
holds one class only gives its held-out rows the value +1 or -1, as LIBSVM does.

Coupling:

- pairwise machines (Max Wins, DAGSVM, ADAG): Wu, Lin & Weng 2004, "Probability estimates for
  multi-class classification by pairwise coupling", method 2 (their problem (19)), solved by the
  iteration of LIBSVM's ``multiclass_probability`` (:func:`pairwise_coupling`);
- one-vs-rest: each machine's sigmoid, normalised to sum 1 (:func:`normalised`);
- error-correcting output codes: Zadrozny 2001, "Reducing multiclass to binary by coupling
  probability estimates" (NIPS 14), the generalisation of Hastie & Tibshirani's pairwise
  coupling to any code: the p minimising the weighted Kullback-Leibler distance between each
  column's sigmoid r_b and p(I_b) / p(I_b u J_b), weighted by the column's training rows
  (:func:`code_coupling`).

Every estimate is clipped to [MIN_PROB, 1 - MIN_PROB] first, as LIBSVM does (``min_prob``).
"""

import numpy as np
from joblib import delayed
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._binary import fit_binary, run_parallel
from ._primal import build_machines
from ._schema import FLOAT

N_FOLDS = 5  # LIBSVM's nr_fold
MIN_PROB = 1e-7  # LIBSVM's min_prob
MAX_ITER = 100  # sigmoid_train's Newton iterations
MIN_STEP = 1e-10  # sigmoid_train's smallest line-search step
HESSIAN_SIGMA = 1e-12  # added to the Hessian's diagonal (strictly positive definite)
GRADIENT_EPS = 1e-5  # sigmoid_train's stopping tolerance on the gradient
CODE_TOL = 1e-10  # code_coupling's stopping change in p
CODE_MAX_ITER = 1000


def _objective(values, targets, A, B):
    """Platt's negative log-likelihood sum_i t_i z_i + log(1 + exp(-z_i)), z_i = A f_i + B,
    written stably for either sign of z (as LIBSVM's)."""
    z = values * A + B
    return float(np.sum(np.where(z >= 0, targets * z + np.log1p(np.exp(-np.abs(z))),
                                 (targets - 1) * z + np.log1p(np.exp(-np.abs(z))))))


def sigmoid_train(values, positive):
    """(A, B) of the sigmoid P(positive | f) = 1 / (1 + exp(A f + B)) fitted to decision values
    ``values`` with boolean labels ``positive``: LIBSVM's ``sigmoid_train`` (Lin, Lin & Weng
    2007, Algorithm 1: Newton's method on Platt's regularised log-likelihood, Hessian + 1e-12 I,
    backtracking until sufficient decrease, stopping when both gradient entries are below 1e-5,
    after 100 iterations, or when the step falls below 1e-10)."""
    values = np.asarray(values, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    prior1 = float(np.count_nonzero(positive))
    prior0 = float(len(positive) - prior1)
    targets = np.where(positive, (prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0))
    A, B = 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0)))
    fval = _objective(values, targets, A, B)
    for _ in range(MAX_ITER):
        z = values * A + B
        p = np.where(z >= 0, np.exp(-np.abs(z)) / (1.0 + np.exp(-np.abs(z))),
                     1.0 / (1.0 + np.exp(-np.abs(z))))
        q = 1.0 - p
        d2, d1 = p * q, targets - p
        h11 = HESSIAN_SIGMA + float(np.sum(values * values * d2))
        h22 = HESSIAN_SIGMA + float(np.sum(d2))
        h21 = float(np.sum(values * d2))
        g1, g2 = float(np.sum(values * d1)), float(np.sum(d1))
        if abs(g1) < GRADIENT_EPS and abs(g2) < GRADIENT_EPS:
            break
        det = h11 * h22 - h21 * h21
        dA, dB = -(h22 * g1 - h21 * g2) / det, -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= MIN_STEP:
            new_A, new_B = A + step * dA, B + step * dB
            new_f = _objective(values, targets, new_A, new_B)
            if new_f < fval + 0.0001 * step * gd:
                A, B, fval = new_A, new_B, new_f
                break
            step /= 2.0
        if step < MIN_STEP:
            break
    return A, B


def sigmoid_predict(values, A, B):
    """P(positive | f) = 1 / (1 + exp(A f + B)) for decision values ``values`` (any shape,
    ``A`` and ``B`` broadcast against its last axis), clipped to [MIN_PROB, 1 - MIN_PROB]."""
    z = np.asarray(values) * A + B
    e = np.exp(-np.abs(z))
    p = np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))
    return np.clip(p, MIN_PROB, 1.0 - MIN_PROB)


def cv_parts(n_rows, seed):
    """LIBSVM's 5 folds of a problem's ``n_rows`` rows: a random permutation (numpy's default
    generator seeded by ``seed``) cut at i n / 5; the list of (held-out positions) per fold."""
    perm = np.random.default_rng(seed).permutation(n_rows)
    bounds = [i * n_rows // N_FOLDS for i in range(N_FOLDS + 1)]
    return [perm[bounds[i]:bounds[i + 1]] for i in range(N_FOLDS)]


def fit_sigmoids(X, problems, settings, seed, row_groups):
    """(A, B, fits) for binary ``problems`` [(rows, positive mask)] of training data ``X``:
    each problem's sigmoid fitted on 5-fold cross-validated decision values (see the module
    docstring); ``A``, ``B`` are arrays with one entry per problem and ``fits`` every binary
    SVM trained for it (their CPU time and iterations count in the fit's).  The folds of
    problem m are seeded by ``seed + m``.  ``row_groups``: the class of each training row."""
    tasks, layout = [], []
    for m, (rows, positive) in enumerate(problems):
        rows, positive = np.asarray(rows), np.asarray(positive, dtype=bool)
        for held in cv_parts(len(rows), seed + m):
            keep = np.ones(len(rows), dtype=bool)
            keep[held] = False
            n_pos = int(np.count_nonzero(positive[keep]))
            layout.append((m, held, n_pos, int(np.count_nonzero(keep)) - n_pos))
            if n_pos and layout[-1][3]:
                tasks.append(delayed(fit_binary)(X, rows[keep], positive[keep], settings))
    fits = run_parallel(tasks, settings.n_jobs)
    values = [np.zeros(len(rows)) for rows, _ in problems]
    trained = iter(fits)
    for m, held, n_pos, n_neg in layout:
        if n_pos and n_neg:
            machine = build_machines(settings, X, [next(trained)], row_groups)
            rows = np.asarray(problems[m][0])[held]
            values[m][held] = machine.decision(X[rows], settings.memory_mb, 1)[:, 0]
        else:  # one class in the fold's training part: LIBSVM's +1 / -1 (0 for none)
            values[m][held] = 1.0 if n_pos else (-1.0 if n_neg else 0.0)
    pairs = [sigmoid_train(v, np.asarray(p, dtype=bool)) for v, (_, p) in zip(values, problems)]
    A, B = (np.array([pair[k] for pair in pairs], dtype=np.float64) for k in (0, 1))
    return A, B, fits


def pairwise_coupling(second):
    """Class probabilities (n, k) from pairwise estimates: ``second`` (n, K) holds, for each
    pair (i, j), i < j, in LIBSVM's order, r = P(j | i or j, x).

    Wu, Lin & Weng 2004, method 2: min_p p'Qp subject to sum p = 1, with Q_tt = sum_{s != t}
    r_st^2 and Q_ts = -r_st r_ts, r_ij = P(i | i or j); solved by LIBSVM's
    ``multiclass_probability`` iteration (p_t <- p_t + (p'Qp - (Qp)_t) / Q_tt, renormalised,
    over t in turn; at most max(100, k) sweeps, stopping once max_t |(Qp)_t - p'Qp| < 0.005 / k),
    run for all points at once, each stopping on its own; two classes iterate too, as
    scikit-learn's copy of LIBSVM does."""
    second = np.asarray(second, dtype=np.float64)
    n, n_pairs = second.shape
    k = int(round((1 + np.sqrt(1 + 8 * n_pairs)) / 2))
    i, j = np.triu_indices(k, k=1)
    r = np.zeros((n, k, k))  # r[:, a, b] = P(a | a or b)
    r[:, j, i] = second
    r[:, i, j] = 1.0 - second
    Q = -r.transpose(0, 2, 1) * r  # Q[t, s] = -r[s, t] r[t, s]
    rows = np.arange(k)
    Q[:, rows, rows] = (r.transpose(0, 2, 1) ** 2).sum(axis=2)  # sum_s r[s, t]^2 (r[t, t] = 0)
    p = np.full((n, k), 1.0 / k)
    active = np.ones(n, dtype=bool)
    eps = 0.005 / k
    for _ in range(max(100, k)):
        Qp = np.einsum("nts,ns->nt", Q, p)
        pQp = np.einsum("nt,nt->n", p, Qp)
        active &= np.abs(Qp - pQp[:, None]).max(axis=1) >= eps
        if not active.any():
            break
        idx = np.flatnonzero(active)
        Qa, pa, Qpa, pQpa = Q[idx], p[idx], Qp[idx], pQp[idx]
        for t in range(k):
            diag = Qa[:, t, t]
            diff = (-Qpa[:, t] + pQpa) / diag
            pa[:, t] += diff
            pQpa = (pQpa + diff * (diff * diag + 2 * Qpa[:, t])) / (1 + diff) / (1 + diff)
            Qpa = (Qpa + diff[:, None] * Qa[:, t, :]) / (1 + diff)[:, None]
            pa /= (1 + diff)[:, None]
        p[idx] = pa
    return p


def normalised(positive):
    """One-vs-rest probabilities: each class's sigmoid estimate (n, k) divided by their sum."""
    return positive / positive.sum(axis=1, keepdims=True)


def code_coupling(r, code, weights):
    """Class probabilities (n, k) from code-column estimates: Zadrozny 2001's coupling.

    ``r`` (n, L): each column's P(+1 side | x, the +1 or -1 side); ``code`` (k, L) of -1, 0,
    +1; ``weights`` (L,): each column's training rows n_b.  Starting from uniform p, repeat
    p_c <- p_c (sum_{b: c in I_b} n_b r_b + sum_{b: c in J_b} n_b (1 - r_b)) /
    (sum_{b: c in I_b} n_b q_b + sum_{b: c in J_b} n_b (1 - q_b)), with I_b / J_b the +1 / -1
    classes of column b and q_b = p(I_b) / p(I_b u J_b), then normalise, until p changes by
    less than 1e-10 (at most 1000 rounds).  For the one-vs-one code this is Hastie & Tibshirani
    1998's pairwise coupling."""
    code = np.asarray(code, dtype=np.float64)
    plus, minus = (code > 0).astype(np.float64), (code < 0).astype(np.float64)
    w = np.asarray(weights, dtype=np.float64)
    numerator = (r * w) @ plus.T + ((1.0 - r) * w) @ minus.T
    n, k = r.shape[0], code.shape[0]
    p = np.full((n, k), 1.0 / k)
    for _ in range(CODE_MAX_ITER):
        p_plus, p_minus = p @ plus, p @ minus
        q = p_plus / np.maximum(p_plus + p_minus, np.finfo(float).tiny)
        denominator = (q * w) @ plus.T + ((1.0 - q) * w) @ minus.T
        updated = p * numerator / np.maximum(denominator, np.finfo(float).tiny)
        updated /= updated.sum(axis=1, keepdims=True)
        change = np.abs(updated - p).max() if n else 0.0
        p = updated
        if change < CODE_TOL:
            break
    return p


def probability_seed(random_state):
    """The seed of the sigmoids' cross-validation folds: ``random_state`` itself when it is an
    integer, a draw from it when it is a RandomState, 0 when it is None (reproducible)."""
    if random_state is None:
        return 0
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(2**31 - 1))


def _has_probability(estimator):
    """``predict_proba`` exists only on an estimator built with ``probability=True`` (as SVC)."""
    if not estimator.probability:
        raise AttributeError("predict_proba is available only with probability=True")
    return True


class ProbabilityMixin:
    """``predict_proba`` for a scheme with a ``probability`` option (default False).

    The scheme calls :meth:`_fit_probability` from ``_fit`` with its binary problems (in machine
    order) and :meth:`_set_probability` from ``_set_state``, and implements ``_proba(X)`` from
    ``probA_`` / ``probB_`` (one sigmoid a machine, P(positive) = 1 / (1 + exp(A f + B))).  A
    saved model holds them as ``prob_a`` and ``prob_b``.  ``predict`` is unchanged (the
    scheme's own rule), as scikit-learn's SVC keeps it, so model selection needs no sigmoids.
    """

    _selection_free = ("probability",)

    @staticmethod
    def _trainer_options(options):
        """What the trainer must be fitted with for a reader of these ``scheme_options`` (see
        ``registry.trained_with``): its sigmoids when the reader gives probabilities (the
        reader's problems are the trainer's, so are their sigmoids), and the reader's class
        weights (its machines are the trainer's; a config gives both the same)."""
        wanted = {"probability": True} if options.get("probability") else {}
        if options.get("class_weight") is not None:
            wanted["class_weight"] = options["class_weight"]
        return wanted

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """The scheme's arrays, and with ``probability`` one sigmoid (A, B) a machine."""
        return cls._with_probability(params, super()._array_schema(params, n_classes,
                                                                    n_features, shapes))

    @staticmethod
    def _with_probability(params, expected):
        """``expected`` arrays and, with ``probability``, one sigmoid (A, B) a machine."""
        if params.get("probability"):
            n_machines = expected["svm_intercept"][1]
            expected = {**expected, "prob_a": (FLOAT, n_machines), "prob_b": (FLOAT, n_machines)}
        return expected

    def _fit_probability(self, X, y_index, settings, problems):
        """Fit one sigmoid a problem when ``probability`` (else drop any earlier one); return
        the binary SVMs the cross-validation trained."""
        if not self.probability:
            self.__dict__.pop("probA_", None)
            self.__dict__.pop("probB_", None)
            return []
        self.probA_, self.probB_, fits = fit_sigmoids(X, problems, settings,
                                                      probability_seed(self.random_state), y_index)
        return fits

    def _get_state(self):
        meta, arrays = super()._get_state()
        if self.probability:
            arrays = {**arrays, "prob_a": self.probA_, "prob_b": self.probB_}
        return meta, arrays

    def _set_probability(self, arrays):
        """Restore the sigmoids of a saved model; ValueError unless they are finite."""
        if not self.probability:
            return
        A, B = np.asarray(arrays["prob_a"]), np.asarray(arrays["prob_b"])
        if not (np.isfinite(A).all() and np.isfinite(B).all()):
            raise ValueError("prob_a and prob_b must be finite numbers")
        self.probA_, self.probB_ = A.astype(np.float64), B.astype(np.float64)

    def _sigmoids(self, values):
        """Each machine's P(positive | f) for decision values (n, n_machines)."""
        return sigmoid_predict(values, self.probA_, self.probB_)

    @available_if(_has_probability)
    def predict_proba(self, X):
        """Class probabilities (n_samples, n_classes), columns in ``classes_`` order (see the
        scheme's docstring for the coupling)."""
        check_is_fitted(self, "probA_")
        return self._proba(self._validated(X))

    @available_if(_has_probability)
    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))
