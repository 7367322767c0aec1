"""At a norm cap at the sure bound ``(γ S + √d)²`` conditional rounding (almost) never rejects: the rejection
bound there is the rounding errors' (``η^d``, ``η = 1 − √(1 − κ)``), far below the Gaussian-tail bound it once
charged, and every exact rejection probability lies below it."""

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.privacy.neighbours import CAP_MARGIN, Rounding, conditional_rejection, rounded_norm
from tests.privacy.test_conditional_coupled import _attempt, _norm2

#: A β so small that the cap is the sure bound for the dimensions tried (d <= 5).
TINY = "exp(-40)"


def _sure(clip, d):
    return (clip + math.sqrt(d)) ** 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fractions(Fraction(-3), Fraction(3), max_denominator=7), min_size=1, max_size=4),
       st.integers(0, 3))
def test_at_the_sure_cap_the_exact_rejection_lies_below_the_bound(a, slack):
    clip = Fraction(math.isqrt(math.ceil(_norm2(a) * 10**6)) + 1 + slack * 300, 1000)
    d = len(a)
    cap = rounded_norm(gamma=1, clip=clip, dimension=d, rounding=Rounding.CONDITIONAL, beta=TINY).lower() ** 2
    assert cap <= _sure(clip, d) * (1 + 1e-12) and cap >= _sure(clip, d) * (1 - 1e-9)     # the sure bound
    tested = cap * (1 - CAP_MARGIN)                                      # as an implementation may test it
    rejected = sum(p for (u, _), p in _attempt(a, a).items() if _norm2(u) > tested)
    bound = conditional_rejection(gamma=1, clip=clip, dimension=d, beta=TINY)
    assert rejected <= bound < Fraction(1, 10**6)


def test_the_charge_near_the_sure_cap_is_far_below_the_gaussian_tail():
    """gamma S = 1000, d = 4, beta = exp(-10): the cap is the sure bound; the Gaussian-tail bound alone is
    exp(-t^2/(2 P^2)) ~ 3.4e-4, the rounding errors' is below 1e-20."""
    bound = conditional_rejection(gamma=1000, clip=1, dimension=4, beta="exp(-10)")
    t, proxy = (1002**2) * (1 - 1e-9) - 1000**2 - 1, 1001
    assert bound < Fraction(1, 10**20) < math.exp(-t * t / (2 * proxy * proxy))


def test_below_the_sure_cap_the_bound_is_beta_as_before():
    assert conditional_rejection(gamma=700, clip=1, dimension=1200000, beta="1/1000") == Fraction(1000003, 10**9)


def test_the_coupling_is_kept_at_a_sure_cap():
    """d' = 2, gamma S = 1000, beta = exp(-5): the cap is the sure bound, which no attempt reaches; the Gaussian
    tail alone charged r ~ 0.018 and a mismatch 2r/(1 - r) ~ 0.037, far above 2p, so the plan lost the coupling.
    The rounding errors' bound charges ~5e-13: the mismatch is within 2p and the coupled shift stands."""
    from itsa.privacy.coupled import conditional_shift

    p = Fraction(1, 10**9)
    shift = conditional_shift(gamma=1000, clip=1, dimension=2, beta="exp(-5)", adjacency="replace-one", failure=p)
    assert shift.mismatch <= 2 * p and shift.failure < 2 * p
    assert conditional_rejection(gamma=1000, clip=1, dimension=2, beta="exp(-5)") < Fraction(1, 10**12)
