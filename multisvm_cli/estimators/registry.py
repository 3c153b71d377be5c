"""The one table of schemes: config name, estimator class, display name and options.

Config validation, the estimators' parameter checks, the command line and the report all read
:data:`REGISTRY`; nothing else lists the schemes.

- ``name``: what a config's ``schemes`` list says;
- ``estimator``: the scikit-learn estimator class;
- ``label``: the row name in the report (Table 1's ``1-v-r``, ``Max Wins``, ``DAGSVM``, ...);
- ``options``: the constructor parameters a config may set in ``scheme_options`` (the scheme's
  own, checked by :data:`.options.OPTIONS`, and the shared libsvm ones);
- ``kernel_free``: uses neither kernel nor C (scored at one grid point only);
- ``trained_with``: another scheme whose fitted machines this one evaluates (DAGSVM reads Max
  Wins' pairwise SVMs: both are trained once when both are run, as in Table 1).

:func:`scheme_name` is the one home of the schemes' other names: a config's ``schemes``,
``compare_to`` and ``scheme_options`` and the CLI's ``--scheme`` take the registry name, the
report's label or an alias of :data:`ALIASES`, in any case (``Max Wins``, ``max-wins``, ``ovo``).
"""

from dataclasses import dataclass

from .dag import DAGSVC
from .graph import GraphSVC
from .hier import HierSVC
from .maxwins import MaxWinsSVC
from .nb import NBClassifier
from .options import OPTIONS, SHARED_OPTIONS
from .ovr import OneVsRestSVC
from .udt import UDTSVC


@dataclass(frozen=True)
class Scheme:
    """One multiclass scheme (see the module docstring)."""

    name: str
    estimator: type
    label: str
    kernel_free: bool = False
    trained_with: str | None = None

    @property
    def options(self) -> tuple:
        """The ``scheme_options`` keys this scheme takes, its own first."""
        return tuple(self.estimator._options) + SHARED_OPTIONS


REGISTRY = {scheme.name: scheme for scheme in (
    Scheme("ovr", OneVsRestSVC, "1-v-r"),
    Scheme("maxwins", MaxWinsSVC, "Max Wins"),
    Scheme("dag", DAGSVC, "DAGSVM", trained_with="maxwins"),
    Scheme("udt", UDTSVC, "UDT"),
    Scheme("graph", GraphSVC, "GraphSVM"),
    Scheme("hier", HierSVC, "Hier"),
    Scheme("nb", NBClassifier, "NB", kernel_free=True),
)}
SCHEME_NAMES = tuple(REGISTRY)
SCHEMES = {name: scheme.estimator for name, scheme in REGISTRY.items()}  # name -> class
# Other names of the schemes (besides each label): the UDT paper's one-vs-one / one-vs-all.
ALIASES = {"ovo": "maxwins", "ova": "ovr", "onevsone": "maxwins", "onevsrest": "ovr",
           "onevsall": "ovr"}
assert all(name in OPTIONS for scheme in REGISTRY.values() for name in scheme.options)


def label(name) -> str:
    """The report's name of a scheme (the name itself for rows we do not run, e.g. a paper's
    "Neural Net")."""
    scheme = REGISTRY.get(name)
    return scheme.label if scheme else str(name)


def kernel_free(name) -> bool:
    """Whether scheme ``name`` uses neither kernel nor C (scored at one grid point only)."""
    return REGISTRY[name].kernel_free


def shared_group() -> tuple:
    """The schemes trained together, as (trainer, reader): a scheme that evaluates another's
    fitted machines (DAGSVM reads Max Wins' pairwise SVMs)."""
    return next((s.trained_with, s.name) for s in REGISTRY.values() if s.trained_with)


def scheme_groups(schemes) -> list:
    """``schemes`` grouped by shared training: the :func:`shared_group` together when all of it
    is run, every other scheme alone; in the order of ``schemes``."""
    shared = shared_group()
    together = all(s in schemes for s in shared)
    groups = [shared] if together else []
    return groups + [(s,) for s in schemes if not (together and s in shared)]


def _folded(name: str) -> str:
    """A name with case, spaces, hyphens and underscores folded away (``Max Wins`` = maxwins)."""
    return "".join(ch for ch in name.lower() if ch not in " -_")


_NAMES = {**{_folded(s.label): s.name for s in REGISTRY.values()},
          **{_folded(alias): name for alias, name in ALIASES.items()},
          **{name: name for name in REGISTRY}}


def scheme_name(given) -> str | None:
    """The registry name of a scheme named by its name, label or alias in any case (None when
    ``given`` names no scheme)."""
    return _NAMES.get(_folded(given)) if isinstance(given, str) else None


def scheme_names_help() -> str:
    """Each scheme's name with its other names, for ``--help`` and error messages."""
    others = {name: [s.label] for name, s in REGISTRY.items()}
    for alias, name in ALIASES.items():
        if alias in ("ovo", "ova"):
            others[name].append(alias)
    return "; ".join(f"{name} ({', '.join(o)})" for name, o in others.items())
