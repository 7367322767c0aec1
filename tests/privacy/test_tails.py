"""The one sub-Gaussian tail: 2 exp(-t^2/(2v)), certified."""

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from itsa._util.certified import Certified, Direction
from itsa.privacy.tails import SUBGAUSSIAN_TAIL, subgaussian_tail


@given(st.integers(0, 10**4), st.fractions(min_value=Fraction(1, 100), max_value=10**6))
def test_the_tail_encloses_the_formula(t, v):
    ball = Certified.from_arb("tail", subgaussian_tail(t, v), Direction.UPPER, SUBGAUSSIAN_TAIL)
    value = 2 * math.exp(-(t * t) / (2 * float(v)))
    assert float(ball.low) <= value * (1 + 1e-12) and value <= float(ball.high) * (1 + 1e-12)


def test_the_tail_bounds_a_bounded_variable():
    """X uniform on {-1, 0, 1} is 1-sub-Gaussian: P[|X| >= 1] = 2/3 <= 2 exp(-1/2)."""
    ball = Certified.from_arb("tail", subgaussian_tail(1, 1), Direction.UPPER, SUBGAUSSIAN_TAIL)
    assert Fraction(2, 3) <= ball.low
