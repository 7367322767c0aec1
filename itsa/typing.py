"""Types shared across itsa: a user, a configuration, a progress callback.

>>> from itsa.typing import Config, Progress
>>> from itsa._util.progress import Event
>>> seen: list[Event] = []
>>> report: Progress = seen.append
"""

from __future__ import annotations

from itsa._util.progress import Callback, Event

__all__ = ["User", "Config", "Progress", "Event"]

#: A user ``(u, v)``: server ``u``, user ``v`` of that server, both 1-based.
User = tuple[int, int]

#: A configuration ``(k, m, n)`` (or ``(u, m, n)``): server, security set, collusion set, 1-based.
Config = tuple[int, int, int]

#: A progress callback: called with an :class:`itsa._util.progress.Event` at each step of a long
#: computation (``progress=`` of every long call; ``None`` for none).
Progress = Callback
