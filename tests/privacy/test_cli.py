"""``itsa privacy``: the interface, --json, exit codes."""

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from itsa_cli import main as cli


def run(*args):
    return CliRunner().invoke(cli, ["privacy", *args])


def as_json(*args):
    res = run(*args, "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_weights_json():
    """Page: 50 equal clients on alpha = 256: 44 weights 5 and six 6."""
    out = as_json("weights", "--alpha", "256", *["1"] * 50)
    assert out["weights"].count(5) == 44 and out["weights"].count(6) == 6


def test_account_json_names_the_conversions():
    out = as_json("account", "--noise-multiplier", "0.0969", "--rounds", "30", "--delta", "1e-5",
                  "--epsilon-per-round", "50")
    eps = out["epsilon"]
    assert {"mironov", "cks", "basic", "advanced", "sqrt_rounds_heuristic", "tight"} <= set(eps)
    assert round(float(eps["mironov"]["value"])) == 1869 and eps["basic"]["value"] == "1500"
    assert eps["basic"]["direction"].startswith("conditional") and eps["mironov"]["direction"] == "upper bound"
    default = as_json("account", "--noise-multiplier", "0.0969", "--rounds", "30")["epsilon"]
    assert default["basic"]["direction"] == "upper bound" and float(default["basic"]["value"]) > 1790.6
    classical = as_json("account", "--noise-multiplier", "0.0969", "--rounds", "30", "--per-round", "classical")
    assert classical["epsilon"]["basic"]["direction"].startswith("conditional")
    assert all(e["method"] and len(e["interval"]) == 2 for e in eps.values())
    assert eps["sqrt_rounds_heuristic"]["direction"].startswith("heuristic")


def test_calibrate_json():
    out = as_json("calibrate", "--epsilon", "2", "--delta", "1e-6", "--conversion", "cks")
    z = Fraction(out["noise_multiplier"])             # the safe decimal, as exact text
    assert z >= Fraction(out["noise_multiplier_certified"]["interval"][1])   # rounded up from the certified value
    assert float(out["achieved"]["epsilon"]["interval"][1]) <= 2


def test_noise_json_and_verify():
    out = as_json("noise", "--sigma", "14924", "--count", "50", "--seed", "round-1", "--engine", "table")
    assert len(out["draws"]) == 50 and all(isinstance(x, int) for x in out["draws"])
    assert len(out["commitment"]) == 64
    ok = run("noise", "--sigma", "14924", "--count", "50", "--seed", "round-1", "--engine", "table",
             "--verify", out["commitment"])
    assert ok.exit_code == 0 and "verified" in ok.stdout
    bad = run("noise", "--sigma", "14924", "--count", "50", "--seed", "round-2", "--engine", "table",
              "--verify", out["commitment"])
    assert bad.exit_code == 1 and "mismatch" in bad.stderr


def test_noise_exact_is_reproducible():
    a = as_json("noise", "--sigma", "3/2", "--count", "30", "--seed", "s")
    b = as_json("noise", "--sigma", "3/2", "--count", "30", "--seed", "s")
    assert a["draws"] == b["draws"] and a["commitment"] == b["commitment"]


def test_sensitivity_json():
    out = as_json("sensitivity", "--max-weight", "6/256", "--clip", "1", "-d", "2", "--gamma", "256")
    assert round(float(out["sensitivity"]["value"]), 3) == 0.047 and "reading" in out["sensitivity"]["method"]


@pytest.mark.parametrize(("eps", "kind"), [("50", "heuristic"), ("1", "upper bound"), ("1/2", "upper bound")])
def test_sensitivity_sigma_labels(eps, kind):
    """The classical sigma_t (and sigma_int from it) is a bound below eps = 1, or where the exact curve says so."""
    out = as_json("sensitivity", "--clients", "50", "-d", "2", "--epsilon", eps)
    assert out["sigma_t"]["direction"].startswith(kind) and out["sigma_int"]["direction"].startswith(kind)


def test_release_csv_and_npy(tmp_path):
    csv = tmp_path / "u.csv"
    csv.write_text("client,weight,x,y\n1,31,0.5,0.1\n2,74,-0.2,0.3\n3,120,0.9,0.9\n4,9,0,-0.7\n5,66,0.3,0.3\n")
    out = as_json("release", str(csv), "--epsilon", "10", "--seed", "8")
    assert out["clients"] == 5 and len(out["released"]) == 2 and len(out["commitment"]["value"]) == 64
    npy = tmp_path / "u.npy"
    np.save(npy, np.random.default_rng(0).normal(size=(50, 2)))
    out2 = as_json("release", str(npy), "--epsilon", "1", "--seed", "8")
    assert round(float(out2["sigma_int"].split("/")[0]) / float(out2["sigma_int"].split("/")[1])) == 14924


@pytest.mark.parametrize("args", [
    ["calibrate", "--epsilon", "0", "--delta", "1e-5"],
    ["calibrate", "--epsilon", "1", "--delta", "1"],
    ["account", "--noise-multiplier", "-1", "--rounds", "3"],
    ["weights", "--alpha", "256", "-1", "2"],
    ["weights", "--alpha", "256", "0", "0"],
    ["weights", "--alpha", "2.5", "1", "2"],
    ["noise", "--sigma", "0", "--count", "3", "--seed", "x"],
    ["noise", "--sigma", "1", "--count", "1000000000000", "--seed", "x"],
    ["release", "no-such-file.csv"],
])
def test_bad_input_is_one_line_exit_2(args):
    res = run(*args)
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error:") and not res.stdout


def _files(tmp_path):
    (tmp_path / "u.csv").write_text("x,y\n0.1,0.2\n0.3,0.4\n")
    (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00garbage\x80\n")
    return tmp_path


#: The reviewer's inputs that raised tracebacks, hung, or stopped at "order: must be > 1, not 1".
EDGE_INPUTS = [
    ["noise", "--sigma", "1/10", "--count", "3", "--seed", "x", "--engine", "table"],
    ["noise", "--sigma", "1e-9", "--count", "3", "--seed", "x", "--engine", "table"],
    ["account", "--noise-multiplier", "1e-9"],
    ["account", "--noise-multiplier", "1e-9", "--rounds", "3"],
    ["account", "--noise-multiplier", "1", "--delta", "1e-400"],
    ["account", "--noise-multiplier", "1", "--delta", "1e-100000"],
    ["account", "--noise-multiplier", "1", "--delta-slack", "1e-100000"],
    ["account", "--noise-multiplier", "1", "--delta", "1e-999999999"],
    ["account", "--noise-multiplier", "1e-13"],
    ["account", "--noise-multiplier", "1e9"],
    ["calibrate", "--epsilon", "1e30", "--quiet"],
    ["release", "{u}", "--epsilon", "1e5"],
    ["release", "{bin}"],
    ["release", "{u}", "--clip", "1e400", "--epsilon", "1"],
    ["release", "{u}", "--gamma", str(2**70)],
    ["sensitivity", "--clients", "50", "-d", "2", "--epsilon", "1e5"],
    # found while fixing the above
    ["release", "{u}", "--epsilon", "1e-30", "--engine", "exact"],
    ["release", "{u}", "--noise-multiplier", "1e-300"],
    ["account", "--noise-multiplier", "1", "--epsilon-per-round", "1e400"],
    ["noise", "--sigma", "1e30", "--count", "3", "--seed", "x"],
    ["account", "--noise-multiplier", "1e-200"],
    ["calibrate", "--epsilon", "1e400", "--quiet"],
    ["release", "{u}", "--noise-multiplier", "1e-300", "--engine", "exact"],
]


@pytest.mark.parametrize("args", EDGE_INPUTS, ids=lambda a: " ".join(a)[:60])
def test_edge_inputs_give_a_number_or_one_line(tmp_path, args):
    """Each gives a result (exit 0) or one line and exit 2: never a traceback, never order 1."""
    files = _files(tmp_path)
    argv = [a.format(u=files / "u.csv", bin=files / "bin.csv") for a in args]
    res = run(*argv, "--json")
    assert res.exit_code in (0, 2), res.output
    if res.exit_code == 2:
        assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error:") and not res.stdout
        assert "order: must be > 1" not in res.output
    else:
        json.loads(res.stdout)


def test_order_never_one():
    """An order 1 + e^x with e^x < 5e-13 stays above 1 (it was rounded to 1 before)."""
    from itsa.privacy import gaussian_curve, to_epsilon

    bound = to_epsilon(gaussian_curve("1e-13"), "1e-5")
    assert bound.order > 1 and bound.order - 1 < Fraction(1, 10**12)
    assert "q = 1 + " in bound.epsilon.method


def test_sensitivity_for_a_billion_clients():
    """The largest weight of M equal clients in closed form: ceil(alpha/M)/alpha, no list of M weights."""
    out = as_json("sensitivity", "--clients", "1000000000", "-d", "2")
    assert out["max_weight"] == "0.00390625"        # 1/256, written exactly
