"""Exact linear algebra over prime fields ``F_q``.

The verifier (:mod:`itsa.keys.schemes.verifier`) reduces every mutual information of a
linear scheme to ranks of stacked generator matrices (docs/model.md §7). This module computes those ranks exactly, with
python-flint's ``nmod_mat`` (FLINT, word-size moduli) as the fast backend and
``galois`` as a slower reference backend used by the benchmark.

Only prime fields are supported; :func:`field_problem` explains why a given
``q`` is rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import flint
import numpy as np

from itsa._util.checks import choice, is_whole, unknown
from itsa._util.display import Kind
from itsa.exceptions import InvalidInput, InvalidOption, excerpt


class Backend(Kind):
    """Rank backends: python-flint (the default) and galois (the slow reference)."""

    FLINT = "flint"
    GALOIS = "galois"


BACKENDS = tuple(Backend)

#: Largest supported modulus (exclusive): entries must fit a signed 64-bit
#: NumPy integer and a FLINT machine word.
MAX_FIELD = 1 << 63


def field_problem(q) -> str | None:
    """Why ``q`` cannot be used as the field size, or ``None`` if it can.

    Parameters
    ----------
    q : object
        Candidate field size.

    Returns
    -------
    str or None
        A one-line description of the problem.

    Examples
    --------
    >>> field_problem(7) is None
    True
    >>> field_problem(9)
    'field 9 = 3^2 is a prime power; only prime fields F_p are supported'
    >>> field_problem(6)
    'field 6 is not a prime'
    >>> field_problem([7])
    'field [7] is not an integer'
    """
    if not is_whole(q):
        return f"field {excerpt(q, 30)} is not an integer"
    return _int_field_problem(q)


def check_field(q, error: type[InvalidInput] = InvalidOption, prefix: str = "") -> None:
    """Raise ``error`` (default :class:`InvalidOption`) unless ``q`` is a supported prime field.

    The one check behind every ``field=`` parameter; :func:`field_problem`
    gives the reason as text without raising.

    Parameters
    ----------
    q : object
        Candidate field size.
    error : type
        The :class:`InvalidInput` subclass to raise: ``InvalidScheme`` for a
        field read from a scheme, ``InvalidOption`` for a parameter.
    prefix : str
        Put before the reason, e.g. ``"requested "``.

    Examples
    --------
    >>> check_field(7)
    >>> check_field(9)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: field 9 = 3^2 is a prime power; only prime fields F_p are supported
    """
    problem = field_problem(q)
    if problem:
        raise error(prefix + problem)


@lru_cache(maxsize=256)
def _int_field_problem(q: int) -> str | None:
    if q < 2:
        return f"field {q} is not a prime (need a prime q >= 2)"
    if q >= MAX_FIELD:
        return f"field {excerpt(q, 30)} is too large: only primes below 2^63 are supported"
    z = flint.fmpz(q)
    if z.is_prime():
        return None
    p, e = _perfect_prime_power(q)
    if p is not None:
        return f"field {q} = {p}^{e} is a prime power; only prime fields F_p are supported"
    return f"field {q} is not a prime"


def _perfect_prime_power(q: int) -> tuple[int | None, int]:
    import sympy

    pp = sympy.perfect_power(q)
    if pp:
        base, e = int(pp[0]), int(pp[1])
        f = sympy.factorint(base)
        if len(f) == 1:
            (p, k), = f.items()
            return int(p), e * int(k)
    return None, 0


def rank_flat(nrows: int, ncols: int, flat: Sequence[int], q: int,
              backend: str = "flint") -> int:
    """Rank over ``F_q`` of the ``nrows x ncols`` matrix given row-major.

    Parameters
    ----------
    nrows, ncols : int
    flat : sequence of int
        ``nrows * ncols`` entries, each in ``0..q-1``.
    q : int
        A prime below ``2^63``.
    backend : {"flint", "galois"}
        ``flint`` (``nmod_mat``, fast) or ``galois`` (reference).

    Examples
    --------
    >>> rank_flat(2, 3, [1, 2, 3, 2, 4, 6], 7)
    1
    >>> rank_flat(2, 3, [1, 2, 3, 2, 4, 6], 7, backend="galois")
    1
    """
    if nrows == 0 or ncols == 0:
        return 0
    if backend == Backend.FLINT:
        return flint.nmod_mat(nrows, ncols, flat, q).rank()
    if backend == Backend.GALOIS:
        gf = _galois_field(q)
        arr = np.asarray(flat, dtype=np.int64).reshape(nrows, ncols)
        return int(np.linalg.matrix_rank(gf(arr)))
    raise InvalidOption(unknown("rank backend", backend, BACKENDS))


def rank(matrix, q: int, backend: str = "flint") -> int:
    """Rank over ``F_q`` of a matrix (a 2-D array or a list of rows).

    Entries may be any integers; they are reduced mod ``q``.

    Examples
    --------
    >>> rank([[1, 1], [2, 2]], 3)
    1
    >>> rank([[1, 1], [1, -1]], 3)
    2
    """
    shape, flat = _flat(matrix, q, "rank")
    return rank_flat(*shape, flat, q, backend) if flat else 0


def _flat(matrix, q: int, who: str) -> tuple[tuple[int, int], list[int]]:
    """``(shape, entries mod q row-major)`` of a 2-D matrix; no entries for an empty one."""
    arr = np.asarray(matrix, dtype=object)
    if arr.size == 0:
        return (0, 0), []
    if arr.ndim != 2:
        raise InvalidOption(f"{who}: expected a 2-D matrix")
    return arr.shape, [int(x) % q for x in arr.ravel().tolist()]


def pivot_columns(matrix, q: int) -> list[int]:
    """The pivot columns of the reduced row echelon form of ``matrix`` over ``F_q``.

    Every row of ``matrix`` is a combination of the echelon rows, with
    coefficients its own entries in these columns.

    >>> pivot_columns([[1, 2, 0, 3], [2, 4, 0, 6], [0, 0, 1, 1]], 7)
    [0, 2]
    """
    (rows, cols), flat = _flat(matrix, q, "pivot_columns")
    if not flat:
        return []
    R, r = flint.nmod_mat(rows, cols, flat, q).rref()
    return [next(c for c in range(cols) if int(R[k, c])) for k in range(r)]


@lru_cache(maxsize=16)
def _galois_field(q: int):
    from itsa._util.extras import require

    return require("galois").GF(q)


class Matrices:
    """Matrices over ``F_q`` with the few operations the rank engine needs.

    One object per backend, so that the engine runs one algorithm and only
    the arithmetic changes: ``flint`` (``nmod_mat``; row subsets are formed
    by multiplying with a cached 0/1 selection matrix, which keeps Python-side
    entry conversion out of the inner loop) or ``galois`` (``FieldArray``,
    fancy indexing, ``np.linalg.matrix_rank``, ``null_space``).

    Examples
    --------
    >>> mt = Matrices(7)
    >>> G = mt.matrix([[1, 2, 3], [2, 4, 6], [0, 0, 1]])
    >>> mt.rank(mt.rows(G, (0, 1))), mt.rank(G)
    (1, 2)
    >>> N = mt.kernel(mt.rows(G, (0,)))     # columns span {x : x·(1,2,3) = 0}
    >>> mt.rank(mt.rows(N, (2,)))           # e_3 is not in span{(1,2,3)}
    1
    """

    def __init__(self, q: int, backend: str = "flint"):
        choice("rank backend", backend, BACKENDS)
        self.q, self.backend = q, backend
        self._sel: dict[tuple[tuple[int, ...], int], object] = {}
        self._gf = _galois_field(q) if backend == Backend.GALOIS else None

    def matrix(self, rows: Sequence[Sequence[int]]):
        """A matrix from rows of integers in ``0..q-1`` (at least one row)."""
        if self._gf is not None:
            return self._gf(np.asarray(rows, dtype=np.int64))
        return flint.nmod_mat([list(r) for r in rows], self.q)

    def _shape(self, M) -> tuple[int, int]:
        if self._gf is not None:
            return M.shape
        return M.nrows(), M.ncols()

    def rows(self, M, idx: tuple[int, ...], cache: bool = True):
        """The rows ``idx`` of ``M`` (in that order); ``cache`` keeps the selector."""
        if self._gf is not None:
            return M[list(idx)]
        n = self._shape(M)[0]
        key = (idx, n)
        sel = self._sel.get(key)
        if sel is None:
            sel = flint.nmod_mat(len(idx), n, self.q)
            for r, i in enumerate(idx):
                sel[r, i] = 1
            if cache:
                self._sel[key] = sel
        return sel * M

    def mul(self, M, N):
        """The product ``M · N``."""
        return M @ N if self._gf is not None else M * N

    def rank(self, M) -> int:
        r, c = self._shape(M)
        if r == 0 or c == 0:
            return 0
        if self._gf is not None:
            return int(np.linalg.matrix_rank(M))
        return M.rank()

    def kernel(self, M):
        """A matrix whose columns span the right null space ``{x : M x = 0}``.

        The map ``x -> x · kernel(M)`` has kernel exactly the row space of
        ``M`` (``null(M)^⊥ = rowspace(M)``), so for any rows ``B``,
        ``rank(B · kernel(M)) = rank[M; B] - rank M``. ``B`` a set of unit
        rows ``e_j`` makes ``B · kernel(M)`` a row subset: :meth:`rows`.
        """
        if self._gf is not None:
            return M.null_space().T
        return M.nullspace()[0]
