"""Distributed shares over a sampled cohort (its count public, replace-one): exact small mechanisms against the
combined pair of the largest rate and the fewest shares, the Poisson count's tails, and the lower bound.

The exact cases enumerate every cohort of a population of 3 or 4 and every placement of the others' records in
``{-C, 0, C}`` (continuous Gaussian shares, one dimension), and integrate the hockey-stick divergence on a fine
grid; the bound's curve is the combined pair's (:mod:`itsa.privacy.sampled_fixed`) on the same grid.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import norm

from itsa.privacy.cohort_lower import cohort_lower, share_sum_tail
from itsa.privacy.events import DistributedDiscreteGaussianEvent
from itsa.privacy.sampled_cohort import CohortEvent, cohort_epsilon, fixed_cohort, poisson_cohort
from itsa.privacy.sampled_fixed import fixed_sampled_epsilon

GRID = np.linspace(-25, 25, 50001)
STEP = GRID[1] - GRID[0]
ALPHAS = (0.3, 0.6, 1.0, 1.5, math.e, 5.0, 20.0)


def _hockey(p: np.ndarray, q: np.ndarray, alpha: float) -> float:
    return float(np.sum(np.maximum(p - alpha * q, 0)) * STEP)


def _round(records: list[float], k: int, share: float) -> np.ndarray:
    """The density of one round: a uniformly random k-subset's sum plus k Gaussian shares of deviation share."""
    subsets = list(itertools.combinations(range(len(records)), k))
    sd = share * math.sqrt(k) if k else 0.0
    out = np.zeros_like(GRID)
    for s in subsets:
        out += norm.pdf(GRID, sum(records[i] for i in s), sd) if k else 0.0
    return out / len(subsets)


def _combined(mu: float, rate: float, alpha: float) -> float:
    """The combined pair's hockey stick: remove order (gamma A + (1 - gamma) B against B) for alpha >= 1, add
    order below."""
    a, b = norm.pdf(GRID, mu, 1), norm.pdf(GRID, 0, 1)
    c = rate * a + (1 - rate) * b
    return _hockey(c, b, alpha) if alpha >= 1 else _hockey(b, c, alpha)


@pytest.mark.parametrize("population,k", [(3, 1), (3, 2), (4, 2)])
def test_a_fixed_cohort_is_below_the_combined_pair(population, k):
    """Every placement of the others, the target's record C against -C or 0 (zero-out), both orders."""
    clip, share = 1.0, 0.8
    mu = 2 * clip / (share * math.sqrt(k))                    # the replace-one shift over the k shares' deviation
    bound = {a: _combined(mu, k / population, a) for a in ALPHAS}
    for others in itertools.product((-clip, 0.0, clip), repeat=population - 1):
        for mine, theirs in ((clip, -clip), (clip, 0.0)):
            p = _round([mine, *others], k, share)
            q = _round([theirs, *others], k, share)
            for a in ALPHAS:
                assert _hockey(p, q, a) <= bound[a] + 1e-6
                assert _hockey(q, p, a) <= bound[a] + 1e-6


def test_a_poisson_cohort_with_its_count_public_is_below_the_pair_of_its_range_plus_its_tails():
    """N = 4, q = 1/2: the joint (count, sum) hockey stick is the Bin(4, 1/2)-average of the fixed-size rounds';
    counts 1..3 are dominated by the combined pair at rate 3/4 and one share's noise, 0 and 4 cost their
    probability 1/8."""
    population, clip, share = 4, 1.0, 0.8
    weights = {k: math.comb(population, k) / 2**population for k in range(population + 1)}
    low, high = 1, 3
    beta = weights[0] + weights[4]
    mu = 2 * clip / (share * math.sqrt(low))
    bound = {a: _combined(mu, high / population, a) + beta for a in ALPHAS}
    for others in itertools.product((-clip, 0.0, clip), repeat=population - 1):
        laws = [(weights[k], _round([clip, *others], k, share), _round([-clip, *others], k, share))
                for k in range(1, population + 1)]
        for a in ALPHAS:
            total = sum(w * _hockey(p, q, a) for w, p, q in laws)
            total += weights[0] * max(0.0, 1 - a)            # an empty cohort releases nothing: the same laws
            assert total <= bound[a] + 1e-6


def test_with_the_count_public_the_poisson_pair_of_one_update_does_not_dominate():
    """Why the combined pair of the replace-one shift, not the Poisson pair of one update's shift: zero out the
    target (C against 0) among others that all send -C; given a count of 1 of 4 the round is
    (1/4) N(2C) + (3/4) N(0) against (1/4) N(C) + (3/4) N(0), above (1/4) N(C) + (3/4) N(0) against N(0)."""
    clip, share = 1.0, 1.0
    p = _round([clip, -clip, -clip, -clip], 1, share)
    q = _round([0.0, -clip, -clip, -clip], 1, share)
    poisson = 0.25 * norm.pdf(GRID, clip, share) + 0.75 * norm.pdf(GRID, 0, share)
    alpha = math.e
    exact = _hockey(p, q, alpha)
    claimed = max(_hockey(poisson, norm.pdf(GRID, 0, share), alpha), _hockey(norm.pdf(GRID, 0, share), poisson, alpha))
    assert exact > 5 * claimed
    assert exact <= _combined(2 * clip / share, 0.25, alpha) + 1e-6


def _exact_tail(n: int, q: Fraction, ks) -> Fraction:
    return sum((math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in ks), Fraction(0))


@pytest.mark.parametrize("population,expected,rounds", [(300, 30, 1), (500, 50, 10), (60, 6, 3)])
def test_the_poisson_count_tails_are_exact_upper_bounds(population, expected, rounds):
    delta = Fraction(1, 10**4)
    c = poisson_cohort(population=population, expected=expected, rounds=rounds, delta=delta)
    q = Fraction(expected, population)
    below = _exact_tail(population, q, range(1, c.low))      # an empty cohort releases nothing: not a failure
    above = _exact_tail(population, q, range(c.high + 1, population + 1))
    share = delta / (rounds * 2**11)
    assert below <= c.below <= share and above <= c.above <= share
    with_empty = below + _exact_tail(population, q, [0])      # the certified tail counts the empty cohort too
    assert c.below == 0 or c.below - with_empty <= with_empty / 10**6     # tight: the ball's end
    assert c.low <= expected <= c.high and c.rate == Fraction(c.high, population)


def test_a_fixed_cohort_has_no_tails():
    c = fixed_cohort(population=100, size=7)
    assert (c.low, c.high, c.failure, c.rate) == (7, 7, 0, Fraction(7, 100))


def _inner(survivors=400):
    return DistributedDiscreteGaussianEvent(sensitivity=200, scale=20, survivors=survivors, dimension=1000)


def test_the_bound_is_the_combined_pair_at_the_largest_rate_and_grows_with_it():
    delta = Fraction(1, 10**6)
    fixed = cohort_epsilon(CohortEvent(event=_inner(), cohort=fixed_cohort(population=10**4, size=500)),
                           rounds=100, delta=delta)
    poisson = poisson_cohort(population=10**4, expected=500, rounds=100, delta=delta)
    sampled = cohort_epsilon(CohortEvent(event=_inner(), cohort=poisson), rounds=100, delta=delta)
    assert fixed is not None and sampled is not None
    assert fixed.upper() < sampled.upper()                  # the Poisson range's largest rate is above 1/20
    # the combined pair at mu'' of the full round, at the cohort's rate: the same number as sampled_fixed's
    from itsa.privacy.lattice import dominating_pair

    mu, slack = dominating_pair(sigma=20, sensitivity=200, survivors=400, dimension=1000, slack_limit=delta / 100)
    direct = fixed_sampled_epsilon(mu=mu, rate=Fraction(1, 20), rounds=100, delta=delta, slack=100 * slack)
    assert direct.upper() == fixed.upper()


def test_the_renyi_bound_is_the_full_rounds_with_the_tails_as_slack():
    poisson = poisson_cohort(population=10**4, expected=500, rounds=100, delta=Fraction(1, 10**6))
    e = CohortEvent(event=_inner(), cohort=poisson)
    assert e.rdp(3).upper() == _inner().rdp(3).upper() and e.slack == poisson.failure > 0


def _dg(sigma: float, reach: int) -> np.ndarray:
    x = np.arange(-reach, reach + 1)
    p = np.exp(-(x**2) / (2 * sigma**2))
    return p / p.sum()


def _exact_epsilon(p: np.ndarray, q: np.ndarray, delta: float, rounds: int) -> float:
    if rounds == 2:
        p, q = np.outer(p, p).ravel(), np.outer(q, q).ravel()
    lo, hi = 0.0, 50.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if np.sum(np.maximum(p - math.exp(mid) * q, 0)) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


@pytest.mark.parametrize("sigma,shares,shift,rounds", [(2, 2, 3, 1), (2, 3, 4, 2), (3, 1, 5, 2)])
def test_the_lower_bound_is_below_the_exact_epsilon_of_its_pair(sigma, shares, shift, rounds):
    """A fixed cohort of `shares` of twice as many (the target in with probability 1/2), the sum of its `shares`
    discrete Gaussians, the target's +-shift: the exact epsilon of the released value (brute force over its
    atoms) is above the bound."""
    reach = 60
    one = _dg(sigma, reach)
    noise = one
    for _ in range(shares - 1):
        noise = np.convolve(noise, one)
    width = len(noise)
    pad = np.zeros(width + 2 * shift)
    base = pad.copy()
    base[shift:shift + width] = noise
    up, down = pad.copy(), pad.copy()
    up[2 * shift:] = noise
    down[:width] = noise
    p, q = 0.5 * up + 0.5 * base, 0.5 * down + 0.5 * base
    delta = 1e-3
    exact = _exact_epsilon(p, q, delta, rounds)
    low = cohort_lower(sigma=sigma, shift=shift, copies=1, cohort=fixed_cohort(population=2 * shares, size=shares),
                       rounds=rounds, delta=Fraction(1, 1000), dropout=0)
    assert 0 < float(low.upper()) <= exact + 1e-9


@pytest.mark.parametrize("x", [-7, 0, 3, 11])
def test_the_share_sums_tail_encloses_the_convolution(x):
    one = _dg(2.0, 60)
    noise = np.convolve(np.convolve(one, one), one)
    support = np.arange(-180, 181)
    exact = float(noise[support >= x].sum())
    ball = share_sum_tail(x, sigma=2, shares=3)
    assert float(ball.lower()) - 1e-12 <= exact <= float(ball.upper()) + 1e-12


def _cohort_law(records: list[int], k: int, share: np.ndarray, reach: int) -> np.ndarray:
    """The exact law (on -reach..reach) of a uniformly random k-subset's sum plus k discrete Gaussian shares."""
    noise = np.ones(1)
    for _ in range(k):
        noise = np.convolve(noise, share)
    half = (len(noise) - 1) // 2
    out = np.zeros(2 * reach + 1)
    subsets = list(itertools.combinations(range(len(records)), k))
    for s in subsets:
        shift = sum(records[i] for i in s)
        lo = reach + shift - half
        out[lo:lo + len(noise)] += noise / len(subsets)
    return out


@pytest.mark.parametrize("rounds", [1, 2])
def test_the_poisson_cohort_bound_is_above_the_exact_epsilon_of_tiny_mechanisms(rounds):
    """A population of 5, q = 1/5, the count public, discrete Gaussian shares of sigma 3, records in
    {-2, 0, 2} (replace-one sensitivity 4), every placement of the others: the exact epsilon of the joint
    (count, sum) law over `rounds` rounds, by brute force, is below :func:`cohort_epsilon`'s, whose counts
    1..4 are certified (rate 4/5, one share) and the count 5 (probability 1/3125) in delta."""
    from itsa.privacy.sampled_cohort import Cohort

    population, reach, delta = 5, 170, Fraction(1, 100)
    x = np.arange(-30, 31)
    share = np.exp(-(x**2) / 18.0)
    share /= share.sum()
    weights = [math.comb(population, k) * 4 ** (population - k) / 5**population for k in range(population + 1)]
    cohort = Cohort(sampling="poisson", population=5, expected=1, low=1, high=4, below=0,
                    above=Fraction(1, 5**5))
    inner = DistributedDiscreteGaussianEvent(sensitivity=4, scale=3, survivors=1, dimension=1)
    bound = cohort_epsilon(CohortEvent(event=inner, cohort=cohort), rounds=rounds, delta=delta)
    assert bound is not None
    worst = 0.0
    for others in itertools.product((-2, 0, 2), repeat=population - 1):
        p = np.concatenate([w * _cohort_law([2, *others], k, share, reach) for k, w in enumerate(weights)])
        q = np.concatenate([w * _cohort_law([-2, *others], k, share, reach) for k, w in enumerate(weights)])
        p, q = p[p + q > 0], q[p + q > 0]       # the count is part of the release: one block per count
        worst = max(worst, _exact_epsilon(p, q, float(delta), rounds))
    assert 0.1 < worst <= float(bound.upper())


def test_a_poisson_cohorts_lower_bound_is_below_its_upper_bound():
    """The threshold test of the pair +-60 (replace-one sensitivity 120) against the certified bound of the same
    Poisson cohort (its count mixed exactly over a window), one dimension."""
    delta = Fraction(1, 10**5)
    cohort = poisson_cohort(population=2000, expected=100, rounds=20, delta=delta)
    low = cohort_lower(sigma=20, shift=60, copies=1, cohort=cohort, rounds=20, delta=delta)
    inner = DistributedDiscreteGaussianEvent(sensitivity=120, scale=20, survivors=cohort.low, dimension=1)
    high = cohort_epsilon(CohortEvent(event=inner, cohort=cohort), rounds=20, delta=delta)
    assert 0 < low.upper() <= high.upper()


def test_the_lower_bounds_weights_count_the_empty_cohort_and_a_rate_of_one():
    """A window from 0 left P(K = 0) out of both a and b; a rate of 1 gave 0 log(0) = nan weights."""
    from itsa.privacy.cohort_lower import _weights

    weights, outside = _weights(poisson_cohort(population=100, expected=5, rounds=5, delta=Fraction(1, 10**5)))
    assert weights[0][0] == 1 and float(outside.lower()) >= 0.95**100 * (1 - 1e-9)
    total = sum(float(w.mid()) for _, w in weights) + float(outside.mid())
    assert abs(total - 1) < 1e-12
    every, rest = _weights(poisson_cohort(population=4, expected=4, rounds=5, delta=Fraction(1, 10**5)))
    assert len(every) == 1 and every[0][0] == 4 and every[0][1] == 1 and rest == 0


def test_a_tail_of_a_huge_population_is_summed_and_agrees_with_the_incomplete_beta():
    """The incomplete beta took over 100 s at 10^12 trials (one C call, past any time limit)."""
    from itsa._util.certified import precision, to_arb
    from itsa.privacy.sampled_lower import _summed_tail

    with precision(256):
        p = to_arb(Fraction(5000, 10**8))
        for m, upper in ((4477, False), (5542, True)):
            beta = (p.beta_lower(m, 10**8 - m + 1, regularized=True) if upper
                    else (1 - p).beta_lower(10**8 - m, m + 1, regularized=True))
            assert _summed_tail(10**8, p, m, upper).overlaps(beta)
    c = poisson_cohort(population=10**12, expected=5000, rounds=2000, delta=Fraction(1, 10**7))
    assert c.low < 5000 < c.high and 0 < c.below < Fraction(1, 10**13) and 0 < c.above < Fraction(1, 10**13)
