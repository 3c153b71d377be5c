"""``format: hdf5``: a part is the group ``<group>/data`` (points) and ``<group>/target``
(labels) of one HDF5 file (the USPS ``usps.h5`` copy); the cut names the ``group``. Options:
``values`` (a fixed transform of the features) and the label options, as for ``text``."""

from .. import parsers


def read_part(part):
    """(X float64, y) of group ``part.cut['group']`` of the part's HDF5 file."""
    X, labels = parsers.read_hdf5_part(part.paths[0], part.cut, part.dataset)
    return parsers.finish(X, labels, part.options, part.dataset)
