"""The one margin search with noise as a parameter: no noise is its special case; an exact noise law is exact."""

from fractions import Fraction
from itertools import product

import pytest

from itsa.modular import DigitLaw, ExactNoise, NoMargin, SubGaussianNoise, smallest_margin, sum_law

POINT = DigitLaw.parse("1")                      # a point mass at 0
STEP = DigitLaw.parse("1/4,1/2,1/4")


def brute_carry(clients: int, radix: int, noise: DigitLaw, half: int) -> Fraction:
    """``P[|S + N| > half]`` by enumerating every digit pattern and noise value."""
    digits = range(-(radix // 2), radix // 2 + 1)
    out = Fraction(0)
    for pattern in product(digits, repeat=clients):
        for n, w in zip(noise.values, noise.weights):
            if abs(sum(pattern) + n) > half:
                out += w / radix**clients
    return out


@pytest.mark.parametrize("clients", [3, 8, 100, 1000])
def test_without_noise_every_noise_parameter_gives_the_noise_free_margin(clients):
    plain = smallest_margin(clients, radix=3, layers=4, carry=Fraction(1, 1000))
    for noise in (SubGaussianNoise(proxy=Fraction(0)), ExactNoise(law=POINT)):
        with_noise = smallest_margin(clients, radix=3, layers=4, carry=Fraction(1, 1000), noise=noise)
        assert with_noise.margin == plain.margin
        assert with_noise.carry_probability.high == plain.carry_probability.high


@pytest.mark.parametrize("clients,half", [(3, 0), (3, 1), (4, 2), (5, 3)])
def test_an_exact_noise_law_gives_the_exact_carry(clients, half):
    got = ExactNoise(law=STEP).carry(sum_law(DigitLaw.uniform(3), clients), half)
    assert got.low == got.high == brute_carry(clients, 3, STEP, half)


def test_the_certified_engine_encloses_the_exact_noisy_carry():
    exact = ExactNoise(law=STEP).carry(sum_law(DigitLaw.uniform(3), 40), 6)
    cert = ExactNoise(law=STEP).carry(sum_law(DigitLaw.uniform(3), 40, arithmetic="certified"), 6)
    assert cert.low <= exact.high <= cert.high and cert.high - cert.low < Fraction(1, 10**30)


def test_the_sub_gaussian_bound_lies_above_the_exact_carry_of_a_bounded_noise():
    """Uniform noise on {-1, 0, 1} is 1-sub-Gaussian (Hoeffding): the bound may not fall below the exact value."""
    law = sum_law(DigitLaw.uniform(3), 30)
    for half in range(0, 30, 3):
        bound = SubGaussianNoise(proxy=Fraction(1)).carry(law, half)
        exact = ExactNoise(law=DigitLaw.uniform(3)).carry(law, half)
        assert bound.high >= exact.high


def test_more_noise_never_lowers_the_margin_and_the_margin_meets_the_target():
    found = [smallest_margin(200, radix=3, layers=1, carry=Fraction(1, 10**6), width=2,
                             noise=SubGaussianNoise(proxy=Fraction(v))) for v in (0, 50, 5000, 500000)]
    margins = [m.margin for m in found]
    assert margins == sorted(margins) and margins[0] < margins[-1]
    assert all(m.carry_probability.high <= Fraction(1, 10**6) for m in found)
    assert found[-1].carry_probability_below.high > Fraction(1, 10**6)      # one less does not meet it
    assert found[-1].to_dict()["noise"] == {"kind": "sub-gaussian", "variance_proxy": "500000"}


def test_a_limit_on_the_margin_says_no_margin_with_the_carry_there():
    with pytest.raises(NoMargin) as caught:
        smallest_margin(1000, radix=3, layers=1, carry=Fraction(1, 10**6), noise=SubGaussianNoise(proxy=Fraction(10**6)),
                        max_margin=2)
    assert caught.value.margin == 2 and caught.value.carry.high > Fraction(1, 10**6)
