"""A printed number of the paper against itsa's value: the rows of ``itsa modular audit``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Status", "Check"]


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
