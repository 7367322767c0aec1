"""The carry law and the smallest margins: Fig. 1a's golden values (§IX-A) and properties."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.modular import DigitLaw, Reading, margins, parse_clients, reading_split, smallest_margin, sum_law

TARGET = Fraction(1, 1000)
FIG1A = parse_clients("8..4096x2")


@pytest.fixture(scope="module")
def fig1a():
    return margins(FIG1A, radix=3, layers=4, carry=TARGET)


def test_fig1a_staircase_grows_from_2_to_5_in_integer_steps(fig1a):
    # §IX-A, Fig. 1a: "grows from 2 at K = 8 to 5 at K = 4096 in integer steps"
    margins = [r.margin for r in fig1a.margins]
    assert margins[0] == 2 and margins[-1] == 5
    assert all(b - a in (0, 1) for a, b in zip(margins, margins[1:]))
    assert fig1a.exact


def test_fig1a_slope_is_0548(fig1a):
    # §IX-A: "regressing it on log3 K gives slope 0.548"
    assert Fraction(5475, 10**4) <= fig1a.slope.low <= fig1a.slope.high < Fraction(5485, 10**4)


def test_fig1a_offset_about_1_1(fig1a):
    # §IX-A: "the margins lie about 1.1 steps above ½ log_ρ K"
    assert Fraction(11, 10) <= fig1a.offset.low <= fig1a.offset.high < Fraction(12, 10)


def test_fig1a_largest_carry_rounds_to_975e_6(fig1a):
    # §IX-A: "Realized carry probabilities never exceed 9.75×10−6" (as rounded to three digits)
    top = fig1a.largest_carry_probability
    assert top.low == top.high and Fraction(9745, 10**9) <= top.high < Fraction(9755, 10**9)
    assert top.high > Fraction(975, 10**8)        # the exact maximum is a hair above the printed value


def test_fig1a_readings_agree_on_powers_of_two_but_not_everywhere(fig1a):
    for reading in (Reading.ALL_LAYERS, Reading.UNION):
        other = margins(FIG1A, carry=TARGET, reading=reading)
        assert [r.margin for r in other.margins] == [r.margin for r in fig1a.margins]
    k, per_layer, union = reading_split()
    assert per_layer < union
    assert smallest_margin(k, carry=TARGET).margin == per_layer


@given(st.integers(1, 300), st.sampled_from([3, 5]), st.fractions(Fraction(1, 10**6), Fraction(1, 2)))
def test_margin_is_the_smallest(k, radix, target):
    m = smallest_margin(k, radix=radix, layers=4, carry=target)
    assert m.carry_probability.high <= target
    if m.carry_probability_below is not None:
        assert m.carry_probability_below.low > target
    else:
        assert m.margin == 0


@given(st.integers(1, 60), st.lists(st.integers(0, 5), min_size=2, max_size=5).filter(lambda w: sum(w) > 0))
def test_certified_interval_contains_the_exact_probability(k, raw):
    total = sum(raw)
    law = DigitLaw(-(len(raw) // 2), tuple(Fraction(w, total) for w in raw))
    exact = sum_law(law, k, "exact")
    cert = sum_law(law, k, "certified", precision=64)
    for half in (0, 1, k // 2, k):
        lo_hi = cert.carry(half)
        assert lo_hi.low <= exact.carry(half).high <= lo_hi.high


def test_exact_and_certified_agree_at_k_10000():
    exact = smallest_margin(10**4, arithmetic="exact")
    cert = smallest_margin(10**4, arithmetic="certified")
    assert exact.margin == cert.margin == 5
    assert cert.carry_probability.low <= exact.carry_probability.high <= cert.carry_probability.high


def test_deployment_scale_is_decided_by_certified_bounds():
    m = smallest_margin(10**6)
    assert not m.exact and m.carry_probability.high <= TARGET < m.carry_probability_below.low
    assert m.margin == 7


def test_exact_refuses_what_does_not_fit():
    with pytest.raises(InvalidOption, match="use arithmetic certified"):
        sum_law(DigitLaw.uniform(3), 10**6, "exact")


@pytest.mark.parametrize("bad", [dict(radix=4), dict(layers=0), dict(carry="1"), dict(carry="0"),
                                 dict(carry="x"), dict(reading="sometimes")])
def test_bad_input_is_refused(bad):
    with pytest.raises(InvalidOption):
        smallest_margin(8, **bad)


def test_bad_clients():
    with pytest.raises(InvalidOption):
        smallest_margin(0)
    with pytest.raises(InvalidOption):
        parse_clients("8..4")


def test_law_must_be_a_probability():
    with pytest.raises(InvalidOption, match="sum to 1"):
        DigitLaw.parse("1/2,1/3")
    with pytest.raises(InvalidOption):
        DigitLaw.parse("-1/2,1,1/2")


@given(st.sampled_from([3, 5, 7, 9]), st.integers(1, 3))
def test_uniform_law_variance_is_eq5(radix, width):
    n = radix ** width
    assert DigitLaw.uniform(radix, width).variance == Fraction(n * n - 1, 12)


def test_certified_refuses_a_window_that_does_not_fit():
    with pytest.raises(InvalidOption, match=r"MiB \(limit"):      # its working memory, estimated first
        sum_law(DigitLaw.uniform(3, 12), 10**6, "certified")
