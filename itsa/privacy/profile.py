"""Events composed at each order: ``ε(q) ≤ Σ count · ε_event(q)`` (RDP adds at a fixed order).

:class:`RdpProfile` is what the accountant (:class:`itsa.privacy.Accountant`)
converts when its events are not all linear in the order; :func:`linear_sum` is
their one linear curve when they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import flint

from itsa._util.certified import precision
from itsa.privacy.events import Event, as_order
from itsa.privacy.rdp import RdpCurve, compose

__all__ = ["RdpProfile", "linear_sum"]


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
