"""``itsa.plan``: golden values worked by hand and from the other parts, and the properties a plan must keep."""

import math
from fractions import Fraction

import pytest

import itsa
from itsa._util.certified import safe_decimal
from itsa.planning.deployment import parse_deployment
from itsa.planning.encoding import wrap_probability
from itsa.planning.gate import shut_out_probability
from itsa.planning.noise import epsilon_at
from itsa.planning.planner import noise_inputs
from itsa.privacy import account

# d = 4 (sqrt(d)/2 = 1) and gamma S = 256: the replace-one sensitivity is exactly 2 (256 + 1) = 514.
SMALL = {"clients": 100, "dimension": 4, "clip": 1, "privacy": {"epsilon": 100, "delta": "1e-6", "rounds": 10},
         "encoding": {"word_bits": 32, "gamma": 256}}


def _plan(**over):
    return itsa.plan(parse_deployment({**SMALL, **over}))


def test_itsa_plan_is_the_function_and_deployment_the_class():
    assert callable(itsa.plan) and itsa.plan is itsa.planning.plan
    import importlib

    importlib.import_module("itsa.planning.planner")     # importing a module never rebinds itsa.plan
    assert callable(itsa.plan) and itsa.Deployment is itsa.planning.Deployment


def test_central_epsilon_is_the_accountants_for_the_same_events():
    """Central noise sigma = 1028 = 2 x 514: the Gaussian mechanism at z = 2 over 10 rounds, as `privacy account`."""
    p = _plan(noise={"kind": "central", "sigma": 1028})
    assert p.noise.sensitivity.low == p.noise.sensitivity.high == 514
    expected = account(2, 10, Fraction(1, 10**6), tight=False).entries["cks"].epsilon
    assert p.noise.accounting.epsilon_rdp.decimal(8) == expected.decimal(8)     # the Renyi bound, beside
    assert p.noise.epsilon.upper() <= expected.upper()                          # the smallest proven one
    assert p.noise.noise_multiplier.value() == 2


def test_distributed_epsilon_is_the_accountants_when_tau_vanishes():
    """100 shares of 102.8 sum to sigma 1028 = 2 x 514; at s~ = 102.8 the tau term is below 1e-40000."""
    p = _plan(noise={"kind": "distributed", "sigma": "102.8"})
    expected = account(2, 10, Fraction(1, 10**6), tight=False).entries["cks"].epsilon
    assert p.noise.accounting.epsilon_rdp.decimal(8) == expected.decimal(8)
    assert p.noise.accounting.epsilon_rdp.upper() >= expected.lower() and p.noise.epsilon.upper() <= expected.upper()
    assert p.noise.sigma_aggregate.lower() <= 1028 <= p.noise.sigma_aggregate.upper()


def test_the_tau_term_costs_at_small_shares():
    """At s~ = 1/2 the tau term of the distributed bound is large: eps above the plain Gaussian's."""
    p = _plan(noise={"kind": "distributed", "sigma": "1/2"}, privacy={"epsilon": 10**6, "rounds": 1})
    plain = account(Fraction(5, 514), 1, Fraction(1, 10**5), tight=False).entries["cks"].epsilon
    assert p.noise.epsilon.lower() > plain.upper()


def test_calibrated_noise_meets_the_target_and_is_nearly_smallest():
    p = _plan(privacy={"epsilon": 2, "delta": "1e-6", "rounds": 10})
    assert p.noise.epsilon.upper() <= 2
    smaller = p.noise.sigma_client * (1 - Fraction(1, 10**4))
    d = parse_deployment({**SMALL, "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10}})
    assert epsilon_at(noise_inputs(d), Fraction(256), smaller).epsilon.lower() > 2


def test_wrap_probability_by_hand():
    """16 bits, K = 10, c = 100: room 2^15 - 1000 = 31768; 10 shares of sigma 1000: 2 exp(-31768^2 / (2 10^7))."""
    w = wrap_probability(word_bits=16, clients=10, bound=1000, sigma=Fraction(1000), shares=10, coordinates=1)
    by_hand = 2 * math.exp(-31768**2 / (2 * 10 * 1000**2))
    assert abs(float(w.upper()) / by_hand - 1) < 1e-12
    per_round = wrap_probability(word_bits=16, clients=10, bound=1000, sigma=Fraction(1000), shares=10,
                                 coordinates=7)
    assert abs(float(per_round.upper()) / (7 * by_hand) - 1) < 1e-12


def test_wrap_without_room_or_noise():
    assert wrap_probability(word_bits=8, clients=200, bound=200, sigma=Fraction(0), shares=1,
                            coordinates=1).upper() == 1
    exact_zero = wrap_probability(word_bits=8, clients=100, bound=127, sigma=Fraction(0), shares=1, coordinates=5)
    assert exact_zero.upper() == 0 and str(exact_zero.direction) == "exact"


def test_more_bits_never_raise_the_wrap_probability():
    seen = [wrap_probability(word_bits=b, clients=1000, bound=1000 * 256, sigma=Fraction(900), shares=1000,
                             coordinates=1290).upper() for b in range(10, 40)]
    assert all(a >= b for a, b in zip(seen, seen[1:])) and seen[0] == 1 and seen[-1] < Fraction(1, 10**9)


def test_more_noise_never_raises_epsilon():
    d = parse_deployment({**SMALL, "noise": {"kind": "distributed", "sigma": 1}})
    eps = [epsilon_at(noise_inputs(d), Fraction(256), Fraction(s)).epsilon.upper() for s in (1, 2, 5, 10, 50, 100, 1000)]
    assert all(a >= b for a, b in zip(eps, eps[1:])) and eps[0] > eps[-1]


def test_add_remove_halves_the_sensitivity():
    a = _plan(adjacency="add-remove", noise={"kind": "central", "sigma": 1028})
    r = _plan(adjacency="replace-one", noise={"kind": "central", "sigma": 1028})
    assert 2 * a.noise.sensitivity.upper() == r.noise.sensitivity.upper() == 514
    assert a.noise.epsilon.upper() < r.noise.epsilon.upper()


def test_error_by_hand():
    """MSE per coordinate = (1/(2 gamma))^2 + K_eff sigma^2 / (gamma K_eff)^2 (distributed, no dropout)."""
    p = _plan(noise={"kind": "distributed", "sigma": 10})
    gamma = Fraction(256)
    per = 1 / (4 * gamma**2) + 100 * 10**2 / (gamma * 100) ** 2
    assert p.error.per_coordinate == per and p.error.total == 4 * per


def test_the_word_chosen_is_the_fewest_that_meet_the_target():
    p = itsa.plan(parse_deployment({**SMALL, "encoding": {"gamma": 256}, "noise": {"kind": "central", "sigma": 1028},
                                    "overflow": "1e-6"}))
    bits, g, sigma = p.encoding.word_bits, Fraction(256), p.noise.sigma_client

    def wrap(b):
        return wrap_probability(word_bits=b, clients=100, bound=100 * 256, sigma=sigma, shares=1, coordinates=4)
    assert wrap(bits).upper() <= Fraction(1, 10**6) < wrap(bits - 1).upper()
    assert p.verdict.feasible and p.encoding.gamma == g


def test_gamma_chosen_in_a_word_is_the_largest_power_of_two_that_fits():
    base = {**SMALL, "encoding": {"word_bits": 24}, "privacy": {"epsilon": 8, "delta": "1e-6", "rounds": 10}}
    p = itsa.plan(parse_deployment(base))
    assert p.verdict.feasible and p.encoding.meets_target
    finer = itsa.plan(parse_deployment({**base, "encoding": {"word_bits": 24, "gamma": 2 * p.encoding.gamma}}))
    assert not finer.encoding.meets_target


def test_the_infeasible_8_bit_word_at_a_million_clients():
    p = itsa.plan(itsa.load_deployment("k1000000-8bit"))
    assert not p.verdict.feasible and p.verdict.to_dict()["verdict"] == "infeasible"
    bits = p.verdict.fixes["word_bits"]["word_bits"]
    assert bits > 8
    fixed = itsa.load_deployment("k1000000-8bit")
    from dataclasses import replace

    enc = replace(fixed.encoding, word_bits=bits, gamma=p.encoding.gamma)
    assert itsa.plan(replace(fixed, encoding=enc)).verdict.feasible
    enc = replace(fixed.encoding, word_bits=bits - 1, gamma=p.encoding.gamma)
    assert not itsa.plan(replace(fixed, encoding=enc)).verdict.feasible


def test_a_given_noise_that_misses_the_target_gets_the_smallest_that_does():
    p = _plan(noise={"kind": "central", "sigma": 100}, privacy={"epsilon": 2, "delta": "1e-6", "rounds": 10})
    assert not p.verdict.feasible and "noise" in p.verdict.fixes
    sigma = Fraction(p.verdict.fixes["noise"]["sigma_client"])
    assert _plan(noise={"kind": "central", "sigma": sigma},
                 privacy={"epsilon": 2, "delta": "1e-6", "rounds": 10}).verdict.feasible


def test_keys_of_example_2():
    p = _plan(servers="example-2", noise={"kind": "central", "sigma": 1028})
    assert p.keys.rate_low == Fraction(7, 2) == p.keys.rate_high
    assert p.keys.to_dict()["key_bits_per_round"] == str(Fraction(7, 2) * 32 * 4)


def test_gate_by_hand():
    assert shut_out_probability(budget=2, rounds=3, flag_rate=Fraction(1, 2)).value() == Fraction(1, 2)
    exact = shut_out_probability(budget=3, rounds=150, flag_rate=Fraction(1, 100))
    below = sum(math.comb(150, k) * Fraction(1, 100) ** k * Fraction(99, 100) ** (150 - k) for k in range(3))
    assert exact.value() == 1 - below
    p = _plan(noise={"kind": "central", "sigma": 1028}, gate={"budget": 3, "flag_rate": "1/100"},
              privacy={"epsilon": 100, "delta": "1e-6", "rounds": 150})
    assert p.gate.earliest_exclusion == 4 and p.gate.shut_out.value() == 1 - below


def test_a_gate_that_shuts_out_more_than_the_dropout_allows_makes_the_plan_infeasible():
    """Budget 3 at flag rate 1/3 over 30 rounds shuts out nearly every honest client; dropout 1/10 allows 10 of 100."""
    over = dict(dropout="1/10", noise={"kind": "central", "sigma": 1028},
                privacy={"epsilon": 100, "delta": "1e-6", "rounds": 30})
    p = _plan(gate={"budget": 3, "flag_rate": "1/3"}, **over)
    assert not p.verdict.feasible and any("gate" in r for r in p.verdict.reasons)
    fix = p.verdict.fixes["gate_budget"]["budget"]

    def exceeds(budget):        # P[Binomial(100, P) > 10], P = P[Binomial(30, 1/3) >= budget], exactly
        p = sum(math.comb(30, k) * Fraction(1, 3) ** k * Fraction(2, 3) ** (30 - k) for k in range(budget, 31))
        return sum(math.comb(100, x) * p**x * (1 - p) ** (100 - x) for x in range(11, 101))
    target = p.gate.overflow_target
    assert target == Fraction(1, 10**6) and exceeds(fix) <= target < exceeds(fix - 1)
    fixed = _plan(gate={"budget": fix, "flag_rate": "1/3"}, **over)
    assert fixed.verdict.feasible and "gate_budget" not in fixed.verdict.fixes
    assert _plan(gate={"budget": 3, "flag_rate": "1/1000"}, **over).verdict.feasible


def test_gate_in_ball_arithmetic_encloses_the_exact_value(monkeypatch):
    import itsa.planning.gate as gate

    exact = gate.shut_out_probability(budget=5, rounds=400, flag_rate=Fraction(1, 97)).value()
    monkeypatch.setattr(gate, "MAX_EXACT_BITS", 10)
    ball = gate.shut_out_probability(budget=5, rounds=400, flag_rate=Fraction(1, 97))
    assert ball.low <= exact <= ball.high and ball.high - ball.low < Fraction(1, 10**30)


def test_json_sections_and_markdown():
    p = _plan(noise={"kind": "central", "sigma": 1028})
    data = p.to_dict()
    assert set(data) == {"deployment", "noise", "encoding", "payload", "keys", "error", "heuristic", "gate",
                         "frameworks", "verdict"}
    assert {"sigma_client", "sigma_aggregate", "epsilon"} <= set(data["noise"])
    assert {"value", "direction", "interval", "method"} <= set(data["noise"]["epsilon"])
    assert {"gamma", "modulus", "wrap_probability"} <= set(data["encoding"])
    assert data["encoding"]["modulus"] == str(2**32) and data["verdict"]["verdict"] == "feasible"
    text = p.markdown()
    assert text.startswith("# Plan:") and "## noise" in text and "## verdict" in text


# --- a PSA layering: the noise enters the modular part's exact margins ---------------------------------------

PSA = {"clients": 1000, "dimension": 1290, "clip": 1, "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 150},
       "encoding": {"radix": 3, "layers": 4, "stages": "4,3/2,1"}, "overflow": "1e-6"}


def test_without_noise_the_carry_is_the_modular_parts_exact_value():
    """K = 1000, radix 3, one layer, per-layer target 1/1000: the exact margin is 4 (itsa modular margins)."""
    from itsa.modular import DigitLaw, smallest_margin, sum_law
    from itsa.planning.layered import noisy_carry, size_stage

    exact = smallest_margin(1000, radix=3, layers=4, carry=Fraction(1, 1000))
    law = sum_law(DigitLaw.uniform(3), 1000)
    carry = noisy_carry(law, (3 ** (1 + exact.margin) - 1) // 2, Fraction(0))
    assert exact.margin == 4 and carry.low == carry.high == exact.carry_probability.high
    noisy = size_stage(clients=1000, radix=3, layers=(1,), scaled_scale=Fraction(1, 2), shares=1000,
                       target=Fraction(1, 1000))
    assert noisy.margin >= exact.margin and noisy.carry.upper() <= Fraction(1, 1000)


def test_more_noise_never_lowers_a_stage_margin():
    from itsa.planning.layered import size_stage

    margins = [size_stage(clients=200, radix=3, layers=(2, 1), scaled_scale=Fraction(s), shares=200,
                          target=Fraction(1, 10**6)).margin for s in ("1/2", 1, 4, 16)]
    assert all(a <= b for a, b in zip(margins, margins[1:])) and margins[0] < margins[-1]


def test_a_layering_is_planned():
    p = itsa.plan(parse_deployment(PSA))
    assert p.verdict.feasible and p.noise.epsilon.upper() <= 4 and p.heuristic is None
    assert p.encoding.gamma == 32 and len(p.encoding.stages) == 2          # round(32) <= (3^4 - 1)/2 = 40 < 64
    assert p.encoding.wrap_probability.upper() <= Fraction(1, 10**6)
    assert p.payload.bits_per_coordinate.upper() < p.payload.flat_bits_per_coordinate.lower()
    data = p.to_dict()["encoding"]
    assert data["kind"] == "layered" and {"gamma", "modulus", "wrap_probability"} <= set(data)
    # all four layers composed over 150 rounds: 600 terms of the distributed bound
    assert "600 x" in p.noise.epsilon.method


def test_a_gamma_beyond_the_digits_is_refused():
    with pytest.raises(itsa.InvalidDeployment, match="does not fit 4 balanced radix-3 digits"):
        parse_deployment({**PSA, "encoding": {**PSA["encoding"], "gamma": 64}})      # before any work


def test_with_a_given_noise_gamma_keeps_the_target_epsilon():
    """sigma fixed: a larger gamma raises the sensitivity, so gamma is chosen where eps still meets the target."""
    base = {**SMALL, "encoding": {"word_bits": 40}, "noise": {"kind": "central", "sigma": 3000},
            "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 10}}
    p = itsa.plan(parse_deployment(base))
    assert p.verdict.feasible and p.noise.epsilon.upper() <= 4
    d = parse_deployment(base)
    assert epsilon_at(noise_inputs(d), 2 * p.encoding.gamma, Fraction(3000)).epsilon.upper() > 4


def test_the_heuristic_is_the_rules_pick_for_the_plans_noise_in_tff_units():
    """The plan's heuristic section is the k-sd rule's pick for the plan's noise as TFF reads it (the central
    sigma in data units over the clip), certified with the deployment's adjacency and survivors."""
    from itsa.planning.rule.heuristic import certify_heuristic, k_stddevs_rule

    p = _plan(noise={"kind": "distributed", "sigma": "102.8"})
    z = p.heuristic.noise_multiplier
    assert z == p.frameworks.tff_noise_multiplier
    rule = k_stddevs_rule(100, 4, Fraction(1), 32, Fraction(safe_decimal(z.upper(), 10, up=True)))
    assert p.heuristic.config == rule
    d = p.deployment
    risk = certify_heuristic(rule, survivors=d.survivors, rounds=d.privacy.rounds, delta=d.privacy.delta,
                             adjacency=d.adjacency)
    assert p.heuristic.epsilon == risk.epsilon and p.heuristic.wrap_probability == risk.wrap_round
    assert p.heuristic.wrap_probability.upper() <= 1 and p.heuristic.epsilon.upper() > 0
    assert p.to_dict()["heuristic"]["computed"] is True


@pytest.mark.parametrize("per", ["round", "coordinate"])
def test_a_layerings_wrap_says_how_its_stages_combine(per):
    """Per round: a union over stages and coordinates (their sum); per coordinate: the largest stage's bound."""
    p = itsa.plan(parse_deployment({**PSA, "clients": 100, "dimension": 4,
                                    "overflow": {"probability": "1e-3", "per": per}}))
    stages = [s.carry.upper() for s in p.encoding.stages]
    method = str(p.encoding.wrap_probability.method)
    if per == "round":
        assert "union bound" in method and p.encoding.wrap_probability.upper() == min(1, 4 * sum(stages))
    else:
        assert "union" not in method and "largest stage" in method
        assert p.encoding.wrap_probability.upper() == max(stages)
