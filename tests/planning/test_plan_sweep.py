"""``itsa plan --sweep``: itsa's curve re-planned at each value beside the k-sd rule's; table, JSON, figure, speed."""

import dataclasses
import json
import re
from fractions import Fraction

import pytest

import itsa
from itsa.planning import load_deployment, parse_deployment
from itsa.planning.drivers.explore import ExploredPlan, sweep_plan
from itsa.planning.drivers.sweep import parse_sweep
from itsa.planning.encoding import wrap_probability
from tests.planning.test_plan_simulate import run_cli

#: rounding named: the wrap bound below is rounding to nearest's (a file naming none may get stochastic rounding)
BASE = {"clients": 200, "dimension": 300, "clip": 1, "dropout": "1/10", "privacy": {"epsilon": 4, "rounds": 20},
        "encoding": {"word_bits": 24, "rounding": "nearest"}}


def test_each_point_is_the_plan_of_the_deployment_at_that_value():
    d = parse_deployment(BASE)
    s = sweep_plan(itsa.plan(d), *parse_sweep("word_bits=14,20"))
    for point, bits in zip(s.points, (14, 20)):
        again = itsa.plan(parse_deployment(BASE | {"encoding": {"word_bits": bits, "rounding": "nearest"}}))
        eps, wrap, error = point.itsa
        assert eps == again.noise.epsilon and error.upper() == again.error.per_coordinate
        per_round = wrap_probability(word_bits=bits, clients=200, bound=again.encoding.data_range,
                                     sigma=again.noise.sigma_client, shares=200, coordinates=300)
        assert wrap.upper() == per_round.upper()
        assert point.heuristic.config.word_bits == bits
    for q, spec in (("epsilon", "epsilon=2,8"), ("clients", "clients=100,400"), ("dropout", "dropout=0,1/2")):
        points = sweep_plan(itsa.plan(d), *parse_sweep(spec)).points
        assert [p.itsa[0].upper() <= Fraction(8) for p in points] == [True, True], q
    low, high = sweep_plan(itsa.plan(d), *parse_sweep("epsilon=2,8")).points
    assert low.itsa[2].upper() > high.itsa[2].upper()                 # less privacy, less noise, less error


@pytest.mark.slow
def test_a_30_point_sweep_at_k1000_plans_every_point():
    d = dataclasses.replace(load_deployment("deployments/k1000.yaml"), servers=None)
    p = itsa.plan(d)
    s = sweep_plan(p, *parse_sweep("word_bits=12..41"))      # its speed: benchmarks/bench_plan.py
    assert len(s.points) == 30
    assert all(pt.itsa is not None for pt in s.points)
    data = ExploredPlan(p, sweep=s).to_dict()
    assert data["sweep"]["quantity"] == "word_bits" and data["verdict"]["verdict"] == "feasible"


def test_the_cli_sweep_prints_json_and_draws_a_pdf_without_type3_fonts(tmp_path):
    (tmp_path / "d.yaml").write_text("clients: 200\ndimension: 300\nclip: 1\nprivacy: {epsilon: 4, rounds: 20}\n"
                                     "encoding: {word_bits: 24}\n")
    out = run_cli(["plan", "d.yaml", "--sweep", "word_bits=14..18:2", "--figure", "s.pdf", "--json"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert [p["value"] for p in data["sweep"]["points"]] == ["14", "16", "18"]
    assert all(p["itsa"]["epsilon"]["direction"] == "upper bound" for p in data["sweep"]["points"])
    pdf = (tmp_path / "s.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and not re.search(rb"/Subtype\s*/Type3", pdf)
    text = run_cli(["plan", "d.yaml", "--sweep", "clients=100,200", "--quiet"], tmp_path)
    assert text.returncode == 0 and "clients = 100" in text.stdout and "itsa:" in text.stdout


def test_plans_differing_only_in_their_word_calibrate_each_scale_once():
    from itsa.planning import noise
    from itsa.planning.planner import noise_inputs

    d = noise_inputs(parse_deployment(BASE))
    gamma = Fraction(2**10)
    first = noise.calibrated_sigma(d, gamma)
    before = noise._remembered.cache_info().hits
    deployment = parse_deployment(BASE)
    other = noise_inputs(dataclasses.replace(deployment, encoding=dataclasses.replace(deployment.encoding,
                                                                                      word_bits=30), name="other"))
    assert noise.calibrated_sigma(other, gamma) == first and noise._remembered.cache_info().hits == before + 1
    fewer = dataclasses.replace(d, clients=100)                      # another question: calibrated anew
    assert noise.calibrated_sigma(fewer, gamma) != first
    assert noise.calibrated_sigma(d, gamma, progress=lambda e: None) == first   # the same answer, uncached
