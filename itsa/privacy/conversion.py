"""From a Rényi-DP curve to (ε, δ): the Mironov and the Canonne–Kamath–Steinke conversions.

A float optimiser picks the Rényi order (it only chooses where to look); the
conversion is then evaluated at that exact order in ball arithmetic, so the
printed ε is a valid upper bound whichever order was picked.

- ``mironov``: ``ε = ε(q) + ln(1/δ)/(q − 1)`` (Mironov, "Rényi differential
  privacy", CSF 2017, arXiv 1702.07476, Proposition 3).
- ``cks``: ``ε = ε(q) + ln(1 − 1/q) − (ln δ + ln q)/(q − 1)`` (Canonne,
  Kamath, Steinke, "The discrete Gaussian for differential privacy",
  NeurIPS 2020, arXiv 2004.00010, Proposition 12; the same as Balle et al. 2020, Theorem 21,
  and dp-accounting's conversion). Never larger than ``mironov`` at the same
  order.

Examples
--------
>>> from fractions import Fraction
>>> from itsa.privacy.rdp import gaussian_curve
>>> curve = gaussian_curve("0.09689610525210778") * 30
>>> to_epsilon(curve, Fraction(1, 10**5), Conversion.MIRONOV).epsilon.decimal(4)
'1869'
>>> to_epsilon(curve, Fraction(1, 10**5), "cks").epsilon.decimal(4)
'1866'
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, exact_text, precision, safe_decimal, to_arb
from itsa._util.checks import choice, fraction
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.privacy.rdp import RdpCurve

__all__ = ["Conversion", "EpsilonBound", "to_epsilon", "convert_at", "check_delta", "optimal_order"]

#: Orders are searched for in ``1 + exp(x)`` for ``x`` in this range.
LOG_ORDER_RANGE = (-30.0, 30.0)
#: The order is never closer to 1 than this.
MIN_ORDER_GAP = Fraction(1, 2**60)


class Conversion(StrEnum):
    """The RDP-to-(ε, δ) conversion."""

    MIRONOV = "mironov"
    CKS = "cks"


METHODS = {
    Conversion.MIRONOV: "RDP -> (eps, delta): eps(q) + ln(1/delta)/(q-1) (Mironov 2017, Prop. 3)",
    Conversion.CKS: "RDP -> (eps, delta): eps(q) + ln(1-1/q) - (ln delta + ln q)/(q-1) "
                    "(Canonne-Kamath-Steinke 2020, Prop. 12)",
}


def check_delta(delta) -> Fraction:
    """``delta`` as an exact Fraction in ``(0, 1)`` (one line, exit 2 otherwise)."""
    return fraction("delta", delta, low=0, high=1)


@dataclass(frozen=True, kw_only=True, repr=False)
class EpsilonBound(Displayable):
    """A certified ``(ε, δ)`` guarantee: ``ε`` an upper bound at the exact ``order`` by ``conversion``."""

    epsilon: Certified
    delta: Fraction
    order: Fraction
    conversion: Conversion
    curve: RdpCurve

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.curve.warnings

    def to_dict(self, digits: int = 6) -> dict:
        return {"conversion": str(self.conversion), "epsilon": self.epsilon.to_dict(digits),
                "delta": exact_text(self.delta), "order": order_text(self.order),
                "order_exact": str(self.order), "rdp": self.curve.method(), "warnings": list(self.warnings)}

    def headline(self) -> str:
        return f"eps <= {self.epsilon.decimal()} at delta = {_delta(self.delta)} ({self.conversion})"

    def rows(self) -> list[tuple[str, str]]:
        return [("epsilon", f"{self.epsilon.decimal(8)} ({self.epsilon.direction})"),
                ("delta", _delta(self.delta)), ("order q", order_text(self.order)),
                ("conversion", METHODS[self.conversion]), ("rdp", self.curve.method())]


def order_text(order: Fraction) -> str:
    """An order ``q > 1`` that never reads as 1: ``1 + 9.357e-14`` close to 1, else 8 digits (rounded down).

    >>> order_text(1 + Fraction(1, 10**13)), order_text(Fraction(7, 2))
    ('1 + 1e-13', '3.5')
    """
    if order - 1 < Fraction(1, 10**6):
        return f"1 + {safe_decimal(order - 1, 4, up=False)}"
    return safe_decimal(order, 8, up=False)


def _delta(d: Fraction) -> str:
    return exact_text(d)


def convert_at(coefficient: flint.arb, order, delta: Fraction, conversion: Conversion) -> flint.arb:
    """The conversion's ε at one exact ``order`` for the curve ``ε(q) = coefficient · q`` (a ball)."""
    with precision():
        q = to_arb(order)
        if not q > 1:
            raise InvalidOption(f"order: must be > 1, not {order}")
        log_delta = to_arb(delta).log()
        rdp = coefficient * q
        if conversion is Conversion.MIRONOV:
            return rdp - log_delta / (q - 1)
        return rdp + (-1 / q).log1p() - (log_delta + q.log()) / (q - 1)


def _float_epsilon(c: float, x: float, log_delta: float, conversion: Conversion) -> float:
    q = 1.0 + math.exp(x)
    if conversion is Conversion.MIRONOV:
        return c * q - log_delta / (q - 1)
    return c * q + math.log1p(-1 / q) - (log_delta + math.log(q)) / (q - 1)


def optimal_order(c: float, delta: Fraction, conversion: Conversion, log_c: float | None = None) -> Fraction:
    """A good order ``q > 1`` for ``ε(q) = c q`` (a float search; only its choice, not its value, is used).

    For ``mironov`` the minimiser is ``1 + sqrt(ln(1/δ)/c)``; for ``cks`` a
    bounded scalar search over ``ln(q − 1)`` around it. ``log_c`` (``ln c``)
    may be given for a ``c`` beyond the floats.
    """
    log_delta = math.log(delta.numerator) - math.log(delta.denominator)
    if log_c is None:
        if c <= 0:
            return Fraction(10**6)
        log_c = math.log(c)
    if not math.isfinite(log_c):
        return Fraction(10**6) if log_c < 0 else 1 + MIN_ORDER_GAP
    x0 = 0.5 * (math.log(max(-log_delta, sys.float_info.min)) - log_c)     # δ within 1e-16 of 1: ln δ rounds to 0
    low, high = max(LOG_ORDER_RANGE[0], x0 - 10), min(LOG_ORDER_RANGE[1], x0 + 10)
    if conversion is Conversion.MIRONOV or low >= high or abs(log_c) > 600:
        x = x0
    else:
        from scipy.optimize import minimize_scalar

        c_ = math.exp(log_c)
        found = minimize_scalar(lambda x: _float_epsilon(c_, x, log_delta, conversion), bounds=(low, high),
                                method="bounded", options={"xatol": 1e-10})
        x = float(found.x)
    x = min(max(x, LOG_ORDER_RANGE[0]), LOG_ORDER_RANGE[1])
    return 1 + max(Fraction(math.exp(x)), MIN_ORDER_GAP)      # the float exactly: never order 1


def to_epsilon(curve: RdpCurve, delta, conversion: Conversion | str = Conversion.CKS,
               orders: Iterable | None = None) -> EpsilonBound:
    """The certified ``ε`` at ``δ`` of an RDP curve, by ``conversion`` (``mironov`` or ``cks``).

    Parameters
    ----------
    curve : RdpCurve
        The composed RDP bound (:func:`itsa.privacy.rdp.compose`).
    delta : number
        ``δ`` in ``(0, 1)``, read exactly (``1e-5`` is ``1/100000``).
    conversion : Conversion or str
        ``"mironov"`` or ``"cks"``.
    orders : iterable of numbers, optional
        Orders to try (each > 1), as dp-accounting does; the smallest
        certified ε among them is returned. Without it a float search picks one.

    Returns
    -------
    EpsilonBound
        ε as a :class:`~itsa._util.certified.Certified` upper bound, with the order used.

    Notes
    -----
    Mironov 2017, Proposition 3; Canonne, Kamath, Steinke 2020,
    Proposition 12. The PSA paper's "standard Rényi conversion, minimised
    over the order" (Sec. VII-B) reproduces its printed totals only as
    ``cks`` (see docs/privacy.md).
    """
    conv = choice("conversion", conversion, Conversion)
    d = check_delta(delta)
    coefficient = curve.coefficient()
    if orders is None:
        c = coefficient.upper()
        log_c = float(c.log()) if c > 0 else -math.inf
        candidates = [optimal_order(0.0, d, conv, log_c=log_c)]
    else:
        candidates = [fraction("order", q, low=1) for q in orders]
        if not candidates:
            raise InvalidOption("orders: give at least one order > 1")
    best = None
    for q in candidates:
        ball = convert_at(coefficient, q, d, conv)
        if best is None or ball.upper() < best[1].upper():
            best = (q, ball)
    assert best is not None
    order, ball = best
    ball = ball.max(flint.arb(0))       # a negative value still certifies eps = 0
    epsilon = Certified.from_arb("epsilon", ball, Direction.UPPER, f"{METHODS[conv]} at q = "
                                 f"{order_text(order)}; {curve.method()}")
    return EpsilonBound(epsilon=epsilon, delta=d, order=order, conversion=conv, curve=curve)
