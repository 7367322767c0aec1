"""Conditional rounding's bias in squared norm is at most beta/(4 (1 - beta)^2), whatever the dimension: against
the exact law of the accepted rounding (every outcome enumerated)."""

import itertools
import math
from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from itsa.privacy.neighbours import conditional_bias


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fractions(Fraction(-3), Fraction(3), max_denominator=12), min_size=1, max_size=8),
       st.integers(0, 40))
def test_the_accepted_rounding_s_bias_is_within_the_dimension_free_bound(a, cap):
    per = [[(math.floor(x), 1 - (x - math.floor(x))), (math.floor(x) + 1, x - math.floor(x))] for x in a]
    accepted, mean = Fraction(0), [Fraction(0)] * len(a)
    for combo in itertools.product(*per):
        p = math.prod(c[1] for c in combo)
        if p and sum(c[0] ** 2 for c in combo) <= cap:
            accepted += p
            mean = [m + p * c[0] for m, c in zip(mean, combo)]
    assume(accepted > 0)
    fail = 1 - accepted
    assume(fail < 1)
    bias2 = sum((m / accepted - x) ** 2 for m, x in zip(mean, a))
    assert bias2 <= conditional_bias(fail) if fail > 0 else bias2 == 0
