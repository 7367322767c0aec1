"""The k-standard-deviations rule against its formula worked by hand, and itsa's certified risk of its pick."""

import math
from fractions import Fraction

import pytest

from itsa.exceptions import InvalidInput, ItsaError
from itsa.planning.frameworks_units import MAX_SCALE_FACTOR
from itsa.planning.rule.heuristic import (
    certify_heuristic,
    k_stddevs_rule,
    padded_dimension,
    stddevs_for,
    survivors_under,
    wrap_bound,
)

#: The two-sided Gaussian quantile for 1e-4 from a normal table: P(|N| > 3.8905918864) = 1e-4.
K_FOR_1E4 = 3.8905918864131


def hand_scale(bits, n, k, clip, z, dim, rho=1.0):
    """2^b = 2k sqrt(rho (c n)^2/d + (gamma^2/4 + sigma^2) n)/gamma, solved for 1/gamma, sigma = z c/sqrt(n)."""
    sigma = z * clip / math.sqrt(n)
    return math.sqrt(2 ** (2 * bits) - n * k * k) / (2 * k * math.sqrt(rho * clip**2 * n**2 / dim + n * sigma**2))


def test_k_is_the_two_sided_gaussian_quantile():
    assert stddevs_for("1e-4") == pytest.approx(K_FOR_1E4, rel=1e-12)
    assert math.erfc(stddevs_for("1/100") / math.sqrt(2)) == pytest.approx(0.01, rel=1e-12)


@pytest.mark.parametrize("bits, clients, dim, z", [(16, 1000, 1290, 1), (20, 50, 1001, "0.7"), (12, 16, 64, 2)])
def test_scale_against_the_formula(bits, clients, dim, z):
    h = k_stddevs_rule(clients=clients, dimension=dim, clip=1, word_bits=bits, noise_multiplier=z)
    d_pad = 2 * math.ceil(dim / 2)
    want = hand_scale(bits, clients, K_FOR_1E4, 1.0, float(Fraction(z)), d_pad)
    assert float(h.gamma) == pytest.approx(want, rel=1e-10)
    assert h.step == Fraction(1.0 / float(h.gamma))                     # the exact rational of the rule's float
    assert float(h.sigma) == pytest.approx(float(h.gamma) * float(Fraction(z)) / math.sqrt(clients), rel=1e-12)
    assert float(h.sensitivity) == pytest.approx((1 + math.sqrt(d_pad) / want + 1e-5) * want, rel=1e-10)
    # k standard deviations of the modelled sum fill the half range
    var = d_pad ** -1 * clients**2 * want**2 + clients / 4 + clients * float(h.sigma) ** 2
    assert K_FOR_1E4 * math.sqrt(var) == pytest.approx(2 ** (bits - 1), rel=1e-9)


def test_given_k_and_the_cap_and_the_refusals():
    h = k_stddevs_rule(clients=10, dimension=10, clip=1, word_bits=16, noise_multiplier=1, k_stddevs=3)
    assert float(h.gamma) == pytest.approx(hand_scale(16, 10, 3.0, 1.0, 1.0, 10), rel=1e-10)
    assert float(h.modclip_prob) == pytest.approx(math.erfc(3 / math.sqrt(2)))
    big = k_stddevs_rule(clients=10, dimension=10, clip=1, word_bits=40, noise_multiplier=1)
    assert big.capped and big.gamma == MAX_SCALE_FACTOR and big.notes
    low = k_stddevs_rule(clients=1000, dimension=10, clip=1, word_bits=9, noise_multiplier=1)      # 2^9 < 1000
    assert low.refusal and low.gamma is None
    tight = k_stddevs_rule(clients=8, dimension=10, clip=1, word_bits=3, noise_multiplier=1)  # 2^6 < 8 k^2, 2^3 >= 8
    assert "k^2" in tight.refusal
    assert certify_heuristic(tight, epsilon=1, overflow="1e-6").verdict == "wrong"


def test_padding_and_survivors():
    assert padded_dimension(7) == 8 and padded_dimension(1290, "hd") == 2048 and padded_dimension(1024, "hd") == 1024
    assert survivors_under(1000, "1/10") == 900 and survivors_under(7, "1/2") == 4 and survivors_under(5, 0) == 5


def test_wrap_bound_against_the_tail_formula():
    clients, dim, proxy, sigma, bits = 100, 16, Fraction(3000), Fraction(5), 10
    coord, per_round = wrap_bound(clients=clients, dimension=dim, data_proxy=proxy, sigma=sigma, word_bits=bits)
    v = 3000 + 100 / 4 + 100 * 25
    want = 2 * math.exp(-(2 ** 9) ** 2 / (2 * v))
    assert coord.low <= Fraction(want * (1 + 1e-12)) and coord.high >= Fraction(want * (1 - 1e-12))
    assert float(per_round.upper()) == pytest.approx(16 * want, rel=1e-9)
    trivial, _ = wrap_bound(clients=clients, dimension=dim, data_proxy=proxy, sigma=sigma, word_bits=3)
    assert trivial.upper() == 1


def test_certified_risk_of_the_rule():
    h = k_stddevs_rule(clients=1000, dimension=1290, clip=1, word_bits=16, noise_multiplier=1)
    full = certify_heuristic(h, rounds=150, delta="1e-6")
    dropped = certify_heuristic(h, dropout="1/10", rounds=150, delta="1e-6")
    assert dropped.survivors == 900 and dropped.epsilon.upper() > full.epsilon.upper()
    # the rule aims at 1e-4 per coordinate under a Gaussian model; the certified tail bound is no smaller
    assert full.wrap_coordinate.upper() >= h.modclip_prob
    replace_one = certify_heuristic(h, rounds=150, delta="1e-6", adjacency="replace-one")
    assert replace_one.sensitivity.upper() == pytest.approx(2 * full.sensitivity.upper(), rel=1e-12)
    assert replace_one.epsilon.upper() > full.epsilon.upper()
    assert full.to_dict()["epsilon"]["direction"] == "upper bound" and full.rows()


def test_sudden_failure_at_low_bit_widths_is_reproduced():
    def eps(bits):
        h = k_stddevs_rule(clients=1000, dimension=1290, clip=1, word_bits=bits, noise_multiplier=1)
        return certify_heuristic(h, rounds=150, delta="1e-6")

    high, mid, low, lowest = eps(20), eps(14), eps(12), eps(10)
    assert mid.epsilon.upper() > Fraction(3, 2) * high.epsilon.upper()          # rounding inflates the sensitivity
    assert low.epsilon.upper() > 1000 * high.epsilon.upper()                    # the tau term takes over
    assert lowest.epsilon is None and any("1/2" in r for r in lowest.reasons)  # sigma below 1/2: no bound at all
    assert any("inflates" in r for r in low.reasons)


def test_verdicts():
    h = k_stddevs_rule(clients=20, dimension=8, clip=1, word_bits=20, noise_multiplier=4)
    assert certify_heuristic(h, rounds=1, delta="1e-6", epsilon=10**6, overflow="1/2").verdict == "wasteful"
    assert certify_heuristic(h, rounds=1, delta="1e-6", epsilon="1/1000", overflow="1/2").verdict == "wrong"


@pytest.mark.parametrize("kwargs", [dict(word_bits=0), dict(clients=0), dict(clip=-1), dict(noise_multiplier=-1),
                                    dict(rotation="fft"), dict(dimension=1.5), dict(k_stddevs=0), dict(word_bits=63)])
def test_bad_inputs_are_itsa_errors(kwargs):
    args = dict(clients=10, dimension=8, clip=1, word_bits=16, noise_multiplier=1) | kwargs
    with pytest.raises(InvalidInput) as err:
        k_stddevs_rule(**args)
    assert isinstance(err.value, ItsaError) and "\n" not in str(err.value)


def test_bad_accounting_inputs():
    h = k_stddevs_rule(clients=10, dimension=8, clip=1, word_bits=16, noise_multiplier=1)
    for kwargs in (dict(dropout=1), dict(rounds=0), dict(delta=2), dict(adjacency="swap"), dict(survivors=11),
                   dict(survivors=5, dropout="1/2")):
        with pytest.raises(InvalidInput):
            certify_heuristic(h, **kwargs)
