"""From a Rényi-DP curve to (ε, δ): the Mironov and the Canonne–Kamath–Steinke conversions.

A float search picks the Rényi order (it only chooses where to look); the
conversion is then evaluated at that one exact order in ball arithmetic, so the
printed ε is a valid upper bound whichever order was picked (every order
``q > 1`` gives one).

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
from typing import Protocol

import flint

from itsa._util.certified import Certified, Direction, Provenance, exact_text, precision, safe_decimal, to_arb
from itsa._util.checks import choice, fraction
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.privacy.rdp import RdpCurve

__all__ = ["Conversion", "EpsilonBound", "to_epsilon", "convert_at", "convert_rdp", "profile_epsilon", "profile_delta",
           "candidate_orders", "check_delta", "optimal_order", "DEFAULT_DELTA"]


class Profile(Protocol):
    """What a conversion needs of composed events (:class:`itsa.privacy.profile.RdpProfile` is one): the certified
    bound at an order, whether it holds at whole orders only, how it was composed and its warnings."""

    @property
    def integer_orders(self) -> bool: ...

    def at(self, order) -> flint.arb: ...

    def method(self) -> str: ...

    @property
    def warnings(self) -> tuple[str, ...]: ...


#: The δ every verb and function of privacy (and of the modular part) takes by default.
DEFAULT_DELTA = Fraction(1, 10**5)

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
    """A certified ``(ε, δ)`` guarantee: ``ε`` an upper bound at the exact ``order`` by ``conversion``.

    Parameters
    ----------
    epsilon : Certified
        ε, an upper bound.
    delta : Fraction
        δ.
    order : Fraction
        The exact order the conversion was evaluated at.
    conversion : Conversion
        ``mironov`` or ``cks``.
    curve : RdpCurve or Profile
        The curve (or composed profile of events) converted.
    """

    epsilon: Certified
    delta: Fraction
    order: Fraction
    conversion: Conversion
    curve: RdpCurve | Profile

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
    """The conversion's ε at one exact ``order`` for the curve ``ε(q) = coefficient · q`` (a ball).

    Parameters
    ----------
    coefficient : arb
        ``c`` of the curve ``ε(q) = c q``.
    order : number
        The order ``q > 1``.
    delta : Fraction
        δ.
    conversion : Conversion
        ``mironov`` or ``cks``.
    """
    with precision():
        return convert_rdp(coefficient * to_arb(order), order, delta, conversion)


def convert_rdp(rdp: flint.arb, order, delta: Fraction, conversion: Conversion) -> flint.arb:
    """The conversion's ε at one exact ``order`` from the RDP bound ``rdp`` at that order (a ball).

    Parameters
    ----------
    rdp : arb
        A certified upper bound on the Rényi divergence at ``order``.
    order : number
        ``q > 1``.
    delta : Fraction
        δ.
    conversion : Conversion
        ``mironov`` or ``cks``.
    """
    with precision():
        q = to_arb(order)
        if not q > 1:
            raise InvalidOption(f"order: must be > 1, not {order}")
        log_delta = to_arb(delta).log()
        if conversion is Conversion.MIRONOV:
            return rdp - log_delta / (q - 1)
        return rdp + (-1 / q).log1p() - (log_delta + q.log()) / (q - 1)


def _log_delta_at(rdp: flint.arb, order, epsilon: Fraction, conversion: Conversion) -> flint.arb:
    """``ln δ`` the conversion certifies at ``order`` for ``ε`` (the conversion solved for δ), a ball."""
    with precision():
        q = to_arb(order)
        if conversion is Conversion.MIRONOV:
            return (q - 1) * (rdp - to_arb(epsilon))
        return (q - 1) * (rdp - to_arb(epsilon) + (-1 / q).log1p()) - q.log()


#: Whole orders a profile is asked at (dp-accounting's 2..256, then sparser).
WHOLE_ORDERS = (*range(2, 257), 320, 384, 448, 512)
#: Extra orders ``1 + e^(k/16)``, ``k`` in this range, for a profile certified at every order.
LOG_GRID = range(-8 * 16, 8 * 16 + 1)


def candidate_orders(integer_orders: bool) -> list[Fraction]:
    """The orders a profile's conversion searches (any order gives a valid bound: this only chooses).

    Parameters
    ----------
    integer_orders : bool
        Whole orders only.
    """
    whole = [Fraction(q) for q in WHOLE_ORDERS]
    if integer_orders:
        return whole
    return whole + [1 + Fraction(math.exp(k / 16)).limit_denominator(2**20) for k in LOG_GRID]


def _search(value, candidates: list[Fraction], only_these: bool) -> Fraction:
    """The candidate with the least float ``value``, refined by golden section between its neighbours
    unless ``only_these`` (whole orders only, or orders given): a choice only, the bound is then certified
    at the order chosen."""
    def safe(q: Fraction) -> float:
        try:
            return value(q)
        except (OverflowError, ValueError, ZeroDivisionError, InvalidOption):
            return math.inf

    ordered = sorted(set(candidates))
    scores = [safe(q) for q in ordered]
    i = min(range(len(ordered)), key=scores.__getitem__)
    best = ordered[i]
    if only_these or not math.isfinite(scores[i]):
        return best
    lo, hi = float(ordered[max(i - 1, 0)]), float(ordered[min(i + 1, len(ordered) - 1)])
    lo = max(lo, 1 + 1e-12)
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if safe(Fraction(a)) <= safe(Fraction(b)):
            hi = b
        else:
            lo = a
    refined = Fraction((lo + hi) / 2).limit_denominator(2**30)
    return refined if refined > 1 and safe(refined) < scores[i] else best


def profile_epsilon(profile, delta, conversion: Conversion | str = Conversion.CKS, orders: Iterable | None = None
                    ) -> EpsilonBound:
    """The certified ``ε`` at ``δ`` of a composed profile (any RDP bounds, linear in the order or not).

    Parameters
    ----------
    profile : Profile
        Events composed (:class:`itsa.privacy.profile.RdpProfile`): ``at(order)``, ``integer_orders``.
    delta : number
        ``δ`` in ``(0, 1)``.
    conversion : Conversion or str
        ``"mironov"`` or ``"cks"``.
    orders : iterable of numbers, optional
        Orders to try (whole ones for a profile certified at whole orders only); by default
        :func:`candidate_orders`.
    """
    conv = conversion if isinstance(conversion, Conversion) else choice("conversion", conversion, Conversion)
    d = delta if type(delta) is Fraction and 0 < delta < 1 else check_delta(delta)
    candidates = (candidate_orders(profile.integer_orders) if orders is None
                  else [fraction("order", q, low=1) for q in orders])
    if not candidates:
        raise InvalidOption("orders: give at least one order > 1")

    def value(q: Fraction) -> float:
        return float(convert_rdp(profile.at(q), q, d, conv).upper())

    order = _search(value, candidates, profile.integer_orders or orders is not None)
    ball = convert_rdp(profile.at(order), order, d, conv).max(flint.arb(0))
    epsilon = Certified.from_arb("epsilon", ball, Direction.UPPER,
                                 Provenance((AtOrder(METHODS[conv], order), CurveMethod(profile))))
    return EpsilonBound(epsilon=epsilon, delta=d, order=order, conversion=conv, curve=profile)


def profile_delta(profile, epsilon, conversion: Conversion | str = Conversion.CKS, orders: Iterable | None = None
                  ) -> tuple[Certified, Fraction]:
    """The certified ``δ`` at ``ε`` of a composed profile (an upper bound, at most 1) and the order used.

    Parameters
    ----------
    profile : Profile or RdpCurve
        Anything with ``at(order)`` (and ``integer_orders``, default False).
    epsilon : number
        ``ε ≥ 0``, read exactly.
    conversion : Conversion or str
        ``"mironov"`` or ``"cks"`` (the conversion solved for δ).
    orders : iterable of numbers, optional
        Orders to try.
    """
    conv = conversion if isinstance(conversion, Conversion) else choice("conversion", conversion, Conversion)
    eps = fraction("epsilon", epsilon, low=0, closed=True)
    whole = getattr(profile, "integer_orders", False)
    candidates = candidate_orders(whole) if orders is None else [fraction("order", q, low=1) for q in orders]

    def value(q: Fraction) -> float:
        return float(_log_delta_at(profile.at(q), q, eps, conv).upper())

    order = _search(value, candidates, whole or orders is not None)
    with precision():
        ball = _log_delta_at(profile.at(order), order, eps, conv).exp().min(flint.arb(1))
    method = (f"{METHODS[conv]} solved for delta at q = {order_text(order)}; "
              f"{profile.method() if hasattr(profile, 'method') else 'RDP'}")
    return Certified.from_arb("delta", ball, Direction.UPPER, method), order


def _float_epsilon(c: float, q: float, log_delta: float, conversion: Conversion) -> float:
    """The conversion's ε at order ``q`` in floats (for choosing an order only; never printed)."""
    if conversion is Conversion.MIRONOV:
        return c * q - log_delta / (q - 1)
    return c * q + math.log1p(-1 / q) - (log_delta + math.log(q)) / (q - 1)


#: Newton steps of the float order search (each is safeguarded by bisection).
ORDER_STEPS = 60


def _cks_log_gap(c: float, big_l: float, high: float) -> float:
    """``u = ln(q − 1)`` where the CKS conversion of ``ε(q) = c q`` is least: the root of
    ``h(u) = c e^(2u) + ln(1 + e^u) − L`` (``L = ln(1/δ)``; ``h`` increases, so the root is unique).

    The derivative of the conversion in ``q`` is ``c − (L − ln q)/(q − 1)²``: zero at that root.
    Safeguarded Newton in floats on ``[LOG_ORDER_RANGE[0], high]`` (``h(high) > 0``).
    """
    low = LOG_ORDER_RANGE[0]

    def h(u: float) -> float:
        return c * math.exp(2 * u) + math.log1p(math.exp(u)) - big_l

    if h(low) >= 0:
        return low
    u = high
    for _ in range(ORDER_STEPS):
        value = h(u)
        if value == 0:
            return u
        if value > 0:
            high = u
        else:
            low = u
        step = u - value / (2 * c * math.exp(2 * u) + 1 / (1 + math.exp(-u)))
        following = step if low <= step <= high else (low + high) / 2
        if abs(following - u) <= 1e-13 * (1 + abs(u)) or high - low <= 1e-13:
            return following
        u = following
    return u


def optimal_order(c: float, delta: Fraction, conversion: Conversion, log_c: float | None = None) -> Fraction:
    """A good order ``q > 1`` for ``ε(q) = c q`` (a float search; only its choice, not its value, is used).

    Parameters
    ----------
    c : float
        The curve's coefficient (upper end), ``ε(q) = c q``.
    delta : Fraction
        The target δ.
    conversion : Conversion
        ``mironov``: the minimiser ``1 + sqrt(ln(1/δ)/c)`` in closed form; ``cks``: the root of its
        derivative, by a safeguarded Newton search in floats.
    log_c : float, optional
        ``ln c``, for a ``c`` beyond the floats.
    """
    log_delta = math.log(delta.numerator) - math.log(delta.denominator)
    if log_c is None:
        if c <= 0:
            return Fraction(10**6)
        log_c = math.log(c)
    if not math.isfinite(log_c):
        return Fraction(10**6) if log_c < 0 else 1 + MIN_ORDER_GAP
    big_l = max(-log_delta, sys.float_info.min)          # δ within 1e-16 of 1: ln δ rounds to 0
    x0 = 0.5 * (math.log(big_l) - log_c)
    x = min(max(x0, LOG_ORDER_RANGE[0]), LOG_ORDER_RANGE[1])
    if conversion is not Conversion.MIRONOV and abs(log_c) <= 600 and x0 > LOG_ORDER_RANGE[0]:
        x = _cks_log_gap(math.exp(log_c), big_l, x)
    x = min(max(x, LOG_ORDER_RANGE[0]), LOG_ORDER_RANGE[1])
    return 1 + max(Fraction(math.exp(x)), MIN_ORDER_GAP)      # the float exactly: never order 1


def _best_of(orders: list[Fraction], c: float, delta: Fraction, conversion: Conversion) -> Fraction:
    """The order among ``orders`` whose float ε is least (a choice only: the certified value is computed at it)."""
    log_delta = math.log(delta.numerator) - math.log(delta.denominator)

    def estimate(q: Fraction) -> float:
        try:
            return _float_epsilon(c, float(q), log_delta, conversion)
        except (OverflowError, ValueError, ZeroDivisionError):
            return math.inf

    return min(orders, key=estimate)


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
    conv = conversion if isinstance(conversion, Conversion) else choice("conversion", conversion, Conversion)
    d = delta if type(delta) is Fraction and 0 < delta < 1 else check_delta(delta)
    coefficient = curve.coefficient()
    c = coefficient.upper()
    if orders is None:
        order = optimal_order(0.0, d, conv, log_c=float(c.log()) if c > 0 else -math.inf)
    else:
        candidates = [fraction("order", q, low=1) for q in orders]
        if not candidates:
            raise InvalidOption("orders: give at least one order > 1")
        order = _best_of(candidates, float(c), d, conv)
    # any order q > 1 gives a valid bound: the ball at the one chosen is a certified upper bound on epsilon
    ball = convert_at(coefficient, order, d, conv).max(flint.arb(0))       # a negative value still certifies 0
    epsilon = Certified.from_arb("epsilon", ball, Direction.UPPER,
                                 Provenance((AtOrder(METHODS[conv], order), CurveMethod(curve))))
    return EpsilonBound(epsilon=epsilon, delta=d, order=order, conversion=conv, curve=curve)


@dataclass(frozen=True)
class AtOrder:
    """A provenance step: a conversion evaluated at one exact order (rendered only for display)."""

    method: str
    order: Fraction

    def __str__(self) -> str:
        return f"{self.method} at q = {order_text(self.order)}"


@dataclass(frozen=True, eq=False)
class CurveMethod:
    """A provenance step: the RDP curve a bound was computed from (rendered only for display).

    Two steps are equal when they say the same (the curves' balls do not compare equal).
    """

    curve: RdpCurve | Profile

    def __str__(self) -> str:
        return self.curve.method()

    def __eq__(self, other) -> bool:
        return isinstance(other, CurveMethod) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
