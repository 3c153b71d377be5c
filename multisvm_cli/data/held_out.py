"""A dataset's second file: a test part (a config's ``test_path``, ``compare DATA TEST``) is
checked against its training part by one rule, for files and folders of documents alike.

- :func:`check_not_training`: the test part is not the training part itself (the same bytes,
  SHA-256 or a folder's tree digest): an estimate on it would be an estimate on the training
  points.
- :func:`matched_labels`: every class of the test part is one of the training part's (a
  classifier never predicts a class it was not trained on, so those points would count as
  errors without a word), compared as written; a test part's numbers are names where the
  training part's labels are names.

A csv test file's header is matched to the training file's by the rule a file to predict
follows against a model's columns (:func:`.csv_file.check_names`). Each is one
:class:`DatasetError` line naming the test file or folder.
"""

from __future__ import annotations

from pathlib import Path

from .errors import DatasetError

SHOWN = 5  # classes named in a message


def check_not_training(test, train, digests=None, what="file") -> None:
    """DatasetError when the test ``what`` (file or folder) ``test`` is ``train``, or holds
    what it holds: ``digests``, (the test part's, the training part's) SHA-256 or tree digest
    (None: the paths alone are compared, before either is read)."""
    if Path(test).resolve() == Path(train).resolve():
        same = f"is the training {what}"
    elif digests is not None and digests[0] == digests[1]:
        same = f"holds the same {'bytes' if what == 'file' else 'documents'} as the training " \
            f"{what} {train}"
    else:
        return
    raise DatasetError(f"{test}: the test {what} {same}; a test estimate needs points held out "
                       "of training")


def matched_labels(test, train, y_test, y_train, items="rows"):
    """``y_test`` as the training part's labels are kept (names where ``y_train`` holds names
    and ``y_test`` only numbers: a name ``1`` is the number ``1``); DatasetError naming the
    classes it has and ``y_train`` lacks, compared as written (``items``: what the parts hold,
    rows or documents)."""
    if y_train.dtype.kind == "U" and y_test.dtype.kind != "U":
        y_test = y_test.astype(str)
    missing = set(map(str, y_test.tolist())) - set(map(str, y_train.tolist()))
    if missing:
        names = sorted(missing)
        shown = ", ".join(names[:SHOWN]) + (", ..." if len(names) > SHOWN else "")
        raise DatasetError(f"{test}: class(es) {shown} have test {items} but no training "
                           f"{items} in {train}; add them there or remove them from the test "
                           f"{'file' if items == 'rows' else 'folder'}")
    return y_test
