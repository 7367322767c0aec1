"""The certified PLD bracket: against brute force, dp-accounting's PLD, the exact Gaussian curve and the RDP bound."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import Certified, Direction, to_arb
from itsa.exceptions import InvalidOption
from itsa.privacy.pld import EpsilonBracket, epsilon_bracket, pair_delta, pair_epsilon
from itsa.privacy.tight import gaussian_tight_epsilon

# k1000 (itsa plan k1000): 900 survivors, sigma per share 1085480, sensitivity 2097187.9166, 150 rounds, delta 1e-6
K1000: dict[str, Any] = {"sigma": 1085480, "survivors": 900, "sensitivity": Fraction("2097187.91656999215"), "rounds": 150,
         "delta": "1e-6", "dimension": 1290}
# the cross-device plan (10,000 clients, 30 % dropout, d = 1.2M, clip 1, eps 8 at delta 1e-7, 2,000 rounds, 20 bits)
CROSS_DEVICE: dict[str, Any] = {"sigma": Fraction(444463, 1000), "survivors": 7000, "sensitivity": Fraction("1127.44511501033225"),
                "rounds": 2000, "delta": "1e-7", "dimension": 1_200_000}


def _dg(sigma: float, reach: int) -> np.ndarray:
    x = np.arange(-reach, reach + 1)
    p = np.exp(-x.astype(float) ** 2 / (2 * sigma**2))
    return p / p.sum()


def _brute_delta(law: np.ndarray, shift: int, rounds: int, eps: float) -> float:
    """``Σ_x⃗ (P(x⃗) − e^ε Q(x⃗))₊`` over every x⃗ of the (padded) support: no linearity, no PLD."""
    p = np.concatenate([law, np.zeros(shift)])
    q = np.concatenate([np.zeros(shift), law])
    joint_p, joint_q = p, q
    for _ in range(rounds - 1):
        joint_p, joint_q = np.multiply.outer(joint_p, p), np.multiply.outer(joint_q, q)
    return float(np.maximum(joint_p - math.exp(eps) * joint_q, 0).sum())


def _brute_epsilon(law: np.ndarray, shift: int, rounds: int, delta: float) -> float:
    low, high = 0.0, 50.0
    for _ in range(42):
        mid = (low + high) / 2
        low, high = (mid, high) if _brute_delta(law, shift, rounds, mid) > delta else (low, mid)
    return high


@pytest.mark.parametrize(("sigma", "survivors", "shift", "rounds"), [(5, 1, 4, 3), (4, 1, 7, 2), (6, 2, 5, 2)])
def test_bracket_holds_the_brute_force_epsilon(sigma, survivors, shift, rounds):
    law = _dg(sigma, 10 * sigma)
    for _ in range(survivors - 1):
        law = np.convolve(law, _dg(sigma, 10 * sigma))
    exact = _brute_epsilon(law, shift, rounds, 1e-3)
    low = float(pair_epsilon("1e-3", sigma=sigma, shift=shift, survivors=survivors, rounds=rounds))
    high = float(pair_epsilon("1e-3", sigma=sigma, shift=shift, survivors=survivors, rounds=rounds, side="upper"))
    assert low <= exact + 1e-9 <= high + 2e-9
    assert high - low < 0.02 * exact           # and the bracket is tight


@pytest.mark.parametrize("eps", [0, Fraction(1, 2), 2])
def test_delta_bounds_bracket_brute_force(eps):
    law = _dg(3, 40)
    exact = _brute_delta(law, 2, 3, float(eps))
    low = pair_delta(eps, sigma=3, shift=2, rounds=3)
    high = pair_delta(eps, sigma=3, shift=2, rounds=3, side="upper")
    assert float(low.lower()) <= exact * (1 + 1e-12) and exact <= float(high.upper()) * (1 + 1e-12)


def test_k1000_lower_bound_against_dp_accounting_and_rdp():
    dpa = pytest.importorskip("dp_accounting")
    b = epsilon_bracket(**K1000)
    assert isinstance(b, EpsilonBracket) and b.epsilon_lower.direction is Direction.LOWER
    z = float(Fraction(K1000["sigma"]) * 30 / b.shift)        # sqrt(900) = 30: the pair's noise multiplier
    acc = dpa.pld.PLDAccountant()
    acc.compose(dpa.GaussianDpEvent(z), K1000["rounds"])
    theirs = acc.get_epsilon(1e-6)
    lower = float(b.epsilon_lower.lower())
    assert lower <= theirs + 1e-3                   # their pessimistic grid of 1e-4 per round, float noise
    assert lower >= theirs - 1e-3
    assert b.rdp_upper is not None and not b.worst_pair_proven
    assert b.epsilon_lower.lower() <= b.epsilon_upper.upper() < b.rdp_upper.upper()
    assert Fraction(107, 100) < b.rdp_upper.upper() / b.epsilon_lower.lower() < Fraction(1071, 1000)   # RDP alone
    assert b.upper_method == "dominating" and b.ratio.upper() < Fraction(100001, 100000)


def test_cross_device_against_the_exact_gaussian_curve():
    b = epsilon_bracket(**CROSS_DEVICE)
    with_shift = gaussian_tight_epsilon(to_arb(CROSS_DEVICE["sigma"]) * to_arb(7000).sqrt() / b.shift, 2000, "1e-7")
    assert abs(b.epsilon_lower.lower() - with_shift.upper()) < Fraction(1, 10**4)
    assert b.pair_upper.direction is Direction.CONDITIONAL           # not claimed as a bound in d > 1
    assert b.epsilon_lower.lower() <= b.epsilon_upper.upper() < 8
    assert b.upper_method == "dominating" and b.ratio.upper() < Fraction(1005, 1000)       # the goal: <= 1.05


def test_one_dimension_uses_the_pair_upper_bound():
    b = epsilon_bracket(sigma=2000, sensitivity=Fraction(1001, 2), rounds=50, delta="1e-6", dimension=1)
    assert b.shift == 500 and b.worst_pair_proven and b.upper_method == "pld"
    assert b.pair_upper.direction is Direction.UPPER
    assert b.ratio.upper() < Fraction(10001, 10000)
    assert b.rdp_upper is not None and b.epsilon_upper.upper() < b.rdp_upper.upper()
    data = b.to_dict()
    assert data["upper_method"] == "pld" and data["epsilon_lower"]["direction"] == "lower bound"
    assert "lower bound" in b.summary()


def test_a_given_upper_bound_is_used_when_smaller():
    first = epsilon_bracket(sigma=2000, sensitivity=500, rounds=50, delta="1e-6", dimension=10)
    given = Certified("epsilon", first.epsilon_lower.lower() * 2, first.epsilon_upper.upper(), Direction.UPPER, "x")
    b = epsilon_bracket(sigma=2000, sensitivity=500, rounds=50, delta="1e-6", dimension=10, upper=given)
    assert b.upper_method == "given" and b.epsilon_upper == given and b.rdp_upper == given


@pytest.mark.parametrize("bad", [{"shift": 501}, {"shift": 0}, {"delta": 1}, {"rounds": 0}, {"sigma": 0}])
def test_bad_inputs_are_refused(bad):
    args = {"sigma": 2000, "sensitivity": 500, "rounds": 5, "delta": "1e-6"} | bad
    with pytest.raises(InvalidOption):
        epsilon_bracket(**args)


@settings(max_examples=15, deadline=None)
@given(sigma=st.integers(8, 400), shift=st.integers(1, 60), rounds=st.integers(1, 40),
       survivors=st.sampled_from([1, 1, 3]), exponent=st.integers(2, 9))
def test_lower_never_above_upper(sigma, shift, rounds, survivors, exponent):
    delta = Fraction(1, 10**exponent)
    low = pair_epsilon(delta, sigma=sigma, shift=shift, survivors=survivors, rounds=rounds)
    high = pair_epsilon(delta, sigma=sigma, shift=shift, survivors=survivors, rounds=rounds, side="upper")
    assert 0 <= low <= high
    eps = (low + high) / 2
    assert pair_delta(eps, sigma=sigma, shift=shift, survivors=survivors, rounds=rounds).lower() <= \
        pair_delta(eps, sigma=sigma, shift=shift, survivors=survivors, rounds=rounds, side="upper").upper()
