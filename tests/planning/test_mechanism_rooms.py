"""A mechanism is one room: the registry, the interface, and the planner asking it (never naming one)."""

import ast
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml

from itsa.exceptions import InvalidOption
from itsa.planning.mechanisms import REGISTRY, Mechanism, NoiseMechanism, mechanism, registered
from itsa.privacy.discrete_gaussian import variance

PLANNING = Path(__file__).parents[2] / "itsa" / "planning"


def test_the_vocabulary_is_the_registry():
    assert {str(m) for m in Mechanism} == set(REGISTRY)
    assert all(isinstance(m, NoiseMechanism) and REGISTRY[m.name] is m for m in registered())
    assert [m.name for m in registered() if m.auto] == ["dgauss", "skellam"]    # what shipped plans compare


def test_the_package_finds_every_mechanism_module():
    """A module of ``itsa/planning/mechanisms/`` that defines a mechanism is registered, in the plan's order."""
    modules = {p.stem for p in (PLANNING / "mechanisms").glob("*.py")
               if any(isinstance(node, ast.ClassDef) and any(getattr(base, "id", "") == "NoiseMechanism"
                                                            for base in node.bases)
                      for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))))}
    assert {"dgauss", "skellam", "binomial"} <= modules
    assert {type(m).__module__.rsplit(".", 1)[1] for m in registered()} == modules
    assert [str(m) for m in Mechanism] == [m.name for m in registered()]
    assert Mechanism.SKELLAM == "skellam" and Mechanism("binomial") is Mechanism.BINOMIAL
    assert [m.name for m in registered()][:2] == ["dgauss", "skellam"]     # the default first, then auto


def test_the_layering_refusal_is_the_mechanisms_own():
    from itsa.exceptions import InvalidDeployment
    from itsa.planning import parse_deployment

    text = ("clients: 100\ndimension: 10\nclip: 1\nprivacy: {epsilon: 2, delta: 1e-6, rounds: 10}\n"
            "noise: {mechanism: skellam, placement: distributed}\nencoding: {radix: 3, layers: 4}\n")
    with pytest.raises(InvalidDeployment, match="skellam with a PSA layering is not accounted here: the layering's "
                                                "epsilon adds its layers' linear"):
        parse_deployment(yaml.safe_load(text))
    assert REGISTRY["dgauss"].layering_refusal is None


def test_an_unknown_mechanism_is_one_line():
    with pytest.raises(InvalidOption, match=r"unknown mechanism 'laplace' \(choose from"):
        mechanism("laplace")


def test_the_default_is_the_discrete_gaussian():
    assert mechanism(None) is REGISTRY["dgauss"]


@pytest.mark.parametrize("room", registered(), ids=lambda m: m.name)
def test_premises_are_stated_with_their_reason(room):
    assert room.premises.why
    if room.premises.variance_at_most_sigma2:
        for sigma in (Fraction(1, 2), Fraction(3), Fraction(50)):
            assert room.share_variance(sigma) <= float(room.variance_bound(sigma)) * (1 + 1e-12)


@pytest.mark.parametrize("room", registered(), ids=lambda m: m.name)
def test_the_sampler_has_the_stated_variance(room):
    """200,000 draws at sigma = 3: the sample variance within 2% of the room's exact one, mean near 0."""
    x = room.draws(Fraction(3), 200_000, f"itsa-test-{room.name}").astype(float)
    assert abs(x.var() / room.share_variance(Fraction(3)) - 1) < 0.02 and abs(x.mean()) < 0.05
    assert np.array_equal(room.draws(Fraction(3), 1000, "s"), room.draws(Fraction(3), 1000, "s"))


def test_the_discrete_gaussians_variance_is_the_privacy_parts():
    assert REGISTRY["dgauss"].share_variance(Fraction(2)) == float(variance(Fraction(2)).mid())


def test_wrap_noise_splits_the_noise_by_its_tail():
    assert REGISTRY["dgauss"].wrap_noise(Fraction(2), 5) == (20, 0)       # sub-Gaussian: in the proxy
    assert REGISTRY["skellam"].wrap_noise(Fraction(2), 5) == (0, 20)      # Poisson-type: its own Chernoff part
    assert REGISTRY["dgauss"].largest_share(Fraction(2)) is None is REGISTRY["skellam"].largest_share(Fraction(2))


def test_a_premise_not_held_is_refused_not_assumed():
    class Biased(NoiseMechanism):
        name, title = "biased", "a test mechanism"
        premises = REGISTRY["skellam"].premises.__class__(rdp_at_least_gaussian=False, variance_at_most_sigma2=False,
                                                          unbiased=False, why="a test")

        def event(self, sigma, **kw): raise AssertionError
        def wrap_noise(self, sigma, shares): return Fraction(0), Fraction(0)
        def wrap_how(self, *, distributed): return ""
        def share_variance(self, sigma): return 0.0
        def draws(self, sigma, count, seed_text, clock=None): return np.zeros(count, dtype=np.int64)

    with pytest.raises(InvalidOption, match="not at most sigma"):
        Biased().variance_bound(Fraction(1))


#: The planner's modules that dispatch per mechanism today: none may name one.
ASKERS = ["mechanism.py", "scale.py", "flat.py", "noise.py", "run/simulate.py", "run/setup.py", "run/from_plan.py"]


@pytest.mark.parametrize("module", ASKERS)
def test_the_planner_never_names_a_mechanism(module):
    """No ``Mechanism.X`` and no mechanism's word in the code (docstrings aside) of the modules that ask."""
    tree = ast.parse((PLANNING / module).read_text(encoding="utf-8"))
    named = [node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
             and isinstance(node.value, ast.Name) and node.value.id == "Mechanism"]
    words = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and node.value.strip() in REGISTRY]
    assert not named and not words, (named, words)


@pytest.mark.parametrize("extra", ["noise: {placement: central, mechanism: skellam}\n",
                                   "noise: {placement: central}\n"])
def test_a_plan_builds_its_inputs_once(monkeypatch, extra):
    """One plan, one ``noise_inputs``: every section takes the flat plan's inputs (the mechanism resolved)."""
    from itsa.planning import parse_deployment, planner

    calls = []
    real = planner.noise_inputs
    monkeypatch.setattr(planner, "noise_inputs", lambda d: calls.append(d) or real(d))
    text = "clients: 50\ndimension: 8\nclip: 1\nprivacy: {epsilon: 2, delta: 1e-6, rounds: 4}\n" + extra
    result = planner.plan(parse_deployment(yaml.safe_load(text)), time_limit=120)
    assert len(calls) == 1 and result.noise.sigma_client > 0


def test_a_plan_keeps_its_inputs_and_never_rebuilds_them(monkeypatch):
    """The plan stores the inputs its sections took: its round's event reads them, not a rewritten deployment."""
    from itsa.planning import parse_deployment, planner

    text = "clients: 50\ndimension: 8\nclip: 1\nprivacy: {epsilon: 2, delta: 1e-6, rounds: 4}\nnoise: central\n"
    result = planner.plan(parse_deployment(yaml.safe_load(text)), time_limit=120)
    assert result.inputs == planner.noise_inputs(result.deployment) and result.inputs.mechanism is not None
    calls = []
    monkeypatch.setattr(planner, "noise_inputs", lambda d: calls.append(d))
    assert result.round_event() is not None and calls == []
