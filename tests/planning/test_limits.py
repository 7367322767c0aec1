"""The plan's limits hold from the first byte: the simulation looks at its clock inside a round, the key
solve inside ``plan`` runs under the plan's deadline, a FIFO given as the deployment ends at once, and a
bad place to write is refused before any work."""

import os
import stat

import pytest

from itsa._util.deadline import Deadline
from itsa.exceptions import TimeLimitReached
from itsa.planning.run.simulate import SimulationSetup, simulate
from tests.test_files import LONG, char_device, fifo, no_hang

TINY = "clients: 10\ndimension: 4\nclip: 1\nprivacy: {epsilon: 4, rounds: 5}\nencoding: {word_bits: 32}\n"


class LookingClock(Deadline):
    """A clock with a long limit that runs out at its ``looks + 1``-th look: no wall clock in the test."""

    def __init__(self, looks: int):
        super().__init__(3600.0)
        self.looks, self.seen = looks, 0

    def expired(self) -> bool:
        self.seen += 1
        return self.seen > self.looks


@pytest.mark.parametrize("noise", ["distributed", "central"])
def test_the_simulation_looks_at_its_clock_inside_a_round(noise):
    setup = SimulationSetup(clients=12, dimension=40, clip=1, gamma=8, sigma_client=3, modulus=2**20, noise=noise)
    assert simulate(setup, rounds=1, seed=0, time_limit=LookingClock(10**6)).rounds == 1
    with pytest.raises(TimeLimitReached, match="a round's|exact draws of block") as info:
        simulate(setup, rounds=1, seed=0, time_limit=LookingClock(1))     # the look before the round passes
    assert "\n" not in str(info.value)


def one_line(res, *words):
    assert res.exit_code == 2, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: "), res.stderr
    assert "Traceback" not in res.output and res.stdout == ""
    for word in words:
        assert word in res.stderr, res.stderr


def test_a_fifo_deployment_ends_in_one_line_at_once(cli, tmp_path):
    with no_hang():
        res = cli("plan", fifo(tmp_path), "--time-limit", "5")
    one_line(res, "FIFO")


@pytest.mark.parametrize("option", ["--markdown", "--figure"])
def test_a_fifo_report_or_figure_is_refused_before_the_work_and_kept(cli, tmp_path, option):
    (tmp_path / "d.yaml").write_text(TINY)
    pipe = fifo(tmp_path, "out.pdf")
    res = cli("plan", tmp_path / "missing.yaml", option, pipe, "--sweep", "epsilon=1,2")
    one_line(res, option, "FIFO")               # refused before the deployment is even read
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_a_device_report_is_refused_and_kept(cli, tmp_path):
    (tmp_path / "d.yaml").write_text(TINY)
    node = char_device(tmp_path)
    res = cli("plan", tmp_path / "d.yaml", "--markdown", node)
    one_line(res, "--markdown", "character device")
    assert stat.S_ISCHR(os.lstat(node).st_mode)


@pytest.mark.parametrize("option, name", [("--markdown", ""), ("--figure", ""), ("--markdown", LONG + ".md"),
                                          ("--figure", LONG + ".pdf"), ("--markdown", "a-folder")])
def test_empty_long_and_folder_names_are_one_line(cli, tmp_path, option, name):
    (tmp_path / "d.yaml").write_text(TINY)
    (tmp_path / "a-folder").mkdir()
    res = cli("plan", tmp_path / "d.yaml", option, name if not name or name == LONG else tmp_path / name,
              "--sweep", "epsilon=1,2")
    one_line(res, option)



# -- the key solve inside a plan ------------------------------------------------------------------------

def _deployment(tmp_path, U, V):
    from itsa.keys.examples import homogeneous_yaml

    (tmp_path / "servers.yaml").write_text(homogeneous_yaml(U, V, 1))
    (tmp_path / "d.yaml").write_text(TINY + "servers: servers.yaml\n")
    return tmp_path / "d.yaml"


def test_a_key_instance_past_the_limit_is_an_open_interval_not_an_unbounded_run(tmp_path):
    # 200 users: an unbounded solve takes minutes; the plan's limit holds and the lower end is kept
    from itsa.planning import load_deployment, plan

    with no_hang(120):
        result = plan(load_deployment(_deployment(tmp_path, 20, 10)), time_limit=10)
    keys = result.keys
    assert keys.verdict == "open" and keys.rate_high is None and keys.rate_low == 29     # min(U+V+t-2, UV-1)
    assert "time limit" in keys.note and keys.to_dict()["note"] == keys.note and keys.note in result.summary()


@pytest.mark.slow
def test_a_key_solve_past_its_memory_is_stopped(tmp_path):
    from itsa.planning.keysolve import bounded_solve

    _deployment(tmp_path, 20, 10)
    with no_hang(120):
        solved = bounded_solve(tmp_path / "servers.yaml", 60, memory_limit=0)
    assert solved.verdict == "open" and solved.rate_high is None and "memory" in solved.note


def test_an_instance_too_large_is_not_started(tmp_path, monkeypatch):
    from itsa.planning import keysolve

    _deployment(tmp_path, 20, 10)
    monkeypatch.setattr(keysolve, "MAX_USERS", 100)
    solved = keysolve.bounded_solve(tmp_path / "servers.yaml", None)
    assert solved.verdict == "open" and solved.rate_low == 0 and "200 users" in solved.note


def test_a_small_instance_is_still_settled(tmp_path):
    from itsa.planning.keysolve import bounded_solve

    solved = bounded_solve(_deployment(tmp_path, 2, 2).parent / "servers.yaml", 120)
    assert solved.verdict == "optimal" and solved.rate_low == solved.rate_high == 3 and solved.note == ""


def test_a_long_deployment_name_is_one_line(cli, tmp_path):
    one_line(cli("plan", tmp_path / LONG), "too long")
