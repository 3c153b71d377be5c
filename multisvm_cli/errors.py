"""The one exception type the command line turns into a one-line message and exit code 2."""


class MultisvmError(Exception):
    """A user error: bad config, missing or corrupt data, a model file from elsewhere.

    The message is one line saying what is wrong and how to fix it; the CLI prints it as
    ``error: <message>`` and exits with code 2, without a traceback.
    """
