"""The noise's tail: ``P[|X| ≥ t] ≤ 2 exp(−t²/(2v))`` for a ``v``-sub-Gaussian ``X`` (Chernoff with a Poisson-type part), in
ball arithmetic: the one home of this tail in itsa.

A discrete Gaussian of scale σ is σ²-sub-Gaussian (Canonne, Kamath, Steinke
2020), so the sum of ``n`` independent shares is ``n σ²``-sub-Gaussian; a sum
of independent sub-Gaussian terms (rotated data, stochastic rounding's error
by Hoeffding's lemma) has the sum of their proxies. A Poisson-type part of
variance ``m`` (a difference of two independent Poissons of mean ``m/2``
each) has the moment generating function ``exp(m (cosh λ − 1))``, so a sum
``X`` of a ``v``-sub-Gaussian part and a Poisson-type part has, at any ``λ > 0``
(Chernoff), ``P[|X| ≥ t] ≤ 2 exp(−(λ t − v λ²/2 − m (cosh λ − 1)))``; without
it (``m = 0``) ``λ = t/v`` gives ``2 exp(−t²/(2v))``. Over ``d`` such sums (the
coordinates of a round) the union bound multiplies by ``d``.

Every wrap and carry bound of itsa that uses this tail calls
:func:`subgaussian_tail`; :func:`certified_tail` is its capped, certified form
(the planner's wrap probability).

Examples
--------
>>> from fractions import Fraction
>>> from itsa._util.certified import Certified, Direction
>>> ball = subgaussian_tail(3, Fraction(1))          # 2 exp(-9/2)
>>> Certified.from_arb("tail", ball, Direction.UPPER, SUBGAUSSIAN_TAIL).decimal(4)
'0.02222'
>>> certified_tail(room=30, proxy=Fraction(100), coordinates=1).decimal(6)
'0.022218'
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

from itsa._util.certified import PRECISION, Certified, Direction, precision, to_arb
from itsa._util.checks import fraction, whole_number

__all__ = ["subgaussian_tail", "certified_tail", "SUBGAUSSIAN_TAIL", "TAIL_METHOD", "MAX_EXPONENT"]

#: The bound, as a method says it.
SUBGAUSSIAN_TAIL = "P[|X| >= t] <= 2 exp(-t^2/(2 v)) (X v-sub-Gaussian)"

#: The bound with a Poisson-type part and the union over coordinates, as a method says it (the words every plan's
#: wrap bound prints: ``m`` is the variance of Skellam noise, the Poisson-type part one mechanism adds).
TAIL_METHOD = ("P[|X| >= t] <= 2 exp(-(lambda t - v lambda^2/2 - m (cosh lambda - 1))) (Chernoff: v the "
               "sub-Gaussian proxy, m the Skellam variance); union bound over the coordinates")

#: Largest Chernoff exponent kept with a Poisson-type part (``e^-45000``: a smaller exponent only makes the bound larger,
#: so it stays valid; it keeps the bound's exact ends short).
MAX_EXPONENT = 45000


def _log(x: Fraction) -> float:
    """``ln x`` for a positive Fraction of any size (never through a float of ``x`` itself)."""
    return math.log(x.numerator) - math.log(x.denominator)


def _best_lambda(room: Fraction, proxy: Fraction, poisson: Fraction) -> Fraction:
    """The ``λ`` maximising ``λ t − v λ²/2 − m (cosh λ − 1)``, in floats on the ratios ``v/t`` and ``m/t`` (any
    ``λ`` gives a valid bound: this only chooses)."""
    lt = _log(room)
    a = math.exp(min(_log(proxy) - lt, 700.0)) if proxy > 0 else 0.0
    lb = _log(poisson) - lt
    b = math.exp(min(lb, 700.0))
    high = math.asinh(1 / b) if lb > -600 else math.log(2) - lb        # b sinh(λ) <= 1
    if a > 0:
        high = min(high, 1 / a)
    high = min(high, 700.0)                                            # sinh stays a float
    low = 0.0
    for _ in range(200):
        mid = (low + high) / 2
        if a * mid + b * math.sinh(mid) > 1:
            high = mid
        else:
            low = mid
    return Fraction(low)


def _at_lower_end(exponent: flint.arb, coordinates: int) -> flint.arb:
    """``2 d e^(−E)`` at the exponent's lower end, kept in ``[0, MAX_EXPONENT]`` (an upper bound for any ``E`` in
    the ball; the trivial ``2 d`` when the ball says nothing)."""
    if not exponent.is_finite():            # a lambda too far off to say anything: the trivial bound
        exponent = flint.arb(0)
    low = flint.arb(exponent.lower())       # the exponent's lower end: the bound's upper end
    return 2 * coordinates * (-low.min(flint.arb(MAX_EXPONENT)).max(flint.arb(0))).exp()


def subgaussian_tail(threshold, proxy, *, poisson=0, coordinates: int = 1) -> flint.arb:
    """A ball whose upper end bounds ``P[one of coordinates sums X has |X| ≥ t]``, each ``X`` with log-MGF at most
    ``v λ²/2 + m (cosh λ − 1)``.

    Without a Poisson-type part (``m = 0``) the bound is ``2 d exp(−t²/(2v))``; with it, the Chernoff bound
    ``2 d exp(−(λ t − v λ²/2 − m (cosh λ − 1)))`` at the ``λ`` that (nearly) maximises the exponent, evaluated at
    the exponent's lower end (at most :data:`MAX_EXPONENT`).

    Parameters
    ----------
    threshold : int, Fraction or arb
        ``t`` (with a Poisson-type part: an exact number ``> 0``, not an arb).
    proxy : int, Fraction or arb
        ``v``, the sub-Gaussian variance proxy (``> 0`` without a Poisson-type part; a number with it).
    poisson : int or Fraction
        ``m ≥ 0``, the Poisson-type part's variance (0: none).
    coordinates : int
        ``d``, the sums the union bound runs over.

    Returns
    -------
    flint.arb
        The bound (it may exceed 1; the caller caps it and says so), computed at
        :data:`~itsa._util.certified.PRECISION` bits or the caller's finer precision.
    """
    m = fraction("poisson", poisson, low=0, closed=True)
    whole_number("coordinates", coordinates, minimum=1)
    with precision(max(PRECISION, flint.ctx.prec)):      # the working precision, or the caller's if finer
        if m == 0:
            t = to_arb(threshold)
            tail = 2 * (-(t * t) / (2 * to_arb(proxy))).exp()
            return tail if coordinates == 1 else coordinates * tail
        t_q, v = Fraction(threshold), fraction("proxy", proxy, low=0, closed=True)
        a = to_arb(_best_lambda(t_q, v, m))
        exponent = a * to_arb(t_q) - to_arb(v) * a * a / 2 - 2 * to_arb(m) * (a / 2).sinh() ** 2
        return _at_lower_end(exponent, coordinates)


def certified_tail(*, room, proxy, poisson=0, coordinates: int, method: str = TAIL_METHOD) -> Certified:
    """:func:`subgaussian_tail` certified and capped: an upper bound on the probability that one of ``coordinates``
    sums reaches ``room`` (1 when ``room ≤ 0`` or the bound exceeds 1; exactly 0 without any randomness).

    Without a Poisson-type part the bound is also evaluated at its exponent's lower end (the ball's rounding and the
    point's differ in the last bits) and the smaller upper end kept: never above :func:`subgaussian_tail`'s.

    Parameters
    ----------
    room : int or Fraction
        ``t``: how far the random part must reach.
    proxy, poisson : int or Fraction
        ``v ≥ 0`` and ``m ≥ 0`` (see :func:`subgaussian_tail`).
    coordinates : int
        ``d``.
    method : str
        How the result says it was bounded (the caller's wording of this tail).
    """
    t, v, m = Fraction(room), fraction("proxy", proxy, low=0, closed=True), fraction("poisson", poisson, low=0,
                                                                                      closed=True)
    whole_number("coordinates", coordinates, minimum=1)
    if t <= 0:
        return Certified("wrap_probability", Fraction(0), Fraction(1), Direction.UPPER,
                         "the data alone can reach the modulus: no guarantee; 1 is the only bound")
    if v == 0 and m == 0:
        return Certified.exact("wrap_probability", 0, "no randomness beyond the data's exact bound: never wraps")
    with precision():
        ball = subgaussian_tail(t, v, poisson=m, coordinates=coordinates)
        if m == 0:      # the same bound evaluated at its exponent's lower end rounds otherwise: the smaller end kept
            point = _at_lower_end(to_arb(t) ** 2 / (2 * to_arb(v)), coordinates)
            ball = point if point.upper() < ball.upper() else ball
    bound = Certified.from_arb("wrap_probability", ball, Direction.UPPER, method)
    if bound.upper() >= 1:
        return Certified("wrap_probability", Fraction(0), Fraction(1), Direction.UPPER,
                         "the tail bound exceeds 1: it bounds nothing; " + method)
    return Certified("wrap_probability", Fraction(0), bound.high, Direction.UPPER, method)
