"""A DP-FTRL deployment planned: the noiseless sum's word, SecAgg+'s keys, the worst pattern's certified eps.

Golden numbers: Google's es-ES accounting (google-research/federated,
dp_ftrl/blogpost_supplemental_privacy_accounting.ipynb: z = 7, T = 2000, E = 6,
xi = 313, delta = 1e-10, rho = 0.81, eps = 8.90 by the Renyi route) and TF Privacy's
tree-sensitivity table (``(E, xi, T) = (1, 7, 8)``: ``s = 4``); each is checked against
``itsa privacy tree`` / ``itsa privacy toeplitz`` on the same settings, computed, not typed.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.planning import load_deployment, parse_deployment, plan
from itsa.privacy.tight import gaussian_tight_epsilon


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def gboard(cli):
    return _json(cli("plan", "gboard-ftrl", "--json", "--quiet"))


def test_gboard_plans_feasible_with_its_word_keys_and_eps(gboard):
    assert gboard["verdict"]["verdict"] == "feasible"
    enc, keys, noise = gboard["encoding"], gboard["keys"], gboard["noise"]
    # the word holds the noiseless sum of K rounded updates: K floor(gamma S + 1/2) < 2^(b-1), exactly never wraps
    gamma, bits = Fraction(enc["gamma"]), enc["word_bits"]
    assert 6500 * math.floor(gamma + Fraction(1, 2)) == enc["data_range"] < 2 ** (bits - 1)
    assert enc["wrap_probability"]["direction"] == "exact" and enc["wrap_probability"]["value"] == "0"
    assert keys["secagg"]["degree"] > 0 and keys["secagg"]["threshold"] > 0 and keys["secagg"]["clients"] == 6500
    assert noise["sensitivity_squared"]["value"] == "79" and noise["rho"] == "79/98"
    low, high = (Fraction(x) for x in noise["epsilon"]["interval"])
    assert low <= high and high - low < Fraction(1, 10**8)
    assert noise["epsilon"]["direction"] == "upper bound" and "exact Gaussian privacy curve" in noise["epsilon"]["method"]
    # the published Renyi figure (8.90) beside the tight one (4 % lower)
    assert round(float(Fraction(noise["epsilon_rdp"]["epsilon"]["interval"][1])), 2) == 8.90
    assert round(float(Fraction(noise["rho"])), 2) == 0.81
    assert high < Fraction(89, 10) * Fraction(97, 100)


def test_gboard_eps_is_privacy_trees_exactly(cli, gboard):
    tree = _json(cli("privacy", "tree", "--max-participations", 6, "--min-separation", 313, "--rounds", 2000,
                     "--noise-multiplier", 7, "--delta", "1e-10", "--json"))
    noise = gboard["noise"]
    assert noise["epsilon"] == tree["epsilon"]
    assert noise["epsilon_rdp"] == tree["epsilon_rdp"]
    assert noise["rho"] == tree["rho"] and noise["pattern"] == tree["pattern"]
    assert noise["noise_multiplier"] == tree["noise_multiplier"]


def _deployment(**over) -> dict:
    raw = {"clients": 50, "dimension": 20, "clip": 1, "privacy": {"delta": "1e-6", "rounds": 8},
           "noise": {"placement": "central", "noise_multiplier": 2}, "mechanism": "tree",
           "participation": {"max_participations": 1, "min_separation": 7}, "encoding": {"word_bits": 24}}
    raw.update(over)
    return raw


def test_tf_privacy_row_is_the_gaussian_it_says():
    """TF Privacy's row (E, xi, T) = (1, 7, 8) has s = 4: at z = 2, mu = 1, one Gaussian at z = 1."""
    p = plan(parse_deployment(_deployment()))
    assert p.noise.sensitivity_squared.upper() == 4 and p.verdict.feasible
    one = gaussian_tight_epsilon(1, 1, Fraction(1, 10**6))
    assert (p.noise.epsilon.low, p.noise.epsilon.high) == (one.low, one.high)
    # the largest scale in the word: the noiseless sum fits at gamma, not at a scale 1 % finer
    g = p.encoding.gamma
    assert 50 * math.floor(g + Fraction(1, 2)) < 2**23 <= 50 * math.floor(g * Fraction(101, 100) + Fraction(1, 2))


def test_a_target_epsilon_calibrates_z_as_privacy_tree(cli):
    p = plan(parse_deployment(_deployment(privacy={"epsilon": 3, "delta": "1e-6", "rounds": 8},
                                          noise={"placement": "central"})))
    tree = _json(cli("privacy", "tree", "--max-participations", 1, "--min-separation", 7, "--rounds", 8,
                     "--epsilon", 3, "--delta", "1e-6", "--json"))
    assert p.noise.noise_multiplier.to_dict() == tree["noise_multiplier"]
    assert p.noise.epsilon.upper() <= 3 and p.verdict.feasible


def test_a_given_z_that_misses_the_target_is_infeasible_with_its_fix():
    p = plan(parse_deployment(_deployment(privacy={"epsilon": "1/2", "delta": "1e-6", "rounds": 8})))
    assert not p.verdict.feasible and "noise_multiplier" in p.verdict.fixes
    fixed = plan(parse_deployment(_deployment(privacy={"epsilon": "1/2", "delta": "1e-6", "rounds": 8},
                                              noise={"placement": "central", "noise_multiplier":
                                                     p.verdict.fixes["noise_multiplier"]["noise_multiplier"]})))
    assert fixed.verdict.feasible


def test_the_blt_deployment_plans_with_privacy_toeplitz_sensitivity(cli):
    d = load_deployment("gboard-ftrl-blt")
    p = plan(d)
    assert p.verdict.feasible and p.noise.epsilon.upper() <= Fraction(89, 10)
    t = _json(cli("privacy", "toeplitz", "--output-scale", "1/4,1/4", "--buf-decay", "99/100,9/10", "--rounds", 2000,
                  "--max-participations", 6, "--min-separation", 313, "--json"))
    assert p.noise.sensitivity_squared.to_dict() == t["sensitivity_squared"]
    assert p.error.equal_privacy.to_dict() == t["mean_error"] and p.error.tree_equal_privacy == Fraction(
        t["tree_mean_error"])
    assert p.error.ratio.upper() < 1          # this BLT adds less error than the tree at equal privacy


def test_dp_accounting_export_reproduces_the_plans_eps(cli, gboard):
    dpa = pytest.importorskip("dp_accounting")
    out = _json(cli("plan", "gboard-ftrl", "--export", "dp-accounting", "--quiet"))
    event = out["dp_event"]["event"]
    assert out["dp_event"]["count"] == 1 and event["class_name"] == "GaussianDpEvent"
    assert event["noise_multiplier"] <= 7 / math.sqrt(79) < event["noise_multiplier"] * (1 + 1e-15)
    gaussian = dpa.GaussianDpEvent(event["noise_multiplier"])
    low, high = (Fraction(x) for x in gboard["noise"]["epsilon"]["interval"])
    pld = dpa.pld.PLDAccountant().compose(gaussian).get_epsilon(out["accountant_delta"])
    rdp = dpa.rdp.RdpAccountant().compose(gaussian).get_epsilon(out["accountant_delta"])
    # PLD's discretization (its default interval 1e-4 of the privacy loss) errs upward by at most ~1e-7 here
    assert float(low) - 1e-6 <= pld <= float(high) + 1e-6
    assert rdp >= float(low)


REFUSALS = {
    "distributed noise": ({"noise": {"placement": "distributed", "noise_multiplier": 2}}, "noise: a matrix mechanism"),
    "participation without rounds": ({"privacy": {"delta": "1e-6"}}, "participation: a schedule over the rounds"),
    "participation without mechanism": ({"mechanism": None}, "participation: limits"),
    "mechanism without participation": ({"participation": None}, "participation: missing"),
    "sigma with a matrix": ({"noise": {"placement": "central", "sigma": 4}}, "noise: a matrix mechanism's server"),
    "multiplier alone": ({"mechanism": None, "participation": None}, "noise.noise_multiplier: the multiplier"),
    "replace-one": ({"adjacency": "replace-one"}, "adjacency: DP-FTRL"),
    "population": ({"population": 100, "adjacency": "add-remove"}, "population: a matrix mechanism"),
    "layering": ({"encoding": {"radix": 5}}, "encoding: a matrix mechanism sums one flat word"),
    "banded without coefficients": ({"mechanism": {"kind": "banded"}}, "mechanism.coefficients"),
    "stochastic rounding": ({"encoding": {"word_bits": 24, "rounding": "stochastic"}}, "encoding.rounding"),
    "no eps and no z": ({"noise": {"placement": "central"}}, "privacy.epsilon: missing"),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_unsupported_is_one_line_exit_2_before_any_work(cli, tmp_path, case):
    import yaml

    over, said = REFUSALS[case]
    raw = _deployment(**over)
    raw = {k: v for k, v in raw.items() if v is not None}
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    report = tmp_path / "report.md"
    r = cli("plan", path, "--markdown", report, "--quiet")
    assert r.exit_code == 2, r.output
    assert said in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not report.exists()


@pytest.mark.parametrize("args", [("--export", "flower"), ("--export", "tff"), ("--simulate", "2")])
def test_no_counterpart_is_refused(cli, args):
    r = cli("plan", "gboard-ftrl", *args, "--quiet")
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1, r.output


def test_a_banded_column_that_rises_again_is_an_upper_bound_labelled_so():
    """C's column 1, 0, 1 is not non-increasing: Delta^2 is the envelope's closed form, an upper bound, and eps too."""
    p = plan(parse_deployment(_deployment(mechanism={"kind": "banded", "coefficients": [1, 0, 1]},
                                          participation={"max_participations": 2, "min_separation": 1})))
    s = p.noise.sensitivity_squared
    assert str(s.direction) == "upper bound" and s.lower() < s.upper()
    assert "Delta^2 is an upper bound" in str(p.noise.epsilon.method)
    at_top = plan(parse_deployment(_deployment(mechanism={"kind": "banded", "coefficients": [1, 1, 1]},
                                               participation={"max_participations": 2, "min_separation": 1})))
    assert at_top.noise.sensitivity_squared.upper() == s.upper()     # the envelope of 1, 0, 1 is 1, 1, 1


@given(rounds=st.integers(2, 24), e=st.integers(1, 4), xi=st.integers(0, 5), z=st.sampled_from([1, "3/2", 4]))
@settings(max_examples=12)
def test_every_tree_plans_the_eps_privacy_tree_accounts(rounds, e, xi, z):
    from itsa.privacy.matrix import tree

    p = plan(parse_deployment(_deployment(privacy={"delta": "1e-6", "rounds": rounds},
                                          noise={"placement": "central", "noise_multiplier": z},
                                          participation={"max_participations": e, "min_separation": xi})))
    t = tree(max_participations=e, min_separation=xi, rounds=rounds, noise_multiplier=z, delta="1e-6")
    assert p.noise.sensitivity_squared.upper() == t.sensitivity_squared and p.noise.epsilon == t.epsilon
    assert p.noise.rho == t.rho and p.noise.epsilon_rdp.epsilon == t.epsilon_rdp.epsilon


def test_a_matrix_plan_has_no_independent_round_event():
    from itsa.exceptions import InvalidOption

    p = plan(parse_deployment(_deployment()))
    with pytest.raises(InvalidOption, match="not independent"):
        p.round_event()


def test_a_word_the_noiseless_sum_spills_is_infeasible_with_the_fewest_bits_that_hold_it():
    """50 clients at gamma 4 (clip 1): the sum reaches 50 x 4 = 200, so 8 bits (up to 127) wrap surely, 9 hold it."""
    p = plan(parse_deployment(_deployment(encoding={"word_bits": 8, "gamma": 4})))
    assert not p.verdict.feasible and p.encoding.wrap_probability.upper() == 1
    assert p.verdict.fixes["word_bits"]["word_bits"] == 9 == (50 * 4).bit_length() + 1
    fixed = plan(parse_deployment(_deployment(encoding={"word_bits": 9, "gamma": 4})))
    assert fixed.verdict.feasible and str(fixed.encoding.wrap_probability.direction) == "exact"


def test_a_fleet_of_matrix_plans_writes_their_rows(cli, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "f.parquet"
    r = cli("plan", "gboard-ftrl", "-o", out, "--grid", "word_bits=29,30", "--workers", 0, "--quiet")
    assert r.exit_code == 0, r.output
    rows = pq.read_table(out).to_pylist()
    assert sorted(row["word"] for row in rows) == [29, 30]
    assert {(row["status"], row["verdict"]) for row in rows} == {("ok", "feasible")}
    assert {row["eps"] for row in rows} == {"8.5260934434520946"}
