"""Progress events: what a long computation reports while it runs, without printing anything.

Every long library call (:func:`itsa.keys.converse.converse`, :func:`itsa.solve`,
:func:`itsa.verify`, the searches, :func:`itsa.audit`) takes an optional
``progress`` callback and calls it with an :class:`Event`: at every stage and
cutting-plane round, and with ``done`` and ``total`` where the work is counted
(configurations checked, candidates drawn). The library never prints; the
command line renders the events on stderr.

Examples
--------
>>> seen = []
>>> report = Reporter(seen.append, prefix="keys")
>>> report("solve", columns=9, rows=29, round=1)
>>> seen[0].stage, seen[0].columns, seen[0].round
('keys: solve', 9, 1)
>>> Reporter(None)("solve")          # no callback: nothing happens
>>> tick = counting(seen.append, "verify")
>>> tick(3, 10); (seen[-1].stage, seen[-1].done, seen[-1].total)
('verify', 3, 10)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Event", "Callback", "Reporter", "Tick", "counting"]


@dataclass(kw_only=True, frozen=True)
class Event:
    """One step of a long computation.

    ``stage`` names the step (``"keys: solve"``); the sizes are those of the LP
    being worked on; ``round`` and ``rows_added`` describe the last
    cutting-plane round; ``done`` of ``total`` count the work where it is
    counted; ``elapsed`` is seconds since the call began.
    """

    stage: str
    elapsed: float
    columns: int | None = None
    rows: int | None = None
    round: int | None = None
    rows_added: int | None = None
    done: int | None = None
    total: int | None = None
    note: str = ""


Callback = Callable[[Event], None]


class Reporter:
    """Calls ``callback`` with :class:`Event` s, timing from its own creation; a no-op without one."""

    def __init__(self, callback: Callback | None, prefix: str = "", start: float | None = None):
        self.callback, self.prefix = callback, prefix
        self.start = time.perf_counter() if start is None else start

    def __call__(self, stage: str, **fields) -> None:
        if self.callback is not None:
            name = f"{self.prefix}: {stage}" if self.prefix else stage
            self.callback(Event(stage=name, elapsed=time.perf_counter() - self.start, **fields))

    def sub(self, prefix: str) -> Reporter:
        """A reporter for a part of the computation, on the same clock."""
        return Reporter(self.callback, prefix, self.start)


#: What counted work calls inside the library: ``tick(done, total)``.
Tick = Callable[[int, int], None]


def counting(callback: Callback | None, stage: str) -> Tick | None:
    """A ``tick(done, total)`` that reports :class:`Event` s of ``stage``; ``None`` without a callback."""
    if callback is None:
        return None
    report = Reporter(callback)
    return lambda done, total: report(stage, done=done, total=total)
