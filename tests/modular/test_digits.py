"""Balanced digits, layer symbols and Assumption 1 (§III-A, Fig. 1b), by exhaustive enumeration."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import itsa.modular._digits as digits_module
from itsa.exceptions import InvalidOption
from itsa.modular import balanced_digits, compatibility, from_digits, layer_symbols


@given(st.sampled_from([3, 5, 7]), st.integers(1, 6), st.data())
def test_digits_round_trip_and_symbols_telescope(radix, layers, data):
    top = (radix ** layers - 1) // 2
    x = data.draw(st.integers(-top, top))
    a = balanced_digits(x, radix, layers)
    assert all(abs(d) <= radix // 2 for d in a)
    assert from_digits(a, radix) == x
    symbols = layer_symbols(x, radix, layers)
    assert symbols == tuple(radix ** i * d for i, d in enumerate(a))        # eq. 7: ρ^(ℓ-1) a_ℓ
    assert sum(symbols) == x                                                # eq. 8


@pytest.mark.parametrize("radix, layers, dim", [(3, 4, 1), (3, 4, 2), (5, 3, 2), (7, 2, 3)])
def test_integer_chain_satisfies_assumption1_at_every_layer(radix, layers, dim):
    # §III-A: "(2) follows from balanced Euclidean division"; Fig. 1b: no violation
    c = compatibility("integer", radix, layers, block_dimension=dim)
    assert c.exhaustive and c.points == radix ** (dim * layers)
    assert c.satisfied and all(r.telescoping_failures == 0 for r in c.counts)


def test_a2_chain_exact_counts():
    # Fig. 1b samples 14.4 %, 14.8 %, 13.1 % at layers 2-4; the exact share of all 6561 points is 4/27 each
    c = compatibility("a2", 3, 4)
    assert c.exhaustive and c.points == 6561
    assert [r.violations for r in c.counts] == [0, 972, 972, 972]
    assert {r.fraction for r in c.counts[1:]} == {Fraction(4, 27)}
    assert all(r.telescoping_failures == 0 for r in c.counts)        # telescoping is algebraic


def test_a2_counts_do_not_depend_on_the_tie_break(monkeypatch):
    plain = [r.violations for r in compatibility("a2", 3, 3).counts]
    original = digits_module._quantize_a2

    def mirrored(a, b, scale):                      # lexicographically largest instead of smallest
        i, j = original(-a, -b, scale)
        return -i, -j

    monkeypatch.setattr(digits_module, "_quantize_a2", mirrored)
    assert [r.violations for r in compatibility("a2", 3, 3).counts] == plain


def test_sampling_beyond_the_enumeration_limit_reports_a_standard_error():
    c = compatibility("a2", 3, 4, max_points=100, samples=20_000, seed=3)
    assert not c.exhaustive and c.seed == 3
    for r in c.counts[1:]:
        assert abs(float(r.fraction) - 4 / 27) < 5 * r.standard_error()


def test_bad_input():
    with pytest.raises(InvalidOption):
        compatibility("d4")
    with pytest.raises(InvalidOption):
        balanced_digits(41, 3, 4)
    with pytest.raises(InvalidOption):
        compatibility("integer", radix=2)


def test_enumeration_refuses_integers_beyond_its_range():
    with pytest.raises(InvalidOption, match="2\\^30"):
        compatibility("a2", radix=3, layers=20)
