"""The defaults of the options every scheme takes (:data:`.options.SHARED`), declared once.

Every estimator's constructor signature reads them (``memory_mb=MEMORY_MB``: scikit-learn's
``get_params`` and ``clone`` see plain keyword defaults), and the protocol reads them without
building an estimator (the budget a shared Gram matrix must fit: :data:`MEMORY_MB`).
"""

CACHE_SIZE = 200      # libsvm's kernel cache per binary SVM (MB), scikit-learn's SVC default
MEMORY_MB = 2048      # the budget of a fit's and a prediction's kernel blocks and Gram matrices (MB)
TOL = 1e-3            # the solvers' stopping tolerance (libsvm's -e)
SOLVER = "libsvm"     # the binary solver (:data:`.options.SOLVERS`)
MAX_ITER = "libsvm"   # libsvm's own bound on SMO iterations, max(10^7, 100 x rows)
