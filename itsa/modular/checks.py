"""A printed number of the paper against itsa's value (the rows of ``itsa modular audit``), and input checks.

The checks raise :class:`~itsa.exceptions.InvalidOption` with one line, as
:mod:`itsa._util.checks` does, for what only itsa.modular knows about.

>>> exclusive(margin=4, modulus=None)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from itsa.exceptions import InvalidOption

__all__ = ["Status", "Check", "exclusive"]


class Status(StrEnum):
    """How a printed value compares with itsa's."""

    REPRODUCED = "reproduced"
    READING = "reproduced under a stated reading"
    DISAGREES = "disagrees"
    UNDETERMINED = "not reproducible from what is printed"
    DEFERRED = "not computed here"


@dataclass(frozen=True)
class Check:
    """One printed number of the paper against itsa's."""

    key: str
    where: str
    printed: str
    itsa: str
    status: Status
    reading: str
    command: str

    def to_json(self) -> dict:
        return {"key": self.key, "where": self.where, "printed": self.printed, "itsa": self.itsa,
                "status": str(self.status), "reading": self.reading, "command": self.command}


def exclusive(**options) -> None:
    """Refuse two options given together that say the same thing (``None`` is not given).

    >>> exclusive(margin=None, modulus=81)
    >>> exclusive(margin=4, modulus=81)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: give --margin or --modulus, not both
    """
    given = [name for name, value in options.items() if value is not None]
    if len(given) > 1:
        names = " or ".join("--" + name.replace("_", "-") for name in given)
        raise InvalidOption(f"give {names}, not {'both' if len(given) == 2 else 'several'}")
