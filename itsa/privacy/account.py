"""Every accountant on the same events: T rounds of the Gaussian mechanism at noise multiplier z.

:func:`account` returns one :class:`Accounting` with the ε of each
conversion and composition rule, each a certified bound with its method
(``mironov``, ``cks``, the exact Gaussian curve, basic and advanced
composition over the classical per-round ε), the heuristic ``ε√T`` marked as
such, and optionally dp-accounting's floats as a cross-check.

Examples
--------
>>> acc = account("0.0969", 30, "1e-5", per_round_epsilon=50)
>>> [acc.entries[k].epsilon.decimal(4) for k in ("mironov", "basic")]
['1869', '1500']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.privacy.certified import Certified, Direction
from itsa.privacy.composition import (
    advanced_composition,
    basic_composition,
    check_epsilon,
    classical_epsilon,
    sqrt_rounds_heuristic,
)
from itsa.privacy.conversion import Conversion, check_delta, to_epsilon
from itsa.privacy.rdp import gaussian_curve
from itsa.privacy.tight import gaussian_tight_epsilon

__all__ = ["Entry", "Accounting", "account"]


@dataclass(frozen=True, repr=False)
class Entry(Displayable):
    """One accountant's answer: ε (certified, or a heuristic), the δ it holds at, and extra facts."""

    name: str
    epsilon: Certified
    delta: Fraction
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, **self.epsilon.to_dict(), "delta": _d(self.delta), "delta_exact": str(self.delta),
                **self.extra}

    def _headline(self) -> str:
        return f"{self.name}: eps {self.epsilon.decimal()} ({self.epsilon.direction}) at delta {_d(self.delta)}"

    def _rows(self) -> list[tuple[str, str]]:
        return [("method", self.epsilon.method)]


def _d(x: Fraction) -> str:
    from itsa.privacy.certified import safe_decimal

    return safe_decimal(x, 6, up=True)


@dataclass(frozen=True, kw_only=True, repr=False)
class Accounting(Displayable):
    """The ε of every accountant for ``rounds`` rounds at noise multiplier ``noise_multiplier``."""

    noise_multiplier: Fraction
    rounds: int
    delta: Fraction
    per_round: Certified
    entries: dict[str, Entry]
    crosscheck: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"noise_multiplier": str(self.noise_multiplier), "rounds": self.rounds, "delta": _d(self.delta),
                "per_round_epsilon": self.per_round.to_dict(),
                "epsilon": {k: e.to_dict() for k, e in self.entries.items()},
                "crosscheck": {k: {"value": v, "kind": "float from dp-accounting, not certified"}
                               for k, v in self.crosscheck.items()}}

    def _headline(self) -> str:
        return f"z = {self.noise_multiplier}, T = {self.rounds}, delta = {_d(self.delta)}"

    def _rows(self) -> list[tuple[str, str]]:
        return [(k, f"{e.epsilon.decimal()} ({e.epsilon.direction}) at delta {_d(e.delta)}")
                for k, e in self.entries.items()] + [(f"dp-accounting {k}", f"{v:.6g} (float)")
                                                      for k, v in self.crosscheck.items()]


def account(noise_multiplier, rounds: int, delta, *, per_round_epsilon=None, delta_slack=None,
            tight: bool = True, crosscheck: bool = False) -> Accounting:
    """The ε after ``rounds`` Gaussian rounds at ``noise_multiplier`` under every accountant itsa has.

    Parameters
    ----------
    noise_multiplier, rounds, delta
        The events and the target δ (read exactly).
    per_round_epsilon : number, optional
        The per-round ε that basic and advanced composition start from;
        default: the classical formula's ``√(2 ln(1.25/δ))/z`` (a guarantee
        proved only below 1, said so in its method).
    delta_slack : number, optional
        ``δ'`` of advanced composition (default ``δ``).
    tight : bool
        Add the exact Gaussian curve (certified).
    crosscheck : bool
        Add dp-accounting's RDP and PLD floats (the ``crosscheck`` extra).
    """
    z = fraction("noise multiplier", noise_multiplier, low=0)
    whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    per_round = (classical_epsilon(z, d) if per_round_epsilon is None else
                 Certified.exact("epsilon per round", check_epsilon(per_round_epsilon), "given"))
    curve = gaussian_curve(z) * rounds
    entries: dict[str, Entry] = {}
    for conv in Conversion:
        bound = to_epsilon(curve, d, conv)
        entries[str(conv)] = Entry(str(conv), bound.epsilon, d, {"order": str(float(bound.order))})
    if tight:
        entries["tight"] = Entry("tight", gaussian_tight_epsilon(z, rounds, d), d)
    premise = "" if per_round.upper() < 1 else " (premise: a per-round eps >= 1 from the classical formula is not proved)"
    basic, basic_delta = basic_composition(per_round, d, rounds)
    entries["basic"] = Entry("basic", _note(basic, premise), basic_delta)
    advanced, advanced_delta = advanced_composition(per_round, d, rounds, delta_slack)
    entries["advanced"] = Entry("advanced", _note(advanced, premise), advanced_delta)
    entries["sqrt_rounds_heuristic"] = Entry("sqrt_rounds_heuristic", sqrt_rounds_heuristic(per_round, rounds), d)
    checks = {}
    if crosscheck:
        from itsa.privacy.tight import dp_accounting_epsilon

        checks = {kind: dp_accounting_epsilon(float(z), rounds, float(d), kind) for kind in ("rdp", "pld")}
    return Accounting(noise_multiplier=z, rounds=rounds, delta=d, per_round=per_round, entries=entries,
                      crosscheck=checks)


def _note(value: Certified, premise: str) -> Certified:
    if not premise:
        return value
    return Certified(value.name, value.low, value.high, Direction.UPPER, value.method + premise)
