"""Every verb has a time limit and bounds on what it reads: the cases found by a hostile review, each refused in
one line (exit 2) before any work, or stopped by its clock (exit 1)."""

import click
import pytest

from itsa._util.dask_run import MAX_CONNECT_TIMEOUT, max_workers
from tests.cli.test_cli_census import one_line_exit_2

FAST = "clients: 100\ndimension: 64\nclip: 1\nnoise: {sigma: 30}\nprivacy: {rounds: 10}\nencoding: {word_bits: 20}\n"
SPEC = "universe:\n  grid: {U: 3, V: 1}\nwork: analyze\n"
#: The one verb whose limit is not ``--time-limit``: each instance of a census runs under its spec's time_limit.
SPEC_LIMITED = {"itsa census run"}


def _verbs(command, path):
    ctx = click.Context(command)
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            yield from _verbs(command.get_command(ctx, name), [*path, name])
    else:
        yield " ".join(path), [o for p in command.params for o in getattr(p, "opts", [])]


def test_every_verb_has_a_time_limit():
    from itsa_cli import main

    lacking = [name for name, opts in _verbs(main, ["itsa"]) if "--time-limit" not in opts]
    assert lacking == sorted(SPEC_LIMITED), lacking


@pytest.fixture
def small(tmp_path):
    (tmp_path / "small.yaml").write_text(FAST)
    (tmp_path / "spec.yaml").write_text(SPEC)
    return tmp_path


@pytest.mark.parametrize("args, says", [
    (["--epsilon", "4", "--delta", "1e-99999"], "time limit of 0.5 s reached"),
    (["--epsilon", "1e-9", "--max-coins", "10000000"], "time limit of 0.5 s reached"),
])
def test_binomial_stops_at_its_time_limit(cli, args, says):
    res = cli("privacy", "binomial", *args, "--time-limit", "0.5")
    assert res.exit_code == 1 and res.stderr.count("\n") == 1 and says in res.stderr, res.output


def test_binomial_still_answers_within_its_limit(cli):
    res = cli("privacy", "binomial", "--epsilon", "1", "--delta", "1e-5", "--time-limit", "60")
    assert res.exit_code == 0 and "N = 62 fair coins" in res.stdout, res.output


@pytest.mark.parametrize("extra, says", [
    (["--workers", "100000"], f"at most {max_workers()} local worker processes"),
    (["--workers", str(max_workers() + 1)], "local worker processes"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1e300"], "connect timeout"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", str(MAX_CONNECT_TIMEOUT + 1)], "connect timeout"),
    (["--workers", "0", "--connect-timeout", "inf"], "not inf"),
    (["--workers", "0", "--connect-timeout", "nan"], "not nan"),
    (["--workers", "0", "--seed", str(2**63)], "seed"),
    (["--workers", "0", "--seed", "-1"], "seed"),
])
def test_a_fleet_refuses_unbounded_options_before_any_work(cli, small, extra, says):
    out = small / "f.parquet"
    one_line_exit_2(cli("plan", small / "small.yaml", "--grid", "epsilon=2,4", "-o", out, *extra), says)
    assert not out.exists()


@pytest.mark.parametrize("extra, says", [
    (["--workers", "100000"], "local worker processes"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1e300"], "connect timeout"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "nan"], "connect timeout"),
])
def test_a_census_refuses_unbounded_options_before_any_work(cli, small, extra, says):
    out = small / "c.parquet"
    one_line_exit_2(cli("census", "run", small / "spec.yaml", "-o", out, *extra), says)
    assert not out.exists()


@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_one_seed_rule_for_a_single_plan_and_a_fleet(cli, small, seed):
    one_line_exit_2(cli("plan", small / "small.yaml", "--seed", seed), "seed: must be a whole number in 0..")


def test_a_simulation_refuses_too_many_workers(cli, small):
    one_line_exit_2(cli("plan", small / "small.yaml", "--simulate", "2", "--workers", "100000"),
                    "local worker processes")


@pytest.mark.parametrize("name", ["dangling", "long"])
def test_a_fleet_output_the_file_system_refuses_is_one_line(cli, small, name):
    if name == "dangling":
        out = small / "dangling.parquet"
        out.symlink_to(small / "nowhere" / "x")
        says = "a link to nothing"
    else:
        out = small / ("a" * 300 + ".parquet")
        says = "too long"
    one_line_exit_2(cli("plan", small / "small.yaml", "--grid", "epsilon=2,4", "-o", out, "--workers", "0"), says)
    one_line_exit_2(cli("census", "run", small / "spec.yaml", "-o", out, "--workers", "0"), says)
