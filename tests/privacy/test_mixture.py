"""The binomial mixture of dominating pairs: the exact curve of T rounds of a randomly shifted discrete Gaussian
below it, its ends the single pairs', and it grows with the far part's weight."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.privacy.lattice import dominating_epsilon, mixture_epsilon
from tests.privacy.test_coupled import REACH, _delta, _dgauss


def _rounds(law, T):
    """The T-fold product of a one-dimensional law on the grid (an array with T axes)."""
    out = law
    for _ in range(T - 1):
        out = np.multiply.outer(out, law)
    return out


@pytest.mark.parametrize(("near", "far", "q", "T"), [(3, 7, Fraction(1, 10), 2), (2, 5, Fraction(1, 4), 3),
                                                      (4, 6, Fraction(1, 50), 2)])
def test_randomly_shifted_rounds_lie_below_the_mixture_bound(near, far, q, T):
    """Each round adds N_Z(0, 36) to a shift of B with probability 1 - q and W with probability q (against the
    unshifted noise): the exact hockey stick of T rounds, both orders, at the certified epsilon, is below delta."""
    sigma = 6
    noise, beyond = _dgauss(sigma)
    pad = 8
    base = np.concatenate([np.zeros(pad), noise, np.zeros(pad)])
    shifted = (1 - float(q)) * np.roll(base, near) + float(q) * np.roll(base, far)
    P, Q = _rounds(shifted, T), _rounds(base, T)
    missing = T * beyond + 1e-12
    for target in (Fraction(1, 10), Fraction(1, 100), Fraction(1, 1000)):
        eps = mixture_epsilon(sigma=sigma, near=near, far=far, weight=q, rounds=T, delta=target)
        assert eps is not None
        e = float(eps.upper())
        assert _delta(P, Q, e) + missing <= target and _delta(Q, P, e) + missing <= target
    assert 2 * REACH + 1 + 2 * pad == base.size


@settings(max_examples=25, deadline=None)
@given(st.integers(50, 400), st.integers(1, 100), st.integers(1, 60), st.sampled_from([1, 10, 300]),
       st.sampled_from([Fraction(1, 10**6), Fraction(1, 1000), Fraction(1, 20)]))
def test_the_mixture_lies_between_its_two_pairs_and_grows_with_its_weight(sigma, near, extra, T, q):
    far = near + extra
    args = {"sigma": sigma, "rounds": T, "delta": Fraction(1, 10**5), "dimension": 1000}
    low = dominating_epsilon(sensitivity=far - extra, **args)
    high = dominating_epsilon(sensitivity=far, **args)
    if low is None or high is None:
        return
    mixed = mixture_epsilon(near=near, far=far, weight=q, **args)
    more = mixture_epsilon(near=near, far=far, weight=2 * q, **args)
    assert low.upper() <= mixed.upper() <= more.upper() <= high.upper()
    assert mixture_epsilon(near=near, far=far, weight=0, **args).upper() == low.upper()
    assert mixture_epsilon(near=near, far=far, weight=1, **args).upper() == high.upper()
    assert math.isfinite(float(mixed.upper()))
