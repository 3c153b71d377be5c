"""The one exception type the command line turns into a one-line message and exit code 2, and
the one rule that makes any message one line (:func:`one_line`)."""


class MultisvmError(Exception):
    """A user error: bad config, missing or corrupt data, a model file from elsewhere.

    The message is one line saying what is wrong and how to fix it; the CLI prints it as
    ``error: <message>`` and exits with code 2, without a traceback.
    """


def one_line(message) -> str:
    """``message`` (an exception, a warning's message, any text) on one line: its white space
    folded to single spaces; an exception without text gives its type's name."""
    text = " ".join(str(message).split())
    return text or (type(message).__name__ if isinstance(message, BaseException) else "")
