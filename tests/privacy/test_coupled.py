"""Coupled stochastic rounding: the shift's norm bound against exact enumeration, and the whole mechanism's
privacy curve, computed exactly in d = 1, 2, 3 with few clients, below the certified one at every epsilon."""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.privacy.coupled import coupled_shift
from itsa.privacy.lattice import dominating_epsilon


def _roundings(a):
    """The law of stochastic rounding of the vector ``a`` (independent coordinates): ``{vector: probability}``."""
    per = []
    for x in a:
        lo = math.floor(x)
        f = x - lo
        per.append([(lo, 1 - f), (lo + 1, f)] if f else [(lo, Fraction(1))])
    law = {}
    for combo in itertools.product(*per):
        v = tuple(c[0] for c in combo)
        law[v] = law.get(v, 0) + math.prod(c[1] for c in combo)
    return law


def _coupled_norms(delta):
    """The exact law of ``‖v‖²`` for the coupled shift: ``v_i`` the stochastic rounding of ``δ_i``."""
    law = {}
    for v, p in _roundings(delta).items():
        n = sum(x * x for x in v)
        law[n] = law.get(n, 0) + p
    return law


@settings(max_examples=40, deadline=None)
@given(st.lists(st.fractions(Fraction(-5), Fraction(5), max_denominator=16), min_size=1, max_size=10),
       st.sampled_from([Fraction(1, 10), Fraction(1, 100), Fraction(1, 10**4)]))
def test_the_norm_bound_fails_no_more_often_than_its_failure(delta, p):
    D = Fraction(math.isqrt(math.ceil(sum(x * x for x in delta) * 10**8)) + 1, 10**4)    # >= ||delta||
    bound = coupled_shift(difference=D, dimension=len(delta), failure=p)
    top = bound.norm.upper() ** 2
    beyond = sum(q for n, q in _coupled_norms(delta).items() if n > top)
    assert beyond <= bound.failure


def test_the_coupling_is_the_stochastic_rounding_of_the_difference():
    """With shared uniforms, floor(a + w) - floor(a' + w) is the stochastic rounding of a - a' (exact, on a grid)."""
    a, b = Fraction(7, 3), Fraction(-5, 8)
    grid = [Fraction(2 * k + 1, 2 * 240) for k in range(240)]      # midpoints of 240 equal cells of (0, 1]
    law = {}
    for w in grid:
        v = math.floor(a + w) - math.floor(b + w)
        law[v] = law.get(v, 0) + Fraction(1, 240)
    assert {(v,): p for v, p in law.items()} == _roundings([a - b])


def test_a_failure_outside_zero_one_is_refused():
    with pytest.raises(InvalidOption, match="failure"):
        coupled_shift(difference=3, dimension=2, failure=0)


REACH = 60          # the noise's support kept per coordinate; sigma 6: the mass beyond is below 1e-21


def _dgauss(sigma):
    """The discrete Gaussian's law on ``[-REACH, REACH]`` (float64, from 40-digit weights) and the mass beyond."""
    with mpmath.workdps(40):
        w = [mpmath.exp(-mpmath.mpf(y * y) / (2 * sigma * sigma)) for y in range(-10 * REACH, 10 * REACH + 1)]
        z = sum(w)
        kept = w[9 * REACH: 11 * REACH + 1]
        return np.array([float(x / z) for x in kept]), float(1 - sum(kept) / z)


def _mechanism_law(updates, noise):
    """The law of ``Σ_k round(a_k) + N`` on a grid (stochastic rounding; ``N`` i.i.d. per coordinate)."""
    sums = {(0,) * len(updates[0]): Fraction(1)}
    for a in updates:
        nxt = {}
        for s, p in sums.items():
            for v, q in _roundings(a).items():
                key = tuple(x + y for x, y in zip(s, v))
                nxt[key] = nxt.get(key, 0) + p * q
        sums = nxt
    d = len(updates[0])
    cube = noise
    for _ in range(d - 1):
        cube = np.multiply.outer(cube, noise)
    span = 2 * REACH + 1 + 2 * 12                      # room for shifts up to 12 each way
    out = np.zeros((span,) * d)
    for s, p in sums.items():
        where = tuple(slice(12 + x, 12 + x + 2 * REACH + 1) for x in s)
        out[where] += float(p) * cube
    return out


def _delta(P, Q, eps):
    return float(np.clip(P - math.exp(eps) * Q, 0, None).sum())


#: (the changed client's update, its neighbour's, the other clients' updates), scaled: d = 1, 2, 3
CASES = [([Fraction(5, 2)], [Fraction(-5, 2)], [[Fraction(1, 3)]]),
         ([Fraction(9, 5), Fraction(3, 4)], [Fraction(-7, 4), Fraction(-1, 5)], [[Fraction(1, 2), Fraction(2, 3)]]),
         ([Fraction(6, 5), Fraction(1, 2), Fraction(-7, 10)], [Fraction(-1, 3), Fraction(-6, 5), Fraction(9, 10)], []),
         # rarely rounded up: the high-probability bound (norm^2 <= 10, failure 0.0049) is below the sure one
         ([Fraction(41, 20), Fraction(21, 20), Fraction(1, 20)], [0, 0, 0], [[Fraction(1, 2)] * 3])]


@pytest.mark.parametrize(("a", "b", "others"), CASES)
def test_the_whole_mechanism_lies_below_the_certified_curve(a, b, others):
    """Replace-one with two or three clients: the exact curve of the rounded, noised sum (both directions)
    against the certified epsilon from the coupled shift's sure bound ``D + sqrt(d)`` (failure 0) and
    from a high-probability bound (the exact failure of a smaller norm added to delta)."""
    sigma, d = 6, len(a)
    noise, beyond = _dgauss(sigma)
    missing = d * beyond + 1e-12                       # the mass left out, and float64's rounding, counted
    P, Q = _mechanism_law([a] + others, noise), _mechanism_law([b] + others, noise)
    if True:
        D = Fraction(math.isqrt(math.ceil(sum((x - y) ** 2 for x, y in zip(a, b)) * 10**8)) + 1, 10**4)
        sure = coupled_shift(difference=D, dimension=d, failure=Fraction(1, 10**9))
        assert sure.failure == 0                         # in so few dimensions, the sure D + sqrt(d) is the smaller
        norms = _coupled_norms([x - y for x, y in zip(a, b)])
        # a high-probability bound: the smallest norm^2 the coupled shift exceeds with probability <= 1/200
        cut = min(t for t in norms if sum(q for n, q in norms.items() if n > t) <= Fraction(1, 200))
        failure = sum(q for n, q in norms.items() if n > cut)
        checked = 0
        for target in (Fraction(1, 10), Fraction(1, 20), Fraction(1, 100), Fraction(1, 10**3)):
            for bound, p in ((sure.norm.upper(), sure.failure), (Fraction(math.isqrt(cut * 10**8) + 1, 10**4), failure)):
                if p >= target / 2:
                    continue
                eps = dominating_epsilon(sigma=sigma, sensitivity=bound, rounds=1, delta=target, dimension=d,
                                         failure=p)
                assert eps is not None
                e = float(eps.upper())
                assert _delta(P, Q, e) + missing <= target and _delta(Q, P, e) + missing <= target
                checked += 1
        assert checked >= 4 + (failure > 0)
        # and the coupling pays: the uncoupled worst case (D + 2 sqrt(d)) gives a larger epsilon, or none
        loose = dominating_epsilon(sigma=sigma, sensitivity=D + 2 * Fraction(math.isqrt(d * 10**8), 10**4),
                                   rounds=1, delta=Fraction(1, 100), dimension=d)
        tight = dominating_epsilon(sigma=sigma, sensitivity=sure.norm.upper(), rounds=1, delta=Fraction(1, 100),
                                   dimension=d)
        assert tight is not None and (loose is None or tight.upper() < loose.upper())
