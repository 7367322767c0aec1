"""Plans of distributed shares over a sampled population (a Poisson cohort, its count public, or a fixed-size
one; replace-one): routed to the cohort's bound, feasible, with a lower bound, and a noise multiplier near
dp-accounting's calibration of the sampled Gaussian at the same (q, T, epsilon, delta)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import itsa
from itsa.exceptions import InvalidDeployment
from itsa.planning import load_deployment, parse_deployment
from itsa.planning.planner import noise_inputs
from itsa.privacy.tightest import COHORT_KEY

SMALL = {"clients": 1000, "population": 20000, "dropout": "1/10", "dimension": 1000, "clip": 1,
         "adjacency": "replace-one", "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 50},
         "noise": {"mechanism": "dgauss", "placement": "distributed"},
         "encoding": {"word_bits": 24, "rotation": "hadamard", "rounding": "stochastic"}}
#: The plan's z may be at most this factor from dp-accounting's calibration (either way).
WITHIN = Fraction(13, 10)


def _dp_epsilon(z: float, rate: Fraction, rounds: int, delta: Fraction) -> float:
    """dp-accounting's PLD epsilon of the Poisson-sampled Gaussian of multiplier z (its own calibration's
    accountant: z is within WITHIN of its calibration when these bracket the target)."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant()
    accountant.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(float(rate), dp_accounting.GaussianDpEvent(z)), rounds))
    return accountant.get_epsilon(float(delta))


def _check_against_dp_accounting(p) -> None:
    d = p.deployment
    z = float(p.noise.noise_multiplier.upper())
    rate, target = Fraction(d.clients, d.population), float(d.privacy.epsilon)
    assert _dp_epsilon(z / float(WITHIN), rate, d.privacy.rounds, d.privacy.delta) > target   # dp's z > z / 1.3
    assert _dp_epsilon(z * float(WITHIN), rate, d.privacy.rounds, d.privacy.delta) < target   # dp's z < 1.3 z


def _check_plan(p) -> None:
    a = p.noise.accounting
    assert p.verdict.feasible and p.noise.epsilon.upper() <= p.deployment.privacy.epsilon
    assert a.upper_method == COHORT_KEY and a.cohort is not None
    assert 0 < a.epsilon_lower.upper() <= p.noise.epsilon.upper() and str(a.epsilon_lower.direction) == "lower bound"
    assert p.to_dict()["noise"]["cohort"]["sampling"] == str(p.deployment.sampling)


@pytest.mark.parametrize("sampling", ["poisson", "fixed"])
def test_a_small_cohort_plan(sampling):
    p = itsa.plan(parse_deployment({**SMALL, "sampling": sampling}))
    _check_plan(p)
    _check_against_dp_accounting(p)


def test_a_poisson_cohort_is_sized_for_its_range():
    n = noise_inputs(parse_deployment({**SMALL, "sampling": "poisson"}))
    c = n.cohort
    assert c.low < 1000 < c.high == n.clients and n.survivors == c.low - c.low // 10
    assert 50 * c.failure <= Fraction(1, 10**6) / 2**10
    fixed = noise_inputs(parse_deployment({**SMALL, "sampling": "fixed"}))
    assert (fixed.clients, fixed.survivors, fixed.cohort.failure) == (1000, 900, 0)


def test_the_poisson_wrap_counts_the_count_past_its_range():
    p = itsa.plan(parse_deployment({**SMALL, "sampling": "poisson"}))
    cohort = p.inputs.cohort
    assert p.encoding.wrap_probability.upper() >= cohort.above > 0
    assert f"P(count > {cohort.high})" in str(p.encoding.wrap_probability.method)


@pytest.mark.parametrize(("change", "word"), [({"adjacency": "add-remove"}, "replace-one"),
                                              ({"noise": "central", "sampling": "fixed"}, "fixed-size"),
                                              ({"encoding": {"radix": 3, "layers": 4}}, "layering")])
def test_cohort_refusals(change, word):
    with pytest.raises(InvalidDeployment, match=word):
        parse_deployment({**SMALL, "sampling": "poisson", **change})


@pytest.mark.parametrize(("framework", "word"), [("dp-accounting", "sampled cohort"), ("flower", "who took part")])
def test_the_exports_without_a_counterpart_are_refused_in_one_line(framework, word):
    from click.testing import CliRunner

    from itsa_cli import main

    result = CliRunner().invoke(main, ["plan", "cross-device-fixed", "--export", framework, "--quiet"])
    assert result.exit_code == 2 and word in result.output and "Traceback" not in result.output
    assert result.output.count("\n") == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cross-device-sampled", "cross-device-fixed"])
def test_the_shipped_cohort_deployments(name):
    p = itsa.plan(load_deployment(name))
    _check_plan(p)
    assert p.deployment.encoding.word_bits in range(20, 25)
    assert str(p.deployment.encoding.rotation) == "hadamard" and str(p.deployment.encoding.rounding) == "stochastic"
    _check_against_dp_accounting(p)


@pytest.mark.parametrize("d_rot", [8, 64, 1024])
def test_the_lower_bounds_pairs_rotate_to_whole_values(d_rot):
    """The pairs of the lower bound, through the plan's own Hadamard rotation (random signs): a e_1 at
    gamma a = m sqrt(d') is m D_1 on every coordinate; a (e_1 + e_2)/sqrt(2) at gamma a = u sqrt(2 d') is 2u on
    half the coordinates (signed) and 0 on the others, whatever the signs."""
    import numpy as np

    from itsa.planning.run.transforms import rotate

    rng = np.random.default_rng(d_rot)
    for _ in range(5):
        signs = 2 * rng.integers(0, 2, size=d_rot) - 1
        one = rotate(np.sqrt(d_rot) * np.eye(1, 3, 0), signs, "hadamard")[0]          # m = 1
        assert np.allclose(one, signs[0])
        two = rotate(np.sqrt(2 * d_rot) * (np.eye(1, 3, 0) + np.eye(1, 3, 1)) / np.sqrt(2), signs, "hadamard")[0]
        assert np.allclose(np.abs(two)[np.abs(two) > 1e-9], 2) and np.sum(np.abs(two) > 1e-9) == d_rot // 2


def test_the_keys_are_sized_for_the_largest_count():
    p = itsa.plan(parse_deployment({**SMALL, "sampling": "poisson", "protocol": {"secagg+": {"corrupt": "1/20"}}}))
    keys = p.keys.to_dict()["secagg"]
    assert keys["clients"] == p.inputs.cohort.high > SMALL["clients"] and keys["dropout_tolerated"]
