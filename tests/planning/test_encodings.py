"""Rotations, rounding and their certified sensitivity and wrap bounds (itsa.planning.rotation, scale)."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidDeployment
from itsa.planning import load_deployment, parse_deployment, plan
from itsa.planning.deployment import Encoding
from itsa.planning.mechanism import gaussian_multiplier
from itsa.planning.planner import noise_inputs
from itsa.planning.rotation import (
    FLATNESS,
    Rotation,
    quantization_mse_total,
    rotated_dimension,
    rounded_sum,
)
from itsa.planning.scale import largest_gamma, mse_parts, multiplier_of, sigma_estimate, wrap_at
from itsa.privacy.neighbours import conditional_rounding_cost, rounded_norm
from itsa.privacy.tails import certified_tail


def test_conditional_rounding_norm_is_the_papers_bound():
    # Kairouz-Liu-Steinke 2021: ||x~||^2 <= min((c + sqrt d)^2, c^2 + d/4 + sqrt(2 ln(1/beta)) (c + sqrt(d)/2))
    for gamma, d, beta in ((700, 1200000, 0.5), (3, 10, 0.01), (10**4, 100, 0.9)):
        c = gamma
        want = math.sqrt(min((c + math.sqrt(d)) ** 2,
                             c * c + d / 4 + math.sqrt(2 * math.log(1 / beta)) * (c + math.sqrt(d) / 2)))
        got = rounded_norm(gamma=gamma, clip=1, dimension=d, rounding="conditional", beta=Fraction(beta))
        assert got.lower() <= Fraction(want * (1 + 1e-12)) and got.upper() >= Fraction(want * (1 - 1e-12))
        assert got.upper() <= rounded_norm(gamma=gamma, clip=1, dimension=d, rounding="stochastic").upper()


def test_what_beta_costs():
    assert conditional_rounding_cost("1/2") == (2, Fraction(1, 2))
    attempts, bias = conditional_rounding_cost("1/100")
    assert attempts == Fraction(100, 99) and bias == Fraction(1, 10**4) / Fraction(99, 100) ** 2


def test_padding():
    assert rotated_dimension(1200000, "hadamard") == 2**21 and rotated_dimension(1200000, "dft") == 1200000
    assert rotated_dimension(7, "dft") == 8 and rotated_dimension(7, "hd") == 8 and rotated_dimension(7, "none") == 7


def _real_dft_matrix(d: int) -> np.ndarray:
    """The real randomized DFT without its signs: d reals -> d/2 complex -> unitary DFT -> d reals."""
    half = d // 2
    f = np.fft.fft(np.eye(half)) / math.sqrt(half)
    m = np.zeros((d, d))
    m[:half, :half], m[:half, half:] = f.real, -f.imag
    m[half:, :half], m[half:, half:] = f.imag, f.real
    return m


@pytest.mark.parametrize("d", [2, 8, 30, 64])
def test_the_rotations_are_orthogonal_and_as_flat_as_certified(d):
    m = _real_dft_matrix(d)
    assert np.allclose(m @ m.T, np.eye(d))
    # a coordinate's Rademacher coefficients: sum_k m_jk^2 x_k^2 <= max m_jk^2 ||x||^2 <= rho ||x||^2 / d
    assert (m**2).max() <= float(FLATNESS[Rotation.DFT]) / d + 1e-12
    h = np.array([[1.0]])
    while h.shape[0] < d:
        h = np.block([[h, h], [h, -h]])
    h /= math.sqrt(h.shape[0])
    assert np.allclose(h @ h.T, np.eye(h.shape[0])) and (h**2).max() <= float(FLATNESS[Rotation.HADAMARD]) / h.shape[0] + 1e-12


def test_a_rotated_sum_stays_within_its_sub_gaussian_tail():
    # seeded Monte Carlo: K aligned clipped updates, one shared randomized Hadamard rotation, stochastic rounding
    rng = np.random.default_rng(7)
    k, d, gamma = 20, 64, Fraction(8)
    h = np.array([[1.0]])
    while h.shape[0] < d:
        h = np.block([[h, h], [h, -h]])
    h /= math.sqrt(d)
    x = np.zeros(d)
    x[0] = 1.0                                       # the worst case without a rotation: one coordinate
    rs = rounded_sum(clients=k, gamma=gamma, clip=1, dimension=d, rotation="hadamard", rounding="stochastic")
    t = 60
    bound = certified_tail(room=t - rs.exact, proxy=rs.proxy, coordinates=1).upper()
    hits = 0
    for _ in range(400):
        y = h @ (rng.choice([-1.0, 1.0], d) * float(gamma) * x)
        low = np.floor(y)
        total = sum(low + (rng.random(d) < y - low) for _ in range(k))
        hits += np.abs(total[0]) >= t
    assert hits / 400 <= float(bound) + 0.05


@settings(max_examples=25, deadline=None)
@given(mu=st.integers(1, 60), t=st.integers(1, 80))
def test_the_skellam_tail_bounds_the_exact_tail(mu, t):
    from scipy.stats import skellam

    exact = 2 * skellam.sf(t - 1, mu / 2, mu / 2)
    assert certified_tail(room=t, proxy=0, skellam=mu, coordinates=1).upper() >= Fraction(exact) * (1 - Fraction(1, 10**9))


def test_sub_gaussian_tail_is_the_closed_form():
    got = certified_tail(room=30, proxy=100, coordinates=7)
    want = 14 * math.exp(-900 / 200)
    assert abs(float(got.upper()) - want) <= 1e-9 * want and certified_tail(room=0, proxy=1, coordinates=1).upper() == 1


def test_quantization_error_by_rounding():
    g = Fraction(10)
    assert quantization_mse_total(gamma=g, dimension=5, rotation="hadamard", rounding="nearest", survivors=3) == \
        Fraction(8, 400)
    assert quantization_mse_total(gamma=g, dimension=5, rotation="hadamard", rounding="stochastic", survivors=3) == \
        Fraction(5, 1200)
    # the bias: min(d' B, beta/(4 (1 - beta)^2)) = min(4/2, 1/2) over gamma^2 (the dimension-free bound is smaller)
    assert quantization_mse_total(gamma=g, dimension=4, rotation="none", rounding="conditional", survivors=2,
                                  beta="1/2") == Fraction(4 * 2, 4 * 100 * 2) + Fraction(1, 2 * 100)


def test_the_reader_takes_rotation_and_rounding_and_refuses_them_for_a_layering():
    d = parse_deployment({"clients": 10, "dimension": 5, "clip": 1, "privacy": {"epsilon": 1},
                          "encoding": {"word_bits": 20, "rotation": "hd", "rounding": "conditional", "beta": "1/10"}})
    assert d.encoding.rotation is Rotation.HADAMARD and d.encoding.beta == Fraction(1, 10)
    with pytest.raises(InvalidDeployment, match="layering"):
        parse_deployment({"clients": 10, "dimension": 5, "clip": 1, "privacy": {"epsilon": 1},
                          "encoding": {"radix": 3, "rotation": "dft"}})
    with pytest.raises(InvalidDeployment, match="rotation"):
        Encoding(rotation="fourier")


@pytest.fixture(scope="module")
def cross_device():
    return load_deployment("deployments/cross-device.yaml")


@pytest.fixture(scope="module")
def cross_device_plan(cross_device):
    return plan(cross_device, time_limit=0)


def test_cross_device_with_a_dft_rotation_is_feasible_at_20_bits_within_twice_the_limit(cross_device_plan):
    p = cross_device_plan
    assert p.verdict.feasible and p.encoding.word_bits == 20 and p.payload.dimension == 1200000
    assert p.noise.epsilon.upper() <= 8 and p.encoding.wrap_probability.upper() <= Fraction(1, 10**6)
    assert p.error.ratio is not None and p.error.ratio <= 2
    assert p.error.to_dict()["limit_mse_total"] is not None and p.error.limit_total < p.error.total


def test_cross_device_with_hadamard_at_16_bits_is_infeasible_and_the_fix_is_the_fewest_bits(cross_device):
    d = replace(cross_device, encoding=replace(cross_device.encoding, word_bits=16, rotation=Rotation.HADAMARD))
    p = plan(d, time_limit=0)
    assert not p.verdict.feasible and p.payload.dimension == 2**21
    bits = p.verdict.fixes["word_bits"]["word_bits"]
    # one bit fewer holds no scale even at the Gaussian's noise (a lower bound on any mechanism's)
    z = gaussian_multiplier(d.privacy.epsilon, d.privacy.delta, d.privacy.rounds) * Fraction(9999, 10000)
    n, target = noise_inputs(d), {"overflow": d.overflow, "per_round": True}
    assert largest_gamma(n, bits - 1, z, **target) is None
    assert largest_gamma(n, bits, z, **target) is not None and bits == 19      # the coupled shift: 20 before


def test_the_scale_is_the_largest_that_fits_and_beats_every_power_of_two_in_the_word(cross_device, cross_device_plan):
    d, p = noise_inputs(cross_device), cross_device_plan
    gamma, sigma = p.encoding.gamma, p.noise.sigma_client
    assert gamma.denominator != 1 or gamma.numerator & (gamma.numerator - 1)        # not a power of two
    z = multiplier_of(d, gamma, sigma)
    power = Fraction(512)                              # the largest power of two below it
    assert power < gamma < 2 * power
    assert wrap_at(d, 20, 2 * power, sigma_estimate(d, 2 * power, z), per_round=True).upper() > cross_device.overflow
    at_power = sum(mse_parts(d, power, sigma_estimate(d, power, z)))
    assert p.error.total < at_power and at_power / p.error.limit_total > Fraction(13, 10) > p.error.ratio
