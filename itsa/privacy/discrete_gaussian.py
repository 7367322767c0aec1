"""The discrete Gaussian ``N_Z(0, σ²)``: certified normaliser, variance, tail mass and truncation.

``P(k) = exp(−k²/(2σ²)) / Z`` on the integers. For ``σ ≥ 1`` the sums are
evaluated by Poisson summation (the Jacobi theta identity),
``Σ_k exp(−k²/(2σ²)) = σ√(2π) Σ_n exp(−2π²σ²n²)``, whose terms fall so fast
that three of them and a geometric tail bound give a tight ball; below
``σ = 1`` the terms are summed directly with an integral tail bound.

Examples
--------
>>> from fractions import Fraction
>>> round(float(normaliser(Fraction(1, 2)).mid()), 6)      # 1 + 2e^-2 + 2e^-8 + ...
1.271342
>>> variance(Fraction(1, 2)) < 0.25          # below sigma^2 (CKS 2020, Prop. 19)
True
>>> page_truncation(Fraction(14924))
112330
>>> tail_mass(Fraction(14924), page_truncation(Fraction(14924))).upper() < Fraction(1, 10**12)
True
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.checks import whole_number
from itsa.privacy.rdp import number

__all__ = ["normaliser", "variance", "entropy_bits", "tail_mass", "page_truncation", "paper_truncation", "pmf", "TAIL_TARGET"]

#: The tail mass the page's truncation aims below (``2 · 10¹²`` in its formula is ``2/δ_tail``).
TAIL_TARGET = Fraction(1, 10**12)
#: Theta terms summed exactly for sigma >= 1 (the rest is bounded geometrically).
THETA_TERMS = 3
#: Terms beyond the truncation summed one by one before the integral bounds.
TAIL_TERMS = 64


def _sigma(sigma) -> flint.arb:
    return to_arb(number("sigma", sigma))


def _direct_limit(s: flint.arb) -> int:
    return int(math.ceil(float(s.upper()) * 40)) + 2


def _gauss_integral_tail(s: flint.arb, start) -> flint.arb:
    """``∫_start^∞ exp(−x²/(2σ²)) dx = σ √(π/2) erfc(start/(σ√2))``."""
    return s * (flint.arb.pi() / 2).sqrt() * (to_arb(start) / (s * flint.arb(2).sqrt())).erfc()


def _theta_sums(s: flint.arb) -> tuple[flint.arb, flint.arb]:
    """``(Σ_k e^(−k²/2σ²), Σ_k k² e^(−k²/2σ²))`` by Poisson summation (σ ≥ 1), with tail balls."""
    a = 2 * flint.arb.pi() ** 2 * s**2
    root = s * (2 * flint.arb.pi()).sqrt()
    z = flint.arb(1)
    m = s**2
    for n in range(1, THETA_TERMS):
        e = (-a * n * n).exp()
        z += 2 * e
        m += 2 * s**2 * (1 - 4 * flint.arb.pi() ** 2 * s**2 * n * n) * e
    N = THETA_TERMS
    tail_z = 2 * (-a * N * N).exp() / (1 - (-a).exp())
    # n^2 e^(-a n^2) <= e^(-(a-1) n^2): bound the second moment's tail the same way
    tail_m = 2 * s**2 * (1 + 4 * flint.arb.pi() ** 2 * s**2) * (-(a - 1) * N * N).exp() / (1 - (-(a - 1)).exp())
    z += flint.arb(0, 1) * tail_z
    m += flint.arb(0, 1) * tail_m
    return root * z, root * m


def _direct_sums(s: flint.arb) -> tuple[flint.arb, flint.arb]:
    """The same two sums term by term (σ < 1), the rest bounded by integrals."""
    limit = _direct_limit(s)
    z, m = flint.arb(1), flint.arb(0)
    for k in range(1, limit + 1):
        e = (-(flint.arb(k) ** 2) / (2 * s**2)).exp()
        z += 2 * e
        m += 2 * k * k * e
    # k^2 e^(-k^2/2s^2) <= e^(-k^2/(4 s^2)) far out; bound both tails by the wider integral
    wide = _gauss_integral_tail(s * flint.arb(2).sqrt(), limit)
    z += flint.arb(0, 1) * 2 * wide
    m += flint.arb(0, 1) * 2 * wide
    return z, m


def _sums(sigma) -> tuple[flint.arb, flint.arb]:
    s = _sigma(sigma)
    with precision():
        return _theta_sums(s) if s >= 1 else _direct_sums(s)


def normaliser(sigma) -> flint.arb:
    """``Z = Σ_k exp(−k²/(2σ²))`` as a ball (exact to the working precision)."""
    return _sums(sigma)[0]


def variance(sigma) -> flint.arb:
    """The actual variance ``E[X²]`` of ``N_Z(0, σ²)`` as a ball (always below σ²)."""
    z, m = _sums(sigma)
    with precision():
        return m / z


def entropy_bits(sigma) -> flint.arb:
    """The Shannon entropy of ``N_Z(0, σ²)`` in bits, as a ball: ``(ln Z + E[X²]/(2σ²)) / ln 2``.

    ``−log P(k) = ln Z + k²/(2σ²)``, so the entropy is exact from the normaliser and the second moment;
    about ``log₂(σ √(2πe))`` for ``σ ≳ 1``.

    >>> round(float(entropy_bits(1000).mid()), 6), abs(entropy_bits(1000) - math.log2(1000 * math.sqrt(2 * math.pi * math.e))) < 1e-9
    (12.01288, True)
    >>> float(entropy_bits(Fraction(1, 10)).mid()) < 1e-10       # almost all mass at 0
    True
    """
    s = _sigma(sigma)
    z, m = _sums(sigma)
    with precision():
        return (z.log() + m / z / (2 * s**2)) / flint.arb(2).log()


def pmf(k: int, sigma) -> flint.arb:
    """``P(X = k)`` as a ball."""
    s = _sigma(sigma)
    with precision():
        return (-(flint.arb(k) ** 2) / (2 * s**2)).exp() / normaliser(sigma)


def tail_mass(sigma, truncation: int) -> Certified:
    """``P(|X| > K)`` for ``K = truncation``, certified (the mass a table sampler truncated at ``K`` drops).

    The first :data:`TAIL_TERMS` terms beyond ``K`` are summed; the terms
    decrease beyond zero, so the rest from ``J`` on lies between ``∫_J^∞ f``
    and ``f(J) + ∫_J^∞ f``; all over the normaliser.
    """
    whole_number("truncation", truncation, minimum=0)
    s = _sigma(sigma)
    # the mass itself, enclosed term by term (not the sub-Gaussian bound of itsa.privacy.tails)
    with precision():
        z = normaliser(sigma)
        explicit = flint.arb(0)
        for k in range(truncation + 1, truncation + 1 + TAIL_TERMS):
            explicit += (-(flint.arb(k) ** 2) / (2 * s**2)).exp()
        start = truncation + 1 + TAIL_TERMS
        first = (-(flint.arb(start) ** 2) / (2 * s**2)).exp()
        integral = _gauss_integral_tail(s, start)
        upper = 2 * (explicit + first + integral) / z
        lower = 2 * (explicit + integral) / z
        ball = lower.union(upper)
    return Certified.from_arb("tail mass", ball, Direction.UPPER,
                              f"P(|X| > {truncation}): the next 64 terms, then integral bounds, over the certified normaliser")


def page_truncation(sigma) -> int:
    """The page's table bound ``K = ⌈σ √(2 ln(2·10¹²)) + 4⌉`` (about ``7.5265 σ + 4``), exactly."""
    s = _sigma(sigma)
    with precision():
        value = s * (2 * flint.arb(2 * 10**12).log()).sqrt() + 4
    unique = value.ceil().unique_fmpz()
    if unique is None:      # a ball straddling an integer: widen the precision
        with precision(1024):
            value = s * (2 * flint.arb(2 * 10**12).log()).sqrt() + 4
            unique = value.ceil().unique_fmpz()
    return int(unique) if unique is not None else int(math.ceil(float(value.upper())))


def paper_truncation(sigma) -> int:
    """The paper's ``8σ`` rounded up."""
    return math.ceil(8 * Fraction(number("sigma", sigma)))
