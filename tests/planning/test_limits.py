"""The plan's limits hold from the first byte: the simulation looks at its clock inside a round, the key
solve inside ``plan`` runs under the plan's deadline, a FIFO given as the deployment ends at once, and a
bad place to write is refused before any work."""

import os
import stat

import pytest

from itsa._util.deadline import Deadline
from itsa.exceptions import TimeLimitReached
from itsa.planning.simulate import SimulationSetup, simulate
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
    with pytest.raises(TimeLimitReached, match="a round's") as info:
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

