"""Honest labels: the error/limit ratio with the digits that matter, the unconstrained limit said to be Gaussian
noise's on the sum, Willow's correctness bound said to be a threshold variant's, the certified (coupled) shift
in its own field beside the multipliers that divide by the sensitivity, and the infeasible verdict before a
simulation's time refusal."""

from fractions import Fraction

import pytest

import itsa
from itsa.keys.examples import resolve_deployment
from itsa.planning import load_deployment
from itsa.planning.protocols.willow import THRESHOLD_VARIANT
from itsa.planning.sections import ratio_text

INFEASIBLE = "clients: 100\ndimension: 64\nclip: 1\nnoise: {sigma: 30}\nprivacy: {rounds: 10}\nencoding: {word_bits: 4}\n"


@pytest.mark.parametrize("ratio, text", [(Fraction(10000296, 10**7), "1.0000296"), (Fraction(1001, 1000), "1.001"),
                                         (Fraction(3, 2), "1.5"), (Fraction(1), "1"), (Fraction(5, 4), "1.25")])
def test_error_over_limit_shows_the_digits_that_matter(ratio, text):
    assert ratio_text(ratio) == text
    assert Fraction(ratio_text(ratio)) >= ratio                 # rounded up: still an upper bound


@pytest.fixture(scope="module")
def cross_device():
    return itsa.plan(load_deployment(resolve_deployment("cross-device")), time_limit=300)


def test_the_certified_shift_has_its_own_field(cross_device):
    noise = cross_device.to_dict()["noise"]
    shift = noise["certified_shift"]
    assert shift is not None and shift["direction"] == "upper bound"
    assert Fraction(shift["interval"][1]) < Fraction(noise["sensitivity"]["interval"][0])     # below the worst case
    assert "divides by sensitivity" in shift["note"]
    rows = dict(cross_device.noise.rows())
    assert "the worst-case shift" in rows["noise multiplier"] and "certified shift" in dict(
        cross_device.noise.accounting.rows())
    text = cross_device.summary()
    assert "worst-case shift, not the certified one" in text                 # Opacus's line


def test_the_unconstrained_limit_is_said_to_be_gaussian_noises(cross_device):
    text = cross_device.summary()
    assert "a lower bound for Gaussian noise on the sum, not for every mechanism" in text
    limit = cross_device.to_dict()["error"]["limit_mse_total"]
    assert "Gaussian noise on the sum" in limit["method"]


def test_willow_says_its_correctness_bound_is_a_threshold_variants():
    p = itsa.plan(load_deployment(resolve_deployment("cross-device-willow")), time_limit=300)
    text = p.summary()
    assert "decrypt in a threshold variant; the released Willow code needs every decryptor" in text
    assert THRESHOLD_VARIANT in text
    assert p.to_dict()["keys"]["willow"]["correctness_for"] == THRESHOLD_VARIANT


def test_an_infeasible_plan_keeps_its_verdict_when_the_simulation_would_take_too_long(cli, tmp_path):
    path = tmp_path / "narrow.yaml"
    path.write_text(INFEASIBLE)
    res = cli("plan", path, "--simulate", "1000000", "--time-limit", "5")
    assert res.exit_code == 3, res.output
    assert "infeasible" in res.stdout and "cannot be simulated" in res.stdout and "past the time limit" in res.stdout
