"""Payload (Proposition 2, Table I of §IX-D) and distortion (Theorem 4, eq. 39 and 43)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.modular import corollary1_premium, monte_carlo, parse_stages, payload, theorem4_bounds, uniform_residue_T


@pytest.mark.parametrize("stages, psa, flat", [("one", "12.68", "12.68"), ("4,3/2,1", "19.02", "22.19"),
                                               ("each", "31.70", "41.21")])
def test_table1_payloads(stages, psa, flat):
    # Table I (K = 1000, ρ = 3, L = 4): PSA 12.68 / 19.02 / 31.70 against 12.68 / 22.19 / 41.21
    p = payload(1000, 3, 4, stages)
    assert (Fraction(p.psa_bits.decimal(4)), Fraction(p.flat_bits.decimal(4))) == (Fraction(psa), Fraction(flat))
    for bits, printed in ((p.psa_bits, psa), (p.flat_bits, flat)):      # the printed value is the true one rounded up
        assert Fraction(printed) - Fraction(1, 100) < bits.low <= bits.high <= Fraction(printed)


def test_table1_ratios():
    # §IX-D: "0.86× the payload for R = 2 and 0.77× for R = 4"
    assert payload(1000, stages="4,3/2,1").ratio == Fraction(6, 7)
    assert payload(1000, stages="each").ratio == Fraction(10, 13)


def test_asymptotic_premium_is_1495_not_1500_at_k_1000():
    # §IX-A prints (L-1)/2 log2 K = 15.00 at K = 1000
    premium = corollary1_premium(1000, 4)
    assert Fraction(1494, 100) <= premium.low <= premium.high <= Fraction(1495, 100)
    assert corollary1_premium(1024, 4).low == corollary1_premium(1024, 4).high == 15


@given(st.integers(1, 6))
def test_one_stage_is_the_flat_pipeline(layers):
    p = payload(500, 3, layers, "one")
    assert p.psa_units == p.flat_units


def test_fixed_margin_and_bad_schedules():
    assert payload(1000, stages="each", rule="fixed", margin=0).psa_units == 4
    for bad in ("4,2/3,1", "4,3,2", "a/b", "1,2,3,4"):
        with pytest.raises(InvalidOption):
            parse_stages(bad, 4)
    with pytest.raises(InvalidOption):
        payload(1000, rule="fixed")


@given(st.sampled_from([3, 5]), st.integers(1, 4))
def test_eq39_is_the_second_moment_of_uniform_residues(radix, finest):
    n = radix ** (finest - 1)
    residues = range(-(n // 2), n // 2 + 1)
    assert uniform_residue_T(finest, radix) == Fraction(sum(r * r for r in residues), n)


def test_theorem4_full_resolution_is_one_twelfth():
    lo, hi = theorem4_bounds(uniform_residue_T(1))
    assert lo.low <= Fraction(1, 12) <= lo.high and hi.low <= Fraction(1, 12) <= hi.high
    mc = monte_carlo(1, samples=20_000, seed=5)
    assert abs(mc.error - 1 / 12) < 4 * mc.error_se


@pytest.mark.parametrize("source", ["uniform", "gaussian"])
@pytest.mark.parametrize("finest", [2, 3, 4])
def test_monte_carlo_lies_inside_eq43_with_measured_T(source, finest):
    mc = monte_carlo(finest, source=source, samples=20_000, seed=11)
    assert mc.inside_bounds


def test_monte_carlo_is_deterministic_for_a_seed():
    assert monte_carlo(3, samples=1000, seed=2).error == monte_carlo(3, samples=1000, seed=2).error


def test_premium_of_four_stages_is_19_02_bit():
    # §IX-A: "numerically it is 19.02 bit per dimension at K = 1000"
    p = payload(1000, stages="each")
    assert p.premium_units == 12 and p.premium_bits.decimal(4) == "19.02"
