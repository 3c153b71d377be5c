"""The multiclass SVM schemes as scikit-learn classifiers, and the naive Bayes baseline.

``SCHEMES`` maps the config's scheme names to the estimator classes.
"""

from .dag import DAGSVC
from .maxwins import MaxWinsSVC
from .ovr import OneVsRestSVC

SCHEMES = {"ovr": OneVsRestSVC, "maxwins": MaxWinsSVC, "dag": DAGSVC}

__all__ = ["SCHEMES", "OneVsRestSVC", "MaxWinsSVC", "DAGSVC"]
