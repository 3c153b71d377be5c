"""A model folder replaced whole: staged beside the target, then swapped in under a ``flock``.

:func:`write_folder` has the caller fill a staging folder next to the target, gives it and its
files the modes the user's umask asks for (``storage.file_mode`` / ``folder_mode``), then swaps
it into place while holding an exclusive ``flock`` on the parent folder (no lock file is left
behind): concurrent saves to one folder all succeed and the last one wins, a reader (who holds
the shared lock, :func:`folder_lock`) never sees half a model, and no staging or old folder
stays behind.  Only an absent path, an empty folder or a saved model is ever replaced.
"""

import fcntl
import glob
import os
import shutil
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path

from ..base.storage import file_mode, folder_mode
from .format import JSON_NAME, MANIFEST_NAME, ModelPathError


def is_model(path):
    """Whether the folder ``path`` holds a saved model (or what is left of one)."""
    return (path / JSON_NAME).is_file() or (path / MANIFEST_NAME).is_file()


def check_target(path, overwrite):
    """ModelPathError unless ``path`` is absent, an empty folder, or a saved model we may replace."""
    if not os.path.lexists(path):
        return
    if path.is_dir() and is_model(path):
        if not overwrite:
            raise ModelPathError(f"{path} exists; pass --force to replace it")
    elif not path.is_dir() or any(path.iterdir()):
        raise ModelPathError(f"{path} exists and is not a saved model; not overwriting it")


def write_folder(path, overwrite, fill):
    """Make the folder ``path`` anew: ``fill(staging)`` writes its files into a staging folder,
    which is then swapped in (see the module docstring)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Fail before any work; under a shared lock, so that another save's swap (rename the old
    # folder away, rename the new one in) is never seen half done. Checked again at the swap.
    with folder_lock(path.parent, exclusive=False):
        check_target(path, overwrite)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-", dir=path.parent))
    try:
        fill(staging)
        _follow_umask(staging)
        with folder_lock(path.parent, exclusive=True):
            check_target(path, overwrite)
            _swap(staging, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap(staging, path):
    """Rename an earlier model at ``path`` away, ``staging`` in its place, and remove the old one
    (under the exclusive lock, every old folder of this name is ours or left by a crashed save)."""
    old = None
    if path.is_dir() and is_model(path):
        old = path.parent / f".{path.name}.old-{uuid.uuid4().hex}"
        os.rename(path, old)
    try:
        os.replace(staging, path)  # also replaces an empty folder
    except OSError:
        if old is not None:
            os.rename(old, path)
        raise
    for stale in path.parent.glob(f".{glob.escape(path.name)}.old-*"):
        shutil.rmtree(stale, ignore_errors=True)


def _follow_umask(folder):
    """Give the staging folder and its files the modes the user's umask asks for (mkdtemp makes
    them 0700)."""
    for child in folder.iterdir():
        os.chmod(child, file_mode())
    os.chmod(folder, folder_mode())


@contextmanager
def folder_lock(folder, exclusive):
    """``flock`` on ``folder`` itself: exclusive for a save's swap, shared for a load.  A load
    from a folder it cannot open goes on unlocked."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        if exclusive:
            raise
        fd = None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock
