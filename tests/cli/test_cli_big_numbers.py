"""Numbers past Python's 4,300-digit limit print (or are refused in one line), never a traceback: the JSON home of
an exact number (``frac``) writes them by their safe bounds, and a deployment's sigma is bounded when read."""

import json
import math
from fractions import Fraction

import pytest

from itsa._util.certified import float_down, float_up
from itsa._util.plain import frac
from tests.cli.test_cli_census import one_line_exit_2

FAST = "clients: 100\ndimension: 64\nclip: 1\nnoise: {sigma: 30}\nprivacy: {rounds: 10}\nencoding: {word_bits: 20}\n"


def _clean(res, codes=(0,)):
    assert res.exit_code in codes, res.output
    assert "Traceback" not in res.output and "4300 digits" not in res.output and res.exception is None or \
        isinstance(res.exception, SystemExit), res.output


def test_frac_writes_a_number_past_the_digit_limit():
    assert frac(Fraction(10**5000)) == "1e5000" and frac(Fraction(1, 10**5000)) == "1e-5000"
    third = frac(Fraction(1, 3 * 10**5000))
    assert third.startswith("in [") and "too long to write exactly" in third
    assert frac(Fraction(7, 2)) == "7/2" and frac(3) == "3" and frac(None) is None     # as before


@pytest.mark.parametrize("args", [["--clip-factor", "1e5000"], ["--rate", "1e-5000"], ["--norm", "1e-5000"],
                                  ["--norm", "1/3", "--clip-factor", "1e4999"]])
@pytest.mark.parametrize("as_json", [False, True])
def test_clip_rate_prints_huge_and_tiny_inputs(cli, args, as_json):
    res = cli("modular", "clip-rate", *args, *(["--json"] if as_json else []))
    _clean(res)
    if as_json:
        json.loads(res.stdout)


@pytest.mark.parametrize("value", ["1e5000", "-1e5000"])
def test_clip_rate_refuses_what_it_cannot_carry_in_one_line(cli, value):
    res = cli("modular", "clip-rate", "--norm", value)
    one_line_exit_2(res, "norm" if value.startswith("-") else "too large to carry exactly")


def test_check_flower_with_a_huge_clip_prints_its_json(cli):
    res = cli("check", "flower", "-n", "10", "--clip", "1e5000", "--json")
    _clean(res, codes=(0, 1))
    clip = json.loads(res.stdout)["clip"]
    assert clip["asked"] == "1e5000" and clip["clamped"] is True


def test_a_deployment_with_a_tiny_beta_prints_its_json(cli, tmp_path):
    path = tmp_path / "beta.yaml"
    path.write_text(FAST.replace("{word_bits: 20}", "{word_bits: 20, rounding: conditional, beta: exp(-10000)}"))
    res = cli("plan", path, "--json")
    _clean(res, codes=(0, 3))
    assert json.loads(res.stdout)["encoding"]


def test_a_sigma_past_every_word_is_refused_when_read(cli, tmp_path):
    path = tmp_path / "sigma.yaml"
    path.write_text(FAST.replace("noise: {sigma: 30}", "noise: {kind: central, sigma: 1e399}"))
    one_line_exit_2(cli("plan", path), "noise.sigma: at most 2^256")


def test_float_up_and_down_past_the_largest_double():
    huge = Fraction(10**400)
    assert float_up(huge) == math.inf and float_down(huge) == 1.7976931348623157e308
    assert float_down(-huge) == -math.inf and float_up(-huge) == -1.7976931348623157e308


# -- an attacker's second pass: whole numbers read by one rule, numbers past a float computed exactly ------------

SEVEN_THOUSANDS = "7" * 5000


@pytest.mark.parametrize("args, says", [
    (["dgauss", "--sigma-squared", "1e309"], "not 1e309"), (["dgauss", "--sigma-squared", "1e99999"], "not 1e99999"),
    (["dgauss", "--sigma-squared", "1e-400"], "not 1e-400"),
    (["binomial", "--coins", "²"], "coins: must be a whole number"),
    (["binomial", "--coins", SEVEN_THOUSANDS], "coins: must be a whole number"),
])
def test_privacy_sample_refuses_what_it_cannot_read_in_one_line(cli, tmp_path, args, says):
    """Before: '²' passed str.isdigit and failed int(); 5000 digits failed the interpreter's limit; 1e309 overflowed
    the range message's float."""
    res = cli("privacy", "sample", *args, "--count", "5", "--seed", "1", "-o", tmp_path / "d.npy")
    one_line_exit_2(res, says)
    assert not (tmp_path / "d.npy").exists()


@pytest.mark.parametrize("seed", ["²", SEVEN_THOUSANDS])
def test_a_seed_that_is_no_plain_number_is_a_seed_text(cli, tmp_path, seed):
    res = cli("privacy", "sample", "dgauss", "--sigma-squared", "4", "--count", "5", "--seed", seed,
              "-o", tmp_path / "d.npy")
    _clean(res)
    assert (tmp_path / "d.npy").exists()


@pytest.mark.parametrize("args", [["examples", "--homogeneous", "²,2,1"], ["modular", "margins", "-K", "²"]])
def test_a_unicode_digit_is_no_whole_number(cli, args):
    res = cli(*args)
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output


@pytest.mark.parametrize("value", ["²", SEVEN_THOUSANDS])
def test_a_tree_log_round_that_is_no_plain_number_is_refused(cli, tmp_path, value):
    log = tmp_path / "log.csv"
    log.write_text(f"client,round\na,0\nb,{value}\n")
    res = cli("privacy", "tree", "--max-participations", "2", "--min-separation", "3", "--rounds", "16",
              "--noise-multiplier", "1", "--log", log)
    one_line_exit_2(res, "round")


def test_an_accuracy_target_past_a_float_gives_its_verdict(cli, tmp_path):
    """mse 1e-399: the survivors the limit would need, computed exactly (the float sqrt overflowed)."""
    path = tmp_path / "d.yaml"
    path.write_text("clients: 1000\ndimension: 100\nclip: 1\nprivacy: {epsilon: 4, delta: 1e-6, rounds: 10}\n"
                    "accuracy: {mse: 1e-399}\n")
    res = cli("plan", path, "--json", "--quiet")
    _clean(res, codes=(3,))
    fix = json.loads(res.stdout)["verdict"]["fixes"]["accuracy"]
    assert fix["survivors"] is None and "at least about 2.388e201 survivors" in fix["text"]   # 1000 sqrt(0.0057 / 1e-399)


def test_a_homogeneous_family_past_the_users_limit_is_refused_before_its_text(cli):
    res = cli("examples", "--homogeneous", "999999999999,2,1")
    one_line_exit_2(res, "at most 4096")
