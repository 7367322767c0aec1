"""``itsa check flower`` never approves what Flower cannot run safely, and reads hostile numbers in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from itsa.frameworks._flower_rules import MASK_MODULUS_LIMIT, MASK_SEED_BITS
from itsa.frameworks.flower import check_flower
from itsa_cli import main


def _cli(*args):
    return CliRunner().invoke(main, ["check", "flower", *args])


# --- what Flower runs: the threshold, the modulus, the seeds ---

@pytest.mark.parametrize("threshold", ["0", "-5"])
def test_a_threshold_below_2_fails_with_why(threshold):
    out = _cli("--clients", "500", "--reconstruction-threshold", threshold)
    assert out.exit_code == 1 and "every share is then the secret itself" in out.output


def test_a_threshold_below_2_gives_every_share_the_secret_in_flowers_shamir():
    shamir = pytest.importorskip("Crypto.Protocol.SecretSharing").Shamir
    secret = bytes(range(16))
    assert all(share == secret for _, share in shamir.split(0, 3, secret, ssss=False))
    assert all(share == secret for _, share in shamir.split(-5, 3, secret, ssss=False))
    assert not all(share == secret for _, share in shamir.split(2, 3, secret, ssss=False))


def test_the_threshold_fix_passes():
    r = check_flower(clients=500, reconstruction_threshold=0)
    assert r.fixes == {"reconstruction_threshold": 2}
    assert str(check_flower(clients=500, **r.fixes).verdict) == "passes"


def test_the_mask_limit_is_numpys():
    gen = np.random.RandomState(0)
    gen.randint(0, MASK_MODULUS_LIMIT - 1, 2, dtype=np.int64)      # what Flower draws at M = 2^63
    with pytest.raises(ValueError):
        gen.randint(0, 2 * MASK_MODULUS_LIMIT - 1, 2, dtype=np.int64)


@pytest.mark.parametrize("modulus", [2**64, 2**1100])
def test_a_modulus_flower_cannot_draw_masks_for_fails(modulus):
    out = _cli("--clients", "500", "--modulus-range", str(modulus))
    assert out.exit_code in (1, 2), out.output
    if out.exit_code == 1:
        assert "randint" in out.output
        fixed = check_flower(clients=500, modulus_range=modulus)
        assert str(check_flower(clients=500, **{"modulus_range": modulus, **fixed.fixes}).verdict) == "passes"
    else:
        assert "OverflowError" in out.output and out.output.count("\n") == 1


def test_a_modulus_of_2_63_still_passes():
    assert str(check_flower(clients=500, modulus_range=2**63).verdict) == "passes"


def test_the_seed_length_is_flowers():
    utils = pytest.importorskip("flwr.common.secure_aggregation.secaggplus_utils")
    # two keys that agree after Flower's XOR fold to 32 bits give the same mask
    a = bytes(range(32))
    b = bytes(range(4, 8)) + bytes(range(4)) + bytes(range(8, 32))
    assert a != b
    assert (utils.pseudo_rand_gen(a, 2**32, [(5,)])[0] == utils.pseudo_rand_gen(b, 2**32, [(5,)])[0]).all()
    assert MASK_SEED_BITS == 32


def test_a_bound_above_1_is_vacuous_and_the_assumptions_are_on_the_lines():
    out = _cli("--clients", "500", "--corrupt", "1/20")
    line = next(x for x in out.output.splitlines() if x.strip().startswith("secagg+"))
    assert "security vacuous" in line and "security <=" not in line and "corrupt 0.05" in line
    ok = _cli("--clients", "2000", "--modulus-range", str(2**34))
    verdict = next(x for x in ok.output.splitlines() if x.strip().startswith("verdict"))
    secagg = next(x for x in ok.output.splitlines() if x.strip().startswith("secagg+"))
    assert ok.exit_code == 0 and "corrupt 0, dropout 0" in verdict and "corrupt 0, dropout 0" in secagg
    assert "32-bit" in secagg and any("mask seeds" in x and "2^32" in x for x in ok.output.splitlines())
    data = json.loads(_cli("--clients", "500", "--json").output)
    assert data["secagg"]["mask_seed_bits"] == 32 and "corrupt 0" in data["secagg"]["assumed"]
    assert data["secagg"]["vacuous"] == []
    weak = json.loads(_cli("--clients", "500", "--corrupt", "1/20", "--json").output)
    assert weak["secagg"]["vacuous"] == ["security"] and float(weak["secagg"]["bounds"]["security_failure"]["value"]) > 1


# --- hostile numbers: one line, exit 2, at once ---

HOSTILE = [("--clients", "1e999999999"), ("--clients", "1e5000"), ("--clipping-range", "1e-320"),
           ("--clipping-range", "1e308"), ("--clipping-range", str(10**400)), ("--clipping-range", "10^400"),
           ("--max-weight", str(10**400)), ("--quantization-range", str(2**1100)), ("--modulus-range", str(2**1100)),
           ("--modulus-range", "2^1100"), ("--reconstruction-threshold", str(10**400)),
           ("--num-shares", "9" * 5000), ("--num-shares", "1e308"), ("--clip", "1e999999999"),
           ("--dropout", "1/" + "7" * 5000)]


@pytest.mark.parametrize("option, value", HOSTILE)
def test_hostile_numbers_are_one_line_exit_2(option, value):
    args = ["--clients", "500", f"{option}={value}"] if option != "--clients" else [f"--clients={value}"]
    out = _cli(*args)
    assert out.exit_code == 2, out.output[-500:]
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ") and len(out.stderr) < 400, out.stderr
    assert out.stdout == ""


@pytest.mark.parametrize("option", ["--clients", "--dimension", "--payload-bits"])
def test_secagg_hostile_whole_numbers_are_one_line_exit_2(option):
    base = ["secagg", "--clients", "100", "--corrupt", "0", "--dropout", "0"]
    for value in ("1e999999999", "1e4400", "2^1100", "0"):
        out = CliRunner().invoke(main, [*base, f"{option}={value}"])
        assert out.exit_code == 2 and out.stderr.count("\n") == 1 and len(out.stderr) < 400, out.stderr


def test_the_fix_round_trips_through_the_command_line():
    out = _cli("--clients", "2000")
    fix = next(x for x in out.output.splitlines() if x.strip().startswith("fix")).split()[1]
    assert fix == "modulus_range=2**33"
    again = _cli("--clients", "2000", f"--{fix.split('=')[0].replace('_', '-')}={fix.split('=')[1]}")
    assert again.exit_code == 0, again.output[-300:]
    assert _cli("--clients", "2000", "--modulus-range", "2^33").exit_code == 0


def test_a_not_judged_secagg_is_said_on_the_verdict():
    out = _cli("--clients", "20000000", "--quantization-range", "2", "--modulus-range", "2**30")
    verdict = next(x for x in out.output.splitlines() if x.strip().startswith("verdict"))
    assert out.exit_code == 0 and "SecAgg+ not judged" in verdict


def test_a_cohort_no_quantization_fits_is_fixed_by_a_smaller_cohort():
    r = check_flower(clients=10**18)
    assert r.fixes == {"clients": r.max_cohort} and "quantization_range=0" not in r.fix()
    assert str(check_flower(**{"clients": 10**18, **r.fixes}).verdict) == "passes"


def test_the_library_refuses_a_cohort_past_10_18():
    from itsa.exceptions import InvalidOption

    with pytest.raises(InvalidOption, match="clients: must be a whole number in 2.."):
        check_flower(clients=10**5000)


@pytest.mark.parametrize("kw", [{"dimension": 10**5000}, {"payload_bits": 10**19}])
def test_secagg_refuses_a_payload_past_10_18(kw):
    from itsa.exceptions import InvalidOption
    from itsa.keys.secagg import secagg_parameters

    with pytest.raises(InvalidOption, match="10000000000000000"):
        secagg_parameters(10, 0, 0, **kw)
