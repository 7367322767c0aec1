"""A Fraction as an exact certified number (for :func:`itsa.modular._printed.nearest`)."""

from fractions import Fraction

from itsa._util.certified import Certified, Direction


def exact(x: Fraction) -> Certified:
    return Certified("value", Fraction(x), Fraction(x), Direction.EXACT, "exact")
