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
    """Mixin: ``repr``, ``summary()`` and ``_repr_html_`` from two methods.

    A class defines ``_headline()`` (one short line, the ``repr`` body) and
    ``_rows()`` (``(label, text)`` pairs, the summary). Dataclasses using it
    are declared with ``repr=False`` so the mixin's ``__repr__`` is kept.
    """

    def _headline(self) -> str:          # pragma: no cover - overridden
        raise NotImplementedError

    def _rows(self) -> list[tuple[str, str]]:   # pragma: no cover - overridden
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._headline()}>"

    def summary(self) -> str:
        """A few lines of plain text: the headline, then one ``label: value`` per row."""
        rows = self._rows()
        width = max((_width(k) for k, _ in rows), default=0)
        lines = [f"{type(self).__name__}: {self._headline()}"]
        for key, val in rows:
            pad = " " * (width - _width(key))
            lines.append(f"  {key}{pad}  " + str(val).replace("\n", "\n    " + " " * width))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left;white-space:pre-wrap'>{html.escape(str(v))}</td></tr>"
            for k, v in self._rows())
        title = html.escape(f"{type(self).__name__}: {self._headline()}")
        return f"<table><caption style='text-align:left'><b>{title}</b></caption>{cells}</table>"
