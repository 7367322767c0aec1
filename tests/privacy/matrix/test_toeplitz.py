"""Banded Toeplitz and BLT mechanisms: the closed form only where its conditions hold, checked by brute force."""

import random
from fractions import Fraction

import pytest

from itsa.exceptions import InvalidOption
from itsa.privacy.matrix import blt_coefficients, blt_inverse, toeplitz, tree_mean_error
from itsa.privacy.matrix._toeplitz import _inverse
from itsa.testing.matrix_oracles import brute_matrix_sensitivity


def columns(coef, t):
    """Column j of the lower-triangular Toeplitz matrix of first column ``coef``, as a list of its T entries."""
    return [[coef[i - j] if 0 <= i - j < len(coef) else 0 for i in range(t)] for j in range(t)]


def _random_coefficients(rnd, size, monotone):
    values = [Fraction(rnd.randrange(1, 9), rnd.randrange(1, 5)) for _ in range(size)]
    if monotone:
        return sorted(values, reverse=True)
    return [v * rnd.choice((-1, 1)) for v in values]


@pytest.mark.parametrize("seed", range(12))
def test_closed_form_is_the_brute_force_where_its_conditions_hold(seed):
    rnd = random.Random(seed)
    t, e, xi = rnd.randrange(4, 10), rnd.randrange(1, 4), rnd.randrange(0, 3)
    coef = _random_coefficients(rnd, rnd.randrange(1, t + 1), monotone=True)
    r = toeplitz(coef, rounds=t, max_participations=e, min_separation=xi)
    assert r.closed_form and r.sensitivity_squared.direction == "exact"
    assert r.sensitivity_squared.high == brute_matrix_sensitivity(columns(coef, t), e, xi)[0]
    assert r.sensitivity_squared.high == brute_matrix_sensitivity(columns(coef, t), e, xi, absolute=True)[0]


@pytest.mark.parametrize("seed", range(12))
def test_elsewhere_an_interval_holding_the_brute_force(seed):
    rnd = random.Random(100 + seed)
    t, e, xi = rnd.randrange(4, 10), rnd.randrange(2, 4), rnd.randrange(0, 2)
    coef = _random_coefficients(rnd, rnd.randrange(2, t + 1), monotone=False)
    coef[0] = abs(coef[0])
    r = toeplitz(coef, rounds=t, max_participations=e, min_separation=xi)
    same_direction, _ = brute_matrix_sensitivity(columns(coef, t), e, xi)
    any_direction, _ = brute_matrix_sensitivity(columns(coef, t), e, xi, absolute=True)
    assert r.sensitivity_squared.low <= same_direction <= any_direction <= r.sensitivity_squared.high


def test_a_non_monotone_column_is_not_given_the_closed_form():
    """A column that rises again: the earliest pattern (0, 1) is not the worst ((0, 2) is), so the closed form
    would be wrong there."""
    coef = [Fraction(1), Fraction(0), Fraction(1)]
    r = toeplitz(coef, rounds=6, max_participations=2, min_separation=0)
    worst, _ = brute_matrix_sensitivity(columns(coef, 6), 2, 0)
    assert not r.closed_form and r.sensitivity_squared.direction == "upper bound"
    assert r.sensitivity_squared.low < worst <= r.sensitivity_squared.high


def test_blt_coefficients_and_inverse_are_exact():
    omega, theta = ["3/10", "1/5"], ["9/10", "1/2"]
    c, d = blt_coefficients(omega, theta, 30), blt_inverse(omega, theta, 30)
    assert c[:3] == [1, Fraction(1, 2), Fraction(37, 100)]
    assert d == _inverse(c, 30)            # the generating function's recurrence is the plain inverse


def test_blt_against_brute_force():
    omega, theta = ["1/2", "1/4"], ["1/2", "3/4"]
    t = 9
    c = blt_coefficients(omega, theta, t)
    r = toeplitz(output_scale=omega, buf_decay=theta, rounds=t, max_participations=3, min_separation=1)
    assert r.closed_form and r.sensitivity_squared.high == brute_matrix_sensitivity(columns(c, t), 3, 1)[0]


def test_blt_outside_the_conditions_is_an_upper_bound():
    r = toeplitz(output_scale=["2/3", "1/2"], buf_decay=["1/2", "1/3"], rounds=8, max_participations=2,
                 min_separation=1)
    assert not r.closed_form        # c_1 = 7/6 > c_0 = 1
    c = blt_coefficients(["2/3", "1/2"], ["1/2", "1/3"], 8)
    assert brute_matrix_sensitivity(columns(c, 8), 2, 1)[0] <= r.sensitivity_squared.high


def test_error_of_the_identity_and_of_the_prefix_matrix():
    """C = I (coefficient 1): B = A, ||A||_F^2 = T(T+1)/2; C = A (all ones): B = I, ||I||_F^2 = T."""
    r = toeplitz([1], rounds=8, max_participations=2, min_separation=3)
    assert r.sensitivity_squared.high == 2 and r.mean_error.high == 2 * Fraction(8 * 9, 2) / 8
    r = toeplitz([1] * 8, rounds=8, max_participations=1, min_separation=0)
    assert r.sensitivity_squared.high == 8 and r.mean_error.high == 8 * Fraction(8, 8)


def test_tree_mean_error_counts_the_nodes_of_each_prefix():
    assert tree_mean_error(8, 1) == Fraction(1 + 1 + 2 + 1 + 2 + 2 + 3 + 1, 8)


def test_the_tree_beside_uses_the_same_schedule():
    r = toeplitz(["1", "1/2"], rounds=2000, max_participations=6, min_separation=313)
    assert r.tree_sensitivity_squared == 79 and r.pattern == (0, 314, 628, 942, 1256, 1570)


@pytest.mark.parametrize("kwargs, words", [
    ({}, "give a banded"),
    ({"coefficients": [0, 1]}, "first not 0"),
    ({"coefficients": [1], "output_scale": [1], "buf_decay": [1]}, "give a banded"),
    ({"output_scale": [1, 2], "buf_decay": [1]}, "as many"),
])
def test_bad_input(kwargs, words):
    with pytest.raises(InvalidOption, match=words):
        toeplitz(rounds=8, max_participations=2, min_separation=1, **kwargs)


@pytest.mark.parametrize("kwargs", [{"coefficients": ["1", "1e-100000"]}, {"coefficients": ["1", "1e100000"]},
                                    {"output_scale": ["1e400"], "buf_decay": ["1/2"]},
                                    {"output_scale": ["1/2"], "buf_decay": ["1e-400"]}])
def test_a_parameter_beyond_a_doubles_range_is_refused_before_any_work(kwargs):
    """Exact products of such a parameter over T rounds grow without bound: refused in one line, at once."""
    with pytest.raises(InvalidOption, match="a magnitude outside"):
        toeplitz(**kwargs, rounds=10, max_participations=2, min_separation=1)
