"""The shipped binomial deployment, scaled down, runs in Flower from its export: released with the plan's noise.

``k10000-binomial`` as shipped (ε 4 at δ 1e-6 over 150 rounds, a 40-bit word
that never wraps, a tenth of the clients may drop out, SecAgg+ against a
twentieth corrupt) with only its cohort and its model made small, so that a
round runs in a test. Each client's share is ``Bin(N, ½) − N/2`` drawn exactly
(:func:`itsa.privacy.samplers.fair_coins`); Flower's own ``secaggplus_mod`` and
``SecAggPlusWorkflow`` carry the words (in this process, and in the slow test
in Flower's simulation engine); the released error is the survivors' coins,
whose variance is the plan's accounted event's ``coins / 4`` exactly, plus the
rounding's.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import yaml

pytest.importorskip("flwr")

from itsa.frameworks import export_plan  # noqa: E402
from itsa.frameworks.flower_dp import CLIENT_MODS, FlowerPlan  # noqa: E402
from itsa.keys.examples import resolve_deployment  # noqa: E402
from itsa.planning import parse_deployment, plan  # noqa: E402
from itsa.planning.mechanisms import mechanism  # noqa: E402
from itsa.privacy.binomial_count import BinomialSharesEvent  # noqa: E402
from tests.frameworks.test_flower_dp import (  # noqa: E402, F401  (seeded: every client secret from a counter)
    flat,
    run_in_process,
    run_simulation,
    seeded,
    update_of,
)

#: The scaled-down cohort and model; one client of the ten drops out (the plan counts nine survivors).
CLIENTS, DIMENSION, DROPPED = 10, 256, frozenset({3})


@pytest.fixture(scope="module")
def scaled():
    """The shipped file with only ``clients`` and ``dimension`` changed: its plan and its Flower export (JSON)."""
    import json

    raw = yaml.safe_load(resolve_deployment("k10000-binomial").read_text(encoding="utf-8"))
    assert (raw["clients"], raw["dimension"], raw["noise"]["mechanism"]) == (10000, 100000, "binomial")
    the_plan = plan(parse_deployment({**raw, "clients": CLIENTS, "dimension": DIMENSION}))
    return the_plan, json.loads(json.dumps(export_plan(the_plan, "flower").to_dict()))


def _released_error_against_the_plans_noise(the_plan, export, steps: np.ndarray) -> tuple[float, float, float]:
    """The released error's deviation per coordinate, and the bounds the plan's noise (plus the rounding) sets."""
    p = export["distributed_dp"]["plan"]
    alive = [i for i in range(CLIENTS) if i not in DROPPED]
    err = (steps - np.mean([update_of(i, DIMENSION) for i in alive], axis=0)).ravel()      # rows: rounds
    event = the_plan.round_event()
    assert isinstance(event, BinomialSharesEvent)
    room = mechanism("binomial")
    n, gamma = len(alive), float(Fraction(p["gamma"]))
    assert n == export["distributed_dp"]["survivors"]            # as many reporting as the plan's noise counts
    assert event.coins == n * room.coins(Fraction(p["sigma_client"]))     # the event is the survivors' coins
    noise = float(Fraction(event.coins, 4))                  # Var Bin(coins, 1/2), exactly: the plan's noise
    low, high = math.sqrt(noise) / (gamma * n), math.sqrt(noise + n / 4) / (gamma * n)   # + rounding <= 1/4 each
    tolerance = 5 / math.sqrt(2 * len(err))
    return float(err.std()), low * (1 - tolerance), high * (1 + tolerance)


def test_the_scaled_binomial_deployment_exports_flowers_mods_and_a_word_that_never_wraps(scaled):
    the_plan, export = scaled
    assert export["client_mods"] == list(CLIENT_MODS) and export["fit_workflow"]
    p = export["distributed_dp"]["plan"]
    assert (p["mechanism"], p["engine"], p["modulus"]) == ("binomial", "exact", str(2**40))
    flower = FlowerPlan.from_dict(p)
    assert flower.shift > 0                                   # a 40-bit word: centred residues in Flower's int32
    assert flower.window_drop().upper() < Fraction(1, 10**100)   # a share leaves the window all but never
    assert the_plan.noise.epsilon.upper() <= 4


def test_a_round_of_the_scaled_binomial_deployment_is_released_with_the_plans_noise(scaled):
    """Two rounds through Flower's SecAgg+ (in this process), one client dropping out of each: the released
    step minus the survivors' mean update deviates as the plan's accounted coins, within sampling error."""
    the_plan, export = scaled
    model = [np.full(DIMENSION, 1.5)]
    rounds = run_in_process(export, clients=CLIENTS, rounds=2, dropped=DROPPED, model=model)
    steps = np.diff(np.vstack([flat(model)] + rounds), axis=0)
    std, low, high = _released_error_against_the_plans_noise(the_plan, export, steps)
    assert low < std < high


@pytest.mark.slow
def test_a_real_flower_simulation_round_of_the_scaled_binomial_deployment(scaled):
    """The same in Flower's simulation engine (Ray): one round, released with the plan's noise."""
    the_plan, export = scaled
    model = [np.full(DIMENSION, 1.5)]
    step = run_simulation(export, clients=CLIENTS, dropped=DROPPED, model=model)
    std, low, high = _released_error_against_the_plans_noise(the_plan, export, step[None, :])
    assert low < std < high
