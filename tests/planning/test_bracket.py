"""The plan's epsilon bracket: a certified lower bound beside the upper bound it prints, checked independently."""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest

import itsa
from itsa._util.certified import Direction
from itsa.planning import parse_deployment


def _file(name):
    from itsa._util.safe_yaml import load_yaml
    from itsa.exceptions import InvalidDeployment
    from itsa.keys.examples import resolve_deployment

    raw = load_yaml(resolve_deployment(name).read_text(), InvalidDeployment)
    raw.pop("servers", None)            # the keys do not enter the bracket
    return raw


@functools.lru_cache(maxsize=1)
def k1000() -> itsa.Plan:
    """The k1000 plan without its keys (computed once per test run, shared with the rule's tests)."""
    return itsa.plan(parse_deployment(_file("k1000"), default_name="k1000"), time_limit=0)


@pytest.fixture(scope="module")
def k1000_plan():
    return k1000()


def test_k1000_bracket_within_five_percent(k1000_plan):
    n = k1000_plan.noise
    low, up = n.accounting.epsilon_lower, n.epsilon
    assert low.direction is Direction.LOWER and up.direction is Direction.UPPER
    assert low.upper() <= up.lower()
    assert up.upper() <= Fraction(105, 100) * low.lower()
    assert n.accounting.epsilon_rdp.upper() >= up.upper()           # never looser than the Renyi bound
    data = n.to_dict()
    assert data["epsilon_lower"]["direction"] == "lower bound"
    assert data["epsilon_upper_method"] in ("rdp", "dominating", "pld")
    assert Fraction(data["epsilon_ratio"]["value"]) <= Fraction(105, 100)


def test_k1000_lower_bound_against_dp_accounting(k1000_plan):
    """dp-accounting's PLD accountant on the Gaussian with the pair's shift and the sum's sigma (the discrete
    Gaussian sum is within 1e-9 of it at this sigma): the lower bound sits at its value, within its grid."""
    dpa = pytest.importorskip("dp_accounting")
    n = k1000_plan.noise
    shift = 2 * (k1000_plan.encoding.gamma.numerator // k1000_plan.encoding.gamma.denominator)   # replace-one, S = 1
    assert f"differ by {shift}" in n.accounting.lower_note
    z = float(n.sigma_client) * 30 / shift          # sqrt(900 survivors) = 30
    acc = dpa.pld.PLDAccountant()
    acc.compose(dpa.GaussianDpEvent(z), 150)
    theirs = acc.get_epsilon(1e-6)
    assert abs(float(n.accounting.epsilon_lower.lower()) - theirs) < 2e-3


def test_text_line_says_lower_and_upper(k1000_plan):
    text = dict(k1000_plan.rows())
    assert "lower bound" in text["epsilon lower"] and "upper/lower" in text["epsilon lower"]
    assert "Renyi" in text["epsilon upper"]


def test_one_dimension_uses_the_worst_pair():
    p = itsa.plan(parse_deployment({"clients": 10, "dimension": 1, "clip": 1, "noise": "central",
                                    "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 5},
                                    "encoding": {"word_bits": 40, "gamma": 64}}))
    a = p.noise.accounting
    assert a.upper_method == "pld" and a.epsilon_lower.lower() <= p.noise.epsilon.upper() <= 2
