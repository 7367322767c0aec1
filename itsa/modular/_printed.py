"""A printed number of the paper against itsa's value: the rows of the modular audit.

>>> from itsa._util.certified import Certified, Direction
>>> nearest(Certified("x", Fraction(5475, 10**4), Fraction(5476, 10**4), Direction.ENCLOSURE, "test"), 3)
'0.548'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from itsa._util.certified import Certified

__all__ = ["Status", "Check", "nearest"]


class Status(StrEnum):
    """How a printed value compares with itsa's."""

    REPRODUCED = "reproduced"
    READING = "reproduced under a stated reading"
    DISAGREES = "disagrees"
    UNDETERMINED = "not reproducible from what is printed"
    DEFERRED = "not computed here"


@dataclass(frozen=True)
class Check:
    """One printed number of the paper against itsa's.

    Parameters
    ----------
    key : str
        A short stable name (``table1-psa``).
    where : str
        The section, figure or table.
    printed : str
        The paper's value as printed.
    itsa : str
        itsa's value, saying whether it is exact or certified.
    status : Status
        How they compare.
    reading : str
        The reading that gives the printed value, or why none does.
    command : str
        The command line that reproduces itsa's value.
    """

    key: str
    where: str
    printed: str
    itsa: str
    status: Status
    reading: str
    command: str

    def to_dict(self) -> dict:
        return {"key": self.key, "where": self.where, "printed": self.printed, "itsa": self.itsa,
                "status": str(self.status), "reading": self.reading, "command": self.command}


def nearest(value: Certified, places: int) -> str | None:
    """How the paper would print ``value``: rounded to nearest at ``places`` decimals, when both ends agree.

    This reads the paper's rounding (to nearest); itsa's own decimals are
    rounded in the safe direction (:func:`~itsa._util.certified.safe_decimal`).

    Parameters
    ----------
    value : Certified
        The certified number.
    places : int
        Decimals after the point.

    Returns
    -------
    str or None
        ``None`` when the ends of the interval round differently.
    """
    ends = {math.floor(x * 10 ** places + Fraction(1, 2)) for x in (value.low, value.high)}
    if len(ends) != 1:
        return None
    n = ends.pop()
    sign, digits = ("-" if n < 0 else ""), str(abs(n)).rjust(places + 1, "0")
    return sign + (digits[:-places] + "." + digits[-places:] if places else digits)
