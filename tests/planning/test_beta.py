"""Conditional rounding's β: the default exp(-1/2) kept exactly, a rational β read exactly, what β costs."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from itsa.exceptions import InvalidDeployment
from itsa.planning import load_deployment
from itsa.planning.deployment import Encoding
from itsa.privacy.neighbours import (
    DEFAULT_BETA,
    ExpBeta,
    as_beta,
    conditional_bias,
    conditional_rounding_cost,
    rounded_norm,
)


def test_the_default_beta_is_exp_minus_one_half_kept_exactly():
    # TFF's recommended beta for conditional rounding: sqrt(2 ln(1/beta)) = 1, so the norm bound is exact
    assert str(DEFAULT_BETA) == "exp(-1/2)" and DEFAULT_BETA.log_inverse == Fraction(1, 2)
    assert Encoding(rounding="conditional").beta == DEFAULT_BETA == as_beta("exp(-1/2)")
    gamma, d = 700, 1200000
    exact = math.sqrt(gamma**2 + d / 4 + (gamma + math.sqrt(d) / 2))      # the square root term is 1
    got = rounded_norm(gamma=gamma, clip=1, dimension=d, rounding="conditional")
    assert got.upper() - got.lower() < Fraction(1, 10**20) and abs(float(got.upper()) - exact) < 1e-9
    # its cost is read at a rational upper bound of e^(-1/2): above the true value, within 1e-8
    beta = DEFAULT_BETA.upper()
    assert math.exp(-0.5) < beta < math.exp(-0.5) + 1e-8
    attempts, bias = conditional_rounding_cost()
    assert attempts == 1 / (1 - beta) and 2.5414 < float(attempts) < 2.5416
    assert bias == (beta / 4) / (1 - beta) ** 2
    # a rational beta is still read exactly, and exp(-x) for another rational x
    assert Encoding(rounding="conditional", beta="1/2").beta == Fraction(1, 2)
    assert str(Encoding(rounding="conditional", beta="exp(-2)").beta) == "exp(-2)"
    with pytest.raises(InvalidDeployment, match="beta"):
        Encoding(rounding="conditional", beta="exp(-x)")


@pytest.mark.parametrize("lam", [Fraction(1, 2), Fraction(1, 10), Fraction(3)])
def test_an_exp_beta_bound_is_the_papers_at_its_value(lam):
    # Kairouz-Liu-Steinke 2021: ||x~||^2 <= min((c + sqrt d)^2, c^2 + d/4 + sqrt(2 ln(1/beta)) (c + sqrt(d)/2))
    gamma, d = 50, 1000
    c = float(gamma)
    expected = min(c + math.sqrt(d), math.sqrt(c * c + d / 4 + math.sqrt(2 * float(lam)) * (c + math.sqrt(d) / 2)))
    got = rounded_norm(gamma=gamma, clip=1, dimension=d, rounding="conditional", beta=ExpBeta(lam))
    assert abs(float(got.upper()) - expected) < 1e-9 and got.lower() <= got.upper()
    assert "exp(-" in str(got.method)


def test_the_shipped_cross_device_deployment_rounds_at_the_default():
    d = load_deployment("cross-device")
    assert d.encoding.beta == DEFAULT_BETA and d.to_dict()["encoding"]["beta"] == "exp(-1/2)"


@pytest.mark.parametrize("exponent", [10, 30])
def test_a_beta_just_below_one_is_costed_below_one(exponent):
    # exp(-1e-10): nine digits of beta would round up to 1 (a division by zero); the ball's end is still below 1
    beta = ExpBeta(Fraction(1, 10**exponent))
    assert beta.upper() < 1 and math.isclose(float(1 - beta.upper()), 10.0**-exponent, rel_tol=1e-6)
    attempts, _ = conditional_rounding_cost(beta)
    assert attempts >= 10**exponent * (1 - 1e-6)


def test_a_beta_too_close_to_one_is_one_line_exit_2(tmp_path):
    from click.testing import CliRunner

    from itsa_cli import main

    (tmp_path / "b.yaml").write_text("clients: 50\ndimension: 100\nclip: 1\nnoise: distributed\n"
                                     "privacy: {epsilon: 4, delta: 1e-6, rounds: 10}\n"
                                     f"encoding: {{word_bits: 24, rounding: conditional, beta: 'exp(-1/{10**80})'}}\n")
    res = CliRunner().invoke(main, ["plan", str(tmp_path / "b.yaml")])
    assert res.exit_code == 2 and "too close to 1" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("beta", ["1/2", "9/10", "0.99999999999", "exp(-1/1000000)"])
def test_the_rounding_error_never_exceeds_what_a_move_below_one_allows(beta):
    # each rounded coordinate moves by less than 1 whatever beta: per coordinate, a second moment and a squared
    # bias of at most 1, so the mean's rounding error is at most d' (1/n + 1)/gamma^2 even as beta nears 1
    from itsa.planning.rotation import quantization_mse_total

    gamma, d, n = Fraction(3), 100, 7
    got = quantization_mse_total(gamma=gamma, dimension=d, rotation="dft", rounding="conditional", survivors=n,
                                 beta=beta)
    assert got <= d * (Fraction(1, n) + 1) / gamma**2
    attempts, bias = conditional_rounding_cost(beta)
    if attempts / 4 <= 1 and bias <= 1:                 # the formula itself, where it is below the cap
        total = min(d * bias, conditional_bias(beta))     # the bias per coordinate, or whatever the dimension
        assert got == d * attempts / (4 * gamma**2 * n) + total / gamma**2


def test_a_rational_beta_just_below_one_has_a_finite_norm_bound():
    # ln(1/beta) for beta = 1 - 1e-40: a direct log of 1/beta cancels to a ball around 0 (a nan square root)
    gamma, d = 50, 1000
    near = rounded_norm(gamma=gamma, clip=1, dimension=d, rounding="conditional",
                        beta=Fraction(10**40 - 1, 10**40))
    half = rounded_norm(gamma=gamma, clip=1, dimension=d, rounding="conditional", beta="1/2")
    assert math.sqrt(gamma**2 + d / 4) <= float(near.lower()) <= float(near.upper()) < float(half.lower())
