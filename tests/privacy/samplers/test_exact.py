"""The exact decisions: the float exp's proven error, the integer brackets, the geometric thresholds, the refinement."""

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import precision, to_arb
from itsa.privacy.samplers import BlockStream, LazyUniform, bracket, exp_neg, stream_key
from itsa.privacy.samplers._exact import MAX_X, exp_neg_ball, geometric_thresholds

U = Fraction(1, 2**53)


def _exact_exp(x: float) -> flint.arb:
    with precision(200):
        return (-to_arb(Fraction(x))).exp()


def _xs(n, seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.uniform(0, 1, n), rng.uniform(0, 50, n), rng.uniform(0, MAX_X, n),
                           [0.0, 2**-60, 1 / 256, 255 / 256, 1.0, 699.999, MAX_X]])


def test_exp_neg_within_32_ulps():
    """|p̂ - e^-x| <= 32 u e^-x on every sampled x (the docs prove it for all x in [0, 700])."""
    xs = _xs(3000, 1)
    got = exp_neg(xs)
    with precision(200):
        for x, p in zip(xs.tolist(), got.tolist()):
            exact = _exact_exp(x)
            err = abs(to_arb(Fraction(p)) - exact) / exact
            assert err < to_arb(32 * U), (x, p)


def test_exp_neg_is_zero_past_the_range_and_on_nan():
    assert exp_neg(np.array([700.5, 1e300, np.inf, np.nan])).tolist() == [0.0, 0.0, 0.0, 0.0]


def test_bracket_encloses_the_threshold_of_every_nearby_x():
    """lo <= 2^64 e^-x <= hi for x = x̂ and x̂ +- 2^-39 (the float error the proof allows)."""
    xs = _xs(1500, 2)
    lo, hi, unbounded = bracket(xs)
    with precision(200):
        for i, x in enumerate(xs.tolist()):
            for dx in (Fraction(0), Fraction(1, 2**39), -Fraction(1, 2**39)):
                xe = max(Fraction(x) + dx, Fraction(0))
                t = (-to_arb(xe)).exp() * flint.arb(2) ** 64
                assert t >= int(lo[i]), (x, dx)
                assert unbounded[i] or t <= int(hi[i]), (x, dx)


def test_bracket_is_narrow():
    """The fast path decides all but a 2^-30 share of words (hi - lo <= 2^-30 of 2^64 p + 2)."""
    xs = _xs(500, 3)
    lo, hi, unbounded = bracket(xs)
    p = exp_neg(xs) * 2.0**64
    ok = ~unbounded
    assert np.all(hi[ok].astype(float) - lo[ok].astype(float) <= p[ok] * 2.0**-30 + 3)


def test_geometric_thresholds_are_the_floors():
    ts = geometric_thresholds()
    assert ts.dtype == np.uint64 and np.all(np.diff(ts.astype(object)) > 0)
    with precision(300):
        for k, L in enumerate(ts[::-1].tolist(), start=1):
            v = (-flint.arb(k)).exp() * flint.arb(2) ** 64
            assert int(L) < v < int(L) + 1
        nxt = (-flint.arb(len(ts) + 1)).exp() * flint.arb(2) ** 64
        assert nxt < 1


@pytest.mark.parametrize("p", [Fraction(1, 3), Fraction(2, 7), Fraction(5, 11)])
def test_lazy_uniform_decides_as_the_real_comparison(p):
    """U = 0.W1W2... (64-bit words) is compared with p: the answer is that of U's value against p, exactly."""
    rng = np.random.default_rng(4)
    top = int(p * 2**64)          # a word straddling p: the decision needs more words
    for _ in range(50):
        extra = [int(w) for w in rng.integers(0, 2**63, 4, dtype=np.uint64) * 2 + rng.integers(0, 2, 4, dtype=np.uint64)]
        feed = iter(extra)
        lazy = LazyUniform(top, feed.__next__)

        def ball(prec, p=p):
            with precision(prec):
                return to_arb(p)
        got = lazy.less(ball)
        used = lazy.bits // 64
        value = Fraction(lazy.value, 2**(64 * used))
        assert got == (value < p)
        assert used >= 2


def test_lazy_uniform_against_an_exponential():
    """e^-1: a word at its floor needs refining; the decision matches U's exact prefix."""
    L = int(geometric_thresholds()[-1])
    feed = iter([2**63, 2**62, 5, 7])
    lazy = LazyUniform(L, lambda: next(feed))
    got = lazy.less(exp_neg_ball(Fraction(1)))
    prefix = Fraction(lazy.value, 2**lazy.bits)
    with precision(300):
        e = (-flint.arb(1)).exp()
        assert got == bool(to_arb(prefix + Fraction(1, 2**lazy.bits)) <= e)


@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(1, 2), Fraction(3, 2), Fraction(7, 3)])
def test_bernoulli_exp_from_words(gamma):
    """Bernoulli(e^-gamma) decided from stream words (bracket, then the exact path): 20,000 trials within 4.5
    standard errors of e^-gamma (a 10% error in gamma moves the frequency by about 8 at gamma = 1/2)."""
    n = 20_000
    stream = BlockStream(stream_key(f"bernoulli-{gamma}"), b"test", 0)
    words = stream.words(n)
    lo, hi, unbounded = bracket(np.full(n, float(gamma)))
    hits = words < lo
    for i in np.flatnonzero(~hits & ((words < hi) | unbounded)):
        hits[i] = LazyUniform(int(words[i]), stream.word).less(exp_neg_ball(gamma))
    p = math.exp(-gamma)
    assert abs(hits.mean() - p) < 4.5 * math.sqrt(p * (1 - p) / n)


@settings(max_examples=300, deadline=None)
@given(x=st.floats(min_value=0, max_value=720, allow_nan=False), err=st.sampled_from([0.0, 2.0**-30, 2.0**-12]))
def test_bracket_encloses_every_threshold_property(x, err):
    """For any x̂ (and a widening err), lo <= 2^64 e^-x <= hi for x = x̂ +- (2^-39 + err)."""
    lo, hi, unbounded = bracket(np.array([x]), np.array([err]))
    with precision(200):
        for sign in (1, -1):
            xe = max(Fraction(x) + sign * (Fraction(1, 2**39) + Fraction(err)), Fraction(0))
            t = (-to_arb(xe)).exp() * flint.arb(2) ** 64
            assert t >= int(lo[0]) and (unbounded[0] or t <= int(hi[0]))
