"""The key solve inside a plan, under the plan's limits: its time and its memory hold from the first byte.

:func:`itsa.solve` looks at its clock between its stages, but one stage (the
verification of a large scheme, a search's set-up) can run long past it, and
its memory grows with the instance. Inside a plan the solve therefore runs in
a child process (forked: nothing is imported again) that

- is stopped, whatever it is doing, when the time it was given is up; the
  solve inside gets that time less :data:`GRACE_SECONDS` (at least half of
  it) as its own limit, so that it usually ends on its own with what it
  settled;
- may take :data:`MEMORY_LIMIT` bytes of address space beyond what the plan
  already holds (past it, its allocations fail and it stops);
- sends the corrected converse's lower end (:mod:`itsa.keys.bounds.corrected`)
  as soon as it has it, so a solve stopped by either limit is reported as an
  open interval ``[lower, inf)``, never as a run past the limit.

An instance of more than :data:`MAX_USERS` users is not started: its lower
end alone takes longer than a plan's default limit. Without ``fork`` (not a
POSIX system) the solve runs in the plan's own process under its time limit.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidInstance, ItsaError, TimeLimitReached
from itsa.keys.bounds.corrected import EVERY_SCHEME, corrected_lower_bound
from itsa.keys.model.instance import Instance
from itsa.keys.model.io import load_instance

__all__ = ["KeySolve", "bounded_solve", "GRACE_SECONDS", "MEMORY_LIMIT", "MAX_USERS"]

#: Seconds kept between the solve's own limit and the hard stop of its process (its last stage's look at the clock).
GRACE_SECONDS = 2.0
#: Bytes of address space a key solve may take beyond the plan's own (4 GiB).
MEMORY_LIMIT = 4 * 2**30
#: Most users of an instance whose key rate a plan solves (measured: its lower end alone takes minutes beyond).
MAX_USERS = 5000
#: The verdict of a solve that a limit stopped, or that was not started.
STOPPED = "open"


@dataclass(frozen=True, kw_only=True)
class KeySolve:
    """What a bounded key solve settled: ``R*`` in ``[rate_low, rate_high]`` (``None``: no upper end), and why."""

    verdict: str
    rate_low: Fraction
    rate_high: Fraction | None
    scope: str
    name: str
    note: str = ""


def bounded_solve(path, time_limit: float | Deadline | None, seed: int = 0, *,
                  memory_limit: int | None = MEMORY_LIMIT) -> KeySolve:
    """``itsa.solve`` of the instance file ``path`` (or an :class:`~itsa.Instance`) within ``time_limit`` (seconds) and ``memory_limit`` (bytes).

    Returns the settled rate, or the interval known when a limit stopped it
    (``verdict`` ``"open"``, ``note`` saying which limit). Bad input (the
    instance) raises as :func:`itsa.solve` does.
    """
    clock = Deadline.of(time_limit)
    if isinstance(path, Instance):                    # an instance built in memory (a deployment's protocol)
        instance, name = path, path.name or "instance"
    else:
        instance = load_instance(Path(path))
        name = instance.name or Path(path).stem
    if instance.K > MAX_USERS:
        return KeySolve(verdict=STOPPED, rate_low=Fraction(0), rate_high=None, scope=EVERY_SCHEME, name=name,
                        note=f"not solved: {instance.K} users is more than the {MAX_USERS} a plan solves "
                             "(run itsa solve on the instance alone)")
    if not hasattr(os, "fork"):
        return _in_process(instance, clock, seed, name)
    return _in_child(instance, clock, seed, name, memory_limit)


def _solve(instance, time_limit: float | None, seed: int):
    """:func:`itsa.solve` of ``instance`` (its :class:`~itsa.keys.optimum.Solution`)."""
    # lazy: the optimum loads the converse and the searches (80 ms), which a plan without a key solve never needs
    from itsa.keys.optimum import solve

    return solve(instance, time_limit=time_limit, seed=seed)


def _in_process(instance, clock: Deadline, seed: int, name: str) -> KeySolve:
    s = _solve(instance, clock.left(), seed)
    return KeySolve(verdict=str(s.verdict), rate_low=Fraction(s.lower.value),
                    rate_high=None if s.upper is None else Fraction(s.upper.value), scope=s.lower.scope, name=name)


def _child(instance, clock: Deadline, seed: int, memory_limit: int | None, out: int) -> None:
    """The child's work: the lower end at once, then the solve; each a JSON line on ``out``."""
    def send(message: dict) -> None:
        os.write(out, (json.dumps(message) + "\n").encode())

    try:
        if memory_limit is not None:
            held = _address_space()
            if held is not None:
                resource.setrlimit(resource.RLIMIT_AS, (held + memory_limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        send({"lower": str(corrected_lower_bound(instance).value)})
        left = clock.left()
        s = _solve(instance, None if left is None else max(left - GRACE_SECONDS, left / 2), seed)
        send({"verdict": str(s.verdict), "low": str(s.lower.value), "scope": s.lower.scope,
              "high": None if s.upper is None else str(s.upper.value)})
    except MemoryError:
        send({"memory": True})
    except TimeLimitReached as exc:
        send({"time": str(exc)})
    except ItsaError as exc:
        send({"error": str(exc), "kind": type(exc).__name__})


def _address_space() -> int | None:
    """Bytes of address space this process holds now (``None`` if the system does not say)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _in_child(instance, clock: Deadline, seed: int, name: str, memory_limit: int | None) -> KeySolve:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                          # the child: solve, report, leave at once
        code = 0
        try:
            os.close(read)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            _child(instance, clock, seed, memory_limit, write)
        except BaseException:                             # noqa: BLE001 - the parent reports a silent child
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    try:
        messages, late = _collect(read, clock)
    finally:
        os.close(read)
        _stop(pid)
    return _outcome(messages, late, clock, name, memory_limit)


def _collect(fd: int, clock: Deadline) -> tuple[list[dict], bool]:
    """The child's JSON lines until it closes its end or its time is up (then ``True``)."""
    left = clock.left()
    end = None if left is None else time.monotonic() + left
    data = b""
    while True:
        wait = None if end is None else max(0.0, end - time.monotonic())
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    lines = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
    return lines, not ready


def _stop(pid: int) -> None:
    """End the child if it still runs, and reap it."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _outcome(messages: list[dict], late: bool, clock: Deadline, name: str, memory_limit: int | None) -> KeySolve:
    """The settled rate from the child's last line, or the open interval its first line gives."""
    final = next((m for m in messages if "verdict" in m), None)
    if final is not None:
        high = final["high"]
        note = ("" if final["verdict"] == "optimal" or clock.time_limit is None else
                f"open within the {clock.time_limit:.3g} s of the plan's time limit the key solve had (more time "
                "may close it: raise --time-limit)")
        return KeySolve(verdict=final["verdict"], rate_low=Fraction(final["low"]),
                        rate_high=None if high is None else Fraction(high), scope=final["scope"], name=name, note=note)
    failed = next((m for m in messages if "error" in m), None)
    if failed is not None:
        raise (InvalidInstance if failed["kind"] == "InvalidInstance" else ItsaError)(failed["error"])
    lower = next((Fraction(m["lower"]) for m in messages if "lower" in m), Fraction(0))
    if late or any("time" in m for m in messages):
        why = f"stopped when its {clock.time_limit:.3g} s of the plan's time limit were up"
    elif memory_limit is not None:
        why = f"stopped at its memory limit ({memory_limit / 2**30:g} GiB beyond the plan's)"
    else:
        why = "stopped before it settled the rate"

    return KeySolve(verdict=STOPPED, rate_low=lower, rate_high=None, scope=EVERY_SCHEME, name=name,
                    note=f"the key solve was {why}: R* >= {lower} (the corrected converse); raise --time-limit")
