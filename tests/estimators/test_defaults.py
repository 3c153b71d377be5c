"""The options every scheme takes have their defaults declared once (estimators.defaults)."""

import inspect

import pytest

from multisvm_cli.estimators import defaults, registry
from multisvm_cli.estimators.options import SHARED

DECLARED = {"cache_size": defaults.CACHE_SIZE, "memory_mb": defaults.MEMORY_MB,
            "tol": defaults.TOL, "solver": defaults.SOLVER, "max_iter": defaults.MAX_ITER}


def test_every_shared_option_has_one_declared_default():
    assert set(DECLARED) == set(SHARED)


@pytest.mark.parametrize("scheme", registry.SCHEME_NAMES)
def test_every_schemes_signature_reads_the_declared_defaults(scheme):
    parameters = inspect.signature(registry.estimator(scheme)).parameters
    assert {name: parameters[name].default for name in DECLARED} == DECLARED
    assert registry.estimator(scheme)().get_params()["memory_mb"] == defaults.MEMORY_MB
