"""The resume cache's contract: what identifies a grid point's result, and the check of a stored one."""

from __future__ import annotations

from ...base.numeric import is_count, is_int, is_number
from ..config.forms import written


def point_key(search, fold, point, scheme, chain=None):
    """What identifies a grid point's result in the resume cache (``search``: the
    :class:`.search.Search` whose plan scores the point, :meth:`.search.Search.scoring`): the
    software that computed it (multisvm and scikit-learn versions: libsvm comes with the
    latter; the digest of the package's source files, :func:`..code_digest.code_digest`, so an
    edited install computes afresh), the data (the raw files' checksums; a sweep's derived dataset adds the exact
    value and the drawn classes in their order), the protocol (split, fold, scaling,
    validation, seed), the point, the scheme's solver (written or default), whether its
    fits reused machines across C (equal within libsvm's tolerance, not bit for bit), for a
    scheme that warm-starts along C the ``chain`` of C values its solves started from
    (:func:`.chains.warm_chain`: a warm start reaches the optimum within tol, so the numbers
    depend on them), and for a user's classifier the SHA-256 of its modules' source files (an
    edited module computes afresh: :func:`..estimators.own.module_digests`)."""
    dataset, plan, options = search.dataset, search.plan, search.options
    key = {"versions": software_versions(), "dataset": dataset.name,
           "checksums": dict(sorted(dataset.checksums.items())),
           "split": written(plan.split), "fold": fold.index, "scaling": plan.scaling,
           "validation": written(plan.validation), "point": point.params(), "scheme": scheme,
           "options": options.get(scheme, {}), "seed": search.seed,
           "reuse_across_C": bool(search.reuse),
           "solver": scheme_solver(scheme, options)}
    if chain is not None:
        key["warm_chain"] = [float(C) for C in chain]
    if "target" in key["options"]:  # a user's classifier: its code is not multisvm's
        from ...estimators.own import module_digests

        key["modules"] = module_digests(key["options"]["target"], key["options"]["options"])
    if getattr(plan, "features", None) is not None:  # text: how documents became features
        key["features"] = [repr(plan.features), plan.scaling]
    if dataset.provenance.get("format") == "text-folder":  # the checksums are tree digests
        key["local"] = {"format": "text-folder", "encoding": dataset.provenance["encoding"]}
    elif dataset.provenance:  # a local file: its size and how it was read count too
        from ...data.local.files import cache_identity

        key["local"] = cache_identity(dataset)
    return key

def scheme_solver(scheme, options):
    """The binary solver ``scheme`` trains with under ``options``: its ``solver`` option, else
    libsvm; None for a kernel-free scheme (it has none)."""
    from ...estimators.registry import kernel_free

    if kernel_free(scheme):
        return None
    return options.get(scheme, {}).get("solver", "libsvm")

def software_versions() -> dict:
    """The versions a grid point's result depends on, with the digest of multisvm's own source
    files (an editable install's edits do not change its version)."""
    import sklearn

    from ... import __version__
    from ...base.code_digest import code_digest

    return {"multisvm": __version__, "scikit-learn": sklearn.__version__, "code": code_digest()}

RESULT_COUNTS = ("n_errors", "n_validation")

RESULT_TIMES = ("fit_cpu", "fit_wall", "predict_wall")

RESULT_FIGURES = ("n_support_vectors", "kernel_evaluations", "size")


def check_point_result(result, n_validation=None, figures=True):
    """ValueError unless ``result`` is a grid point's result as :func:`.fitting.score_points`
    makes it (the resume cache checks every stored entry with this before use; a bad one is
    redone).  ``n_validation``, when given, is the number of validation points the plan scores
    the point on: a stored entry that claims another count is refused.  ``figures``: whether
    the scheme defines Table 1's machine figures (else they must be null)."""
    if not isinstance(result, dict):
        raise ValueError("a point result must be a mapping")
    n_errors, n_points = (result.get(key) for key in RESULT_COUNTS)
    if not (is_int(n_errors) and is_int(n_points)):
        raise ValueError("n_errors and n_validation must be integers")
    if not 0 <= n_errors <= n_points or n_points < 1:
        raise ValueError("need 0 <= n_errors <= n_validation and n_validation >= 1")
    if n_validation is not None and n_points != n_validation:
        raise ValueError(f"n_validation is {n_points}, but the plan scores {n_validation} points")
    for key in RESULT_TIMES + RESULT_FIGURES:
        if key in RESULT_FIGURES and not figures:
            if key not in result or result[key] is not None:
                raise ValueError(f"{key} must be null (the scheme does not define it)")
        elif not (is_number(result.get(key)) and result[key] >= 0):
            raise ValueError(f"{key} must be a finite number >= 0")
    for key in ("smo_iterations", "n_reused_machines"):  # absent in entries cached before
        if result.get(key) is not None and not is_count(result[key]):
            raise ValueError(f"{key} must be an integer >= 0")
    if result.get("validation_error") != n_errors / n_points:
        raise ValueError("validation_error must be n_errors / n_validation")
    if not isinstance(result.get("notes"), list) or not all(isinstance(n, str)
                                                           for n in result["notes"]):
        raise ValueError("notes must be a list of texts")
