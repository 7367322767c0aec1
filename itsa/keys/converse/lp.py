"""From an :class:`~itsa.keys.converse.problem.EntropyProblem` to a reduced LP, solved in floats.

Two reductions keep the LP small, both exact (they change neither the optimum
nor the validity of a certificate):

1. **Closure.** ``H(A) = H(cl(A))``, where ``cl(A)`` adds every variable that
   the dependencies determine from ``A``. One column per *closed* set. The
   elemental inequality ``I(i; j | C) >= 0`` only needs closed ``C``: for
   any ``C``, ``I(i; j | C) = I(i; j | cl(C))`` or ``0``.
2. **Symmetry.** The problem's group maps feasible entropy vectors to
   feasible ones and fixes the objective, so averaging over the group shows
   that a symmetric optimum exists: one column per orbit of closed sets.
   Rows that coincide in orbit coordinates are merged.

Rows are generated from closed sets directly, never from all ``2^n`` subsets.
The float solve (:mod:`itsa.keys.converse.solver`) is only a *hint* for
:mod:`itsa.keys.converse.certificate`, which proves the bound exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from itsa._util.bitset import members
from itsa._util.display import Kind
from itsa.exceptions import ItsaError, VerificationError
from itsa.keys.converse.problem import EntropyProblem
from itsa.keys.converse.symmetry import permute_mask

#: Closed sets the reduction enumerates at the most (memory and time guard).
MAX_CLOSED_SETS = 400_000

class Origin(Kind):
    """Where an LP row comes from: the first entry of every :attr:`Row.origin`."""

    NONNEG = "nonneg"          # H(C) >= 0
    SHANNON = "shannon"        # I(i; j | C) >= 0, or H(i | everything else) >= 0
    INGLETON = "ingleton"      # Ingleton's inequality among four key sets (the linear LP)
    CONSTRAINT = "constraint"  # a constraint of the problem, by index


@dataclass(frozen=True)
class Row:
    """One LP row in orbit coordinates: ``Σ coef·h(orbit)  (sense)  rhs``.

    ``origin`` is ``("shannon", C, i, j)`` for ``I(i; j | C) >= 0`` (``j = -1``
    for ``H(i | everything else) >= 0``), ``("nonneg", C)`` for ``H(C) >= 0`` (given
    to the solver as a bound on the column, not as a row) or ``("constraint", index)``.
    """

    coefs: tuple[tuple[int, int | Fraction], ...]
    sense: str
    rhs: Fraction
    origin: tuple


@dataclass(kw_only=True)
class ReducedLP:
    """The reduced LP: columns are orbits of closed sets (the empty orbit is 0)."""

    problem: EntropyProblem
    closure: Callable[[int], int]             # cl(A); a Closure, or the identity without dependencies
    orbit_of: dict[int, int]                 # closed set -> orbit id (0 is cl(∅))
    representatives: list[int]               # orbit id -> one closed set
    orbit_sizes: list[int]
    rows: list[Row]
    objective: dict[int, Fraction]
    sizes: dict[str, int] = field(default_factory=dict)
    #: Rows held as arrays, not as :class:`Row` objects (:class:`itsa.keys.converse.lazy.ElementalRows`):
    #: given to the solver in bulk, and built as rows only when a certificate needs them.
    implicit: Any = field(default=None, repr=False)

    @property
    def n_columns(self) -> int:
        return len(self.representatives) - 1

    def orbit(self, closed: int) -> int:
        """The column (orbit id) of a closed set."""
        return self.orbit_of[closed]

    def check_structure(self) -> None:
        """Raise :class:`~itsa.exceptions.VerificationError` unless the reductions are sound.

        Checks that the symmetry generators map the problem to itself and that
        the columns are exactly the orbits of closed sets under them.
        """
        check_symmetry(self.problem, self.closure)
        check_orbits(self)

    def coords(self, form) -> dict[int, Fraction]:
        """A form over variable sets, in orbit coordinates (the empty orbit dropped)."""
        out: dict[int, Fraction] = {}
        for s, w in form:
            o = self.orbit(self.closure(s))
            if o:
                out[o] = out.get(o, Fraction(0)) + w
        return {o: w for o, w in out.items() if w}


class Closure:
    """``cl(A)`` under a problem's dependencies, memoised."""

    def __init__(self, problem: EntropyProblem):
        self.deps = [(d.lhs, d.rhs) for d in problem.dependencies]
        self.memo: dict[int, int] = {}

    def __call__(self, mask: int) -> int:
        hit = self.memo.get(mask)
        if hit is not None:
            return hit
        out, changed = mask, True
        while changed:
            changed = False
            for lhs, rhs in self.deps:
                if lhs & ~out == 0 and rhs & ~out:
                    out |= rhs
                    changed = True
        self.memo[mask] = out
        return out


def closed_sets(problem: EntropyProblem, closure: Closure) -> dict[int, dict[int, int]]:
    """Every closed set ``C`` with ``succ[C][i] = cl(C ∪ {i})`` for ``i ∉ C``."""
    full = (1 << problem.n) - 1
    start = closure(0)
    succ: dict[int, dict[int, int]] = {}
    todo = [start]
    while todo:
        C = todo.pop()
        if C in succ:
            continue
        succ[C] = nxt = {i: closure(C | 1 << i) for i in members(full & ~C)}
        if len(succ) > MAX_CLOSED_SETS:
            raise ItsaError(f"the converse LP has more than {MAX_CLOSED_SETS} closed sets")
        todo.extend(s for s in set(nxt.values()) if s not in succ)
    return succ


def orbits(closed: list[int], generators) -> dict[int, int]:
    """Orbit id of every closed set under the group the generators span."""
    parent = {c: c for c in closed}

    def find(c):
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c
    for g in generators:
        for c in closed:
            a, b = find(c), find(permute_mask(c, g))
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {c: find(c) for c in closed}


def reduce_problem(problem: EntropyProblem, symmetry: bool = True) -> ReducedLP:
    """Closed sets, orbits and rows of ``problem`` (module notes).

    With ``symmetry=False`` the problem's generators are dropped (so the exact
    check expects one column per closed set).
    """
    if not symmetry and problem.generators:
        from dataclasses import replace

        problem = replace(problem, generators=())
    closure = Closure(problem)
    succ = closed_sets(problem, closure)
    closed = sorted(succ, key=lambda c: (c.bit_count(), c))
    root = orbits(closed, problem.generators)
    ids: dict[int, int] = {closure(0): 0}
    reps, sizes_ = [closure(0)], [1]
    for c in closed:
        r = root[c]
        if r not in ids:
            ids[r] = len(reps)
            reps.append(c)
            sizes_.append(0)
        sizes_[ids[r]] += 1 if c != closure(0) else 0
    orbit_of = {c: ids[root[c]] for c in closed}
    rlp = ReducedLP(problem=problem, closure=closure, orbit_of=orbit_of, representatives=reps, orbit_sizes=sizes_, rows=[], objective={})
    rlp.rows = (_shannon_rows(problem, closure, succ, orbit_of) + constraint_rows(rlp)
                + [Row(((o, 1),), ">=", Fraction(0), (Origin.NONNEG, reps[o])) for o in range(1, len(reps))])
    rlp.objective = rlp.coords(problem.objective)
    n = problem.n
    rlp.sizes = {"variables": n, "columns_raw": (1 << n) - 1,
                 "rows_raw": n * (n - 1) * 2 ** (n - 3) + n if n >= 3 else n,
                 "columns_closure": len(closed) - 1, "columns": rlp.n_columns,
                 "rows": sum(r.origin[0] != Origin.NONNEG for r in rlp.rows), "group_generators": len(problem.generators)}
    return rlp


def _shannon_rows(problem: EntropyProblem, closure: Closure, succ, orbit_of) -> list[Row]:
    """Elemental inequalities over closed sets, merged in orbit coordinates."""
    full = (1 << problem.n) - 1
    seen: dict[tuple, Row] = {}

    def add(terms, origin):
        acc: dict[int, int] = {}
        for s, w in terms:
            o = orbit_of[s]
            if o:
                acc[o] = acc.get(o, 0) + w
        key = tuple(sorted((o, w) for o, w in acc.items() if w))
        if key and key not in seen:
            seen[key] = Row(key, ">=", Fraction(0), origin)

    for C, nxt in succ.items():
        firsts: dict[int, int] = {}
        for i, a in nxt.items():
            firsts.setdefault(a, i)
        ext = list(firsts.items())
        for x, (a, i) in enumerate(ext):
            for b, j in ext[x + 1:]:
                ab = succ[a].get(j, a)
                add(((a, 1), (b, 1), (ab, -1), (C, -1)), (Origin.SHANNON, C, i, j))
    for i in range(problem.n):
        rest = closure(full & ~(1 << i))
        if rest != full:
            add(((full, 1), (rest, -1)), (Origin.SHANNON, rest, i, -1))
    return list(seen.values())


def constraint_rows(rlp: ReducedLP) -> list[Row]:
    rows = []
    for idx, c in enumerate(rlp.problem.constraints):
        coefs = rlp.coords(c.form)
        if not coefs:
            if (c.sense == "=" and c.rhs != 0) or (c.sense == ">=" and c.rhs > 0):
                raise ItsaError(f"constraint '{c.reason}' is unsatisfiable")
            continue
        rows.append(Row(tuple(sorted(coefs.items())), c.sense, c.rhs, (Origin.CONSTRAINT, idx)))
    return rows


def check_orbits(rlp: ReducedLP) -> None:
    """Raise unless the LP's orbits are exactly those of the group the generators span."""
    closed = list(rlp.orbit_of)
    fresh = orbits(closed, rlp.problem.generators)
    pairs = {(rlp.orbit_of[c], fresh[c]) for c in closed}
    if len(pairs) != len({a for a, _ in pairs}) or len(pairs) != len({b for _, b in pairs}):
        raise VerificationError("the LP's orbits are not those of the symmetry group")


def check_symmetry(problem: EntropyProblem, closure) -> None:
    """Raise unless every generator maps dependencies, constraints and objective to themselves."""
    def closed(form):
        out: dict[int, Fraction] = {}
        for s, w in form:
            c = closure(s)
            if c:
                out[c] = out.get(c, Fraction(0)) + w
        return tuple(sorted((s, w) for s, w in out.items() if w))
    cons = {(closed(c.form), c.sense, c.rhs) for c in problem.constraints}
    for g in problem.generators:
        for d in problem.dependencies:
            if permute_mask(d.rhs, g) & ~closure(permute_mask(d.lhs, g)):
                raise VerificationError(f"symmetry {g} breaks the dependency '{d.reason}'")
        for c in problem.constraints:
            moved = closed((permute_mask(s, g), w) for s, w in c.form)
            if (moved, c.sense, c.rhs) not in cons:
                raise VerificationError(f"symmetry {g} breaks the constraint '{c.reason}'")
        if closed((permute_mask(s, g), w) for s, w in problem.objective) != closed(problem.objective):
            raise VerificationError(f"symmetry {g} moves the objective")
