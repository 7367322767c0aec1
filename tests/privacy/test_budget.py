"""``itsa privacy noise``: the cost estimated up front, a time limit by default, progress events."""

import subprocess

import pytest

import itsa.privacy.sampler as sampler
from itsa.exceptions import InvalidOption, ItsaError
from itsa.privacy.sampler import DRAWS_PER_SECOND, MAX_COUNT, estimate_seconds, sample
from tests.guard import ends


def test_the_long_exact_run_is_refused_up_front_in_a_real_process():
    """10,000,000 exact draws (about 10 s planned) are refused at once under a 5 s limit."""
    with ends():
        done = subprocess.run(["itsa", "privacy", "noise", "--sigma", "3", "--count", "10000000", "--seed", "s",
                               "--engine", "exact", "--time-limit", "5"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert "time limit of 5 s" in line and "time limit 0: none" in line


def test_the_estimate_scales_with_the_count_and_the_engine():
    assert estimate_seconds(MAX_COUNT, "exact") == MAX_COUNT / DRAWS_PER_SECOND[sampler.SamplerEngine.EXACT]
    assert estimate_seconds(MAX_COUNT, "exact") < estimate_seconds(MAX_COUNT, "table")
    with pytest.raises(InvalidOption):
        estimate_seconds(MAX_COUNT + 1, "table")


def test_a_given_time_limit_moves_the_refusal():
    with pytest.raises(InvalidOption, match="past the time limit of 1 s"):
        sample(3, 2_000_000, "s", "exact", time_limit=1)
    assert len(sample(3, 10, "s", "exact", time_limit=1)) == 10


def test_the_exact_engine_stops_when_the_limit_runs_out(monkeypatch):
    monkeypatch.setitem(DRAWS_PER_SECOND, sampler.SamplerEngine.EXACT, 10**15)      # the plan lets it start
    with pytest.raises(ItsaError, match=r"time limit of 1e-09 s reached at \d+ of 5000 exact draws"):
        sample(3, 5000, "s", "exact", time_limit=1e-9)


def test_progress_counts_the_draws_and_the_draws_do_not_change():
    events = []
    drawn = sample(3, 140_000, "s", "exact", progress=events.append)
    assert [e.done for e in events] == [65536, 131072, 140000] and {e.total for e in events} == {140000}
    assert drawn == sample(3, 140_000, "s", "exact")
