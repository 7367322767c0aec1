"""How itsa writes users, user sets and results as text and HTML: the one home of its formats.

Users are ``(u, v)`` (1-based server, user); a user set is ``{(1,1), (2,1)}``
or ``∅``; a configuration is ``(k,m,n)``. :meth:`itsa.Instance.describe`
turns a bitmask into that text; everything else (the command line, the
figures, the result classes) goes through it or through :func:`users`.

Result classes mix in :class:`Displayable`: a short ``repr``, a
:meth:`~Displayable.summary` text (the same rows as the notebook's HTML
table) and ``_repr_html_`` for Jupyter.

Examples
--------
>>> users([(1, 1), (2, 1)])
'{(1,1), (2,1)}'
>>> users([])
'∅'
>>> config((1, 4, 16))
'(1,4,16)'
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from enum import StrEnum

__all__ = ["user", "users", "config", "Displayable", "Kind"]


class Kind(StrEnum):
    """A machine-readable kind (a status, a verdict, a row origin): a string that prints as one.

    Members compare equal to their text and print as it, in a ``repr`` too, so
    a tuple of results reads in a notebook as it does in JSON.

    >>> class Colour(Kind):
    ...     RED = "red"
    >>> Colour.RED == "red", (Colour.RED,), f"{Colour.RED}"
    (True, ('red',), 'red')
    """

    def __repr__(self) -> str:
        return repr(self.value)


def user(u: int, v: int) -> str:
    """One user: ``(u,v)``."""
    return f"({u},{v})"


def users(pairs: Iterable, sep: str = ", ") -> str:
    """A set of ``(u, v)`` pairs: ``{(1,1), (2,1)}``, or ``∅`` when empty."""
    items = [user(u, v) for u, v in pairs]
    return "{" + sep.join(items) + "}" if items else "∅"


def config(c) -> str:
    """A configuration ``(k, m, n)`` (or any tuple of indices): ``(k,m,n)``."""
    return "(" + ",".join(str(int(x)) for x in c) + ")"


def shorten(text: str, limit: int = 100) -> str:
    """``text`` cut to ``limit`` characters with ``…`` (for one-line reprs)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _width(text: str) -> int:
    """Terminal columns of ``text``: combining marks (the bar of ``S̄``) take none."""
    return sum(1 for ch in text if not unicodedata.combining(ch))


class Displayable:
    """The result protocol: every answer itsa gives has ``headline()``, ``rows()`` and ``to_dict()``.

    A class defines ``headline()`` (one short line, the ``repr`` body),
    ``rows()`` (``(label, text)`` pairs, the summary and the terminal table)
    and ``to_dict()`` (its JSON-ready form, built from :mod:`itsa._util.plain`,
    without ``schema_version``: that is stamped once, where the object is
    printed). ``repr``, :meth:`summary` and ``_repr_html_`` follow from them,
    under :meth:`title`. Dataclasses using it are declared with ``repr=False``
    so the mixin's ``__repr__`` is kept.

    >>> class Answer(Displayable):
    ...     def headline(self): return "42"
    ...     def rows(self): return [("question", "unknown")]
    ...     def to_dict(self): return {"answer": 42}
    >>> print(Answer().summary())
    answer: 42
      question  unknown
    """

    def headline(self) -> str:          # pragma: no cover - overridden
        raise NotImplementedError

    def rows(self) -> list[tuple[str, str]]:   # pragma: no cover - overridden
        raise NotImplementedError

    def to_dict(self) -> dict:          # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def title(cls) -> str:
        """What the result is, in words: the class name spelled out (``ReleasePrivacy`` -> ``release privacy``)."""
        words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", cls.__name__)
        return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.headline()}>"

    def summary(self) -> str:
        """A few lines of plain text: the title and headline, then one ``label: value`` per row."""
        rows = self.rows()
        width = max((_width(k) for k, _ in rows), default=0)
        lines = [f"{self.title()}: {self.headline()}"]
        for key, val in rows:
            pad = " " * (width - _width(key))
            lines.append(f"  {key}{pad}  " + str(val).replace("\n", "\n    " + " " * width))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left;white-space:pre-wrap'>{html.escape(str(v))}</td></tr>"
            for k, v in self.rows())
        title = html.escape(f"{self.title()}: {self.headline()}")
        return f"<table><caption style='text-align:left'><b>{title}</b></caption>{cells}</table>"
