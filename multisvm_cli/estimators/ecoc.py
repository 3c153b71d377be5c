"""ECOC: one binary SVM per column of an error-correcting output code (Dietterich & Bakiri
1995; Allwein, Schapire & Singer 2000)."""

import inspect
from dataclasses import replace
from functools import partial

import numpy as np
from joblib import delayed

from ._base import FIXED_ROWS, MulticlassSVM, copy_fitted
from ._binary import fit_binary, run_parallel, shared_gram
from ._codes import (ALLWEIN, CODE_NAMES, RANDOM_CODES, check_code, check_code_classes,
                     check_code_size, check_drawable, check_matrix, code_matrix, fixed_code,
                     n_distinct_problems)
from ._pairwise import fit_pairwise, pairwise_problems
from ._primal import build_machines, load_machines
from ._probability import ProbabilityMixin, code_coupling
from .options import CLASS_WEIGHT, PROBABILITY, Option, OptionError, check_choice, check_seed
from ._schema import FLOAT, INT, machine_arrays
from .maxwins import MaxWinsSVC
from .ovr import OneVsRestSVC
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL

DECODINGS = ("hamming", "loss", "euclidean")


class ECOCSVC(ProbabilityMixin, MulticlassSVM):
    """Error-correcting output code multiclass SVM.

    ``code``: ``ovr``, ``ovo``, ``dense``, ``sparse``, ``exhaustive`` or an explicit matrix of
    -1, 0, +1 with one row per class (sorted label order); ``code_size`` (dense and sparse:
    int(k x code_size) columns, as scikit-learn's OutputCodeClassifier, or ``allwein``: the
    papers' ceil(10 log2 k) / ceil(15 log2 k) columns and draw) and ``code_seed`` (their
    draw); see :mod:`._codes` for the codes and what makes one valid.  The code used is
    ``code_`` (k, L).

    Training: column b is one soft-margin SVM f_b, its +1 classes (positive) against its -1
    classes, on the rows of those classes in data order (classes marked 0 left out).  Columns
    that all use every row (ovr, dense, exhaustive) share one Gram matrix when it fits
    ``memory_mb``, as 1-v-r's machines do; the ``ovo`` code trains Max Wins' own pairwise
    machines (rows of class i then j), so with it a column *is* that machine, and the ``ovr``
    code's columns are 1-v-r's: run beside Max Wins (ovo) or 1-v-r (ovr), the protocol trains
    them once and ECOC reads them (:meth:`from_trained`).

    Prediction: every column is evaluated through the shared support-vector pool (one kernel
    block and one product per chunk, as Max Wins), then decoded to the nearest row of the code
    (ties to the lowest class index); ``decision_function`` is minus that distance:

    - ``hamming``: sum_b (1 - s_b M_rb) / 2 with s_b = +1 if f_b >= 0 else -1 (Allwein et al.'s
      generalised Hamming distance: a 0 entry costs 1/2); with the ovo code, Max Wins' vote;
    - ``loss``: sum_b L(M_rb f_b), the hinge loss L(z) = max(0, 1 - z) (Allwein et al.'s
      loss-based decoding; a 0 entry costs L(0) = 1); with the ovr code, 1-v-r's argmax;
    - ``euclidean``: ||f - M_r||, as OutputCodeClassifier decodes.

    Two classes: the code has one column, and the prediction is that machine's sign.

    ``probability=True``: each column gets Platt's sigmoid (fitted as LIBSVM does, see
    ``_probability``) and ``predict_proba`` couples them by Zadrozny 2001's generalisation of
    Hastie & Tibshirani's pairwise coupling to codes, each column weighted by its training rows.

    Figures: ``kernel_evaluations(X)`` = the unique support vectors over all L columns (every
    column is evaluated); ``n_parameters_`` = non-zero entries of those support vectors +
    non-zero dual coefficients + L biases.
    """

    _shares_gram = True  # dense, ovr and exhaustive columns all train on every row

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3, homogeneous=False,
                 n_jobs=None, random_state=None, cache_size=CACHE_SIZE, memory_mb=MEMORY_MB,
                 tol=TOL, solver=SOLVER, max_iter=MAX_ITER,
                 code="dense", code_size=1.5, code_seed=0,
                 decoding="loss", probability=False, class_weight=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.class_weight = class_weight
        self.code = code
        self.code_size = code_size
        self.code_seed = code_seed
        self.decoding = decoding
        self.probability = probability

    _option_constraints = {
        **MulticlassSVM._option_constraints,
        "code": Option(check_code, " | ".join(CODE_NAMES) + ", or a matrix of -1/0/+1 (a row a "
                       "class)", fits=check_code_classes, sweeps=fixed_code),
        "code_size": Option(check_code_size, "a number > 0 (columns = int(classes x code_size)) "
                            "or allwein (ceil(10 log2 k) dense, ceil(15 log2 k) sparse columns, "
                            "drawn as Allwein et al. 2000)"),
        "code_seed": Option(check_seed, "an integer >= 0"),
        "decoding": Option(partial(check_choice, choices=DECODINGS), " | ".join(DECODINGS)),
        "probability": PROBABILITY,
        "class_weight": CLASS_WEIGHT,
    }

    _draw_options = ("code_size", "code_seed")  # apply to the drawn codes (RANDOM_CODES) only

    @classmethod
    def _check_options_together(cls, options, classes=None):
        """``code_size`` and ``code_seed`` apply to the dense and sparse codes only; a drawn
        code needs enough columns for one different row per class (see
        :func:`._codes.check_drawable`)."""
        defaults = inspect.signature(cls).parameters
        code = options.get("code", defaults["code"].default)
        if not (isinstance(code, str) and code in RANDOM_CODES):
            shown = f"code {code}" if isinstance(code, str) else "an explicit code matrix"
            for name in (name for name in cls._draw_options if name in options):
                raise OptionError(name, f"{name} applies to the dense and sparse codes only "
                                        f"(their draw), not to {shown}; remove it")
            return
        if classes is not None:
            size, seed = (options.get(name, defaults[name].default) for name in cls._draw_options)
            try:
                check_drawable(code, size, len(classes), seed)
            except ValueError as exc:
                raise OptionError("code_size" if "code_size" in options else "code",
                                  str(exc)) from None

    @classmethod
    def _point_cost(cls, n_rows, n_classes):
        """About 1.5 k columns (the default dense code) of all n rows."""
        return 1.5 * n_classes * (float(n_rows) ** 2 + float(FIXED_ROWS) ** 2)

    @staticmethod
    def _machine_bounds(n_classes):
        """One machine a column: from one up to the most distinct problems of a sparse code."""
        return 1, n_distinct_problems(n_classes, sparse=True)

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """The machines, ``code`` (k, L) and, with probabilities, the sigmoids and
        ``code_weights`` (L): the columns' training rows (the coupling's weights)."""
        shape = shapes.declared("code")
        low, high = cls._machine_bounds(n_classes)
        if len(shape) != 2 or shape[0] != n_classes or not low <= shape[1] <= high:
            raise ValueError(f"array 'code' must be ({n_classes}, L) with L in {low}..{high}, "
                             f"got shape {shape}")
        expected = {**machine_arrays(params, shapes, (shape[1], shape[1]), n_features),
                    "code": (INT, tuple(shape))}
        if params.get("probability"):
            expected["code_weights"] = (FLOAT, (shape[1],))
        return cls._with_probability(params, expected)

    def _fit(self, X, y_index, settings):
        n_classes = len(self.classes_)
        self._set_code(y_index)
        if isinstance(self.code, str) and self.code == "ovo":  # Max Wins' machines, as it trains them
            problems = pairwise_problems(y_index, n_classes)
            self.machines_, fits = fit_pairwise(X, y_index, n_classes, replace(settings, gram=None))
        else:
            problems = column_problems(self.code_, y_index)
            fits = fit_columns(X, problems, settings)
            self.machines_ = build_machines(settings, X, fits, y_index)
        return fits + self._fit_probability(X, y_index, settings, problems)

    @classmethod
    def from_trained(cls, trainer, options, y):
        """A fitted ECOCSVC of ``scheme_options`` ``options`` whose code is ``ovo`` (``trainer``:
        a fitted MaxWinsSVC) or ``ovr`` (a fitted OneVsRestSVC) reading the trainer's machines,
        fit times and, with ``probability``, its sigmoids: its columns are those very problems
        (registry ``reads``).  ``y``: the labels the trainer was fitted on (the coupling's
        column weights count them).  ValueError for another code or trainer."""
        model = cls(**{**{key: value for key, value in trainer.get_params().items()
                          if key in cls._get_param_names()},
                       **{key: options[key] for key in cls._own_options() if key in options}})
        wanted = {"ovo": MaxWinsSVC, "ovr": OneVsRestSVC}.get(model.code) \
            if isinstance(model.code, str) else None
        if wanted is None or not isinstance(trainer, wanted):
            raise ValueError(f"from_trained reads a MaxWinsSVC (code ovo) or a OneVsRestSVC "
                             f"(code ovr), not a {type(trainer).__name__} for code {model.code!r}")
        if model.probability and not hasattr(trainer, "probA_"):
            raise ValueError(f"probability=True needs a {wanted.__name__} fitted with "
                             f"probability=True")
        model._check_scheme_params()
        copy_fitted(trainer, model, ("probA_", "probB_") if model.probability else ())
        y_index = np.searchsorted(model.classes_, np.asarray(y))
        model._set_code(y_index)
        model._set_figures()
        return model

    def _set_code(self, y_index):
        """``code_`` and the columns' training rows ``code_weights_``."""
        n_classes = len(self.classes_)
        self._check_option_classes("code", self.code, self.classes_)
        self.code_ = code_matrix(self.code, n_classes, self.code_size, self.code_seed)
        counts = np.bincount(y_index, minlength=n_classes)
        self.code_weights_ = ((self.code_ != 0).T @ counts).astype(np.float64)

    def _values(self, X):
        return self.machines_.decision(X, self.memory_mb, self.n_jobs)

    def _scores(self, X):
        if len(self.classes_) == 2:
            values = self._values(X)[:, 0] * self.code_[1, 0]
            return np.column_stack([np.zeros(X.shape[0]), values])
        scores = self.machines_.map_decisions(X, self._decode, self.memory_mb, self.n_jobs)
        return scores.reshape(X.shape[0], len(self.classes_))

    def _decode(self, values):
        """Minus each class's distance (n, k) from decision values (n, L)."""
        code = self.code_.astype(np.float64)
        if self.decoding == "hamming":
            signs = np.where(values >= 0, 1.0, -1.0)
            return -(code.shape[1] - signs @ code.T) / 2
        if self.decoding == "euclidean":  # ||f - M_r||^2 less ||f||^2, the same for every r
            return 2 * values @ code.T - (code**2).sum(axis=1)
        return -np.column_stack([np.maximum(0.0, 1.0 - values * row).sum(axis=1) for row in code])

    def _proba(self, X):
        """Zadrozny's coupling of the columns' sigmoids (two classes: the one sigmoid)."""
        positive = self._sigmoids(self._values(X))
        if len(self.classes_) == 2:
            second = positive[:, 0] if self.code_[1, 0] > 0 else 1.0 - positive[:, 0]
            return np.column_stack([1.0 - second, second])
        return code_coupling(positive, self.code_, self.code_weights_)

    def _kernel_evaluations(self, X):
        return self.machines_.full_evaluations

    def _get_state(self):
        meta, arrays = super()._get_state()
        arrays = {**arrays, "code": self.code_.astype(np.int64)}
        if self.probability:
            arrays["code_weights"] = self.code_weights_
        return meta, arrays

    def _set_state(self, meta, arrays, kernel):
        code = np.asarray(arrays["code"])
        if not np.isin(code, (-1, 0, 1)).all():
            raise ValueError("code must hold -1, 0 and +1 only")
        check_matrix("code", code.astype(np.int8), opposites=self.code_size == ALLWEIN)
        if not isinstance(self.code, str) or self.code in ("ovr", "ovo", "exhaustive"):
            expected = code_matrix(self.code, len(self.classes_), self.code_size, self.code_seed)
            if not np.array_equal(code, expected):
                raise ValueError("code is not the code its parameters give")
        self.code_ = code.astype(np.int8)
        self.machines_ = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                       code.shape[1])
        if self.probability:
            weights = np.asarray(arrays["code_weights"], dtype=np.float64)
            if not (np.isfinite(weights).all() and (weights > 0).all()):
                raise ValueError("code_weights must be numbers > 0")
            self.code_weights_ = weights
        self._set_probability(arrays)


def column_problems(code, y_index):
    """The (rows, positive mask) problem of each code column: the rows of its non-zero classes
    in data order, positive where the class is +1."""
    entries = code[y_index]  # (n, L): each row's entry in every column
    problems = []
    for b in range(code.shape[1]):
        rows = np.flatnonzero(entries[:, b] != 0)
        problems.append((rows, entries[rows, b] > 0))
    return problems


def fit_columns(X, problems, settings):
    """Train one binary SVM per problem (in parallel); problems that all use every row share
    one Gram matrix when it fits the budget (as one-vs-rest, :func:`._binary.shared_gram`)."""
    n_rows = X.shape[0]
    everywhere = all(len(rows) == n_rows for rows, _ in problems)
    gram = shared_gram(X, np.arange(n_rows), problems, settings) if everywhere else None
    tasks = [delayed(fit_binary)(X, rows, positive, settings, gram) for rows, positive in problems]
    return run_parallel(tasks, settings.n_jobs)
