"""itsa's certified accountant against Google's dp-accounting (the crosscheck extra), where installed."""

import math
from fractions import Fraction

import pytest

from itsa.privacy import Conversion, classical_sigma, gaussian_curve, to_epsilon
from itsa.privacy.tight import dp_accounting_epsilon, gaussian_tight_epsilon

pytest.importorskip("dp_accounting")

DELTA = Fraction(1, 10**5)
#: Table I of the PCU-FL paper (per-round eps, rounds), via the explainer page.
ROWS = [(50, 30), (10, 40), (1, 100)]
CASES = [(float(classical_sigma(e, DELTA).value()), t) for e, t in ROWS] + [(1.0, 1), (0.7, 1000), (3.0, 10)]


@pytest.mark.parametrize(("z", "rounds"), CASES)
def test_cks_matches_dp_accounting_rdp_on_its_orders(z, rounds):
    """Same conversion (CKS / Balle et al. 2020), same orders: the same epsilon to float precision."""
    from dp_accounting.rdp import RdpAccountant

    orders = [float(q) for q in RdpAccountant()._orders]
    theirs = dp_accounting_epsilon(z, rounds, float(DELTA), orders=orders)
    ours = to_epsilon(gaussian_curve(Fraction(z)) * rounds, DELTA, Conversion.CKS, orders=orders)
    assert float(ours.epsilon.upper()) == pytest.approx(theirs, rel=1e-9)


@pytest.mark.parametrize(("z", "rounds"), CASES)
def test_optimised_order_is_no_worse_than_dp_accounting(z, rounds):
    theirs = dp_accounting_epsilon(z, rounds, float(DELTA))
    ours = to_epsilon(gaussian_curve(Fraction(z)) * rounds, DELTA, Conversion.CKS)
    assert float(ours.epsilon.upper()) <= theirs * (1 + 1e-9)


#: The PLD accountant takes a minute at eps ~ 1,800; it is compared where it is quick.
PLD_CASES = [CASES[2], (1.0, 1), (3.0, 10)]


@pytest.mark.parametrize(("z", "rounds"), PLD_CASES)
def test_tight_curve_against_pld(z, rounds):
    """The certified exact Gaussian curve sits below dp-accounting's PLD (pessimistic) and close to it."""
    tight = gaussian_tight_epsilon(Fraction(z), rounds, DELTA)
    pld = dp_accounting_epsilon(z, rounds, float(DELTA), accountant="pld")
    assert float(tight.lower()) <= pld * (1 + 1e-6)
    assert pld == pytest.approx(float(tight.upper()), rel=2e-2, abs=1e-2)
    rdp = to_epsilon(gaussian_curve(Fraction(z)) * rounds, DELTA, Conversion.CKS)
    assert tight.upper() <= rdp.epsilon.upper()


def test_sqrt_rounds_is_below_the_exact_epsilon():
    """Table I's strong row: eps sqrt(T) = 10.00, yet the exact epsilon of 100 rounds at z = 4.8448 is above 10."""
    tight = gaussian_tight_epsilon(classical_sigma(1, DELTA).value(), 100, DELTA)
    assert tight.lower() > 10 and math.isclose(float(tight.upper()), 10.39, abs_tol=0.01)
