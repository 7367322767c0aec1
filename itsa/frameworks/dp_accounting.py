"""A plan's dominating Gaussian pair, or a zCDP-form privacy bound, written as dp-accounting's events, in their own
named-tuple JSON.

:func:`events_from_pair` writes a plan's dominating Gaussian pair
(:class:`itsa.planning.accounting.GaussianPair`) as ``GaussianDpEvent`` events
that both of dp-accounting's accountants take, with the δ to ask them at
(:class:`PairExport`). What follows is the zCDP form, for noise without such a pair.

dp-accounting has no event for a sum of discrete Gaussian shares or for the
plan's other mechanisms, but it has ``ZCDpEvent(rho, xi)``: a mechanism with
``RDP(α) ≤ ξ + ρ α`` at every order ``α > 1``. Every curve of
:mod:`itsa.privacy` has that form (``ε(q) ≤ c q``: ``ρ = c``, ``ξ = 0``), and
so has the first branch of the distributed discrete Gaussian's bound
(``ρ = Δ²/(2nσ²)``, ``ξ = τd``). Over ``T`` rounds the event is
``SelfComposedDpEvent(event, T)``; when each round samples its clients at
rate ``q`` it is ``SelfComposedDpEvent(PoissonSampledDpEvent(q, event), T)``.

The JSON is ``DpEvent.to_named_tuple()``'s form, a named tuple as an object
(``module_name``, ``class_name``, then the fields): :func:`named_tuple_from_json`
turns it back into named tuples, which ``DpEvent.from_named_tuple`` rebuilds.
The floats are ``ρ``, ``ξ`` and ``q`` rounded *up* to the next double, so the
exported event is never less private than the bound it stands for.

Examples
--------
>>> from fractions import Fraction
>>> e = dp_accounting_events(rho=Fraction(1, 200), rounds=100)
>>> e.event["class_name"], e.event["count"], e.event["event"]["rho"]
('SelfComposedDpEvent', 100, 0.005)
>>> named_tuple_from_json(e.event).event.class_name
'ZCDpEvent'
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from itsa._util.certified import (
    Certified,
    Direction,
    exact_text,
    float_down,
    float_up,
    precision,
    safe_decimal,
    to_arb,
)
from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa._util.extras import require
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption
from itsa.privacy.accounting import Accountant
from itsa.privacy.conversion import Conversion
from itsa.privacy.events import DdgBound, DistributedDiscreteGaussianEvent, Event, ZcdpEvent
from itsa.privacy.rdp import RdpCurve, number
from itsa.privacy.subsampled import PoissonSampledEvent

__all__ = ["DpAccountingExport", "PairExport", "dp_accounting_events", "events_from_curve", "events_from_event",
           "events_from_pair", "named_tuple_from_json", "float_up", "DP_EVENT_MODULE", "NEIGHBORING_RELATION"]

#: The module of dp-accounting's events (``DpEvent.to_named_tuple``'s ``module_name``).
DP_EVENT_MODULE = "dp_accounting.dp_event"
#: The neighbouring relation an accountant of the Gaussian pair's events is built with: its default, under which a
#: ``GaussianDpEvent(z)`` is ``N(0, z²)`` against ``N(1, z²)`` (the plan's sensitivity already counts replace-one's
#: factor 2; dp-accounting's ``REPLACE_ONE`` would count it again).
NEIGHBORING_RELATION = "ADD_OR_REMOVE_ONE"
#: What dp-accounting 0.6's accountants make of the events written here (from its source).
SAMPLED_NOTE = ("dp-accounting's RdpAccountant accounts a Poisson-sampled event only over Gaussian events, and its "
                "PLD accountant has no zCDP event: a sampled zCDP tree round-trips but neither accountant takes it")


def _event(class_name: str, **fields: Any) -> dict[str, Any]:
    return {"module_name": DP_EVENT_MODULE, "class_name": class_name, **fields}


def named_tuple_from_json(obj: Any) -> Any:
    """The named tuples of ``DpEvent.to_named_tuple`` back from their JSON (an object per named tuple).

    An object with ``module_name`` and ``class_name`` becomes a named tuple
    with its keys as fields, in order; lists and other values are kept.
    dp-accounting is not needed.

    >>> nt = named_tuple_from_json({"module_name": "m", "class_name": "C", "rho": 0.5, "xi": 0.0})
    >>> nt._fields, nt.rho
    (('module_name', 'class_name', 'rho', 'xi'), 0.5)
    """
    if isinstance(obj, dict):
        values = {key: named_tuple_from_json(value) for key, value in obj.items()}
        if "module_name" in values and "class_name" in values:
            kind = namedtuple(f"_{values['class_name']}NamedTuple", list(values))  # type: ignore[misc]
            return kind(**values)
        return values
    if isinstance(obj, list):
        return [named_tuple_from_json(value) for value in obj]
    return obj


@dataclass(frozen=True, kw_only=True, repr=False)
class DpAccountingExport(Displayable):
    """A bound ``RDP(α) ≤ ξ + ρ α`` per round, over ``rounds``, as dp-accounting's events.

    Parameters
    ----------
    rho, xi : Fraction
        The bound per round (exact, or the upper end of a certified ball).
    rounds : int
        ``T``, the rounds composed.
    sampling_rate : Fraction or None
        ``q``, each round's Poisson sampling rate (``None``: every client, every round).
    event : dict
        The event tree in ``DpEvent.to_named_tuple``'s form, as JSON.
    source : str
        Where ``ρ`` and ``ξ`` come from.
    """

    rho: Fraction
    xi: Fraction
    rounds: int
    sampling_rate: Fraction | None
    event: dict[str, Any]
    source: str

    def named_tuple(self) -> Any:
        """The event tree as named tuples (what ``DpEvent.from_named_tuple`` takes)."""
        return named_tuple_from_json(self.event)

    def dp_event(self) -> Any:
        """dp-accounting's ``DpEvent`` of the tree (needs dp-accounting: ``itsa[crosscheck]``)."""
        require("dp_accounting")
        dp_event = require(DP_EVENT_MODULE)
        return dp_event.DpEvent.from_named_tuple(self.named_tuple())

    def epsilon(self, delta, conversion: Conversion | str = Conversion.CKS) -> Certified | None:
        """itsa's certified ``ε`` at ``delta`` for the same curve, or ``None`` for a sampled tree.

        The accountant's: the zCDP event (``ε(q) ≤ ξ + ρ q``) composed over the rounds.
        """
        if self.sampling_rate is not None:
            return None
        event = ZcdpEvent(rho=self.rho, xi=self.xi, source=self.source)
        return Accountant(conversion=conversion).compose(event, self.rounds).bound(delta).epsilon

    def headline(self) -> str:
        sampled = "" if self.sampling_rate is None else f", Poisson-sampled at rate {exact_text(self.sampling_rate)}"
        return (f"ZCDpEvent(rho={safe_decimal(self.rho, 6)}, xi={safe_decimal(self.xi, 6)}) composed over "
                f"{self.rounds:,} rounds{sampled}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("rho", f"{exact_text(self.rho)} per round (upper bound); written as {self.event_rho()!r}"),
                ("xi", f"{exact_text(self.xi)} per round (upper bound); written as {self.event_xi()!r}"),
                ("rounds", f"{self.rounds:,}"),
                ("source", self.source),
                ("event", _text(self.event))]
        if self.sampling_rate is not None:
            rows.append(("accountants", SAMPLED_NOTE))
        return rows

    def _zcdp(self) -> dict[str, Any]:
        inner = self.event["event"]
        return inner["event"] if inner["class_name"] == "PoissonSampledDpEvent" else inner

    def event_rho(self) -> float:
        return float(self._zcdp()["rho"])

    def event_xi(self) -> float:
        return float(self._zcdp()["xi"])

    def to_dict(self) -> dict[str, Any]:
        return {"dp_event": self.event, "rho": frac(self.rho), "xi": frac(self.xi), "rounds": self.rounds,
                "sampling_rate": frac(self.sampling_rate), "source": self.source,
                "rounding": "rho, xi and the sampling rate are rounded up to the next double",
                "notes": [SAMPLED_NOTE] if self.sampling_rate is not None else []}


def _text(event: dict[str, Any]) -> str:
    fields = ", ".join(f"{k}=" + (_text(v) if isinstance(v, dict) else repr(v)) for k, v in event.items()
                       if k not in ("module_name", "class_name"))
    return f"{event['class_name']}({fields})"


def dp_accounting_events(*, rho, xi=0, rounds: int = 1, sampling_rate=None,
                         source: str = "RDP(alpha) <= xi + rho alpha per round") -> DpAccountingExport:
    """The events of a bound ``RDP(α) ≤ ξ + ρ α`` per round, composed over ``rounds``, maybe Poisson-sampled.

    Parameters
    ----------
    rho : number
        ``ρ ≥ 0`` per round, read exactly.
    xi : number
        ``ξ ≥ 0`` per round.
    rounds : int
        ``T ≥ 1``.
    sampling_rate : number, optional
        ``q ∈ (0, 1]``: each round runs on a Poisson sample of the population.
    source : str
        Where the bound comes from, kept with the export.

    Returns
    -------
    DpAccountingExport
    """
    r = fraction("rho", rho, low=0, closed=True)
    x = fraction("xi", xi, low=0, closed=True)
    t = whole_number("rounds", rounds, minimum=1)
    q = None
    event = _event("ZCDpEvent", rho=float_up(r), xi=float_up(x))
    if sampling_rate is not None:
        q = fraction("sampling rate", sampling_rate, low=0, high=1, closed=True)
        if q == 0:
            raise InvalidOption("sampling rate: must be > 0")
        if q < 1:
            event = _event("PoissonSampledDpEvent", sampling_probability=float_up(q), event=event)
        else:
            q = None
    return DpAccountingExport(rho=r, xi=x, rounds=t, sampling_rate=q,
                              event=_event("SelfComposedDpEvent", event=event, count=t), source=source)


def events_from_curve(curve: Any, *, rounds: int = 1, sampling_rate=None) -> DpAccountingExport:
    """The events of one round's linear RDP curve (``ε(q) ≤ c q``: ``ρ = c``, ``ξ = 0``), over ``rounds``.

    Parameters
    ----------
    curve : RdpCurve or an object with ``linear()``
        One round's curve (a privacy event's :meth:`linear` is read); ``ρ`` is
        the upper end of its certified coefficient.
    rounds : int
        ``T``.
    sampling_rate : number, optional
        ``q``, as in :func:`dp_accounting_events`.
    """
    linear = curve.linear() if hasattr(curve, "linear") else curve
    if not isinstance(linear, RdpCurve):
        raise InvalidOption("curve: an RdpCurve (eps(q) <= c q) is needed: this bound is not linear in the order")
    coefficient = Certified.from_arb("rho", linear.coefficient(), Direction.UPPER, linear.method())
    return dp_accounting_events(rho=coefficient.upper(), rounds=rounds, sampling_rate=sampling_rate,
                                source=f"rho = the certified coefficient of {linear.method()}")


def _ddg_first_branch(event: DistributedDiscreteGaussianEvent) -> tuple[Fraction, Fraction, str]:
    """``ρ = Δ²/(2nσ²)`` and ``ξ = τd``: the first branch of the sharp bound, upper ends of certified balls."""
    with precision():
        s = to_arb(number("scale", event.scale))
        l2 = to_arb(number("sensitivity", event.sensitivity, positive=False))
        rho = l2 * l2 / (2 * event.survivors * s * s)
        xi = event.tau() * event.dimension
    high = [Certified.from_arb(name, ball, Direction.UPPER, "").upper() for name, ball in (("rho", rho), ("xi", xi))]
    # tau is exp(-2 pi^2 sigma^2 ...): its ball's upper end can need thousands of digits; the double above it
    # (what the event writes) is a bound too, and prints in a few hundred
    return high[0], Fraction(float_up(high[1])), ("the first branch of the distributed discrete Gaussian's bound, q D^2/(2 n s^2) + "
                              f"tau d, n = {event.survivors} survivors (certified; the sharp bound's minimum is lower)")


def events_from_event(event: Event, *, rounds: int = 1) -> DpAccountingExport:
    """The events of one round's :mod:`itsa.privacy` event, over ``rounds``, in zCDP form.

    - an event with a linear curve (``ε(q) ≤ c q``: the Gaussian, the central discrete Gaussian, the
      conservative distributed discrete Gaussian, PSA layers): ``ρ = c``, ``ξ = 0``;
    - the sharp distributed discrete Gaussian: its first branch, ``ρ = Δ²/(2nσ²)``, ``ξ = τd``;
    - a Poisson-sampled one of these: the same, under ``PoissonSampledDpEvent`` at its rate.

    Parameters
    ----------
    event : Event
        One round's mechanism.
    rounds : int
        ``T``.

    Raises
    ------
    InvalidOption
        An event with no bound of the form ``ξ + ρ q`` at every order (a bound certified at whole
        orders only, as the Poisson-type mechanism's).
    """
    from itsa.planning.frameworks_units import dp_accounting_refusal

    reason = dp_accounting_refusal(population=None, distributed=False, event=event)    # the plan's row's too
    if reason is not None:
        raise InvalidOption(f"export dp-accounting: {reason}")
    rate: Fraction | None = None
    if isinstance(event, PoissonSampledEvent):
        rate = event.rate
        event = event.event
    if isinstance(event, DistributedDiscreteGaussianEvent) and event.bound is DdgBound.SHARP:
        rho, xi, source = _ddg_first_branch(event)
        return dp_accounting_events(rho=rho, xi=xi, rounds=rounds, sampling_rate=rate, source=source)
    curve = event.linear()
    assert curve is not None          # dp_accounting_refusal asks the same
    return events_from_curve(curve, rounds=rounds, sampling_rate=rate)


@dataclass(frozen=True, kw_only=True, repr=False)
class PairExport(Displayable):
    """A plan's dominating Gaussian pair as dp-accounting's events, and the δ to ask its accountants for.

    ``SelfComposedDpEvent(GaussianDpEvent(z), T)``, or with a Poisson sample
    ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(z)), T)``: both of dp-accounting 0.6's
    accountants take it (built with their default neighbouring relation, :data:`NEIGHBORING_RELATION`). ``z``
    is rounded down and ``q`` up to a double (a pair that dominates too); :attr:`accountant_delta` is
    ``δ − T δ₀`` rounded down, so that ``get_epsilon(accountant_delta)`` is an ε at the plan's δ.

    Parameters
    ----------
    pair : GaussianPair
        The plan's pair (:func:`itsa.planning.accounting.round_pair`).
    event : dict
        The tree in ``DpEvent.to_named_tuple``'s JSON form.
    """

    pair: Any
    event: dict[str, Any]

    @property
    def accountant_delta(self) -> float:
        """``δ − T δ₀``, rounded down to a double: the δ to pass to ``get_epsilon``."""
        return float_down(self.pair.accountant_delta)

    @property
    def sampling_rate(self) -> Fraction | None:
        return self.pair.rate

    def named_tuple(self) -> Any:
        """The event tree as named tuples (what ``DpEvent.from_named_tuple`` takes)."""
        return named_tuple_from_json(self.event)

    def dp_event(self) -> Any:
        """dp-accounting's ``DpEvent`` of the tree (needs dp-accounting: ``itsa[crosscheck]``)."""
        require("dp_accounting")
        return require(DP_EVENT_MODULE).DpEvent.from_named_tuple(self.named_tuple())

    def epsilon(self, delta=None, conversion: Conversion | str = Conversion.CKS) -> None:
        """No itsa curve of its own: the pair's ε is the plan's when :attr:`certifies`, see the plan."""
        return None

    @property
    def certifies(self) -> bool:
        return bool(self.pair.certifies)

    def exactness(self) -> list[str]:
        """Which events are the pair itself and which are rounded (in its safe direction)."""
        p = self.pair
        said = [f"GaussianDpEvent: noise_multiplier {self.gaussian()!r} is 1/mu'' = "
                f"{safe_decimal(p.noise_multiplier, 12, up=False)} rounded down to a double (a dominating pair "
                "too); mu'' is the upper end of its certified ball"]
        if p.rate is not None:
            said.append(f"PoissonSampledDpEvent: sampling_probability {float_up(p.rate)!r} is the rate "
                        f"{exact_text(p.rate)} rounded up to a double")
        said.append(f"SelfComposedDpEvent: count {p.rounds}, exact")
        said.append(f"accountant_delta {self.accountant_delta!r} = delta - T delta0 (delta0 "
                    f"{safe_decimal(p.slack, 3)} per round, the pair's additive part, which no dp-accounting event "
                    "holds), rounded down")
        return said

    def gaussian(self) -> float:
        inner = self.event["event"]
        return float((inner["event"] if inner["class_name"] == "PoissonSampledDpEvent" else inner)["noise_multiplier"])

    def headline(self) -> str:
        return self.pair.describe()

    def rows(self) -> list[tuple[str, str]]:
        return ([("event", _text(self.event)), ("accountant delta", repr(self.accountant_delta)),
                 ("neighboring_relation", f"{NEIGHBORING_RELATION} (the accountants' default)"),
                 ("certifies", "the plan's epsilon is this pair's" if self.certifies else
                  f"the pair dominates every round; the plan's epsilon comes from {self.pair.method}")]
                + [("exactness", line) for line in self.exactness()])

    def to_dict(self) -> dict[str, Any]:
        return {"dp_event": self.event, "accountant_delta": self.accountant_delta,
                "neighboring_relation": NEIGHBORING_RELATION, "pair": self.pair.to_dict(),
                "exactness": self.exactness(), "notes": []}


def events_from_pair(pair) -> PairExport:
    """The events of a plan's dominating Gaussian pair (:class:`itsa.planning.accounting.GaussianPair`).

    >>> from fractions import Fraction
    >>> from itsa.planning.accounting import GaussianPair
    >>> pair = GaussianPair(mu=Fraction(1, 10), slack=Fraction(1, 10**30), rate=Fraction(1, 100), rounds=50,
    ...                     delta=Fraction(1, 10**6), certifies=True, method="dominating")
    >>> e = events_from_pair(pair).to_dict()
    >>> e["dp_event"]["event"]["event"], Fraction(e["accountant_delta"]) < Fraction(1, 10**6)
    ({'module_name': 'dp_accounting.dp_event', 'class_name': 'GaussianDpEvent', 'noise_multiplier': 10.0}, True)
    """
    event = _event("GaussianDpEvent", noise_multiplier=float_down(pair.noise_multiplier))
    if pair.rate is not None:
        event = _event("PoissonSampledDpEvent", sampling_probability=float_up(pair.rate), event=event)
    return PairExport(pair=pair, event=_event("SelfComposedDpEvent", event=event, count=pair.rounds))
