"""The checks of a config that need its datasets: do the split and the validation method fit
the data (every training part holds every class twice over, k no larger than a class, a test
part that is not empty), and can libsvm fit its polynomial kernels on the data's scale?

They run the protocol's own splitting code (:mod:`.splits`) on the labels alone, so whatever
would fail during a run fails here, before a run folder exists, as ``file:line: key: message``.
``multisvm validate`` runs them on the data it finds locally (no download); ``reproduce-table``
and ``train`` run them on the data they loaded, before anything is written.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.sparse as sp

from ...base.errors import one_line
from ...base.thread_warnings import caught
from ..splits import named_warnings, outer_index_folds, pooled, validation_index_splits

# libsvm multiplies and sums kernel values (its gradients, the decision values): past
# sqrt(float64 max) = 1.3e154 those overflow, so a kernel value may reach at most 1e150.
MAX_KERNEL_LOG10 = 150


def check_plan(plan, dataset) -> None:
    """ConfigError (naming the split, validation or kernels key) when ``plan``'s splits cannot
    be made on ``dataset``'s labels, or leave a training part with fewer than two classes, or
    a polynomial degree overflows on the scaled data (:func:`_check_polynomials`); warns when
    the data runs unscaled with column ranges far apart (``config.datasets.unscaled_ranges``)."""
    from .datasets import unscaled_ranges

    _check_polynomials(plan, dataset)
    if (ranges := unscaled_ranges(plan, dataset)) is not None:
        warnings.warn(ranges, UserWarning, stacklevel=2)
    for y_train in _training_labels(plan, dataset):
        _check_classes(plan, "split", y_train, "an outer fold's training part")
        if plan.validation["method"] == "given":
            continue
        try:
            with caught():  # dropped: the run shows them, once, with the dataset
                pieces = validation_index_splits(y_train, plan.validation)
        except ValueError as exc:
            raise plan.where["validation"].error(_reason(plan, exc)) from None
        for fit_rows, score_rows in pieces:
            _check_classes(plan, "validation", y_train[fit_rows], "a validation fit part")
            if len(score_rows) == 0:
                raise plan.where["validation"].error(f"{plan.name}: a validation part is empty")


def _check_polynomials(plan, dataset):
    """ConfigError at ``kernels`` when a polynomial kernel's largest value on the scaled data,
    bounded by Cauchy-Schwarz as (max |x|^2 + 1)^degree ((max |x|^2)^degree homogeneous),
    passes 10^MAX_KERNEL_LOG10: libsvm's fit would not be finite."""
    from ...data.scaling import make_scaler, resolve

    degrees = sorted({(p.degree, bool(p.homogeneous)) for p in plan.grid
                      if p.kernel == "polynomial"})
    if not degrees or dataset.card.kind == "text":
        return
    X, _ = pooled(dataset)
    Z = make_scaler(plan.scaling, dataset.card).fit(X).transform(X)
    norms = Z.multiply(Z).sum(axis=1) if sp.issparse(Z) else np.einsum("ij,ij->i", Z, Z)
    largest = float(np.max(norms))
    for degree, homogeneous in degrees:
        base = largest + (0.0 if homogeneous else 1.0)
        if base > 1 and degree * math.log10(base) > MAX_KERNEL_LOG10:
            form = "(x.y)" if homogeneous else "(x.y + 1)"
            raise plan.where["kernels"].error(
                f"{plan.name}: polynomial degree {degree} reaches {form}^{degree} = "
                f"1e{degree * math.log10(base):.0f} on the data (scaling "
                f"{resolve(plan.scaling, dataset.card)}, largest |x|^2 = {largest:.3g}), past "
                f"the 1e{MAX_KERNEL_LOG10} "
                f"libsvm can sum; use degree <= {int(MAX_KERNEL_LOG10 / math.log10(base))} or "
                f"scale the features")


def _training_labels(plan, dataset):
    """The labels of every outer fold's training part (the splitting code of a run)."""
    if plan.split["method"] == "standard":
        return [dataset.parts["train"][1]]
    _, y = pooled(dataset)
    try:
        with named_warnings(dataset.name):
            folds = outer_index_folds(y, plan.split)
    except ValueError as exc:
        raise plan.where["split"].error(_reason(plan, exc)) from None
    for _, test_rows in folds:
        if len(test_rows) == 0:
            raise plan.where["split"].error(f"{plan.name}: a test part is empty")
    return [y[train_rows] for train_rows, _ in folds]


def _check_classes(plan, key, labels, what):
    classes = np.unique(labels)
    if len(classes) < 2:
        raise plan.where[key].error(f"{plan.name}: {what} has {len(labels)} rows of "
                                    f"{len(classes)} class; a multiclass SVM needs at least two")


def _reason(plan, exc) -> str:
    return f"{plan.name}: {one_line(exc)}"
