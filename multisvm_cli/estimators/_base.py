"""What every multiclass scheme shares: parameters, input checks, timing, the figure API.

A scheme subclasses :class:`MulticlassSVM` and implements

- ``_fit(X, y_index, settings) -> list[BinaryFit]``: train on validated float64 ``X`` and class
  indices ``y_index`` (into ``classes_``); return every binary SVM that fit trained, kept or not
  (their CPU seconds in other processes and SMO iterations are added up here);
- ``_scores(X) -> (n, n_classes)``: per-class scores whose row-wise argmax is the prediction;
- ``_kernel_evaluations(X) -> float``, ``_n_parameters() -> int``, ``_n_support_vectors() -> int``
  (the last two default to the figures of ``self.machines_``);
- ``_get_state() -> (meta dict, dict of arrays)`` and ``_set_state(meta, arrays, kernel)`` for
  :mod:`..persist` (``_get_state`` defaults to ``machines_``'s arrays).

and declares, as class attributes, what the rest of the package reads before or after a fit
(no module outside ``estimators/`` names a scheme):

- ``_option_constraints``: the constructor parameters a config may set (``scheme_options``),
  name -> :class:`.options.Option`, its parent's entries first (``{**Parent._option_constraints,
  ...}``); the config and the estimator check them through the class hooks ``_check_option``,
  ``_check_option_classes`` and ``_check_option_sweep``, and :mod:`..persist` reads the values
  of options a model saved before they existed lacks from ``_saved_defaults``;
- ``_shares_gram``: whether its fits at one kernel read one Gram matrix K(X, X) shared across C;
- ``_warm_starts``: whether a fit given a reuse store starts from the store's solve at a smaller
  C (the all-together schemes): its grid results then depend on the C values before it;
- ``_solvers``: the ``solver`` values it takes (a joint machine has its own solver: libsvm only);
- ``_point_cost(n_rows, n_classes)``: the expected cost of one fit, for the ETA;
- ``_array_schema(params, n_classes, n_features, shapes)``: the arrays a saved model holds
  besides ``classes`` and ``feature_names`` (see :mod:`._schema`);
- ``_machine_bounds(n_classes)``: how many binary SVMs a fitted model has;
- ``_fitted_keys``: scheme-specific entries of a saved model's ``fitted`` record;
- ``_selection_free``: its options that change no prediction (``probability``), which the
  protocol leaves out of model-selection fits.

A scheme whose registry entry names ``trained_with`` or ``reads`` (it evaluates another
scheme's fitted machines) also has ``from_trained(trainer, options, y)`` (a fitted instance
reading the fitted ``trainer``, with its own ``scheme_options``; ``y`` the training labels)
and ``_trainer_options(options)`` (the options the trainer must be fitted with for it).

A scheme that trains one joint machine instead of binary SVMs returns from ``_fit`` one record
of the joint solve (the same fields as :class:`._binary.BinaryFit`: ``n_iter``, ``pid``,
``cpu_seconds``, ``reused``, ``train_memory``), so its iterations, training memory and CPU
time reach the table as the binary schemes' do.

``X`` reaching a scheme is a C-contiguous float64 array or a float64 scipy CSR matrix (sparse
input is accepted everywhere and never densified whole): schemes count rows with
``X.shape[0]`` and fit / predict naive Bayes through :func:`nb_fit` / :func:`nb_predict` /
:func:`nb_joint_log_proba`.
"""

import time
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.naive_bayes import GaussianNB, MultinomialNB
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.sparsefuncs import mean_variance_axis
from sklearn.utils.validation import check_is_fitted, validate_data

from .kernels import DEFAULT_SIGMA, Kernel, as_float_rows, rows_per_chunk
from ..base.parallel import check_n_jobs
from ._binary import TrainSettings, foreign_cpu_seconds, max_train_memory, smo_iterations
from ._machines import BLOCK_MB, row_slices
from ._primal import PrimalMachines
from .options import NB_NAMES, NO_DEFAULT, SHARED, check_C, check_choice, check_solver_kernel
from .reuse import bind_reuse
from .weights import row_weights
from ._schema import machine_arrays
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL

FIXED_ROWS = 500  # a binary problem's fixed cost, as the SMO cost of a problem of this many rows
NB_MODELS = {"gaussian": GaussianNB, "multinomial": MultinomialNB}
assert tuple(NB_MODELS) == NB_NAMES
NB_FIELDS = {"gaussian": ("theta_", "var_", "class_prior_", "class_count_", "classes_"),
             "multinomial": ("feature_log_prob_", "class_log_prior_", "class_count_", "feature_count_",
                             "classes_")}
# GaussianNB on sparse X sees densified row chunks: the chunk and GaussianNB's own temporaries of
# its size (X - theta, its square, the ratio to var) stay within BLOCK_MB.
NB_CHUNK_BLOCKS = 4


def check_finite(X):
    """``X`` itself; ValueError (one line) if it holds NaN or infinity (for a sparse X, among
    its stored values)."""
    if not np.isfinite(X.data if sp.issparse(X) else X).all():
        raise ValueError("Input X contains NaN or infinity; every feature value must be a finite number")
    return X


def check_gram(gram, n_samples):
    """``gram`` as a C-contiguous float64 array (None stays None); ValueError unless it is
    (n_samples, n_samples) and finite."""
    if gram is None:
        return None
    gram = np.ascontiguousarray(gram, dtype=np.float64)
    if gram.shape != (n_samples, n_samples):
        raise ValueError(f"gram must be the ({n_samples}, {n_samples}) kernel matrix K(X, X); "
                         f"got shape {gram.shape}")
    if not np.isfinite(gram).all():
        raise ValueError("gram contains NaN or infinity")
    return gram


def make_nb(nb):
    """A fresh naive Bayes model: 'gaussian' (real features) or 'multinomial' (counts)."""
    check_choice("nb", nb, tuple(NB_MODELS))
    return NB_MODELS[nb]()


def nb_chunks(X):
    """Row slices of ``X`` whose dense copies GaussianNB may hold (see NB_CHUNK_BLOCKS)."""
    return row_slices(X.shape[0], rows_per_chunk(X.shape[1], BLOCK_MB, NB_CHUNK_BLOCKS))


def nb_fit(model, X, y):
    """``model.fit(X, y)``, also for a sparse X and GaussianNB (which takes dense input only):
    then GaussianNB learns from densified row chunks through ``partial_fit`` (Chan et al.'s
    exact update of per-class means and variances) with no variance smoothing; the smoothing
    ``var_smoothing * max_j Var(X[:, j])`` that ``fit`` adds is computed on the whole sparse X
    afterwards, so the model is ``fit``'s up to rounding; then :func:`_floored`."""
    if not (sp.issparse(X) and isinstance(model, GaussianNB)):
        return _floored(model.fit(X, y))
    smoothing, classes = model.var_smoothing, np.unique(y)
    model.set_params(var_smoothing=0.0)
    for part in nb_chunks(X):
        model.partial_fit(X[part].toarray(), y[part], classes=classes)
    model.set_params(var_smoothing=smoothing)
    model.epsilon_ = smoothing * float(mean_variance_axis(X, axis=0)[1].max())
    model.var_ += model.epsilon_
    return _floored(model)


def _floored(model):
    """``model``; a GaussianNB of smoothing 0 (every column constant: log 0, numpy's warnings
    and NaN scores) smoothed by ``var_smoothing``, so that it scores by the class priors."""
    if isinstance(model, GaussianNB) and model.epsilon_ == 0 and model.var_smoothing > 0:
        model.epsilon_ = float(model.var_smoothing)
        model.var_ += model.epsilon_
    return model


def nb_joint_log_proba(model, X):
    """``model.predict_joint_log_proba(X)``; a sparse X goes to GaussianNB in dense row chunks."""
    if not (sp.issparse(X) and isinstance(model, GaussianNB)):
        return model.predict_joint_log_proba(X)
    parts = [model.predict_joint_log_proba(X[part].toarray()) for part in nb_chunks(X)]
    return np.concatenate(parts) if parts else np.empty((0, len(model.classes_)))


def nb_predict(model, X):
    """``model.predict(X)``: the class of highest joint log-likelihood (see :func:`nb_joint_log_proba`)."""
    if not (sp.issparse(X) and isinstance(model, GaussianNB)):
        return model.predict(X)
    return model.classes_[np.argmax(nb_joint_log_proba(model, X), axis=1)]


def nb_n_parameters(model):
    """Parameters of a fitted naive Bayes model: Gaussian = means + variances + class priors
    (2 N d + N); multinomial = feature log-probabilities + class log-priors (N d + N)."""
    if isinstance(model, GaussianNB):
        return int(model.theta_.size + model.var_.size + model.class_prior_.size)
    return int(model.feature_log_prob_.size + model.class_log_prior_.size)


def nb_arrays(model, prefix):
    """The fitted arrays of a naive Bayes model (for persistence)."""
    names = NB_FIELDS["gaussian" if isinstance(model, GaussianNB) else "multinomial"]
    return {prefix + name.rstrip("_"): getattr(model, name) for name in names}


def nb_from_arrays(nb, arrays, prefix, n_features, n_rows=None):
    """Rebuild a fitted naive Bayes model from :func:`nb_arrays`; ValueError if inconsistent.

    Checked: exactly the arrays :func:`nb_arrays` writes; ``classes`` = 0..K-1 (K = ``n_rows``
    when given: the class or cluster count); matrices (K, n_features) and vectors (K,) of finite
    numbers; class counts > 0.  Gaussian: variances > 0, class priors = class counts / their sum.
    Multinomial: log-probabilities whose probabilities sum to 1 over each class's features and
    over the classes; feature counts >= 0.
    """
    model = make_nb(nb)
    names = [name.rstrip("_") for name in NB_FIELDS[nb]]
    missing = [prefix + name for name in names if prefix + name not in arrays]
    if missing:
        raise ValueError(f"naive Bayes arrays {', '.join(missing)} are missing")
    values = {name: np.asarray(arrays[prefix + name]) for name in names}
    classes = values.pop("classes")
    if n_rows is None:
        n_rows = len(classes) if classes.ndim == 1 else 0
    if classes.dtype.kind not in "iu" or n_rows < 1 or not np.array_equal(classes, np.arange(n_rows)):
        raise ValueError(f"{prefix}classes must be the class indices 0..{n_rows - 1}")
    for name, value in values.items():
        shape = (n_rows, n_features) if name in ("theta", "var", "feature_log_prob", "feature_count") else (n_rows,)
        if value.shape != shape or value.dtype.kind not in "iuf" or not np.isfinite(value).all():
            raise ValueError(f"{prefix}{name} must be {shape} finite numbers")
    counts = values["class_count"]
    if np.any(counts <= 0):
        raise ValueError(f"{prefix}class_count must be > 0")
    if nb == "gaussian":
        if np.any(values["var"] <= 0):
            raise ValueError(f"{prefix}var must be > 0 (variances)")
        if not np.allclose(values["class_prior"], counts / counts.sum(), rtol=1e-9, atol=1e-12):
            raise ValueError(f"{prefix}class_prior must be the class counts over their sum")
    else:
        normalised = (np.logaddexp.reduce(values["feature_log_prob"], axis=1),
                      np.logaddexp.reduce(values["class_log_prior"], keepdims=True))
        if any(not np.allclose(total, 0.0, atol=1e-9) for total in normalised):
            raise ValueError(f"{prefix}feature_log_prob and class_log_prior must be log-probabilities "
                             f"summing to 1")
        if np.any(values["feature_count"] < 0):
            raise ValueError(f"{prefix}feature_count must be >= 0")
    for name, value in values.items():
        setattr(model, name + "_", value)
    model.classes_ = classes
    if isinstance(model, GaussianNB):
        model.epsilon_ = 0.0  # only used while fitting
    model.n_features_in_ = n_features
    return model


SHARED_FIT = ("classes_", "n_features_in_", "feature_names_in_", "machines_", "fit_cpu_time_",
              "fit_wall_time_", "smo_iterations_", "n_iter_", "n_reused_machines_",
              "max_train_memory_")


def copy_fitted(source, target, extra=()):
    """Give ``target`` the fitted machines, fit times and counts of ``source`` (a reader of a
    trainer's machines: the fit was shared), and the attributes named in ``extra``."""
    for name in SHARED_FIT + tuple(extra):
        if hasattr(source, name):
            setattr(target, name, getattr(source, name))
    return target


def split_holdout(y_index, holdout, random_state):
    """Split training rows per class into (fit rows, held-out rows), seeded.

    Each class keeps floor(holdout * n_c) of its n_c examples out, but at least one example in
    the fit part (so a class of one example is never held out).  Both lists are sorted.
    """
    rng = check_random_state(random_state)
    fit_rows, held_rows = [], []
    for c in np.unique(y_index):
        rows = rng.permutation(np.flatnonzero(y_index == c))
        n_held = min(int(np.floor(holdout * len(rows))), len(rows) - 1)
        held_rows.append(rows[:n_held])
        fit_rows.append(rows[n_held:])
    return np.sort(np.concatenate(fit_rows)), np.sort(np.concatenate(held_rows))


class MulticlassSVM(ClassifierMixin, BaseEstimator):
    """Shared machinery of the multiclass SVM schemes (not used directly).

    Parameters common to all schemes: ``C`` (soft-margin penalty of every binary SVM, in
    (0, MAX_C]), ``kernel`` ('gaussian' | 'polynomial' | 'linear', see
    :mod:`multisvm_cli.estimators.kernels`), ``sigma`` or ``gamma`` (the Gaussian's width, exp(-||x-y||^2 /
    (2 sigma^2)) = exp(-gamma ||x-y||^2): a ``gamma`` other than None drives the kernel exactly,
    and ``sigma`` must then stay at 1.0 or agree with it; see ``Kernel.from_params``),
    ``degree``, ``homogeneous``, ``n_jobs`` (joblib workers for independent binary
    problems), ``random_state`` (seeds held-out splits), ``cache_size`` (libsvm's kernel cache in
    MB, used when kernels are not precomputed), ``memory_mb`` (budget for one kernel block or
    Gram matrix, in MB), ``tol`` (the solver's stopping tolerance), ``solver`` (the binary
    SVMs' solver: 'libsvm' (SMO, any kernel) or 'liblinear' (dual coordinate descent, linear
    kernel only; see :mod:`._solvers`).  liblinear also regularizes the bias, unlike libsvm: it
    is the weight of an extra constant feature of value 1 (``intercept_scaling``), so the two
    solvers' machines differ slightly at the same C.  liblinear's machines are never reused
    across C), ``max_iter`` (libsvm's SMO iterations per binary SVM: "libsvm", upstream
    LIBSVM's max(10^7, 100 x rows); an integer; or None / -1 for no bound, scikit-learn's
    default; a fit stopped there warns with a ConvergenceWarning "Solver terminated early").
    The schemes that train binary SVMs also take ``class_weight`` (:mod:`.weights`); the
    others keep the class attribute None (unit weights).

    Fitted figures (Platt et al. 1999, Table 1): ``kernel_evaluations(X)``, ``n_parameters_``,
    ``n_support_vectors_``, ``fit_cpu_time_`` (user+sys CPU seconds of fit, worker processes
    included) and ``fit_wall_time_``; ``smo_iterations_``: libsvm's SMO iterations summed over
    every binary SVM the fit trained (``SVC.n_iter_``; trained-and-discarded candidates
    included), a measure of training cost that a shared Gram matrix does not blur (0 for naive
    Bayes; None for a model saved before it was recorded); ``n_iter_``: the most iterations any
    one binary SVM took (what ``max_iter`` bounds; 1 for naive Bayes alone, one pass; not saved); ``n_reused_machines_``: how many of
    those binary SVMs a ``reuse`` store gave instead of libsvm (0 without one; not saved);
    ``max_train_memory_``: the most bytes any binary SVM's training data took in its solver
    (Godbole et al. 2002's "maximum memory to train any SVM"; see :mod:`._solvers`; 0 for
    naive Bayes; None for a model saved before it was recorded); ``primal_``: whether the
    machines are linear and predict through their primal weights (:mod:`._primal`), where
    ``kernel_evaluations(X)`` counts dot products with weight vectors and ``n_parameters_`` the
    non-zero weights plus the biases (``n_support_vectors_`` stays libsvm's count, and is 0 for
    liblinear, which keeps no support vectors).
    """

    def __init__(self, C=1.0, kernel="gaussian", sigma=DEFAULT_SIGMA, gamma=None, degree=3,
                 homogeneous=False, n_jobs=None, random_state=None, cache_size=CACHE_SIZE,
                 memory_mb=MEMORY_MB, tol=TOL, solver=SOLVER, max_iter=MAX_ITER):
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.gamma = gamma
        self.degree = degree
        self.homogeneous = homogeneous
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.cache_size = cache_size
        self.memory_mb = memory_mb
        self.tol = tol
        self.solver = solver
        self.max_iter = max_iter

    def _settings(self):
        """Validate the shared parameters and return the binary problems' TrainSettings."""
        kernel = Kernel.from_params(self.kernel, self.sigma, self.degree, self.homogeneous, self.gamma)
        check_C(self.C)
        for name in SHARED:  # tol, cache_size, memory_mb, solver, max_iter: as the config does
            self._check_option(name, getattr(self, name))
        check_solver_kernel(self.solver, kernel.name)
        check_n_jobs(self.n_jobs)
        check_random_state(self.random_state)
        return TrainSettings(kernel, float(self.C), float(self.tol), float(self.cache_size),
                             float(self.memory_mb), self.n_jobs, self.solver, self.max_iter)

    _option_constraints = SHARED  # the options a config may set: name -> options.Option
    class_weight = None  # unit weights; the schemes with the option take it in their constructor
    _shares_gram = False  # whether fits at one kernel read one Gram matrix shared across C
    _warm_starts = False  # whether a fit with a reuse store starts from a smaller C's solve
    _solvers = ("libsvm", "liblinear")  # the values its ``solver`` may take
    _fitted_keys = ()  # scheme-specific keys of a saved model's "fitted" record
    _selection_free = ()  # options that change no prediction: left out of model-selection fits

    @classmethod
    def _point_cost(cls, n_rows, n_classes):
        """Expected relative cost of one fit on ``n_rows`` rows of ``n_classes`` classes (the
        ETA's weight): each binary problem costs about rows^2 kernel products plus a fixed cost
        (bookkeeping, the machine's prediction on the validation part) worth an SMO fit on
        :data:`FIXED_ROWS` rows.  This default is a tree of at most k - 1 splits of up to n
        rows and k(k+1)/2 fixed costs (UDT's candidates; Graph and Hier alike)."""
        k = n_classes
        return (k - 1) * float(n_rows) ** 2 + k * (k + 1) / 2 * float(FIXED_ROWS) ** 2

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """name -> (dtype, shape) of every array a saved model holds besides ``classes`` and
        ``feature_names`` (this default: the binary machines of :func:`._schema.machine_arrays`).
        ``shapes`` reads the saved model's declared shapes (:class:`._schema.Shapes`)."""
        return machine_arrays(params, shapes, cls._machine_bounds(n_classes), n_features)

    @staticmethod
    def _machine_bounds(n_classes):
        """(fewest, most) binary SVMs a fitted model of this scheme has for ``n_classes``
        classes (a saved model is checked against it before its arrays are read)."""
        return 0, 0

    @classmethod
    def _own_options(cls) -> tuple:
        """The names of the options this scheme adds to those every scheme takes."""
        return tuple(name for name in cls._option_constraints if name not in SHARED)

    @classmethod
    def _check_option(cls, name, value):
        """ValueError (one line, naming the option) unless ``value`` is allowed for option
        ``name``: the check of its constraint, the same for the config and the estimator."""
        cls._option_constraints[name].check(name, value)

    @classmethod
    def _check_option_classes(cls, name, value, classes, shown=None):
        """ValueError (one line) unless option ``name``'s ``value`` fits data of the sorted
        ``classes`` (the constraint's ``fits``; nothing to check for most options); the
        sentence names the option ``shown`` (default: ``name``)."""
        fits = cls._option_constraints[name].fits
        if fits is not None:
            fits(shown or name, value, classes)

    @classmethod
    def _check_options_together(cls, options, classes=None):
        """OptionError (one line, naming the option) unless the ``options`` a config gives
        this scheme go together (an option that does not apply to another's value is refused)
        and, given the sorted ``classes``, fit that data together; nothing for most schemes."""

    @classmethod
    def _check_option_sweep(cls, name, value, shown=None):
        """ValueError (one line) when option ``name``'s ``value`` names the classes, which a
        classes sweep changes (the constraint's ``sweeps``); the sentence names the option
        ``shown`` (default: ``name``)."""
        sweeps = cls._option_constraints[name].sweeps
        if sweeps is not None:
            sweeps(shown or name, value)

    @classmethod
    def _saved_defaults(cls) -> dict:
        """The options a model saved before they existed lacks, with the value it was fitted
        under (``saved_default`` of their constraints; only those its constructor takes)."""
        return {name: option.saved_default for name, option in cls._option_constraints.items()
                if option.saved_default is not NO_DEFAULT and name in cls._get_param_names()}

    def _check_scheme_params(self):
        """Validate the scheme's own parameters with their ``_option_constraints``."""
        for name in self._own_options():
            self._check_option(name, getattr(self, name))

    def fit(self, X, y, gram=None, reuse=None):
        """Train the scheme on ``X`` (n_samples, n_features) and labels ``y`` (any sortable
        labels, at least two classes); records the fit's CPU and wall time.

        ``gram``: optionally K(X, X) under this estimator's kernel, computed once and shared by
        fits that differ only in C (the protocol does so); every binary SVM then reads its kernel
        values from it.  Only its shape is checked: it must be that very matrix.

        ``reuse``: optionally a :class:`.reuse.MachineReuse` store shared by fits on this same X
        and kernel at ascending C (one kernel task of the grid): a binary SVM it holds that
        solves a problem at this C (trained at a C' <= C with no support vector at the bound,
        or at C itself) stands in for training it, at no SMO iterations.  The all-together
        schemes instead start their solve from the store's last solve of the same problem
        (warm starts along C, :mod:`.joint.machine`).
        """
        self._check_scheme_params()
        settings = self._settings()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             ensure_all_finite=False)
        X = as_float_rows(check_finite(X))
        settings = replace(settings, gram=check_gram(gram, X.shape[0]), reuse=bind_reuse(reuse, X))
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs at least two classes; y has only one class")
        y_index = np.ravel(y_index)
        settings = replace(settings, row_weights=row_weights(self.class_weight, self.classes_,
                                                             y_index))
        wall, cpu = time.perf_counter(), time.process_time()
        fits = self._fit(X, y_index, settings)
        self.fit_cpu_time_ = time.process_time() - cpu + foreign_cpu_seconds(fits)
        self.fit_wall_time_ = time.perf_counter() - wall
        self.smo_iterations_ = smo_iterations(fits)
        # the most iterations of one binary SVM: what max_iter bounds (scikit-learn's n_iter_)
        self.n_iter_ = max((fit.n_iter for fit in fits), default=1)  # NB alone: one pass
        self.n_reused_machines_ = sum(fit.reused for fit in fits)
        self.max_train_memory_ = max_train_memory(fits)
        self._set_figures()
        return self

    def _set_figures(self):
        self.primal_ = isinstance(getattr(self, "machines_", None), PrimalMachines)
        self.n_parameters_ = int(self._n_parameters())
        self.n_support_vectors_ = int(self._n_support_vectors())

    def _validated(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, order="C", reset=False,
                          ensure_all_finite=False)
        return as_float_rows(check_finite(X))

    def decision_function(self, X):
        """Per-class scores (n_samples, n_classes) whose argmax is ``predict``; for two classes
        the (n_samples,) score of ``classes_[1]`` minus that of ``classes_[0]`` (> 0 means
        ``classes_[1]``).  Each scheme documents its scores in ``_scores``."""
        scores = self._scores(self._validated(X))
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X):
        """The class with the highest score (ties to the lowest class index)."""
        scores = self._scores(self._validated(X))
        return self.classes_[np.argmax(scores, axis=1)]

    def kernel_evaluations(self, X):
        """Kernel evaluations per test point, as defined by the scheme (Platt 1999, Table 1)."""
        return float(self._kernel_evaluations(self._validated(X)))

    # Defaults for schemes whose whole model is one Machines in ``machines_``.
    def _n_parameters(self):
        return self.machines_.n_parameters()

    def _n_support_vectors(self):
        return self.machines_.n_pool

    def _get_state(self):
        return self._common_meta(), self.machines_.to_arrays("svm_")

    def _restore_common(self, meta, classes):
        """Set the fitted attributes every scheme has, from persisted metadata."""
        self.classes_ = classes
        self.n_features_in_ = int(meta["n_features_in"])
        self.fit_cpu_time_ = float(meta["fit_cpu_time"])
        self.fit_wall_time_ = float(meta["fit_wall_time"])
        iterations = meta.get("smo_iterations")  # None: saved before it was recorded
        self.smo_iterations_ = None if iterations is None else int(iterations)
        memory = meta.get("max_train_memory")  # None: saved before it was recorded
        self.max_train_memory_ = None if memory is None else int(memory)

    def _common_meta(self):
        iterations = self.smo_iterations_
        return {"n_features_in": int(self.n_features_in_), "fit_cpu_time": float(self.fit_cpu_time_),
                "fit_wall_time": float(self.fit_wall_time_),
                "smo_iterations": None if iterations is None else int(iterations),
                "max_train_memory": getattr(self, "max_train_memory_", None)}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
