"""Coupled conditional rounding, against exact enumeration: one attempt's rejection below its bound, the two
neighbours' mismatch below ``2r/(1 - r)``, the coupled shift's failure over the retries below ``p E[tau]``, and
the whole mechanism's privacy curve (two or three clients' conditionally rounded updates plus a discrete
Gaussian, d = 2, 3, both orders) below the certified one at every target tried."""

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from itsa.privacy.coupled import conditional_shift
from itsa.privacy.lattice import dominating_epsilon, mixture_epsilon
from itsa.privacy.neighbours import Rounding, conditional_rejection, rounded_norm
from tests.privacy.test_coupled import _delta, _dgauss, _mechanism_law


def _cap(clip, d, beta):
    """The squared-norm cap an attempt is tested against: the lower end of the plan's bound, squared."""
    return rounded_norm(gamma=1, clip=clip, dimension=d, rounding=Rounding.CONDITIONAL, beta=beta).lower() ** 2


def _attempt(a, b):
    """One attempt's exact joint law for the two neighbours with a shared uniform ``w``: ``{(u, u'): probability}``,
    ``u = floor(a + w)``, ``u' = floor(b + w)`` coordinatewise (``w`` uniform on (0, 1])."""
    per = []
    for x, y in zip(a, b):
        cuts = sorted({Fraction(0), 1 - (x - math.floor(x)), 1 - (y - math.floor(y)), Fraction(1)})
        cells = []
        for lo, hi in zip(cuts, cuts[1:]):
            w = (lo + hi) / 2
            cells.append(((math.floor(x + w), math.floor(y + w)), hi - lo))
        per.append(cells)
    law = {}
    for combo in itertools.product(*per):
        key = (tuple(c[0][0] for c in combo), tuple(c[0][1] for c in combo))
        law[key] = law.get(key, 0) + math.prod(c[1] for c in combo)
    return law


def _norm2(v):
    return sum(x * x for x in v)


def _coupling(a, b, cap):
    """Exactly, under the shared sequence of uniforms: the rejection probabilities ``r_a``, ``r_b``, ``P(τ ≠ τ')``,
    and the law of the shift ``v = u − u'`` on ``{τ = τ'}`` (``{v: P(τ = τ', v)}``), and the uncoupled attempt's
    law of ``v`` (``{v: P(v(w) = v)}``)."""
    law = _attempt(a, b)
    r_a = sum(p for (u, _), p in law.items() if _norm2(u) > cap)
    r_b = sum(p for (_, u), p in law.items() if _norm2(u) > cap)
    both = sum(p for (u, w), p in law.items() if _norm2(u) > cap and _norm2(w) > cap)
    one = sum(p for (u, w), p in law.items() if (_norm2(u) > cap) != (_norm2(w) > cap))
    same, raw = {}, {}
    for (u, w), p in law.items():
        v = tuple(x - y for x, y in zip(u, w))
        raw[v] = raw.get(v, 0) + p
        if _norm2(u) <= cap and _norm2(w) <= cap:
            same[v] = same.get(v, 0) + p / (1 - both)          # Σ_t both^(t-1) P(both accept, v)
    return r_a, r_b, one / (1 - both), same, raw


coordinates = st.fractions(Fraction(-3), Fraction(3), max_denominator=10)
betas = st.sampled_from(["1/2", "9/10", "1/10", "exp(-1/2)", "exp(-2)", "exp(-5)"])


@settings(max_examples=60, deadline=None)
@given(st.lists(coordinates, min_size=1, max_size=5), st.integers(0, 3), betas)
def test_one_attempt_is_rejected_no_more_often_than_its_bound(a, slack, beta):
    clip = Fraction(math.isqrt(math.ceil(_norm2(a) * 10**6)) + 1 + slack * 300, 1000)     # >= ||a||
    d, cap = len(a), _cap(clip, len(a), beta)
    rejected = sum(p for (u, _), p in _attempt(a, a).items() if _norm2(u) > cap)
    assert rejected <= conditional_rejection(gamma=1, clip=clip, dimension=d, beta=beta)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(coordinates, coordinates), min_size=1, max_size=4), betas, st.booleans())
def test_the_neighbours_accept_different_attempts_no_more_often_than_the_mismatch(pairs, beta, remove):
    a = [x for x, _ in pairs]
    b = [Fraction(0)] * len(a) if remove else [y for _, y in pairs]       # add-remove: the absent update is 0
    d = len(a)
    clip = Fraction(math.isqrt(math.ceil(max(_norm2(a), _norm2(b)) * 10**6)) + 1, 1000)
    cap = _cap(clip, d, beta)
    r_a, r_b, mismatch, same, raw = _coupling(a, b, cap)
    assume(r_a < 1 and r_b < 1)
    assert mismatch <= (r_a + r_b) / (1 - min(r_a, r_b))
    shift = conditional_shift(gamma=1, clip=clip, dimension=d, beta=beta,
                              adjacency="add-remove" if remove else "replace-one", failure=Fraction(1, 10**6))
    assert mismatch <= shift.mismatch
    # on {tau = tau'}: the shift exceeds any norm no more often than one attempt's coupled shift, times E[tau]
    for t in {_norm2(v) for v in raw}:
        beyond = sum(p for v, p in same.items() if _norm2(v) > t)
        assert beyond <= sum(p for v, p in raw.items() if _norm2(v) > t) / (1 - r_a)
    # the shift where both accept the same attempt is within the sure bound D + sqrt(d')
    assert all(_norm2(v) < shift.norm.upper() ** 2 for v in same)


def _conditional(a, cap):
    """The exact law of the accepted conditional rounding of ``a``: ``{u: probability}``."""
    law = {u: p for (u, _), p in _attempt(a, a).items() if _norm2(u) <= cap}
    accepted = sum(law.values())
    return {u: p / accepted for u, p in law.items()}


def _law(updates, cap, noise):
    """The law of ``Σ_k cround(a_k) + N`` on a grid, through the stochastic helper's (its rounding laws replaced
    by the accepted ones: each client's a point mass at each accepted outcome, mixed)."""
    sums = {(0,) * len(updates[0]): Fraction(1)}
    for a in updates:
        nxt = {}
        for s, p in sums.items():
            for u, q in _conditional(a, cap).items():
                key = tuple(x + y for x, y in zip(s, u))
                nxt[key] = nxt.get(key, 0) + p * q
        sums = nxt
    total = None
    for s, p in sums.items():        # each sum as the stochastic helper's law of one integer "update"
        part = float(p) * _mechanism_law([[Fraction(x) for x in s]], noise)
        total = part if total is None else total + part
    return total


#: (the changed client's update, its neighbour's, the other clients' updates, clip, beta): rejections happen
CASES = [([Fraction(3, 2), Fraction(6, 5)], [Fraction(-7, 5), Fraction(-4, 5)], [[Fraction(1, 2), Fraction(2, 3)]],
          Fraction(2), "exp(-1/2)"),
         ([Fraction(3, 2), Fraction(6, 5), Fraction(2, 5)], [Fraction(-1, 3), Fraction(-6, 5), Fraction(9, 10)], [],
          Fraction(2), "exp(-1)"),
         ([Fraction(11, 10), Fraction(11, 10), Fraction(11, 10)], [0, 0, 0], [[Fraction(1, 2)] * 3],
          Fraction(2), "exp(-3)")]


@pytest.mark.parametrize(("a", "b", "others", "clip", "beta"), CASES)
def test_the_whole_conditional_mechanism_lies_below_the_certified_curve(a, b, others, clip, beta):
    """The exact curve of the conditionally rounded, noised sum (both directions) against the certified epsilon
    from the coupled shift's sure bound ``D + sqrt(d)`` and from a high-probability one, each with the failure
    the proof charges: ``P(τ ≠ τ') + P(τ = τ', ‖v‖ > B)``, computed exactly."""
    sigma, d = 6, len(a)
    cap = _cap(clip, d, beta)
    noise, beyond = _dgauss(sigma)
    missing = d * beyond + 1e-12
    P, Q = _law([a] + others, cap, noise), _law([b] + others, cap, noise)
    r_a, r_b, mismatch, same, _ = _coupling(a, b, cap)
    assert r_a > 0 or r_b > 0                            # the retries matter here
    D = Fraction(math.isqrt(math.ceil(_norm2([x - y for x, y in zip(a, b)]) * 10**8)) + 1, 10**4)
    sure = D + Fraction(math.isqrt(d * 10**8) + 1, 10**4)
    norms = sorted({_norm2(v) for v in same})
    cut = next(t for t in norms if sum(p for v, p in same.items() if _norm2(v) > t) <= Fraction(1, 50))
    checked = 0
    for target in (Fraction(3, 10), Fraction(1, 5), Fraction(1, 10)):
        for bound in (sure, Fraction(math.isqrt(cut * 10**8) + 1, 10**4)):
            failure = mismatch + sum(p for v, p in same.items() if _norm2(v) > bound**2)
            if failure >= target / 2:
                continue
            eps = dominating_epsilon(sigma=sigma, sensitivity=bound, rounds=1, delta=target, dimension=d,
                                     failure=failure)
            assert eps is not None
            e = float(eps.upper())
            assert _delta(P, Q, e) + missing <= target and _delta(Q, P, e) + missing <= target
            checked += 1
    assert checked >= 2
    # the certified chain alone (beta's rejection bound, no exact number): the slack form and the mixture form
    remove = all(y == 0 for y in b)
    shift = conditional_shift(gamma=1, clip=clip, dimension=d, beta=beta,
                              adjacency="add-remove" if remove else "replace-one", failure=Fraction(1, 10**4))
    far = (1 if remove else 2) * rounded_norm(gamma=1, clip=clip, dimension=d, rounding=Rounding.CONDITIONAL,
                                              beta=beta).upper()
    for target in (Fraction(1, 2), Fraction(3, 10), Fraction(1, 10)):
        found = [mixture_epsilon(sigma=sigma, near=shift.norm.upper(), far=far, weight=shift.mismatch, rounds=1,
                                 delta=target, dimension=d, failure=shift.failure - shift.mismatch)]
        if shift.failure < target / 2:
            found.append(dominating_epsilon(sigma=sigma, sensitivity=shift.norm.upper(), rounds=1, delta=target,
                                            dimension=d, failure=shift.failure))
        for eps in found:
            assert eps is not None
            e = float(eps.upper())
            assert _delta(P, Q, e) + missing <= target and _delta(Q, P, e) + missing <= target
            checked += 1
    assert checked >= 5
