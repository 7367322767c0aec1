"""Exact certificates for converse LPs: a float dual turned into a checked proof.

A certificate is a list of rows of the reduced LP, each with a non-negative
rational weight (any sign for an equality), such that, **exactly**,

    Σ weight_r · form_r  =  objective        (as linear forms in entropies)

Then for every entropy vector the problem allows,
``objective = Σ weight_r · form_r >= Σ weight_r · rhs_r = value``.

:func:`check_certificate` rebuilds every row's form from its origin (an
elemental inequality or a constraint of the problem) through the closure and
the orbits, checks that the problem's symmetry generators map the problem to
itself, and adds up in :class:`~fractions.Fraction`. Nothing from the float
solver is trusted: a certificate that does not add up is rejected.

The float answer is turned into rationals in five ways, cheapest first:
rounding each dual weight to a small denominator; solving the square system
of the solver's optimal basis exactly (:func:`from_basis`); solving the normal equations of
the dual's support exactly by numeric iterative refinement (a sparse float LU,
exact integer residuals, then rational reconstruction), which gives the basic
dual when the support is independent; the same system by p-adic lifting in
python-flint (dense), when refinement does not converge; and, when the support
is not independent, elimination on every equation the support touches.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from itsa._util.deadline import Deadline
from itsa.exceptions import VerificationError
from itsa.keys.converse.classes import INGLETON
from itsa.keys.converse.lp import Origin, ReducedLP, Row
from itsa.keys.converse.problem import ingleton_form, mutual_information
from itsa.keys.converse.solver import FloatSolution

#: Float duals below this are taken as zero when the support is read off.
SUPPORT_TOL = 1e-7
#: Bits of the dual each refinement step adds, and the most steps (2,000 bits).
REFINE_BITS, REFINE_STEPS = 25, 80


@dataclass(frozen=True, repr=False)
class Certificate:
    """``objective >= value``: rows of the reduced LP and their exact weights."""

    value: Fraction
    weights: tuple[tuple[int, Fraction], ...]     # (row index, weight)

    @property
    def size(self) -> int:
        return len(self.weights)

    def __repr__(self) -> str:
        return f"<Certificate objective ≥ {self.value}: {self.size} rows with exact weights>"

def origin_form(rlp: ReducedLP, row: Row) -> tuple[tuple[int, Fraction], ...]:
    """A row's form over sets of variables, as its origin states it (before any reduction)."""
    kind = row.origin[0]
    if kind == Origin.NONNEG:
        return ((row.origin[1], Fraction(1)),)
    if kind == Origin.SHANNON:
        _, C, i, j = row.origin
        if j < 0:
            full = (1 << rlp.problem.n) - 1
            return ((full, Fraction(1)), (C, Fraction(-1)))
        return tuple(mutual_information(1 << i, 1 << j, C).items())
    if kind == Origin.INGLETON:
        return tuple(ingleton_form(*row.origin[1:]).items())
    if kind == Origin.CONSTRAINT:
        return rlp.problem.constraints[row.origin[1]].form
    raise VerificationError(f"a row of unknown origin {kind!r}")


def row_form(rlp: ReducedLP, row: Row) -> dict[int, Fraction]:
    """A row's form in orbit coordinates, rebuilt from its origin (not from the LP)."""
    return rlp.coords(origin_form(rlp, row))


def row_sense(rlp: ReducedLP, row: Row) -> tuple[str, Fraction]:
    """A row's sense and right side, taken from its origin (not from the LP)."""
    if row.origin[0] == Origin.CONSTRAINT:
        c = rlp.problem.constraints[row.origin[1]]
        return c.sense, c.rhs
    if row.origin[0] in (Origin.SHANNON, Origin.INGLETON, Origin.NONNEG):
        return ">=", Fraction(0)
    raise VerificationError(f"a row of unknown origin {row.origin[0]!r}")


def check_certificate(rlp: ReducedLP, cert: Certificate) -> None:
    """Raise :class:`VerificationError` unless ``cert`` proves ``objective >= value`` exactly.

    Nothing of the LP is trusted but the list of row origins: the symmetry
    generators are checked against the problem, the orbits are recomputed
    from them, and each row's form, sense and right side are rebuilt from
    its origin.
    """
    rlp.check_structure()
    ingleton_allowed = INGLETON in rlp.problem.lemmas
    total: dict[int, Fraction] = {}
    value = Fraction(0)
    for r, w in cert.weights:
        row = rlp.rows[r]
        if row.origin[0] == Origin.INGLETON and not ingleton_allowed:
            raise VerificationError(f"row {r} is Ingleton's inequality, which the "
                                    f"{rlp.problem.method} LP's scope does not allow")
        try:
            sense, rhs = row_sense(rlp, row)
            form = row_form(rlp, row)
        except (IndexError, KeyError, ValueError, TypeError) as exc:
            raise VerificationError(f"row {r}: its origin {row.origin!r} does not rebuild ({exc})") from None
        if sense == ">=" and w < 0:
            raise VerificationError(f"row {r} is an inequality with negative weight {w}")
        for o, c in form.items():
            total[o] = total.get(o, Fraction(0)) + w * c
        value += w * rhs
    total = {o: c for o, c in total.items() if c}
    if total != rlp.coords(rlp.problem.objective):
        raise VerificationError("the weighted rows do not add up to the objective")
    if value != cert.value:
        raise VerificationError(f"the rows give {value}, not the claimed {cert.value}")


def certify(rlp: ReducedLP, sol: FloatSolution, time_limit: float | None = None) -> Certificate | None:
    """An exact certificate recovered from a float solution, or ``None``.

    With ``time_limit`` (seconds), the exact solve on the dual's support is
    not started once it has run out.
    """
    clock = Deadline(time_limit)
    if abs(sol.value) <= SUPPORT_TOL:          # a zero bound: h(objective) >= 0 says it all
        zero = [k for k, r in enumerate(rlp.rows) if r.origin[0] == Origin.NONNEG
                and {r.coefs[0][0]: Fraction(1)} == rlp.coords(rlp.problem.objective)]
        cert = _checked(rlp, [(zero[0], Fraction(1))]) if zero else None
        if cert is not None:
            return cert
    support = [r for r, y in enumerate(sol.duals) if abs(y) > SUPPORT_TOL]
    forms = {r: row_form(rlp, rlp.rows[r]) for r in support}
    target = rlp.coords(rlp.problem.objective)
    for weights in _roundings(sol.duals, support):
        if _adds_up(rlp, forms, weights, target):
            return _checked(rlp, weights)
    if clock.expired():
        return None
    cert = from_basis(rlp, sol, clock)
    if cert is not None or clock.expired():
        return cert
    system = _support_system(rlp, support, forms)
    cert = _refined(rlp, support, forms, system, clock)
    if cert is None and not clock.expired():
        cert = _basis_solved(rlp, support, forms, system)
    if cert is None and not clock.expired():
        cert = _solved(rlp, support, forms)
    return cert


def _roundings(duals, support):
    """Rational guesses at the dual: whole numbers, then each weight's best approximation
    with denominator at most 10^3 and 10^5 (exact when the float error is below
    ``1/(2 q^2)``), then a few common denominators."""
    yield [(r, Fraction(round(duals[r]))) for r in support]
    for most in (10 ** 3, 10 ** 5):
        yield [(r, Fraction(float(duals[r])).limit_denominator(most)) for r in support]
    for den in (12, 60, 720, 5040):
        yield [(r, Fraction(round(duals[r] * den), den)) for r in support]


def _adds_up(rlp: ReducedLP, forms, weights, target) -> bool:
    """The cheap part of the check (signs and the sum), on forms computed once."""
    total: dict[int, Fraction] = {}
    for r, w in weights:
        if w < 0 and row_sense(rlp, rlp.rows[r])[0] == ">=":
            return False
        for o, c in forms[r].items():
            total[o] = total.get(o, Fraction(0)) + w * c
    return {o: c for o, c in total.items() if c} == target


def _checked(rlp: ReducedLP, weights) -> Certificate | None:
    """The certificate of ``weights`` if it passes :func:`check_certificate`."""
    weights = tuple((r, w) for r, w in weights if w)
    cert = Certificate(sum((w * row_sense(rlp, rlp.rows[r])[1] for r, w in weights), Fraction(0)),
                       weights)
    try:
        check_certificate(rlp, cert)
    except VerificationError:
        return None
    return cert


def _support_system(rlp: ReducedLP, support: list[int], forms):
    """:func:`_integer_system` of the dual's support on every column it or the objective touches
    (``None`` for an empty support)."""
    if not support:
        return None
    cols = sorted({o for r in support for o in forms[r]} | set(rlp.objective))
    return _integer_system(rlp, [forms[r] for r in support], cols)


def _integer_system(rlp: ReducedLP, forms: list[dict[int, Fraction]], cols):
    """``Σ_j y_j A_j = b`` in integers on the columns ``cols``: ``A_j`` is ``forms[j]`` times
    ``scale[j]`` (its entries outside ``cols`` dropped), ``b`` the objective times ``obj_scale``;
    a weight is ``y_j · scale[j] / obj_scale``.

    Returns ``(A, b, scale, obj_scale)``, ``A`` a sparse int64 matrix with a row per column of ``cols``.
    """
    import numpy as np
    from scipy.sparse import csc_matrix

    where = {o: k for k, o in enumerate(cols)}
    scale = [lcm(*(c.denominator for c in f.values())) if f else 1 for f in forms]
    data, ri, ci = [], [], []
    for j, f in enumerate(forms):
        for o, c in f.items():
            if o in where:
                data.append(int(c * scale[j]))
                ri.append(where[o])
                ci.append(j)
    A = csc_matrix((np.array(data, dtype=np.int64), (ri, ci)), shape=(len(cols), len(forms)))
    obj_scale = lcm(*(c.denominator for c in rlp.objective.values()))
    b = np.zeros(len(cols), dtype=np.int64)
    for o, c in rlp.objective.items():
        if o in where:
            b[where[o]] = int(c * obj_scale)
    return A, b, scale, obj_scale


def _weights(support, y, scale, obj_scale):
    return [(r, y_j * scale[j] / obj_scale) for j, (r, y_j) in enumerate(zip(support, y))]


def from_basis(rlp: ReducedLP, sol: FloatSolution, deadline: Deadline | None = None) -> Certificate | None:
    """The basic dual of the solver's optimal basis, solved exactly, as a certificate (or ``None``).

    With ``B`` the basis's nonbasic rows and ``J`` its basic columns (as many of
    each), the basic dual solves ``Σ_{r ∈ B} y_r A[r, j] = c_j`` for ``j ∈ J``: a
    square sparse system, solved by :func:`solve_exactly`, whose size is the
    basis's and whose conditioning is the basis's own (the normal equations of
    the dual's support square it). The weights of ``H(C) >= 0`` are the reduced
    costs ``c - Σ y_r A_r``, computed exactly; a negative one means the basis is
    not optimal in exact arithmetic, and ``None`` is returned.
    """
    basis = sol.basis
    if basis is None or not basis.rows or len(basis.rows) != len(basis.columns):
        return None
    rows = list(basis.rows)
    forms = [row_form(rlp, rlp.rows[r]) for r in rows]
    M, b, scale, obj_scale = _integer_system(rlp, forms, list(basis.columns))
    y = solve_exactly(M, [int(v) for v in b], deadline)
    if y is None:
        return None
    weights, reduced = [], dict(rlp.objective)
    for j, (r, y_j) in enumerate(zip(rows, y)):
        if y_j:
            w = y_j * scale[j] / obj_scale
            weights.append((r, w))
            for o, c in forms[j].items():
                reduced[o] = reduced.get(o, Fraction(0)) - w * c
    nonneg = {rlp.rows[k].coefs[0][0]: k for k in range(len(rlp.rows)) if rlp.rows[k].origin[0] == Origin.NONNEG}
    for o, d in reduced.items():
        if d < 0 or (d and o not in nonneg):
            return None
        if d:
            weights.append((nonneg[o], d))
    return _checked(rlp, weights)


def _refined(rlp: ReducedLP, support: list[int], forms, system,
             deadline: Deadline | None = None) -> Certificate | None:
    """The normal equations ``AᵀA y = Aᵀb`` of the dual's support, solved by :func:`solve_exactly`.

    Their solution is the basic dual when the support is independent; ``None``
    when ``AᵀA`` is singular, the solve fails or the weights do not add up.
    """
    from scipy.sparse import csr_matrix

    if system is None:
        return None
    A, b, scale, obj_scale = system
    y = solve_exactly(csr_matrix(A.T @ A), [int(v) for v in A.T @ b], deadline)
    if y is None:
        return None
    weights = _weights(support, y, scale, obj_scale)
    return _checked(rlp, weights) if _adds_up(rlp, forms, weights, rlp.coords(rlp.problem.objective)) else None


def solve_exactly(M, b: list[int], deadline: Deadline | None = None) -> list[Fraction] | None:
    """The rational solution of the square integer system ``M y = b``, checked exactly, or ``None``.

    Numeric iterative refinement (Wan's output-sensitive solver): a float LU of
    the sparse ``M`` gives ``REFINE_BITS`` more bits of ``y`` per step, and each
    step's residual is computed in exact integers, so the digits add up to
    ``y`` itself. After each step every entry is reconstructed with one common
    denominator; a guess that two steps in a row agree on is checked against
    ``M y = b`` in integers. ``None`` when the LU fails (``M`` singular), the
    residual grows, ``REFINE_STEPS`` pass or the ``deadline`` does.

    >>> from scipy.sparse import csr_matrix
    >>> solve_exactly(csr_matrix([[3, 1], [1, 2]]), [1, 0])
    [Fraction(2, 5), Fraction(-1, 5)]
    """
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.linalg import splu

    M = csr_matrix(M)
    try:
        lu = splu(M.astype(float).tocsc())
    except RuntimeError:                       # exactly singular
        return None
    ptr, idx, val = M.indptr.tolist(), M.indices.tolist(), [int(v) for v in M.data]
    rows = range(len(b))
    bound = max([sum(abs(v) for v in val[ptr[i]:ptr[i + 1]]) for i in rows] + [1])
    step, residual, digits, shift, last = 1 << REFINE_BITS, list(b), [0] * len(b), 0, None
    for _ in range(REFINE_STEPS):
        if deadline is not None and deadline.expired():
            return None
        z = lu.solve(np.array(residual, dtype=float)) * step
        if not np.isfinite(z).all():                     # numerically singular
            return None
        x = [int(v) for v in np.rint(z)]
        residual = [step * residual[i] - sum(val[t] * x[idx[t]] for t in range(ptr[i], ptr[i + 1]))
                    for i in rows]
        digits = [(d << REFINE_BITS) + v for d, v in zip(digits, x)]
        shift += REFINE_BITS
        if max(map(abs, residual), default=0) > 4 * bound:   # diverging: LU not accurate enough
            return None
        y = _reconstruct(digits, shift)
        if y == last and _solves(ptr, idx, val, y, b):
            return y
        last = y
    return None


def _solves(ptr, idx, val, y: list[Fraction], b: list[int]) -> bool:
    """Whether ``M y = b`` exactly (``M`` in CSR parts), in integers over ``y``'s common denominator."""
    den = lcm(*(f.denominator for f in y)) if y else 1
    num = [f.numerator * (den // f.denominator) for f in y]
    return all(sum(val[t] * num[idx[t]] for t in range(ptr[i], ptr[i + 1])) == b[i] * den
               for i in range(len(b)))


def _reconstruct(digits: list[int], shift: int) -> list[Fraction]:
    """Rationals with one common denominator near ``digits / 2^shift``.

    Each is the best approximation with denominator below ``2^(shift/2 - 4)``
    over the common denominator of those before it (the standard vector
    reconstruction); a guess only, checked by the caller.
    """
    most = 1 << max(1, shift // 2 - 4)
    den, out = 1, []
    for d in digits:
        f = Fraction(d * den, 1 << shift).limit_denominator(max(1, most // den))
        out.append(f / den)
        den *= f.denominator
    return out


def _basis_solved(rlp: ReducedLP, support: list[int], forms, system) -> Certificate | None:
    """Solve ``Σ_r y_r form_r = objective`` on the dual's support by its normal equations.

    The support of an optimal basic dual is linearly independent, so the
    consistent system ``A y = c`` (one equation per column) has a unique
    solution, which is also that of the square system ``AᵀA y = Aᵀc``. ``AᵀA``
    is formed in integers (dense) and solved exactly by p-adic lifting
    (python-flint, Dixon); :func:`_checked` then checks every equation and
    every sign. ``None`` when ``AᵀA`` is singular (the support is not
    independent), and the caller falls back to :func:`_solved`.
    """
    import flint

    if system is None:
        return None
    A, b, scale, obj_scale = system
    normal = (A.T @ A).toarray()
    rhs = A.T @ b
    try:
        X = flint.fmpq_mat(flint.fmpz_mat(normal.tolist())).solve(
            flint.fmpq_mat(flint.fmpz_mat([[int(v)] for v in rhs])), "dixon")
    except ZeroDivisionError:
        return None
    y = [Fraction(int(X[j, 0].p), int(X[j, 0].q)) for j in range(len(support))]
    return _checked(rlp, _weights(support, y, scale, obj_scale))


def _solved(rlp: ReducedLP, support: list[int], forms) -> Certificate | None:
    """Solve ``Σ y_r form_r = objective`` on the support exactly; keep a basic solution.

    Fraction-free elimination over the integers (python-flint ``fmpz_mat``):
    each column is scaled to integers, and a pivot row ``i`` of the reduced
    echelon form gives ``y = R[i, last] / (den · scale)``.
    """
    import flint

    cols = sorted({o for r in support for o in forms[r]} | set(rlp.objective))
    where = {o: k for k, o in enumerate(cols)}
    n = len(support)
    scale = [lcm(*(c.denominator for c in forms[r].values())) for r in support]
    rows = [[0] * (n + 1) for _ in cols]
    for j, r in enumerate(support):
        for o, c in forms[r].items():
            rows[where[o]][j] = int(c * scale[j])
    obj_scale = lcm(*(c.denominator for c in rlp.objective.values()))
    for o, c in rlp.objective.items():
        rows[where[o]][n] = int(c * obj_scale)
    reduced, den, rank = flint.fmpz_mat(rows).rref()
    R = reduced.tolist()
    weights = []
    for i in range(rank):
        lead = next(j for j, v in enumerate(R[i]) if v != 0)
        if lead == n:
            return None                                   # inconsistent
        y = Fraction(int(R[i][n]), int(den)) * scale[lead] / obj_scale
        weights.append((support[lead], y))
    return _checked(rlp, weights)
