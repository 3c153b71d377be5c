"""The data layer's user error."""

from ..base.errors import MultisvmError


class DatasetError(MultisvmError):
    """A dataset is unknown, missing, corrupt or badly described: a one-line message saying
    which file, where it was looked for, and how to get it."""
