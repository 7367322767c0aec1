"""Plain data: the helpers every ``to_dict()`` of itsa builds its JSON-ready form from.

Exact numbers become fraction strings (``"7/2"``), user sets sorted lists of
``[u, v]``, kinds their text; every top-level object carries
``schema_version`` (:func:`stamped`).

>>> frac(Fraction(7, 2)), frac(3), frac(None)
('7/2', '3', None)
>>> stamped({"instance": "x"})["schema_version"] == SCHEMA_VERSION
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from itsa._util.schema import SCHEMA_VERSION

__all__ = ["frac", "users", "stamped", "SCHEMA_VERSION"]


def frac(x: Fraction | int | None) -> str | None:
    """``Fraction(7, 2) -> "7/2"``, ``2 -> "2"``, ``None -> None``."""
    return None if x is None else str(Fraction(x))


def users(instance: Any, mask: int) -> list[list[int]]:
    """A user bitmask of ``instance`` as a sorted list of ``[u, v]``."""
    return [list(p) for p in instance.labels(mask)]


def stamped(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with ``schema_version`` first: the form of every top-level JSON object."""
    return {"schema_version": SCHEMA_VERSION, **obj}
