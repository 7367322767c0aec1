"""The plan, run: ``itsa plan --simulate`` and ``itsa.simulate_plan(plan)`` against the plan's certified numbers.

Where wraps are frequent enough to count, the empirical rate must not exceed
the plan's certified bound beyond four standard errors, and must agree both
ways with the exact law where one is known (computed here independently: the
convolution of the digits' and the noise's laws). The error is compared on a
deployment whose rounds do not wrap (the plan's error is that of such a round).
"""

import json
import os
import subprocess
from fractions import Fraction

import numpy as np
import pytest

import itsa
from itsa.modular import DigitLaw, sum_law
from itsa.planning import parse_deployment
from itsa.planning.drivers.explore import ExploredPlan, plan_bounds, setup_from_plan
from tests.cli.test_cli_json_process import installed_itsa

K = 4                                                       # standard errors allowed

#: A flat word where wraps are frequent: 20 clients with data in [-1, 1] (gamma 1, clip 1), sigma 10 each,
#: an 8-bit word; the certified wrap bound per coordinate is about 0.108, the true rate about 0.004.
FLAT = {"clients": 20, "dimension": 2000, "clip": 1, "noise": {"sigma": 10}, "privacy": {"delta": "1e-6"},
        "encoding": {"word_bits": 8, "gamma": 1}, "overflow": {"probability": "1/5", "per": "coordinate"}}
FLAT_YAML = ("clients: 20\ndimension: 2000\nclip: 1\nnoise: {sigma: 10}\nprivacy: {delta: 1e-6}\n"
             "encoding: {word_bits: 8, gamma: 1}\noverflow: {probability: 1/5, per: coordinate}\n")
#: PSA at K = 1000, radix 3, two layers of one digit each, uniform digits (gamma 4: the 9 = 3^2 values -4..4),
#: a central noise too small to matter (sigma 1/1000): the plan's carry bound is the exact law's, 0.11674.
PSA_YAML = ("clients: 1000\ndimension: 150\nclip: 1\nnoise: {kind: central, sigma: 1/1000}\nprivacy: {delta: 1e-6}\n"
            "encoding: {radix: 3, layers: 2, stages: each, gamma: 4}\noverflow: {probability: 1/5, per: coordinate}\n")
#: A wrap-free deployment sized by the planner (epsilon 4, a 32-bit word): the error is compared here.
CALM = {"clients": 200, "dimension": 1500, "clip": 1, "dropout": "1/10", "privacy": {"epsilon": 4, "rounds": 10},
        "encoding": {"word_bits": 32}}


def dg_pmf(sigma: float, top: int) -> np.ndarray:
    k = np.arange(-top, top + 1)
    p = np.exp(-k.astype(float) ** 2 / (2 * sigma**2))
    return p / p.sum()


def exact_flat_wrap(clients: int, data: int, sigma: float, modulus: int) -> float:
    """P(S + Z outside the centred window), S a sum of uniform integers in [-data, data], Z of DG shares."""
    law = np.array([1.0])
    digit = np.full(2 * data + 1, 1 / (2 * data + 1))
    share = dg_pmf(sigma, int(12 * sigma) + 5)
    for _ in range(clients):
        law = np.convolve(np.convolve(law, digit), share)
    top = (len(law) - 1) // 2
    values = np.arange(-top, top + 1)
    inside = (values >= -(modulus // 2)) & (values <= modulus - 1 - modulus // 2)
    return float(law[~inside].sum())


def run_cli(args, cwd):
    out = subprocess.run(installed_itsa() + list(args), cwd=cwd, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "COLUMNS": "100"})
    return out


def test_frequent_wraps_agree_with_the_plan_and_the_exact_law():
    p = itsa.plan(parse_deployment(FLAT))
    (bound,), _ = plan_bounds(p)
    run = itsa.simulate_plan(p, 10, 3, updates="uniform")
    rate = run.layers[0]
    exact = exact_flat_wrap(20, 1, 10.0, 256)
    assert rate.wraps >= 50                                               # frequent enough to count
    assert rate.certified == bound.upper() and rate.consistent is True
    assert float(rate.rate) <= float(bound.upper()) + K * float(rate.standard_error)
    assert abs(float(rate.rate) - exact) <= K * float(rate.standard_error), (rate.rate, exact)
    assert run.exact_recovery and run.masks_cancel and run.resolutions[0][1] == rate.wraps


def test_the_cli_runs_the_plan_end_to_end(tmp_path):
    (tmp_path / "flat.yaml").write_text(FLAT_YAML)
    out = run_cli(["plan", "flat.yaml", "--simulate", "10", "--seed", "3", "--updates", "uniform", "--json"],
                  tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    sim = data["simulation"]
    assert data["verdict"]["verdict"] == "feasible" and sim["rounds"] == 10 and sim["seed"] == 3
    (wrap,) = sim["wrap"]
    rate, se = Fraction(wrap["rate"]), float(wrap["standard_error"])
    exact = exact_flat_wrap(20, 1, 10.0, 256)
    assert wrap["wraps"] >= 50 and wrap["consistent"] is True
    assert Fraction(wrap["certified"]) <= Fraction(data["encoding"]["wrap_probability"]["interval"][1])
    assert abs(float(rate) - exact) <= K * se
    assert sim["exact_recovery"] and sim["masks_cancel"] and sim["setup"]["modulus"] == "256"
    # the same run through the library: the same counts
    lib = itsa.simulate_plan(itsa.plan(parse_deployment(FLAT), seed=3), 10, 3, updates="uniform")
    assert lib.layers[0].wraps == wrap["wraps"]


def test_psa_carries_agree_both_ways_with_the_plans_exact_margin(tmp_path):
    (tmp_path / "psa.yaml").write_text(PSA_YAML)
    out = run_cli(["plan", "psa.yaml", "--simulate", "8", "--seed", "11", "--updates", "uniform", "--json"], tmp_path)
    assert out.returncode == 3, out.stderr[-2000:]            # sigma 1/1000, no target: infeasible, and run
    data = json.loads(out.stdout)
    assert [r.split(",")[0] for r in data["verdict"]["reasons"]] == ["no privacy target"]
    exact = sum_law(DigitLaw.uniform(3), 1000).carry(40).high           # the modular part's exact law, m = 3
    stages = data["encoding"]["stages"]
    assert [s["margin"] for s in stages] == [3, 3]
    for wrap in data["simulation"]["wrap"]:
        certified = Fraction(wrap["certified"])
        assert abs(certified - exact) < Fraction(1, 10**6)               # the noise adds nothing visible
        se = float(wrap["standard_error"])
        assert abs(float(Fraction(wrap["rate"])) - float(certified)) <= K * se, wrap
        assert wrap["modulus"] == 81 and wrap["consistent"] is True
    assert data["simulation"]["exact_recovery"]


def test_the_error_agrees_with_the_plans_on_a_round_that_does_not_wrap():
    p = itsa.plan(parse_deployment(CALM))
    assert p.verdict.feasible
    run = itsa.simulate_plan(p, 3, 1)
    se = float(run.mse_standard_error)
    assert run.layers[0].wraps == 0 and run.exact_recovery
    assert run.planned_mse == p.error.per_coordinate
    assert abs(float(run.mse) - float(run.predicted_mse)) <= K * se
    assert abs(float(run.mse) - float(p.error.per_coordinate)) <= K * se  # the bound is tight here: both ways
    assert run.setup.sigma_client == p.noise.sigma_client and run.setup.survivors == 180


def test_setup_from_a_real_plan():
    p = itsa.plan(parse_deployment(CALM))
    s = setup_from_plan(p)
    assert (s.clients, s.dimension, s.gamma, s.modulus) == (200, 1500, p.encoding.gamma, 2**32)
    layered = itsa.plan(parse_deployment({"clients": 50, "dimension": 20, "clip": 1, "privacy": {"epsilon": 8},
                                          "encoding": {"radix": 3, "layers": 4, "stages": "4,3/2,1"}}))
    s = setup_from_plan(layered)
    assert s.stages == ((4, 3), (2, 1)) and s.margin == tuple(st.margin for st in layered.encoding.stages)
    assert s.moduli == tuple(st.modulus for st in reversed(layered.encoding.stages))
    run = itsa.simulate_plan(layered, 1, 0)
    assert run.exact_recovery and [r.certified for r in run.layers] == [
        st.carry.upper() for st in reversed(layered.encoding.stages)]
    both = ExploredPlan(layered, run)
    assert both.to_dict()["simulation"]["wrap"][0]["layers"] == [2, 1] and "## simulation" in both.markdown()


@pytest.mark.parametrize("args, message", [
    (["--simulate", "0"], "simulate"),
    (["--simulate", "2", "--seed", "-1"], "seed"),
    (["--sweep", "nonsense=1..2"], "sweep quantity"),
    (["--sweep", "word_bits=40..2"], "range"),
    (["--sweep", "word_bits=60..64"], "word_bits"),
    (["--sweep", "dropout=0,1"], "dropout"),
    (["--sweep", "word_bits=12..14", "--figure", "no/such/folder/f.pdf"], "folder"),
    (["--sweep", "word_bits=12..14", "--figure", "f.txt"], "extension"),
    (["--figure", "f.pdf"], "--sweep"),
])
def test_bad_inputs_are_one_line_exit_2_and_write_nothing(tmp_path, args, message):
    (tmp_path / "flat.yaml").write_text(FLAT_YAML)
    out = run_cli(["plan", "flat.yaml", "--markdown", "r.md", *args], tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert out.stdout == "" and sorted(p.name for p in tmp_path.iterdir()) == ["flat.yaml"]


def test_a_layering_cannot_be_swept(tmp_path):
    (tmp_path / "psa.yaml").write_text(PSA_YAML)
    out = run_cli(["plan", "psa.yaml", "--sweep", "clients=10,20"], tmp_path)
    assert out.returncode == 2 and "flat word" in out.stderr
