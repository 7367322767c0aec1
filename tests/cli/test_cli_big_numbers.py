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
