"""A user's own classifier as a row of the table: any installed scikit-learn classifier class.

A config names it as ``{scheme: "package.module:ClassName", label: ..., options: {...}}``
(``sklearn.svm:LinearSVC``, ``sklearn.multiclass:OutputCodeClassifier``, a class of the user's
own package).  Only an installed module is imported, by its dotted name: no file paths and no
code in YAML.  An option whose value is itself ``{scheme: ..., options: ...}`` is built the same
way (``OutputCodeClassifier``'s ``estimator``).  Naming a module runs that module's code, as
Hydra's ``_target_`` does: name only modules you trust.

The row goes through the same protocol, folds, report and statistics as the SVM schemes, fitted
with its own options at one grid point (like naive Bayes: it takes neither the grid's kernel
nor its C).  Its Table-1 figures that only our machines define (kernel evaluations, size,
support vectors, SMO iterations, training memory) are None, shown blank, never zero; its CPU
time is measured as for every scheme.  A user's classifier is never saved to a model folder
(multisvm writes no pickles).

The user's code is not trusted to behave: any exception from its ``fit``, ``predict`` or
``decision_function`` (``sys.exit`` too: a ``SystemExit`` would end the run with no table and
exit 0) becomes one :class:`UserClassifierError` line naming the call and the exception, and
its predictions are checked (one class index per point: 1-d, one value per point, each a whole
number among the classes it was trained on), so that a ``-1`` is never read as the last class
nor ``1.9`` as class 1. The protocol adds the row and the dataset
(``experiment.protocol.fitting.naming_the_row``).
"""

import inspect
import re
from importlib import import_module
from pathlib import Path

import numpy as np
from sklearn.base import is_classifier

from ..base.errors import MultisvmError, one_line
from ..base.hashing import sha256_hex
from ._base import MulticlassSVM
from .defaults import CACHE_SIZE, MAX_ITER, MEMORY_MB, SOLVER, TOL

class OptionError(ValueError):
    """A user's classifier refuses one of its options: ``path`` names it (``("C",)``, or
    ``("estimator", "options", "C")`` for a nested classifier's)."""

    def __init__(self, path, message):
        super().__init__(message)
        self.path = tuple(path)


TARGET = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
BUILD_KEYS = {"scheme", "options"}  # an option value of this form is built as a classifier too
CAUGHT = (Exception, SystemExit)  # what a user's code may raise; Ctrl-C still stops the run


class UserClassifierError(MultisvmError):
    """A user's classifier failed, or answered what is not a prediction: one line."""


def _called(what, call, *args):
    """``call(*args)``, a user's method; UserClassifierError naming ``what`` when it raises."""
    try:
        return call(*args)
    except CAUGHT as exc:
        text = one_line(exc)
        raised = type(exc).__name__ + (f": {text}" if text != type(exc).__name__ else "")
        raise UserClassifierError(f"{what} raised {raised}") from None


def load_class(target):
    """The class ``"package.module:ClassName"`` names; ValueError (one line) when ``target``
    is not of that form, its module is not installed, or it names no scikit-learn estimator
    class."""
    if not isinstance(target, str) or not TARGET.fullmatch(target):
        raise ValueError(f"{target!r} is not 'package.module:ClassName' (an installed module's "
                         f"dotted name, a colon, a class; no file paths)")
    module_name, _, class_name = target.partition(":")
    try:
        module = import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"module {module_name!r} cannot be imported ({exc}); install the "
                         f"package that provides it") from None
    cls = getattr(module, class_name, None)
    if not inspect.isclass(cls) or not callable(getattr(cls, "get_params", None)):
        raise ValueError(f"{target} is not a scikit-learn estimator class")
    return cls


def build(target, options, random_state=None):
    """An unfitted instance of ``target`` with ``options`` (nested ``{scheme, options}``
    values built too), seeded by ``random_state`` when the class takes one that ``options``
    leaves unset; ValueError (one line) for an unknown option or a class that is not a
    scikit-learn classifier."""
    cls = load_class(target)
    if not isinstance(options, dict):
        raise ValueError(f"options of {target} must be a mapping of its parameters")
    built = {name: _value(name, value, random_state) for name, value in options.items()}
    accepted = inspect.signature(cls).parameters
    unknown = sorted(set(built) - set(accepted))
    if unknown and not any(p.kind is p.VAR_KEYWORD for p in accepted.values()):
        raise ValueError(f"{target} has no parameter {unknown[0]!r}; its parameters: "
                         f"{', '.join(n for n in accepted if n != 'self')}")
    if "random_state" in accepted and "random_state" not in built:
        built["random_state"] = random_state
    try:
        model = cls(**built)
    except Exception as exc:  # the user's class refused its options
        raise ValueError(f"{target}({', '.join(built)}) failed: {one_line(exc)}") from None
    if not is_classifier(model):
        raise ValueError(f"{target} is not a scikit-learn classifier (its estimator type is not "
                         f"'classifier')")
    check_options(model, options)
    return model


def module_digests(target, options) -> dict:
    """``{module: SHA-256 of its source file}`` of the modules ``target`` and the nested
    ``{scheme, options}`` of ``options`` name (a module without a file: None): what the resume
    cache keys a user's row on, so that an edited module is fitted again, not replayed."""
    module_name = target.partition(":")[0]
    path = getattr(import_module(module_name), "__file__", None)
    found = {module_name: sha256_hex(Path(path).read_bytes()) if path else None}
    for value in (options or {}).values():
        if isinstance(value, dict) and "scheme" in value and set(value) <= BUILD_KEYS:
            found.update(module_digests(value["scheme"], value.get("options")))
    return dict(sorted(found.items()))



def check_options(model, names):
    """OptionError for the first of ``names`` that the model's own parameter validation
    refuses: scikit-learn's ``_parameter_constraints``, where its class declares them (what
    its ``fit`` would check first; a class without them is checked at fit)."""
    constraints = getattr(type(model), "_parameter_constraints", None)
    if not isinstance(constraints, dict):
        return
    from sklearn.utils._param_validation import validate_parameter_constraints

    params = model.get_params(deep=False)
    for name in names:
        if name in params:
            try:
                validate_parameter_constraints(constraints, {name: params[name]},
                                               caller_name=type(model).__name__)
            except (TypeError, ValueError) as exc:
                raise OptionError((name,), one_line(exc)) from None


def _value(name, value, random_state):
    """Option ``name``'s value: a nested ``{scheme: ..., options: ...}`` built as an estimator
    (an OptionError of its options names them under ``name``)."""
    if isinstance(value, dict) and "scheme" in value and set(value) <= BUILD_KEYS:
        try:
            return build(value["scheme"], value.get("options") or {}, random_state)
        except OptionError as exc:
            raise OptionError((name, "options", *exc.path), str(exc)) from None
    return value


class OwnClassifier(MulticlassSVM):
    """A user's scikit-learn classifier ``target`` with ``options``, as a multisvm scheme.

    The grid's parameters (C, kernel, ...) are accepted, so that every scheme takes the same
    grid point, and validated, but not used: the classifier takes its own ``options``.  It is
    trained on the class indices 0..N-1 and predicts ``classes_[its prediction]``;
    ``decision_function`` is its own where it has one.  ``random_state`` seeds it when it takes
    one that ``options`` leaves unset (the same config gives the same model).

    Figures: ``fit_cpu_time_`` and ``fit_wall_time_`` as for every scheme; kernel evaluations,
    ``n_parameters_``, ``n_support_vectors_``, ``smo_iterations_`` and ``max_train_memory_``
    are None (defined for our machines only).
    """

    def __init__(self, C=1.0, kernel="gaussian", sigma=1.0, gamma=None, degree=3,
                 homogeneous=False, n_jobs=None, random_state=None, cache_size=CACHE_SIZE,
                 memory_mb=MEMORY_MB, tol=TOL, solver=SOLVER, max_iter=MAX_ITER,
                 target="sklearn.svm:LinearSVC", options=None):
        super().__init__(C=C, kernel=kernel, sigma=sigma, gamma=gamma, degree=degree,
                         homogeneous=homogeneous, n_jobs=n_jobs, random_state=random_state,
                         cache_size=cache_size, memory_mb=memory_mb, tol=tol, solver=solver,
                         max_iter=max_iter)
        self.target = target
        self.options = options

    @classmethod
    def _point_cost(cls, n_rows, n_classes):
        """Unknown: weighed as one binary problem over all rows (for the ETA only)."""
        return float(n_rows) ** 2

    def _check_scheme_params(self):
        build(self.target, self.options or {})

    def _fit(self, X, y_index, settings):
        self.model_ = build(self.target, self.options or {}, self.random_state)
        _called("fit", self.model_.fit, X, y_index)
        return []

    def fit(self, X, y, gram=None, reuse=None):
        """Fit the user's classifier (``gram`` and ``reuse`` are not used)."""
        super().fit(X, y)
        self.smo_iterations_ = self.max_train_memory_ = None
        return self

    def _set_figures(self):
        self.primal_ = False
        self.n_parameters_ = self.n_support_vectors_ = None

    def _scores(self, X):
        """Its own decision_function where it gives one finite score per point and class, else
        its checked predictions as one-hot rows."""
        if hasattr(self.model_, "decision_function"):
            scores = np.asarray(_called("decision_function", self.model_.decision_function, X))
            if scores.shape == (X.shape[0], len(self.classes_)) and scores.dtype.kind in "iuf" \
                    and np.isfinite(scores).all():
                return scores.astype(float)
        return np.eye(len(self.classes_))[self._class_indices(X)]

    def predict(self, X):
        """The user's classifier's prediction, as the original labels."""
        return self.classes_[self._class_indices(self._validated(X))]

    def _class_indices(self, X):
        """The user's predictions for ``X`` as class indices; UserClassifierError unless they
        are one whole number in 0..n_classes-1 per point."""
        predicted = np.asarray(_called("predict", self.model_.predict, X))
        if predicted.ndim != 1:
            raise UserClassifierError(f"predict returned an array of shape {predicted.shape}; "
                                      f"it must give one class per point (1-d)")
        if len(predicted) != X.shape[0]:
            raise UserClassifierError(f"predict returned {len(predicted)} values for "
                                      f"{X.shape[0]} points; it must give one class per point")
        n_classes = len(self.classes_)
        try:
            values = predicted.astype(float)
            bad = ~((values == np.round(values)) & (values >= 0) & (values < n_classes))
        except (TypeError, ValueError):  # text, objects: no class index
            bad = np.ones(len(predicted), dtype=bool)
        if bad.any():
            i = int(np.argmax(bad))
            raise UserClassifierError(f"predict returned {predicted[i].item()!r} for point {i}, "
                                      f"not one of the classes it was trained on (0 to "
                                      f"{n_classes - 1})")
        return values.astype(int)

    def kernel_evaluations(self, X):
        """None: kernel evaluations are defined for our machines only."""
        return None

    def _get_state(self):
        raise ValueError(f"a user's classifier ({self.target}) cannot be saved: multisvm writes "
                         f"no pickles; run it with 'multisvm reproduce-table'")
