"""Distributed DP in Flower: the client mod and the fit workflow, against Flower's own arithmetic and messages.

The fast tests run Flower's ``quantize``/``dequantize``, its ``secaggplus_mod``
and its ``SecAggPlusWorkflow`` in this process (a grid that hands each message
to the ``ClientApp`` of its node, no Ray); the slow one runs real Flower rounds
in the simulation engine. Every federation is wired from the export's JSON
alone, for an ordinary app: it returns the global model plus its update, with
``num_examples = 1`` and weights beyond the clip.
"""

from __future__ import annotations

import copy
import importlib
import json
import logging
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

flwr = pytest.importorskip("flwr")

from flwr.app import Context, Message, RecordDict  # noqa: E402
from flwr.client import ClientApp, NumPyClient  # noqa: E402
from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays  # noqa: E402
from flwr.common.secure_aggregation.quantization import quantize  # noqa: E402
from flwr.compat.common import recorddict_compat as compat  # noqa: E402
from flwr.server import LegacyContext, ServerConfig  # noqa: E402
from flwr.server.strategy import FedAvg  # noqa: E402
from flwr.server.workflow.constant import MAIN_PARAMS_RECORD  # noqa: E402

from itsa.exceptions import InvalidOption, VerificationError  # noqa: E402
from itsa.frameworks import export_plan  # noqa: E402
from itsa.frameworks.flower_dp import (  # noqa: E402
    CLIENT_MODS,
    FlowerPlan,
    decode_sum,
    distributed_dp_mod,
    encode_update,
    equal_weights_mod,
    flower_aggregate,
    pinned_mod,
    word_sum,
)
from itsa.frameworks.flower_grid import run_fit_rounds, task_identity  # noqa: E402
from itsa.planning import load_deployment, parse_deployment, plan  # noqa: E402
from itsa.privacy.discrete_gaussian import variance  # noqa: E402
from itsa.privacy.sampler import sample  # noqa: E402

logging.getLogger("flwr").setLevel(logging.ERROR)

#: The model of the ordinary app: two arrays, most weights beyond the clip S = 1.
GLOBAL = [np.full((2, 3), 1.5), np.array([-2.0, 0.25])]
DIMENSION = 8


def load(name: str):
    """An importable ``module:attribute`` name, as the export writes it."""
    module, attribute = name.split(":")
    return getattr(importlib.import_module(module), attribute)


@pytest.fixture(autouse=True)
def seeded(monkeypatch):
    """Every secret a client draws in this process (noise seed, rounding coins) from one seeded counter."""
    import itertools

    import itsa.frameworks.flower_dp as module

    counter = itertools.count()
    monkeypatch.setattr(module, "fresh_secret", lambda: f"{next(counter):064x}")


def the_export(spec: dict) -> dict:
    """``itsa plan --export flower`` of ``spec``, through its JSON text."""
    return json.loads(json.dumps(export_plan(plan(parse_deployment(spec)), "flower").to_dict()))


def spec_of(noise: str, *, clients: int = 8, dimension: int = DIMENSION, **encoding) -> dict:
    dropout = "1/4" if noise == "distributed" else 0
    return {"clients": clients, "dimension": dimension, "clip": 1, "dropout": dropout, "noise": noise,
            "privacy": {"epsilon": 8, "delta": "1e-5", "rounds": 2}, "encoding": {"word_bits": 20, **encoding}}


def update_of(pid: int, dimension: int = DIMENSION) -> np.ndarray:
    """Client ``pid``'s update: norm 0.9 (under the clip), the same in every run."""
    u = np.random.default_rng(pid).normal(size=dimension)
    return u * (0.9 / np.linalg.norm(u))


class OrdinaryClient(NumPyClient):
    """Returns the global model plus its update, ``num_examples = 1``; clients in ``dropped`` fail their fit."""

    def __init__(self, pid: int, dropped: frozenset[int]):
        self.pid, self.dropped = pid, dropped

    def fit(self, parameters, config):
        if self.pid in self.dropped:
            raise RuntimeError("this client drops out")
        flat = np.concatenate([p.ravel() for p in parameters]) + update_of(self.pid, sum(p.size for p in parameters))
        out, start = [], 0
        for p in parameters:
            out.append(flat[start:start + p.size].reshape(p.shape))
            start += p.size
        return out, 1, {}


def client_app(export: dict, dropped=frozenset()) -> ClientApp:
    def client_fn(context: Context):
        return OrdinaryClient(int(context.node_config["partition-id"]), dropped).to_client()

    return ClientApp(client_fn=client_fn, mods=[load(m) for m in export["client_mods"]])


def run_in_process(export: dict, *, clients: int, rounds: int = 1, dropped=frozenset(), seed: int = 0,
                   model=None, noise_seed: str | None = None) -> list[np.ndarray]:
    """The export's fit workflow over ``rounds`` rounds in this process: the flat global model after each."""
    workflow = load(export["fit_workflow"])(export, seed=seed, noise_seed=noise_seed)
    models = run_fit_rounds(client_app(export, dropped), workflow, clients=clients, rounds=rounds,
                            model=GLOBAL if model is None else model)
    return [flat(m) for m in models]


def flat(arrays) -> np.ndarray:
    return np.concatenate([np.asarray(a).ravel() for a in arrays])


# -- the export ------------------------------------------------------------------------------------

def test_the_k1000_export_names_the_mods_and_the_workflow_in_flowers_order(cli):
    r = cli("plan", "k1000", "--export", "flower", "--quiet")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["client_mods"] == list(CLIENT_MODS) and out["client_mods"][0] == "flwr.client.mod:secaggplus_mod"
    from flwr.client.mod import secaggplus_mod

    assert load(out["client_mods"][0]) is secaggplus_mod and load(out["client_mods"][1]) is distributed_dp_mod
    workflow = load(out["fit_workflow"])(out)
    from flwr.server.workflow import SecAggPlusWorkflow

    assert isinstance(workflow, SecAggPlusWorkflow)
    kw = out["distributed_dp"]["SecAggPlusWorkflow"]
    # a 32-bit word is wider than Flower's int32 cast: the centred window of 2^31 - 1 values
    assert (kw["max_weight"], kw["quantization_range"], kw["modulus_range"]) == (1.0, 2**31 - 2, 2**32)
    assert kw["clipping_range"] * 2 == kw["quantization_range"]
    assert out["distributed_dp"]["survivors"] == 900 and "whole model" in out["plain_flower"]
    compile(out["snippet"], "snippet", "exec")                         # the wiring, then plain SecAgg+
    assert 'load(export["fit_workflow"])(export)' in out["snippet"]
    assert '[load(export["pinned_mod"])(export)]' in out["snippet"] and load(out["pinned_mod"]) is pinned_mod


def test_the_shipped_binomial_plan_exports_the_mods_and_the_workflow(cli):
    r = cli("plan", "k10000-binomial", "--export", "flower", "--quiet")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["client_mods"] == list(CLIENT_MODS) and out["fit_workflow"]
    p = out["distributed_dp"]["plan"]
    assert (p["mechanism"], p["engine"]) == ("binomial", "exact")
    assert not any("no client_mods" in n for n in out["notes"])
    assert "client_mods add them" in out["epsilon_premises"][1]


def test_the_mod_refuses_the_table_engine_where_the_plans_epsilon_is_claimed():
    export = the_export(spec_of("distributed"))
    with pytest.raises(InvalidOption, match="engine"):
        FlowerPlan.from_dict({**export["distributed_dp"]["plan"], "engine": "table"})


def test_a_skellam_plan_exports_the_mods_and_its_window_drop_is_the_chernoff_bound():
    out = the_export({**spec_of("distributed"), "noise": {"kind": "distributed", "mechanism": "skellam"}})
    assert out["client_mods"] == list(CLIENT_MODS) and out["fit_workflow"]
    assert out["distributed_dp"]["plan"]["mechanism"] == "skellam"
    assert not any("no client_mods" in n for n in out["notes"])
    assert "client_mods add them" in out["epsilon_premises"][1]
    wide = FlowerPlan(clients=4, dimension=2, clip=1, gamma=2**29, modulus=2**40, sigma_client=2**26,
                      mechanism="skellam")
    bound = wide.window_drop()          # room t = 2^29 - 1 at variance 2^52: above the Gaussian's 4 exp(-t^2/2^53)
    gaussian = 4 * math.exp(-((2**29 - 1) ** 2) / 2.0**53)
    assert bound.direction == "upper bound" and gaussian < bound.upper() < 10 * gaussian


# -- Flower's quantization is the identity on the words ---------------------------------------------

def test_a_word_flowers_float_aggregate_cannot_carry_exactly_is_refused():
    FlowerPlan(clients=4, dimension=2, clip=1, gamma=8, modulus=2**48)
    with pytest.raises(InvalidOption, match="read back exactly up to 2"):
        FlowerPlan(clients=4, dimension=2, clip=1, gamma=8, modulus=2**49)


@settings(max_examples=60, deadline=None)
@given(bits=st.integers(2, 48), n=st.integers(2, 12), seed=st.integers(0, 2**32 - 1))
def test_flowers_quantize_carries_every_word_and_the_sum_comes_back_exactly(bits, n, seed):
    if 2**bits <= n:                   # refused: Flower's weight entry n Q mod M could vanish
        with pytest.raises(InvalidOption, match="must exceed K"):
            FlowerPlan(clients=n, dimension=5, clip=1, gamma=1, modulus=2**bits)
        return
    p = FlowerPlan(clients=n, dimension=5, clip=1, gamma=Fraction(2 ** (bits // 2), 1), modulus=2**bits)
    rng = np.random.default_rng(seed)
    q, m = p.quantization_range, p.modulus
    top = p.shift if p.shift else m - 1
    words = [rng.integers(-top if p.shift else 0, top + 1, size=5) for _ in range(n)]
    sent = [(w + p.shift).astype(np.float64) - q / 2 for w in words]
    for w, x in zip(words, sent):           # Flower's quantize (its stochastic rounding draws nothing here)
        assert np.array_equal(quantize([x], q / 2, q)[0], w + p.shift)
    aggregate = flower_aggregate(p, sent)
    assert np.array_equal(word_sum(p, aggregate, reporting=n), np.sum(words, axis=0) % m)


@pytest.mark.parametrize("rotation", ["none", "hadamard", "dft"])
@pytest.mark.parametrize("bits", [12, 36])
def test_words_through_flowers_arithmetic_decode_to_the_mean_within_the_rounding(rotation, bits):
    """An odd dimension (padded by a rotation), rounding to nearest, no noise: each client's rounding error is
    at most 1/2 per rotated word, so at most sqrt(d')/(2 gamma) on any coordinate of the mean after un-rotating."""
    p = FlowerPlan(clients=5, dimension=7, clip=1, gamma=64, modulus=2**bits, rotation=rotation)
    updates = [update_of(i, 7) for i in range(5)]
    words = [encode_update(p, u, round_seed=3) for u in updates]
    assert all(len(w) == p.row.rotated_dimension for w in words)
    mean = decode_sum(p, flower_aggregate(p, words), reporting=5, round_seed=3)
    bound = math.sqrt(p.row.rotated_dimension) / (2 * 64)
    assert np.abs(mean - np.mean(updates, axis=0)).max() <= bound * (1 + 1e-9)
    other = decode_sum(p, flower_aggregate(p, words), reporting=5, round_seed=4)     # another round's signs
    assert rotation == "none" or np.abs(other - np.mean(updates, axis=0)).max() > bound


def test_a_word_beyond_flowers_int32_window_is_never_sent_clamped():
    with pytest.raises(InvalidOption, match="int32 window"):                      # the data alone: refused
        FlowerPlan(clients=4, dimension=2, clip=1, gamma=2**31, modulus=2**40)
    p = FlowerPlan(clients=4, dimension=2, clip=1, gamma=2**29, modulus=2**40, sigma_client=2**32)
    assert p.window_drop().upper() == 1                                          # the bound is past 1 here
    with pytest.raises(VerificationError, match="int32 window"):                 # the noise: the client drops
        encode_update(p, np.array([1.0, 0.0]), round_seed=0, noise_seed="far")


@pytest.fixture(scope="module")
def k1000():
    return plan(load_deployment("k1000"))


def test_the_window_drop_bound_of_k1000_and_its_exact_zeros(k1000):
    p = FlowerPlan.from_plan(k1000)
    bound = p.window_drop()
    assert bound.direction == "upper bound" and 0 < bound.upper() < Fraction(1, 10**1000)
    # the same bound by hand, 2 d' exp(-t^2/(2 sigma^2)) with t = 2^30 - 1 - A, in logs base 2: the certified
    # upper end is at or above it (it is 2^-65536, the certified numbers' floor, where the bound is smaller)
    t, sigma = 2**30 - 1 - p.largest_rounded, k1000.noise.sigma_client
    log2 = math.log2(2 * 1290) - float(Fraction(t * t) / (2 * sigma * sigma)) / math.log(2)
    upper = bound.upper()
    assert upper.numerator.bit_length() - upper.denominator.bit_length() + 1 >= log2
    mid = FlowerPlan(clients=4, dimension=2, clip=1, gamma=2**29, modulus=2**40, sigma_client=2**26)
    t = 2**30 - 1 - 2**29                                                        # A = gamma S exactly
    hand = 2 * 2 * math.exp(-(t * t) / (2 * 2.0**52))
    assert mid.window_drop().lower() <= Fraction(hand) * (1 + Fraction(1, 10**9))
    assert Fraction(hand) * (1 - Fraction(1, 10**9)) <= mid.window_drop().upper()
    small = FlowerPlan(clients=4, dimension=2, clip=1, gamma=8, modulus=2**20, sigma_client=5)
    assert small.window_drop().upper() == 0 == small.window_drop().lower()       # every residue is carried


# -- the mod and the workflow in this process ---------------------------------------------------------

def test_a_noiseless_plan_ends_the_round_within_its_rounding_error():
    export = the_export(spec_of("central"))
    export["distributed_dp"]["plan"]["sigma_client"] = "0"            # the encoding alone
    [after] = run_in_process(export, clients=8)
    mean = np.mean([update_of(i) for i in range(8)], axis=0)
    gamma = Fraction(export["distributed_dp"]["plan"]["gamma"])
    err = after - flat(GLOBAL) - mean
    # rounding to nearest: each client's word is within 1/2 of gamma x, so the mean within 1/(2 gamma)
    assert np.abs(err).max() <= float(1 / (2 * gamma)) * (1 + 1e-9)
    assert np.abs(after - flat(GLOBAL)).max() < 1 and np.abs(flat(GLOBAL)).max() > 1    # the model is not clamped


def central_draw(export: dict, seed_text: str, reporting: int) -> np.ndarray:
    """The central draw the server added with ``noise_seed``, in the mean's units (no rotation)."""
    p = export["distributed_dp"]["plan"]
    draws = np.array(sample(Fraction(p["sigma_client"]), p["dimension"], seed_text), dtype=np.float64)
    return draws / (float(Fraction(p["gamma"])) * reporting)


def test_a_central_plan_ends_within_its_rounding_error_of_the_mean_plus_its_one_draw():
    export = the_export(spec_of("central"))
    [after] = run_in_process(export, clients=8, noise_seed="central")
    mean = np.mean([update_of(i) for i in range(8)], axis=0)
    err = after - flat(GLOBAL) - mean - central_draw(export, "central:1", 8)
    gamma = Fraction(export["distributed_dp"]["plan"]["gamma"])
    assert np.abs(err).max() <= float(1 / (2 * gamma)) * (1 + 1e-9) + 1e-12


def test_a_central_plan_adds_the_plans_noise_once_on_the_server():
    export = the_export(spec_of("central", dimension=64))
    model = [np.full(64, 1.5)]
    rounds = run_in_process(export, clients=8, rounds=2, model=model)
    steps = np.diff(np.vstack([flat(model)] + rounds), axis=0)
    mean = np.mean([update_of(i, 64) for i in range(8)], axis=0)
    err = (steps - mean).ravel()
    p = export["distributed_dp"]["plan"]
    s = math.sqrt(float(variance(Fraction(p["sigma_client"])).mid())) / (float(Fraction(p["gamma"])) * 8)
    # 128 draws: the sample deviation is within 5 standard errors (about 1/sqrt(2 x 128)) of the plan's
    assert abs(err.std() / s - 1) < 5 / math.sqrt(2 * len(err))


def test_a_distributed_plan_with_two_dropouts_is_released_with_the_survivors_noise():
    export = the_export(spec_of("distributed", dimension=64, rotation="dft", rounding="conditional"))
    p = export["distributed_dp"]["plan"]
    assert (p["rotation"], p["rounding"], p["modulus"]) == ("dft", "conditional", str(2**20))
    model = [np.full(64, 1.5)]
    rounds = run_in_process(export, clients=8, rounds=2, dropped=frozenset({0, 1}), model=model)
    steps = np.diff(np.vstack([flat(model)] + rounds), axis=0)
    alive = range(2, 8)
    err = (steps - np.mean([update_of(i, 64) for i in alive], axis=0)).ravel()
    gamma, n = float(Fraction(p["gamma"])), len(alive)
    # six shares of the noise, plus the stochastic rounding's at most 1/4 per client per word
    noise = n * float(variance(Fraction(p["sigma_client"])).mid())
    low, high = math.sqrt(noise) / (gamma * n), math.sqrt(noise + n / 4) / (gamma * n)
    tolerance = 5 / math.sqrt(2 * len(err))
    assert low * (1 - tolerance) < err.std() < high * (1 + tolerance)


def test_a_binomial_plan_exports_mods_and_is_released_with_its_shares_noise():
    """Binomial shares (exact Bin(N, 1/2) - N/2 per client) run in a Flower round like the discrete Gaussian's:
    the released error's deviation is that of the survivors' coins, N/4 each, plus the rounding's."""
    spec = {**spec_of("distributed", dimension=64), "noise": {"kind": "distributed", "mechanism": "binomial"}}
    spec["encoding"]["word_bits"] = 24
    export = the_export(spec)
    assert export["client_mods"] == list(CLIENT_MODS) and export["fit_workflow"]
    p = export["distributed_dp"]["plan"]
    assert p["mechanism"] == "binomial"
    model = [np.full(64, 1.5)]
    rounds = run_in_process(export, clients=8, rounds=2, dropped=frozenset({0}), model=model)
    steps = np.diff(np.vstack([flat(model)] + rounds), axis=0)
    alive = range(1, 8)
    err = (steps - np.mean([update_of(i, 64) for i in alive], axis=0)).ravel()
    gamma, n = float(Fraction(p["gamma"])), len(alive)
    coins = 2 * math.ceil(2 * Fraction(p["sigma_client"]) ** 2)
    noise = n * coins / 4
    low, high = math.sqrt(noise) / (gamma * n), math.sqrt(noise + n / 4) / (gamma * n)
    tolerance = 5 / math.sqrt(2 * len(err))
    assert low * (1 - tolerance) < err.std() < high * (1 + tolerance)


def skellam_export(dimension: int = 64) -> dict:
    spec = {**spec_of("distributed", dimension=dimension), "noise": {"kind": "distributed", "mechanism": "skellam"}}
    spec["encoding"]["word_bits"] = 24
    return the_export(spec)


def released_within_skellam_noise(export: dict, err: np.ndarray, n: int) -> bool:
    """The released error's deviation is the ``n`` survivors' Skellam shares' (variance sigma^2 each, exactly),
    plus the stochastic rounding's at most 1/4 per client per word, within sampling error."""
    p = export["distributed_dp"]["plan"]
    gamma, noise = float(Fraction(p["gamma"])), n * float(Fraction(p["sigma_client"]) ** 2)
    low, high = math.sqrt(noise) / (gamma * n), math.sqrt(noise + n / 4) / (gamma * n)
    tolerance = 5 / math.sqrt(2 * len(err))
    return low * (1 - tolerance) < err.std() < high * (1 + tolerance)


def test_a_skellam_plan_is_released_with_its_shares_noise():
    """Skellam shares (exact Poisson(sigma^2/2) - Poisson(sigma^2/2) per client) run in a Flower round like the
    discrete Gaussian's; the noise is the exact sampler's (the same draws as the mechanism's, seed for seed)."""
    export = skellam_export()
    p = export["distributed_dp"]["plan"]
    assert p["mechanism"] == "skellam" and export["client_mods"] == list(CLIENT_MODS)
    model = [np.full(64, 1.5)]
    rounds = run_in_process(export, clients=8, rounds=2, dropped=frozenset({0}), model=model)
    steps = np.diff(np.vstack([flat(model)] + rounds), axis=0)
    err = (steps - np.mean([update_of(i, 64) for i in range(1, 8)], axis=0)).ravel()
    assert released_within_skellam_noise(export, err, 7)
    from itsa.frameworks.flower_dp import _noise
    from itsa.privacy.samplers import skellam

    fp = FlowerPlan.from_dict(p)
    assert _noise(fp, "s").tolist() == skellam(Fraction(p["sigma_client"]) ** 2, 64, "s").tolist()


def test_a_client_that_pins_its_export_refuses_a_server_that_lowers_the_noise():
    from flwr.client.mod import secaggplus_mod

    export = the_export(spec_of("distributed"))
    own = copy.deepcopy(export)
    export["distributed_dp"]["plan"]["sigma_client"] = "1"              # the server's copy, noise lowered

    def client_fn(context: Context):
        return OrdinaryClient(int(context.node_config["partition-id"]), frozenset()).to_client()

    pinned = ClientApp(client_fn=client_fn, mods=[secaggplus_mod, pinned_mod(own)])
    workflow = load(export["fit_workflow"])(export, seed=0)
    [after] = run_fit_rounds(pinned, workflow, clients=8, model=GLOBAL)
    assert np.array_equal(flat(after), flat(GLOBAL))                    # every client refused: nothing released
    same = ClientApp(client_fn=client_fn, mods=[secaggplus_mod, pinned_mod(own)])
    [after] = run_fit_rounds(same, load(own["fit_workflow"])(own, seed=0), clients=8, model=GLOBAL)
    assert not np.array_equal(flat(after), flat(GLOBAL))                # the same plan: released


def _refusals(monkeypatch) -> list[str]:
    """Each refusal of the SecAgg+ check in this test, by its text (the grid turns a refusal into a dropout)."""
    import itsa.frameworks.flower_dp as module

    said: list[str] = []
    real = module.check_secagg_round

    def spy(*args, **kwargs):
        try:
            real(*args, **kwargs)
        except InvalidOption as exc:
            said.append(str(exc))
            raise

    monkeypatch.setattr(module, "check_secagg_round", spy)
    return said


def _pinned_round(export: dict, own: dict) -> np.ndarray:
    from flwr.client.mod import secaggplus_mod

    def client_fn(context: Context):
        return OrdinaryClient(int(context.node_config["partition-id"]), frozenset()).to_client()

    app = ClientApp(client_fn=client_fn, mods=[secaggplus_mod, pinned_mod(own)])
    [after] = run_fit_rounds(app, load(export["fit_workflow"])(export, seed=0), clients=8, model=GLOBAL)
    return flat(after)


@pytest.mark.parametrize("change, said", [
    ({"reconstruction_threshold": 0}, "reconstruction threshold 0 puts the secret in every share"),
    ({"num_shares": 3}, "num_shares 3 != the export's 5"),
    ({"num_shares": 7, "reconstruction_threshold": 2}, "num_shares 7 != the export's 5"),
    ({"max_weight": 2.0}, "max_weight 2.0 != the export's 1.0"),
])
def test_a_pinned_client_refuses_a_weaker_secagg_round(monkeypatch, change, said):
    """The server keeps the plan but weakens SecAgg+ (Flower accepts each of these): every pinned client sends
    nothing, so nothing is released; the export's own round is released."""
    export = the_export(spec_of("distributed"))
    own = copy.deepcopy(export)
    export["distributed_dp"]["SecAggPlusWorkflow"].update(change)
    refusals = _refusals(monkeypatch)
    try:
        after = _pinned_round(export, own)
    except IndexError:          # Flower's server, at threshold 0, unmasks with no share of anyone: nothing released
        after = flat(GLOBAL)
    assert np.array_equal(after, flat(GLOBAL))
    assert len(refusals) == 8 and all(said in r and "sends nothing" in r for r in refusals)
    refusals.clear()
    assert not np.array_equal(_pinned_round(own, own), flat(GLOBAL)) and refusals == []


def test_a_pinned_client_takes_a_higher_threshold():
    """A threshold above the export's only makes the masks harder to rebuild: the round is released."""
    export = the_export(spec_of("distributed"))
    own = copy.deepcopy(export)
    export["distributed_dp"]["SecAggPlusWorkflow"]["reconstruction_threshold"] = 3
    assert not np.array_equal(_pinned_round(export, own), flat(GLOBAL))


def test_any_client_refuses_a_threshold_below_two_and_a_round_without_secagg(monkeypatch):
    """The server's plan is taken by distributed_dp_mod, but never a round that would show the word in clear."""
    from flwr.client.mod import secaggplus_mod

    export = the_export(spec_of("distributed"))
    export["distributed_dp"]["SecAggPlusWorkflow"]["reconstruction_threshold"] = 0

    def client_fn(context: Context):
        return OrdinaryClient(int(context.node_config["partition-id"]), frozenset()).to_client()

    refusals = _refusals(monkeypatch)
    app = ClientApp(client_fn=client_fn, mods=[secaggplus_mod, distributed_dp_mod])
    with pytest.raises(IndexError):     # Flower's server, at threshold 0, unmasks with no share of anyone
        run_fit_rounds(app, load(export["fit_workflow"])(export, seed=0), clients=8, model=GLOBAL)
    assert len(refusals) == 8


def test_a_client_outside_a_secagg_round_sends_nothing(stamped):
    """A server that sends the plan in a plain fit (no SecAgg+ round) would see the word in clear: refused
    before the app trains."""
    from itsa.frameworks.flower_dp import CONFIG_PLAN, CONFIG_SEED

    plan = the_export(spec_of("distributed"))["distributed_dp"]["plan"]
    config = {CONFIG_PLAN: json.dumps(plan), CONFIG_SEED: 7}
    content = compat.fitins_to_recorddict(flwr.common.FitIns(ndarrays_to_parameters(GLOBAL), config), True)
    msg = Message(content, dst_node_id=1, message_type="train")
    ctxt = Context(run_id=1, node_id=1, node_config={}, state=RecordDict(), run_config={})
    called = []
    with pytest.raises(InvalidOption, match="no SecAgg\\+ round.*sends nothing"):
        distributed_dp_mod(msg, ctxt, lambda m, c: called.append(m))
    assert called == []


def test_equal_weights_mod_makes_fedavgs_mean_unweighted(stamped):
    """An app that reports its real example count weighs 1 through the mod (the DP wrapper's premise)."""
    content = compat.fitins_to_recorddict(flwr.common.FitIns(ndarrays_to_parameters(GLOBAL), {}), True)
    msg = Message(content, dst_node_id=1, message_type="train")

    def app(m, c):
        res = flwr.common.FitRes(flwr.common.Status(flwr.common.Code.OK, ""), ndarrays_to_parameters(GLOBAL), 119, {})
        return Message(compat.fitres_to_recorddict(res, True), reply_to=m)

    assert compat.recorddict_to_fitres(app(msg, None).content, True).num_examples == 119
    out = equal_weights_mod(msg, None, app)
    assert compat.recorddict_to_fitres(out.content, True).num_examples == 1


def test_fewer_survivors_than_the_plan_counts_release_nothing():
    export = the_export(spec_of("distributed"))                       # 8 clients, at least 6 survive
    [after] = run_in_process(export, clients=8, dropped=frozenset({0, 1, 2}))
    assert np.array_equal(after, flat(GLOBAL))


@pytest.fixture
def stamped():
    with task_identity():
        yield


def test_the_mod_refuses_a_training_message_without_the_plan_and_passes_the_rest(stamped):
    content = compat.fitins_to_recorddict(flwr.common.FitIns(ndarrays_to_parameters(GLOBAL), {}), True)
    msg = Message(content, dst_node_id=1, message_type="train")
    called = []

    def app(m, c):
        called.append(m)
        return m

    with pytest.raises(InvalidOption, match="itsa's fit workflow"):
        distributed_dp_mod(msg, None, app)
    assert called == []                                               # the app never ran
    other = Message(RecordDict(), dst_node_id=1, message_type="evaluate")
    assert distributed_dp_mod(other, None, app) is other


# -- real Flower rounds (the simulation engine) ---------------------------------------------------------

def run_simulation(export: dict, *, clients: int, dropped=frozenset(), model=None,
                   noise_seed: str | None = None) -> np.ndarray:
    """One real Flower round in the simulation engine (Ray), wired from ``export``: the step of the model."""
    from flwr.server import ServerApp
    from flwr.server.workflow import DefaultWorkflow
    from flwr.simulation import run_simulation as run

    pytest.importorskip("ray")
    model = GLOBAL if model is None else model
    server_app, result = ServerApp(), {}

    @server_app.main()
    def main(grid, context):
        strategy = FedAvg(fraction_fit=1.0, min_fit_clients=clients, min_available_clients=clients,
                          fraction_evaluate=0.0, initial_parameters=ndarrays_to_parameters(model))
        ctx = LegacyContext(context=context, config=ServerConfig(num_rounds=1), strategy=strategy)
        DefaultWorkflow(fit_workflow=load(export["fit_workflow"])(export, noise_seed=noise_seed))(grid, ctx)
        params = compat.arrayrecord_to_parameters(ctx.state.array_records[MAIN_PARAMS_RECORD], keep_input=True)
        result["model"] = flat(parameters_to_ndarrays(params))

    run(server_app=server_app, client_app=client_app(export, dropped), num_supernodes=clients,
        backend_config={"client_resources": {"num_cpus": 1}, "init_args": {"num_cpus": 2}})
    return result["model"] - flat(model)


@pytest.mark.slow
def test_real_flower_rounds_run_the_plan_from_the_export_alone():
    """Central: the round ends within the plan's rounding error of the mean plus its one draw; distributed
    (20-bit word, DFT rotation, conditional rounding, two of 8 clients dropping): released with the six
    survivors' noise, its deviation the plan's within sampling error."""
    export = the_export(spec_of("central"))
    step = run_simulation(export, clients=8, noise_seed="real")
    mean = np.mean([update_of(i) for i in range(8)], axis=0)
    gamma = Fraction(export["distributed_dp"]["plan"]["gamma"])
    err = step - mean - central_draw(export, "real:1", 8)
    assert np.abs(err).max() <= float(1 / (2 * gamma)) * (1 + 1e-9) + 1e-12
    export = the_export(spec_of("distributed", dimension=64, rotation="dft", rounding="conditional"))
    model = [np.full(64, 1.5)]
    step = run_simulation(export, clients=8, dropped=frozenset({0, 1}), model=model)
    err = step - np.mean([update_of(i, 64) for i in range(2, 8)], axis=0)
    p = export["distributed_dp"]["plan"]
    gamma_f, n = float(Fraction(p["gamma"])), 6
    noise = n * float(variance(Fraction(p["sigma_client"])).mid())
    low, high = math.sqrt(noise) / (gamma_f * n), math.sqrt(noise + n / 4) / (gamma_f * n)
    tolerance = 5 / math.sqrt(2 * len(err))
    assert low * (1 - tolerance) < err.std() < high * (1 + tolerance)


@pytest.mark.slow
def test_a_real_flower_round_runs_a_skellam_plan_from_the_export_alone():
    """Skellam shares in a real Flower round (the simulation engine, Ray), one of 8 clients dropping: released
    with the seven survivors' Skellam noise, its deviation the plan's within sampling error."""
    export = skellam_export()
    step = run_simulation(export, clients=8, dropped=frozenset({0}), model=[np.full(64, 1.5)])
    err = step - np.mean([update_of(i, 64) for i in range(1, 8)], axis=0)
    assert released_within_skellam_noise(export, err, 7)
