"""The threshold test's lower bound on a Poisson-sampled discrete Gaussian round: below the exact ε of the
mechanism's pair (brute force over its atoms, T = 1, 2, 3), exact on Bernoulli pairs, and tight where few rounds
draw the client (production's sampling)."""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.privacy.sampled_lower import bernoulli_lower, sampled_discrete_lower, threshold_probabilities
from itsa.privacy.sampled_pair import sampled_gaussian_epsilon


def _atoms(sigma: float, shift: int, rate: float, remove: bool) -> tuple[np.ndarray, np.ndarray]:
    """One round's (P, Q) masses over the integers of the sampled discrete Gaussian pair, in one order."""
    reach = int(40 * sigma) + shift + 10
    x = np.arange(-reach, reach + 1)
    base = np.exp(-(x.astype(float) ** 2) / (2 * sigma**2))
    base /= base.sum()
    moved = np.exp(-((x - shift).astype(float) ** 2) / (2 * sigma**2))
    moved /= moved.sum()
    mix = (1 - rate) * base + rate * moved
    return (mix, base) if remove else (base, mix)


def _exact_epsilon(sigma: float, shift: int, rate: float, rounds: int, delta: float) -> float:
    """The exact ε at δ of T rounds of the pair, the larger of the two orders: the product law's atoms (brute
    force), each round's losses merged on exact values before the next (no grid)."""
    worst = 0.0
    for remove in (True, False):
        p, q = _atoms(sigma, shift, rate, remove)
        keep = p > 1e-300
        p, q = p[keep], q[keep]
        with np.errstate(divide="ignore"):          # a Q mass below the doubles: loss +inf, as it should count
            lp, lq = np.log(p), np.log(q)
        tp, tq = np.zeros(1), np.zeros(1)
        for _ in range(rounds):
            tp, tq = np.add.outer(tp, lp).ravel(), np.add.outer(tq, lq).ravel()
            order = np.argsort(tp - tq)
            tp, tq = tp[order], tq[order]
            if tp.size > 400_000:           # keep the heaviest atoms: dropping mass only lowers delta(eps)
                top = np.argsort(tp)[-400_000:]
                tp, tq = tp[top], tq[top]
        loss = tp - tq
        low, high = 0.0, 400.0
        for _ in range(80):
            mid = (low + high) / 2
            value = np.exp(tp[loss > mid]).sum() - math.exp(mid) * np.exp(tq[loss > mid]).sum()
            low, high = (mid, high) if value > delta else (low, mid)
        worst = max(worst, high)
    return worst


@pytest.mark.parametrize(("sigma", "shift", "rate", "rounds", "delta"), [
    (2, 3, Fraction(1, 3), 1, Fraction(1, 100)),
    (2, 3, Fraction(1, 3), 2, Fraction(1, 100)),
    (3, 5, Fraction(1, 10), 3, Fraction(1, 1000)),
    (1, 2, Fraction(1, 2), 3, Fraction(1, 50)),
])
def test_the_lower_bound_is_below_the_exact_epsilon_of_small_cases(sigma, shift, rate, rounds, delta):
    low = sampled_discrete_lower(sigma=sigma, shift=shift, rate=rate, rounds=rounds, delta=delta)
    exact = _exact_epsilon(float(sigma), shift, float(rate), rounds, float(delta))
    assert 0 < float(low.upper()) <= exact + 1e-9
    assert str(low.direction) == "lower bound"


@settings(max_examples=15, deadline=None)
@given(sigma=st.integers(1, 4), shift=st.integers(1, 8), rate=st.sampled_from([Fraction(1, 2), Fraction(1, 5),
       Fraction(1, 20)]), rounds=st.integers(1, 2), exponent=st.integers(1, 4))
def test_the_lower_bound_is_never_above_the_exact_epsilon(sigma, shift, rate, rounds, exponent):
    delta = Fraction(1, 10**exponent)
    low = sampled_discrete_lower(sigma=sigma, shift=shift, rate=rate, rounds=rounds, delta=delta)
    assert float(low.upper()) <= _exact_epsilon(float(sigma), shift, float(rate), rounds, float(delta)) + 1e-9


def test_bernoulli_lower_is_the_exact_test_on_one_round():
    """One round of Bernoulli(1/2) against Bernoulli(1/4), the test N >= 1: delta(eps) = 1/2 - e^eps/4."""
    half, quarter = flint.arb(1) / 2, flint.arb(1) / 4
    for delta in (Fraction(1, 10), Fraction(1, 5), Fraction(1, 8)):
        e = bernoulli_lower(a=half, b=quarter, rounds=1, delta=delta, count=1, upper_tail=True)
        assert abs(float(e) - math.log((0.5 - float(delta)) / 0.25)) < 1e-10
    # two rounds, N >= 2: P = 1/4, Q = 1/16, delta 1/8: ln((1/4 - 1/8) * 16) = ln 2
    e = bernoulli_lower(a=half, b=quarter, rounds=2, delta=Fraction(1, 8), count=2, upper_tail=True)
    assert abs(float(e) - math.log(2)) < 1e-10
    # the lower tail (N <= 0): P = 1/4 (Bern(1/2) twice 0), Q = 9/16: no eps > 0 beats delta 1/8
    assert bernoulli_lower(a=half, b=quarter, rounds=2, delta=Fraction(1, 8), count=0, upper_tail=False) == 0


def test_threshold_probabilities_enclose_the_discrete_tails():
    f0, f1 = threshold_probabilities(sigma=3, shift=4, rate=Fraction(1, 2), threshold=2)
    x = np.arange(-200, 201)
    law = np.exp(-(x.astype(float) ** 2) / 18)
    law /= law.sum()
    for ball, exact in ((f0, law[x >= 2].sum()), (f1, law[x >= -2].sum())):     # enclosed; loose at sigma 3
        assert float(ball.lower()) <= exact <= float(ball.upper()) and float(ball.rad()) < 1e-2
    f0, _ = threshold_probabilities(sigma=300, shift=4, rate=Fraction(1, 2), threshold=200)
    law = np.exp(-(np.arange(-20000, 20001).astype(float) ** 2) / (2 * 300**2))
    exact = law[20200:].sum() / law.sum()
    assert float(f0.lower()) - 1e-12 <= exact <= float(f0.upper()) + 1e-12 and float(f0.rad()) < 1e-6 * exact


@pytest.mark.parametrize(("rate", "sigma", "rounds", "target"), [
    (Fraction(1, 10**5), 500, 10**4, "0.2"),      # production's sampling: the count of rare rounds tells
    (Fraction(1, 4000), 550, 3000, "1.635"),
])
def test_the_lower_bound_is_tight_at_production_rates(rate, sigma, rounds, target):
    """Where few rounds draw the client the threshold test is within 1.5 % of the continuous sampled pair's ε at the
    same shift (k/sigma), and below the certified upper bound of the discrete one ((k + 2)/sigma)."""
    delta = Fraction(1, 10**6)
    low = sampled_discrete_lower(sigma=sigma, shift=1000, rate=rate, rounds=rounds, delta=delta).upper()
    near = sampled_gaussian_epsilon(mu=Fraction(1000, sigma), rate=rate, rounds=rounds, delta=delta).upper()
    up = sampled_gaussian_epsilon(mu=Fraction(1000 + 2, sigma), rate=rate, rounds=rounds, delta=delta).upper()
    assert near * Fraction(985, 1000) <= low <= up
