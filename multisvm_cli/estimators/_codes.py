"""Error-correcting output codes: the code matrices ECOCSVC trains its binary SVMs from.

A code is a (k classes x L columns) matrix of -1, 0, +1 (Dietterich & Bakiri 1995; Allwein,
Schapire & Singer 2000): column b is one binary problem, its +1 classes against its -1 classes,
the rows of classes marked 0 left out.  A valid code has in every column at least one +1 and
one -1 (else there is no problem to train), no two columns that are the same problem (equal,
or equal up to sign: the opposite column's machine is the same SVM with f negated; only the
papers' draw below allows opposite columns), and in every row at least one non-zero entry
(else the class is never seen); and, against the data's classes, one row per class and no two
rows equal (else their classes are never told apart).

The named codes, for k classes:

- ``ovr``: one column per class, that class +1, the others -1 (one column for two classes);
- ``ovo``: one column per pair (i, j), i < j, in LIBSVM's order: -1 for i, +1 for j, 0 else
  (the pairwise machines of Max Wins: f > 0 means j);
- ``exhaustive``: Dietterich & Bakiri's 2^(k-1) - 1 columns (class 0 always +1; row i >= 1 of
  column j is the bit k-1-i of j), at most MAX_EXHAUSTIVE_CLASSES classes;
- ``dense`` / ``sparse``: random codes as Allwein et al. draw them (section 6): int(k x
  ``code_size``) columns (scikit-learn's OutputCodeClassifier's count), capped at the number of
  distinct problems; entries +1 / -1 with probability 1/2 each (dense), or 0 with probability
  1/2 and +1 / -1 with 1/4 each (sparse); N_DRAWS valid matrices are drawn (seeded) and the one
  with the largest minimum distance between rows is kept, the distance between rows u and v
  being sum_b (1 - u_b v_b) / 2 (Allwein et al.'s generalised Hamming distance).  When there are
  few distinct problems (at most ENUMERATE_LIMIT), each draw takes L distinct columns of the
  enumerated set; otherwise columns are drawn at random and invalid matrices discarded.  A
  draw with two equal rows is discarded too (its classes could never be told apart), and a
  column count too small for k different rows (:func:`min_columns`) is refused before any
  draw (:func:`check_drawable`, which ``validate`` runs too);
- ``dense`` / ``sparse`` with ``code_size: allwein``: the papers' own draw (Allwein, Schapire &
  Singer 2000, section 6, p. 136; as Rifkin & Klautau 2004 replicated it, p. 119 and their note
  10): ceil(10 log2 k) columns (dense) or ceil(15 log2 k) (sparse), every entry drawn
  independently (+1 / -1 with 1/2 each; sparse: 0 with 1/2, +1 / -1 with 1/4 each), a column
  lacking a +1 or a -1 redrawn at once (Rifkin & Klautau's note 10: "columns not satisfying
  this constraint were thrown out immediately upon generation"); of N_DRAWS codes, those with
  a repeated column (equal: the papers' rule; two opposite columns, the same SVM negated, are
  allowed here only, as the papers allow them: dense codes of 6 classes could not be drawn
  otherwise) or an all-zero row are discarded, and the one with the largest minimum row
  distance (the papers' rho) is kept, the first on ties.  Where the column
  count reaches the number of distinct problems (dense k <= 5, sparse k <= 4) no draw can
  succeed; the code is then every distinct problem once (the complete code, or all sparse
  columns), in :func:`all_columns`' order.
"""

import math
from functools import lru_cache
from numbers import Real

import numpy as np

CODE_NAMES = ("ovr", "ovo", "dense", "sparse", "exhaustive")
RANDOM_CODES = ("dense", "sparse")  # the drawn codes: code_size and code_seed apply to these only
MAX_EXHAUSTIVE_CLASSES = 12  # 2047 columns
N_DRAWS = 10_000  # Allwein et al.'s random matrices
DRAW_BATCH = 500
ENUMERATE_LIMIT = 4096
CHECK_DRAW_COST = 40_000  # k^2 L of the codes check_drawable draws (about half a second)
ALLWEIN = "allwein"  # code_size: the papers' column count and draw
ALLWEIN_COLUMNS = {False: 10, True: 15}  # ceil(F log2 k) columns: dense F = 10, sparse F = 15


def check_code_size(name, value):
    """ValueError (one line) unless ``value`` is a number > 0 (columns = int(k x value)) or
    ``allwein`` (the papers' count and draw, see the module docstring)."""
    if value == ALLWEIN:
        return
    if isinstance(value, bool) or not isinstance(value, Real) or not (0 < value < math.inf):
        raise ValueError(f"{name} must be a number > 0 (columns = int(classes x {name})) or "
                         f"{ALLWEIN!r} (Allwein et al.'s ceil(10 log2 k) dense, ceil(15 log2 k) "
                         f"sparse columns), got {value!r}")


def check_code(name, value):
    """ValueError (one line) unless ``value`` is a code name or a valid explicit code matrix
    (see the module docstring; its number of rows is checked against the classes at fit)."""
    if isinstance(value, str):
        if value not in CODE_NAMES:
            raise ValueError(f"unknown {name} {value!r}; expected one of {', '.join(CODE_NAMES)} "
                             f"or a matrix of -1, 0, +1 with one row per class")
        return
    code_array(name, value)


def code_array(name, value):
    """An explicit code as an int8 (k, L) array; ValueError (one line) unless it is a list of
    at least two equal-length rows of -1, 0, +1 forming a valid code."""
    try:
        matrix = np.asarray(value)
    except (ValueError, TypeError):
        matrix = None
    if (matrix is None or matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 1
            or matrix.dtype.kind not in "iuf" or not np.isin(matrix, (-1, 0, 1)).all()):
        raise ValueError(f"{name} must be a code name or a matrix (a list of equal-length rows, "
                         f"one per class) of -1, 0 and +1, got {str(value)[:60]}")
    matrix = matrix.astype(np.int8)
    check_matrix(name, matrix)
    return matrix


def check_matrix(name, matrix, opposites=False):
    """ValueError (one line, 1-based positions) unless every column has a +1 and a -1, no two
    columns are equal or opposite (equal only with ``opposites``: the papers' draw, ``code_size:
    allwein``), and every row has a non-zero entry."""
    for b in range(matrix.shape[1]):
        if not ((matrix[:, b] > 0).any() and (matrix[:, b] < 0).any()):
            raise ValueError(f"{name} column {b + 1} is constant: every column needs a +1 and a "
                             f"-1 class (a binary problem)")
    canonical = matrix if opposites else canonical_columns(matrix)
    _, first, counts = np.unique(canonical, axis=1, return_index=True, return_counts=True)
    if (counts > 1).any():
        b = int(first[np.flatnonzero(counts > 1)[0]])
        twin = next(c for c in range(b + 1, matrix.shape[1])
                    if np.array_equal(canonical[:, c], canonical[:, b]))
        raise ValueError(f"{name} columns {b + 1} and {twin + 1} repeat one binary problem "
                         f"(equal or opposite columns); drop one")
    empty = np.flatnonzero(~matrix.any(axis=1))
    if len(empty):
        raise ValueError(f"{name} row {empty[0] + 1} has no non-zero entry: its class would "
                         f"never be trained on")


def canonical_columns(matrix):
    """The columns signed so that each one's first non-zero entry is +1 (equal or opposite
    columns become equal)."""
    first = matrix[np.argmax(matrix != 0, axis=0), np.arange(matrix.shape[1])]
    return matrix * np.where(first < 0, -1, 1).astype(matrix.dtype)


def check_code_classes(name, code, classes):
    """ValueError (one line) unless ``code`` fits data of the sorted ``classes``: an explicit
    matrix has one row per class, no two rows equal (their classes could never be told apart);
    ``exhaustive`` takes at most MAX_EXHAUSTIVE_CLASSES classes."""
    n_classes = len(classes)
    if isinstance(code, str):
        if code == "exhaustive" and n_classes > MAX_EXHAUSTIVE_CLASSES:
            raise ValueError(f"{name} exhaustive has 2^(k-1) - 1 columns: at most "
                             f"{MAX_EXHAUSTIVE_CLASSES} classes, the data has {n_classes}; use "
                             f"dense or sparse")
        return
    rows = len(code)
    if rows != n_classes:
        raise ValueError(f"{name} has {rows} rows but the data has {n_classes} classes: one row "
                         f"per class (in sorted label order)")
    matrix = np.asarray(code)
    for i in range(rows):
        twins = [j for j in range(i + 1, rows) if np.array_equal(matrix[i], matrix[j])]
        if twins:
            first, second = np.asarray(classes)[[i, twins[0]]].tolist()
            raise ValueError(f"{name} rows {i + 1} and {twins[0] + 1} are equal, so classes "
                             f"{first!r} and {second!r} could never be told apart; make every "
                             f"row differ")


def fixed_code(name, code):
    """ValueError when ``code`` is a matrix: its rows are the classes a classes sweep changes."""
    if not isinstance(code, str):
        raise ValueError(f"a classes sweep changes the classes, but {name} is a matrix with one "
                         f"row per class; use a named code (dense, sparse, ovr, ovo)")


def code_matrix(code, n_classes, code_size, seed):
    """The (n_classes, L) int8 code for ``code`` (a name or an explicit matrix; see the module
    docstring); ValueError (one line) when it does not fit ``n_classes``."""
    check_code_classes("code", code, np.arange(n_classes))
    if not isinstance(code, str):
        return code_array("code", code)
    if code == "ovr":
        return ovr_code(n_classes)
    if code == "ovo":
        return ovo_code(n_classes)
    if code == "exhaustive":
        return exhaustive_code(n_classes)
    check_drawable(code, code_size, n_classes)
    if code_size == ALLWEIN:
        return allwein_code(n_classes, code == "sparse", int(seed)).copy()
    return random_code(n_classes, max(1, int(n_classes * code_size)), code == "sparse",
                       int(seed)).copy()


def min_columns(k, sparse):
    """The fewest columns whose k rows can all differ: 2^L >= k (dense), 3^L - 1 >= k (sparse:
    no all-zero row)."""
    columns = 1
    while (3**columns - 1 if sparse else 2**columns) < k:
        columns += 1
    return columns


def n_code_columns(k, code_size, sparse):
    """The columns of a random code of k classes drawn with ``code_size`` (see the module
    docstring)."""
    if code_size == ALLWEIN:
        return allwein_columns(k, sparse)
    return min(max(1, int(k * code_size)), n_distinct_problems(k, sparse))


def check_drawable(code, code_size, k, seed=None):
    """ValueError (one line) when the random ``code`` (dense or sparse) of ``code_size`` has
    too few columns for k different rows (some classes would share a row, and one of them
    would never be predicted).  With a ``seed``, where the draw takes well under a second
    (k^2 L at most :data:`CHECK_DRAW_COST`: 26 classes of 39 columns take 0.35 s), the code
    is drawn too (cached, so the run reuses it): ``validate`` then refuses any code the fit
    would; a larger code that no draw can give different rows is refused by the fit."""
    sparse = code == "sparse"
    columns, needed = n_code_columns(k, code_size, sparse), min_columns(k, sparse)
    if columns < needed:
        least = math.ceil(needed / k * 1000) / 1000
        raise ValueError(f"code {code} with code_size {code_size} has {columns} column"
                         f"{'s' if columns > 1 else ''} for {k} classes, so some classes would "
                         f"share a row and never be told apart; {k} classes need at least "
                         f"{needed} columns: code_size >= {least:g}")
    if seed is not None and k * k * columns <= CHECK_DRAW_COST:
        code_matrix(code, k, code_size, seed)


def ovr_code(k):
    """One column per class (+1 for it, -1 for the others); one column [-1, +1] for two."""
    if k == 2:
        return np.array([[-1], [1]], dtype=np.int8)
    return (2 * np.eye(k) - 1).astype(np.int8)


def ovo_code(k):
    """One column per pair (i, j), i < j, in LIBSVM's order: -1 for i, +1 for j, 0 else."""
    i, j = np.triu_indices(k, k=1)
    code = np.zeros((k, len(i)), dtype=np.int8)
    code[i, np.arange(len(i))] = -1
    code[j, np.arange(len(i))] = 1
    return code


def exhaustive_code(k):
    """Dietterich & Bakiri's exhaustive code: column j = [+1, bits k-2 .. 0 of j as -1/+1]."""
    if k > MAX_EXHAUSTIVE_CLASSES:
        raise ValueError(f"code exhaustive takes at most {MAX_EXHAUSTIVE_CLASSES} classes, got {k}")
    j = np.arange(2 ** (k - 1) - 1)
    bits = (j[None, :] >> np.arange(k - 2, -1, -1)[:, None]) & 1
    return np.vstack([np.ones((1, len(j))), 2 * bits - 1]).astype(np.int8)


def n_distinct_problems(k, sparse):
    """How many distinct binary problems (columns up to sign) a k-class code can have: dense
    2^(k-1) - 1; sparse (3^k - 2^(k+1) + 1) / 2."""
    return (3**k - 2 ** (k + 1) + 1) // 2 if sparse else 2 ** (k - 1) - 1


def all_columns(k, sparse):
    """Every distinct problem as a column, (k, n_distinct_problems(k, sparse)), first non-zero +1."""
    values = (-1, 0, 1) if sparse else (-1, 1)
    grid = np.array(np.meshgrid(*[values] * k, indexing="ij")).reshape(k, -1)
    valid = (grid > 0).any(axis=0) & (grid < 0).any(axis=0)
    grid = canonical_columns(grid[:, valid])
    return np.unique(grid, axis=1).astype(np.int8)


@lru_cache(maxsize=64)
def random_code(k, n_columns, sparse, seed):
    """Allwein et al.'s random code (see the module docstring), cached (read-only)."""
    n_columns = min(n_columns, n_distinct_problems(k, sparse))
    rng = np.random.default_rng(seed)
    pool = all_columns(k, sparse) if n_distinct_problems(k, sparse) <= ENUMERATE_LIMIT else None
    return _best_of(lambda: _draw(rng, pool, k, n_columns, sparse), sparse, n_columns, k,
                    "try another code_size", opposites=False)


@lru_cache(maxsize=64)
def allwein_code(k, sparse, seed):
    """The papers' own random code (``code_size: allwein``, see the module docstring), cached
    (read-only)."""
    n_columns = allwein_columns(k, sparse)
    if n_columns == n_distinct_problems(k, sparse):
        code = all_columns(k, sparse)
        code.setflags(write=False)
        return code
    rng = np.random.default_rng(seed)
    return _best_of(lambda: _draw_entries(rng, k, n_columns, sparse), sparse, n_columns, k,
                    "use code_size: a number", opposites=True)


def allwein_columns(k, sparse):
    """ceil(10 log2 k) (dense) or ceil(15 log2 k) (sparse) columns, at most the number of
    distinct problems."""
    wanted = math.ceil(ALLWEIN_COLUMNS[sparse] * math.log2(k))
    return min(wanted, n_distinct_problems(k, sparse))


def _best_of(draw_batch, sparse, n_columns, k, advice, opposites):
    """Of N_DRAWS candidate codes (``draw_batch()`` gives DRAW_BATCH of them), the valid one
    (:func:`_valid`, no two rows equal) with the largest minimum row distance (the first on
    ties); ValueError when none is valid."""
    best, best_distance = None, -1.0
    for _ in range(N_DRAWS // DRAW_BATCH):
        draws = draw_batch()
        valid = _valid(draws, opposites)
        if not valid.any():
            continue
        draws = draws[valid]
        if sparse:  # dense rows differ where their distance is above 0
            draws = draws[_rows_differ(draws)]
            if not len(draws):
                continue
        smallest = min_row_distances(draws)
        if not sparse:
            draws, smallest = draws[smallest > 0], smallest[smallest > 0]
            if not len(draws):
                continue
        pick = int(np.argmax(smallest))
        if smallest[pick] > best_distance:
            best, best_distance = draws[pick], float(smallest[pick])
    if best is None:
        raise ValueError(f"no valid {'sparse' if sparse else 'dense'} code of {n_columns} columns "
                         f"for {k} classes (every column a problem once, every row different) "
                         f"in {N_DRAWS} draws; {advice}")
    best.setflags(write=False)
    return best


def min_row_distances(codes):
    """Each code's (batch, k, L) smallest distance between two rows, sum_b (1 - u_b v_b) / 2
    (Allwein et al.'s rho)."""
    rows = codes.astype(np.float32)
    distance = (codes.shape[2] - rows @ rows.transpose(0, 2, 1)) / 2
    k = codes.shape[1]
    distance[:, np.arange(k), np.arange(k)] = np.inf
    return distance.min(axis=(1, 2))


def _rows_differ(codes):
    """Which of the (batch, k, L) codes have no two equal rows (squared distance above 0; the
    row distance alone does not tell, as a 0 entry costs 1/2 against itself)."""
    rows = codes.astype(np.float32)
    norms = (rows * rows).sum(axis=2)
    squared = norms[:, :, None] + norms[:, None, :] - 2 * rows @ rows.transpose(0, 2, 1)
    k = codes.shape[1]
    squared[:, np.arange(k), np.arange(k)] = np.inf
    return squared.min(axis=(1, 2)) > 0


def _draw(rng, pool, k, n_columns, sparse):
    """DRAW_BATCH candidate codes (batch, k, n_columns)."""
    if pool is not None:
        keys = rng.random((DRAW_BATCH, pool.shape[1]))
        chosen = np.argpartition(keys, n_columns - 1, axis=1)[:, :n_columns]
        return pool.T[chosen].transpose(0, 2, 1)
    if sparse:
        return rng.choice(np.array([-1, 0, 0, 1], dtype=np.int8), size=(DRAW_BATCH, k, n_columns))
    return rng.choice(np.array([-1, 1], dtype=np.int8), size=(DRAW_BATCH, k, n_columns))


def _draw_entries(rng, k, n_columns, sparse):
    """DRAW_BATCH candidate codes (batch, k, n_columns) of independent entries (dense: +1 / -1
    with 1/2 each; sparse: 0 with 1/2, +1 / -1 with 1/4 each), each column lacking a +1 or a
    -1 redrawn until it has both."""
    values = np.array([-1, 0, 0, 1] if sparse else [-1, 1], dtype=np.int8)
    draws = values[rng.integers(len(values), size=(DRAW_BATCH, n_columns, k))]
    bad = ~((draws > 0).any(axis=2) & (draws < 0).any(axis=2))
    while bad.any():
        draws[bad] = values[rng.integers(len(values), size=(int(bad.sum()), k))]
        bad = ~((draws > 0).any(axis=2) & (draws < 0).any(axis=2))
    return draws.transpose(0, 2, 1)


def _valid(draws, opposites=False):
    """Which candidate codes are valid (see the module docstring); ``opposites``: two opposite
    columns are allowed (the papers' rule: no identical columns)."""
    has_both = ((draws > 0).any(axis=1) & (draws < 0).any(axis=1)).all(axis=1)
    rows_used = (draws != 0).any(axis=2).all(axis=1)
    columns = draws.astype(np.float32)
    dots = columns.transpose(0, 2, 1) @ columns  # (batch, L, L)
    dots = dots if opposites else np.abs(dots)
    nonzeros = (draws != 0).sum(axis=1).astype(np.float32)  # (batch, L)
    same = (dots == nonzeros[:, :, None]) & (dots == nonzeros[:, None, :])
    n_columns = draws.shape[2]
    same[:, np.arange(n_columns), np.arange(n_columns)] = False
    return has_both & rows_used & ~same.any(axis=(1, 2))
