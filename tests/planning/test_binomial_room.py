"""The binomial mechanism's room: its coins, its exact support (a word that never wraps), a plan that names it."""

import json
from fractions import Fraction

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from itsa.planning.deployment import NoiseKind
from itsa.planning.mechanism import NoiseInputs
from itsa.planning.mechanisms import REGISTRY, Mechanism
from itsa.planning.rotation import rounded_sum
from itsa.planning.scale import mse_parts, wrap_at
from itsa.privacy.shares import noise_shares
from itsa_cli import main as cli

ROOM = REGISTRY["binomial"]


@given(st.fractions(Fraction(1, 100), 10**4))
def test_coins_are_the_fewest_even_count_with_variance_at_least_sigma_squared(sigma):
    n = ROOM.coins(sigma)
    assert n % 2 == 0 and Fraction(n, 4) >= sigma**2 > Fraction(n - 2, 4)
    assert ROOM.variance_bound(sigma) == Fraction(n, 4) and ROOM.largest_share(sigma) == n // 2


def test_draws_are_centred_integers_in_the_support():
    x = ROOM.draws(Fraction(2), 50_000, "binomial-support")
    n = ROOM.coins(Fraction(2))             # 16 coins: shares in [-8, 8]
    assert n == 16 and x.min() >= -8 and x.max() <= 8 and abs(x.mean()) < 0.05


def inputs(**kw):
    return NoiseInputs(clients=10, dimension=4, clip=Fraction(1), epsilon=Fraction(1),
                       mechanism=Mechanism.BINOMIAL, **kw)


def test_a_word_that_holds_every_value_never_wraps_exactly():
    """K = 10 shares of N = 16 coins at gamma = 8: |sum| <= 10 x 8 + 10 x 8 = 160 < 2^8 - so 9 bits never wrap."""
    d, gamma, sigma = inputs(), Fraction(8), Fraction(2)
    shares = noise_shares(d.clients, d.dropout, distributed=True).wrap
    top = rounded_sum(clients=10, gamma=gamma, clip=Fraction(1), dimension=4, rotation="none",
                      rounding="nearest").exact + shares * ROOM.largest_share(sigma)
    assert top == 160
    exact = wrap_at(d, 9, gamma, sigma, per_round=True)
    assert exact.direction == "exact" and exact.high == 0 and "never wraps" in str(exact.method)
    tight = wrap_at(d, 8, gamma, sigma, per_round=True)          # 2^7 = 128 <= 160: a tail bound, not 0
    assert tight.direction == "upper bound" and 0 < tight.high <= 1


def test_its_error_counts_its_own_variance_not_sigma_squared():
    d = inputs(kind=NoiseKind.CENTRAL)
    quant, noise = mse_parts(d, Fraction(8), Fraction(3, 2))        # N = 10 coins: variance 5/2 > 9/4
    assert noise == 4 * Fraction(10, 4) / (8 * 10) ** 2


def plan_file(tmp_path, text, name):
    """The deployment ``text`` written as ``name.yaml`` and planned by the CLI with ``--json``."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path, CliRunner().invoke(cli, ["plan", str(path), "--json"])


def test_a_plan_naming_it_never_wraps_and_meets_its_target(tmp_path):
    """overflow: 0 asks for a word that holds every value the sum can take: the binomial plan finds one."""
    text = ("clients: 100\ndimension: 10\nclip: 1\nprivacy: {epsilon: 2, delta: 1e-6, rounds: 10}\n"
            "noise: {placement: distributed, mechanism: binomial}\nencoding: {word_bits: 32}\noverflow: 0\n")
    path, res = plan_file(tmp_path, text, "binomial")
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["verdict"]["verdict"] == "feasible"
    wrap = out["encoding"]["wrap_probability"]
    assert wrap["direction"] == "exact" and wrap["value"] == "0"
    assert out["noise"]["epsilon"]["direction"] == "upper bound" and Fraction(out["noise"]["epsilon"]["interval"][1]) <= 2
    assert "delta slack" in out["noise"]["epsilon"]["method"]
    text_out = CliRunner().invoke(cli, ["plan", str(path)]).stdout
    assert any(line.split()[:2] == ["wrap", "probability"] and "0 per round (exact; target 0)" in line
               for line in text_out.splitlines())


def test_unbounded_noise_at_an_overflow_target_of_zero_is_infeasible_and_names_the_bounded_one(tmp_path):
    text = ("clients: 100\ndimension: 10\nclip: 1\nprivacy: {epsilon: 2, delta: 1e-6, rounds: 10}\n"
            "noise: {placement: distributed, mechanism: dgauss}\nencoding: {word_bits: 32}\noverflow: 0\n")
    path, res = plan_file(tmp_path, text, "dgauss")
    out = json.loads(res.stdout)
    assert out["verdict"]["verdict"] == "infeasible"
    assert any("bounded support" in r and "mechanism binomial" in r for r in out["verdict"]["reasons"])


def test_a_layering_is_refused_in_one_line(tmp_path):
    text = ("clients: 100\ndimension: 10\nclip: 1\nprivacy: {epsilon: 2, delta: 1e-6, rounds: 10}\n"
            "noise: {placement: distributed, mechanism: binomial}\nencoding: {radix: 5, layers: 3}\n")
    path, res = plan_file(tmp_path, text, "binomial")
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.strip().count("\n") == 0 and "flat word" in res.stderr


def test_the_shipped_binomial_plan_never_wraps_and_costs_its_variance():
    """k10000-binomial: feasible, wrap exactly 0 (the word holds the data's bound plus all K shares' N/2),
    epsilon within the target (an upper bound, its slack taken off delta), error the shares' exact N/4."""
    import itsa

    p = itsa.plan(itsa.load_deployment("k10000-binomial"))
    assert p.verdict.feasible
    enc, noise = p.encoding, p.noise
    assert enc.wrap_probability.direction == "exact" and enc.wrap_probability.upper() == 0
    n = ROOM.coins(noise.sigma_client)
    gamma, clients = enc.gamma, 10_000
    assert clients * int(gamma) + clients * (n // 2) < 2 ** (enc.word_bits - 1)     # the whole support fits
    assert noise.epsilon.direction == "upper bound" and noise.epsilon.upper() <= 4
    assert "delta slack" in str(noise.epsilon.method)
    assert p.error.noise == Fraction(n, 4) / (gamma * gamma * 9_000)     # N/4 per share, the 9,000 survivors
    assert p.error.ratio > 1                                            # above the unconstrained limit


def test_a_population_is_refused_in_one_line(tmp_path):
    """A Poisson-sampled round of it is not certified (the subsampling theorem is for true Renyi bounds)."""
    text = ("clients: 100\ndimension: 10\nclip: 1\nadjacency: add-remove\n"
            "privacy: {epsilon: 2, delta: 1e-6, rounds: 10}\nnoise: {kind: central, mechanism: binomial}\n"
            "encoding: {word_bits: 32}\npopulation: 10000\n")
    path, res = plan_file(tmp_path, text, "binomial")
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.strip().count("\n") == 0 and "Poisson sample is not certified" in res.stderr
