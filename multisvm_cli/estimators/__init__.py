"""The multiclass SVM schemes as scikit-learn classifiers, and the naive Bayes baseline.

``SCHEMES`` maps the config's scheme names to the estimator classes.
"""

from .dag import DAGSVC
from .graph import GraphSVC
from .hier import HierSVC
from .maxwins import MaxWinsSVC
from .nb import NBClassifier
from .ovr import OneVsRestSVC
from .udt import UDTSVC

SCHEMES = {"ovr": OneVsRestSVC, "maxwins": MaxWinsSVC, "dag": DAGSVC, "udt": UDTSVC,
           "graph": GraphSVC, "hier": HierSVC, "nb": NBClassifier}

__all__ = ["SCHEMES", "OneVsRestSVC", "MaxWinsSVC", "DAGSVC", "UDTSVC", "GraphSVC", "HierSVC",
           "NBClassifier"]
