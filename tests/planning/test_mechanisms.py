"""The plan's noise mechanisms: the sharp distributed discrete Gaussian, Skellam, central; the pick by error."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from itsa.exceptions import InvalidDeployment
from itsa.planning import parse_deployment, plan
from itsa.planning.deployment import Mechanism, NoiseKind
from itsa.planning.mechanism import round_event, sensitivity
from itsa.planning.planner import noise_inputs
from itsa.privacy.events import DdgBound, DiscreteGaussianEvent, DistributedDiscreteGaussianEvent, SkellamEvent

BASE = {"clients": 200, "dropout": "1/10", "dimension": 500, "clip": 1, "privacy": {"epsilon": 4, "delta": "1e-6",
        "rounds": 50}, "encoding": {"word_bits": 24, "rotation": "dft", "rounding": "stochastic"}}


def _deployment(**noise):
    return parse_deployment({**BASE, "noise": noise} if noise else BASE)


def test_the_old_form_is_still_read_and_the_new_one_names_both():
    old = parse_deployment({**BASE, "noise": "central"})
    assert old.noise.kind is NoiseKind.CENTRAL and old.noise.mechanism is None
    new = _deployment(mechanism="skellam", placement="central")
    assert new.noise.kind is NoiseKind.CENTRAL and new.noise.mechanism is Mechanism.SKELLAM
    with pytest.raises(InvalidDeployment, match="mechanism"):
        _deployment(mechanism="laplace")
    with pytest.raises(InvalidDeployment, match="kind and placement"):
        _deployment(kind="central", placement="distributed")


def test_each_mechanism_is_its_event():
    g = Fraction(64)
    for noise, kind in (({"mechanism": "dgauss"}, DistributedDiscreteGaussianEvent),
                        ({"mechanism": "dgauss", "placement": "central"}, DiscreteGaussianEvent),
                        ({"mechanism": "skellam"}, SkellamEvent)):
        d = _deployment(**noise)
        n = noise_inputs(d)
        event = round_event(n, sensitivity(n, g))(Fraction(40))
        assert isinstance(event, kind)
    distributed = round_event(noise_inputs(_deployment(mechanism="dgauss")),
                              sensitivity(noise_inputs(_deployment()), g))(Fraction(40))
    assert distributed.bound is DdgBound.SHARP and distributed.dimension == 500


def _independent_skellam_epsilon(*, mu: float, l2: float, dimension: int, rounds: int, delta: float) -> float:
    """Agarwal-Kairouz-Liu 2021's RDP at whole orders, composed and converted (CKS 2020, Prop. 12) in floats."""
    l1 = min(l2 * l2, math.sqrt(dimension) * l2)
    best = math.inf
    for q in range(2, 400):
        rdp = q * l2 * l2 / (2 * mu) + min(((2 * q - 1) * l2 * l2 + 6 * l1) / (4 * mu * mu), 3 * l1 / (2 * mu))
        eps = rounds * rdp + math.log1p(-1 / q) - (math.log(delta) + math.log(q)) / (q - 1)
        best = min(best, eps)
    return best


def test_a_skellam_plan_has_a_certified_epsilon_checked_independently():
    d = _deployment(mechanism="skellam")
    p = plan(d, time_limit=0)
    assert p.verdict.feasible and p.noise.epsilon.upper() <= 4
    mu = float(p.noise.sigma_client) ** 2 * d.survivors          # a sum of Skellam shares is Skellam
    independent = _independent_skellam_epsilon(mu=mu, l2=float(p.noise.sensitivity.upper()), dimension=500,
                                               rounds=50, delta=1e-6)
    assert independent <= float(p.noise.epsilon.upper()) <= independent * (1 + 1e-6)
    assert "Skellam" in p.noise.epsilon.method


def test_without_a_mechanism_the_plan_picks_the_smaller_error_and_says_so():
    p = plan(_deployment(), time_limit=0)
    assert "the mechanism with the smaller error" in p.noise.chosen
    picked = p.deployment.noise.mechanism
    other = plan(_deployment(mechanism="skellam" if picked is Mechanism.DGAUSS else "dgauss"), time_limit=0)
    assert p.error.total <= other.error.total


def test_sigma_aggregate_is_the_aggregate_standard_deviation_for_every_mechanism():
    for noise in ({"mechanism": "skellam"}, {"mechanism": "dgauss"}):
        p = plan(_deployment(**noise), time_limit=0)
        agg = p.noise.sigma_aggregate
        want = p.noise.sigma_client * Fraction(math.isqrt(p.deployment.survivors * 10**12), 10**6)
        assert abs(agg.upper() - want) <= want / 10**5
