"""The one sub-Gaussian tail: 2 d exp(-t^2/(2v)) (Chernoff with Skellam noise), certified."""

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from itsa._util.certified import Certified, Direction
from itsa.privacy.tails import SUBGAUSSIAN_TAIL, certified_tail, subgaussian_tail


@given(st.integers(0, 10**4), st.fractions(min_value=Fraction(1, 100), max_value=10**6))
def test_the_tail_encloses_the_formula(t, v):
    ball = Certified.from_arb("tail", subgaussian_tail(t, v), Direction.UPPER, SUBGAUSSIAN_TAIL)
    value = 2 * math.exp(-(t * t) / (2 * float(v)))
    assert float(ball.low) <= value * (1 + 1e-12) and value <= float(ball.high) * (1 + 1e-12)


def test_the_tail_bounds_a_bounded_variable():
    """X uniform on {-1, 0, 1} is 1-sub-Gaussian: P[|X| >= 1] = 2/3 <= 2 exp(-1/2)."""
    ball = Certified.from_arb("tail", subgaussian_tail(1, 1), Direction.UPPER, SUBGAUSSIAN_TAIL)
    assert Fraction(2, 3) <= ball.low


@given(st.integers(1, 10**4), st.fractions(min_value=Fraction(1, 100), max_value=10**6), st.integers(1, 10**6))
def test_the_union_over_coordinates_multiplies(t, v, d):
    one, many = (Certified.from_arb("tail", subgaussian_tail(t, v, coordinates=c), Direction.UPPER, "") for c in (1, d))
    assert many.low <= d * one.high and d * one.low <= many.high


@given(st.integers(1, 400), st.fractions(min_value=Fraction(1, 10), max_value=10**4),
       st.fractions(min_value=Fraction(1, 10), max_value=10**4))
def test_skellam_noise_only_raises_the_tail(t, v, m):
    """Adding Skellam noise (variance m) to a v-sub-Gaussian sum cannot make its Chernoff bound smaller."""
    plain = certified_tail(room=t, proxy=v, coordinates=1).upper()
    assert certified_tail(room=t, proxy=v, poisson=m, coordinates=1).upper() >= plain


def test_the_certified_tail_is_the_ball_capped():
    ball = Certified.from_arb("tail", subgaussian_tail(30, 100, coordinates=7), Direction.UPPER, "")
    assert certified_tail(room=30, proxy=100, coordinates=7).upper() == ball.high
    assert certified_tail(room=0, proxy=1, coordinates=1).upper() == 1          # the data alone reach the word
    assert certified_tail(room=1, proxy=100, coordinates=1).upper() == 1        # 2 exp(-1/200) > 1: capped
    assert certified_tail(room=5, proxy=0, coordinates=3).direction is Direction.EXACT   # nothing random


@given(st.integers(1, 10**6), st.fractions(min_value=Fraction(1, 100), max_value=10**9), st.sampled_from([1, 1000]))
def test_the_certified_tail_is_never_above_the_ball(t, v, d):
    ball = Certified.from_arb("tail", subgaussian_tail(t, v, coordinates=d), Direction.UPPER, "")
    assert certified_tail(room=t, proxy=v, coordinates=d).upper() <= max(ball.high, Fraction(1))
