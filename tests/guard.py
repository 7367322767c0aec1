"""A hang guard for tests whose subject is a limit: a call that must end (refused up front, or
stopped at its time limit) rather than run on.

It is not a speed goal (those live in ``benchmarks/``, as ratios measured in one run): the
allowance is generous, and a test fails here only when the call hangs far past any limit it was
given, as a loop that never looks at its deadline does.
"""

import contextlib
import signal

#: Seconds a guarded call may take before the test fails as hung: a generous multiple of every
#: time limit the guarded tests pass, on a loaded two-core machine.
HANG = 120


class Hung(AssertionError):
    """The guarded call did not end within the allowance."""


@contextlib.contextmanager
def ends(seconds: float = HANG):
    """Fail the test with :class:`Hung` if the block has not ended after ``seconds``."""
    def alarm(signum, frame):
        raise Hung(f"the call did not end within {seconds} s: it hangs past its limit")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
