"""The multiclass SVM schemes as scikit-learn classifiers, and the naive Bayes baseline.

:data:`REGISTRY` (in :mod:`.registry`) declares every scheme; ``SCHEMES`` maps the config's
scheme names to the estimator classes.
"""

from .dag import DAGSVC
from .graph import GraphSVC
from .hier import HierSVC
from .maxwins import MaxWinsSVC
from .nb import NBClassifier
from .ovr import OneVsRestSVC
from .registry import REGISTRY, SCHEME_NAMES, SCHEMES, Scheme
from .udt import UDTSVC

__all__ = ["REGISTRY", "SCHEME_NAMES", "SCHEMES", "Scheme", "OneVsRestSVC", "MaxWinsSVC",
           "DAGSVC", "UDTSVC", "GraphSVC", "HierSVC", "NBClassifier"]
