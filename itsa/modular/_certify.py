"""itsa.modular's numbers on the one certified type, :class:`itsa._util.certified.Certified`.

Every irrational quantity (a payload in bits, a slope, a noise tail) is an
arb ball turned into a ``Certified`` by :func:`enclose`, at the one working
precision :data:`itsa._util.certified.PRECISION`; every decimal is
:func:`~itsa._util.certified.safe_decimal`'s. A carry probability is a
``Certified`` always: ``Direction.EXACT`` (``low == high``, a Fraction) from the
exact engine, ``Direction.UPPER`` from the certified one (:func:`carry`): its
decimal is the certified interval's upper end rounded up, the side a carry
target is checked on; the interval keeps the lower end.

Examples
--------
>>> c = log2_multiple(8, 3)          # 8 log2 3 bits
>>> interval(c, 4), c.decimal(4)
('[12.67, 12.68]', '12.68')
>>> shown(carry(Fraction(975138, 10**11), Fraction(975138, 10**11), "exact"))
'9.752e-6 (exact, rounded up)'
"""

from __future__ import annotations

from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb

__all__ = ["enclose", "carry", "shown", "interval", "log2_multiple", "at_most", "image"]

#: The provenance of a ball computed here.
BALLS = "ball arithmetic (python-flint arb)"


def enclose(name: str, ball, direction: Direction = Direction.ENCLOSURE, method: str = BALLS) -> Certified:
    """``ball`` (an arb) as a :class:`Certified` named ``name``: its exact endpoints, guarded in size."""
    return Certified.from_arb(name, ball, direction, method)


def carry(low: Fraction, high: Fraction, method: str) -> Certified:
    """A carry probability: exact when ``low == high``, else an upper bound with its certified interval."""
    direction = Direction.EXACT if low == high else Direction.UPPER
    return Certified("carry probability", Fraction(low), Fraction(high), direction, method)


def interval(c: Certified, digits: int = 4) -> str:
    """``[low, high]`` rounded outward to ``digits`` significant digits."""
    return f"[{safe_decimal(c.low, digits, up=False)}, {safe_decimal(c.high, digits, up=True)}]"


def shown(c: Certified, digits: int = 4) -> str:
    """A probability as a line says it: ``9.752e-6 (exact, rounded up)``, ``0 (exact)`` or its interval."""
    if c.direction is Direction.EXACT:
        return "0 (exact)" if c.high == 0 else f"{safe_decimal(c.high, digits)} (exact, rounded up)"
    return f"{interval(c, digits)} (certified, {c.method})"


def at_most(c: Certified, bound: Fraction) -> bool | None:
    """Whether the number is ``<= bound``; ``None`` when its interval straddles it."""
    if c.high <= bound:
        return True
    if c.low > bound:
        return False
    return None


def image(c: Certified, f) -> Certified:
    """The image of ``c`` under an increasing function ``f`` of Fractions (same direction and method)."""
    return Certified(c.name, f(c.low), f(c.high), c.direction, c.method)


def log2_multiple(n, radix: int, name: str = "bits") -> Certified:
    """``n · log2(radix)`` bits, certified (``n`` an integer or Fraction); shown rounded up (an upper bound).

    Parameters
    ----------
    n : int or Fraction
        The multiple of ``log2 radix``.
    radix : int
        ``ρ``.
    name : str
        What the number is.
    """
    with precision():
        ball = to_arb(Fraction(n)) * to_arb(radix).log() / to_arb(2).log()
        return enclose(name, ball, Direction.UPPER)
