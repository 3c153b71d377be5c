"""The per-scheme result record, declared once: :class:`Result` (and its :class:`Split`).

A run's protocol (``experiment.protocol.pooling``) writes one :class:`Result` per dataset x
scheme; results.json's "results" keeps them (less ``correct``, ``points`` and
``dag_orders``), and the report modules read them back from there. The keys below are the
record's; the report table's rows are made from it by :func:`.table.table_rows`, their keys
being the columns of :data:`.columns.COLUMNS`.

The record stays a plain dict (results.json's format is the dict's), typed by these
declarations; a key the reports read by name is spelled once, here (:data:`ERROR_PCT`,
:data:`LABEL`), and tests/report/test_record.py checks a real run's records against them.

A scheme's label (its name in every table, figure and caption) is the record's ``label``,
written by the run from the scheme registry. :func:`label` is the one place the report layer
asks the registry for one: for a run folder saved before records carried it, and for the
schemes a report names without a record at hand (a paper's baseline, a ranking's pair).
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..estimators.registry import label as registry_label

ERROR_PCT = "error_pct"  # a split's, a sweep row's and the table's test error (%)
LABEL = "label"  # a result's scheme label, as the reports show it


class Split(TypedDict, total=False):
    """One split's test (outer fold of one repeat, or one random draw): results.json's
    ``splits`` entries."""

    repeat: int
    fold: int
    params: dict
    validation_error: float
    n_train: int
    n_test: int
    n_errors: int
    error_pct: float  # 100 n_errors / n_test (:func:`.columns.error_pct`)
    kernel_evaluations: float
    size: float
    n_support_vectors: float
    cpu_time: float
    max_train_memory_mb: float
    level1_accuracy: float
    level2_accuracy: float
    log_loss: float
    brier: float
    primal: bool


class Result(TypedDict, total=False):
    """One scheme's pooled result on one dataset (outer folds x repeats)."""

    dataset: str
    scheme: str
    label: str  # the registry's label when the run wrote it (:func:`label_of`)
    kernel: str  # the selected kernel's label, with "(n/N folds)" when the splits differ
    C: float | None  # None: a scheme without C (naive Bayes)
    params: dict
    selected: list  # each split's chosen params
    selections: list  # each split's {fold, params, validation_error, ties}
    ties: float
    smo_iterations: float | None
    validation_error: float
    n_errors: int
    n_test: int
    correct: Any  # bool per test point (not saved: McNemar's input)
    error_sd: float | None
    repeats: int
    splits: list  # of Split
    kernel_evaluations: float | None
    cpu_time: float
    size: float | None
    n_support_vectors: float | None
    selection_time: float
    evaluation_time: float
    notes: list
    max_train_memory_mb: float
    level1_accuracy: float
    level2_accuracy: float
    log_loss: float
    brier: float
    primal: bool
    balanced_accuracy: float  # where shown (report.balance): scikit-learn's, pooled test points
    macro_f1: float  # likewise
    reliability: dict  # the pooled reliability bins {count, confidence, right}
    dag_orders: dict  # the DAG order study (not saved in the result: results.json's own)
    points: list  # each split's test points (predictions.csv; not saved in results.json)
    estimate: str  # nested or cv-best
    cv_best: dict  # the cv-best estimate's {kernel, C, params, n_errors, n_test, error_pct, ties}
    bounded: bool  # a final fit stopped at libsvm's iteration bound
    draws: int  # a draws split's draws x repeats
    features: dict  # a text dataset's {vocabulary_size, mean_nonzeros}


RESULT_KEYS = frozenset(Result.__annotations__)
SPLIT_KEYS = frozenset(Split.__annotations__)


def label(scheme) -> str:
    """The registry's label of ``scheme`` (the name itself for a scheme it does not know, e.g.
    a paper's "Neural Net"): the fallback of a record without its own (:func:`label_of`)."""
    return registry_label(scheme)


def label_of(result) -> str:
    """A record's scheme label: its own ``label`` (what the run wrote), or, in a run folder
    saved before records carried one, the registry's (:func:`label`)."""
    return result.get(LABEL) or label(result["scheme"])


def labels(results) -> dict:
    """{scheme: label} of the records ``results`` (:func:`label_of`)."""
    return {r["scheme"]: label_of(r) for r in results}
