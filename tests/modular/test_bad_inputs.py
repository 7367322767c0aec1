"""Every hostile input of ``itsa modular`` either works with a certified number or is refused in one line.

Decimal exponents past Python's 4,300-digit limit, converse JSON at K = 9,100
and 20,000, nan/inf/negative spreads, conflicting or empty options, sizes
past a limit and time limits. stdout and stderr are kept apart.
"""

import json
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from itsa.exceptions import InvalidOption
from itsa_cli import main as itsa


def run(*args):
    return CliRunner().invoke(itsa, ["modular", *args])


def refused(*args, code=2):
    res = run(*args)
    assert res.exit_code == code, (args, res.exit_code, res.stderr, res.exception)
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: "), res.stderr
    assert res.stdout == ""
    return res.stderr


def installed(*args):
    """The installed ``itsa`` in a subprocess: (exit code, stdout, stderr)."""
    p = subprocess.run(["itsa", "modular", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("carry", ["1e-100000", "1e-4301", "1e-5000"])
def test_margins_reads_exponents_past_the_digit_limit(carry):
    text = run("margins", "-K", "1000", "--carry", carry)
    assert text.exit_code == 0 and text.stderr == "", text.stderr
    assert f"<= {carry}" in text.stdout
    data = json.loads(run("margins", "-K", "1000", "--carry", carry, "--json").stdout)
    assert data["carry"] == carry
    p = data["rows"][0]["carry_probability"]
    assert (p["value"], p["direction"]) == ("0", "exact")  # K = 1000 cannot carry at its margin: exactly 0


def test_payload_refuses_a_target_below_the_certified_engine_and_computes_it_exactly():
    line = refused("payload", "-K", "1000", "--carry", "1e-5000")
    assert "carry target" in line and "4096 bits" in line
    exact = run("payload", "-K", "1000", "--carry", "1e-5000", "--arithmetic", "exact", "--json")
    assert exact.exit_code == 0, exact.stderr
    assert json.loads(exact.stdout)["stage_margins"] == [6, 6, 6, 6]     # the full range: 3^7 > 2·1000 + 1


def test_converse_and_privacy_print_a_tiny_target():
    res = run("converse", "-K", "100", "--success", "1e-5000")
    assert res.exit_code == 0 and "1e-5000" in res.stdout, res.stderr
    res = run("privacy", "--survivors", "100", "--delta", "1e-5000")
    assert res.exit_code == 0 and "δ = 1e-5000" in res.stdout, res.stderr


@pytest.mark.parametrize("clients, margin", [(9100, 5), (20000, 6)])
def test_converse_json_at_large_K_parses_in_a_real_process_and_is_small(clients, margin):
    code, out, err = installed("converse", "-K", str(clients), "--margin", str(margin), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert len(out) < 5000
    at = data["decoder"]
    assert at["modulus"] == 3 ** (1 + margin)
    assert at["optimal_success"].startswith("in [") and "too long to write exactly" in at["optimal_success"]
    low = Fraction(at["optimal_success"][4:].split(",")[0])
    assert low >= Fraction(at["optimal_success_lower"])          # the 6-digit decimal is below the enclosure


@pytest.mark.parametrize("spread", ["nan", "inf", "-inf", "-1", "0", "1e308"])
def test_distortion_refuses_a_spread_outside_its_domain(spread):
    assert "spread" in refused("distortion", f"--spread={spread}", "--samples", "100")


@pytest.mark.parametrize("args, says", [
    (["privacy", "--survivors", "100", "--authorized", ""], "authorized"),
    (["converse", "-K", "100", "--margin", "4", "-M", "81"], "margin 4 conflicts with modulus 81"),
    (["converse", "-K", "100", "--margin=-1"], "margin"),
    (["distortion", "--layers", "0"], "layers"),
    (["distortion", "--seed=-1", "--samples", "100"], "seed"),
    (["digits", "--seed=-1", "--max-points", "0"], "seed"),
    (["margins", "-K", "10", "--law", "1/3,1/3,1/3,0"], "odd number"),
    (["margins", "-K", "10", "--law", "1/5,1/5,1/5,1/5,1/5"], "radix 3"),
    (["converse", "-K", "10", "--law", "1"], "variance 0"),
    (["margins", "-K", "9" * 5000], "largest K"),
    (["payload", "-K", "16", "--layers", "10000000000"], "layers"),
    (["rules", "-K", "16", "--scaled-scale", "1e5000"], "margin above 200"),
    (["privacy", "--survivors", "100", "--delta", "0." + "9" * 40], "delta"),
])
def test_silent_misreadings_are_refused(args, says):
    assert says in refused(*args)


def test_margins_past_the_memory_limit_is_refused_before_any_work():
    line = refused("margins", "-K", "100000000", "--carry", "1e-300")
    assert "MiB (limit 1024 MiB)" in line


def test_digits_past_the_memory_limit_is_refused():
    assert "(limit 1024 MiB)" in refused("digits", "-L", "13", "-n", "8", "--samples", "10000000")
    assert "(limit 1024 MiB)" in refused("digits", "-n", "2", "-L", "12", "--max-points", "1000000000000")


@pytest.mark.parametrize("args", [["margins", "-K", "100000000", "--time-limit", "0.3"],
                                  ["distortion", "--samples", "100000000", "--time-limit", "0.3", "-l", "2"],
                                  ["rules", "-K", "8..5000", "--time-limit", "0.3"],
                                  ["converse", "-K", "20000", "--time-limit", "0.01"]])
def test_a_time_limit_stops_the_run_with_one_line(args):
    assert "time limit of 0." in refused(*args, code=1)


def test_the_json_shape_of_a_carry_probability_does_not_depend_on_k():
    """Exact at K = 5,000 and certified at K = 9,000: one object with the same keys."""
    shapes = set()
    for k in ("5000", "9000"):
        out = run("margins", "-K", k, "--json")
        assert out.exit_code == 0, out.stderr
        row = json.loads(out.stdout)["rows"][0]
        assert isinstance(row["carry_probability"], dict)
        shapes.add(tuple(sorted(row["carry_probability"])))
        shapes.add(tuple(sorted(row["carry_probability_below"])))
    assert shapes == {("direction", "interval", "method", "value")}


def test_a_nan_time_limit_is_refused():
    assert "time-limit" in refused("margins", "-K", "8", "--time-limit", "nan")


def test_ball_arithmetic_failures_are_itsa_errors():
    import flint

    from itsa.modular import Certified, fill_sensitivities
    from itsa.privacy import Direction

    def enclose(name, ball):
        return Certified.from_arb(name, ball, Direction.ENCLOSURE, "ball arithmetic")

    straddling = flint.arb(1) / 3 + flint.arb(0, 1e-30)     # width 27 ± tiny against the threshold 27
    with pytest.raises(InvalidOption, match="threshold"):
        fill_sensitivities(straddling, radix=3, layers=4)
    with pytest.raises(InvalidOption, match="too large"):
        enclose("x", flint.arb(2) ** (10**7))
    with pytest.raises(InvalidOption):
        enclose("x", flint.arb("inf"))


def test_block_moments_match_one_pass():
    from itsa.modular._distortion import _Moments

    x = np.random.default_rng(3).exponential(size=10_007)
    m = _Moments()
    for start in range(0, len(x), 1000):
        m.add(x[start:start + 1000])
    assert m.mean == pytest.approx(x.mean(), rel=1e-12)
    assert m.standard_error() == pytest.approx(x.std(ddof=1) / np.sqrt(len(x)), rel=1e-10)


def test_margins_report_counted_progress():
    from itsa.modular import margins

    events = []
    margins([8, 16, 10**6], progress=events.append)
    counted = [e for e in events if e.total is not None]
    assert counted and all(e.total == 3000 for e in counted)
    assert [e.done for e in counted] == sorted(e.done for e in counted) and counted[-1].done == 3000
    assert any(0 < e.done < 3000 and e.done % 1000 for e in counted)     # the certified power moves the bar


def test_margins_json_of_an_exact_carry_past_the_digit_limit_is_its_bounds():
    res = run("margins", "-K", "9100", "--arithmetic", "exact", "--json")
    assert res.exit_code == 0, res.stderr
    row = json.loads(res.stdout)["rows"][0]
    p = row["carry_probability"]
    assert row["exact"] and p["direction"] == "exact" and p["value"].endswith("(too long to write exactly)")
    low, high = (Fraction(x) for x in p["value"][4:].split("]")[0].split(", "))
    outward = [Fraction(x) for x in p["interval"]]
    assert outward[0] <= low <= high <= outward[1] <= Fraction(1, 1000)


@pytest.mark.parametrize("verb", [["margins", "-K", "10"], ["converse", "-K", "10"]])
def test_an_empty_law_is_refused_not_read_as_the_default(verb):
    res = run(*verb, "--law", "")
    assert res.exit_code == 2 and res.stdout == "" and "digit law" in res.stderr
