"""The constraints a scheme declares on its options, and the checks they are built from.

Each scheme class declares its ``scheme_options`` in ``_option_constraints`` (name ->
:class:`Option`), composed from its parent's as scikit-learn's ``_parameter_constraints`` are
(``{**Parent._option_constraints, "order": Option(...)}``); :data:`SHARED` holds the options
every scheme takes.  The estimator checks its parameters with them
(``MulticlassSVM._check_scheme_params``), and the config asks the scheme for the very same
checks (the class hooks ``_check_option``, ``_check_option_classes``, ``_check_option_sweep``),
so a value ``multisvm validate`` accepts is one the estimator takes, and both refuse a bad one
with one sentence.
"""

from dataclasses import dataclass
from functools import partial
from numbers import Integral, Real
from typing import Callable

from .kernels import finite_float
from ..base.numeric import is_int
from .weights import check_class_weight, check_class_weight_classes, check_class_weight_sweep

NB_NAMES = ("gaussian", "multinomial")  # sklearn GaussianNB / MultinomialNB
SOLVERS = ("libsvm", "liblinear")  # the binary solvers (see ._solvers)


# The largest usable C.  libsvm's SMO stops when the gradient G_i = sum_j Q_ij alpha_j - 1 meets
# its tolerance; with alphas at C the -1 (the only term that does not scale with C) drowns in
# the rounding of C-sized terms once C * 2^-52 reaches 1, and SMO may then never stop: on iris
# (versicolor vs virginica, gamma 2^-10) C = 1e16 converges in 0.05 s, C = 1e17 ran past 100 s
# (it converges at any C where the classes are separable).  A C below this bound can still be
# slow where kernel values are large (unscaled polynomial kernels).
MAX_C = 2.0**52


def check_positive(name, value, integer=False, maximum=None):
    """ValueError unless ``value`` is a finite number > 0 (an integer if ``integer``), at most
    ``maximum`` when one is given."""
    kind = Integral if integer else Real
    number = finite_float(value) if isinstance(value, kind) else None
    if maximum is not None and (number is None or not 0 < number <= maximum):
        raise ValueError(f"{name} must be a number in (0, {maximum:.3g}], got {value!r}")
    if number is None or number <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


def check_C(C):
    """ValueError unless ``C`` is usable by libsvm: a number in (0, MAX_C]."""
    check_positive("C", C, maximum=MAX_C)


def check_share(name, value, low_inclusive=False):
    """ValueError unless ``value`` is a number in (0, 1), or [0, 1) if ``low_inclusive``."""
    ok = isinstance(value, Real) and not isinstance(value, bool) and value < 1
    ok = ok and (value >= 0 if low_inclusive else value > 0)
    if not ok:
        interval = "[0, 1)" if low_inclusive else "(0, 1)"
        raise ValueError(f"{name} must be a number in {interval}, got {value!r}")


def check_choice(name, value, choices):
    """ValueError unless ``value`` is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {value!r}; expected one of {', '.join(choices)}")


def check_max_iter(name, value):
    """ValueError unless ``value`` bounds libsvm's SMO iterations: "libsvm" (upstream LIBSVM's
    bound, max(10^7, 100 x rows) per binary problem), an integer > 0, or None / -1 / "none"
    (no bound)."""
    if value in ("libsvm", "none", None) or (is_int(value) and (value == -1 or value > 0)):
        return
    raise ValueError(f'{name} must be "libsvm", an integer > 0, or none, got {value!r}')


NO_DEFAULT = object()  # an option saved in every model file: no value for older ones


@dataclass(frozen=True)
class Option:
    """One option's constraint: ``check(name, value)`` raises a one-line ValueError unless
    ``value`` is allowed; ``allowed`` says what is (for messages and the docs).

    The checks that need more than the value, each None where the option has none:

    - ``fits(name, value, classes)``: ValueError unless ``value`` fits data of these sorted
      ``classes`` (an order listing them, a code matrix with one row each);
    - ``sweeps(name, value)``: ValueError when ``value`` cannot follow a classes sweep (it
      names the classes the sweep changes);
    - ``lacking``: what a scheme without this option lacks, for the config's sentence when one
      is given to it ("UDT has no class probabilities");
    - ``saved_default``: the value of a model saved before the option existed (
      :data:`NO_DEFAULT`: none, the option is as old as the model files);
    - ``words``: (word, value) pairs a config may write for a value (``order: natural``).
    """

    check: Callable
    allowed: str
    fits: Callable | None = None
    sweeps: Callable | None = None
    lacking: str | None = None
    saved_default: object = NO_DEFAULT
    words: tuple = ()

    def value(self, given):
        """The estimator's value of a config's ``given`` (a word of ``words``, or itself)."""
        return next((value for word, value in self.words if isinstance(given, str) and given == word),
                    given)


class OptionError(ValueError):
    """A one-line ValueError about the options of one scheme taken together; ``option`` names
    the option it is about (where a config shows it)."""

    def __init__(self, option, message):
        super().__init__(message)
        self.option = option


def check_flag(name, value):
    """ValueError unless ``value`` is true or false."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")


def check_seed(name, value):
    """ValueError unless ``value`` is an integer >= 0."""
    if not (is_int(value) and value >= 0):
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")


SHARED = {  # the options every scheme takes, beside the grid's own (C and the kernel)
    "cache_size": Option(check_positive, "a number > 0 (MB)"),
    "memory_mb": Option(check_positive, "a number > 0 (MB)"),
    "tol": Option(check_positive, "a number > 0"),
    "solver": Option(partial(check_choice, choices=SOLVERS), " | ".join(SOLVERS),
                     saved_default="libsvm"),  # saved before liblinear: libsvm's
    "max_iter": Option(check_max_iter, "libsvm (max(10^7, 100 x rows)), an integer > 0, or none"),
}
# constraints that several schemes declare
HOLDOUT = Option(check_share, "a number in (0, 1)")
NB = Option(partial(check_choice, choices=NB_NAMES), " | ".join(NB_NAMES))
PROBABILITY = Option(check_flag, "true or false", lacking="class probabilities",
                     saved_default=False)  # saved before probabilities: none
CLASS_WEIGHT = Option(check_class_weight, "balanced, or a mapping {label: weight > 0}",
                      fits=check_class_weight_classes, sweeps=check_class_weight_sweep,
                      lacking="class weights",
                      saved_default=None,  # saved before class weights: unit weights
                      words=(("none", None),))


def check_solver_kernel(solver, kernel):
    """ValueError (one line) unless ``solver`` can train machines of the ``kernel`` named:
    liblinear trains linear machines only."""
    if solver == "liblinear" and kernel != "linear":
        raise ValueError(f"solver 'liblinear' applies to the linear kernel only, not the {kernel} kernel")
