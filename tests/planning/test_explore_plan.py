"""The library's plan + simulation + sweep (:func:`itsa.planning.explore_plan`), called without the CLI.

It must give the plan that :func:`itsa.plan` gives, the simulation that
:func:`itsa.simulate_plan` gives on it and the sweep that
:func:`~itsa.planning.drivers.explore.sweep_plan` gives, and refuse a simulation or a
sweep that cannot run before any planning (no progress event at all).
"""

import pytest

import itsa
from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.planning import ExploredPlan, Plan, explore_plan, parse_deployment, plan
from itsa.planning.drivers.explore import sweep_plan
from itsa.planning.run.from_plan import simulate_plan

#: A small flat word with the file's sigma and gamma: the plan is instant, the simulation small.
SMALL = {"clients": 20, "dimension": 50, "clip": 1, "noise": {"sigma": 4}, "privacy": {"delta": "1e-6"},
         "encoding": {"word_bits": 9, "gamma": 1}, "overflow": {"probability": "1/2", "per": "coordinate"}}


def _timeless(result) -> dict:
    return {k: v for k, v in result.to_dict().items() if k != "seconds"}


@pytest.fixture(scope="module")
def small():
    return parse_deployment(SMALL)


def test_alone_it_is_the_plan(small):
    alone = explore_plan(small, time_limit=0)
    assert isinstance(alone, Plan) and alone.to_dict() == plan(small, time_limit=0).to_dict()


def test_the_plan_its_run_and_its_sweep(small):
    run = explore_plan(small, simulate_rounds=3, sweep="word_bits=9..10", seed=5, time_limit=0)
    assert isinstance(run, ExploredPlan)
    p = plan(small, seed=5, time_limit=0)
    assert run.plan.to_dict() == p.to_dict()
    assert run.simulation is not None and _timeless(run.simulation) == _timeless(simulate_plan(p, 3, 5))
    assert run.sweep is not None and run.sweep.to_dict() == sweep_plan(p, "word_bits", [9, 10]).to_dict()
    assert [pt.value for pt in run.sweep.points] == [9, 10]
    pair = explore_plan(small, sweep=("word_bits", [9, 10]), time_limit=0)   # a (quantity, values) pair
    assert isinstance(pair, ExploredPlan) and pair.simulation is None
    assert pair.sweep is not None and pair.sweep.to_dict() == run.sweep.to_dict()


def test_exported_beside_plan():
    assert itsa.planning.explore_plan is explore_plan


@pytest.mark.parametrize("kwargs, words", [
    ({"simulate_rounds": 0}, "rounds.: must be a whole number in 1..1000000"),
    ({"simulate_rounds": 2, "seed": -1}, "seed"),
    ({"sweep": "word_bits=1..3"}, "sweep: word_bits"),
    ({"sweep": "epsilon=1,2"}, "epsilon is not a target"),
    ({"sweep": "colour=1..2"}, "sweep"),
])
def test_refused_before_any_work(small, kwargs, words):
    events = []
    with pytest.raises(InvalidOption, match=words):
        explore_plan(small, progress=events.append, **kwargs)
    assert events == []                     # refused before the plan's first step


def test_a_simulation_past_the_time_limit_is_refused_after_the_verdict(small):
    """The plan runs first, so that an infeasible plan keeps its verdict (the simulation's refusal becomes its
    note); a feasible plan, or a plan the clock stops, is refused as before: exit 2, past the time limit."""
    with pytest.raises(InvalidOption, match="past the time limit"):
        explore_plan(small, simulate_rounds=10**6, time_limit=0.1)
    narrow = explore_plan(parse_deployment({**SMALL, "encoding": {"word_bits": 4}}), simulate_rounds=10**6,
                          time_limit=30)
    assert not narrow.plan.verdict.feasible and "past the time limit" in narrow.summary()


def test_one_clock(small):
    """A clock already running is the plan's, the simulation's and the sweep's: a spent one stops the run."""
    with pytest.raises(itsa.exceptions.TimeLimitReached):
        explore_plan(parse_deployment({**SMALL, "encoding": {"word_bits": 9}}), sweep="word_bits=9..10",
                     time_limit=Deadline.spent())


def test_an_infeasible_plan_the_simulation_cannot_take_is_shown_with_why_not():
    # a scale of 1e12 wraps surely and needs shares beyond the sampler's range: the plan (infeasible) is still
    # the answer, with the simulation marked not run, instead of an error that hides the verdict
    d = parse_deployment({"clients": 20, "dimension": 64, "clip": 1,
                          "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 10},
                          "noise": {"mechanism": "skellam", "placement": "distributed"},
                          "encoding": {"word_bits": 16, "rotation": "hadamard", "rounding": "conditional",
                                       "gamma": "1e12"}, "overflow": "0.9"})
    run = explore_plan(d, simulate_rounds=5, time_limit=60)
    assert not run.plan.verdict.feasible and run.simulation is None
    assert run.not_simulated.startswith("the plan is infeasible and cannot be simulated")
    assert run.to_dict()["simulation"]["run"] is False
    assert any(k == "simulation" and v.startswith("not run") for k, v in run.rows())
