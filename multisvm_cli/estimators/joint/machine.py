"""What the two all-together schemes share: one joint machine of k score functions.

Crammer & Singer (:mod:`.cs`) and Weston & Watkins (:mod:`.ww`) train all k class scores
f_m(x) = sum_i beta_im (k(x_i, x) + s) in one optimisation problem (Hsu & Lin 2002, sections
II.C and II.D), solved in the dual by :mod:`.decomposition.solver` (s = 1 for a formulation with Hsu &
Lin's regularized bias, else 0); with the linear kernel, the same dual is solved in the primal
weights instead, by :mod:`.linear` (liblinear's sequential dual method).  Prediction: the class
of highest score, ties to the lowest class index; ``decision_function`` returns the k scores
(for two classes, f_1 - f_0).

The machine is kept as a support-vector pool (:class:`._machines.Machines`, k "machines" = the
k score functions, bias b_m = sum_i beta_im or 0): the training rows with a non-zero dual row,
sorted by class then row, and their (n_pool, k) dual coefficients.  With the linear kernel it
predicts through its primal weights w_m = sum_i beta_im x_i (:class:`._primal.PrimalMachines`),
as the other schemes' linear machines do.

Table-1 figures: ``kernel_evaluations(X)`` = the pool size (every training row with a non-zero
dual row, each evaluated once per test point; linear kernel: k dot products, one per weight
vector); ``n_parameters_`` = the non-zero entries of the pooled rows + the non-zero dual
coefficients (+ k biases for a formulation with a bias; linear kernel: the non-zero weights
(+ k)); ``n_support_vectors_`` = the pool size; ``smo_iterations_`` = the solver's steps (one
example's sub-problem each); ``max_train_memory_`` = the kernel cache (or Gram matrix) + the
dual variables and their gradient + the training data as stored + the most that a Newton
step's temporaries held (its kernel blocks and KKT matrices,
:class:`.decomposition.newton.Peak`); linear kernel: :mod:`.linear`'s figure, the dual
variables, each row's class order, the weights and the rows as CSR.

Warm starts: a fit given a ``reuse`` store (the grid's, one per validation split, at ascending
C) starts from the store's last solve of the same problem at another C (its variables and
their gradient) and reads its kernel rows (:class:`..reuse.PathSlot`,
:func:`.decomposition.solver.solve_dual`'s ``path``); it reaches the cold fit's optimum within
tol.  Without a store (final fits, ``reuse_across_C: false``) every fit starts at beta = 0.
"""

import os
import time

import numpy as np
from sklearn.utils import check_random_state

from .._base import MulticlassSVM
from ..errors import NonFiniteSolution
from .._binary import BinaryFit
from .decomposition.solver import solve_dual
from .formulations import FORMULATIONS
from .._machines import Machines
from .._primal import PrimalMachines, load_machines

FLOAT, INT = np.dtype(np.float64), np.dtype(np.int64)
# One joint solve costs about this many rows^2 kernel products per class beyond the first:
# on Letter (gamma 4, C 16) C&S took 8-9x Max Wins' CPU time at 5,000 and 15,000 rows, where
# point_cost's Max Wins figure puts (k - 1) rows^2 at 5x and 11x.  W&W / C&S, CPU seconds of
# one fit on one BLAS thread (benchmarks/joint_references.py, 2026-11-26, docs/results/speed.md),
# since W&W's thinned row step and partner's row step (.loops): Letter's 5,000 rows 0.88, 0.89
# and 0.99 (3.30 / 3.75 s, 3.45 / 3.86, 3.49 / 3.53), its 15,000 rows 1.03 (21.4 / 20.7 s);
# satimage (gamma 1, C 16) 0.49 to 1.37 (0.41 / 0.84 s to 0.70 / 0.51).  A whole study, warm
# chains along C included, says 1.2 (Hsu & Lin's ten sets at d573b2d, every grid fit's CPU,
# docs/results/hsu-lin.md: Letter's grid 2,926 / 2,399 s = 1.22, the ten sets 4,268 / 3,617 =
# 1.18; C&S / Max Wins there: Letter 13.3 against the model's 13.0), and a study is what the
# ETA estimates: 1.2 is taken.  (1.0 from the single fits above until 2026-11-27.)
# LLW / C&S, CPU on one BLAS thread (2026-11-26, loaded machine): 0.9 to 150 over glass, vehicle,
# segment, vowel and Letter's first 2,000 rows at C 1 and 16; 8 is their geometric mean.
JOINT_COST = {"cs": 1.0, "ww": 1.2, "llw": 8.0}


def row_order_seed(random_state):
    """The seed of the primal path's row order: ``random_state`` itself (an int), a draw
    from it (a RandomState), or 0 for None (deterministic, as liblinear's unseeded rand())."""
    if random_state is None:
        return 0
    if isinstance(random_state, (int, np.integer)):
        return int(random_state) % 2**32
    return int(check_random_state(random_state).randint(2**31))


class JointSVM(MulticlassSVM):
    """Base of the all-together schemes (not used directly): ``_formulation`` names the dual
    (:data:`.formulations.FORMULATIONS`), :attr:`_bias` whether its scores carry Hsu & Lin's
    regularized bias.  The shared parameters are :class:`._base.MulticlassSVM`'s; ``solver``
    must stay 'libsvm' (the joint problem has its own solver; liblinear is refused), ``tol`` is
    the KKT tolerance of every example's row, ``max_iter`` bounds the solver's steps ("libsvm":
    max(10^7, 100 l)), ``memory_mb`` the largest K(X, X) the solver holds whole (as every
    scheme's training Gram matrix), ``cache_size`` its kernel-row cache in MB where K(X, X) is
    larger."""

    _formulation = None
    _shares_gram = False  # the protocol's shared Gram matrix is not worth it (one solve per C)
    _warm_starts = True  # with a reuse store, each solve starts from the last (module docstring)
    _solvers = ("libsvm",)  # its own joint solver; 'libsvm' names the default (no liblinear)

    @property
    def _bias(self):
        """Whether the scores carry Hsu & Lin's regularized bias b_m = sum_i beta_im: the
        formulation's Q = K + 1 (its ``shift``)."""
        return FORMULATIONS[self._formulation].shift != 0.0

    @staticmethod
    def _machine_bounds(n_classes):
        """One score function per class: the pool's k coefficient columns."""
        return n_classes, n_classes

    @classmethod
    def _point_cost(cls, n_rows, n_classes):
        """Expected relative cost of one fit, in experiment.progress.point_cost's units
        (rows^2 kernel products): JOINT_COST x (k - 1) x rows^2."""
        return JOINT_COST[cls._formulation] * (n_classes - 1) * float(n_rows) ** 2

    @classmethod
    def _array_schema(cls, params, n_classes, n_features, shapes):
        """name -> (dtype, shape) of every array ``_get_state`` saves (besides classes and
        feature names): the pool of P rows (``svm_vectors`` (P, d), or when trained on sparse
        input its CSR arrays), its coefficients as a CSC matrix of k columns (nnz <= P k), the
        k biases and the pool's classes."""
        try:
            n_pool = shapes.declared("svm_vectors")[0]
            vectors = {"svm_vectors": (FLOAT, (n_pool, n_features))}
        except (ValueError, KeyError):
            n_pool = shapes.length("svm_vectors_indptr", 1, np.inf) - 1
            nnz = shapes.length("svm_vectors_data", 0, n_pool * n_features)
            vectors = {"svm_vectors_data": (FLOAT, (nnz,)), "svm_vectors_indices": (INT, (nnz,)),
                       "svm_vectors_indptr": (INT, (n_pool + 1,)), "svm_vectors_shape": (INT, (2,))}
        nnz = shapes.length("svm_coef_data", 0, n_pool * n_classes)
        return {**vectors, "svm_coef_data": (FLOAT, (nnz,)), "svm_coef_indices": (INT, (nnz,)),
                "svm_coef_indptr": (INT, (n_classes + 1,)), "svm_intercept": (FLOAT, (n_classes,)),
                "svm_groups": (INT, (n_pool,))}

    def _check_scheme_params(self):
        super()._check_scheme_params()
        if self.solver != "libsvm":
            raise ValueError(f"{type(self).__name__} trains with its own all-together solver; "
                             f"solver {self.solver!r} does not apply (leave solver at 'libsvm')")

    def _solve(self, X, y_index, n_classes, settings):
        """The dual's :class:`.decomposition.solver.JointSolution`: with the linear kernel, solved in the
        primal weights (:mod:`.linear`); otherwise the kernel dual, started from the reuse
        store's last solve of the same problem when the fit has a store (warm starts)."""
        if settings.kernel.name == "linear":  # the primal path: numba loads here, not at import
            from .linear import solve_primal

            return solve_primal(X, y_index, n_classes, self._formulation, settings,
                                row_order_seed(self.random_state))
        path = None if settings.reuse is None else \
            settings.reuse.path(y_index, self._formulation, settings)
        return solve_dual(X, y_index, n_classes, self._formulation, settings, path=path)

    def _fit(self, X, y_index, settings):
        started = time.process_time()
        n_classes = len(self.classes_)
        solution = self._solve(X, y_index, n_classes, settings)
        beta = solution.beta
        if not np.isfinite(beta).all():
            raise NonFiniteSolution(f"{type(self).__name__}: the solver's result is not finite "
                                    f"(kernel {settings.kernel.label()}, C={settings.C:g}); "
                                    f"scale the features or lower C")
        pool = np.flatnonzero(np.any(beta != 0.0, axis=1))
        pool = pool[np.argsort(y_index[pool], kind="stable")]
        intercept = beta.sum(axis=0) if self._bias else np.zeros(n_classes)
        machines = Machines(settings.kernel, X[pool], beta[pool], intercept, y_index[pool])
        self.machines_ = PrimalMachines.from_pool(machines) if settings.kernel.name == "linear" \
            else machines
        return [BinaryFit(support=np.empty(0, np.intp), dual_coef=np.empty(0), intercept=0.0,
                          pid=os.getpid(), cpu_seconds=time.process_time() - started,
                          n_iter=solution.n_iter, train_memory=solution.memory)]

    def _scores(self, X):
        """The k scores f_m(x) (see the module docstring)."""
        return self.machines_.decision(X, self.memory_mb, self.n_jobs)

    def _kernel_evaluations(self, X):
        return self.machines_.full_evaluations

    def _n_parameters(self):
        biases = 0 if self._bias else len(self.classes_)  # Machines count k biases
        return self.machines_.n_parameters() - biases

    def _n_support_vectors(self):
        return self.machines_.n_pool

    def _set_state(self, meta, arrays, kernel):
        machines = load_machines(kernel, self.solver, arrays, "svm_", self.n_features_in_,
                                 len(self.classes_))
        if not self._bias and np.any(machines.intercept != 0.0):
            raise ValueError(f"svm_intercept must be zeros: {type(self).__name__} has no bias")
        self.machines_ = machines
