"""Theorem 1's rules against the exact margin (§V) and the exact converse (§VI-A, Theorem 2)."""

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.modular import (
    DigitLaw,
    Reading,
    compare,
    concentration_margin,
    converse_margin,
    decoder_success,
    noise_tail,
    paper_bound,
    smallest_margin,
    worst_case_margin,
)
from itsa_cli import main as cli


@settings(max_examples=40)
@given(st.integers(1, 2000), st.sampled_from(list(Reading)))
def test_rules_never_ask_for_less_than_the_exact_margin(k, reading):
    c = compare(k, 3, 4, Fraction(1, 1000), reading)
    assert c.worst_case >= c.exact.margin
    assert c.concentration >= c.exact.margin


def test_table1_operating_point():
    # §IX-D: Table I's payloads use m = 4 at K = 1000; Theorem 1(b) gives 4 only read per layer
    assert compare(1000, 3, 4, "1/1000").concentration == 4
    assert compare(1000, 3, 4, "1/1000", "union").concentration == 5
    assert worst_case_margin(1000) == 7


def test_noise_only_raises_the_rules():
    quiet = concentration_margin(1000, delta_w=Fraction(1, 500))
    noisy = concentration_margin(1000, delta_w=Fraction(1, 500), scaled_scale=Fraction(1, 2), delta_z=Fraction(1, 500))
    assert noisy >= quiet
    u = noise_tail(1000, 4, 1, Fraction(1, 1000))
    assert u.low > 0


def test_scaled_scale_below_one_half_is_refused():
    with pytest.raises(InvalidOption, match="1/2"):
        compare(100, scaled_scale="1/4")


def test_the_old_option_name_is_read_and_hidden():
    """``--noise-scale`` (the option's former name) still gives the same answer, and ``--help`` shows the one name."""
    run = CliRunner().invoke
    new = run(cli, ["modular", "rules", "-K", "21", "--scaled-scale", "1/2", "--json"])
    old = run(cli, ["modular", "rules", "-K", "21", "--noise-scale", "1/2", "--json"])
    assert new.exit_code == old.exit_code == 0 and json.loads(new.stdout) == json.loads(old.stdout)
    assert json.loads(new.stdout)["scaled_scale"] == "1/2"
    shown = run(cli, ["modular", "rules", "--help"]).stdout
    assert "--scaled-scale" in shown and "--noise-scale" not in shown


@settings(max_examples=40)
@given(st.integers(1, 200), st.integers(1, 200))
def test_best_decoder_bounds(k, modulus):
    d = decoder_success(k, modulus)
    assert d.centered <= d.optimal <= d.bound <= 1


@settings(max_examples=30)
@given(st.integers(1, 300), st.integers(0, 5), st.sampled_from([3, 5]))
def test_centred_reduction_is_optimal_for_the_uniform_prior(k, m, radix):
    assert decoder_success(k, radix ** (1 + m), radix=radix).centered_optimal


def test_centred_reduction_is_not_optimal_for_a_two_peaked_law():
    twin = DigitLaw(-1, (Fraction(1, 2), Fraction(0), Fraction(1, 2)))
    d = decoder_success(2, 3, law=twin)
    assert (d.centered, d.optimal) == (Fraction(1, 2), Fraction(1))


@given(st.integers(1, 400))
def test_converse_margin_matches_the_centred_margin_for_uniform_digits(k):
    # with a centred-optimal prior, the best decoder needs exactly the achievable margin
    target = Fraction(999, 1000)
    need = converse_margin(k, 3, target)
    have = smallest_margin(k, 3, 4, 1 - target)
    assert need.margin == have.margin


def test_local_limit_constant_tends_to_one_over_sqrt_2pi():
    c = decoder_success(4096, 3).local_limit_constant
    assert abs(float(c) - 0.3989422804) < 1e-4
    bound = paper_bound(1000, 243, Fraction(2, 5))
    assert bound.high <= 1


def test_converse_refuses_what_does_not_fit_exactly():
    with pytest.raises(InvalidOption, match="exactly only"):
        decoder_success(10**5, 27)


@given(st.integers(2, 3000))
@settings(max_examples=25)
def test_eq26_bound_is_below_the_exact_converse_margin(k):
    # eq. 26 is necessary; with C taken at this K it must not exceed the exact converse margin
    need = converse_margin(k, 3, Fraction(999, 1000))
    assert need.eq26_bound.high <= need.margin
