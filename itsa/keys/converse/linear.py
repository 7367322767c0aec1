"""Ingleton inequalities on the keys: the extra rows of the converse for *linear* keys.

When every key is a linear function of uniform symbols over a field, the
entropy of a set of keys is the dimension of a subspace (the span of their
rows), and four subspaces obey Ingleton's inequality, which entropy vectors
in general need not:

    I(A; B) <= I(A; B | C) + I(A; B | D) + I(C; D)

for any four sets ``A, B, C, D`` of keys (each a sum of subspaces). Added to
the keys LP (:func:`itsa.keys.converse.problem.keys_problem`, whose rows hold for
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
from fractions import Fraction
from itertools import combinations

from itsa._util.deadline import Deadline
from itsa._util.progress import Reporter
from itsa.keys.converse.classes import GROUP_LEMMA, INGLETON, LINEAR_KEYS, ConverseClass
from itsa.keys.converse.lp import Origin, ReducedLP, Row, reduce_problem
from itsa.keys.converse.pipeline import check_size, solve_and_certify
from itsa.keys.converse.problem import ingleton_form, keys_problem
from itsa.keys.converse.solver import solve_float

__all__ = ["ingleton_form", "ingleton_rows", "ingleton_cuts", "linear_converse"]


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
                        seen[key] = Row(key, ">=", Fraction(0), (Origin.INGLETON, A, B, C, D))
    return list(seen.values())


def ingleton_cuts(rlp: ReducedLP, x, max_size: int = 2, limit: int = 500,
                  tol: float = 1e-7) -> list[Row]:
    """The Ingleton rows (sets of at most ``max_size`` keys) that the primal ``x`` violates most.

    ``x`` holds one value per LP column (orbit), as
    :class:`~itsa.keys.converse.solver.FloatSolution` gives it. At most ``limit`` rows,
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
            out.append(Row(coefs, ">=", Fraction(0), (Origin.INGLETON, A, B, C, D)))
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
    ``progress`` and ``max_estimate`` are those of :func:`itsa.keys.converse.converse`.

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
    check_size(instance, LINEAR)
    clock = Deadline(time_limit)
    report = Reporter(progress, LINEAR.name)
    report("reduce")
    rlp = reduce_problem(linear_problem(instance))
    rlp.sizes["ingleton_rows"] = 0
    return solve_and_certify(rlp, clock, report, max_estimate=max_estimate,
                             solver=functools.partial(_with_ingleton_cuts, max_size=max_size, rounds=rounds))


def linear_problem(instance):
    """The keys LP's problem, under the linear LP's name and lemmas (Ingleton rows come as cuts)."""
    return dataclasses.replace(keys_problem(instance), method=LINEAR.name, kind=LINEAR)


def _with_ingleton_cuts(rlp, *, time_limit=None, progress=None, max_size: int = 2, rounds: int = 20):
    """The float solve, then rounds of the Ingleton rows its optimum violates, added to ``rlp``."""
    clock = Deadline(time_limit)
    sol = solve_float(rlp, time_limit=time_limit, progress=progress)
    for _ in range(rounds):
        cuts = ingleton_cuts(rlp, sol.x, max_size) if sol.status == "optimal" else []
        if not cuts:
            break
        rlp.rows += cuts
        rlp.sizes["ingleton_rows"] += len(cuts)
        if clock.expired():
            return dataclasses.replace(sol, status="time limit reached between Ingleton rounds", timed_out=True)
        sol = solve_float(rlp, time_limit=clock.left(), progress=progress)
    return dataclasses.replace(sol, seconds=clock.elapsed())


#: The linear LP: the keys LP with Ingleton's inequality among the keys, as cutting planes.
LINEAR = ConverseClass(name="linear", builder=linear_problem, max_users=12, scope=LINEAR_KEYS,
                       description="key entropies with the general group lemma and Ingleton's inequality",
                       lemmas=(GROUP_LEMMA, INGLETON), runner=linear_converse, in_solve=False)
