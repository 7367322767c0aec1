"""The stages every converse LP shares after its reduction: the budget, the float solve, the certificate.

:func:`solve_and_certify` turns a reduced LP into a :class:`ConverseBound`;
:func:`check_size` refuses an instance beyond an LP's size limit before any work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from itsa._util.deadline import DEFAULT_TIME_LIMIT, Deadline
from itsa._util.display import Displayable, Kind
from itsa.exceptions import InvalidInstance
from itsa.keys.bounds.corrected import EVERY_SCHEME, CorrectedBound
from itsa.keys.converse.certificate import Certificate, certify
from itsa.keys.converse.classes import ConverseClass
from itsa.keys.converse.lazy import MAX_LAZY_USERS
from itsa.keys.converse.lp import ReducedLP
from itsa.keys.converse.orbit import orbit_count
from itsa.keys.converse.problem import KEYS
from itsa.keys.converse.solver import solve_float
from itsa.keys.model.instance import Instance

#: Largest K of the keys LP without symmetry with its rows built as objects; past it,
#: up to :data:`itsa.keys.converse.lazy.MAX_LAZY_USERS`, its elemental rows are held as arrays.
PLAIN_MAX_USERS = 12
#: Seconds per (column × row) of the reduced LP for the float solve and the exact
#: certificate together, on 2 shared cores. Fitted with the solver before HiGHS's basis
#: was kept (benchmarks/bench_converse.py: 1.2e-7 to 6.4e-7 on model and keys LPs of
#: 10^6 to 2·10^8 column-rows). With it, ``python benchmarks/bench_certify.py`` measures
#: 5e-8 on the asymmetric K = 12 keys LP (alone) and 1.2e-7 to 1.6e-7 at K = 13 and 14
#: (cores shared): the estimate can now err on the long side for LPs like the first.
SECONDS_PER_CELL = 1e-7

#: The same for the first round of an LP solved by separation, on its chain rows'
#: columns and rows (``python benchmarks/bench_certify.py --sizes 13,14,15,16``: 6 s for
#: 10,817 × 70,336 at K = 16).
SECONDS_PER_SEEDED_CELL = 1e-8

#: The scope of a bound whose problem was built by hand, not by a registered LP.
HAND_BUILT = "the entropy vectors that meet the problem's own constraints (a problem built by hand)"

__all__ = ["Outcome", "ConverseBound", "estimate_seconds", "check_size", "solve_and_certify",
           "DEFAULT_TIME_LIMIT", "PLAIN_MAX_USERS", "SECONDS_PER_CELL", "SECONDS_PER_SEEDED_CELL"]


class Outcome(Kind):
    """How a converse run ended: the machine-readable kind beside its prose ``status``."""

    CERTIFIED = "certified"                  # the bound is proved: its certificate checked exactly
    CUT = "cut"                              # the time limit stopped it
    SKIPPED = "skipped"                      # not solved: the estimate exceeded what was left
    SOLVER_FAILED = "solver-failed"          # the float solver gave no optimum
    NOT_CHECKED = "certificate-failed"       # the certificate did not check: no bound is claimed
    REFUSED = "refused"                      # not run: the instance is beyond the LP's size limit
    NOT_RUN = "not-run"                      # not run: no time was left for it


@dataclass(frozen=True, repr=False, kw_only=True)
class ConverseBound(Displayable):
    """``R_ZΣ >= value`` for the schemes of ``scope``, proved by the converse LP ``method``.

    ``certified`` is true only when ``certificate`` re-checked exactly; then
    ``value`` is the proved bound. Otherwise ``value`` is ``None`` and
    ``status`` says what failed (the float solver, or the certificate).
    ``float_value`` is the solver's own answer, for the record only.
    """

    method: str
    value: Fraction | None
    certified: bool
    status: str
    float_value: float | None
    sizes: dict
    seconds: dict
    certificate: Certificate | None = None
    lp: ReducedLP | None = field(default=None, repr=False, compare=False)
    primal: tuple[float, ...] = field(default=(), repr=False, compare=False)
    estimate: float | None = field(default=None, compare=False)
    kind: ConverseClass | None = field(default=None, compare=False)   # the LP's entry
    outcome: Outcome = Outcome.CERTIFIED
    #: The best bound proved without this LP when it was cut (:func:`itsa.keys.converse.converse` sets it).
    fallback: CorrectedBound | None = field(default=None, compare=False)
    #: Why ``value`` is the optimum of a relaxation of the LP (some of its rows left out), or
    #: ``None``: the LP's own optimum. A relaxation's bound is proved all the same; the LP's may be higher.
    relaxed: str | None = None

    @property
    def cut(self) -> bool:
        """Whether the time budget stopped the run (``status`` says where) or skipped it."""
        return self.outcome in (Outcome.CUT, Outcome.SKIPPED)

    def key_entropies(self, max_size: int = 2) -> dict[int, Fraction]:
        """``h(Z_A)`` at the LP's optimum for user sets ``A`` of at most ``max_size`` users.

        A hint for scheme search, read off the float primal (rounded to a small
        denominator): no part of any proof.
        """
        if self.lp is None or not self.primal:
            return {}
        from itertools import combinations

        keys = self.lp.problem.keys
        out = {}
        for size in range(1, max_size + 1):
            for users in combinations(range(len(keys)), size):
                A = sum(1 << i for i in users)
                o = self.lp.orbit(self.lp.closure(sum(1 << keys[i] for i in users)))
                out[A] = Fraction(self.primal[o - 1] if o else 0.0).limit_denominator(24)
        return out

    def headline(self) -> str:
        if self.certified:
            return f"R_ZΣ ≥ {self.value} ({self.method} LP, certified)"
        return f"no bound ({self.method} LP: {self.status})"

    def rows(self) -> list[tuple[str, str]]:
        description = self.kind.description if self.kind is not None else "built by hand"
        rows = [("LP", f"{self.method}: {description}"),
                ("holds for", self.scope), ("status", self.status)]
        if self.certified and self.certificate is not None:
            rows.append(("certificate", f"{self.certificate.size} rows, checked exactly"))
        if self.sizes:
            rows.append(("size", f"{self.sizes['columns']} columns × {self.sizes['rows']} rows "
                               f"({self.sizes['columns_raw']} × {self.sizes['rows_raw']} before reduction)"))
        return rows

    @property
    def scope(self) -> str:
        """The schemes the bound holds for."""
        return self.kind.scope if self.kind is not None else HAND_BUILT

    @property
    def scheme_class(self) -> str:
        """``"general"`` when the bound holds for every scheme of the model, else the LP's name."""
        return "general" if self.scope == EVERY_SCHEME else self.method

    def to_dict(self) -> dict:
        return {"value": None if self.value is None else str(self.value),
                "class": self.scheme_class, "method": self.method, "scope": self.scope,
                "certified": self.certified, "status": self.status,
                "float_value": self.float_value, "lp": self.sizes,
                "certificate_rows": None if self.certificate is None else self.certificate.size,
                "cut": self.cut, "outcome": str(self.outcome),
                "fallback": None if self.fallback is None else {"value": str(self.fallback.value),
                                                                "reason": self.fallback.label},
                "relaxed": self.relaxed,
                "estimated_seconds": None if self.estimate is None else round(self.estimate, 1),
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()}}


@dataclass(frozen=True, repr=False)
class ConverseProof(Displayable):
    """The answer of ``itsa converse``: a converse bound on one instance and the file its proof went to.

    ``proof_file`` is set only when the bound is certified and its proof was written
    (:func:`itsa.keys.converse.prove`).
    """

    instance: Instance
    bound: ConverseBound
    proof_file: str | None = None

    def headline(self) -> str:
        b, name = self.bound, self.instance.name or "instance"
        if b.certified:
            return f"{name}: R_ZΣ ≥ {b.value} for {b.scope}"
        return f"{name}: no LP bound proved ({b.status})"

    def rows(self) -> list[tuple[str, str]]:
        b = self.bound
        if not (b.certified and b.certificate is not None):
            return [] if b.fallback is None else [
                ("best bound proved", f"R_ZΣ ≥ {b.fallback.value} (corrected bound g(K), itsa.keys.bounds.corrected)")]
        rows = [("LP", f"{b.method}; certificate: {b.certificate.size} rows, checked exactly; "
                       f"LP {b.sizes['columns']} columns × {b.sizes['rows']} rows")]
        if b.relaxed:
            rows.append(("relaxation", f"the optimum of a relaxation of the LP ({b.relaxed}): "
                                       "the LP's own optimum may be higher"))
        return rows + ([("proof written to", self.proof_file)] if self.proof_file else [])

    def to_dict(self) -> dict:
        return {"instance": self.instance.name, "lower": self.bound.to_dict(),
                "proof_file": self.proof_file if self.bound.certified else None}


def estimate_seconds(sizes: dict) -> float:
    """Seconds the float solve and the certificate take on a reduced LP of these ``sizes``.

    ``SECONDS_PER_CELL · columns · rows``: a model measured on 2 shared cores
    that errs on the short side, so a budget is never refused to an LP that fits.
    An LP solved by separation (:mod:`.lazy`) is estimated by its first round,
    from the columns and rows of its chain rows (``columns_seeded``,
    ``rows_seeded``), within a factor of 1.3 either way where measured.

    >>> estimate_seconds({"columns": 1000, "rows": 20000})
    2.0
    """
    if "rows_seeded" in sizes:
        return round(SECONDS_PER_SEEDED_CELL * sizes["columns_seeded"] * sizes["rows_seeded"], 6)
    return round(SECONDS_PER_CELL * sizes["columns"] * sizes["rows"], 6)


def check_size(instance: Instance, entry: ConverseClass, symmetry: bool = True) -> None:
    """Raise :class:`InvalidInstance` when ``instance`` is beyond the LP's size limit.

    The message says why the LP is not run (users, or orbits of user sets).
    """
    orbits = entry.name == KEYS.name and symmetry     # the keys LP on orbits of user sets
    limit = entry.max_users if symmetry or entry.name != KEYS.name else MAX_LAZY_USERS
    if instance.K > limit:
        raise InvalidInstance(f"the {entry.name} converse takes at most {limit} "
                              f"users; this instance has K = {instance.K}")
    if orbits:
        why = orbit_count(instance)[1]
        if why:
            raise InvalidInstance(f"the {entry.name} converse LP is not run: {why}")


def solve_and_certify(rlp: ReducedLP, clock: Deadline, report, *, max_estimate=None,
                      solver=solve_float) -> ConverseBound:
    """The stages after the reduction, shared by every LP: the budget, the float solve, the certificate.

    ``clock`` is the call's :class:`~itsa._util.deadline.Deadline` (started
    when the call began), ``report`` an :class:`itsa._util.progress.Reporter`;
    ``solver(rlp, time_limit=, progress=)`` returns a :class:`~.solver.FloatSolution`
    (the linear LP's adds Ingleton cuts to ``rlp`` as it goes).

    The certificate of a solved LP gets what is left of the time limit and never
    less than the float solve took: the certificate from the optimal basis, about a
    tenth of the solve on large LPs (``python benchmarks/bench_certify.py``), is not
    cut by the limit. (The older routes it falls back to are not interrupted once
    started, so the limit can then be overshot by their time.)
    """
    kind = rlp.problem.kind
    secs = {"reduce": clock.elapsed()}
    est = estimate_seconds(rlp.sizes)
    report("reduced", columns=rlp.n_columns, rows=rlp.sizes["rows"],
           note=f"about {est:.0f} s to solve and certify")
    size = f"{rlp.n_columns} columns × {rlp.sizes['rows']} rows"

    def stop(outcome: Outcome, status: str, value=None):
        return ConverseBound(method=rlp.problem.method, value=None, certified=False, status=status,
                             float_value=value, sizes=rlp.sizes, seconds=secs, lp=rlp, estimate=est,
                             kind=kind, outcome=outcome)
    if max_estimate is not None and est > max_estimate - secs["reduce"]:
        return stop(Outcome.SKIPPED, f"skipped: about {est:.0f} s estimated from the LP's size ({size}), "
                    f"{max(0.0, max_estimate - secs['reduce']):.0f} s left of the time limit")
    if clock.expired():
        return stop(Outcome.CUT, f"cut: time limit reached while reducing the LP ({size})")
    sol = solver(rlp, time_limit=clock.left(), progress=report)
    secs["solve"] = sol.seconds
    if sol.status != "optimal":
        if sol.timed_out:
            return stop(Outcome.CUT, f"cut: {sol.status}")
        return stop(Outcome.SOLVER_FAILED, f"solver failed: {sol.status}")
    started = clock.elapsed()
    report("certify", columns=rlp.n_columns, rows=rlp.sizes["rows"])
    left = clock.left()                         # a solved LP's certificate gets at least the solve's own time
    budget = None if left is None else max(left, sol.seconds)
    cert = certify(rlp, sol, time_limit=budget)
    secs["certify"] = clock.elapsed() - started
    if cert is None:
        if budget is not None and secs["certify"] >= budget:
            return stop(Outcome.CUT, "cut: time limit reached while certifying", sol.value)
        return stop(Outcome.NOT_CHECKED, "certificate did not check exactly", sol.value)
    status = "certified" if sol.relaxed is None else f"certified, for a relaxation of the LP ({sol.relaxed})"
    return ConverseBound(method=rlp.problem.method, value=cert.value, certified=True, status=status,
                         float_value=sol.value, sizes=rlp.sizes, seconds=secs, certificate=cert, lp=rlp,
                         primal=tuple(sol.x.tolist()), estimate=est, kind=kind, relaxed=sol.relaxed)
