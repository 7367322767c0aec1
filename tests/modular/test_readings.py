"""Readings and labels of ``itsa modular``: each number is the quantity its label names.

The golden values are recomputed here from the carry law directly (inclusion-exclusion on the
coefficients of ``(x^-c + … + x^c)^K``), never from the functions under test.
"""

import json
import math
import re
import subprocess
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
from click.testing import CliRunner

from itsa._util.certified import safe_decimal
from itsa.exceptions import InvalidOption
from itsa.modular import DigitLaw, authorized_suffix, compatibility, monte_carlo, payload, smallest_margin
from itsa_cli import main as cli


def _at_most(t: int, clients: int, n: int) -> int:
    """How many of the ``n^K`` tuples in ``{0..n-1}^K`` sum to at most ``t`` (inclusion-exclusion)."""
    return sum((-1) ** j * comb(clients, j) * comb(t - n * j + clients, clients)
               for j in range(clients + 1) if t - n * j >= 0)


def carry(clients: int, n: int, half: int) -> Fraction:
    """``P[|S| > half]`` for ``S`` the sum of ``K`` digits uniform on the ``n`` (odd) balanced values."""
    centre = clients * (n - 1) // 2
    inside = _at_most(centre + half, clients, n) - _at_most(centre - half - 1, clients, n)
    return 1 - Fraction(inside, n ** clients)


def smallest(clients: int, radix: int, width: int, ok) -> tuple[int, Fraction]:
    """The smallest margin whose per-modulus carry ``p`` satisfies ``ok(p)``, with that ``p``."""
    m = 0
    while not ok(p := carry(clients, radix ** width, (radix ** (width + m) - 1) // 2)):
        m += 1
    return m, p


def run_json(*args: str) -> dict:
    out = subprocess.run(["itsa", "modular", *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def bits_up(units: int, radix: int = 3) -> str:
    return f"{math.ceil(units * math.log2(radix) * 100) / 100:.2f}"


def test_the_carry_law_here_is_the_one_of_table1():
    # Table I: margin 4 at K = 1000 for one layer, per-layer target 1/1000
    assert smallest(1000, 3, 1, lambda p: p <= Fraction(1, 1000))[0] == 4


def test_one_stage_union_counts_one_modulus_at_k_170():
    target = Fraction(1, 1000)
    m, p = smallest(170, 3, 4, lambda p: 1 * p <= target)          # one stage: one modulus shares the target
    assert m == 3 and f"{float(p):.3g}" == "0.000321"
    assert carry(170, 81, (3 ** 6 - 1) // 2) > target             # margin 2 does not meet it
    assert 4 * p > target                                          # counting L = 4 moduli asks for margin 4
    got = payload(170, 3, 4, "one", target, reading="union")
    assert got.stage_margins == (m,) and got.single_stage_margin == m
    assert Fraction(got.psa_bits.decimal(4)) == Fraction(bits_up(4 + m)) == Fraction("11.10")
    data = run_json("payload", "--clients", "170", "--stages", "one", "--reading", "union")
    assert data["stage_margins"] == [3] and Fraction(safe_decimal(
        Fraction(data["psa_bits_per_dimension"]["value"]), 4)) == Fraction("11.10")
    assert data["moduli_per_target"] == {"psa": 1, "flat_execution": 1}


def test_two_stages_share_a_total_target_and_each_flat_execution_has_its_own():
    target, k = Fraction(1, 1000), 169                            # counting L = 4 moduli gives 4 everywhere
    got = payload(k, 3, 4, "4,3/2,1", target, reading="union")
    assert got.stage_margins == tuple(smallest(k, 3, 2, lambda p: 2 * p <= target)[0] for _ in range(2))
    assert got.flat_margins == tuple(smallest(k, 3, w, lambda p: p <= target)[0] for w in (2, 4))
    assert got.stage_margins == (3, 3) and got.flat_margins == (3, 3)
    every = payload(k, 3, 4, "4,3/2,1", target, reading="all-layers")
    assert every.stage_margins == tuple(smallest(k, 3, 2, lambda p: 1 - (1 - p) ** 2 <= target)[0]
                                        for _ in range(2))


def _theorem1b(clients: int, radix: int, width: int, moduli: int, delta: float) -> int:
    """Eq. 21 without noise in floating point, ``ln(4R/δ_w)`` with ``R`` moduli."""
    r, v, log = radix ** width / 2, clients * (radix ** (2 * width) - 1) / 12, math.log(4 * moduli / delta)
    rhs = math.sqrt(2 * v * log) + 2 * r / 3 * log
    m = 0
    while radix ** (width + m) / 2 <= rhs:
        m += 1
    assert min(abs(radix ** (width + j) / 2 - rhs) for j in (m - 1, m)) > rhs / 100    # far from a tie
    return m


def test_theorem1b_payload_uses_the_moduli_of_the_schedule():
    # K = 72, one stage, union: ln(4/δ) gives 3; ln(4L/δ) with L = 4 would give 4
    assert _theorem1b(72, 3, 4, 1, 1e-3) == 3 and _theorem1b(72, 3, 4, 4, 1e-3) == 4
    got = payload(72, 3, 4, "one", Fraction(1, 1000), reading="union", rule="theorem1b")
    assert got.stage_margins == (3,)
    # per layer the count cancels: δ_w = R p, ln(4R/δ_w) = ln(4/p)
    each = payload(72, 3, 4, "4,3/2,1", Fraction(1, 1000), rule="theorem1b")
    assert each.stage_margins == (_theorem1b(72, 3, 2, 1, 1e-3),) * 2


def _central_trinomial(n: int) -> int:
    """The largest coefficient of ``(1 + x + x²)^n``: ``Σ_k C(n, 2k) C(2k, k)``."""
    return sum(comb(n, 2 * k) * comb(2 * k, k) for k in range(n // 2 + 1))


def test_converse_bound_says_when_it_is_capped():
    raw = Fraction(243 * _central_trinomial(1000), 3 ** 1000)      # K = 1000, margin 4: M = 3^5
    assert 3.753 < raw < 3.755
    data = run_json("converse", "--clients", "1000", "--margin", "4")["decoder"]
    assert Fraction(data["sup_bound_raw"]) == raw and data["sup_bound"] == "1" and data["sup_bound_capped"]
    text = subprocess.run(["itsa", "modular", "converse", "--clients", "1000", "--margin", "4"],
                          capture_output=True, text=True, check=True).stdout
    line = next(x for x in text.splitlines() if "sup p_K" in x and "eq. 46" in x)
    assert "min(1, M · sup p_K)" in line and "cap" in line
    shown = Fraction(line.split("M · sup p_K = ")[1].split()[0])
    assert raw <= shown <= raw * (1 + Fraction(1, 10 ** 5))


def test_converse_bound_below_one_is_not_called_capped():
    k, m = 2, 0                                                     # M = 3: 3 · 3/9 = 1, no cap needed
    data = run_json("converse", "--clients", str(k), "--margin", str(m))["decoder"]
    assert Fraction(data["sup_bound_raw"]) == Fraction(3 * _central_trinomial(k), 3 ** k) == 1
    assert not data["sup_bound_capped"]


def run_text(*args: str) -> str:
    return subprocess.run(["itsa", "modular", *args], capture_output=True, text=True, check=True).stdout


def test_margins_table_shows_the_quantity_the_reading_constrains():
    p = carry(22, 3, (3 ** 3 - 1) // 2)                             # K = 22 at margin 2: p = 2.639e-4
    assert f"{float(p):.4g}" == "0.0002639" and 4 * p > Fraction(1, 1000)
    data = run_json("margins", "--clients", "22", "--reading", "union")["rows"][0]
    assert data["margin"] == 3 and data["constrained_quantity"] == "4·p"
    assert Fraction(data["carry_probability_below"]["value"]) == p   # the per-layer p, as its key says
    below = data["constrained_probability_below"]
    assert Fraction(below["interval"][0]) <= 4 * p <= Fraction(below["interval"][1])
    text = run_text("margins", "--clients", "22", "--reading", "union")
    assert "4·p at m − 1" in text and f"{math.ceil(4 * p * 10 ** 6) / 10 ** 6:.6f}" in text
    assert "carry at m − 1" not in text
    every = run_json("margins", "--clients", "100", "--reading", "all-layers")["rows"][0]
    assert every["constrained_quantity"] == "1 − (1 − p)^4"
    p100 = carry(100, 3, (3 ** 4 - 1) // 2)
    low, high = (Fraction(x) for x in every["constrained_probability"]["interval"])
    assert high >= 1 - (1 - p100) ** 4 >= low


def _noise_tail(clients: int, layers: int, scale: float, delta_z: float) -> float:
    return scale * math.sqrt(2 * clients * math.log(2 * layers / delta_z))          # eq. 19, n_b = 1


def _first_margin(rhs: float, radix: int = 3) -> int:
    m = 0
    while radix ** (1 + m) / 2 <= rhs:
        m += 1
    assert min(abs(radix ** (1 + j) / 2 - rhs) for j in (m - 1, m)) > rhs / 1000     # far from a tie
    return m


def test_theorem1a_with_noise_spends_the_whole_budget_on_delta_z():
    # Theorem 1's proof: "part (a) uses only the δ_z budget"; per-layer 1/1000 at L = 4 is a budget 4/1000
    k, layers, scale = 21, 4, 0.5
    rule_a = _first_margin(k * 3 / 2 + _noise_tail(k, layers, scale, 4 / 1000))
    assert rule_a == 3 and _first_margin(k * 3 / 2 + _noise_tail(k, layers, scale, 2 / 1000)) == 4
    log = math.log(4 * layers / (2 / 1000))
    rule_b = _first_margin(math.sqrt(2 * k * 8 / 12 * log) + 3 / 3 * log + _noise_tail(k, layers, scale, 2 / 1000))
    row = run_json("rules", "--clients", str(k), "--scaled-scale", "1/2")["rows"][0]
    assert (row["theorem1a_margin"], row["theorem1a_delta_z"]) == (rule_a, "1/250")
    assert (row["theorem1b_margin"], row["delta_w"], row["delta_z"]) == (rule_b, "1/500", "1/500")
    text = run_text("rules", "--clients", str(k), "--scaled-scale", "1/2")
    assert "Theorem 1(a) δ_z = 1/250; Theorem 1(b) δ_w = 1/500, δ_z = 1/500" in text


def refused(*args: str) -> str:
    """The one-line message of a refused ``itsa modular`` call (exit 2)."""
    result = CliRunner().invoke(cli, ["modular", *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_a_uniform_spread_that_leaves_v_l_plus_1_is_refused():
    half = (3 ** 4 - 1) // 2                                       # V_5 holds the integers |x| <= 40
    assert math.floor(40.4 + 0.3 + 0.5) > half                     # spread 40.4: v = 40.4, d = 0.3 rounds to 41
    assert "V_(L+1)" in refused("distortion", "--spread", "1000", "--finest", "4")
    refused("distortion", "--spread", "40.4", "--finest", "4")
    with pytest.raises(InvalidOption):
        monte_carlo(4, spread=40.4)
    assert monte_carlo(4, spread=half - 0.5, samples=2000).inside_bounds     # the largest accepted
    wide = monte_carlo(4, source="gaussian", spread=1000, samples=2000, seed=3)
    assert wide.clipped > 0.9                                       # a Gaussian is clipped, and says how much


@pytest.mark.parametrize("law", ["1/2,1/2", "1/3,1/3,1/3,0", "1/5,1/5,1/5,1/5,1/5"])
def test_a_law_must_be_centred_and_fit_the_radix_alphabet(law):
    assert "digit law" in refused("margins", "--clients", "8", "--law", law)
    assert "digit law" in refused("converse", "--clients", "8", "--margin", "1", "--law", law)


def test_centred_laws_inside_the_alphabet_are_accepted():
    law = DigitLaw.parse("1/4,1/2,1/4")
    assert law.values == (-1, 0, 1) and law.mean == 0
    assert DigitLaw.parse("1/5,1/5,1/5,1/5,1/5").check_alphabet(5).values == (-2, -1, 0, 1, 2)
    with pytest.raises(InvalidOption, match="centred"):
        DigitLaw.parse("1/2,1/2")
    with pytest.raises(InvalidOption, match="alphabet"):
        smallest_margin(8, 3, law=DigitLaw.parse("1/5,1/5,1/5,1/5,1/5"))


def test_options_that_do_not_apply_are_refused():
    assert "A2" in refused("digits", "--chain", "a2", "--block-dimension", "3")
    assert compatibility("a2", 3, 2, block_dimension=2).block_dimension == 2
    assert "fixed" in refused("payload", "--clients", "100", "--margin", "3")
    assert payload(100, rule="fixed", margin=3).stage_margins == (3,) * 4


@pytest.mark.parametrize("authorized", ["2", "4,2", "3", "4,4,3", "4,3,3"])
def test_authorized_sets_are_suffixes_named_once(authorized):
    # §IV: "the authorized suffix is {ℓ0, ..., L}"
    assert "authorized" in refused("privacy", "--survivors", "1000", "--authorized", authorized)


def test_every_suffix_is_accepted_in_any_order():
    assert authorized_suffix([3, 4], 4) == (4, 3) and authorized_suffix([1, 2, 3, 4], 4) == (4, 3, 2, 1)


def test_a2_share_is_printed_rounded_up_and_the_docs_agree():
    share = Fraction(972, 6561)
    assert share == Fraction(4, 27)
    up = f"{math.ceil(100 * share * 100) / 100:.2f}"               # 14.8148… % rounded up to two decimals
    assert up == "14.82"
    text = run_text("digits", "--chain", "a2")
    assert text.count(f"4/27 = {up} %, rounded up") == 3
    docs = (Path(__file__).resolve().parents[2] / "docs" / "modular.md").read_text(encoding="utf-8")
    written = re.findall(r"4/27 = \**([\d.]+) %", docs)
    assert written and set(written) == {up}
