"""Time budget and progress on stderr (the library's :class:`itsa._util.progress.Event` s as one live line)."""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import replace


def wanted(as_json: bool, stdout_tty: bool, stderr_tty: bool) -> bool:
    """Whether to draw progress: only on a terminal, and never for ``--json`` read by a program.

    >>> wanted(False, True, True), wanted(True, False, True), wanted(False, True, False)
    (True, False, False)
    """
    return stderr_tty and not (as_json and not stdout_tty)


def describe(event) -> str:
    """One line: stage, LP size, cutting-plane round, rows added, elapsed seconds.

    >>> from itsa._util.progress import Event
    >>> describe(Event(stage="keys: solve", elapsed=4.21, columns=494, rows=2969, round=3, rows_added=2000))
    'keys: solve · LP 494 columns × 2,969 rows · round 3 (+2,000 rows) · 4.2 s'
    """
    parts = [event.stage]
    if event.columns is not None:
        parts.append(f"LP {event.columns:,} columns × {event.rows:,} rows")
    if event.round is not None:
        added = f" (+{event.rows_added:,} rows)" if event.rows_added else ""
        parts.append(f"round {event.round}{added}")
    if event.note:
        parts.append(event.note)
    parts.append(f"{event.elapsed:.1f} s")
    return " · ".join(parts)


class LiveLine:
    """The line of the last event, rendered at every refresh: its seconds run on until the next event.

    >>> from itsa._util.progress import Event
    >>> line = LiveLine(Event(stage="plan: calibrate", elapsed=0.0, note="gamma = 7"))
    >>> line.seen -= 12                         # twelve seconds later, no event since
    >>> line.__rich__()
    'plan: calibrate · gamma = 7 · 12.0 s'
    """

    def __init__(self, event):
        self.event, self.seen = event, time.monotonic()

    def __rich__(self) -> str:
        return describe(replace(self.event, elapsed=self.event.elapsed + time.monotonic() - self.seen))


@contextlib.contextmanager
def progress_display(as_json: bool = False, quiet: bool = False):
    """Yield a callback for ``progress=`` that draws a live line on stderr, or ``None`` when silent
    (``quiet``, or :func:`wanted` says no)."""
    from rich.console import Console

    err = Console(stderr=True)
    if quiet or not wanted(as_json, sys.stdout.isatty(), err.is_terminal):
        yield None
        return
    status = err.status("starting", spinner="dots")
    status.start()

    def update(event) -> None:
        status.update(LiveLine(event))
    try:
        yield update
    finally:
        status.stop()

def time_limit_of(time_limit: float | None, default: float) -> float | None:
    """The time limit to pass on: ``default`` when not given, ``None`` (no limit) for 0.

    >>> time_limit_of(None, 300.0), time_limit_of(0, 300.0), time_limit_of(5, 300.0)
    (300.0, None, 5)
    """
    if time_limit is None:
        return default
    return None if time_limit == 0 else time_limit


#: The hard stop of a verb's time limit: the limit plus this share of it, plus :data:`GUARD_SECONDS`. The library's
#: own clock (wall-clock and CPU) stops a run gracefully at the limit; the guard stops, in one line, a step that
#: does not look at that clock.
GUARD_SHARE = 0.25
GUARD_SECONDS = 2.0


@contextlib.contextmanager
def time_guard(time_limit: float | None):
    """Stop the enclosed work once it has used its time limit (plus the grace) in CPU or wall-clock time.

    Both of the process's interval timers are armed (``ITIMER_PROF``: CPU of
    every thread; ``ITIMER_REAL``: the clock); either raises
    :class:`itsa.exceptions.TimeLimitReached`, which the verb prints as one
    line (exit 1). ``None`` (no limit), a thread other than the main one, or a
    platform without ``setitimer``: nothing is armed.
    """
    import signal
    import threading

    if not time_limit or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    budget = time_limit * (1 + GUARD_SHARE) + GUARD_SECONDS

    def stop(signum, frame):
        from itsa.exceptions import TimeLimitReached

        kind = "CPU" if signum == signal.SIGPROF else "wall-clock"
        raise TimeLimitReached(f"time limit of {time_limit:g} s reached: {budget:g} s of {kind} time used by a step "
                               "that does not stop by itself (raise the time limit, or 0 for none)")

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, budget)
    signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in old.items():
            signal.signal(sig, handler)


def time_limited(command):
    """Give a verb ``--time-limit`` (default :data:`~itsa._util.deadline.DEFAULT_TIME_LIMIT`, 0: none), enforced by
    :func:`time_guard` around the whole verb; the limit reached is one line, exit 1.

    For the verbs whose library call takes no clock of its own (``analyze``, ``build``, ``verify``, ...); a verb
    whose function takes ``time_limit`` itself gets the limit (``None``: none) to hand to the library's own clock,
    which stops it gracefully before the guard does.
    """
    import functools
    import inspect

    import click

    from itsa._util.deadline import DEFAULT_TIME_LIMIT

    from ._common import EXIT_FAILED, SECONDS, fail

    wants_limit = "time_limit" in inspect.signature(command).parameters

    @functools.wraps(command)
    def run(*args, time_limit=None, **kwargs):
        from itsa.exceptions import TimeLimitReached

        limit = time_limit_of(time_limit, DEFAULT_TIME_LIMIT)
        try:
            with time_guard(limit):
                return command(*args, **kwargs, **({"time_limit": limit} if wants_limit else {}))
        except TimeLimitReached as exc:
            fail(str(exc), EXIT_FAILED)

    return click.option("--time-limit", type=SECONDS, default=None,
                        help=f"Seconds for the run, in CPU and wall-clock time (default {DEFAULT_TIME_LIMIT:g}; "
                             "0 = no limit).")(run)
