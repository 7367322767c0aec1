"""Every accountant on the same events: T rounds of the Gaussian mechanism at noise multiplier z.

:func:`account` returns one :class:`Accounting` with the ε of each
conversion and composition rule, each with its method and direction
(``mironov``, ``cks``, the exact Gaussian curve, basic and advanced
composition), the heuristic ``ε√T`` marked as such, and optionally
dp-accounting's floats as a cross-check.

Basic and advanced composition start from a per-round ε (:class:`PerRound`):
by default the exact Gaussian curve's at one round (certified, so the totals
are upper bounds); the classical formula's, or a given one, is first checked
against the exact curve: certified, the totals are upper bounds; not, they
are ``conditional`` (a bound only if the premise held), never shown as bounds.
A total whose δ reaches 1 (``T δ ≥ 1``) is ``vacuous``, and a note says so.

Examples
--------
>>> acc = account("0.0969", 30, "1e-5")
>>> acc.per_round.decimal(4), acc.entries["basic"].epsilon.decimal(4), str(acc.entries["basic"].epsilon.direction)
('96.43', '2893', 'upper bound')
>>> page = account("0.0969", 30, "1e-5", per_round_epsilon=50)
>>> page.entries["basic"].epsilon.decimal(4), str(page.entries["basic"].epsilon.direction)
('1500', 'conditional (premise not certified)')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from itsa._util.certified import Certified, Direction, TooLarge, exact_text, fraction_text, safe_decimal
from itsa._util.checks import choice, conflict, fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import excerpt
from itsa.privacy.composition import (
    advanced_composition,
    basic_composition,
    check_delta_slack,
    check_epsilon,
    classical_epsilon,
    sqrt_rounds_heuristic,
)
from itsa.privacy.conversion import Conversion, check_delta, to_epsilon
from itsa.privacy.rdp import gaussian_curve
from itsa.privacy.tight import converged, gaussian_meets, gaussian_tight_epsilon

__all__ = ["PerRound", "Entry", "Accounting", "account", "one_round_epsilon"]


class PerRound(StrEnum):
    """Where basic and advanced composition take their per-round ε from."""

    TIGHT = "tight"              # the exact Gaussian curve at one round: certified
    CLASSICAL = "classical"      # sqrt(2 ln(1.25/delta))/z: certified only if the exact curve agrees


@dataclass(frozen=True, repr=False)
class Entry(Displayable):
    """One accountant's answer: ε (certified, or a heuristic), the δ it holds at, and extra facts."""

    name: str
    epsilon: Certified
    delta: Fraction
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, **self.epsilon.to_dict(), "delta": _d(self.delta), "delta_exact": exact_text(self.delta),
                **self.extra}

    def headline(self) -> str:
        return f"{self.name}: eps {self.epsilon.decimal()} ({self.epsilon.direction}) at delta {_d(self.delta)}"

    def rows(self) -> list[tuple[str, str]]:
        return [("method", self.epsilon.method)]


def _d(x: Fraction) -> str:
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
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"noise_multiplier": fraction_text(self.noise_multiplier), "rounds": self.rounds, "delta": _d(self.delta),
                "per_round_epsilon": self.per_round.to_dict(),
                "epsilon": {k: e.to_dict() for k, e in self.entries.items()},
                "crosscheck": {k: {"value": v, "kind": "float from dp-accounting, not certified"}
                               for k, v in self.crosscheck.items()}, "notes": list(self.notes)}

    def headline(self) -> str:
        return f"z = {self.noise_multiplier}, T = {self.rounds}, delta = {_d(self.delta)}"

    def rows(self) -> list[tuple[str, str]]:
        return [(k, f"{e.epsilon.decimal()} ({e.epsilon.direction}) at delta {_d(e.delta)}")
                for k, e in self.entries.items()] + [(f"dp-accounting {k}", f"{v:.6g} (float)")
                                                      for k, v in self.crosscheck.items()]


#: Largest sqrt(T)/z the PLD cross-check is run at: its grid grows with it (measured: 20 -> 12 s and 1.4 GB,
#: 33 -> 28 s and 2.9 GB, 110 -> 305 s and 22 GB).
MAX_PLD_MU = 25
#: dp-accounting's floats are asked only for z, T and delta within these (float64 with room).
FLOAT_RANGE = (Fraction(1, 10**300), Fraction(10**300))


def _floats(*, z: Fraction, rounds: int, delta: Fraction) -> tuple[float, int, float] | None:
    """``(z, T, δ)`` as the floats dp-accounting takes, or ``None`` when one is outside :data:`FLOAT_RANGE`."""
    low, high = FLOAT_RANGE
    if all(low <= x <= high for x in (z, Fraction(rounds), delta)):
        return float(z), rounds, float(delta)
    return None


def one_round_epsilon(noise_multiplier, delta, given=None, source: PerRound | str = PerRound.TIGHT) -> Certified:
    """One Gaussian round's ε at ``δ``: the exact curve's, or ``given`` / the classical one checked against it.

    >>> one_round_epsilon("4.8448", "1e-5", given=1).direction.value
    'upper bound'
    >>> one_round_epsilon("0.4845", "1e-5", given=10).direction.value
    'conditional (premise not certified)'
    """
    z = fraction("noise multiplier", noise_multiplier, low=0)
    d = check_delta(delta)
    kind = choice("per-round source", source, PerRound)
    if given is None and kind is PerRound.TIGHT:
        exact = gaussian_tight_epsilon(z, 1, d)
        return Certified("epsilon per round", exact.low, exact.high, exact.direction, exact.method + " at T = 1")
    claimed = (classical_epsilon(z, d) if given is None else
               Certified.exact("epsilon per round", check_epsilon(given), "given"))
    if gaussian_meets(z, claimed.upper(), d):
        return Certified(claimed.name, claimed.low, claimed.high, Direction.UPPER,
                         claimed.method.split("; eps >= 1")[0] + "; certified by the exact Gaussian curve at T = 1")
    exact = gaussian_tight_epsilon(z, 1, d)
    return Certified(claimed.name, claimed.low, claimed.high, Direction.CONDITIONAL,
                     claimed.method.split("; eps >= 1")[0] + "; NOT certified: the exact Gaussian curve at T = 1 gives "
                     f"eps in [{safe_decimal(exact.lower(), 6, up=False)}, {safe_decimal(exact.upper(), 6)}]")


def account(noise_multiplier, rounds: int, delta, *, per_round_epsilon=None, delta_slack=None,
            per_round: PerRound | str | None = None, tight: bool = True, crosscheck: bool = False) -> Accounting:
    """The ε after ``rounds`` Gaussian rounds at ``noise_multiplier`` under every accountant itsa has.

    Parameters
    ----------
    noise_multiplier, rounds, delta
        The events and the target δ (read exactly).
    per_round_epsilon : number, optional
        A per-round ε for basic and advanced composition; checked against the
        exact Gaussian curve (certified: the totals are upper bounds; not:
        they are ``conditional``).
    per_round : PerRound or str, optional
        Without ``per_round_epsilon``: ``"tight"`` (default, the exact curve at
        one round, certified) or ``"classical"`` (``√(2 ln(1.25/δ))/z``, checked
        the same way). Both given: refused (they name two per-round ε).
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
    slack = None if delta_slack is None else check_delta_slack(delta_slack)     # every input before any work
    if per_round_epsilon is not None:
        check_epsilon(per_round_epsilon)
        if per_round is not None:
            raise conflict(f"--epsilon-per-round {excerpt(per_round_epsilon)}", f"--per-round {excerpt(per_round)}",
                           "each names the per-round eps of basic and advanced composition")
    first = one_round_epsilon(z, d, per_round_epsilon, PerRound.TIGHT if per_round is None else per_round)
    curve = gaussian_curve(z) * rounds
    entries: dict[str, Entry] = {}
    for conv in Conversion:
        bound = to_epsilon(curve, d, conv)
        entries[str(conv)] = Entry(str(conv), bound.epsilon, d, {"order": str(float(bound.order))})
    notes: tuple[str, ...] = ()
    if tight:
        try:
            entries["tight"] = Entry("tight", gaussian_tight_epsilon(z, rounds, d), d)
        except TooLarge as exc:
            notes += (f"exact curve omitted: {exc}",)
        else:
            if not converged(entries["tight"].epsilon):
                notes += ("tight: the exact curve's bisection did not converge; its upper end is still a bound "
                          "but loose: use the cks row",)
    basic, basic_delta = basic_composition(first, d, rounds)
    entries["basic"] = Entry("basic", basic, basic_delta)
    try:
        advanced, advanced_delta = advanced_composition(first, d, rounds, slack)
        entries["advanced"] = Entry("advanced", advanced, advanced_delta)
    except TooLarge as exc:         # T eps (e^eps - 1) overflows any exact number: the bound says nothing
        notes += (f"advanced composition omitted: {exc}",)
    vacuous = [k for k, e in entries.items() if e.epsilon.direction is Direction.VACUOUS]
    if vacuous:
        notes += (f"{' and '.join(vacuous)} composition: delta >= 1 after {rounds} rounds: vacuous (bounds nothing)",)
    entries["sqrt_rounds_heuristic"] = Entry("sqrt_rounds_heuristic", sqrt_rounds_heuristic(first, rounds), d)
    checks = {}
    if crosscheck:
        from itsa.privacy.tight import dp_accounting_epsilon

        floats = _floats(z=z, rounds=rounds, delta=d)
        if floats is None:
            notes += ("dp-accounting cross-check omitted: z, T or delta is outside the range of float64",)
        else:
            mu = Fraction(math.isqrt(rounds)) / z         # about sqrt(T)/z: the PLD grid grows with it
            kinds = ("rdp", "pld") if mu <= MAX_PLD_MU else ("rdp",)
            if mu > MAX_PLD_MU:
                notes += (f"dp-accounting pld cross-check omitted: sqrt(T)/z = {safe_decimal(mu, 4)} is past "
                          f"MAX_PLD_MU = {MAX_PLD_MU} (its grid would take minutes and gigabytes)",)
            for kind in kinds:
                try:
                    checks[kind] = dp_accounting_epsilon(*floats, kind)
                except (ValueError, ArithmeticError) as exc:       # its own limits: a float cross-check, not ours
                    notes += (f"dp-accounting {kind} cross-check omitted: it raised {type(exc).__name__} "
                              f"({excerpt(str(exc))})",)
    return Accounting(noise_multiplier=z, rounds=rounds, delta=d, per_round=first, entries=entries,
                      crosscheck=checks, notes=notes)

