"""The accountant interface: compose events, ask ε for δ; the registry; the float order search certified at one order."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import Direction, Provenance
from itsa.exceptions import InvalidOption
from itsa.privacy import (
    ACCOUNTANTS,
    Accountant,
    CksAccountant,
    Conversion,
    GaussianEvent,
    MironovAccountant,
    account,
    convert_at,
    gaussian_curve,
    to_epsilon,
)
from itsa.privacy.conversion import optimal_order

DELTA = Fraction(1, 10**5)


def test_the_registry_holds_one_class_per_accountant_in_order():
    assert list(ACCOUNTANTS) == ["mironov", "cks", "tight", "basic", "advanced", "sqrt_rounds_heuristic"]
    assert all(issubclass(cls, Accountant) and cls.name == name for name, cls in ACCOUNTANTS.items())


def test_account_asks_the_registry_and_only_the_accountants_named():
    full = account("0.0969", 30, DELTA)
    assert list(full.entries) == list(ACCOUNTANTS)
    few = account("0.0969", 30, DELTA, accountants=["cks", "tight"])
    assert list(few.entries) == ["cks", "tight"] and few.entries["cks"].epsilon == full.entries["cks"].epsilon
    assert few.to_dict()["inputs"]["accountants"] == ["cks", "tight"]
    with pytest.raises(InvalidOption, match="accountant"):
        account("1", 1, DELTA, accountants=["nonesuch"])


def test_composing_events_is_composing_rounds():
    """Page golden: T = 30 rounds at z = 0.0969 give cks eps 1866 (4 digits), however the rounds are composed."""
    once = CksAccountant().compose(GaussianEvent("0.0969", 30)).epsilon(DELTA)
    split = CksAccountant().compose(GaussianEvent("0.0969", 10)).compose(GaussianEvent("0.0969", 10), count=2)
    assert once.epsilon.decimal(4) == "1866" and split.epsilon(DELTA).epsilon.decimal(12) == once.epsilon.decimal(12)


def test_rdp_accountants_compose_mixed_noise_others_refuse():
    acc = MironovAccountant().compose(GaussianEvent(1, 5)).compose(GaussianEvent(2, 20))
    # 5/(2 * 1) + 20/(2 * 4) = 5: eps(q) = 5 q, Mironov at its optimum 5 + 2 sqrt(5 ln 1e5) (above by the float order)
    optimum = 5 + 2 * math.sqrt(5 * math.log(1e5))
    assert optimum <= float(acc.epsilon(DELTA).epsilon.upper()) <= optimum * (1 + 1e-9)
    tight = ACCOUNTANTS["tight"]().compose(GaussianEvent(1, 5)).compose(GaussianEvent(2, 20))
    with pytest.raises(InvalidOption, match="one noise multiplier"):
        tight.epsilon(DELTA)


def test_provenance_is_data_not_parsed_text():
    eps = account("4.8448", 1, DELTA, per_round="classical").per_round
    assert isinstance(eps.method, Provenance) and eps.direction is Direction.UPPER
    assert eps.method.steps[-1] == "certified by the exact Gaussian curve at T = 1"
    assert "eps >= 1" not in str(eps.method)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-3, 1e3), st.integers(1, 10**6), st.sampled_from([Fraction(1, 10**k) for k in (3, 5, 9, 30)]))
def test_the_float_order_is_as_good_as_a_fine_grid(z, rounds, delta):
    """The order picked is the optimum of the float objective: no grid order certifies a smaller eps (to 1e-9)."""
    curve = gaussian_curve(Fraction(z)) * rounds
    bound = to_epsilon(curve, delta, Conversion.CKS)
    grid = [1 + Fraction(k, 64) for k in range(1, 64)] + [Fraction(k, 4) for k in range(5, 4000)]
    best = to_epsilon(curve, delta, Conversion.CKS, orders=grid).epsilon.upper()
    assert bound.epsilon.upper() <= best * (1 + Fraction(1, 10**9)) + Fraction(1, 10**12)


def test_the_certified_value_is_the_ball_at_the_chosen_order():
    curve = gaussian_curve("0.5") * 7
    bound = to_epsilon(curve, DELTA, "cks")
    ball = convert_at(curve.coefficient(), bound.order, DELTA, Conversion.CKS)
    assert bound.epsilon.upper() >= float(ball.mid()) and bound.order == optimal_order(
        float(curve.coefficient().upper()), DELTA, Conversion.CKS)
