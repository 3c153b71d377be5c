"""The schemes' own constructor parameters: one table of what each may hold.

:data:`OPTIONS` maps an option's name to its check (raises a one-line ValueError naming the
option) and a phrase saying what it allows. The estimators check their parameters with it
(``MulticlassSVM._check_scheme_params``), and the config validation checks ``scheme_options``
with the very same entries, so a value ``multisvm validate`` accepts is one the estimator takes.
"""

from dataclasses import dataclass
from functools import partial
from numbers import Integral, Real
from typing import Callable

from .kernels import finite_float
from ..base.numeric import is_int
from ._codes import CODE_NAMES, check_code, check_code_classes  # noqa: F401 (for the config)

NB_NAMES = ("gaussian", "multinomial")  # sklearn GaussianNB / MultinomialNB
LEVEL1_MODELS = ("nb", "svm")
SOLVERS = ("libsvm", "liblinear")  # the binary solvers (see ._solvers)
DECODINGS = ("hamming", "loss", "euclidean")  # ECOC's (see .ecoc)
SHARED_OPTIONS = ("cache_size", "memory_mb", "tol", "solver", "max_iter")  # every scheme's, beside the grid's own


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


@dataclass(frozen=True)
class Option:
    """``check(name, value)`` raises ValueError unless ``value`` is allowed; ``allowed`` says
    what is, for messages and ``--help``."""

    check: Callable
    allowed: str


def check_order(name, value):
    """None (the sorted class order) or a list of distinct class labels (a permutation of the
    classes, checked against them at fit time)."""
    if value is None:
        return
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise ValueError(f"{name} must list every class exactly once, got {value!r}")
    labels = list(value)
    if len({repr(v) for v in labels}) != len(labels):
        raise ValueError(f"{name} must list every class exactly once; it repeats one: {labels!r}")


def check_flag(name, value):
    """ValueError unless ``value`` is true or false."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")


def check_seed(name, value):
    """ValueError unless ``value`` is an integer >= 0."""
    if not (is_int(value) and value >= 0):
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")


OPTIONS = {
    "holdout": Option(check_share, "a number in (0, 1)"),
    "threshold": Option(partial(check_share, low_inclusive=True), "a number in [0, 1)"),
    "nb": Option(partial(check_choice, choices=NB_NAMES), " | ".join(NB_NAMES)),
    "level1": Option(partial(check_choice, choices=LEVEL1_MODELS), " | ".join(LEVEL1_MODELS)),
    "order": Option(check_order, "natural, or a list of every class label"),
    "probability": Option(check_flag, "true or false"),
    "code": Option(check_code, " | ".join(CODE_NAMES) + ", or a matrix of -1/0/+1 (a row a class)"),
    "code_size": Option(check_positive, "a number > 0 (columns = int(classes x code_size))"),
    "code_seed": Option(check_seed, "an integer >= 0"),
    "decoding": Option(partial(check_choice, choices=DECODINGS), " | ".join(DECODINGS)),
    "cache_size": Option(check_positive, "a number > 0 (MB)"),
    "memory_mb": Option(check_positive, "a number > 0 (MB)"),
    "tol": Option(check_positive, "a number > 0"),
    "solver": Option(partial(check_choice, choices=SOLVERS), " | ".join(SOLVERS)),
    "max_iter": Option(check_max_iter, "libsvm (max(10^7, 100 x rows)), an integer > 0, or none"),
}


def check_solver_kernel(solver, kernel):
    """ValueError (one line) unless ``solver`` can train machines of the ``kernel`` named:
    liblinear trains linear machines only."""
    if solver == "liblinear" and kernel != "linear":
        raise ValueError(f"solver 'liblinear' applies to the linear kernel only, not the {kernel} kernel")


def check_options(estimator, names):
    """Check the estimator's parameters ``names`` with their :data:`OPTIONS` entries."""
    for name in names:
        OPTIONS[name].check(name, getattr(estimator, name))
