"""Regimes and bounds of Theorems 1 and 2, with the reason for each.

docs/model.md §3. The regime is decided from ``e*``, ``a*``, ``|S̄|`` and ``|Q|``;
each bound carries the sentence that justifies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from itsa._util import display
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable, Kind, shorten
from itsa._util.plain import frac, plain, users
from itsa.exceptions import InvalidOption
from itsa.keys.bounds.corrected import corrected_lower_bound
from itsa.keys.bounds.lp import LPResult, theorem2_lp
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import Configurations, SetQuantities, configurations, set_quantities
from itsa.typing import Config


class Regime(Kind):
    """The regime of an instance: Theorem 1's conditions 1-3, or Theorem 2 (paper Sec. III).

    A :class:`str`: each member equals, prints and serialises as its value
    (``"condition-2"``), so JSON output and string comparisons are unchanged.

    >>> Regime.CONDITION_2 == "condition-2", Regime("theorem-2"), Regime.CONDITION_1
    (True, 'theorem-2', 'condition-1')
    >>> import json; json.dumps({"regime": Regime.THEOREM_2})
    '{"regime": "theorem-2"}'
    """

    CONDITION_1 = "condition-1"
    CONDITION_2 = "condition-2"
    CONDITION_3 = "condition-3"
    THEOREM_2 = "theorem-2"


#: Every regime, in the paper's order (also the scheme constructions: one per regime).
REGIMES = tuple(Regime)


@dataclass(frozen=True, repr=False)
class Bound:
    """A rate bound with the reason it holds. ``value`` is ``None`` when unknown."""

    value: Fraction | None
    reason: str

    def __repr__(self) -> str:
        return f"<Bound {'unknown' if self.value is None else self.value}: {shorten(self.reason)}>"

@dataclass(kw_only=True, frozen=True, eq=False, repr=False)
class Analysis(Displayable):
    """Everything the paper defines for one instance, with its evidence.

    Examples
    --------
    >>> from itsa import analyze, examples
    >>> a = analyze(examples.load("example-1"))
    >>> a.e_star, a.a_star, a.regime, a.key_rate_upper.value
    (2, 2, 'condition-2', Fraction(2, 1))
    >>> a
    <Analysis example-1: condition-2, e* = 2 at (1,4,3), a* = 2, 2 <= R_ZΣ <= 2>
    >>> print(a.summary())  # doctest: +ELLIPSIS
    analysis: example-1: condition-2, e* = 2 at (1,4,3), a* = 2, 2 <= R_ZΣ <= 2
      instance                example-1: servers (3, 2, 2), K = 7, M = 4, N = 16
      S_I                     {(1,3)}
      S̄                       {(1,1), (1,3), (2,1)}
    ...
    """

    instance: Instance
    configurations: Configurations
    sets: SetQuantities
    regime: str
    regime_reason: str
    R_X: Bound
    R_Y: Bound
    key_rate_lower_printed: Bound
    key_rate_lower: Bound
    key_rate_upper: Bound
    lp: LPResult | None

    # Shortcuts to the named quantities.
    @property
    def S_I(self) -> int:
        return self.sets.S_I

    @property
    def S_bar(self) -> int:
        return self.sets.S_bar

    @property
    def a_star(self) -> int:
        return self.sets.a_star

    @property
    def e_star(self) -> int:
        return self.sets.e_star

    @property
    def Q(self) -> int:
        return self.sets.Q

    @property
    def key_rate_upper_used(self) -> Bound | None:
        """Theorem 2's construction on the key symbols its keys use: ``b* + min(e*, max(|S̄| - 1, 0))``.

        The construction draws ``e*·L`` shared symbols, but only the users of
        ``S̄`` other than the absorber use them, ``L`` rows each (docs/model.md
        §4), so its keys span at most this many symbols per input symbol, at
        most ``e* + b*``. Like ``key_rate_upper`` it rests on the construction
        being secure, which ``itsa build`` verifies. ``None`` outside the
        Theorem-2 regime or when its LP is infeasible.
        """
        if self.regime != Regime.THEOREM_2 or self.lp is None or not self.lp.feasible or self.lp.b_star is None:
            return None
        shared = min(self.e_star, max(self.S_bar.bit_count() - 1, 0))
        return Bound(self.lp.b_star + shared,
                     f"itsa finding: the Theorem-2 construction on the key symbols its keys use, "
                     f"b* + min(e*, max(|S̄| - 1, 0)) = {self.lp.b_star} + {shared} (docs/model.md §4)")

    @property
    def e_star_configuration(self) -> Config:
        """The first configuration ``(u, m, n)`` (in index order) with ``c_{u,m,n} = e*``."""
        return self.configurations.where(self.configurations.c == self.e_star)[0]

    # -- display -----------------------------------------------------------
    def headline(self) -> str:
        return (f"{self.instance.name or 'instance'}: {self.regime}, e* = {self.e_star} at "
                f"{display.config(self.e_star_configuration)}, a* = {self.a_star}, "
                f"{_opt(self.key_rate_lower.value)} <= R_ZΣ <= {_opt(self.key_rate_upper.value)}")

    def to_dict(self) -> dict[str, Any]:
        """The ``itsa analyze --json`` object (without the per-configuration rows: see :mod:`itsa.keys.output.detail`)."""
        inst, s = self.instance, self.sets
        return plain({
            "instance": inst.name,
            "U": inst.U, "K": inst.K, "M": inst.M, "N": inst.N,
            "servers": list(inst.servers),
            "S_bar": users(inst, s.S_bar),
            "S_I": users(inst, s.S_I),
            "a_star": s.a_star,
            "e_star": s.e_star,
            "e_star_configuration": list(self.e_star_configuration),
            "critical_configurations": int(self.configurations.critical.sum()),
            "Q1": users(inst, s.Q1),
            "Q2": users(inst, s.Q2),
            "Q": users(inst, s.Q),
            "q_rule": s.q_rule,
            "regime": self.regime,
            "regime_reason": self.regime_reason,
            "R_X": frac(self.R_X.value),
            "R_Y": frac(self.R_Y.value),
            "key_rate_lower_printed": frac(self.key_rate_lower_printed.value),
            "key_rate_lower_printed_reason": self.key_rate_lower_printed.reason,
            "key_rate_lower": frac(self.key_rate_lower.value),
            "key_rate_lower_reason": self.key_rate_lower.reason,
            "key_rate_upper": frac(self.key_rate_upper.value),
            "key_rate_upper_reason": self.key_rate_upper.reason,
            "key_rate_upper_used": None if self.key_rate_upper_used is None else frac(self.key_rate_upper_used.value),
            "key_rate_upper_used_reason": None if self.key_rate_upper_used is None else self.key_rate_upper_used.reason,
            "lp": None if self.lp is None else self.lp.to_dict(),
            "outside_assumptions": inst.outside_assumptions(),
            "warnings": list(inst.warnings),
        })

    def rows(self) -> list[tuple[str, str]]:
        s = self.sets
        rows = [("instance", self.instance.headline())]
        rows += s.rows()[:2]
        rows += [("a*", str(s.a_star)),
                 ("e*", f"{s.e_star}, attained first at (u,m,n) = "
                        f"{display.config(self.e_star_configuration)}"),
                 ("critical (u,m,n)", str(int(self.configurations.critical.sum()))
                  + " configurations with |A| = |S̄|")]
        rows += s.rows()[4:]
        rows += [("regime", f"{self.regime}: {self.regime_reason}"),
                 ("R_X, R_Y", f">= {self.R_X.value}, optimal (Theorem 1)"),
                 ("key rate lower (paper)", f"{_opt(self.key_rate_lower_printed.value)}: "
                                            f"{self.key_rate_lower_printed.reason}"),
                 ("key rate lower (itsa)", f"{_opt(self.key_rate_lower.value)}: {self.key_rate_lower.reason}"),
                 ("key rate upper", f"{_opt(self.key_rate_upper.value)}: {self.key_rate_upper.reason}")]
        if self.key_rate_upper_used is not None:
            used = self.key_rate_upper_used
            rows.append(("key rate upper (itsa)", f"{used.value}: {used.reason}"))
        if self.lp is not None and self.lp.feasible and self.lp.b is not None:
            rows.append(("Theorem-2 LP", f"b* = {self.lp.b_star}; b = " + ", ".join(
                f"b{display.user(*self.instance.label(i))} = {v}" for i, v in self.lp.b.items())))
        rows += [("warning", w) for w in self.instance.outside_assumptions()]
        return rows


def decide_regime(K: int, sets: SetQuantities) -> tuple[Regime, str]:
    """The regime of Theorem 1 (conditions 1-3) or Theorem 2, with the reason.

    Paper Sec. III; Condition 1 read as ``e* >= K`` (docs/model.md §6.2).
    """
    e, a, sb, q = sets.e_star, sets.a_star, sets.S_bar.bit_count(), sets.Q.bit_count()
    if e >= K:
        return Regime.CONDITION_1, f"e* = {e} >= K = {K} (Condition 1, read as e* >= K)"
    if a <= sb - 1:
        return Regime.CONDITION_2, f"e* = {e} <= K-1 = {K - 1} and a* = {a} <= |S̄|-1 = {sb - 1}"
    if q <= K - 1:
        return Regime.CONDITION_3, f"e* = {e} <= K-1, a* = |S̄| = {sb} and |Q| = {q} <= K-1 ({sets.q_rule} rule)"
    return Regime.THEOREM_2, f"e* = {e} <= K-1, a* = |S̄| = {sb} and |Q| = K = {K} ({sets.q_rule} rule)"


def analyze(instance: Instance, q_rule: str = "union", lp_solver: str = "highs",
            corrected: bool = True, conf: Configurations | None = None,
            time_limit: float | Deadline | None = None) -> Analysis:
    """Compute every quantity, the regime, the bounds and (Theorem 2) the LP.

    Parameters
    ----------
    instance : Instance
    q_rule : {"union", "intersection"}
        How ``Q_1`` and ``Q_2`` combine into ``Q`` (docs/model.md §6.1).
    lp_solver : {"highs", "cbc"}
        Floating-point solver whose answer the LP certificate then checks.
    corrected : bool
        Compute itsa's corrected lower bound (:mod:`itsa.keys.bounds.corrected`); off, it
        is reported as not computed.
    conf : Configurations, optional
        Configuration arrays already computed for ``instance`` (reused, not
        recomputed, when one instance is analysed under several options).
    time_limit : float or Deadline, optional
        Seconds (CPU or wall-clock) for the Theorem-2 LP; past it
        :class:`~itsa.exceptions.TimeLimitReached`. None: no limit.

    Notes
    -----
    Paper Theorems 1 and 2; docs/model.md §3. Two lower bounds are reported:
    ``key_rate_lower_printed`` is the paper's converse ``min{e*, K-1}``, which
    verified schemes beat on some instances (``itsa audit``);
    ``key_rate_lower`` is itsa's corrected converse (:mod:`itsa.keys.bounds.corrected`), a
    finding of this tool, not of the paper.
    """
    if conf is None:
        conf = configurations(instance)
    elif conf.instance != instance:
        raise InvalidOption("conf was computed for another instance")
    sets = set_quantities(conf, q_rule)
    K, e = instance.K, sets.e_star
    regime, why = decide_regime(K, sets)
    one = Bound(Fraction(1), "R_X >= 1 and R_Y >= 1 are optimal in every regime (Theorem 1)")
    printed = Bound(Fraction(min(e, K - 1)), f"printed converse (paper): R_ZΣ >= min{{e*, K-1}} = "
                                             f"min{{{e}, {K - 1}}}; not valid on every instance")
    if corrected:
        cb = corrected_lower_bound(instance)
        lower = Bound(cb.value, cb.reason)
    else:
        lower = Bound(None, "not computed (asked not to: corrected=False / --no-corrected)")
    lp = None
    if regime == Regime.CONDITION_1:
        upper = Bound(Fraction(K - 1), "Condition 1 scheme: K-1 independent key symbols")
    elif regime in (Regime.CONDITION_2, Regime.CONDITION_3):
        upper = Bound(Fraction(e), f"{regime.capitalize()} scheme achieves e* = {e}")
    else:
        lp = theorem2_lp(conf, lp_solver, time_limit=time_limit)
        if lp.feasible and lp.b_star is not None:
            upper = Bound(e + lp.b_star, f"Theorem 2: e* + b* = {e} + {lp.b_star}")
        else:
            upper = Bound(None, f"unknown: the Theorem-2 LP is infeasible, configuration "
                                f"{display.config(lp.empty_constraint)} has D = K and so a "
                                "constraint with no variable")
    return Analysis(instance=instance, configurations=conf, sets=sets, regime=regime, regime_reason=why, R_X=one, R_Y=one, key_rate_lower_printed=printed, key_rate_lower=lower, key_rate_upper=upper, lp=lp)


def _opt(x) -> str:
    return "unknown" if x is None else str(x)
