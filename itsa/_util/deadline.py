"""Time limits: one :class:`Deadline` type for every long computation.

A function that can run long takes ``time_limit`` (seconds; ``0`` or ``None``
for none, in the library as on the command line) and makes one ``Deadline``
from it; the parts it calls get the same object, or ``deadline.left()`` as
their own ``time_limit``. ``left()`` is never 0 while a limit is set (at least
:data:`LAST_INSTANT`), so a spent clock passed on as a time limit is spent
there too, never read as "no limit". ``time_limit`` is the only name for a
limit in seconds across itsa. A limit holds in wall-clock time *and* in the
process's CPU time (every thread's, :func:`time.process_time`): a run whose
threads burn the CPU faster than the clock turns stops as soon as either is spent.

Examples
--------
>>> d = Deadline(None)
>>> d.left() is None, d.expired()
(True, False)
>>> Deadline(0).time_limit is None
True
>>> d = Deadline.spent()
>>> d.left() == LAST_INSTANT, d.expired()
(True, True)
>>> d = Deadline(60)
>>> d.lap("analyze"); sorted(d.timings)
['analyze']
"""

from __future__ import annotations

import time

__all__ = ["Deadline", "DEFAULT_TIME_LIMIT", "LAST_INSTANT", "MAX_SECONDS", "check_seconds"]

#: Seconds a command that can run long takes by default (0: no limit).
DEFAULT_TIME_LIMIT = 300.0
#: What ``left()`` says of a spent clock: a time limit that expires at once, not 0 (which is none).
LAST_INSTANT = 1e-9
#: The longest time limit (or wait) read, in seconds (about 31 years; 0 is none): the clocks that enforce it stop
#: there, and a wait longer than this is a hang.
MAX_SECONDS = 10**9


def check_seconds(name: str, value, *, zero: bool = True, error=None) -> float | None:
    """``value`` as seconds if it is a finite number in ``[0, MAX_SECONDS]`` (``(0, MAX_SECONDS]`` without
    ``zero``); ``None`` stays ``None``. The one rule of every time limit and wait read (a spec's, an option's).

    ``nan``, ``inf``, a bool, a text or a negative number is refused in one line (``error``: an
    :class:`~itsa.exceptions.InvalidInput` subclass, :class:`~itsa.exceptions.InvalidOption` by default).

    >>> check_seconds("time_limit", 30), check_seconds("time_limit", None)
    (30.0, None)
    >>> check_seconds("connect timeout", float("inf"), zero=False)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: connect timeout: must be a number of seconds in (0, 1e+09], not inf
    """
    from itsa.exceptions import InvalidOption, excerpt

    if value is None:
        return None
    ok = not isinstance(value, bool) and isinstance(value, (int, float))
    if ok:
        try:
            seconds = float(value)
        except OverflowError:
            ok = False
    if not ok or not (seconds >= 0 if zero else seconds > 0) or not seconds <= MAX_SECONDS:
        where = f"[0, {MAX_SECONDS:.0e}]" if zero else f"(0, {MAX_SECONDS:.0e}]"
        raise (error or InvalidOption)(f"{name}: must be a number of seconds in {where}, not {excerpt(value)}")
    return seconds


class Deadline:
    """A clock started at creation with an optional limit in seconds, and the time of each stage.

    ``time_limit`` 0 or ``None`` is no limit; a negative one (a share of time already spent) is a
    clock spent at once.
    """

    def __init__(self, time_limit: float | None):
        if time_limit is not None and time_limit != time_limit:
            from itsa.exceptions import InvalidOption

            raise InvalidOption("time limit: must be a number of seconds >= 0, not nan")
        if time_limit == 0:
            time_limit = None
        elif time_limit is not None and time_limit < 0:
            time_limit = -1.0
        self.time_limit = time_limit
        self.start = time.perf_counter()
        self.cpu_start = time.process_time()
        self.timings: dict[str, float] = {}
        self._lap = self.start

    @staticmethod
    def of(time_limit: float | Deadline | None) -> Deadline:
        """``time_limit`` itself when it is a Deadline (a part of a longer run), else a new one.

        >>> d = Deadline(5)
        >>> Deadline.of(d) is d, Deadline.of(None).time_limit
        (True, None)
        """
        return time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)

    def elapsed(self) -> float:
        """Seconds since the clock started."""
        return time.perf_counter() - self.start

    def cpu(self) -> float:
        """CPU seconds the process (all its threads) has used since the clock started."""
        return time.process_time() - self.cpu_start

    def used(self) -> float:
        """What the limit is measured against: the larger of the wall-clock and the CPU seconds."""
        return max(self.elapsed(), self.cpu())

    @staticmethod
    def spent() -> Deadline:
        """A clock whose limit has already passed (a computation given no time at all)."""
        return Deadline(-1)

    def left(self) -> float | None:
        """Seconds left (at least :data:`LAST_INSTANT`, never 0), or ``None`` without a limit."""
        if self.time_limit is None:
            return None
        return max(LAST_INSTANT, self.time_limit - self.used())

    def expired(self) -> bool:
        """Whether a limit was set and has passed, in wall-clock or in CPU time."""
        return self.time_limit is not None and self.time_limit - self.used() <= 0

    def share(self, fraction: float) -> Deadline:
        """A deadline on the same clock whose limit is ``fraction`` of this one's.

        >>> whole = Deadline(60)
        >>> part = whole.share(0.5)
        >>> part.time_limit, part.start == whole.start
        (30.0, True)
        """
        out = Deadline(None if self.time_limit is None else fraction * self.time_limit)
        out.start = out._lap = self.start
        out.cpu_start = self.cpu_start
        return out

    def check(self, where: str) -> None:
        """Raise :class:`~itsa.exceptions.TimeLimitReached` (naming ``where``) once the limit has passed.

        >>> Deadline(1e-9).check("K = 8")
        Traceback (most recent call last):
        ...
        itsa.exceptions.TimeLimitReached: time limit of 1e-09 s reached at K = 8 (raise the time limit, or 0 for none)
        """
        if self.expired():
            from itsa.exceptions import TimeLimitReached

            limit = "no time" if (self.time_limit or 0) < 0 else f"time limit of {self.time_limit:g} s"
            raise TimeLimitReached(f"{limit} reached at {where} (raise the time limit, or 0 for none)")

    def lap(self, stage: str) -> None:
        """Add the time since the last lap to ``timings[stage]``."""
        now = time.perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + now - self._lap
        self._lap = now

    def __repr__(self) -> str:
        limit = "none" if self.time_limit is None else f"{self.time_limit:g} s"
        return f"<Deadline limit {limit}, {self.elapsed():.1f} s elapsed>"
