"""Certified numbers: an arb ball, the side on which it is safe, a decimal rounded that way, a method.

Every ε, δ and noise multiplier :mod:`itsa.privacy` returns is a
:class:`Certified`: the exact value of a bound lies in ``interval`` (a
python-flint ``arb`` ball, computed in ball arithmetic), ``direction`` says
whether the number is an upper bound (ε, δ: round up), a lower bound, an
exact value, an upper bound only under a premise that could not be certified
(``conditional``), only a heuristic, or ``vacuous`` (a formula's value at a
``δ ≥ 1``, where it bounds nothing), and :meth:`Certified.decimal` rounds
in the safe direction.

Examples
--------
>>> from fractions import Fraction
>>> eps = Certified.from_arb("epsilon", to_arb(Fraction(2)).sqrt(), Direction.UPPER, "sqrt of 2")
>>> eps.decimal(4)
'1.415'
>>> eps.upper() > Fraction(14142, 10000)
True
>>> safe_decimal(Fraction(-1, 3), 3, up=False)
'-0.334'
>>> safe_decimal(Fraction(2532, 10**17), 2), safe_decimal(Fraction(99999, 10**10), 2)
('2.6e-14', '1e-5')
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction

import flint

from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption

__all__ = ["Direction", "Certified", "to_arb", "arb_to_fractions", "safe_decimal", "exact_text", "fraction_text", "Provenance", "TooLarge", "PRECISION",
           "precision", "float_up", "float_down"]

#: Longest integer (in bits) written out in digits; Python refuses more than 4,300 digits.
MAX_TEXT_BITS = 12_000
#: Largest binary exponent of a number carried exactly (about 10^19728); beyond, a bound is refused.
MAX_BITS = 1 << 16

#: Working precision of every ball computation (bits); the balls stay rigorous at any precision.
PRECISION = 128


@contextmanager
def precision(bits: int = PRECISION) -> Iterator[None]:
    """Run the enclosed ball arithmetic at ``bits`` of working precision."""
    with flint.ctx.workprec(bits):
        yield


class Direction(StrEnum):
    """Which side of a printed number is guaranteed."""

    UPPER = "upper bound"
    LOWER = "lower bound"
    EXACT = "exact"
    ENCLOSURE = "enclosure"
    #: an upper bound IF its stated premise holds; the premise is not certified (never shown as a bound)
    CONDITIONAL = "conditional (premise not certified)"
    HEURISTIC = "heuristic (not a bound)"
    #: a formula's value at a delta >= 1: every mechanism is (eps, 1)-DP, so it bounds nothing
    VACUOUS = "vacuous (delta >= 1: bounds nothing)"

    @property
    def rounds_up(self) -> bool:
        """Shown rounded up (an upper bound, one under a premise, or a vacuous one's formula value)."""
        return self in (Direction.UPPER, Direction.CONDITIONAL, Direction.VACUOUS)


def to_arb(x) -> flint.arb:
    """``x`` (int, Fraction, arb) as an arb ball; a Fraction is exact where the precision allows.

    >>> to_arb(Fraction(1, 4)).is_exact()
    True
    """
    if isinstance(x, flint.arb):
        return x
    if isinstance(x, bool):
        raise TypeError("a bool is not a number here")
    if isinstance(x, int):
        return flint.arb(x)
    q = Fraction(x)
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


class TooLarge(InvalidOption):
    """A bound beyond ``2^MAX_BITS``: too large to carry as an exact number (exit 2)."""


def _point_to_fraction(point: flint.arb, up: bool) -> Fraction:
    pair = point.man_exp()
    man, exp = int(pair[0]), int(pair[1])
    size = exp + man.bit_length()
    if size > MAX_BITS:
        raise TooLarge(f"a bound of about 2^{size} is beyond 2^{MAX_BITS}: too large to carry exactly")
    if size < -MAX_BITS:        # below 2^-MAX_BITS: widen outward to 0 or to +-2^-MAX_BITS (still a valid end)
        tiny = Fraction(1, 2**MAX_BITS)
        return (tiny if man > 0 else Fraction(0)) if up else (Fraction(0) if man > 0 else -tiny)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def arb_to_fractions(x: flint.arb) -> tuple[Fraction, Fraction]:
    """The exact endpoints ``(lower, upper)`` of a finite arb ball, as Fractions (widened outward below 2^-MAX_BITS).

    >>> arb_to_fractions(flint.arb(1) / 2**(2 * MAX_BITS)) == (0, Fraction(1, 2**MAX_BITS))
    True
    """
    if not x.is_finite():
        raise TooLarge(f"a bound overflowed the ball arithmetic ({x}): too large to carry exactly")
    with flint.ctx.workprec(max(PRECISION, flint.ctx.prec)):      # the ends rounded outward at full precision
        return _point_to_fraction(x.lower(), up=False), _point_to_fraction(x.upper(), up=True)


def float_up(value: Fraction) -> float:
    """The least double ``≥ value``: a bound rounded in its safe direction upwards.

    Past the largest double, ``inf`` (and ``-1.797…e308`` below the most negative one): still the least double
    ``≥ value``, never an ``OverflowError``.

    >>> float_up(Fraction(1, 3)) >= Fraction(1, 3), float_up(Fraction(1, 2))
    (True, 0.5)
    >>> float_up(Fraction(10**400)), float_up(-Fraction(10**400)) == -sys.float_info.max
    (inf, True)
    """
    try:
        f = float(value)
    except OverflowError:
        return math.inf if value > 0 else -sys.float_info.max
    return f if Fraction(f) >= value else math.nextafter(f, math.inf)


def float_down(value: Fraction) -> float:
    """The greatest double ``≤ value``: a bound rounded in its safe direction downwards.

    >>> float_down(Fraction(1, 3)) <= Fraction(1, 3), float_down(Fraction(1, 2))
    (True, 0.5)
    """
    return -float_up(-value)


def _decimal_exponent(x: Fraction) -> int:
    """About ``floor(log10 x)`` from the bit lengths (any size, no float overflow)."""
    bits = x.numerator.bit_length() - x.denominator.bit_length()
    return math.floor(bits * math.log10(2))


def exact_text(value, *, as_fraction: bool = False) -> str:
    """``value`` written exactly: the one exact-text format of itsa.

    A terminating decimal is written as one (``1.2344e-5``, the decimal
    format of :func:`safe_decimal`), any other number as ``n/d``; with
    ``as_fraction`` every number is ``n/d`` (as ``str`` writes it). A number
    too long to write in digits is shown by its safe bounds, said so.

    Parameters
    ----------
    value : int, Fraction or text
        The number (read exactly).
    as_fraction : bool
        Write ``n/d`` even for a terminating decimal.

    >>> exact_text(Fraction(12344, 10**9)), exact_text(Fraction(1, 3)), exact_text(Fraction(1, 10**100000))
    ('1.2344e-5', '1/3', '1e-100000')
    >>> exact_text(Fraction(10**5000)), exact_text(Fraction(1, 256), as_fraction=True)
    ('1e5000', '1/256')
    """
    q = Fraction(value)
    if q == 0:
        return "0"
    den = q.denominator
    fits = q.numerator.bit_length() <= MAX_TEXT_BITS and den.bit_length() <= MAX_TEXT_BITS
    if as_fraction and fits:
        return str(q)
    twos = (den & -den).bit_length() - 1
    rest = den >> twos
    fives = round(rest.bit_length() / math.log2(5)) if rest > 1 else 0
    if 5**fives == rest:        # a terminating decimal: print all its significant digits
        whole = abs(q.numerator) * 10 ** max(twos, fives) // den
        if whole.bit_length() <= MAX_TEXT_BITS:
            digits = len(str(whole).rstrip("0")) or 1
            return safe_decimal(q, digits, up=True)
    elif fits:
        return str(q)
    short = safe_decimal(q, 17, up=True)
    if short == safe_decimal(q, 17, up=False):     # rounded up and down alike: the short decimal is exact
        return short
    return f"in [{safe_decimal(q, 17, up=False)}, {safe_decimal(q, 17, up=True)}] (too long to write exactly)"


def fraction_text(value) -> str:
    """:func:`exact_text` with ``as_fraction``: ``n/d`` while both fit in digits (kept for the modular part).

    >>> fraction_text(Fraction(1, 256)), fraction_text(Fraction(1, 10**5000))
    ('1/256', '1e-5000')
    """
    return exact_text(value, as_fraction=True)


@dataclass(frozen=True)
class Provenance:
    """How a number was obtained, as data: a tuple of steps, rendered to text only for display.

    A step is text or any object whose ``str`` says it (so that costly text,
    e.g. an order written out, is made only when shown).

    Parameters
    ----------
    steps : tuple
        The steps, first to last.

    >>> p = Provenance(("classical formula",)).then("certified by the exact curve")
    >>> str(p), p.steps[0]
    ('classical formula; certified by the exact curve', 'classical formula')
    """

    steps: tuple = ()

    def then(self, *steps) -> Provenance:
        """This provenance followed by ``steps``."""
        return Provenance(self.steps + tuple(steps))

    def __str__(self) -> str:
        return "; ".join(str(step) for step in self.steps)

    def __contains__(self, text: str) -> bool:
        return text in str(self)


def safe_decimal(value: Fraction, digits: int = 4, up: bool = True) -> str:
    """``value`` to ``digits`` significant digits, rounded up (``up``) or down: a valid bound.

    Trailing zeros are dropped (``400``, not ``400.0``); below ``1e-4`` and
    from ``1e16`` on the form is scientific (``2.6e-14``).

    Parameters
    ----------
    value : Fraction
        The exact number.
    digits : int
        Significant digits shown.
    up : bool
        Round up (the text is an upper bound on ``value``) or down (a lower bound).

    >>> safe_decimal(Fraction(18688841, 10000), 4)
    '1869'
    >>> safe_decimal(Fraction(1, 3), 3), safe_decimal(Fraction(1, 3), 3, up=False)
    ('0.334', '0.333')
    """
    if value == 0:
        return "0"
    exponent = _decimal_exponent(abs(Fraction(value)))
    # the estimate is within one or two of the truth: correct it exactly
    while abs(value) >= Fraction(10) ** (exponent + 1):
        exponent += 1
    while abs(value) < Fraction(10) ** exponent:
        exponent -= 1
    shift = digits - 1 - exponent
    if exponent < -4 or exponent >= 16:        # scientific form, same safe rounding
        whole = math.ceil(value * Fraction(10) ** shift) if up else math.floor(value * Fraction(10) ** shift)
        if abs(whole) >= 10**digits:            # rounding carried into a new digit
            return safe_decimal(whole * Fraction(10) ** -shift, digits, up)
        sign, text = ("-" if whole < 0 else ""), str(abs(whole))
        mantissa = (text[0] + "." + text[1:]).rstrip("0").rstrip(".")
        return f"{sign}{mantissa}e{exponent}"
    scaled = value * Fraction(10) ** shift
    whole = math.ceil(scaled) if up else math.floor(scaled)
    number = Decimal(whole).scaleb(-shift)
    if shift <= 0:
        return f"{int(number)}"
    return f"{number:.{shift}f}".rstrip("0").rstrip(".")


@dataclass(frozen=True, repr=False)
class Certified(Displayable):
    """A number with its evidence: the exact bound lies in ``[low, high]``, safe in ``direction``.

    ``low`` and ``high`` are exact Fractions (the endpoints of the arb ball the
    computation produced); :meth:`value` is the endpoint that is safe in
    ``direction`` (``high`` for an upper bound).

    Parameters
    ----------
    name : str
        What the number is (``epsilon``, ``carry probability``), for its display.
    low, high : Fraction
        The interval the exact value lies in (``low == high`` for an exact value).
    direction : Direction
        Which side is guaranteed: an upper or lower bound, exact, an enclosure,
        conditional on a premise, a heuristic, or vacuous.
    method : str or Provenance
        How it was obtained (structured steps, shown as text).
    """

    name: str
    low: Fraction
    high: Fraction
    direction: Direction
    method: str | Provenance

    @classmethod
    def from_arb(cls, name: str, ball: flint.arb, direction: Direction, method: str | Provenance) -> Certified:
        low, high = arb_to_fractions(ball)
        return cls(name, low, high, direction, method)

    @classmethod
    def exact(cls, name: str, value: Fraction | int, method: str) -> Certified:
        q = Fraction(value)
        return cls(name, q, q, Direction.EXACT, method)

    def upper(self) -> Fraction:
        return self.high

    def lower(self) -> Fraction:
        return self.low

    def value(self) -> Fraction:
        """The safe endpoint: ``high`` for an upper (or conditional) bound, ``low`` for a lower one, else the midpoint."""
        if self.direction.rounds_up:
            return self.high
        if self.direction is Direction.LOWER:
            return self.low
        return (self.low + self.high) / 2

    def arb(self) -> flint.arb:
        """The interval back as a ball (containing ``[low, high]``)."""
        return to_arb(self.low).union(to_arb(self.high))

    def decimal(self, digits: int = 4) -> str:
        """The number to ``digits`` significant digits, rounded in the safe direction."""
        if self.direction.rounds_up:
            return safe_decimal(self.high, digits, up=True)
        if self.direction is Direction.LOWER:
            return safe_decimal(self.low, digits, up=False)
        if self.direction is Direction.EXACT:
            return exact_text(self.low)
        return safe_decimal(self.value(), digits, up=True)      # a heuristic or an enclosure: its midpoint

    def __float__(self) -> float:
        return float(self.value())

    def to_dict(self, digits: int = 6) -> dict:
        """Plain data: the safe decimal, the interval's endpoints (as decimals rounded outward), the method."""
        return {"value": self.decimal(digits), "direction": str(self.direction),
                "interval": [safe_decimal(self.low, 17, up=False), safe_decimal(self.high, 17, up=True)],
                "method": str(self.method)}

    def headline(self) -> str:
        return f"{self.name} = {self.decimal()} ({self.direction})"

    def rows(self) -> list[tuple[str, str]]:
        return [("value", self.decimal(8)), ("direction", str(self.direction)),
                ("interval", f"[{safe_decimal(self.low, 12, False)}, {safe_decimal(self.high, 12, True)}]"),
                ("method", str(self.method))]
