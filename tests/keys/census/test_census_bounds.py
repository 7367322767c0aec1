"""A census spec is bounded before any work: its universe's size, its ranges, its seed and its time limit are
checked when it is read, so nothing is listed, run or written for a spec that cannot finish."""

import pytest

from itsa._util.deadline import DEFAULT_TIME_LIMIT
from itsa.keys.census import InvalidSpec, parse_spec
from itsa.keys.census.universe import MAX_CANDIDATES, MAX_DRAWS, MAX_SETS, MAX_VALUES
from itsa.keys.model.instance import MAX_USERS
from tests.cli.test_cli_census import one_line_exit_2


def _random(**params):
    return {"universe": {"random": {"n": 2, **params}}, "work": "analyze"}


@pytest.mark.parametrize("spec, says", [
    (_random(n=10**9), f"in 1..{MAX_CANDIDATES}"),
    (_random(n=MAX_CANDIDATES + 1), f"in 1..{MAX_CANDIDATES}"),
    (_random(max_users=10**8), f"in 1..{MAX_USERS}"),
    (_random(max_security_sets=10**6), f"in 1..{MAX_SETS}"),
    (_random(max_collusion_sets=MAX_SETS + 1), f"in 1..{MAX_SETS}"),
    (_random(n=MAX_CANDIDATES, max_users=MAX_USERS), "random draws"),
    (_random(n=10**5, regimes={"condition-1": 1.0}), "random draws"),
    ({"universe": {"grid": {"U": "1..99999999999", "V": 1}}}, f"at most {MAX_VALUES} values"),
    ({"universe": {"grid": {"U": "1..1e999999", "V": 1}}}, "not a range"),
    ({"universe": {"grid": {"U": list(range(1, MAX_VALUES + 2)), "V": 1}}}, f"at most {MAX_VALUES} values"),
    ({"universe": {"grid": {"U": 5000, "V": 1}}}, f"in 1..{MAX_USERS}"),
    ({"universe": {"exhaustive": {"U": 3, "K": MAX_USERS, "M": 1, "N": 1}}}, "more than 10^1233 candidate"),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "time_limit": float("nan")}, "time_limit"),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "time_limit": float("inf")}, "time_limit"),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "time_limit": 1e300}, "time_limit"),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "time_limit": -1}, "time_limit"),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "seed": -1}, "seed"),
    ({"universe": {"grid": {"U": 3, "V": 1}}, "seed": 2**63}, "seed"),
])
def test_an_unbounded_spec_is_refused_when_read(spec, says):
    with pytest.raises(InvalidSpec) as err:
        parse_spec(spec)
    assert says in str(err.value), str(err.value)


def test_the_draws_limit_is_the_work_of_listing():
    """The largest random universe accepted lists in bounded time: n x (users + 20 x sets) <= MAX_DRAWS."""
    per = 5 + 20 * (4 + 5)
    parse_spec(_random(n=MAX_DRAWS // per))
    with pytest.raises(InvalidSpec, match="random draws"):
        parse_spec(_random(n=MAX_DRAWS // per + 1))


def test_an_instance_runs_under_a_default_time_limit_and_0_is_none():
    assert parse_spec({"universe": {"grid": {"U": 3, "V": 1}}}).time_limit == DEFAULT_TIME_LIMIT
    assert parse_spec({"universe": {"grid": {"U": 3, "V": 1}}, "time_limit": 0}).time_limit is None
    assert parse_spec({"universe": {"grid": {"U": 3, "V": 1}}, "time_limit": 30}).time_limit == 30.0


@pytest.mark.parametrize("line, says", [("time_limit: .nan", "time_limit"), ("time_limit: .inf", "time_limit"),
                                        ("seed: -1", "seed"),
                                        ("universe: {random: {n: 1000000000}}", "universe.random.n"),
                                        ("universe: {random: {n: 2, max_users: 100000000}}", "max_users")])
def test_a_refused_spec_writes_nothing(cli, tmp_path, line, says):
    """Before, time_limit: .nan left _census.json and an empty journal behind."""
    spec = tmp_path / "spec.yaml"
    head = "" if line.startswith("universe") else "universe: {grid: {U: 3, V: 1}}\n"
    spec.write_text(head + line + "\nwork: analyze\n")
    out = tmp_path / "r.parquet"
    one_line_exit_2(cli("census", "run", spec, "-o", out, "--workers", "0"), says)
    assert not out.exists()


def _bomb():
    from itsa.testing.hostile import bomb

    return f"name: {bomb()}\n"


@pytest.mark.parametrize("text, says", [
    (None, "more than 200,000 values"),                                  # an alias bomb
    ("universe: " + "[" * 100_000 + "\n", "nesting deeper than 64"),     # reached the safety net before
    ("# " + "x" * (3 * 2**20) + "\n", "exceed the limit"),
    ("universe: {grid: {U: 3, V: 1}}\nuniverse: {grid: {U: 3, V: 2}}\n", "duplicate key"),
    ("universe: {grid: {U: 3, V: 1}}\nname: " + "x" * 300 + "\n", "name: a text of at most 200"),
])
def test_a_spec_file_is_read_within_the_yaml_limits(cli, tmp_path, text, says):
    spec = tmp_path / "spec.yaml"
    spec.write_text("universe: {grid: {U: 3, V: 1}}\n" + _bomb() if text is None else text)
    out = tmp_path / "r.parquet"
    one_line_exit_2(cli("census", "run", spec, "-o", out, "--workers", "0"), says)
    assert not out.exists()
