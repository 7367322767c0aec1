"""The continuous Gaussian's exact multiplier (the plan's unconstrained limit), against independent computations."""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.planning import parse_deployment
from itsa.planning.mechanism import gaussian_limit
from itsa.planning.planner import noise_inputs
from itsa.privacy.tight import gaussian_exact_multiplier, gaussian_meets

#: (epsilon, delta, rounds): k1000's and cross-device's targets, and one round at the Balle-Wang scale.
TARGETS = [(Fraction(4), Fraction(1, 10**6), 150), (Fraction(8), Fraction(1, 10**7), 2000), (Fraction(1), Fraction(1, 10**5), 1)]


def _delta_60(z, epsilon, rounds) -> mpmath.mpf:
    """``δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)`` at 60 digits, ``μ = √T/z`` (Balle-Wang 2018, Thm 8)."""
    with mpmath.workdps(60):
        mu = mpmath.sqrt(rounds) / mpmath.mpf(z.numerator) * z.denominator
        e = mpmath.mpf(epsilon.numerator) / epsilon.denominator
        return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)


@pytest.mark.parametrize(("epsilon", "delta", "rounds"), TARGETS)
def test_the_enclosure_brackets_the_60_digit_crossing(epsilon, delta, rounds):
    z = gaussian_exact_multiplier(epsilon, delta, rounds)
    assert 0 < z.lower() < z.upper() <= z.lower() * (1 + Fraction(1, 2**40))
    goal = mpmath.mpf(delta.numerator) / delta.denominator
    assert _delta_60(z.upper(), epsilon, rounds) <= goal < _delta_60(z.lower(), epsilon, rounds)


@pytest.mark.parametrize(("epsilon", "delta", "rounds"), [pytest.param(*t, marks=pytest.mark.slow) for t in TARGETS[:2]]
                         + [TARGETS[2], (Fraction(2), Fraction(1, 10**6), 10)])
def test_dp_accounting_pld_calibrates_the_same_multiplier(epsilon, delta, rounds):
    """dp-accounting's PLD accountant, calibrated by its own search, agrees to its discretisation."""
    dpa = pytest.importorskip("dp_accounting")
    theirs = dpa.mechanism_calibration.calibrate_dp_mechanism(
        dpa.pld.PLDAccountant, lambda z: dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(z), rounds),
        float(epsilon), float(delta), dpa.mechanism_calibration.ExplicitBracketInterval(1.0, 100.0), tol=1e-6)
    assert float(gaussian_exact_multiplier(epsilon, delta, rounds).upper()) == pytest.approx(theirs, rel=2e-3)


def test_the_issue_s_true_ratios_are_reproduced_at_the_rdp_calibration():
    """The RDP-calibrated Gaussian's variance over the exact one's: k1000 1.128, cross-device 1.103 (which
    with the printed 1.721 is the 1.90 of the issue)."""
    from itsa.planning.mechanism import gaussian_multiplier
    ratios = [(gaussian_multiplier(*t) / gaussian_exact_multiplier(*t).lower()) ** 2 for t in TARGETS[:2]]
    assert [round(float(r), 3) for r in ratios] == [1.128, 1.103]


@settings(max_examples=15, deadline=None)
@given(st.fractions(Fraction(1, 10), Fraction(20)), st.integers(1, 10**4), st.integers(2, 12))
def test_the_upper_end_meets_and_the_lower_end_does_not(epsilon, rounds, digits):
    delta = Fraction(1, 10**digits)
    z = gaussian_exact_multiplier(epsilon, delta, rounds)
    assert gaussian_meets(z.upper(), epsilon, delta, rounds)
    assert not gaussian_meets(z.lower(), epsilon, delta, rounds)


def test_a_non_positive_epsilon_is_refused():
    with pytest.raises(InvalidOption, match="epsilon"):
        gaussian_exact_multiplier(0, "1e-5")


def test_the_plan_s_limit_is_the_exact_gaussian_s_mse():
    d = parse_deployment({"clients": 100, "dropout": "1/10", "dimension": 10, "clip": 2, "noise": "central",
                          "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10}, "encoding": {"word_bits": 32}})
    z, mse = gaussian_limit(noise_inputs(d))
    assert z == gaussian_exact_multiplier(2, Fraction(1, 10**6), 10).lower()
    assert mse == 10 * (z * 2 * 2 / 90) ** 2          # replace-one: c = 2; S = 2; the fewest 90 survivors
