"""Every accountant on the same events: T rounds of the Gaussian mechanism at noise multiplier z.

An accountant (:class:`Accountant`) composes events (:class:`GaussianEvent`:
rounds of the Gaussian mechanism) and is asked for ε at a δ, certified:
``mironov`` and ``cks`` (RDP with a conversion), ``tight`` (the exact
Gaussian curve), ``basic`` and ``advanced`` composition, and the heuristic
``ε√T`` marked as such. They are registered in :data:`ACCOUNTANTS` by name.
:func:`account` asks each of them (and optionally dp-accounting's floats,
as a cross-check) and returns one :class:`Accounting`.

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
>>> CksAccountant().compose(GaussianEvent("0.0969", 30)).epsilon("1e-5").epsilon.decimal(4)
'1866'
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import ClassVar

from itsa._util.certified import Certified, Direction, Provenance, TooLarge, exact_text, safe_decimal
from itsa._util.checks import choice, conflict, fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, excerpt
from itsa.privacy.composition import (
    INVERSE_CLASSICAL,
    advanced_composition,
    basic_composition,
    check_delta_slack,
    check_epsilon,
    classical_epsilon,
    sqrt_rounds_heuristic,
)
from itsa.privacy.conversion import (
    DEFAULT_DELTA,
    Conversion,
    EpsilonBound,
    check_delta,
    order_text,
    profile_delta,
    profile_epsilon,
    to_epsilon,
)
from itsa.privacy.events import Event, GaussianEvent
from itsa.privacy.profile import RdpProfile, linear_sum, slack_epsilon, slack_sum
from itsa.privacy.rdp import RdpCurve
from itsa.privacy.tight import converged, gaussian_meets, gaussian_tight_epsilon

__all__ = ["PerRound", "Entry", "Accounting", "account", "one_round_epsilon", "GaussianEvent", "Accountant",
           "RdpAccountant", "MironovAccountant", "CksAccountant", "TightAccountant", "BasicAccountant",
           "AdvancedAccountant", "SqrtRoundsHeuristic", "ACCOUNTANTS", "register"]


class PerRound(StrEnum):
    """Where basic and advanced composition take their per-round ε from."""

    TIGHT = "tight"              # the exact Gaussian curve at one round: certified
    CLASSICAL = "classical"      # sqrt(2 ln(1.25/delta))/z: certified only if the exact curve agrees


@dataclass(frozen=True, repr=False)
class Entry(Displayable):
    """One accountant's answer: ε (certified, or a heuristic), the δ it holds at, and extra facts.

    Parameters
    ----------
    name : str
        The accountant's name (a key of :data:`ACCOUNTANTS`).
    epsilon : Certified
        ε, with its direction and method.
    delta : Fraction
        The δ it holds at (``T δ`` for basic composition).
    extra : dict
        Further facts (the order of an RDP conversion).
    """

    name: str
    epsilon: Certified
    delta: Fraction
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, **self.epsilon.to_dict(), "delta": _d(self.delta), "delta_exact": exact_text(self.delta),
                **self.extra}

    @property
    def text(self) -> str:
        """ε, its direction and δ in one cell."""
        return f"{self.epsilon.decimal()} ({self.epsilon.direction}) at delta {_d(self.delta)}"

    def headline(self) -> str:
        return f"{self.name}: eps {self.epsilon.decimal()} ({self.epsilon.direction}) at delta {_d(self.delta)}"

    def rows(self) -> list[tuple[str, str]]:
        return [("method", str(self.epsilon.method))]


def _d(x: Fraction) -> str:
    return safe_decimal(x, 6, up=True)


@dataclass(frozen=True, kw_only=True, repr=False)
class Accounting(Displayable):
    """The ε of every accountant asked, for ``rounds`` rounds at noise multiplier ``noise_multiplier``.

    Parameters
    ----------
    noise_multiplier : Fraction
        ``z``, the noise standard deviation over the l2 sensitivity.
    rounds : int
        ``T``, the rounds composed.
    delta : Fraction
        The target δ.
    per_round : Certified
        The per-round ε basic and advanced composition start from.
    entries : dict
        Each accountant's :class:`Entry`, by name.
    inputs : dict
        The inputs that determine the answer (echoed in :meth:`to_dict`).
    crosscheck : dict
        dp-accounting's floats, by its accountant's name.
    notes : tuple of str
        What was omitted or is loose, in words.
    """

    noise_multiplier: Fraction
    rounds: int
    delta: Fraction
    per_round: Certified
    entries: dict[str, Entry]
    inputs: dict = field(default_factory=dict)
    crosscheck: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"inputs": dict(self.inputs), "noise_multiplier": exact_text(self.noise_multiplier), "rounds": self.rounds,
                "delta": _d(self.delta),
                "per_round_epsilon": self.per_round.to_dict(),
                "epsilon": {k: e.to_dict() for k, e in self.entries.items()},
                "crosscheck": {k: {"value": v, "kind": "float from dp-accounting, not certified"}
                               for k, v in self.crosscheck.items()}, "notes": list(self.notes)}

    def headline(self) -> str:
        return f"z = {exact_text(self.noise_multiplier)}, T = {self.rounds}, delta = {_d(self.delta)}"

    def rows(self) -> list[tuple[str, str]]:
        rows = [("per-round epsilon", f"{self.per_round.decimal()} ({self.per_round.direction}; "
                                      f"{self.per_round.method})")]
        for k, e in self.entries.items():
            rows += [(k, e.text), (f"{k} method", str(e.epsilon.method))]
        return rows + [(f"dp-accounting {k}", f"{v:.6g} (float cross-check, not certified)")
                       for k, v in self.crosscheck.items()] + [("note", n) for n in self.notes]


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

    Parameters
    ----------
    noise_multiplier : number
        ``z`` (read exactly).
    delta : number
        δ in ``(0, 1)``.
    given : number, optional
        A per-round ε to check against the exact curve (certified: an upper bound; not: ``conditional``).
    source : PerRound or str
        Without ``given``: ``"tight"`` (the exact curve at one round) or ``"classical"`` (checked the same way).

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
        return Certified("epsilon per round", exact.low, exact.high, exact.direction,
                         Provenance((exact.method, "at T = 1")))
    claimed = (classical_epsilon(z, d) if given is None else
               Certified.exact("epsilon per round", check_epsilon(given), "given"))
    premise = Provenance((INVERSE_CLASSICAL if given is None else "given",))
    if gaussian_meets(z, claimed.upper(), d):
        return Certified(claimed.name, claimed.low, claimed.high, Direction.UPPER,
                         premise.then("certified by the exact Gaussian curve at T = 1"))
    exact = gaussian_tight_epsilon(z, 1, d)
    return Certified(claimed.name, claimed.low, claimed.high, Direction.CONDITIONAL,
                     premise.then("NOT certified: the exact Gaussian curve at T = 1 gives eps in "
                                  f"[{safe_decimal(exact.lower(), 6, up=False)}, {safe_decimal(exact.upper(), 6)}]"))


#: Every accountant by name, in the order :func:`account` asks them (filled by :func:`register`).
ACCOUNTANTS: dict[str, type[Accountant]] = {}


def register(cls: type[Accountant]) -> type[Accountant]:
    """Add an accountant class to :data:`ACCOUNTANTS` under its ``name`` (a class decorator).

    Parameters
    ----------
    cls : type
        An :class:`Accountant` subclass with a ``name``.
    """
    ACCOUNTANTS[cls.name] = cls
    return cls


class Accountant:
    """The one path to ε: compose events (any mechanism's :class:`~itsa.privacy.events.Event`), then ask ε or δ.

    As dp-accounting's accountants: ``Accountant().compose(event, count)`` (chained), then
    :meth:`epsilon` at a δ or :meth:`delta` at an ε. This class is the Rényi-DP accountant
    (the events' certified curves add at each order, then one conversion, ``cks`` by default);
    the registered subclasses (:data:`ACCOUNTANTS`) answer the same question for Gaussian events
    by other methods (the exact curve, basic and advanced composition, a heuristic).

    Parameters
    ----------
    conversion : Conversion or str
        ``"cks"`` (default) or ``"mironov"`` (the RDP accountants only).
    per_round : Certified, optional
        For accountants built on a per-round ε (basic, advanced, the heuristic): that ε; by
        default the exact Gaussian curve's at one round (certified).
    delta_slack : number, optional
        ``δ'`` of advanced composition (default ``δ``).

    Examples
    --------
    >>> Accountant().compose(GaussianEvent("0.0969"), 30).epsilon("1e-5").epsilon.decimal(4)
    '1866'
    """

    name: ClassVar[str] = "rdp"
    #: Whether :meth:`delta` is answered (the RDP accountants); the Gaussian-only ones answer ε only.
    answers_delta: ClassVar[bool] = True

    def __init__(self, *, conversion: Conversion | str = Conversion.CKS, per_round: Certified | None = None,
                 delta_slack=None):
        self.events: list[tuple[Event, int]] = []
        self.conversion = choice("conversion", conversion, Conversion)
        self.per_round = per_round
        self.delta_slack = None if delta_slack is None else check_delta_slack(delta_slack)

    def compose(self, event: Event, count: int = 1) -> Accountant:
        """Add ``count`` runs of ``event``; returns the accountant (so calls chain).

        Parameters
        ----------
        event : Event
            A mechanism's event (:mod:`itsa.privacy.events`).
        count : int
            How many times the event runs.
        """
        whole_number("count", count, minimum=1)
        if not isinstance(event, Event):
            raise InvalidOption(f"{self.name} accountant: compose an Event (itsa.privacy.events), not "
                                f"{type(event).__name__}")
        if isinstance(event, GaussianEvent):        # folded, as before: one term of rounds x count
            event, count = GaussianEvent(event.noise_multiplier, event.rounds * count), 1
        self.events.append((event, count))
        return self

    def _check(self) -> None:
        if not self.events:
            raise InvalidOption(f"{self.name} accountant: compose an event first")

    def single(self) -> GaussianEvent:
        """The events as one Gaussian event: their noise multiplier (refused when they differ) and total rounds."""
        self._check()
        if not all(isinstance(e, GaussianEvent) for e, _ in self.events):
            raise InvalidOption(f"{self.name} accountant: Gaussian events only; the RDP accountant composes any")
        gaussians = [e for e, _ in self.events if isinstance(e, GaussianEvent)]
        multipliers = {e.noise_multiplier for e in gaussians}
        if len(multipliers) > 1:
            raise InvalidOption(f"{self.name} accountant: events of one noise multiplier only "
                                f"(given {len(multipliers)}); the RDP accountants compose any")
        return GaussianEvent(multipliers.pop(), sum(e.rounds for e in gaussians))

    def first_round(self, delta: Fraction) -> Certified:
        """The per-round ε: the one given, else the exact Gaussian curve's at one round."""
        return self.per_round if self.per_round is not None else one_round_epsilon(self.single().noise_multiplier,
                                                                                    delta)

    def curve(self) -> RdpCurve | RdpProfile:
        """The composed RDP bound: a linear curve when every event's is linear, else a profile of the events."""
        self._check()
        linear = linear_sum(self.events)
        return linear if linear is not None else RdpProfile(tuple(self.events))

    def bound(self, delta, orders=None) -> EpsilonBound:
        """The certified ``(ε, δ)`` of the RDP curves composed, with the order and conversion used.

        Parameters
        ----------
        delta : number
            δ in ``(0, 1)``, read exactly.
        orders : iterable of numbers, optional
            Orders to try (by default a search).
        """
        composed = self.curve()
        slack = slack_sum(self.events)
        if slack:                   # approximate Renyi bounds: the slack comes off delta first (profile.slack_sum)
            return slack_epsilon(composed, check_delta(delta), slack, self.conversion, orders)
        if isinstance(composed, RdpCurve):
            return to_epsilon(composed, delta, self.conversion, orders)
        return profile_epsilon(composed, delta, self.conversion, orders)

    def epsilon(self, delta) -> Entry:
        """ε at ``delta`` for the events composed so far.

        Parameters
        ----------
        delta : number
            δ in ``(0, 1)``, read exactly.
        """
        bound = self.bound(check_delta(delta))
        return Entry(self.name, bound.epsilon, bound.delta, {"order": order_text(bound.order)})

    def delta(self, epsilon) -> Certified:
        """The certified δ (an upper bound, at most 1) at ``epsilon`` for the events composed so far.

        Parameters
        ----------
        epsilon : number
            ``ε ≥ 0``, read exactly.
        """
        self._check()
        if not self.answers_delta:
            raise InvalidOption(f"{self.name} accountant: answers epsilon at a delta only; the RDP accountant "
                                "answers delta too")
        slack = slack_sum(self.events)
        if slack >= 1:
            return Certified("delta", Fraction(1), Fraction(1), Direction.UPPER,
                             f"the events' delta slack {safe_decimal(slack, 4)} is at least 1")
        found = profile_delta(RdpProfile(tuple(self.events)), epsilon, self.conversion)[0]
        if not slack:
            return found
        high = min(Fraction(1), found.upper() + slack)
        return Certified("delta", high, high, Direction.UPPER, f"{found.method}; plus the events' delta slack "
                                                               f"{safe_decimal(slack, 4)} (composed: they add)")



class RdpAccountant(Accountant):
    """Rényi DP with a named conversion (the :class:`Accountant` with ``conversion`` given first).

    Parameters
    ----------
    conversion : Conversion or str
        ``"cks"`` (default) or ``"mironov"``.
    """

    name = "rdp"

    def __init__(self, conversion: Conversion | str = Conversion.CKS, **options):
        super().__init__(conversion=conversion, **options)


@register
class MironovAccountant(RdpAccountant):
    """RDP with Mironov's conversion (Mironov 2017, Prop. 3).

    Parameters
    ----------
    per_round, delta_slack
        As for :class:`Accountant`.
    """

    name = "mironov"

    def __init__(self, **options):
        super().__init__(Conversion.MIRONOV, **options)


@register
class CksAccountant(RdpAccountant):
    """RDP with the Canonne-Kamath-Steinke conversion (2020, Prop. 12; dp-accounting's).

    Parameters
    ----------
    per_round, delta_slack
        As for :class:`Accountant`.
    """

    name = "cks"

    def __init__(self, **options):
        super().__init__(Conversion.CKS, **options)


@register
class TightAccountant(Accountant):
    """The exact (ε, δ) curve of composed Gaussian mechanisms (Balle-Wang 2018, Thm 8), enclosed in balls.

    Parameters
    ----------
    per_round, delta_slack
        As for :class:`Accountant`.
    """

    name = "tight"

    answers_delta = False

    def epsilon(self, delta) -> Entry:
        event = self.single()
        d = check_delta(delta)
        return Entry(self.name, gaussian_tight_epsilon(event.noise_multiplier, event.rounds, d), d)


@register
class BasicAccountant(Accountant):
    """Basic composition ``(T ε, T δ)`` of the per-round ε (Dwork-Roth Thm 3.16).

    Parameters
    ----------
    per_round, delta_slack
        As for :class:`Accountant`.
    """

    name = "basic"

    answers_delta = False

    def epsilon(self, delta) -> Entry:
        d = check_delta(delta)
        eps, held = basic_composition(self.first_round(d), d, self.single().rounds)
        return Entry(self.name, eps, held)


@register
class AdvancedAccountant(Accountant):
    """Advanced composition of the per-round ε (Dwork-Rothblum-Vadhan 2010) at ``T δ + δ'``.

    Parameters
    ----------
    per_round, delta_slack
        As for :class:`Accountant`.
    """

    name = "advanced"

    answers_delta = False

    def epsilon(self, delta) -> Entry:
        d = check_delta(delta)
        eps, held = advanced_composition(self.first_round(d), d, self.single().rounds, self.delta_slack)
        return Entry(self.name, eps, held)


@register
class SqrtRoundsHeuristic(Accountant):
    """``ε √T``: a scaling heuristic, never a bound (shown so that it can be compared).

    Parameters
    ----------
    per_round, delta_slack
        As for :class:`Accountant`.
    """

    name = "sqrt_rounds_heuristic"

    answers_delta = False

    def epsilon(self, delta) -> Entry:
        d = check_delta(delta)
        return Entry(self.name, sqrt_rounds_heuristic(self.first_round(d), self.single().rounds), d)


def _per_round_of(z: Fraction, d: Fraction, per_round_epsilon, per_round) -> Certified:
    if per_round_epsilon is not None:
        check_epsilon(per_round_epsilon)
        if per_round is not None:
            raise conflict(f"per-round epsilon {excerpt(per_round_epsilon)}", f"per-round source {excerpt(per_round)}",
                           "each names the per-round eps of basic and advanced composition")
    return one_round_epsilon(z, d, per_round_epsilon, PerRound.TIGHT if per_round is None else per_round)


def account(noise_multiplier, rounds: int = 1, delta=DEFAULT_DELTA, *, per_round_epsilon=None, delta_slack=None,
            per_round: PerRound | str | None = None, accountants: Iterable[str] | None = None,
            crosscheck: bool = False, tight: bool = True) -> Accounting:
    """The ε after ``rounds`` Gaussian rounds at ``noise_multiplier`` under every accountant asked.

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
    accountants : iterable of str, optional
        Names of :data:`ACCOUNTANTS` to ask (default: all, in their order).
    crosscheck : bool
        Add dp-accounting's RDP and PLD floats (the ``crosscheck`` extra).
    tight : bool
        Ask the exact Gaussian curve (``tight``) too (when ``accountants`` is not given).
    """
    z = fraction("noise multiplier", noise_multiplier, low=0)
    whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    slack = None if delta_slack is None else check_delta_slack(delta_slack)     # every input before any work
    names = [choice("accountant", n, ACCOUNTANTS) for n in (ACCOUNTANTS if accountants is None else accountants)]
    if accountants is None and not tight:
        names.remove(TightAccountant.name)
    first = _per_round_of(z, d, per_round_epsilon, per_round)
    entries: dict[str, Entry] = {}
    notes: tuple[str, ...] = ()
    for name in dict.fromkeys(names):
        accountant = ACCOUNTANTS[name](per_round=first, delta_slack=slack).compose(GaussianEvent(z, rounds))
        try:
            entries[name] = accountant.epsilon(d)
        except TooLarge as exc:         # the exact curve, or T eps (e^eps - 1), beyond any exact number
            notes += (f"{name} omitted: {exc}",)
    if "tight" in entries and not converged(entries["tight"].epsilon):
        notes += ("tight: the exact curve's bisection did not converge; its upper end is still a bound "
                  "but loose: use the cks row",)
    vacuous = [k for k, e in entries.items() if e.epsilon.direction is Direction.VACUOUS]
    if vacuous:
        notes += (f"{' and '.join(vacuous)} composition: delta >= 1 after {rounds} rounds: vacuous (bounds nothing)",)
    checks, more = _crosscheck(z, rounds, d) if crosscheck else ({}, ())
    inputs = {"noise_multiplier": exact_text(z), "rounds": rounds, "delta": exact_text(d),
              "per_round_epsilon": None if per_round_epsilon is None else exact_text(check_epsilon(per_round_epsilon)),
              "per_round": None if per_round is None else str(choice("per-round source", per_round, PerRound)),
              "delta_slack": None if slack is None else exact_text(slack), "accountants": list(entries),
              "crosscheck": crosscheck}
    return Accounting(noise_multiplier=z, rounds=rounds, delta=d, per_round=first, entries=entries, inputs=inputs,
                      crosscheck=checks, notes=notes + more)


def _crosscheck(z: Fraction, rounds: int, d: Fraction) -> tuple[dict[str, float], tuple[str, ...]]:
    """dp-accounting's floats for the same events, and notes on what was left out."""
    from itsa.privacy.tight import dp_accounting_epsilon

    floats = _floats(z=z, rounds=rounds, delta=d)
    if floats is None:
        return {}, ("dp-accounting cross-check omitted: z, T or delta is outside the range of float64",)
    notes: tuple[str, ...] = ()
    mu = Fraction(math.isqrt(rounds)) / z         # about sqrt(T)/z: the PLD grid grows with it
    kinds = ("rdp", "pld") if mu <= MAX_PLD_MU else ("rdp",)
    if mu > MAX_PLD_MU:
        notes += (f"dp-accounting pld cross-check omitted: sqrt(T)/z = {safe_decimal(mu, 4)} is past "
                  f"MAX_PLD_MU = {MAX_PLD_MU} (its grid would take minutes and gigabytes)",)
    checks = {}
    for kind in kinds:
        try:
            checks[kind] = dp_accounting_epsilon(*floats, kind)
        except (ValueError, ArithmeticError) as exc:       # its own limits: a float cross-check, not ours
            notes += (f"dp-accounting {kind} cross-check omitted: it raised {type(exc).__name__} "
                      f"({excerpt(str(exc))})",)
    return checks, notes
