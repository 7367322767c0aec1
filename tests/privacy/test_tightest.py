"""Calibration on the tightest certified bound (the privacy-loss distribution's), against the Renyi one."""

from fractions import Fraction

from itsa.privacy.accounting import Accountant
from itsa.privacy.calibration import calibrate
from itsa.privacy.events import DdgBound, DiscreteGaussianEvent, DistributedDiscreteGaussianEvent, SkellamEvent
from itsa.privacy.tight import gaussian_exact_multiplier
from itsa.privacy.tightest import calibrate_tightest, pld_epsilon

DELTA = Fraction(1, 10**6)


def _shares(sigma):           # k1000's round: 900 survivors' shares in 1290 dimensions, sensitivity 3533440
    return DistributedDiscreteGaussianEvent(sensitivity=3533440, scale=sigma, survivors=900, dimension=1290,
                                            bound=DdgBound.SHARP)


def test_the_pld_calibration_is_below_the_renyi_one_and_minimal():
    renyi = calibrate(4, DELTA, rounds=150, event_for=_shares, minimum_scale=Fraction(1, 2),
                      relative_tolerance=Fraction(1, 10**6)).noise_multiplier.upper()
    s = calibrate_tightest(_shares, epsilon=Fraction(4), delta=DELTA, rounds=150, high=renyi, low=Fraction(10**6))
    assert s < renyi * Fraction(95, 100)                     # 6 % less noise than the Renyi calibration
    assert pld_epsilon(_shares(s), rounds=150, delta=DELTA).upper() <= 4
    assert pld_epsilon(_shares(s * (1 - Fraction(1, 10**5))), rounds=150, delta=DELTA).upper() > 4
    assert Accountant().compose(_shares(s), 150).bound(DELTA).epsilon.upper() > 4     # Renyi alone misses it
    # and the multiplier is within 0.02 % of the continuous Gaussian's exact one (no discrete method is below it)
    z = s * Fraction(30) / 3533440                           # sqrt(900) = 30
    exact = gaussian_exact_multiplier(4, DELTA, 150)
    assert exact.upper() < z < exact.upper() * Fraction(10002, 10000)


def test_a_central_round_in_one_dimension_uses_the_worst_pair():
    def event(s):
        return DiscreteGaussianEvent(sigma=s, sensitivity=100)
    one = pld_epsilon(event(Fraction(1000)), rounds=10, delta=DELTA, dimension=1)
    many = pld_epsilon(event(Fraction(1000)), rounds=10, delta=DELTA, dimension=1000)
    assert one.method == "the worst pair's PLD, from above" and one.upper() < many.upper()


def test_a_central_round_needs_its_dimension_and_other_events_have_no_pld_bound():
    assert pld_epsilon(DiscreteGaussianEvent(sigma=1000, sensitivity=100), rounds=1, delta=DELTA) is None
    assert pld_epsilon(SkellamEvent(variance=10**6, sensitivity=100, dimension=10), rounds=1, delta=DELTA) is None


def test_where_no_pld_bound_meets_the_target_the_high_end_stands():
    def skellam(s):
        return SkellamEvent(variance=s * s, sensitivity=100, dimension=10)
    assert calibrate_tightest(skellam, epsilon=Fraction(1), delta=DELTA, rounds=1, high=Fraction(777),
                              low=Fraction(1)) == Fraction(777)
