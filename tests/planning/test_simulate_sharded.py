"""A simulated round sharded over clients: the same run, seed for seed, in this process and on Dask workers;
its wraps and error beside the plan's certified bounds; the estimate said before it starts; the refusals."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from itsa._util.dask_run import local_cluster, map_in_order
from itsa._util.deadline import Deadline
from itsa._util.progress import Reporter
from itsa.exceptions import InvalidOption
from itsa.planning import parse_deployment
from itsa.planning.drivers.explore import explore_plan
from itsa.planning.mechanisms import mechanism
from itsa.planning.run import shard as shard_module
from itsa.planning.run.from_plan import simulate_plan
from itsa.planning.run.shard import block_clients, round_public, shard_ranges, shard_sums
from itsa.planning.run.simulate import SimulationSetup, _estimate, simulate
from itsa.privacy.sampler import table

#: Setups of every shape the shards merge: flat with dropout, a DFT rotation with conditional rounding, a
#: Hadamard rotation with stochastic rounding, central noise, PSA's two stages of layers.
SETUPS = {
    "flat": dict(clients=61, dimension=40, clip=1, gamma=8, sigma_client=2, dropout="1/10", modulus=2**9),
    "dft": dict(clients=47, dimension=39, clip=1, gamma=30, sigma_client=3, dropout="3/10", modulus=2**12,
                rotation="dft", rounding="conditional"),
    "hadamard": dict(clients=33, dimension=30, clip=1, gamma=16, sigma_client=1, modulus=2**10,
                     rotation="hadamard", rounding="stochastic"),
    "central": dict(clients=40, dimension=40, clip=1, gamma=4, sigma_client=5, noise="central", dropout="1/4",
                    modulus=2**9),
    "psa": dict(clients=50, dimension=40, clip=1, gamma=4, radix=3, layers=2, margin=3, dropout="1/10"),
}


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 200 client-coordinates and shards of 5 blocks: a small round has many of both."""
    monkeypatch.setattr(shard_module, "BLOCK_CELLS", 200)
    monkeypatch.setattr(shard_module, "SHARD_CELLS", 1000)


@pytest.fixture(scope="module")
def two_threads():
    """A real local Dask cluster of two workers, threads of this process (so the small blocks reach them)."""
    with local_cluster(2, processes=False) as c:
        yield c


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_sharded_equals_serial_seed_for_seed(name, small_blocks, two_threads):
    setup = SimulationSetup(**SETUPS[name])
    assert len(shard_ranges(setup)) >= 2 and block_clients(setup) < setup.clients
    updates = "uniform" if name in ("psa", "flat") else "sphere"
    here = simulate(setup, rounds=3, seed=9, updates=updates)
    there = simulate(setup, rounds=3, seed=9, updates=updates, client=two_threads)
    assert here == there and there.workers == 2 and here.workers == 1
    assert here.masks_cancel and here.exact_recovery
    assert here != simulate(setup, rounds=3, seed=10, updates=updates)


def test_the_shards_add_up_to_the_round(small_blocks):
    # the survivors' true sum merged from the shards is the sum over the blocks' own draws, block by block
    setup = SimulationSetup(**SETUPS["flat"])
    signs, alive = round_public(setup, 4, 0)
    assert alive.sum() == setup.survivors
    whole = None
    for lo, hi in shard_ranges(setup):
        part = shard_sums(setup, "uniform", 4, 0, lo, hi, signs, alive)
        whole = part if whole is None else whole.merged(part, setup.moduli)
    size, blocks = block_clients(setup), []
    for a in range(0, setup.clients, size):
        blocks.append(shard_sums(setup, "uniform", 4, 0, a, min(a + size, setup.clients), signs, alive).true[0])
    assert np.array_equal(whole.true[0], np.sum(blocks, axis=0))
    assert np.array_equal(whole.unmasked[0], np.mod(whole.true[0], setup.modulus))   # the masks cancel


def test_map_in_order_hands_results_back_in_order(two_threads):
    import time

    def slow_first(k):
        time.sleep(0.2 if k == 0 else 0.0)
        return k * k

    seen = []
    map_in_order(two_threads, slow_first, ((k,) for k in range(7)), seen.append)
    assert seen == [k * k for k in range(7)]


def test_a_sharded_plan_sets_its_wraps_and_error_beside_the_certified_bounds(small_blocks, two_threads):
    # a wrap-free plan (epsilon 4, a 32-bit word): no wrap, exact recovery, the MSE within its bound
    d = parse_deployment({"clients": 120, "dimension": 50, "clip": 1, "dropout": "1/10",
                          "privacy": {"epsilon": 4, "rounds": 10}, "encoding": {"word_bits": 32}})
    run = explore_plan(d, simulate_rounds=4, seed=2)
    sim = simulate_plan(run.plan, 4, 2, client=two_threads)
    assert sim == run.simulation
    rate = sim.layers[0]
    assert rate.wraps == 0 and rate.consistent is True and sim.exact_recovery and sim.masks_cancel
    assert rate.certified is not None and rate.certified < Fraction(1, 10**6)
    assert float(sim.mse) <= float(sim.planned_mse) + 4 * float(sim.mse_standard_error)


def test_a_frequent_wrap_is_counted_beside_its_bound(small_blocks, two_threads):
    # 20 clients, data in [-1, 1], sigma 10 each, an 8-bit word: wraps are counted and stay under the bound
    d = parse_deployment({"clients": 20, "dimension": 400, "clip": 1, "noise": {"sigma": 10},
                          "privacy": {"delta": "1e-6"}, "encoding": {"word_bits": 8, "gamma": 1},
                          "overflow": {"probability": "1/5", "per": "coordinate"}})
    run = explore_plan(d)
    sim = simulate_plan(run, 6, 1, client=two_threads, updates="uniform")
    rate = sim.layers[0]
    assert rate.wraps > 0 and rate.consistent is True and rate.rate <= rate.certified
    assert sim.resolutions[0][1] == rate.wraps and sim.exact_recovery


def test_the_estimate_is_measured_on_a_block_and_said_first(small_blocks):
    setup = SimulationSetup(**SETUPS["dft"])
    events = []
    run = simulate(setup, rounds=2, seed=1, progress=events.append)
    assert events[0].stage == "simulate: estimate" and "an estimate: one block of" in events[0].note
    assert run.estimate is not None and run.estimate > 0
    with pytest.raises(InvalidOption, match=r"at least about .* past the time limit of .* s: .*--workers"):
        simulate(setup, rounds=10**6, seed=1, time_limit=1e-3)        # the fast end, before any work
    with pytest.raises(InvalidOption, match=r"an estimate: one block of 5 clients .* past the .* time limit: "
                                            r"raise --time-limit \(0: none\), add --workers"):
        _estimate(setup, 10**6, "sphere", 1, 2, Deadline(1.0), Reporter(None))   # the measured one


def test_a_protocol_round_is_not_sharded():
    d = parse_deployment({"clients": 20, "dimension": 10, "clip": 1, "privacy": {"epsilon": 4},
                          "encoding": {"word_bits": 32}, "protocol": {"secagg+": {"corrupt": "1/20"}}})
    with pytest.raises(InvalidOption, match="one process"):
        explore_plan(d, simulate_rounds=1, workers=2)
    with pytest.raises(InvalidOption, match="exclude each other"):
        explore_plan(d, simulate_rounds=1, workers=2, scheduler="tcp://127.0.0.1:1")


def test_dgauss_shares_follow_the_table_law():
    # 200,000 shares at sigma 3 against the table's own probabilities: every count within 5 standard errors
    sigma = Fraction(3)
    draws = mechanism("dgauss").draws(sigma, 200_000, "itsa-test:table-law")
    support, cdf = table(sigma)
    p = np.diff(np.concatenate(([0.0], cdf)))
    counts = np.array([(draws == k).sum() for k in support])
    n = len(draws)
    assert np.all(np.abs(counts - n * p) <= 5 * np.sqrt(n * p * (1 - p)) + 1)
    assert abs(draws.var() - float(mechanism("dgauss").share_variance(sigma))) < 0.05
    assert np.array_equal(draws, mechanism("dgauss").draws(sigma, 200_000, "itsa-test:table-law"))


# --- the command line -----------------------------------------------------------------------------

SMALL = ("clients: 300\ndropout: 3/10\ndimension: 4000\nclip: 1\nadjacency: replace-one\n"
         "privacy: {epsilon: 8, delta: 1e-7, rounds: 2000}\nnoise: {mechanism: dgauss, placement: distributed}\n"
         "encoding: {word_bits: 20, rotation: dft, rounding: conditional}\noverflow: 1e-6\n")


def test_the_cli_shards_a_round_and_says_the_estimate_first(cli, tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    alone = cli("plan", path, "--simulate", "1", "--json", "--workers", "0")
    sharded = cli("plan", path, "--simulate", "1", "--json", "--workers", "2")
    assert alone.exit_code == 0 and sharded.exit_code == 0, sharded.output[-800:]
    assert sharded.stderr.startswith("simulate: about ") and "(an estimate: " in sharded.stderr
    a, b = json.loads(alone.stdout)["simulation"], json.loads(sharded.stdout)["simulation"]
    assert b["workers"] == 2 and b["estimate"]["seconds"] >= 0 and a["workers"] == 1

    def run(d):
        return {k: v for k, v in d.items() if k not in ("seconds", "workers", "estimate")}
    assert run(a) == run(b)
    assert b["wrap"][0]["consistent"] and b["exact_recovery"] and b["masks_cancel"]
    quiet = cli("plan", path, "--simulate", "1", "--json", "--quiet")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_the_cli_refuses_a_cross_device_round_past_its_time_with_the_fixes(cli):
    r = cli("plan", "cross-device", "--simulate", "1", "--workers", "2")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and r.stdout == ""
    assert "12,000,000,000 client-coordinates" in r.stderr and "on 2 workers" in r.stderr
    assert all(word in r.stderr for word in ("--time-limit", "--workers", "--scheduler"))


@pytest.mark.parametrize("args, message", [
    (["--workers", "2"], "--workers goes with a fleet"),
    (["--simulate", "1", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other"),
    (["--simulate", "1", "--workers", "2"], "one process"),
])
def test_the_cli_refuses_bad_sharding_in_one_line(cli, args, message):
    r = cli("plan", "k1000", *args)
    assert r.exit_code == 2 and message in r.stderr and r.stdout == "", r.output[-500:]


@pytest.mark.slow
def test_a_round_of_a_billion_client_coordinates_on_two_workers(cli):
    # 10,000 clients x 120,000 coordinates, the cross-device deployment at a tenth of its dimension
    r = cli("plan", "benchmarks/cross-device-120k.yaml", "--simulate", "1", "--workers", "2", "--time-limit", "0",
            "--json")
    assert r.exit_code == 0, r.output[-800:]
    sim = json.loads(r.stdout)["simulation"]
    assert sim["wrap"][0]["trials"] == 120_000 and sim["wrap"][0]["consistent"] and sim["exact_recovery"]
    assert float(sim["error"]["mse"]) <= float(sim["error"]["planned"]) * (1 + 10 * math.sqrt(2 / 120_000))
