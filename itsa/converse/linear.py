"""Ingleton inequalities on the keys: the extra rows of the converse for *linear* keys.

When every key is a linear function of uniform symbols over a field, the
entropy of a set of keys is the dimension of a subspace (the span of their
rows), and four subspaces obey Ingleton's inequality, which entropy vectors
in general need not:

    I(A; B) <= I(A; B | C) + I(A; B | D) + I(C; D)

for any four sets ``A, B, C, D`` of keys (each a sum of subspaces). Added to
the keys LP (:func:`itsa.converse.problem.keys_problem`, whose rows hold for
every scheme) they give a bound for every scheme whose keys are linear (any
encoders).

:func:`ingleton_rows` lists them, for sets of at most ``max_size`` keys that
are pairwise disjoint, as rows of a reduced LP with origin
``("ingleton", A, B, C, D)``; the LP solver takes them as cutting planes (a
row joins the LP only when the current optimum violates it).
:func:`ingleton_form` rebuilds a row's form from its origin, which is all
the exact certificate check needs.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from fractions import Fraction
from itertools import combinations

from itsa.converse.lp import ReducedLP, Row, solve_float
from itsa.converse.problem import Form, build_problem, mutual_information

__all__ = ["ingleton_form", "ingleton_rows", "ingleton_cuts", "linear_converse"]


def ingleton_form(a: int, b: int, c: int, d: int) -> Form:
    """``I(A;B|C) + I(A;B|D) + I(C;D) - I(A;B)`` (``>= 0`` for subspaces), over variable-set masks.

    Examples
    --------
    Four generic lines in a plane (``h = 1`` per line, 2 for two or more):
    ``I(A;B|C) + I(A;B|D) + I(C;D) - I(A;B) = 1 + 1 + 0 - 0``.

    >>> form = ingleton_form(1, 2, 4, 8)
    >>> h = lambda m: min(2, bin(m).count("1"))
    >>> sum(w * h(m) for m, w in form.items())
    Fraction(2, 1)
    """
    out: Form = {}
    for part, sign in ((mutual_information(a, b, c), 1), (mutual_information(a, b, d), 1),
                       (mutual_information(c, d), 1), (mutual_information(a, b), -1)):
        for s, w in part.items():
            out[s] = out.get(s, Fraction(0)) + sign * w
    return {s: w for s, w in out.items() if w}


def _sets(keys: tuple[int, ...], max_size: int) -> list[int]:
    return [sum(1 << keys[i] for i in c) for r in range(1, max_size + 1)
            for c in combinations(range(len(keys)), r)]


def ingleton_rows(rlp: ReducedLP, max_size: int = 1) -> list[Row]:
    """Ingleton rows for pairwise disjoint sets of at most ``max_size`` keys, merged by orbit.

    Each unordered ``{A, B}`` and ``{C, D}`` once (the inequality is symmetric
    in ``A ↔ B`` and in ``C ↔ D``); rows that are trivial or repeat another in
    orbit coordinates are dropped.
    """
    keys = rlp.problem.keys
    sets = _sets(keys, max_size)
    seen: dict[tuple, Row] = {}
    for x, A in enumerate(sets):
        for B in sets[x + 1:]:
            if A & B:
                continue
            rest = [S for S in sets if not S & (A | B)]
            for y, C in enumerate(rest):
                for D in rest[y + 1:]:
                    if C & D:
                        continue
                    coefs = rlp.coords(ingleton_form(A, B, C, D).items())
                    key = tuple(sorted(coefs.items()))
                    if key and key not in seen:
                        seen[key] = Row(key, ">=", Fraction(0), ("ingleton", A, B, C, D))
    return list(seen.values())


def ingleton_cuts(rlp: ReducedLP, x, max_size: int = 2, limit: int = 500,
                  tol: float = 1e-7) -> list[Row]:
    """The Ingleton rows (sets of at most ``max_size`` keys) that the primal ``x`` violates most.

    ``x`` holds one value per LP column (orbit), as
    :class:`~itsa.converse.lp.FloatSolution` gives it. At most ``limit`` rows,
    most violated first; none when ``x`` satisfies them all (up to ``tol``).
    """
    keys = rlp.problem.keys
    sets = _sets(keys, max_size)
    memo: dict[int, float] = {}

    def h(m):
        v = memo.get(m)
        if v is None:
            o = rlp.orbit_of[rlp.closure(m)]
            v = memo[m] = float(x[o - 1]) if o else 0.0
        return v

    found = []
    for i, A in enumerate(sets):
        for B in sets[i + 1:]:
            if A & B:
                continue
            ab = h(A) + h(B) - h(A | B)
            if ab <= tol:
                continue                       # I(A;B) = 0: nothing to violate
            rest = [S for S in sets if not S & (A | B)]
            for j, C in enumerate(rest):
                iabc = h(A | C) + h(B | C) - h(A | B | C) - h(C)
                for D in rest[j + 1:]:
                    if C & D:
                        continue
                    v = (iabc + h(A | D) + h(B | D) - h(A | B | D) - h(D)
                         + h(C) + h(D) - h(C | D) - ab)
                    if v < -tol:
                        found.append((v, A, B, C, D))
    found.sort()
    out, seen = [], set()
    for _, A, B, C, D in found:
        coefs = tuple(sorted(rlp.coords(ingleton_form(A, B, C, D).items()).items()))
        if coefs not in seen:
            seen.add(coefs)
            out.append(Row(coefs, ">=", Fraction(0), ("ingleton", A, B, C, D)))
        if len(out) >= limit:
            break
    return out


def linear_converse(instance, time_limit: float | None = None, max_size: int = 2,
                    rounds: int = 20, progress=None, max_estimate: float | None = None):
    """The keys converse with Ingleton cuts: a certified bound for schemes with linear keys.

    Solves the keys LP, then adds the Ingleton rows its optimum violates
    (:func:`ingleton_cuts`) and solves again, until none is violated or
    ``rounds`` rounds; the last LP is certified exactly like any other. Its
    rows are valid for every scheme whose keys are linear, so the value is a
    lower bound for those; it is at least the keys bound. ``time_limit``,
    ``progress`` and ``max_estimate`` are those of :func:`itsa.converse.converse`.

    Returns
    -------
    ConverseBound
        ``method`` is ``"linear"``; ``sizes["ingleton_rows"]`` counts the cuts added.

    Examples
    --------
    >>> from itsa import examples
    >>> b = linear_converse(examples.load("audit/fractional-optimum"))
    >>> b.value, b.certified, b.method
    (Fraction(3, 2), True, 'linear')
    """
    from itsa._util.progress import Reporter
    from itsa.converse import check_size, solve_and_certify
    from itsa.converse.lp import reduce_problem

    check_size(instance, "linear")
    report = Reporter(progress, "linear")
    t0 = time.perf_counter()
    report("reduce")
    rlp = reduce_problem(dataclasses.replace(build_problem(instance, "keys"), method="linear"))
    rlp.sizes["ingleton_rows"] = 0
    return solve_and_certify(rlp, "linear", t0, report, time_limit=time_limit, max_estimate=max_estimate,
                             solver=functools.partial(_with_ingleton_cuts, max_size=max_size, rounds=rounds))


def _with_ingleton_cuts(rlp, *, time_limit=None, progress=None, max_size: int = 2, rounds: int = 20):
    """The float solve, then rounds of the Ingleton rows its optimum violates, added to ``rlp``."""
    t0 = time.perf_counter()
    sol = solve_float(rlp, time_limit=time_limit, progress=progress)
    for _ in range(rounds):
        cuts = ingleton_cuts(rlp, sol.x, max_size) if sol.status == "optimal" else []
        if not cuts:
            break
        rlp.rows += cuts
        rlp.sizes["ingleton_rows"] += len(cuts)
        left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if left is not None and left <= 0:
            return dataclasses.replace(sol, status="time limit reached between Ingleton rounds")
        sol = solve_float(rlp, time_limit=left, progress=progress)
    return dataclasses.replace(sol, seconds=time.perf_counter() - t0)
