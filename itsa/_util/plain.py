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

from enum import Enum
from fractions import Fraction
from typing import Any

from itsa._util.schema import SCHEMA_VERSION

__all__ = ["frac", "users", "plain", "stamped", "SCHEMA_VERSION"]


def frac(x: Fraction | int | None) -> str | None:
    """``Fraction(7, 2) -> "7/2"``, ``2 -> "2"``, ``None -> None``; a number too long to write in digits (past
    Python's 4,300-digit limit) as :func:`itsa._util.certified.fraction_text` writes it (``1e5000``, or its
    safe bounds, said so): the one home of a number in a ``to_dict()``.

    >>> frac(Fraction(10**5000)), frac(Fraction(1, 3 * 10**5000))[:4]
    ('1e5000', 'in [')
    """
    if x is None:
        return None
    from itsa._util.certified import fraction_text

    return fraction_text(x)


def users(instance: Any, mask: int) -> list[list[int]]:
    """A user bitmask of ``instance`` as a sorted list of ``[u, v]``."""
    return [list(p) for p in instance.labels(mask)]


def plain(value: Any) -> Any:
    """``value`` with every kind (a str enum) turned into its text, through dicts, lists and tuples.

    So the form is plain for every serialiser, YAML's safe dumper included.

    >>> from enum import StrEnum
    >>> class Colour(StrEnum):
    ...     RED = "red"
    >>> type(plain({Colour.RED: [Colour.RED]})[("red")][0])
    <class 'str'>
    """
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def stamped(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` as plain data with ``schema_version`` first: the form of every top-level JSON object."""
    return {"schema_version": SCHEMA_VERSION, **plain(obj)}
