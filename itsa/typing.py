"""Types shared across itsa: a user, a configuration, a progress callback.

>>> from itsa.typing import Config, Progress
>>> def report(done: int, total: int) -> None: ...
>>> isinstance(report, Progress)
True
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["User", "Config", "Progress"]

#: A user ``(u, v)``: server ``u``, user ``v`` of that server, both 1-based.
User = tuple[int, int]

#: A configuration ``(k, m, n)`` (or ``(u, m, n)``): server, security set, collusion set, 1-based.
Config = tuple[int, int, int]


@runtime_checkable
class Progress(Protocol):
    """A progress callback: called with the work done so far and the total planned.

    Long computations (:func:`itsa.verify`, :func:`itsa.search_min_rate`,
    :func:`itsa.audit`) accept one as ``progress=`` (or ``None``). ``total``
    may grow as the work is planned; ``done <= total`` always.
    """

    def __call__(self, done: int, total: int) -> None: ...
