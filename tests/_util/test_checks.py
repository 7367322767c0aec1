"""The shared number readers: the exponent cap sees the exponent however it is spelt."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from itsa._util.checks import MAX_DECIMAL_EXPONENT, decimal_order, fraction, number_text, read_whole
from itsa.exceptions import InvalidOption

ARABIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


@pytest.mark.parametrize("text", [
    "1e100_000_000", "1e-100_000_000", "1e1_000_000", "1E+1_0_0_0_0_1",
    "1e0000000000001000000", "1e-000000000000000000100001",
    "1e" + "100000000".translate(ARABIC), "1e١٠٠٠٠١",
    "5/2e999999999", "2.5e" + "9" * 4000,
])
def test_a_huge_exponent_is_refused_whatever_its_spelling(text):
    """Before: ``[eE]\\s*([+-]?\\d+)\\s*$`` missed underscores, and ``[:12]`` of leading zeros read 0, so Fraction
    computed 10^(10^8)."""
    with pytest.raises(InvalidOption, match="decimal exponent beyond"):
        fraction("variance", text, low=0)


@pytest.mark.parametrize("text, value", [
    ("1e100_000", Fraction(10**100_000)), ("1e-1_0", Fraction(1, 10**10)), ("2_5e-1", Fraction(5, 2)),
    ("1e" + "5".translate(ARABIC), Fraction(10**5)), ("1e0000000000000000005", Fraction(10**5)),
    ("5/2", Fraction(5, 2)), ("0.1", Fraction(1, 10)), (" 1e-5 ", Fraction(1, 10**5)),
])
def test_an_exponent_within_the_cap_is_read_as_fraction_reads_it(text, value):
    assert fraction("x", text) == value == Fraction(text)


@pytest.mark.parametrize("text", ["1e1_000_000", "1e0000000000001000000", "1e١٠٠٠٠٠٠", "٠٠٠٠٠٠٠٠٠٠٠٠١e999999999"])
def test_read_whole_refuses_a_huge_exponent_at_once(text):
    with pytest.raises(InvalidOption):
        read_whole("clients", text, maximum=None)


def test_leading_zeros_of_an_exponent_are_no_way_past_the_whole_number_range():
    assert decimal_order("1e0000000000000000000019") == 19
    with pytest.raises(InvalidOption, match="must be a whole number"):
        read_whole("clients", "1e0000000000000000000019")


@given(st.integers(-10**7, 10**7), st.sampled_from(["plain", "underscores", "zeros", "arabic"]))
def test_the_cap_agrees_with_the_exponent_fraction_reads(power, spelling):
    digits = str(abs(power))
    spelt = {"plain": digits, "underscores": "_".join(digits), "zeros": "000000000000000" + digits,
             "arabic": digits.translate(ARABIC)}[spelling]
    text = "1e" + ("-" if power < 0 else "") + spelt
    if abs(power) > MAX_DECIMAL_EXPONENT:
        with pytest.raises(InvalidOption, match="decimal exponent beyond"):
            number_text("x", text)
    else:
        assert number_text("x", text) == text


def test_a_long_exponent_is_read_without_converting_it():
    """A million-digit exponent is past the interpreter's int(text) limit: it is read up to the cap, not converted."""
    with pytest.raises(InvalidOption, match="decimal exponent beyond"):
        number_text("x", "1e" + "_".join("9" * 2000))
    assert decimal_order("1e" + "9" * 10**6) == 10**15
