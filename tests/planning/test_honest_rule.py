"""The rule beside the plan, fair: TFF's units, the deployment's adjacency, its refusals said, and made honest."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import itsa
from itsa.planning import parse_deployment
from tests.planning.test_bracket import _file, k1000

SHIPPED = ["hospitals", "k1000000-8bit"]


def _plan(raw, name="deployment"):
    return itsa.plan(parse_deployment(raw, default_name=name), time_limit=0)


def _check(p):
    """Every flat plan prints the honest rule's MSE or why none exists; the plan's own error is at most it."""
    honest = p.to_dict()["heuristic"]["honest"]
    assert (honest["mse_total"] is None) != (honest["reason"] is None)
    if honest["mse_total"] is not None:
        theirs = Fraction(honest["mse_total"]["interval"][0])
        assert p.error.total <= theirs, f"the plan's error {p.error.total} is above the honest rule's {theirs}"
        assert p.heuristic.honest.epsilon.upper() <= (p.deployment.privacy.epsilon or p.noise.epsilon.upper())
    text = dict(p.rows())
    assert "honest rule" in text


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_deployments(name):
    _check(_plan(_file(name), name))


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)])
def test_random_deployments(seed):
    rng = random.Random(seed)
    raw = {"clients": rng.randint(20, 300), "dimension": rng.randint(1, 60), "clip": rng.choice([1, "1/2", 4]),
           "dropout": rng.choice([0, "1/10"]), "adjacency": rng.choice(["replace-one", "add-remove"]),
           "noise": rng.choice(["central", "distributed"]),
           "privacy": {"epsilon": rng.choice([1, 4, 8]), "delta": "1e-6", "rounds": rng.randint(1, 50)},
           "encoding": {"word_bits": rng.randint(20, 22)}}
    _check(_plan(raw))


def test_k1000():
    _check(k1000())


def test_the_rule_reads_tff_units_and_says_its_refusals():
    p = k1000()
    h, f = p.heuristic, p.frameworks
    assert h.noise_multiplier == f.tff_noise_multiplier                      # one number, TFF's units
    # TFF's z is the central sigma in data units over the clip: sigma sqrt(K)/(gamma S) for shares
    z = p.noise.sigma_client / p.encoding.gamma
    assert z**2 * 1000 <= h.noise_multiplier.upper() ** 2 and h.noise_multiplier.lower() ** 2 <= z**2 * 1000
    assert h.risk.adjacency == p.deployment.adjacency and h.risk.survivors == p.deployment.survivors
    assert "TFF refuses 32 bits" in dict(p.rows())["heuristic refuses"]


def test_a_refused_rule_has_no_honest_configuration():
    p = _plan(_file("k1000000-8bit"), "k1000000-8bit")
    assert p.heuristic.honest.mse_total is None and "picks no scale" in p.heuristic.honest.reason
