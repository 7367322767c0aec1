"""``itsa plan --export``: a plan as Flower's SecAgg+ workflow and DP wrapper, and as dp-accounting's events.

dp-accounting's RDP accountant reads the exported events back and its ε is
the plan's (never below it by more than rounding, within 1 %); with Flower
installed, the k1000 export builds ``SecAggPlusWorkflow`` without a warning
and a round through Flower's own arithmetic comes back within the plan's
certified error.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from itsa.exceptions import InvalidOption
from itsa.frameworks.dp_accounting import named_tuple_from_json
from itsa.frameworks.export import DEFAULT_CORRUPT, export_plan, flower_noise_multiplier, plan_event
from itsa.keys.secagg import secagg_parameters
from itsa.planning import load_deployment, parse_deployment, plan
from itsa.privacy.accounting import Accountant
from itsa.privacy.events import GaussianEvent
from itsa.privacy.subsampled import PoissonSampledEvent

#: A small central deployment (a Flower DP wrapper exists for it).
CENTRAL = {"clients": 100, "dimension": 10, "clip": 1, "noise": "central", "dropout": "1/10",
           "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10}, "encoding": {"word_bits": 32, "gamma": 256}}
KEYWORDS = {"num_shares", "reconstruction_threshold", "max_weight", "clipping_range", "quantization_range",
            "modulus_range"}


@pytest.fixture(scope="module")
def k1000():
    """The shipped k1000 plan (its key solve aside: the export reads the noise, encoding and SecAgg+)."""
    return plan(dataclasses.replace(load_deployment("k1000"), servers=None))


@pytest.fixture(scope="module")
def central():
    return plan(parse_deployment(CENTRAL))


def _rebuilt(dp, export_dict):
    """dp-accounting's own ``DpEvent`` from the exported JSON, through text and back."""
    return dp.DpEvent.from_named_tuple(named_tuple_from_json(json.loads(json.dumps(export_dict["dp_event"]))))


def test_the_exported_event_is_the_one_the_plan_accounts(k1000, central):
    from itsa.planning.noise import epsilon_at
    from itsa.planning.planner import noise_inputs

    for p in (k1000, central):
        d = p.deployment
        again = Accountant().compose(plan_event(p), d.privacy.rounds).bound(d.privacy.delta).epsilon
        rdp = epsilon_at(noise_inputs(d), p.encoding.gamma, p.noise.sigma_client).epsilon        # the plan's Renyi bound
        assert (again.low, again.high) == (rdp.low, rdp.high)
        assert p.noise.epsilon.upper() <= again.upper()                           # the plan's eps: the least bound


def test_dp_accountings_rdp_accountant_finds_the_plans_epsilon():
    """A layering has no dominating Gaussian pair: its zCDP events (a plan with one is in test_dp_accounting_pair)."""
    dp = pytest.importorskip("dp_accounting")
    p = plan(load_deployment("table1-psa"))
    export = export_plan(p, "dp-accounting")
    event = _rebuilt(dp, export.to_dict())
    assert event.count == p.deployment.privacy.rounds and event.event.__class__.__name__ == "ZCDpEvent"
    accountant = dp.rdp.RdpAccountant()
    accountant.compose(event)
    delta = p.deployment.privacy.delta
    theirs = accountant.get_epsilon(float(delta))
    assert float(p.noise.epsilon.upper()) <= theirs * (1 + 1e-9)      # the plan's eps never above theirs
    same_curve = export.export.epsilon(delta)                         # itsa's eps of the exported curve
    assert same_curve is not None
    assert float(same_curve.upper()) <= theirs * (1 + 1e-9)           # a continuous order search, theirs a grid
    assert theirs <= float(same_curve.upper()) * 1.01                 # the same curve: within 1 %


def test_a_population_samples_each_round(central):
    d = copy.copy(dataclasses.replace(central.deployment, adjacency="add-remove"))
    object.__setattr__(d, "population", 10_000)            # what a deployment's population: says
    p = dataclasses.replace(central, deployment=d)
    event = plan_event(p)
    assert isinstance(event, PoissonSampledEvent) and event.rate == Fraction(1, 100)
    # the export of a planned population: tests/frameworks/test_dp_accounting_pair.py


def test_flower_refuses_a_plan_whose_epsilon_needs_poisson_sampling(central):
    d = copy.copy(dataclasses.replace(central.deployment, adjacency="add-remove"))
    object.__setattr__(d, "population", 10_000)
    with pytest.raises(InvalidOption, match="Poisson-sampled.*fixed cohort"):
        export_plan(dataclasses.replace(central, deployment=d), "flower")
    object.__setattr__(d, "population", d.clients)     # every client in every round: no sampling to miss
    assert export_plan(dataclasses.replace(central, deployment=d), "flower").export.dp_wrapper is not None


def test_cli_flower_export_of_a_sampled_skellam_plan_is_refused_in_one_line(cli, tmp_path):
    path = tmp_path / "sampled.yaml"
    path.write_text("clients: 20\ndimension: 64\nclip: 1\nadjacency: add-remove\nencoding: {word_bits: 32}\n"
                    "privacy: {epsilon: 4, delta: 1e-6, rounds: 10}\npopulation: 1000000000000\n"
                    "noise: {mechanism: skellam, placement: central, sigma: 1000}\n")
    r = cli("plan", str(path), "--export", "flower", "--quiet")
    assert r.exit_code == 2 and "fixed cohort" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1 and "noise_multiplier" not in r.output


def test_flower_export_states_the_premises_of_its_epsilon(central):
    e = export_plan(central, "flower")
    premises = e.to_dict()["epsilon_premises"]
    assert len(premises) == 2 and central.noise.epsilon.decimal(6) in premises[0]
    assert "fixed-size sample" in premises[0] and "float64 Gaussian" in premises[1]
    assert "discrete Gaussian" in premises[1]                 # the mechanism the epsilon is certified for
    assert "# epsilon premise: " in e.snippet() and export_plan(central, "dp-accounting").premises == ()


def test_flower_export_of_k1000_is_exactly_the_workflows_keywords(k1000):
    e = export_plan(k1000, "flower")
    out = e.to_dict()
    assert set(out["SecAggPlusWorkflow"]) == KEYWORDS
    keys = secagg_parameters(1000, DEFAULT_CORRUPT, k1000.deployment.dropout)
    assert out["SecAggPlusWorkflow"]["num_shares"] == keys.degree + 1
    assert out["SecAggPlusWorkflow"]["reconstruction_threshold"] == keys.threshold
    assert out["SecAggPlusWorkflow"]["quantization_range"] == 2 * k1000.encoding.gamma     # ceil(2 S gamma), S = 1
    assert out["SecAggPlusWorkflow"]["modulus_range"] == 2**32 and out["check"]["verdict"] == "passes"
    assert out["dp_wrapper"] is None and "no counterpart" in out["dp_note"]
    named = getattr(k1000.deployment, "protocol", None) is not None        # protocol: {secagg+: ...} in the file
    source = "the plan's SecAgg+ keys" if named else "assumed corrupt fraction 0.05"
    assert any(source in n for n in out["notes"])
    compile(e.snippet(), "snippet", "exec")


def test_a_plans_secagg_section_is_used_when_it_has_one(k1000):
    protocol = SimpleNamespace(corrupt=Fraction(1, 10), adversary="semi-honest")
    p = dataclasses.replace(k1000, keys=SimpleNamespace(degree=40, threshold=25, protocol=protocol))
    out = export_plan(p, "flower").to_dict()
    assert (out["SecAggPlusWorkflow"]["num_shares"], out["SecAggPlusWorkflow"]["reconstruction_threshold"]) == (41, 25)
    assert any("the plan's SecAgg+ keys: degree 40, threshold 25 (corrupt 0.1" in n for n in out["notes"])
    assert out["check"]["secagg"]["bounds"]["corrupt"] == "0.1"        # the check runs at the plan's corrupt fraction
    failed = dataclasses.replace(k1000, keys=SimpleNamespace(degree=None, threshold=None, protocol=protocol,
                                                             reasons=("no graph meets the targets",)))
    with pytest.raises(InvalidOption, match="no graph meets the targets"):
        export_plan(failed, "flower")


def test_central_noise_is_flowers_client_side_wrapper_at_least_as_private(central):
    out = export_plan(central, "flower").to_dict()
    wrapper = out["dp_wrapper"]
    assert wrapper["class"] == "DifferentialPrivacyClientSideFixedClipping"
    kw = wrapper["kwargs"]
    assert set(kw) == {"noise_multiplier", "clipping_norm", "num_sampled_clients"}
    d, z = central.deployment, Fraction(kw["noise_multiplier"])
    assert z == flower_noise_multiplier(central) and kw["num_sampled_clients"] == d.clients
    # Flower releases a round only when all N sampled clients reported: its deviation z C/N on their mean is, on
    # their sum, z C, at least the plan's sigma/gamma, and the least double that is
    assert z * d.clip >= central.noise.sigma_client / central.encoding.gamma
    assert Fraction(math.nextafter(float(z), 0)) * d.clip < central.noise.sigma_client / central.encoding.gamma
    # the Gaussian mechanism on the unrounded sum (sensitivity 2S, replace-one): by the same accountant (Renyi),
    # its eps is no more than the plan's discrete Gaussian's
    from itsa.planning.noise import epsilon_at
    from itsa.planning.planner import noise_inputs

    ratio = z / 2
    flower_eps = Accountant().compose(GaussianEvent(noise_multiplier=ratio), d.privacy.rounds).bound(d.privacy.delta)
    plans = epsilon_at(noise_inputs(d), central.encoding.gamma, central.noise.sigma_client).epsilon
    assert flower_eps.epsilon.upper() <= plans.upper()


def test_cli_export_to_stdout_to_a_file_and_as_a_snippet(cli, tmp_path):
    import yaml

    path = tmp_path / "central.yaml"
    path.write_text(yaml.safe_dump(CENTRAL))
    r = cli("plan", str(path), "--export", "flower", "--quiet")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert set(out["SecAggPlusWorkflow"]) == KEYWORDS and out["schema_version"] and out["deployment"] == "central"
    target = tmp_path / "events.json"
    r = cli("plan", str(path), "--export", "dp-accounting", "--export-file", str(target), "--quiet")
    assert r.exit_code == 0 and "verdict" in r.stdout                 # the plan on stdout, the export in the file
    assert json.loads(target.read_text())["dp_event"]["class_name"] == "SelfComposedDpEvent"
    r = cli("plan", str(path), "--export", "flower", "--snippet", "--quiet")
    assert r.exit_code == 0 and "SecAggPlusWorkflow(" in r.stdout and "noise_multiplier=" in r.stdout
    compile(r.stdout, "snippet", "exec")


def test_export_file_with_snippet_writes_the_json_and_prints_the_python_that_reads_it(cli, tmp_path, monkeypatch):
    """Before, ``--export-file f.json --snippet`` wrote Python into f.json, and the Python read export.json."""
    monkeypatch.chdir(tmp_path)
    r = cli("plan", "k1000", "--export", "flower", "--export-file", "f.json", "--snippet", "--quiet")
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "f.json").read_text())["pinned_mod"]        # the JSON a program reads
    assert "open('f.json')" in r.stdout and "export.json" not in r.stdout
    compile(r.stdout, "snippet", "exec")
    r = cli("plan", "k1000", "--export", "flower", "--export-file", "g.json", "--snippet", "--json", "--quiet")
    assert r.exit_code == 2 and not (tmp_path / "g.json").exists()


@pytest.mark.parametrize("args, words", [(["--snippet"], "--export"), (["--export-file", "x.json"], "--export"),
                                         (["--export", "flwr"], "flower"),
                                         (["--export", "flower", "--export", "tff"], "one framework a run"),
                                         (["--export", "flower", "--export-file", "."], "only regular files")])
def test_cli_export_refuses_bad_options_in_one_line(cli, args, words):
    r = cli("plan", "k1000", *args, "--quiet")
    assert r.exit_code == 2 and words in r.output


def test_a_layered_plan_has_no_flower_counterpart(cli):
    r = cli("plan", "table1-psa", "--export", "flower", "--quiet")
    assert r.exit_code == 2 and "layered plan" in r.output and "Traceback" not in r.output


def test_k1000_export_builds_flowers_workflow_and_sums_within_the_plans_error(cli):
    """With Flower installed: the CLI's export builds SecAggPlusWorkflow without a warning, and a round of
    1,000 clipped updates through Flower's own arithmetic comes back within the plan's certified error."""
    pytest.importorskip("flwr")
    from flwr.server.workflow import SecAggPlusWorkflow

    from tests.frameworks.test_flower_real import _flower_warnings, flower_round

    r = cli("plan", "k1000", "--export", "flower", "--quiet")
    assert r.exit_code == 0, r.output
    exported = json.loads(r.stdout)
    kwargs = exported["SecAggPlusWorkflow"]
    assert _flower_warnings(lambda: SecAggPlusWorkflow(**kwargs)) == []
    logging.getLogger("flwr").setLevel(logging.WARNING)
    rng = np.random.default_rng(5)
    updates = rng.normal(size=(1000, 6))
    updates /= np.maximum(1, np.linalg.norm(updates, axis=1, keepdims=True))    # clipped to l2 norm S = 1
    aggregate, reference, largest, ratios = flower_round(updates, [1.0] * 1000, kwargs)     # num_examples = 1
    assert largest < kwargs["modulus_range"]                                       # no wrap
    mse = Fraction(exported["plan"]["mse_per_coordinate"])
    errors = [Fraction(float(a)) - ref for a, ref in zip(aggregate, reference)]
    assert all(e * e <= mse for e in errors)                                       # each coordinate of the mean
    # Flower rounds stochastically: unbiased, variance at most step^2/4 per client, so the mean's squared error
    # averages far below the plan's rounding-to-nearest bound (1/(2 gamma))^2 per coordinate
    gamma = Fraction(exported["plan"]["gamma"])
    assert sum(e * e for e in errors) / len(errors) <= 1 / (4 * gamma**2)


def test_the_central_export_builds_flowers_dp_wrapper_with_the_plans_deviation(central):
    """With Flower installed: the wrapper builds from the exported keywords, and Flower's own deviation on
    the mean, times the N clients of a round it releases (a failure drops the round), is at least the plan's
    sigma/gamma on the sum."""
    pytest.importorskip("flwr")
    from flwr.server.strategy import DifferentialPrivacyClientSideFixedClipping, FedAvg
    from flwr.supercore.differential_privacy import compute_stdv

    kw = export_plan(central, "flower").to_dict()["dp_wrapper"]["kwargs"]
    wrapper = DifferentialPrivacyClientSideFixedClipping(FedAvg(), **kw)
    assert wrapper.noise_multiplier == kw["noise_multiplier"]
    deviation = Fraction(compute_stdv(**kw)) * kw["num_sampled_clients"]
    assert wrapper.aggregate_fit(1, [], [RuntimeError("a client failed")]) == (None, {})    # the round is dropped
    assert deviation * (1 + Fraction(1, 10**12)) >= central.noise.sigma_client / central.encoding.gamma


def test_flowers_noise_multiplier_has_one_home_the_plan_prints_what_the_export_writes(central):
    from itsa.planning.frameworks_units import flower_noise_multiplier as home

    kw = export_plan(central, "flower").to_dict()["dp_wrapper"]["kwargs"]
    printed = central.frameworks.to_dict()["flower"]["noise_multiplier"]
    assert printed == repr(kw["noise_multiplier"])
    d = central.deployment
    assert kw["noise_multiplier"] == home(sigma=central.noise.sigma_client, gamma=central.encoding.gamma, clip=d.clip)


def test_the_central_export_says_the_wrappers_weighting_and_names_only_pieces_that_exist(central):
    """Flower's wrapper calibrates z for FedAvg's mean at equal weights: the export says so and names the mod
    that enforces it; the plan's own pieces are the path with SecAgg+; every named piece imports."""
    out = export_plan(central, "flower").to_dict()
    wrapper = out["dp_wrapper"]
    assert wrapper["client_mods"] == ["itsa.frameworks.flower_dp:equal_weights_mod", "flwr.client.mod:fixedclipping_mod"]
    assert "equal weights" in wrapper["premise"] and "max_i w_i" in wrapper["premise"]
    assert out["dp_note"].startswith("client_mods and fit_workflow add the plan's central noise")
    assert "premise: equal weights" in out["snippet"] and "mods=[equal_weights_mod, fixedclipping_mod]" in out["snippet"]
    pytest.importorskip("flwr")
    import importlib

    for name in [*wrapper["client_mods"], *out["client_mods"], out["fit_workflow"]]:
        module, attribute = name.split(":")
        assert callable(getattr(importlib.import_module(module), attribute))
    rows = dict(central.frameworks.rows())
    assert "certified only with equal client weights" in rows["Flower DP wrapper"]


@pytest.mark.parametrize("name", ["hospitals", "k1000"])
def test_the_flower_snippet_runs_as_pasted_and_pins_the_clients(name, tmp_path, monkeypatch):
    """The snippet, beside its export.json and a client_fn of the user's, runs to the end; its clients are pinned."""
    pytest.importorskip("flwr")
    from itsa.frameworks.flower_dp import PINNED_MOD

    out = export_plan(plan(load_deployment(name)), "flower").to_dict()
    assert out["pinned_mod"] == PINNED_MOD
    (tmp_path / "export.json").write_text(json.dumps(out), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    scope: dict = {"client_fn": lambda context: None}
    exec(compile(out["snippet"], "snippet", "exec"), scope)      # noqa: S102  the user's paste
    mods = scope["client_app"]._mods
    assert len(mods) == 2 and mods[1].__qualname__.startswith("pinned_mod")
    if out["dp_wrapper"] is not None:
        assert type(scope["dp_strategy"]).__name__ == out["dp_wrapper"]["class"]
