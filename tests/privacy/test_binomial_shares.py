"""Binomial shares in a plan: the approximate Rényi bound against the exact privacy curve of small cases.

The exact curve is brute force over every output: ``δ(ε) = Σ_x (P(x) − e^ε Q(x))₊`` for ``P`` the law of ``T``
rounds of ``Bin(M, ½)`` noise on ``d`` coordinates and ``Q`` the same shifted by ``v`` each round, in integers
(``e^ε`` replaced by a rational above it, so the brute force is a lower bound on the exact curve). The
certified curve (the accountant's δ at ε, the slack included) must lie above it, in both directions.
"""

import itertools
import math
from fractions import Fraction

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import Direction, arb_to_fractions, precision, to_arb
from itsa.exceptions import InvalidOption
from itsa.privacy import Accountant, DiscreteGaussianEvent
from itsa.privacy.binomial_count import SLACK_BITS, BinomialSharesEvent
from itsa.privacy.profile import slack_sum
from itsa.privacy.subsampled import PoissonSampledEvent


def exp_above(eps: Fraction) -> Fraction:
    """A rational at least ``e^ε`` (the ball's upper end)."""
    with precision(128):
        return arb_to_fractions(to_arb(eps).exp())[1]


def brute_delta(coins: int, shift: tuple[int, ...], rounds: int, eps: Fraction) -> tuple[Fraction, Fraction]:
    """``(H(P‖Q), H(Q‖P))`` at ``e^ε`` (from below), by enumeration of every output of the ``rounds`` rounds."""
    a = exp_above(eps)
    pmf = [math.comb(coins, m) for m in range(coins + 1)]          # times 2^coins

    def one(m: int) -> int:
        return pmf[m] if 0 <= m <= coins else 0

    lows = [min(0, s) for s in shift]
    highs = [coins + max(0, s) for s in shift]
    cells = [(math.prod(one(x) for x in xs), math.prod(one(x - s) for x, s in zip(xs, shift)))
             for xs in itertools.product(*(range(lo, hi + 1) for lo, hi in zip(lows, highs)))]
    forward = backward = 0
    for combo in itertools.product(cells, repeat=rounds):
        p = math.prod(c[0] for c in combo)
        q = math.prod(c[1] for c in combo)
        forward += max(0, p * a.denominator - a.numerator * q)
        backward += max(0, q * a.denominator - a.numerator * p)
    scale = a.denominator * 2 ** (coins * len(shift) * rounds)
    return Fraction(forward, scale), Fraction(backward, scale)


def certified_delta(coins: int, sensitivity, dimension: int, rounds: int, eps: Fraction) -> Fraction:
    event = BinomialSharesEvent(coins=coins, sensitivity=sensitivity, dimension=dimension)
    return Accountant().compose(event, rounds).delta(eps).upper()


CASES = [  # coins, shift v, the sensitivity given (>= |v|), rounds, epsilons
    (16, (1,), 1, 1, [Fraction(0), Fraction(1), Fraction(3)]),
    (16, (2,), 2, 2, [Fraction(1, 2), Fraction(2), Fraction(5)]),
    (40, (1,), 1, 2, [Fraction(1), Fraction(2)]),
    (40, (-3,), 3, 1, [Fraction(1), Fraction(3)]),
    (10, (1, 1), Fraction(3, 2), 1, [Fraction(1), Fraction(3)]),
    (12, (2, -1), Fraction(9, 4), 1, [Fraction(2)]),
    (6, (1, -1), Fraction(3, 2), 2, [Fraction(2), Fraction(4)]),
]


@pytest.mark.parametrize(("coins", "shift", "sens", "rounds", "epsilons"), CASES)
def test_the_exact_curve_lies_below_the_certified_one(coins, shift, sens, rounds, epsilons):
    for eps in epsilons:
        forward, backward = brute_delta(coins, shift, rounds, eps)
        bound = certified_delta(coins, sens, len(shift), rounds, eps)
        assert forward <= bound and backward <= bound, (eps, forward, backward, bound)
        assert forward == backward                  # x -> v - x maps one world to the other


def test_a_bound_informative_at_forty_coins():
    """At M = 40, one round, shift 1: the exact delta at eps = 2 is below the certified one, and that is < 0.1."""
    forward, _ = brute_delta(40, (1,), 1, Fraction(2))
    bound = certified_delta(40, 1, 1, 1, Fraction(2))
    assert forward <= bound < Fraction(1, 10)


@settings(max_examples=25, deadline=None)
@given(half=st.integers(2, 30), k=st.integers(1, 3), rounds=st.integers(1, 2),
       eps=st.fractions(Fraction(0), Fraction(4), max_denominator=8))
def test_property_one_coordinate(half, k, rounds, eps):
    coins = 2 * half
    forward, backward = brute_delta(coins, (k,), rounds, eps)
    bound = certified_delta(coins, k, 1, rounds, eps)
    assert max(forward, backward) <= bound


@settings(max_examples=15, deadline=None)
@given(coins=st.integers(4, 14), v=st.tuples(st.integers(-2, 2), st.integers(-2, 2)).filter(any),
       eps=st.fractions(Fraction(0), Fraction(4), max_denominator=8))
def test_property_two_coordinates(coins, v, eps):
    sens = Fraction(math.isqrt(v[0] ** 2 + v[1] ** 2 - 1) + 1)       # an integer >= |v|
    forward, backward = brute_delta(coins, v, 1, eps)
    assert max(forward, backward) <= certified_delta(coins, sens, 2, 1, eps)


@pytest.mark.parametrize(("root", "slack"), [(10**4, Fraction(1, 10**3)), (10**6, Fraction(1, 10**5))])
def test_at_deployment_scale_it_is_the_gaussian_bound_within_a_hair(root, slack):
    """Many coins (M = 4 r^2): the bound is the central discrete Gaussian's Renyi bound at sigma = r (variance
    M/4) within 0.1 % (r = 10^4) and 0.001 % (r = 10^6) in epsilon: the variance used is (M + 1)/4, the error U
    and the slack all but nothing."""
    coins, sens, d, rounds, delta = 4 * root * root, root // 20, 10**5, 100, Fraction(1, 10**6)
    event = BinomialSharesEvent(coins=coins, sensitivity=sens, dimension=d)
    assert 0 < event.slack <= Fraction(1, 2**SLACK_BITS)
    ours = Accountant().compose(event, rounds).bound(delta).epsilon
    theirs = Accountant().compose(DiscreteGaussianEvent(sigma=root, sensitivity=sens), rounds).bound(delta).epsilon
    assert theirs.upper() * (1 - slack) <= ours.upper() <= theirs.upper() * (1 + slack)
    assert ours.direction is Direction.UPPER and "delta slack" in str(ours.method)


def test_few_coins_cost_more_than_the_gaussian_at_their_variance():
    """At M = 10^6 coins (r = 500) and d = 10^5, the error U is no longer nothing: more than 1 % in epsilon."""
    event = BinomialSharesEvent(coins=10**6, sensitivity=25, dimension=10**5)
    ours = Accountant().compose(event, 100).bound(Fraction(1, 10**6)).epsilon
    theirs = Accountant().compose(DiscreteGaussianEvent(sigma=500, sensitivity=25), 100).bound(Fraction(1, 10**6))
    assert ours.upper() > theirs.epsilon.upper() * Fraction(101, 100)


def test_the_window_is_the_whole_support_for_few_coins():
    e = BinomialSharesEvent(coins=16, sensitivity=1)
    assert e.window.low == 0 and 0 < e.slack < 1          # the shifted world still leaves the window


def test_slack_composes_by_adding_and_comes_off_delta():
    e = BinomialSharesEvent(coins=10**6, sensitivity=50, dimension=10)
    assert slack_sum([(e, 7), (DiscreteGaussianEvent(sigma=10, sensitivity=1), 3)]) == 7 * e.slack
    plain = Accountant().compose(e, 7).delta(Fraction(1))
    assert plain.upper() >= 7 * e.slack


def test_a_slack_that_takes_all_of_delta_bounds_nothing():
    e = BinomialSharesEvent(coins=4, sensitivity=1)               # the slack is not small at four coins
    assert e.slack > Fraction(1, 10**6)
    bound = Accountant().compose(e, 1).bound(Fraction(1, 10**6))
    assert bound.epsilon.direction is Direction.VACUOUS and bound.delta == Fraction(1, 10**6)


def test_a_poisson_sample_of_it_is_refused():
    with pytest.raises(InvalidOption, match="delta slack"):
        PoissonSampledEvent(event=BinomialSharesEvent(coins=100, sensitivity=1), rate=Fraction(1, 2))


@pytest.mark.parametrize(("kw", "text"), [({"coins": 0, "sensitivity": 1}, "coins"),
                                          ({"coins": 10, "sensitivity": 0}, "sensitivity"),
                                          ({"coins": 10, "sensitivity": 1, "dimension": 0}, "dimension")])
def test_bad_numbers_are_refused(kw, text):
    with pytest.raises(InvalidOption, match=text):
        BinomialSharesEvent(**kw)


def test_an_arb_sensitivity_is_read_from_its_upper_end():
    with precision():
        root2 = flint.arb(2).sqrt()
    e = BinomialSharesEvent(coins=10**6, sensitivity=root2, dimension=2)
    f = BinomialSharesEvent(coins=10**6, sensitivity=Fraction(3, 2), dimension=2)
    assert e.rdp(3).upper() <= f.rdp(3).upper()
