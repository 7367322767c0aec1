"""``itsa privacy``: every bad input is one line on stderr and exit 2, checked before any work."""

import subprocess

import pytest
from click.testing import CliRunner

from itsa_cli import main as cli
from tests.guard import ends


def run(*args):
    return CliRunner().invoke(cli, ["privacy", *args])


def refused(*args) -> str:
    """The one stderr line of a refused command (exit 2, nothing on stdout, no traceback)."""
    res = run(*args)
    assert res.exit_code == 2, (args, res.exit_code, res.output, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (args, res.stderr)
    assert res.stdout == "" and "Traceback" not in res.stderr
    return lines[0]


def test_a_negative_weight_is_a_value_not_an_option():
    line = refused("weights", "--alpha", "256", "-1", "2", "3")
    assert "weight 1" in line and "'-1'" in line and ">= 0" in line and "option" not in line


def test_a_negative_weight_from_a_real_process():
    done = subprocess.run(["itsa", "privacy", "weights", "--alpha", "256", "2", "-1", "3"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == ["error: weight 2: must be >= 0, not '-1'"]


def test_delta_slack_is_named_and_checked_before_any_work(monkeypatch):
    import itsa.privacy.accounting

    def no_work(*args, **kwargs):
        raise AssertionError("an accountant ran before every input was checked")

    monkeypatch.setattr(itsa.privacy.accounting, "one_round_epsilon", no_work)
    line = refused("account", "--noise-multiplier", "1", "--rounds", "10", "--delta-slack", "0")
    assert "delta slack" in line and "'0'" in line


@pytest.mark.parametrize("epsilon", ["1e400", "1e300"])
def test_a_target_too_large_to_calibrate_is_said_so(epsilon):
    line = refused("calibrate", "--epsilon", epsilon, "--quiet")
    assert "too large a target" in line and "MIN_SCALE" in line and "curve zero" not in line


def test_a_target_too_small_to_calibrate_is_said_so():
    line = refused("calibrate", "--epsilon", "1e-300", "--delta", "1e-100000", "--quiet")
    assert "too small a target" in line and "MAX_SCALE" in line


def test_max_weight_and_clients_that_disagree_are_refused():
    line = refused("sensitivity", "--clients", "5", "--max-weight", "1/5", "-d", "2")
    assert "max weight 0.2 conflicts with clients 5" in line and "0.203125" in line      # 13/64


def test_max_weight_and_clients_that_agree_are_taken():
    res = run("sensitivity", "--clients", "5", "--max-weight", "13/64", "-d", "2", "--json")
    assert res.exit_code == 0, res.stderr


@pytest.mark.parametrize("args", [
    ["account", "--noise-multiplier", "1e5000"],
    ["account", "--noise-multiplier", "1e400", "--crosscheck"],
    ["sensitivity", "-d", "2", "--clients", "5", "--max-weight", "1e-5000"],
    ["noise", "--sigma", "1e400", "--count", "3", "--seed", "s"],
    ["noise", "--sigma", "1e-100000", "--count", "3", "--seed", "s"],
    ["noise", "--sigma", "3", "--count", "3", "--seed", "s", "--time-limit", "nan"],
])
def test_inputs_that_once_raised_or_hung(args):
    with ends():
        res = run(*args)
        assert res.exit_code in (0, 2) and not (res.exception and not isinstance(res.exception, SystemExit)), res.exception
        if res.exit_code == 2:
            assert len(res.stderr.strip().splitlines()) == 1


def test_numbers_past_the_digit_limit_print():
    """1e5000 as a noise multiplier is read exactly and printed without Python's 4,300-digit limit."""
    res = run("account", "--noise-multiplier", "1e5000", "--json")
    assert res.exit_code == 0, res.stderr
    assert '"noise_multiplier": "1e5000"' in res.stdout


def test_a_given_per_round_epsilon_and_a_per_round_source_are_refused_together():
    line = refused("account", "--noise-multiplier", "1", "--epsilon-per-round", "2", "--per-round", "classical")
    assert "per-round epsilon '2' conflicts with per-round source 'classical'" in line


@pytest.mark.parametrize("conversion", ["mironov", "cks"])
def test_a_delta_within_float_rounding_of_one_is_accounted(conversion):
    """ln δ rounds to 0 in floating point there; the order search still starts (and the bound is vacuous)."""
    res = run("calibrate", "--epsilon", "4", "--delta", "0.99999999999999999", "--conversion", conversion, "--json")
    assert res.exit_code in (0, 2), res.stderr
    assert "Traceback" not in res.stderr and "math domain" not in res.stderr
    res = run("account", "--noise-multiplier", "2", "--rounds", "10", "--delta", "0.99999999999999999", "--json")
    assert res.exit_code == 0, res.stderr


def test_an_empty_noise_seed_is_refused():
    assert "non-empty" in refused("noise", "--sigma", "3", "--count", "3", "--seed", "")


@pytest.mark.parametrize("sigma", ["1e-5000", "1e400"])
def test_a_table_sigma_out_of_range_is_shown_as_given(sigma):
    """Its float would be 0 or inf; the message shows the value the user gave."""
    assert refused("noise", "--sigma", sigma, "--count", "2", "--seed", "s", "--engine", "table").endswith(f"not {sigma}")
