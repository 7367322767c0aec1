"""Time limits hold in CPU time as in wall-clock time, and a step that never looks at the clock is still stopped."""

from __future__ import annotations

import pytest

from itsa._util.deadline import Deadline
from itsa.exceptions import TimeLimitReached
from itsa_cli._progress import time_guard


def test_a_deadline_counts_cpu_time():
    clock = Deadline(5)
    assert not clock.expired()
    clock.cpu_start -= 10                   # ten CPU seconds already used (threads burning faster than the clock)
    assert clock.expired() and clock.left() == pytest.approx(1e-9) and clock.used() >= 10
    with pytest.raises(TimeLimitReached):
        clock.check("the LP")
    part = clock.share(0.5)
    assert part.cpu_start == clock.cpu_start and part.expired()


def test_the_guard_stops_a_loop_that_never_checks_the_clock():
    with pytest.raises(TimeLimitReached, match="time limit of 0.01 s reached"):
        with time_guard(0.01):
            while True:                     # pure Python, no clock: only the guard stops it
                pass


def test_the_guard_is_disarmed_after_its_block_and_for_no_limit():
    import signal

    with time_guard(None):
        assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    with time_guard(60):
        assert signal.getitimer(signal.ITIMER_PROF)[0] > 0
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0) == signal.getitimer(signal.ITIMER_REAL)


@pytest.fixture
def u200(tmp_path):
    """A 200-user instance (itsa.testing's one_protected_user) as a file: its analysis runs for minutes."""
    import json

    from itsa.testing.families import one_protected_user

    inst = one_protected_user(200)
    users = [(u + 1, v + 1) for u, n in enumerate(inst.servers) for v in range(n)]

    def sets(masks):
        return [[list(users[i]) for i in range(inst.K) if m >> i & 1] for m in masks]

    path = tmp_path / "u200.yaml"
    path.write_text(f"servers: {json.dumps(list(inst.servers))}\nsecurity_sets: {json.dumps(sets(inst.security_sets))}\n"
                    f"collusion_sets: {json.dumps(sets(inst.collusion_sets))}\n")
    return path


def test_solve_on_200_users_stops_at_its_limit_in_one_line(cli, tmp_path, u200):
    """A 200-user instance whose analysis step never looks at the clock (it ran minutes past --time-limit 5)."""
    r = cli("solve", u200, "--time-limit", "1", "-o", tmp_path / "out")
    assert r.exit_code == 1 and r.stderr.startswith("error: time limit of 1 s reached"), r.output[-500:]
    assert r.stderr.count("\n") == 1 and r.stdout == ""


@pytest.mark.parametrize("args", [["check", "flower", "--clients", "100"],
                                  ["secagg", "--clients", "100", "--corrupt", "0", "--dropout", "0"]])
def test_the_verdict_verbs_take_a_time_limit(cli, args):
    assert cli(*args, "--time-limit", "30").exit_code == 0
    r = cli(*args, "--time-limit", "nan")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1


@pytest.mark.parametrize("verb", ["analyze", "build", "verify", "draw", "audit"])
def test_every_keys_verb_takes_a_time_limit(cli, verb):
    r = cli(verb, "--help")
    assert "--time-limit" in r.stdout


def test_analyze_stops_at_its_time_limit_in_one_line(cli, u200):
    import json

    r = cli("analyze", u200, "--time-limit", "1", "--json")
    assert r.exit_code == 1 and r.stderr.startswith("error: time limit of 1 s reached") and r.stderr.count("\n") == 1
    ok = cli("analyze", "example-1", "--time-limit", "60", "--json")
    assert ok.exit_code == 0 and json.loads(ok.stdout)["e_star"] == 2


def test_every_verb_runs_under_a_memory_bound(tmp_path):
    """resource_net (around every verb) bounds the process's data to a share of the machine's memory:
    an allocation past it is a MemoryError (one line, exit 2), not the machine's swap."""
    import os
    import subprocess
    import sys

    code = ("import resource, numpy as np\n"
            "from itsa_cli._common import memory_bound\n"
            "bound = memory_bound()\n"
            "assert resource.getrlimit(resource.RLIMIT_DATA)[0] == bound\n"
            "try:\n    np.ones(bound // 8 + 2**20)\nexcept MemoryError:\n    print('refused', bound)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert out.returncode == 0 and out.stdout.startswith("refused"), out.stderr[-500:]
    assert 0 < int(out.stdout.split()[1]) <= total // 2 + 1


def test_the_library_solve_stops_at_its_limit_in_the_analysis():
    """itsa.solve's analysis (the Theorem-2 LP, quadratic in its constraint groups) looks at the solve's clock."""
    import itsa
    from itsa.testing.families import one_protected_user

    clock = Deadline(60)
    clock.cpu_start -= 120                  # the limit already spent in CPU: the LP's first check stops it
    with pytest.raises(TimeLimitReached, match="Theorem-2 LP"):
        itsa.analyze(one_protected_user(200), corrected=False, time_limit=clock)
    with pytest.raises(TimeLimitReached, match="Theorem-2 LP"):
        itsa.solve(one_protected_user(200), time_limit=1e-9)


@pytest.mark.parametrize("value", ["1e999999999", "inf", "1e300", "nan", "-1"])
def test_a_time_limit_past_what_a_clock_holds_is_one_line(cli, value):
    r = cli("check", "flower", "--clients", "10", f"--time-limit={value}")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "--time-limit" in r.stderr and r.stdout == ""
