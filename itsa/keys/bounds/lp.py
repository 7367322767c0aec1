"""The Theorem-2 linear program for ``b*``, solved and then certified exactly.

docs/model.md §3 (a reading of the paper's garbled display, §6.5)::

    minimise   Σ_{(u,v) ∈ K \\ S̄} b_{u,v}
    subject to Σ_{(i,j) ∈ K \\ D_{u,m,n}} b_{i,j} >= 1   for every critical (u,m,n)
               0 <= b_{u,v} <= 1

The floating-point solution of HiGHS (through SciPy) or CBC (through pulp) is
turned into fractions and
then checked in exact arithmetic: primal feasibility, dual feasibility and
equal objectives. Only a checked pair is returned.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from itsa._util import display
from itsa._util.bitset import members, unpack
from itsa._util.checks import unknown
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable, Kind
from itsa._util.plain import frac, users
from itsa.exceptions import InvalidOption, VerificationError
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import Configurations
from itsa.typing import Config


class Solver(Kind):
    """The Theorem-2 LP's solvers: HiGHS (the default) and CBC (the ``crosscheck`` extra)."""

    HIGHS = "highs"
    CBC = "cbc"


LP_SOLVERS = tuple(Solver)


@dataclass(frozen=True)
class LPConstraint:
    """One distinct constraint ``Σ_{i ∈ users} b_i >= 1``.

    ``configurations`` lists every critical ``(u, m, n)`` (1-based) whose
    ``K \\ D_{u,m,n}`` equals ``users``. ``dual`` is its exact dual value,
    ``slack`` its exact slack at the primal solution (``None`` if infeasible).
    ``dominated`` says another constraint's users are a proper subset of these,
    so this one is implied by it.
    """

    users: int
    configurations: tuple[Config, ...]
    dual: Fraction | None = None
    slack: Fraction | None = None
    dominated: bool = False

    @property
    def binding(self) -> bool:
        """Tight at the certified optimum and not dominated by a smaller constraint."""
        return self.slack == 0 and not self.dominated


@dataclass(kw_only=True, frozen=True, repr=False)
class LPResult(Displayable):
    """The Theorem-2 LP with its exact certificate.

    When ``feasible`` is false, ``empty_constraint`` is a configuration whose
    constraint has no variable (``D_{u,m,n} = K``) and ``b_star`` is ``None``.
    """

    variables: tuple[int, ...]
    constraints: tuple[LPConstraint, ...]
    feasible: bool
    b: dict[int, Fraction] | None
    b_star: Fraction | None
    dual_objective: Fraction | None
    empty_constraint: Config | None = None
    solver: str = ""
    instance: Instance | None = field(default=None, compare=False, repr=False)   # for (u, v) in output

    def headline(self) -> str:
        if not self.feasible:
            where = "" if self.empty_constraint is None else f" (configuration {display.config(self.empty_constraint)} has D = K)"
            return "infeasible" + where
        return f"b* = {self.b_star}, primal = dual, certified in fractions"

    def rows(self) -> list[tuple[str, str]]:
        rows = [("solver", self.solver or "none"), ("constraints", str(len(self.constraints)))]
        if self.b is not None:
            inst = self.instance

            def name(i: int) -> str:
                return display.user(*inst.label(i)) if inst is not None else f"user bit {i}"
            rows.append(("b", ", ".join(f"{name(i)}: {v}" for i, v in self.b.items() if v) or "all 0"))
        return rows

    def to_dict(self) -> dict[str, Any]:
        """Plain data: ``b*``, the primal per user, the dual, every constraint (users as ``[u, v]``)."""
        inst = self.instance
        label = (lambda i: list(inst.label(i))) if inst is not None else (lambda i: i)
        members_of = (lambda m: users(inst, m)) if inst is not None else (lambda m: list(members(m)))
        return {
            "feasible": self.feasible,
            "b_star": frac(self.b_star),
            "b": None if self.b is None else [{"user": label(i), "value": frac(v)} for i, v in self.b.items()],
            "dual": None if not self.feasible else {
                "objective": frac(self.dual_objective), "y": [frac(c.dual) for c in self.constraints]},
            "empty_constraint": None if self.empty_constraint is None else list(self.empty_constraint),
            "solver": self.solver,
            "constraints": [{"users": members_of(c.users), "configurations": [list(x) for x in c.configurations],
                             "dual": frac(c.dual), "slack": frac(c.slack), "dominated": c.dominated,
                             "binding": c.binding} for c in self.constraints],
        }

    def check(self) -> None:
        """Re-check the certificate in exact arithmetic; raise if it fails."""
        if not self.feasible:
            return
        b = self.b
        if b is None:
            raise VerificationError("LP marked feasible has no primal solution")
        if any(not (0 <= b[i] <= 1) for i in self.variables):
            raise VerificationError("LP primal violates 0 <= b <= 1")
        for con in self.constraints:
            lhs = sum((b[i] for i in members(con.users)), Fraction(0))
            if lhs < 1 or lhs - 1 != con.slack:
                raise VerificationError(f"LP primal violates constraint {con.configurations[0]}")
            if con.dual is None or con.dual < 0:
                raise VerificationError("LP dual value is negative")
        dual_obj = _dual_objective(self.variables, self.constraints)
        primal_obj = sum((b[i] for i in self.variables), Fraction(0))
        if primal_obj != self.b_star or dual_obj != self.dual_objective or primal_obj != dual_obj:
            raise VerificationError(f"LP objectives disagree: primal {primal_obj}, dual {dual_obj}")


def theorem2_lp(conf: Configurations, solver: str = "highs", time_limit: float | Deadline | None = None) -> LPResult:
    """Build, solve and certify the Theorem-2 LP of an instance.

    Parameters
    ----------
    conf : Configurations
    solver : {"highs", "cbc"}
        HiGHS through SciPy (default) or CBC through pulp. Either answer is
        only a guess until :meth:`LPResult.check` certifies it in fractions.
    time_limit : float or Deadline, optional
        Seconds (CPU or wall-clock) for building and certifying the LP;
        past it :class:`~itsa.exceptions.TimeLimitReached`. None: no limit.

    Notes
    -----
    Paper Theorem 2 (Sec. III), one constraint per critical configuration
    from Lemma 2 (Sec. IV-C), ``b_{u,v}`` as defined in Sec. V-B; on Example 2
    (Sec. V-A) it gives the printed constraints of ``(1,8,21..23)`` and
    ``b* = 3/2``. docs/model.md §3 and §6.5.

    Examples
    --------
    >>> from itsa import configurations, examples
    >>> lp = theorem2_lp(configurations(examples.load("example-2")))
    >>> lp.b_star, lp.dual_objective
    (Fraction(3, 2), Fraction(3, 2))
    """
    inst = conf.instance
    variables = tuple(members(inst.full_mask & ~conf.S_bar))
    groups: dict[int, list[Config]] = {}
    crit = conf.critical
    for (u, m, n), words in zip(np.argwhere(crit), conf.D[crit]):
        rest = inst.full_mask & ~unpack(words)
        groups.setdefault(rest, []).append((int(u) + 1, int(m) + 1, int(n) + 1))
    clock = Deadline.of(time_limit)
    built = []
    for count, (mask, cfgs) in enumerate(sorted(groups.items())):     # quadratic in the groups: checked as it goes
        if count % 64 == 0:
            clock.check(f"the Theorem-2 LP's constraints ({count:,} of {len(groups):,})")
        built.append(LPConstraint(mask, tuple(cfgs), dominated=any(o != mask and o & mask == o for o in groups)))
    plain = tuple(built)
    empty = next((c.configurations[0] for c in plain if c.users == 0), None)
    if empty is not None:
        return LPResult(variables=variables, constraints=plain, feasible=False, b=None, b_star=None, dual_objective=None, empty_constraint=empty, instance=conf.instance)
    if not plain:   # no critical configuration: nothing to cover
        zero = {i: Fraction(0) for i in variables}
        return LPResult(variables=variables, constraints=(), feasible=True, b=zero, b_star=Fraction(0), dual_objective=Fraction(0), solver="none needed", instance=conf.instance)
    x, y = _solve_floats(variables, plain, solver)
    for den in (1, 2, 6, 12, 60, 420, 2520, 27720, 10**6):
        clock.check(f"certifying the Theorem-2 LP in fractions (denominator {den})")
        result = _exact(variables, plain, x, y, den, solver)
        if result is not None:
            return dataclasses.replace(result, instance=conf.instance)
    raise VerificationError("could not certify the LP solution in exact arithmetic")


def _solve_floats(variables, constraints, solver: str):
    """Float primal ``x`` (by variable) and duals ``y`` (by constraint)."""
    if solver == Solver.HIGHS:
        return _solve_highs(variables, constraints)
    if solver == Solver.CBC:
        return _solve_cbc(variables, constraints)
    raise InvalidOption(unknown("LP solver", solver, LP_SOLVERS))


def _solve_highs(variables, constraints):
    from scipy.optimize import linprog

    col = {i: j for j, i in enumerate(variables)}
    A = np.zeros((len(constraints), len(variables)))
    for r, con in enumerate(constraints):
        A[r, [col[i] for i in members(con.users)]] = -1.0
    res = linprog(np.ones(len(variables)), A_ub=A, b_ub=-np.ones(len(constraints)),
                  bounds=(0, 1), method="highs")
    if res.status != 0:
        raise VerificationError(f"the LP solver (HiGHS) returned status {res.status}: {res.message}")
    return dict(zip(variables, res.x.tolist())), (-res.ineqlin.marginals).tolist()


def _solve_cbc(variables, constraints):
    from itsa._util.extras import require

    pulp = require("pulp")

    prob = pulp.LpProblem("theorem2", pulp.LpMinimize)
    b = {i: pulp.LpVariable(f"b{i}", 0, 1) for i in variables}
    prob += pulp.lpSum(b.values()) if b else 0
    rows = []
    for con in constraints:
        row = pulp.lpSum(b[i] for i in members(con.users)) >= 1
        prob += row
        rows.append(row)
    status = prob.solve(pulp.PULP_CBC_CMD(msg=False))
    if pulp.LpStatus[status] != "Optimal":
        raise VerificationError(f"the LP solver (CBC) returned {pulp.LpStatus[status]}")
    return {i: float(v.value() or 0.0) for i, v in b.items()}, [float(r.pi or 0.0) for r in rows]


def _exact(variables, constraints, x, y, den, solver) -> LPResult | None:
    b = {i: min(Fraction(1), max(Fraction(0), Fraction(v).limit_denominator(den))) for i, v in x.items()}
    duals = [max(Fraction(0), Fraction(v).limit_denominator(den)) for v in y]
    cons = tuple(LPConstraint(c.users, c.configurations, d,
                              sum((b[i] for i in members(c.users)), Fraction(0)) - 1, c.dominated)
                 for c, d in zip(constraints, duals))
    primal_obj = sum(b.values(), Fraction(0))
    result = LPResult(variables=variables, constraints=cons, feasible=True, b=b, b_star=primal_obj, dual_objective=_dual_objective(variables, cons),
                      solver=f"{solver}, certified in fractions")
    try:
        result.check()
    except VerificationError:
        return None
    return result


def _dual_objective(variables, constraints) -> Fraction:
    """Objective of the dual at ``y`` = the constraints' duals, with the best ``z``.

    Dual of ``min 1·b, A b >= 1, 0 <= b <= 1``: ``max Σy - Σz`` subject to
    ``A^T y - z <= 1``, ``y, z >= 0``; for given ``y`` the best feasible ``z``
    is ``max(0, (A^T y)_i - 1)``, so any ``y >= 0`` gives a feasible dual.
    """
    load = {i: Fraction(0) for i in variables}
    for c in constraints:
        for i in members(c.users):
            load[i] += c.dual
    return (sum((c.dual for c in constraints), Fraction(0))
            - sum((max(Fraction(0), load[i] - 1) for i in variables), Fraction(0)))
