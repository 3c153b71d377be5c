"""liblinear fits under threads give the same machines as one at a time (issue #33)."""

import warnings

import numpy as np
import pytest


# ---------------------------------------------------- 2. liblinear fits under threads reproduce

@pytest.mark.slow
@pytest.mark.usefixtures("no_network")
def test_liblinear_gives_the_same_machines_under_two_threads(mirror, data_home):
    """20 one-vs-rest liblinear fits two at a time: before the lock, every fit of three gave
    other weights (liblinear's coordinate order comes from the C library's global rand())."""
    from sklearn.exceptions import ConvergenceWarning

    from multisvm_cli import data
    from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
    from multisvm_cli.estimators import OneVsRestSVC

    news = data.load("20newsgroups", parts=["train"], mirror=mirror, data_home=data_home,
                     progress=False)
    docs, y = news.parts["train"]
    rows = np.concatenate([np.flatnonzero(y == g)[:60] for g in np.unique(y)])
    (X,) = fit_transform_parts(TextFeatures(), docs[rows]).matrices
    machines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(3):
            model = OneVsRestSVC(kernel="linear", solver="liblinear", C=1.0, n_jobs=2)
            machines.append(model.fit(X, y[rows]).machines_.to_arrays(""))
    assert len(machines[0]) >= 2
    for other in machines[1:]:
        assert other.keys() == machines[0].keys()
        for name, array in machines[0].items():
            assert np.asarray(other[name]).tobytes() == np.asarray(array).tobytes(), name
