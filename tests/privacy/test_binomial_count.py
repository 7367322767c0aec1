"""The binomial mechanism for a count: exact profile against brute force, the draft's table, the CLI."""

import json
import math
from fractions import Fraction

import flint
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.privacy import binomial, binomial_delta, draft_coins
from itsa.privacy.binomial_count import _State
from itsa_cli import main as cli


def _ball(x: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _positive(ball: flint.arb) -> bool:
    assert not ball.contains(0), "brute force: the sign of a term is undecided"
    return ball > 0


def brute_profile(coins: int, epsilon: Fraction) -> tuple[flint.arb, flint.arb]:
    """Both hockey-stick divergences of Bin(N, 1/2) and Bin(N, 1/2) + 1, summed over every output."""
    with flint.ctx.workprec(256):
        a = flint.arb(flint.fmpq(epsilon.numerator, epsilon.denominator)).exp()
        p = [Fraction(math.comb(coins, k), 2**coins) for k in range(coins + 1)] + [Fraction(0)]
        q = [Fraction(0)] + p[:-1]
        forward, backward = flint.arb(0), flint.arb(0)
        for pk, qk in zip(p, q, strict=True):
            term = _ball(pk) - a * _ball(qk)
            forward += term if _positive(term) else 0
            term = _ball(qk) - a * _ball(pk)
            backward += term if _positive(term) else 0
    return forward, backward


@pytest.mark.parametrize("epsilon", [Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3)])
def test_profile_is_brute_force_for_small_n(epsilon):
    """Every N up to 14: the closed form encloses the sum over all outputs, both directions equal (reflection)."""
    for coins in range(1, 15):
        forward, backward = brute_profile(coins, epsilon)
        assert forward.overlaps(backward)
        got = binomial_delta(coins, epsilon)
        assert got.arb().overlaps(forward) and got.arb().overlaps(backward)
        assert got.high - got.low < Fraction(1, 10**20)


def test_one_coin_by_hand():
    """N = 1: outputs {0, 1} vs {1, 2}; only output 0 is impossible for the neighbour: delta = 1/2 at any eps."""
    assert binomial_delta(1, 5).low <= Fraction(1, 2) <= binomial_delta(1, 5).high


# The draft's formula (draft-case-ppm-binomial-dp, "Determining number of Bernoulli trials"), as the issue
# read it: N = 1,272 / 1,272 / 19,608 at eps = 3 / 1 / 0.1, delta = 1e-5 (d = 1, unit sensitivities, s = 1).
@pytest.mark.parametrize(("epsilon", "expected"), [("3", 1272), ("1", 1272), ("0.1", 19608)])
def test_draft_formula_golden(epsilon, expected):
    assert draft_coins(epsilon, "1e-5") == expected


def test_draft_delta_constraint_by_hand():
    """At eps >= 1 the delta constraint 4 * 23 ln(10 d / delta) decides: ceil(92 ln 10^7) at delta = 1e-6."""
    assert draft_coins(3, "1e-6") == draft_coins(1, "1e-6") == math.ceil(92 * math.log(10**7)) == 1483
    assert draft_coins(1, "1e-5", dimension=10) == math.ceil(92 * math.log(10**7))


#: The docs table: the exact smallest N at the six points (each checked by brute force below).
TABLE = [("3", "1e-5", 17), ("3", "1e-6", 20), ("1", "1e-5", 62), ("1", "1e-6", 80),
         ("0.1", "1e-5", 3787), ("0.1", "1e-6", 5279)]


def direct_delta(coins: int, epsilon: Fraction) -> flint.arb:
    """The profile from a fresh sum over the positive terms (math.comb), independent of the scan's recurrences."""
    with flint.ctx.workprec(256):
        a = flint.arb(flint.fmpq(epsilon.numerator, epsilon.denominator)).exp()
        total = flint.arb(0)
        for k in range(coins + 1):
            term = flint.arb(math.comb(coins, k)) - a * flint.arb(math.comb(coins, k - 1) if k else 0)
            if not _positive(term):
                break
            total += term
        return total / flint.arb(2) ** coins


@pytest.mark.parametrize(("epsilon", "delta", "coins"), TABLE)
def test_table_points_are_the_smallest(epsilon, delta, coins):
    result = binomial(epsilon, delta)
    eps, d = Fraction(epsilon), _ball(Fraction(delta))
    assert result.coins == coins
    assert direct_delta(coins, eps) < d < direct_delta(coins - 1, eps)
    if coins < 100:
        assert brute_profile(coins, eps)[0] < d < brute_profile(coins - 1, eps)[0]
    assert result.delta_below is not None
    assert result.delta_below.low > Fraction(delta) >= result.delta_at_coins.high
    assert result.draft_coins >= 4 * coins


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.fractions(Fraction(1, 50), 5))
def test_profile_never_grows_with_n(coins, epsilon):
    """Post-processing by one more coin: delta_{N+1}(eps) <= delta_N(eps) (checked with the brute force)."""
    assert not (brute_profile(coins + 1, epsilon)[0] > brute_profile(coins, epsilon)[0])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 300), st.fractions(Fraction(1, 50), 5))
def test_scan_step_matches_a_fresh_state(coins, epsilon):
    state = _State.at(epsilon, coins)
    state.step(epsilon)
    assert state == _State.at(epsilon, coins + 1)


@settings(max_examples=25, deadline=None)
@given(st.fractions(Fraction(1, 5), 4), st.integers(2, 9))
def test_smallest_n_meets_and_one_fewer_fails(epsilon, exponent):
    delta = _ball(Fraction(1, 10**exponent))
    coins = binomial(epsilon, Fraction(1, 10**exponent)).coins
    assert direct_delta(coins, epsilon) < delta
    assert coins == 1 or direct_delta(coins - 1, epsilon) > delta


@pytest.mark.parametrize("epsilon", ["14", "1000"])
def test_a_large_epsilon_costs_only_the_output_zero(epsilon):
    """e^eps > N: k* = 0, delta_N = 2^-N exactly, so N = ceil(log2(1/delta)) = 17 at delta = 1e-5."""
    assert binomial(epsilon, "1e-5").coins == math.ceil(math.log2(10**5)) == 17


def test_refusals_are_one_line():
    from itsa.exceptions import InvalidOption

    with pytest.raises(InvalidOption, match="no N <= 100 fair coins"):
        binomial("0.01", "1e-6", max_coins=100)
    with pytest.raises(InvalidOption, match="epsilon"):
        binomial(-1, "1e-6")


def run(*args):
    return CliRunner().invoke(cli, ["privacy", "binomial", *args])


def test_cli_json_and_text():
    res = run("--epsilon", "1", "--delta", "1e-5", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["coins"] == 62 and out["draft_coins"] == 1272 and out["every_larger_meets"] is True
    assert out["inputs"] == {"epsilon": "1", "delta": "1e-5"}
    assert float(out["delta_at_coins"]["interval"][1]) <= 1e-5 < float(out["delta_at_one_coin_fewer"]["interval"][0])
    text = run("--epsilon", "3", "--delta", "1e-6")
    assert text.exit_code == 0 and "20" in text.stdout and "1483" in text.stdout


@pytest.mark.parametrize("args", [("--epsilon", "0", "--delta", "1e-5"), ("--epsilon", "x", "--delta", "1e-5"),
                                  ("--epsilon", "1", "--delta", "1"), ("--epsilon", "1", "--delta", "1e-5",
                                                                       "--max-coins", "0"),
                                  ("--epsilon", "0.001", "--delta", "1e-6", "--max-coins", "1000"),
                                  ("--epsilon", "1e50", "--delta", "1e-5"),
                                  ("--epsilon", "1", "--delta", "1e-5", "--max-coins", "100000000"),
                                  ("--delta", "1e-5",)])
def test_cli_bad_input_exit_2(args):
    res = run(*args)
    assert res.exit_code == 2 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1


def test_docs_table_is_the_computed_one():
    """docs/privacy.md's filled-in table of the draft: every row is what the library computes."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "privacy.md").read_text(encoding="utf-8")
    table = text[text.index("| ε | δ | exact N |"):]
    rows = [line.split("|")[1:-1] for line in table.splitlines()[2:8]]
    seen = {(r[0].strip(), r[1].strip()): (int(r[2].replace(",", "")), int(r[3].replace(",", ""))) for r in rows}
    for epsilon, delta, coins in TABLE:
        key = (epsilon, "10⁻" + {"1e-5": "⁵", "1e-6": "⁶"}[delta])
        assert seen[key] == (coins, draft_coins(epsilon, delta))
