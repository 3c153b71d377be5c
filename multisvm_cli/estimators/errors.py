"""The errors of a fit that a caller tells apart by their type, not by their words."""


class NonFiniteSolution(ValueError):
    """A solver's result is not finite (libsvm's dual coefficients or intercept, the
    all-together solver's variables): kernel values too large for the data's scale.  A
    ValueError, as scikit-learn's ``SVC`` raises it; the protocol names the grid point
    (:class:`multisvm_cli.experiment.protocol.fitting.NonFiniteFit`)."""
