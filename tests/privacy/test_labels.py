"""Honest labels: a bound at delta >= 1 is vacuous, an unconverged accountant says so, sigma_int names its route."""

import json
import subprocess
from fractions import Fraction

import pytest
from scipy.stats import norm

import itsa.privacy.tight as tight
from itsa.privacy import Direction, sensitivity, to_epsilon
from itsa.privacy.accounting import account
from itsa.privacy.composition import advanced_composition, basic_composition
from itsa.privacy.rdp import gaussian_curve

VACUOUS = "vacuous (delta >= 1: bounds nothing)"


def itsa_json(*args) -> dict:
    done = subprocess.run(["itsa", *args, "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_composition_at_delta_one_or_more_is_vacuous_in_a_real_process():
    """T = 10^6 rounds at delta = 1e-5: basic's delta is 10, advanced's 10.00001: both bound nothing."""
    out = itsa_json("privacy", "account", "--noise-multiplier", "1", "--rounds", "1000000")
    for name in ("basic", "advanced"):
        entry = out["epsilon"][name]
        assert Fraction(entry["delta_exact"]) >= 1
        assert entry["direction"] == VACUOUS and "VACUOUS" in entry["method"]
    assert any("vacuous" in note for note in out["notes"])
    assert all(out["epsilon"][k]["direction"] == "upper bound" for k in ("mironov", "cks", "tight"))


@pytest.mark.parametrize("rounds", [99_999, 100_000])
def test_basic_composition_turns_vacuous_exactly_at_delta_one(rounds):
    eps, total = basic_composition(1, Fraction(1, 10**5), rounds)
    assert (eps.direction is Direction.VACUOUS) == (total >= 1)


def test_advanced_composition_counts_its_slack():
    eps, total = advanced_composition(1, Fraction(1, 10**5), 99_999, Fraction(1, 10**4))
    assert total == Fraction(99_999, 10**5) + Fraction(1, 10**4) >= 1 and eps.direction is Direction.VACUOUS


def test_vacuous_is_not_a_bound_in_the_text_table():
    done = subprocess.run(["itsa", "privacy", "account", "--noise-multiplier", "1", "--rounds", "1000000"],
                          capture_output=True, text=True, timeout=120)
    rows = [line for line in done.stdout.splitlines()
            if line.split()[:1] in (["basic"], ["advanced"]) and line.split()[1] != "method"]
    assert len(rows) == 2 and all("vacuous" in r and "upper bound" not in r for r in rows)


@pytest.mark.parametrize("z, rounds", [("1e-6", 1), ("1e-6", 10**12), ("1e-7", 10**12), ("1e-300", 1)])
def test_tight_converges_for_tiny_noise_multipliers(z, rounds):
    """Far from 0 the curve is delta(eps) ~ Phi(mu/2 - eps/mu): eps = mu^2/2 + mu t, t = Phi^-1(1 - delta)."""
    eps = tight.gaussian_tight_epsilon(z, rounds, "1e-5")
    assert tight.converged(eps) and eps.lower() > 0
    assert eps.upper() - eps.lower() <= tight.CONVERGED_WIDTH * eps.upper()
    mu = {1: 1, 10**12: 10**6}[rounds] / Fraction(z)      # sqrt(T) / z, exactly
    closed = mu * mu / 2 + mu * Fraction(norm.isf(1e-5))
    assert abs(eps.upper() / closed - 1) < Fraction(1, 10**9)


def test_tight_that_does_not_converge_says_so(monkeypatch):
    monkeypatch.setattr(tight, "STEPS", 4)
    eps = tight.gaussian_tight_epsilon("1", 1, "1e-5")
    assert not tight.converged(eps) and tight.NOT_CONVERGED in eps.method and "upper end is still a bound" in eps.method
    assert eps.direction is Direction.UPPER and eps.upper() >= Fraction(4377178, 10**6)
    acc = account("1", 1, "1e-5")
    assert any("did not converge" in note for note in acc.notes)


@pytest.mark.parametrize("epsilon", ["1", "10", "50"])
def test_sigma_int_is_labelled_by_the_discrete_route(epsilon):
    report = sensitivity(clients=50, dimension=2, epsilon=epsilon).to_dict()
    sigma_int, eps_int = report["sigma_int"], report["epsilon_int"]
    assert "discrete Gaussian" in sigma_int["method"] and "Canonne-Kamath-Steinke" in sigma_int["method"]
    # the certified epsilon of the discrete Gaussian at that width, recomputed here from the printed numbers
    integer_sensitivity = 256 * 256 * Fraction(report["sensitivity"]["interval"][1])
    z = Fraction(sigma_int["interval"][0]) / integer_sensitivity
    recomputed = to_epsilon(gaussian_curve(z), "1e-5", "cks").epsilon.upper()
    assert Fraction(eps_int["interval"][1]) >= recomputed * (1 - Fraction(1, 10**9))
    certified = Fraction(eps_int["interval"][1]) <= Fraction(epsilon)
    assert sigma_int["direction"] == ("upper bound" if certified else "heuristic (not a bound)")


def test_table_one_rows_at_eps_10_and_50_are_not_certified_for_the_discrete_gaussian():
    for epsilon in ("10", "50"):
        assert sensitivity(clients=50, dimension=2, epsilon=epsilon).to_dict()["sigma_int"]["direction"].startswith("heur")
    assert sensitivity(clients=50, dimension=2, epsilon=1).to_dict()["sigma_int"]["direction"] == "upper bound"
