"""Practitioners' accounting: epsilon per round, the rounds affordable, a population, the frameworks' units."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

import itsa
from itsa.exceptions import InvalidDeployment
from itsa.planning import parse_deployment
from itsa.planning.accounting import rounds_affordable
from itsa.privacy.accounting import Accountant

SMALL = {"clients": 100, "dimension": 20, "clip": 1, "adjacency": "add-remove", "noise": "central",
         "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 20}, "encoding": {"word_bits": 32, "gamma": 64}}


@pytest.fixture(scope="module")
def small():
    return itsa.plan(parse_deployment(SMALL))


def test_per_round_and_rounds_affordable(small):
    a = small.noise.accounting
    assert a.epsilon_per_round.upper() < small.noise.epsilon.upper()
    assert a.rounds_affordable >= 20
    data = small.noise.to_dict()
    assert data["rounds_affordable"] == a.rounds_affordable and "epsilon_per_round" in data
    more = itsa.plan(parse_deployment({**SMALL, "noise": {"kind": "central", "sigma": str(small.noise.sigma_client)},
                                       "privacy": {"delta": "1e-6", "rounds": a.rounds_affordable + 1}}))
    assert more.noise.epsilon.upper() > 2                        # one round more misses the target
    same = itsa.plan(parse_deployment({**SMALL, "noise": {"kind": "central", "sigma": str(small.noise.sigma_client)},
                                       "privacy": {"delta": "1e-6", "rounds": a.rounds_affordable}}))
    assert same.noise.epsilon.upper() <= 2


def test_rounds_affordable_bisection():
    assert rounds_affordable(lambda t: Fraction(t, 7), Fraction(10), 3) == 70
    assert rounds_affordable(lambda t: Fraction(t), Fraction(1, 2), 3) == 0


POPULATION = {**SMALL, "population": 10_000, "noise": {"kind": "central", "sigma": 400},
              "privacy": {"delta": "1e-6", "rounds": 20}}


def test_population_amplifies():
    sampled = itsa.plan(parse_deployment(POPULATION))
    full = itsa.plan(parse_deployment({k: v for k, v in POPULATION.items() if k != "population"}))
    assert sampled.noise.epsilon.upper() < full.noise.epsilon.upper() / 4
    a = sampled.noise.accounting
    assert a.population == 10_000 and a.sampling == "poisson" and a.rate == Fraction(1, 100)
    # the sampled mechanism's own lower bound: a threshold test on the sampled pair (below the plan's epsilon)
    assert 0 < a.epsilon_lower.upper() <= a.epsilon.upper() and "in the sample with probability 1/100" in a.lower_note
    assert a.ratio.upper() >= 1
    event = sampled.round_event()
    assert "Poisson-sampled" in event.label
    assert Accountant().compose(event, 20).bound(Fraction(1, 10**6)).epsilon == a.epsilon_rdp
    assert sampled.to_dict()["deployment"]["population"] == 10_000


@pytest.mark.parametrize("population", [101, 150, 1000])
def test_a_population_never_costs_noise(small, population):
    """Under add-remove with noise added once, sampling never hurts: the full round's bounds hold for the
    sampled round, so a population's calibrated sigma is never above the same deployment's without one."""
    sampled = itsa.plan(parse_deployment({**SMALL, "population": population}))
    assert sampled.encoding.gamma == small.encoding.gamma
    assert sampled.noise.sigma_client <= small.noise.sigma_client
    assert sampled.noise.epsilon.upper() <= 2 and sampled.verdict.feasible


def test_the_bound_a_population_plan_takes_is_named(small):
    from itsa.planning.noise import FULL_ROUND
    from itsa.privacy.tightest import SAMPLED_KEY

    # d = 1 at rate 100/101: the full round's own one-axis pair (exact) beats the sampled dominating pair, (Delta + 2)/s
    one = {**SMALL, "dimension": 1}
    alone = itsa.plan(parse_deployment(one)).noise
    near = itsa.plan(parse_deployment({**one, "population": 101})).noise
    a = near.accounting
    assert a.upper_method == f"{alone.accounting.upper_method}-full" == "pld-full"
    assert str(near.epsilon.method).startswith(FULL_ROUND) and near.epsilon == a.epsilon
    assert near.epsilon.upper() == alone.epsilon.upper() and "unsampled" in dict(near.rows())["epsilon upper"]
    # the sampled round's own lower bound (the full round's is not the sampled round's)
    assert a.epsilon_lower.upper() <= near.epsilon.upper() and "probability 100/101" in a.lower_note
    # d = 20: the sampled pair's privacy-loss distribution, even at rate 100/101 (less noise than without sampling)
    close = itsa.plan(parse_deployment({**SMALL, "population": 101})).noise
    assert close.accounting.upper_method == SAMPLED_KEY and close.sigma_client < small.noise.sigma_client
    assert "Poisson-sampled Gaussian pair" in str(close.epsilon.method)
    assert close.accounting.epsilon_rdp.upper() > close.epsilon.upper()
    # rate 10^-4: a noise multiplier near 0.6, below the lattice smoothing: the coordinatewise dominating pair
    # keeps the plan on the sampled pair's grid (it fell back to the sampled Renyi bound)
    far = itsa.plan(parse_deployment({**SMALL, "population": 10**6})).noise
    assert far.accounting.upper_method == SAMPLED_KEY and "coordinate by coordinate" in str(far.epsilon.method)
    assert not str(far.epsilon.method).startswith(FULL_ROUND) and far.epsilon.upper() < far.accounting.epsilon_rdp.upper()
    # the plan picks stochastic rounding here, which keeps the pair's integer updates exact: a lower bound
    assert 0 < far.accounting.epsilon_lower.upper() <= far.epsilon.upper()


@pytest.mark.parametrize(("change", "word"), [({"sampling": "fixed"}, "fixed-size"),
                                              ({"adjacency": "replace-one"}, "add-remove"),
                                              ({"noise": {"kind": "distributed", "sigma": 400}}, "replace-one"),
                                              ({"population": 50}, "at least"),
                                              ({"encoding": {"radix": 3, "layers": 4}}, "layering")])
def test_population_refusals(change, word):
    with pytest.raises(InvalidDeployment, match=word):
        parse_deployment({**POPULATION, **change})


def test_cli_population_refused_in_one_line(tmp_path):
    from itsa_cli import main

    path = tmp_path / "d.yaml"
    path.write_text("clients: 10\ndimension: 2\nclip: 1\npopulation: 100\nsampling: fixed\nadjacency: add-remove\n"
                    "noise: central\nprivacy: {epsilon: 1}\n")
    result = CliRunner().invoke(main, ["plan", str(path), "--quiet"])
    assert result.exit_code == 2 and "fixed-size" in result.output and "Traceback" not in result.output


def test_frameworks_section(small):
    f = small.to_dict()["frameworks"]
    z = Fraction(f["tff"]["noise_multiplier"]["interval"][0])
    assert abs(z - small.noise.sigma_client / 64) < Fraction(1, 10**6)            # central: sigma/(gamma S)
    assert f["tff"]["l2_clip"] == "1" and f["tff"]["expected_clients_per_round"] == 100
    assert f["dp_accounting"]["certifies_plan_epsilon"] == small.noise.accounting.upper_method.startswith("dominating")
    assert 0 < Fraction(f["dp_accounting"]["noise_multiplier"]) <= small.noise.noise_multiplier.lower()   # (D+2)/s
    assert f["flower"]["num_sampled_clients"] == 100 and f["flower"]["clipping_norm"] == "1"
    assert "TFF" in dict(small.rows())


def test_hospitals_warns_that_the_noise_dwarfs_the_mean():
    from itsa_cli import main

    result = CliRunner().invoke(main, ["plan", "hospitals", "--quiet", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["deployment"]["clients"] == 12
    assert any("dwarfs" in w for w in data["noise"]["warnings"])


def test_a_tiny_noise_on_a_sample_is_bounded_not_a_nan():
    """Calibration tries tiny noises: the sampled bound's sum overflows there, and the unsampled one holds."""
    from itsa.privacy.events import DiscreteGaussianEvent
    from itsa.privacy.subsampled import PoissonSampledEvent

    inner = DiscreteGaussianEvent(sigma=Fraction(1, 2**400), sensitivity=2**20)
    bound = PoissonSampledEvent(event=inner, rate=Fraction(1, 1000)).rdp(256)
    assert bound.is_finite() and bound.upper() >= inner.rdp(256).lower()


def test_no_honest_rule_over_a_population():
    p = itsa.plan(parse_deployment(POPULATION))
    assert p.heuristic.honest.mse_total is None and "Poisson sample" in p.heuristic.honest.reason


@pytest.mark.parametrize(("spec", "index"), [("rounds=10,40", 0), ("dimension=5,40", 0), ("clip=1/2,2", 0),
                                             ("sigma=300,600", 1), ("population=1000,10000", 1)])
def test_the_new_sweeps(spec, index):
    from itsa.planning.drivers.explore import sweep_plan
    from itsa.planning.drivers.sweep import parse_sweep

    raw = {**SMALL, "encoding": {"word_bits": 20}}
    if index:
        raw = {**POPULATION, "encoding": {"word_bits": 20}}
    if spec.startswith("population"):   # z about 6, where amplification helps (at the word's own gamma, z is
        raw["encoding"] = {"word_bits": 20, "gamma": 64}   # 0.08: the full round's eps wins, the same for both)
    p = itsa.plan(parse_deployment(raw))
    s = sweep_plan(p, *parse_sweep(spec), time_limit=120)
    eps, error = ([pt.itsa[k].upper() for pt in s.points] for k in (0, 2))
    if spec.startswith("rounds"):
        assert error[0] < error[1]              # more rounds at the same target: more noise
    if spec.startswith("population"):
        assert eps[0] > eps[1]                  # the same noise on a larger population: more amplification
    assert len(s.points) == 2 and all(pt.heuristic is not None for pt in s.points)


def test_a_swept_value_the_file_refuses_is_refused():
    from itsa.exceptions import InvalidOption
    from itsa.planning.drivers.explore import check_sweep
    from itsa.planning.drivers.sweep import parse_sweep

    d = parse_deployment({**SMALL, "adjacency": "replace-one"})
    with pytest.raises(InvalidOption, match="add-remove"):
        check_sweep(d, *parse_sweep("population=1000,2000"))
    with pytest.raises(InvalidOption, match="rounds"):
        check_sweep(d, *parse_sweep("rounds=0,10"))


def test_the_frameworks_section_says_flower_does_not_sample_as_the_plan_does():
    notes = itsa.plan(parse_deployment(POPULATION)).frameworks.notes
    assert any("Poisson sample" in n and "fixed cohort" in n for n in notes)
    assert not any("Poisson sample" in n for n in itsa.plan(parse_deployment(SMALL)).frameworks.notes)
