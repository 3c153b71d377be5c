"""The one table of schemes: data only, so importing it loads neither scikit-learn nor a scheme.

Config validation, the command line, the protocol, persistence and the report all read
:data:`REGISTRY`; nothing else lists the schemes, and no module outside ``estimators/`` names
one.  A :class:`Scheme` holds what the rest of the package needs before any fit:

- ``name``: what a config's ``schemes`` list says;
- ``label``: the row name in the report (Table 1's ``1-v-r``, ``Max Wins``, ``DAGSVM``, ...);
- ``target``: where the estimator class lives, ``"module:Class"`` (imported on first use of
  :attr:`Scheme.estimator`, so ``multisvm --help`` stays light);
- ``aliases``: other names a config or ``--scheme`` may use (``ovo``, ``ova``, ...; the first
  is shown in ``--help``);
- ``kernel_free``: uses neither kernel nor C (scored at one grid point only);
- ``trained_with``: another scheme whose fitted machines this one evaluates (DAGSVM reads Max
  Wins' pairwise SVMs: both are trained once when both are run, as in Table 1);
- ``reads``: ``(option, value, trainer)`` triples: the scheme evaluates ``trainer``'s fitted
  machines when its ``scheme_options`` set ``option`` to ``value`` (ECOC with the ``ovo`` code
  reads Max Wins' machines, with the ``ovr`` code 1-v-r's);
- ``reference``: the scheme every other is compared with by default (a config's ``compare_to``);
- ``order_study``: the scheme whose test error over random class orders ``dag_orders`` studies;
- ``pairwise``: whether it trains one SVM per pair of classes (its cost is quadratic in the
  number of classes: refused above a limit, ``experiment.config.class_limit``);
- ``figures``: whether Table 1's machine figures (kernel evaluations, size, support vectors,
  iterations) are defined (not for a user's classifier: those cells stay blank);
- ``help``: one line for ``--help`` and the docs.

What only the scheme knows (the arrays it saves, its cost for the ETA, whether it reads the
shared Gram matrix, its options) its class declares: see :mod:`._base`.

:func:`scheme_name` is the one home of the schemes' other names: a config's ``schemes``,
``compare_to`` and ``scheme_options`` and the CLI's ``--scheme`` take the registry name, the
report's label or an alias, in any case (``Max Wins``, ``max-wins``, ``ovo``).
"""

from dataclasses import dataclass
from importlib import import_module

@dataclass(frozen=True)
class Scheme:
    """One multiclass scheme (see the module docstring)."""

    name: str
    label: str
    target: str
    help: str = ""
    aliases: tuple = ()
    kernel_free: bool = False
    trained_with: str | None = None
    reads: tuple = ()
    reference: bool = False
    order_study: bool = False
    figures: bool = True
    pairwise: bool = False

    @property
    def class_name(self) -> str:
        """The estimator class's name (``target``'s part after the colon)."""
        return self.target.rpartition(":")[2]

    @property
    def estimator(self) -> type:
        """The scikit-learn estimator class (imported on first use)."""
        module, _, attribute = self.target.partition(":")
        return getattr(import_module(module), attribute)

    @property
    def options(self) -> tuple:
        """The ``scheme_options`` keys this scheme takes, its own first (its class's
        ``_option_constraints``)."""
        from .options import SHARED
        return self.estimator._own_options() + tuple(SHARED)


_HERE = __name__.rpartition(".")[0]  # multisvm_cli.estimators

REGISTRY = {scheme.name: scheme for scheme in (
    Scheme("ovr", "1-v-r", f"{_HERE}.ovr:OneVsRestSVC", "one-vs-rest: one SVM per class",
           aliases=("ova", "onevsrest", "onevsall")),
    Scheme("maxwins", "Max Wins", f"{_HERE}.maxwins:MaxWinsSVC",
           "one-vs-one voting: one SVM per pair of classes", aliases=("ovo", "onevsone"),
           pairwise=True),
    Scheme("dag", "DAGSVM", f"{_HERE}.dag:DAGSVC",
           "Platt et al.'s decision DAG over the pairwise SVMs", trained_with="maxwins",
           reference=True, order_study=True, pairwise=True),
    Scheme("adag", "ADAG", f"{_HERE}.adag:ADAGSVC",
           "Kijsirikul & Ussivakul's adaptive DAG over the pairwise SVMs", trained_with="maxwins",
           pairwise=True),
    Scheme("coupling", "Coupling", f"{_HERE}.coupling:PairwiseCouplingSVC",
           "Wu, Lin & Weng's pairwise coupling: the most probable class of the pairwise SVMs' "
           "coupled sigmoids", aliases=("pairwisecoupling", "pwc"), pairwise=True),
    Scheme("ecoc", "ECOC", f"{_HERE}.ecoc:ECOCSVC",
           "error-correcting output codes: one SVM per code column", aliases=("outputcode",),
           reads=(("code", "ovo", "maxwins"), ("code", "ovr", "ovr"))),
    Scheme("cs", "C&S", f"{_HERE}.cs:CrammerSingerSVC",
           "Crammer & Singer's all-together multiclass SVM (our own solver)",
           aliases=("crammersinger",)),
    Scheme("ww", "W&W", f"{_HERE}.ww:WestonWatkinsSVC",
           "Weston & Watkins' all-together multiclass SVM (our own solver)",
           aliases=("westonwatkins",)),
    Scheme("llw", "LLW", f"{_HERE}.llw:LeeLinWahbaSVC",
           "Lee, Lin & Wahba's all-together multiclass SVM (our own solver)",
           aliases=("leelinwahba",)),
    Scheme("udt", "UDT", f"{_HERE}.udt:UDTSVC", "Ramanan et al.'s unbalanced decision tree"),
    Scheme("graph", "GraphSVM", f"{_HERE}.graph:GraphSVC",
           "Godbole et al.'s confusion-graph one-vs-others"),
    Scheme("hier", "Hier", f"{_HERE}.hier:HierSVC",
           "Godbole et al.'s two-level hierarchy over class clusters"),
    Scheme("nb", "NB", f"{_HERE}.nb:NBClassifier", "naive Bayes baseline (no SVM)",
           kernel_free=True),
)}
SCHEME_NAMES = tuple(REGISTRY)
# the UDT paper's one-vs-one / one-vs-all, and every scheme's other names
ALIASES = {alias: scheme.name for scheme in REGISTRY.values() for alias in scheme.aliases}
REFERENCE = next(s.name for s in REGISTRY.values() if s.reference)  # compare_to's default
ORDER_STUDY = next(s.name for s in REGISTRY.values() if s.order_study)  # what dag_orders studies


OWN = "own:"  # a user's classifier row is the scheme "own:<its label>" (see :mod:`.own`)


def get(name) -> Scheme:
    """The Scheme of a registry name, or of a user's classifier row ``own:<label>`` (kernel-free,
    its class and options given by the config); KeyError for anything else."""
    if isinstance(name, str) and name.startswith(OWN) and len(name) > len(OWN):
        return Scheme(name, name[len(OWN):], f"{_HERE}.own:OwnClassifier",
                      "a user's scikit-learn classifier", kernel_free=True, figures=False)
    return REGISTRY[name]


def own_name(label) -> str:
    """The scheme name of a user's classifier row labelled ``label``."""
    return OWN + label


def label(name) -> str:
    """The report's name of a scheme (the name itself for rows we do not run, e.g. a paper's
    "Neural Net")."""
    try:
        return get(name).label
    except KeyError:
        return str(name)


def kernel_free(name) -> bool:
    """Whether scheme ``name`` uses neither kernel nor C (scored at one grid point only)."""
    return get(name).kernel_free


def estimator(name) -> type:
    """The estimator class of scheme ``name`` (a registry name or ``own:<label>``)."""
    return get(name).estimator


def trainer_of(name, options=None) -> str | None:
    """The scheme whose fitted machines scheme ``name`` evaluates under ``options`` (its
    ``scheme_options`` by scheme name), or None when it trains its own."""
    scheme = REGISTRY[name]
    if scheme.trained_with:
        return scheme.trained_with
    own = (options or {}).get(name, {})
    return next((trainer for option, value, trainer in scheme.reads
                 if isinstance(own.get(option), str) and own.get(option) == value), None)


def shared_groups(options=None) -> list:
    """The schemes trained together under ``options``, each as (trainer, reader, ...): a scheme
    whose fitted machines others evaluate, then its readers in registry order (Max Wins'
    pairwise SVMs are read by DAGSVM, ADAG and ECOC with the ovo code)."""
    groups = {}
    for name in REGISTRY:
        trainer = trainer_of(name, options)
        if trainer:
            groups.setdefault(trainer, [trainer]).append(name)
    return [tuple(group) for group in groups.values()]


def shared_group() -> tuple:
    """The first of :func:`shared_groups` (Max Wins and its readers)."""
    return shared_groups()[0]


def scheme_groups(schemes, options=None) -> list:
    """``schemes`` grouped by shared training under ``options`` (``scheme_options``): a trainer
    with those of its readers that are run (when at least one is) first, then every other
    scheme alone, in the order of ``schemes``."""
    together = []
    for trainer, *readers in shared_groups(options):
        present = [r for r in readers if r in schemes]
        if trainer in schemes and present:
            together.append((trainer, *present))
    grouped = {s for group in together for s in group}
    return together + [(s,) for s in schemes if s not in grouped]


def _folded(name: str) -> str:
    """A name with case, spaces, hyphens and underscores folded away (``Max Wins`` = maxwins)."""
    return "".join(ch for ch in name.lower() if ch not in " -_")


def scheme_name(given) -> str | None:
    """The registry name of a scheme named by its name, label or alias in any case (None when
    ``given`` names no scheme)."""
    if not isinstance(given, str):
        return None
    names = {**{_folded(s.label): s.name for s in REGISTRY.values()},
             **{_folded(alias): name for alias, name in ALIASES.items()},
             **{name: name for name in REGISTRY}}
    return names.get(_folded(given))


def scheme_names_help() -> str:
    """Each scheme's name with its label and first alias, for ``--help`` and error messages."""
    return "; ".join(f"{s.name} ({', '.join((s.label,) + s.aliases[:1])})" for s in REGISTRY.values())
