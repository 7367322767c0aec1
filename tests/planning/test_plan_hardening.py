"""What an attacker's deployment files found: refusals in one line, and labels that say what is assumed."""

from fractions import Fraction

import pytest

import itsa
from itsa._util.certified import Direction
from itsa.planning.deployment import parse_deployment

BASE = {"clients": 10, "dimension": 5, "clip": 1, "privacy": {"epsilon": 1}, "encoding": {"word_bits": 32}}


@pytest.mark.parametrize("clip", ["1e-100", "1e-80", "1e100"])
def test_a_clip_no_power_of_two_scale_reaches_is_refused(clip):
    # 1e-100 needs gamma = 2^333, past the 2^256 the plan tries: an IndexError before
    with pytest.raises(itsa.InvalidDeployment, match=r"clip: must lie in \[2\^-128, 2\^128\]"):
        parse_deployment({**BASE, "clip": clip})


@pytest.mark.parametrize("key, value", [("dropout", "1e-4301"), ("overflow", "1e-5000"), ("clip", "1/" + "7" * 500)])
def test_a_number_too_long_to_print_is_refused(key, value):
    # an exact 1e-4301 could not be printed in the JSON (Python's 4300-digit limit): a ValueError before
    with pytest.raises(itsa.InvalidDeployment, match=f"{key}: must be a fraction of at most 400-digit"):
        parse_deployment({**BASE, key: value})


def test_the_clip_range_ends_are_planned():
    for clip in (Fraction(1, 2**128), 2**128):
        p = itsa.plan(parse_deployment({**BASE, "clip": clip}), time_limit=60)
        assert p.encoding.gamma * clip >= 1


def test_a_word_wider_than_the_rule_reads_still_plans():
    # a 64-bit word was refused as "word_bits: must be a whole number in 1..62" after the whole plan
    p = itsa.plan(parse_deployment({**BASE, "encoding": {"word_bits": 64}}), time_limit=60)
    assert p.encoding.word_bits == 64 and p.verdict.feasible
    assert p.heuristic.epsilon is None and "62-bit" in p.heuristic.reason
    assert p.to_dict()["heuristic"]["config"] is None


def test_a_layered_wrap_bound_says_it_assumes_uniform_digits():
    raw = {"clients": 1000, "dimension": 1290, "clip": 1, "privacy": {"delta": "1e-6", "rounds": 150},
           "noise": {"kind": "distributed", "sigma": "1/2"},
           "encoding": {"radix": 3, "layers": 4, "stages": "4,3/2,1"},
           "overflow": {"probability": "1/1000", "per": "coordinate"}}
    p = itsa.plan(parse_deployment(raw), time_limit=60)
    top = p.encoding.stages[0]
    # every client's update e_1 encodes to 32 = 27 + 9 - 3 - 1: layers 3 and 4 hold digits 1 and 1, so the
    # stage's symbol is 1 + 3 = 4 for all 1000 clients: a sum of 4000, beyond the window (M - 1)/2 of the
    # stage's modulus, wraps whatever the noise. The printed bound holds only under the digit prior.
    assert 32 == 27 + 9 - 3 - 1 and 1000 * (1 + 3 * 1) > (top.modulus - 1) // 2
    assert p.encoding.wrap_probability.upper() < Fraction(1, 1000)
    assert p.encoding.wrap_probability.direction is Direction.CONDITIONAL
    d = p.to_dict()
    assert d["encoding"]["wrap_probability"]["direction"].startswith("conditional")
    # sigma 1/2 and no target: eps ~ 6e7 says nothing, and the verdict says so beside the premise
    assert "uniform" in d["verdict"]["premises"][0]
    assert [r.split(",")[0] for r in d["verdict"]["reasons"]] == ["no privacy target"]
    assert "if the layers' digits are uniform" in p.verdict.headline()


def test_a_flat_verdict_has_no_premise():
    p = itsa.plan(parse_deployment(BASE), time_limit=60)
    assert p.verdict.premises == () and p.to_dict()["verdict"]["premises"] == []


@pytest.mark.parametrize("name", ["a\nb", "x\x1b[31m", "x" * 201, " "])
def test_a_name_that_would_break_the_one_line_headline_is_refused(name):
    # "a\nb\x1b[31m" was printed raw at the head of the plan (a newline and a terminal escape)
    with pytest.raises(itsa.InvalidDeployment, match="name: must be"):
        parse_deployment({**BASE, "name": name})


def test_the_default_name_is_the_files_stem(tmp_path):
    from itsa.planning.deployment import load_deployment

    (tmp_path / "my deployment.yaml").write_text("clients: 3\ndimension: 2\nclip: 1\nprivacy: {epsilon: 1}\n")
    assert load_deployment(tmp_path / "my deployment.yaml").name == "my deployment"


def test_the_rules_pick_is_assessed_as_distributed_noise_in_a_central_deployment():
    # the rule adds a share of sigma from every client; assessed as one central draw of that sigma, its wrap
    # bound would use 1 share instead of K: it is scored as the rule runs (K shares, its rotation, stochastic
    # rounding), with the deployment's adjacency and survivors
    from itsa.planning.rule.heuristic import certify_heuristic, wrap_bound

    raw = {"clients": 1000, "dimension": 1290, "clip": 1, "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 150},
           "encoding": {"word_bits": 32}}
    central = itsa.plan(parse_deployment({**raw, "noise": "central"}), time_limit=60).heuristic
    config = central.config
    scale, _, sigma = config.picks()
    proxy = 2 * (1000 * scale) ** 2 / config.padded_dimension            # the DFT's certified flatness, 2
    _, by_hand = wrap_bound(clients=1000, dimension=config.padded_dimension, data_proxy=proxy, sigma=sigma,
                            word_bits=32)
    assert central.wrap_probability.upper() == by_hand.upper() > Fraction(1, 10**1200)
    risk = certify_heuristic(config, survivors=1000, rounds=150, delta="1e-6", adjacency="replace-one")
    assert central.epsilon == risk.epsilon and central.risk.survivors == 1000


@pytest.mark.parametrize("budget, rounds, rate", [(5, 400, Fraction(1, 97)), (300, 400, Fraction(96, 97)),
                                                  (40, 400, Fraction(1, 10))])
def test_the_gates_closed_form_encloses_the_exact_sum(monkeypatch, budget, rounds, rate):
    import itsa.planning.gate as gate

    exact = gate.shut_out_probability(budget=budget, rounds=rounds, flag_rate=rate).value()
    monkeypatch.setattr(gate, "MAX_EXACT_BITS", 10)
    ball = gate.shut_out_probability(budget=budget, rounds=rounds, flag_rate=rate)
    assert ball.low <= exact <= ball.high and ball.high - ball.low < Fraction(1, 10**30)


def test_a_long_gate_is_quick():
    # budget 10^6 over 10^7 rounds took about 20 s of ball arithmetic (10^6 terms), past a 20 s time limit,
    # and 5000 over 50000 rounds about 270 s of exact sums
    import time

    from itsa.planning.gate import shut_out_probability

    start = time.monotonic()
    big = shut_out_probability(budget=10**6, rounds=10**7, flag_rate=Fraction(1, 10))
    mid = shut_out_probability(budget=5000, rounds=50000, flag_rate=Fraction(1, 10))
    assert time.monotonic() - start < 5
    # at the mean, just above 1/2 (the binomial's median is its mean here, and P[X = mean] > 0)
    assert Fraction(1, 2) < big.low <= big.high < Fraction(501, 1000)
    assert Fraction(1, 2) < mid.low <= mid.high < Fraction(51, 100)


def _hostile_cases():
    from itsa.testing.hostile import HOSTILE_NUMBERS

    fields = {"clip": lambda v: {"clip": v}, "dropout": lambda v: {"dropout": v},
              "overflow": lambda v: {"overflow": v},
              "epsilon": lambda v: {"privacy": {"epsilon": v}},
              "delta": lambda v: {"privacy": {"epsilon": 1, "delta": v}},
              "sigma": lambda v: {"noise": {"kind": "central", "sigma": v}, "privacy": {"delta": "1e-6"}},
              "gamma": lambda v: {"encoding": {"word_bits": 32, "gamma": v}}}
    return [pytest.param(make(v), id=f"{name}={v[:20]}") for name, make in fields.items() for v in HOSTILE_NUMBERS]


@pytest.mark.parametrize("change", _hostile_cases())
def test_a_hostile_number_is_refused_in_one_line_or_planned_and_printed(change):
    import json

    try:
        d = parse_deployment({**BASE, **change})
    except itsa.InvalidDeployment as exc:
        assert "\n" not in str(exc)
        return
    try:
        p = itsa.plan(d, time_limit=30)
    except itsa.InvalidInput as exc:      # refused while planning (a target no noise meets): one line
        assert "\n" not in str(exc)
        return
    json.dumps(p.to_dict())
    p.rows(), p.markdown()


def test_the_keys_section_says_what_the_key_rate_model_protects():
    p = itsa.plan(parse_deployment({"clients": 3, "dimension": 4, "clip": 1, "privacy": {"epsilon": 4},
                                    "encoding": {"word_bits": 32}, "servers": "example-2"}), time_limit=60)
    text = dict(p.keys.rows())["key security"]
    assert "single server" in text and "pooling" in text and "dropouts" in text
    assert p.keys.to_dict()["security"] == text


@pytest.mark.parametrize("encoding", [{}, {"word_bits": 40}])
def test_a_given_noise_that_misses_the_target_is_planned_at_the_smallest_scale(encoding):
    # without a word, gamma = 2^256 was kept (eps 1e76, and a fix of sigma 3e38); eps only grows with gamma
    from itsa.planning.noise import epsilon_at
    from itsa.planning.planner import noise_inputs

    raw = {"clients": 1000, "dimension": 1000, "clip": 1, "privacy": {"epsilon": 1},
           "noise": {"kind": "distributed", "sigma": "1/2"}, **({"encoding": encoding} if encoding else {})}
    d = parse_deployment(raw)
    p = itsa.plan(d, time_limit=60)
    assert not p.verdict.feasible and p.encoding.gamma == 1
    assert p.noise.epsilon.upper() < epsilon_at(noise_inputs(d), Fraction(2), Fraction(1, 2)).epsilon.upper()
    assert Fraction(p.verdict.fixes["noise"]["sigma_client"]) < 10


def test_a_simulated_layering_compares_with_a_bound_under_the_digit_prior():
    raw = {"clients": 10, "dimension": 4, "clip": 1, "privacy": {"epsilon": 4},
           "encoding": {"radix": 3, "layers": 2}, "overflow": {"probability": "1/100", "per": "coordinate"}}
    run = itsa.simulate_plan(itsa.plan(parse_deployment(raw), time_limit=60), 2, 0)
    assert all(layer.premise and "uniform" in layer.premise for layer in run.layers)
    assert "bound under the digit prior" in run.layers[0].text() and "certified" not in run.layers[0].text()
    flat = itsa.simulate_plan(itsa.plan(parse_deployment(BASE), time_limit=60), 1, 0)
    assert flat.layers[0].premise is None and flat.layers[0].to_dict()["premise"] is None


@pytest.mark.parametrize("servers", ["x" * 300, "x" * 5000, "a\x00b"], ids=["300", "5000", "nul"])
def test_a_servers_name_the_file_system_refuses_is_one_line(tmp_path, servers):
    # "x" * 300 raised OSError (file name too long) and "a\x00b" ValueError (embedded null byte)
    from click.testing import CliRunner

    from cli import main
    from itsa.testing.hostile import check_refusal

    (tmp_path / "d.yaml").write_text("clients: 3\ndimension: 2\nclip: 1\nprivacy: {epsilon: 1}\n"
                                     f"servers: {servers!r}\n".replace("'", '"').replace("\x00", "\\0"))
    args = ["plan", str(tmp_path / "d.yaml"), "--json"]
    result = CliRunner().invoke(main, args)
    check_refusal(result, args)
    assert result.exit_code == 2 and "servers:" in result.stderr


def test_a_layering_also_bounds_the_carry_for_any_data():
    import math

    p = itsa.plan(itsa.load_deployment("table1-psa"), time_limit=60)
    top = p.encoding.stages[0]
    sigma = float(p.noise.sigma_client)
    v = 1000 * sigma**2 * (1 + 3**2)                         # 1000 shares in the stage's two layers
    room = (3 ** (2 + top.margin) - 1) // 2 - 1000 * 4       # every client's symbol at its largest, 4
    by_hand = 2 * math.exp(-((room + 1) ** 2) / (2 * v))
    assert math.isclose(float(top.any_data.upper()), by_hand, rel_tol=1e-9)
    assert top.any_data.upper() > top.carry.upper() and top.any_data.direction is Direction.UPPER
    assert p.to_dict()["encoding"]["stages"][0]["carry_per_coordinate_any_data"]["direction"] == "upper bound"
    small = itsa.plan(parse_deployment({
        "clients": 1000, "dimension": 1290, "clip": 1, "privacy": {"delta": "1e-6", "rounds": 150},
        "noise": {"kind": "distributed", "sigma": "1/2"}, "encoding": {"radix": 3, "layers": 4, "stages": "4,3/2,1"},
        "overflow": {"probability": "1/1000", "per": "coordinate"}}), time_limit=60)
    assert small.encoding.stages[0].any_data.upper() == 1       # 4000 > 1093: the data alone wrap
