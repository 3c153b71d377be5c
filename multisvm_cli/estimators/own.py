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
"""

import inspect
import re
from importlib import import_module

import numpy as np
from sklearn.base import is_classifier

from ..base.errors import one_line
from ._base import MulticlassSVM

class OptionError(ValueError):
    """A user's classifier refuses one of its options: ``path`` names it (``("C",)``, or
    ``("estimator", "options", "C")`` for a nested classifier's)."""

    def __init__(self, path, message):
        super().__init__(message)
        self.path = tuple(path)


TARGET = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
BUILD_KEYS = {"scheme", "options"}  # an option value of this form is built as a classifier too


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
                 homogeneous=False, n_jobs=None, random_state=None, cache_size=200,
                 memory_mb=2048, tol=1e-3, solver="libsvm", max_iter="libsvm",
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
        self.model_.fit(X, y_index)
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
        if hasattr(self.model_, "decision_function"):
            scores = np.asarray(self.model_.decision_function(X), dtype=float)
            if scores.ndim == 2:
                return scores
        predicted = np.asarray(self.model_.predict(X), dtype=int)
        return np.eye(len(self.classes_))[predicted]

    def predict(self, X):
        """The user's classifier's prediction, as the original labels."""
        X = self._validated(X)
        return self.classes_[np.asarray(self.model_.predict(X), dtype=int)]

    def kernel_evaluations(self, X):
        """None: kernel evaluations are defined for our machines only."""
        return None

    def _get_state(self):
        raise ValueError(f"a user's classifier ({self.target}) cannot be saved: multisvm writes "
                         f"no pickles; run it with 'multisvm reproduce-table'")
