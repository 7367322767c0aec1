"""The discrete Gaussian against the continuous one: the Poisson enclosure and the dominating Gaussian pair."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.privacy.lattice import (
    COORDINATE,
    coordinate_pair,
    dominating_epsilon,
    dominating_pair,
    smoothing_pair,
    sum_error,
)
from itsa.privacy.pld import pair_epsilon


def _dg(sigma: float, reach: int) -> np.ndarray:
    x = np.arange(-reach, reach + 1)
    p = np.exp(-x.astype(float) ** 2 / (2 * sigma**2))
    return p / p.sum()


def test_sum_error_bounds_the_convolved_law():
    """``|P(S = y) − Gaussian(y)/θ^m| ≤ E`` for sums of three N_Z(0, σ²) (where E is not negligible)."""
    for sigma, at_most in ((1, Fraction(1, 10**2)), (Fraction(3, 2), Fraction(1, 10**5))):
        s = float(sigma)
        law = _dg(s, 60)
        total = np.convolve(np.convolve(law, law), law)
        y = np.arange(-180, 181)
        theta = sum(math.exp(-2 * math.pi**2 * s * s * j * j) for j in range(-5, 6))
        expression = np.exp(-y**2 / (6.0 * s * s)) / (theta**3 * math.sqrt(2 * math.pi * 3 * s * s))
        bound = sum_error(sigma**2, 3).upper()
        assert np.max(np.abs(total - expression)) <= float(bound) < at_most


@pytest.mark.parametrize("sigma", [Fraction(1, 2), 1, 3])
def test_discrete_gaussian_is_subgaussian(sigma):
    """The premise of the tail bounds: ``E[e^(tX)] ≤ e^(t²σ²/2)`` for ``X ~ N_Z(0, σ²)``."""
    law, x = _dg(float(sigma), 60), np.arange(-60, 61)
    for t in (0.1, 0.5, 1.0, 2.0):
        assert float((law * np.exp(t * x)).sum()) <= math.exp(t * t * float(sigma) ** 2 / 2) * (1 + 1e-12)


def _epsilon_2d(law: np.ndarray, v: tuple[int, int], delta: float) -> float:
    """ε at δ of ``X`` against ``X + v`` for ``X`` of i.i.d. coordinates ``law`` in two dimensions (brute force)."""
    p = np.multiply.outer(law, law)
    q = np.zeros_like(p)
    a, b = v
    n = p.shape[0]
    q[max(a, 0):n + min(a, 0), max(b, 0):n + min(b, 0)] = p[max(-a, 0):n - max(a, 0), max(-b, 0):n - max(b, 0)]
    low, high = 0.0, 30.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if np.maximum(p - math.exp(mid) * q, 0).sum() > delta else (low, mid)
    return high


def test_dominating_pair_bounds_every_shift_in_two_dimensions():
    """Every integer shift of norm <= 5 (on or off the axes), brute force: none beats the dominating bound."""
    law = _dg(6.0, 80)
    shifts = [(a, b) for a in range(0, 6) for b in range(-5, 6) if 0 < a * a + b * b <= 25]
    worst = max(_epsilon_2d(law, v, 1e-3) for v in shifts)
    bound = dominating_epsilon(sigma=6, sensitivity=5, rounds=1, delta="1e-3", dimension=2)
    assert bound is not None and worst <= float(bound.upper())
    assert float(pair_epsilon("1e-3", sigma=6, shift=5)) <= worst


def test_dominating_pair_is_tight_for_a_wide_noise():
    bound = dominating_epsilon(sigma=10**6, sensitivity=10**5, rounds=100, delta="1e-6", dimension=10**6)
    lower = pair_epsilon("1e-6", sigma=10**6, shift=10**5, rounds=100)
    assert bound is not None and lower <= bound.upper() <= lower * Fraction(10001, 10000)


def test_smoothing_pair_refuses_below_the_smoothing_condition():
    """2 pi^2 s^2/Delta^2 must exceed ln(2(d'-1)): a noise multiplier of 1/2 in a million dimensions does not; the
    coordinatewise pair takes over there, at mu* = (Delta + 2 sqrt(d'))/s."""
    assert smoothing_pair(sigma=500, sensitivity=1000, dimension=10**6) is None
    pair = dominating_pair(sigma=500, sensitivity=1000, dimension=10**6)
    assert pair is not None and pair.form == "coordinatewise" and pair[1] < Fraction(1, 10**20)
    assert Fraction(3000, 500) <= pair[0] <= Fraction(3000, 500) * (1 + Fraction(1, 10**9))
    bound = dominating_epsilon(sigma=500, sensitivity=1000, rounds=1, delta="1e-6", dimension=10**6)
    assert bound is not None and bound.method == COORDINATE
    assert smoothing_pair(sigma=2, survivors=4, sensitivity=3, dimension=10) is None


def test_a_usable_smoothing_pair_is_kept():
    """Where the smoothing pair holds with a slack the rounds can carry it is the pair (the coordinatewise one
    is looser there by 2(sqrt(d') - 1)/s on mu)."""
    pair = dominating_pair(sigma=1000, sensitivity=100, dimension=1000, slack_limit=Fraction(1, 10**8))
    assert pair.form == "smoothing" and pair == smoothing_pair(sigma=1000, sensitivity=100, dimension=1000)
    assert coordinate_pair(sigma=1000, sensitivity=100, dimension=1000)[0] > pair[0]


def _epsilon_3d(law: np.ndarray, v: tuple[int, int, int], delta: float) -> float:
    """ε at δ of ``X`` against ``X + v`` for ``X`` of i.i.d. coordinates ``law`` in three dimensions: the product
    of the coordinates' own pairs, their losses summed on exact atoms (brute force)."""
    n = law.shape[0]
    losses, masses = np.zeros(1), np.ones(1)
    for a in v:
        q = np.zeros_like(law)
        q[max(a, 0):n + min(a, 0)] = law[max(-a, 0):n - max(a, 0)]
        keep = law > 0
        with np.errstate(divide="ignore"):
            one = np.where(q[keep] > 0, np.log(law[keep]) - np.log(np.where(q[keep] > 0, q[keep], 1)), np.inf)
        losses = np.add.outer(losses, one).ravel()
        masses = np.multiply.outer(masses, law[keep]).ravel()
    low, high = 0.0, 40.0
    for _ in range(60):
        mid = (low + high) / 2
        value = (masses * np.maximum(1 - np.exp(mid - losses), 0)).sum()
        low, high = (mid, high) if value > delta else (low, mid)
    return high


def test_coordinatewise_pair_bounds_every_long_shift_in_three_dimensions():
    """A noise multiplier of 1/4 in three dimensions (sigma 3, Delta 12: below the smoothing condition), every
    integer shift of squared norm in (130, 144] (coordinates sorted: the law is symmetric and exchangeable), on
    and off the axes, brute force over the exact product law: none beats the coordinatewise bound."""
    assert smoothing_pair(sigma=3, sensitivity=12, dimension=3) is None
    law = _dg(3.0, 30)
    shifts = [(a, b, c) for a in range(0, 13) for b in range(0, a + 1) for c in range(0, b + 1)
              if 130 < a * a + b * b + c * c <= 144]
    worst = max(_epsilon_3d(law, v, 1e-3) for v in shifts)
    bound = dominating_epsilon(sigma=3, sensitivity=12, rounds=1, delta="1e-3", dimension=3)
    assert bound is not None and bound.method == COORDINATE and worst <= float(bound.upper())


@settings(max_examples=10, deadline=None)
@given(sigma=st.integers(50, 5000), sensitivity=st.integers(1, 400), rounds=st.integers(1, 300),
       survivors=st.sampled_from([1, 4]), dimension=st.sampled_from([2, 1000, 10**6]), exponent=st.integers(3, 9))
def test_dominating_bound_is_never_below_the_pair_lower_bound(sigma, sensitivity, rounds, survivors, dimension,
                                                              exponent):
    delta = Fraction(1, 10**exponent)
    bound = dominating_epsilon(sigma=sigma, sensitivity=sensitivity, rounds=rounds, delta=delta, survivors=survivors,
                               dimension=dimension)
    if bound is not None:
        lower = pair_epsilon(delta, sigma=sigma, shift=sensitivity, survivors=survivors, rounds=rounds)
        assert lower <= bound.upper()


def test_dominating_pair_bounds_shifts_of_distributed_noise():
    """Two shares of sigma 8 per coordinate, the longest shifts of norm <= 7 on and off the axes, brute force."""
    law = np.convolve(_dg(8.0, 70), _dg(8.0, 70))
    worst = max(_epsilon_2d(law, v, 1e-3) for v in [(7, 0), (6, 3), (5, 4), (4, -5)])
    bound = dominating_epsilon(sigma=8, survivors=2, sensitivity=7, rounds=1, delta="1e-3", dimension=2)
    assert bound is not None and worst <= float(bound.upper())
