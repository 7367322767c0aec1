"""Events composed at each order: ``ε(q) ≤ Σ count · ε_event(q)`` (RDP adds at a fixed order).

:class:`RdpProfile` is what the accountant (:class:`itsa.privacy.Accountant`)
converts when its events are not all linear in the order; :func:`linear_sum` is
their one linear curve when they are. Events whose Rényi bounds hold outside a
slack (:attr:`~itsa.privacy.events.Event.slack`) compose it by
:func:`slack_sum`, and :func:`slack_epsilon` converts at δ less that sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, Provenance, precision, safe_decimal
from itsa._util.checks import choice, fraction
from itsa.privacy.conversion import Conversion, EpsilonBound, check_delta, profile_epsilon, to_epsilon
from itsa.privacy.events import Event, as_order
from itsa.privacy.rdp import RdpCurve, compose

__all__ = ["RdpProfile", "linear_sum", "slack_sum", "slack_epsilon"]


@dataclass(frozen=True)
class RdpProfile:
    """Events composed: ``ε(q) ≤ Σ count · ε_event(q)`` at each order (RDP adds at a fixed order).

    Parameters
    ----------
    parts : tuple of (Event, int)
        Each event and how many times it runs.
    """

    parts: tuple[tuple[Event, int], ...]

    @property
    def integer_orders(self) -> bool:
        """True when some event is certified at whole orders only (the sum then is too)."""
        return any(event.integer_orders for event, _ in self.parts)

    def at(self, order) -> flint.arb:
        """The certified composed bound at ``order`` (a ball)."""
        q = as_order(order)
        with precision():
            total = flint.arb(0)
            for event, count in self.parts:
                total += count * event.rdp_at(q)
            return total

    def method(self) -> str:
        return " + ".join(f"{count} x {event.label}" for event, count in self.parts) + " (RDP adds at each order)"

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for event, _ in self.parts for w in event.warnings)


def linear_sum(parts: Sequence[tuple[Event, int]]) -> RdpCurve | None:
    """The composed linear curve of ``(event, count)`` parts, or ``None`` when one is not linear."""
    curves = []
    for event, count in parts:
        curve = event.linear()
        if curve is None:
            return None
        curves.append(curve * count)
    return compose(curves)


def slack_sum(parts: Sequence[tuple[Event, int]]) -> Fraction:
    """``Σ count · δ₀``: the δ the events' slacks (:attr:`~itsa.privacy.events.Event.slack`) take, composed.

    Each run's laws are ``(1 − δ₀) P' + δ₀ P''`` against ``(1 − δ₀) Q' + δ₀ Q''`` with the Rényi bound on
    ``(P', Q')``: flip a coin of bias ``δ₀`` per run, the same in both worlds; the hockey stick is jointly
    convex, so the composed ``δ`` is at most the good runs' (Rényi, composed adaptively) plus the chance
    ``1 − Π (1 − δ₀) ≤ Σ δ₀`` that some run is not good.
    """
    return sum((count * event.slack for event, count in parts), Fraction(0))

#: The ε printed where the events' δ slack takes all of δ (no ε bounds the events there).
NO_EPSILON = Fraction(2**64)


def slack_epsilon(composed, delta: Fraction, slack: Fraction, conversion: Conversion | str = Conversion.CKS,
                  orders: Iterable | None = None) -> EpsilonBound:
    """The certified ``ε`` at ``δ`` of events whose Rényi bounds hold outside a ``slack`` (their composed
    :attr:`~itsa.privacy.events.Event.slack`, :func:`slack_sum`): the curve converted at
    ``δ − slack``; vacuous (ε printed as ``2^64``) where the slack reaches ``δ``.

    Parameters
    ----------
    composed : RdpCurve or Profile
        The events' composed Rényi bound (of the pairs their slack leaves).
    delta : Fraction
        ``δ`` in ``(0, 1)``.
    slack : Fraction
        The composed slack, ``≥ 0``.
    conversion, orders
        As in :func:`to_epsilon`.

    >>> from itsa.privacy.rdp import gaussian_curve
    >>> from itsa.privacy.conversion import to_epsilon
    >>> plain = to_epsilon(gaussian_curve(1) * 10, Fraction(1, 10**5))
    >>> bound = slack_epsilon(gaussian_curve(1) * 10, Fraction(1, 10**5), Fraction(1, 10**6))
    >>> plain.epsilon.upper() < bound.epsilon.upper(), bound.delta
    (True, Fraction(1, 100000))
    """
    conv = conversion if isinstance(conversion, Conversion) else choice("conversion", conversion, Conversion)
    d = check_delta(delta)
    gap = fraction("slack", slack, low=0, closed=True)
    if not gap < d:
        eps = Certified("epsilon", NO_EPSILON, NO_EPSILON, Direction.VACUOUS,
                        f"the events' delta slack {safe_decimal(gap, 4)} is at least delta {safe_decimal(d, 4)}: "
                        "no epsilon is bounded")
        return EpsilonBound(epsilon=eps, delta=d, order=Fraction(2), conversion=conv, curve=composed)
    inner = (to_epsilon(composed, d - gap, conv, orders) if isinstance(composed, RdpCurve)
             else profile_epsilon(composed, d - gap, conv, orders))
    step = (f"at delta - {safe_decimal(gap, 4, up=True)} (the events' delta slack, composed: the Renyi bounds "
            "hold outside it)")
    method = inner.epsilon.method
    method = method.then(step) if isinstance(method, Provenance) else f"{method}; {step}"
    return replace(inner, epsilon=replace(inner.epsilon, method=method), delta=d)
