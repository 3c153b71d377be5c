"""The resume cache's side of a grid point: its key and the check of a stored result.
"""

from __future__ import annotations

from ...numbers import is_count, is_int, is_number


def point_key(dataset, plan, fold, point, scheme, options, seed):
    """What identifies a grid point's result in the resume cache: the software that computed
    it (multisvm and scikit-learn versions: libsvm comes with the latter), the data (the raw
    files' checksums), the protocol (split, fold, scaling, validation, seed) and the point."""
    key = {"versions": software_versions(), "dataset": dataset.name,
           "checksums": dict(sorted(dataset.checksums.items())),
           "split": plan.split, "fold": fold.index, "scaling": plan.scaling,
           "validation": plan.validation, "point": point.params(), "scheme": scheme,
           "options": options.get(scheme, {}), "seed": seed}
    if dataset.provenance:  # a local file: its size and how it was read count too
        from ...data.local import cache_identity

        key["local"] = cache_identity(dataset)
    return key


def software_versions() -> dict:
    """The versions a grid point's result depends on."""
    import sklearn

    from ... import __version__

    return {"multisvm": __version__, "scikit-learn": sklearn.__version__}


RESULT_COUNTS = ("n_errors", "n_validation")
RESULT_TIMES = ("fit_cpu", "fit_wall", "predict_wall")
RESULT_FIGURES = ("n_support_vectors", "kernel_evaluations", "size")


def check_point_result(result):
    """ValueError unless ``result`` is a grid point's result as :func:`score_points` makes it
    (the resume cache checks every stored entry with this before use; a bad one is redone)."""
    if not isinstance(result, dict):
        raise ValueError("a point result must be a mapping")
    counts = [result.get(key) for key in RESULT_COUNTS]
    if not all(is_int(c) for c in counts):
        raise ValueError("n_errors and n_validation must be integers")
    n_errors, n_validation = counts
    if not 0 <= n_errors <= n_validation or n_validation < 1:
        raise ValueError("need 0 <= n_errors <= n_validation and n_validation >= 1")
    for key in RESULT_TIMES + RESULT_FIGURES:
        value = result.get(key)
        if not is_number(value) or value < 0:
            raise ValueError(f"{key} must be a finite number >= 0")
    iterations = result.get("smo_iterations")  # absent in entries cached before it was kept
    if iterations is not None and not is_count(iterations):
        raise ValueError("smo_iterations must be an integer >= 0")
    if result.get("validation_error") != n_errors / n_validation:
        raise ValueError("validation_error must be n_errors / n_validation")
    if not isinstance(result.get("notes"), list) or not all(isinstance(n, str)
                                                           for n in result["notes"]):
        raise ValueError("notes must be a list of texts")
