"""Events composed at each order: ``ε(q) ≤ Σ count · ε_event(q)`` (RDP adds at a fixed order).

:class:`RdpProfile` is what the accountant (:class:`itsa.privacy.Accountant`)
converts when its events are not all linear in the order; :func:`linear_sum` is
their one linear curve when they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint

from itsa._util.certified import precision
from itsa.privacy.events import Event, as_order
from itsa.privacy.rdp import RdpCurve, compose

__all__ = ["RdpProfile", "linear_sum", "slack_sum"]


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
