"""Decimals rounded in a stated direction, and certified real numbers (python-flint ``arb`` balls).

Every decimal that itsa.modular shows is the exact value rounded *outward*
(:func:`round_up` for an upper bound, :func:`round_down` for a lower one), and
every irrational quantity is a :class:`Certified` interval computed in ball
arithmetic.

Examples
--------
>>> round_up(Fraction(1, 3), 3), round_down(Fraction(1, 3), 3)
('0.334', '0.333')
>>> round_up(Fraction(975138, 10**11), 3)
'9.76e-06'
>>> c = log2_multiple(8, 3)          # 8 log2 3 bits
>>> c.text(2), c.contains(Fraction(1268, 100))
('[12.67, 12.68]', False)
>>> c.upper(2)
'12.68'
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import fraction_text

__all__ = ["round_up", "round_down", "fraction_text", "Certified", "certified", "log2_multiple", "working_precision"]

#: Bits of the ball arithmetic used for certified reals.
PRECISION = 192


def _round(x: Fraction, digits: int, up: bool) -> str:
    x = Fraction(x)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _round(-x, digits, not up)
    exponent = math.floor(math.log10(x.numerator) - math.log10(x.denominator))
    for e in (exponent + 1, exponent, exponent - 1):   # fix the float estimate of the exponent
        if Fraction(10) ** e <= x < Fraction(10) ** (e + 1):
            exponent = e
            break
    step = Fraction(10) ** (exponent - digits + 1)
    units = x / step
    n = math.ceil(units) if up else math.floor(units)
    if n == 10 ** digits:
        return _round(Fraction(n) * step, digits, up)
    if -3 <= exponent < 6:
        return _fixed(n, exponent - digits + 1)
    return f"{_fixed(n, 1 - digits)}e{exponent:+03d}"


def _fixed(n: int, k: int) -> str:
    """The decimal text of ``n · 10^k`` (exact)."""
    if n < 0:
        return "-" + _fixed(-n, k)
    if k >= 0:
        return str(n * 10 ** k)
    text = str(n).rjust(1 - k, "0")
    return f"{text[:k]}.{text[k:]}"


def round_up(x, digits: int = 4) -> str:
    """``x`` rounded up to ``digits`` significant digits (a safe upper bound)."""
    return _round(Fraction(x), digits, up=True)


def round_down(x, digits: int = 4) -> str:
    """``x`` rounded down to ``digits`` significant digits (a safe lower bound)."""
    return _round(Fraction(x), digits, up=False)


@contextmanager
def working_precision(bits: int = PRECISION):
    """Run a block of ``arb`` arithmetic at ``bits`` of precision, restoring the old one."""
    import flint

    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


@dataclass(frozen=True)
class Certified:
    """A real number certified to lie in ``[low, high]`` (exact rationals), and how it was computed."""

    low: Fraction
    high: Fraction
    method: str = "ball arithmetic (python-flint arb)"

    def contains(self, x) -> bool:
        return self.low <= Fraction(x) <= self.high

    def upper(self, places: int = 2) -> str:
        """The upper end rounded up to ``places`` decimals."""
        return _fixed(math.ceil(self.high * 10 ** places), -places) if places else str(math.ceil(self.high))

    def lower(self, places: int = 2) -> str:
        """The lower end rounded down to ``places`` decimals."""
        return _fixed(math.floor(self.low * 10 ** places), -places) if places else str(math.floor(self.low))

    def nearest(self, places: int = 3) -> str | None:
        """The value rounded to nearest at ``places`` decimals, when both ends agree; else ``None``."""
        ends = {math.floor(x * 10 ** places + Fraction(1, 2)) for x in (self.low, self.high)}
        return _fixed(ends.pop(), -places) if len(ends) == 1 else None

    def text(self, places: int = 2) -> str:
        return f"[{self.lower(places)}, {self.upper(places)}]"

    def to_json(self, places: int = 6) -> dict:
        return {"low": self.lower(places), "high": self.upper(places), "method": self.method}

    def __float__(self) -> float:
        return float((self.low + self.high) / 2)


def certified(ball) -> Certified:
    """The rational interval enclosing an ``arb`` ball.

    :mod:`itsa.privacy`'s conversion, with its size guard: an end below
    ``2^-MAX_BITS`` is widened outward (to 0 or ``±2^-MAX_BITS``), a ball that
    overflowed or an end above ``2^MAX_BITS`` is refused in one line.

    >>> import flint
    >>> certified(flint.arb(2) ** -(10**7)).high == Fraction(1, 2**65536)
    True
    >>> certified(flint.arb(2) ** (10**7))
    Traceback (most recent call last):
    ...
    itsa._util.certified.TooLarge: a bound of about 2^10000001 is beyond 2^65536: too large to carry exactly
    """
    from itsa._util.certified import arb_to_fractions

    return Certified(*arb_to_fractions(ball))


def log2_multiple(n, radix: int) -> Certified:
    """``n · log2(radix)`` bits, certified (``n`` an integer or Fraction)."""
    import flint

    n = Fraction(n)
    with working_precision():
        ball = flint.arb(n.numerator) / n.denominator * flint.arb(radix).log() / flint.arb(2).log()
        return certified(ball)
