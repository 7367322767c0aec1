"""Bits against the floor: the exact entropy of the noise in a coordinate (against the sum over its atoms) and the
order of secure aggregation's price, min(n^2 eps^2, d) (Chen, Choquette-Choo, Kairouz, Suresh, ICML 2022)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import itsa
from itsa.planning import parse_deployment
from itsa.planning.sections import CHEN_ORDER
from itsa.privacy.discrete_gaussian import entropy_bits


@pytest.mark.parametrize("sigma", [Fraction(1, 3), 1, Fraction(5, 2), 40])
def test_entropy_bits_is_the_sum_over_the_atoms(sigma):
    s = float(sigma)
    x = np.arange(-int(60 * s) - 10, int(60 * s) + 11)
    p = np.exp(-(x.astype(float) ** 2) / (2 * s * s))
    p /= p.sum()
    exact = float(-(p[p > 0] * np.log2(p[p > 0])).sum())
    ball = entropy_bits(sigma)
    assert float(ball.lower()) - 1e-12 <= exact <= float(ball.upper()) + 1e-12 and float(ball.rad()) < 1e-9


def test_entropy_grows_like_log_sigma():
    """A doubling of sigma adds one bit, once sigma is a few units (the continuous Gaussian's law)."""
    assert abs(float((entropy_bits(2000) - entropy_bits(1000)).mid()) - 1) < 1e-9


CENTRAL = {"clients": 100, "dimension": 10, "clip": 1, "noise": "central", "dropout": "1/10",
           "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10}, "encoding": {"word_bits": 32, "gamma": 256}}


@pytest.mark.parametrize("kind", ["central", "distributed"])
def test_a_plan_prints_its_floor_beside_the_payload(kind):
    p = itsa.plan(parse_deployment({**CENTRAL, "noise": kind}))
    floor = p.payload.floor
    assert floor is not None
    assert float(entropy_bits(p.noise.sigma_client).lower()) <= float(floor.entropy.upper()) <= float(entropy_bits(p.noise.sigma_client).upper()) + 1e-15
    assert ("sum's noise" if kind == "central" else "client's share") in floor.whose
    eps = p.noise.accounting.epsilon_per_round.upper()
    assert floor.order_bits == min(Fraction(100) ** 2 * eps**2, Fraction(10))
    rows = dict(p.payload.rows())
    assert "bits above it" in rows["entropy floor"] and "order only" in rows["floor order"]
    out = p.to_dict()["payload"]["floor"]
    assert Fraction(out["word_above_entropy"]) == 32 - floor.entropy.upper() > 0
    assert out["order_note"] == CHEN_ORDER
    assert Fraction(out["payload_over_order"]) == Fraction(320) / floor.order_bits
    assert math.isclose(float(floor.entropy.upper()), math.log2(float(p.noise.sigma_client) *
                                                              math.sqrt(2 * math.pi * math.e)), rel_tol=1e-6)
