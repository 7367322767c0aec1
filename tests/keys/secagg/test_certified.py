"""The finder's bounds in exact and ball arithmetic: the same decisions, and the one rule that fails its own bound."""

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from itsa.exceptions import Infeasible, InvalidOption
from itsa.keys.secagg import secagg_bounds, secagg_parameters
from itsa.keys.secagg.certified import (
    CORRECTNESS_TARGET,
    certified_parameters,
    counts,
    disconnection_interval,
    exact_disconnection,
    hypergeometric_tail,
    tail_interval,
)
from itsa.keys.secagg.finder import harary_graph_parameters
from tests.keys.secagg.test_finder import FEASIBLE

#: Rows whose exact search takes over a second (large n at rates near the limit): run with -m slow.
HEAVY = {(n, g, d, a) for n, g, d, a, *_ in FEASIBLE if n >= 10_000 and g + d >= 0.6}


@pytest.mark.parametrize("n, gamma, delta, adversary, degree, threshold",
                         [row for row in FEASIBLE if row[:4] not in HEAVY])
def test_exact_arithmetic_takes_every_published_decision(n, gamma, delta, adversary, degree, threshold):
    assert certified_parameters(n, Fraction(str(gamma)), Fraction(str(delta)), adversary) == (degree, threshold)


@pytest.mark.slow
@pytest.mark.parametrize("n, gamma, delta, adversary, degree, threshold",
                         [row for row in FEASIBLE if row[:4] in HEAVY])
def test_exact_arithmetic_takes_the_heavy_published_decisions(n, gamma, delta, adversary, degree, threshold):
    assert certified_parameters(n, Fraction(str(gamma)), Fraction(str(delta)), adversary) == (degree, threshold)


RATES = st.sampled_from(["0", "0.01", "0.05", "0.1", "0.2", "0.3", "0.33"])


@given(n=st.integers(4, 400), gamma=RATES, delta=RATES,
       adversary=st.sampled_from(["semi-honest", "semi-malicious", "none"]))
def test_random_points_agree_with_the_reproduction(n, gamma, delta, adversary):
    try:
        expected = harary_graph_parameters(n, float(gamma), float(delta), adversary)
    except (InvalidOption, Infeasible) as exc:
        expected = type(exc)
    try:
        got = certified_parameters(n, Fraction(gamma), Fraction(delta), adversary)
    except Infeasible:
        got = Infeasible
    if expected is not InvalidOption:
        assert got == expected


@given(total=st.integers(1, 60), data=st.data())
def test_the_ball_tail_encloses_the_exact_tail(total, data):
    marked = data.draw(st.integers(0, total))
    sampled = data.draw(st.integers(0, total))
    x = data.draw(st.integers(-1, sampled + 1))
    upper = data.draw(st.booleans())
    exact = hypergeometric_tail(total, marked, sampled, x, upper)
    low, high = tail_interval(total, marked, sampled, x, upper, bits=96)
    assert low <= exact <= high
    assert high - low <= Fraction(1, 2**20) * max(exact, Fraction(1, 2**60)) + Fraction(1, 2**80)


def test_a_tail_by_hand():
    # Hyp(10, 3, 4): Pr[X >= 2] = (C(3,2) C(7,2) + C(3,3) C(7,1)) / C(10,4) = (63 + 7) / 210
    assert hypergeometric_tail(10, 3, 4, 2, upper=True) == Fraction(1, 3)
    assert hypergeometric_tail(10, 3, 4, 1, upper=False) == Fraction(35 + 105, 210)


def test_the_disconnection_bound_by_hand_and_as_a_ball():
    # n = 20, k = 4, B = 6: 20 * 15 / 2 * (6 * 5 * 4 * 3) / (20 * 19 * 18 * 17)
    c = counts(20, Fraction(1, 10), Fraction(1, 5))
    assert exact_disconnection(c, 4) == Fraction(150 * 360, 116280)
    low, high = disconnection_interval(20, 4, c.bad, bits=96)
    assert low <= exact_disconnection(c, 4) <= high and low < high
    assert disconnection_interval(20, 19, c.bad) == (0, 0)          # the full graph never disconnects


def test_the_finder_raises_the_threshold_after_the_correctness_test():
    # n = 10, corrupt 0.05, dropout 0.33: the finder tests t = 1 at k = 4, then returns t = 2, whose
    # correctness bound is n Pr[Z <= 1] = 10 * 7/210 = 1/3, far above 2^-20 (its own model)
    assert harary_graph_parameters(10, 0.05, 0.33, "semi-honest") == (4, 2)
    bounds = secagg_bounds(10, 4, 2, "0.05", "0.33")
    assert bounds.correctness.low == bounds.correctness.high == Fraction(1, 3)
    assert not bounds.meets_targets and Fraction(1, 3) > CORRECTNESS_TARGET
    p = secagg_parameters(10, "0.05", "0.33")
    assert (p.degree, p.threshold, p.reproduction, p.agrees) == (6, 2, (4, 2), False)
    assert p.bounds.meets_targets


@given(n=st.integers(2, 60), data=st.data())
def test_the_correctness_union_is_the_per_client_union(n, data):
    # a client survives with probability S/n: n Pr[Hyp(n, S, k) <= x] is exactly the sum of the
    # survivors' S Pr[Hyp(n-1, S-1, k) <= x] and the dropped clients' (n-S) Pr[Hyp(n-1, S, k) <= x]
    s, k = data.draw(st.integers(1, n)), data.draw(st.integers(1, n - 1))
    x = data.draw(st.integers(-1, k))
    assert n * hypergeometric_tail(n, s, k, x, False) == (
        s * hypergeometric_tail(n - 1, s - 1, k, x, False) + (n - s) * hypergeometric_tail(n - 1, s, k, x, False))


@given(n=st.integers(3, 80), data=st.data())
def test_the_per_client_security_bound_is_tighter(n, data):
    # the finder's n Pr[Hyp(n, A, k) >= e] = (n-A) Pr[Hyp(n-1, A, k) >= e] + A Pr[Hyp(n-1, A-1, k) >= e]:
    # it also counts the corrupt clients, which the per-client bound leaves out
    gamma = Fraction(data.draw(st.integers(0, 45)), 100)
    half = data.draw(st.integers(1, max(1, (n - 2) // 2)))
    degree = n - 1 if 2 * half >= n - 1 else 2 * half
    threshold = data.draw(st.integers(1, degree))
    b = secagg_bounds(n, degree, threshold, gamma, "0")
    assert b.security_per_client.high <= b.security.high
    a, e = math.floor(gamma * n), threshold
    assert n * hypergeometric_tail(n, a, degree, e, True) == (
        (n - a) * hypergeometric_tail(n - 1, a, degree, e, True)
        + a * hypergeometric_tail(n - 1, max(a - 1, 0), degree, e, True) * (a > 0))
