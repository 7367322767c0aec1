"""Every refusal of ``itsa plan`` comes before anything is written, and an export never changes the protocol."""

from __future__ import annotations

import json

import pytest

BASE = ("clients: 100\ndimension: 10\nclip: 1\nnoise: central\n"
        "privacy: {epsilon: 2, delta: 1e-6, rounds: 10}\n")
#: Deployments the Flower export refuses: before planning (the deployment) or after it (the plan's numbers).
REFUSED = {
    "layered": ("table1-psa", "layered plan"),
    "population": (BASE + "adjacency: add-remove\nencoding: {word_bits: 32}\npopulation: 100000\n", "fixed cohort"),
    "multi-server": (BASE + "encoding: {word_bits: 32}\nprotocol: {multi-server: {servers: 3, collusion: 1}}\n",
                     "multi-server (3 servers, collusion 1)"),
    "servers": (BASE + "encoding: {word_bits: 32}\nservers: example-1\n", "key-rate instance"),
    "int32-scale": (BASE + "encoding: {word_bits: 62, gamma: 4294967296}\n", "int32"),
    "64-bit-word": (BASE + "encoding: {word_bits: 64}\n", "word_bits"),
}


def _deployment(tmp_path, text):
    if "\n" not in text:
        return text
    path = tmp_path / "d.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_refused_flower_export_writes_no_report(cli, tmp_path, name):
    text, words = REFUSED[name]
    out = tmp_path / "out.md"
    r = cli("plan", _deployment(tmp_path, text), "--export", "flower", "--markdown", out, "--quiet")
    assert r.exit_code == 2 and words in r.stderr and r.stderr.count("\n") == 1, r.output
    assert not out.exists() and r.stdout == ""


def test_a_refused_flower_export_writes_no_figure_and_no_export_file(cli, tmp_path):
    figure, export = tmp_path / "f.svg", tmp_path / "e.json"
    r = cli("plan", _deployment(tmp_path, REFUSED["population"][0]), "--export", "flower", "--sweep", "epsilon=1,2",
            "--figure", figure, "--export-file", export, "--quiet")
    assert r.exit_code == 2 and "fixed cohort" in r.stderr
    assert not figure.exists() and not export.exists()


def test_a_multi_server_deployment_is_not_exported_as_secagg(cli, tmp_path):
    r = cli("plan", _deployment(tmp_path, REFUSED["multi-server"][0]), "--export", "flower", "--quiet")
    assert r.exit_code == 2 and "never replaces the deployment's protocol" in r.stderr
    assert "SecAggPlusWorkflow" not in r.stdout and "1/20" not in r.stderr
    ok = cli("plan", _deployment(tmp_path, REFUSED["multi-server"][0]), "--export", "dp-accounting", "--quiet")
    assert ok.exit_code == 0 and '"dp_event"' in ok.stdout


def test_snippet_with_json_is_refused(cli, tmp_path):
    r = cli("plan", "k1000", "--export", "flower", "--snippet", "--json", "--quiet")
    assert r.exit_code == 2 and "give one of them" in r.stderr and r.stdout == ""


# --- the fields of a deployment: the file, the field and the real reason, never a traceback ---

FLAT = BASE + "encoding: {word_bits: 32, rounding: conditional, beta: 'BETA'}\n"
HUGE = str(9**409)      # 391 digits


@pytest.mark.parametrize("beta, words", [
    ("exp(-" + HUGE + ")", "encoding.beta: exp(-lambda) with lambda at most"),
    ("exp(1)", "encoding.beta: 'exp(1)' is not below 1"),
    ("exp(-1e-390)", "encoding.beta: 'exp(-1/1000"),
    ("exp(-x)", "encoding.beta: lambda of exp(-lambda): must be a number"),
    ("1/" + "7" * 5000, "too long to read"),
])
def test_a_bad_beta_names_the_file_and_the_field(cli, tmp_path, beta, words):
    r = cli("plan", _deployment(tmp_path, FLAT.replace("BETA", beta)), "--quiet")
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "d.yaml: " in r.stderr, r.output[-600:]
    assert words in r.stderr and r.stderr.count("\n") == 1 and len(r.stderr) < 400, r.stderr


def test_a_tiny_rational_beta_plans(cli, tmp_path):
    """``beta: 1e-399`` once overflowed the ball arithmetic (ln(1 - (1 - beta)) at 1 - beta rounded to 1)."""
    r = cli("plan", _deployment(tmp_path, FLAT.replace("'BETA'", "1e-399")), "--json", "--quiet")
    assert r.exit_code == 0, r.output[-500:]


def test_log_inverse_of_a_tiny_beta_is_exact_to_the_ball():
    import math
    from fractions import Fraction

    from itsa.privacy.neighbours import _log_inverse

    ball = _log_inverse(Fraction(1, 10**399))
    assert ball.is_finite() and ball.rad() < 1e-9 and abs(float(ball.mid()) - 399 * math.log(10)) < 1e-9


def test_an_unused_beta_is_named(cli, tmp_path):
    r = cli("plan", _deployment(tmp_path, BASE + "encoding: {word_bits: 32, beta: 1/2}\n"), "--quiet")
    assert r.exit_code == 2 and "encoding.beta: only conditional rounding reads beta" in r.stderr


@pytest.mark.parametrize("placement", ["distributed", "central"])
def test_skellam_with_a_psa_layering_names_the_mechanism(cli, tmp_path, placement):
    text = BASE.replace("noise: central\n", f"noise: {{mechanism: skellam, placement: {placement}}}\n")
    r = cli("plan", _deployment(tmp_path, text + "encoding: {radix: 3, layers: 4}\n"), "--quiet")
    assert r.exit_code == 2 and "noise.mechanism: skellam with a PSA layering" in r.stderr, r.stderr


def test_a_tiny_sigma_in_the_file_is_planned_not_a_traceback(cli, tmp_path):
    text = BASE.replace("noise: central\n", "noise: {placement: central, sigma: 1e-300}\n")
    r = cli("plan", _deployment(tmp_path, text + "encoding: {word_bits: 32}\n"), "--json", "--quiet")
    assert r.exit_code == 3 and isinstance(r.exception, SystemExit), r.output[-500:]
    assert json.loads(r.stdout)["verdict"]["verdict"] == "infeasible"


def test_a_sweep_to_a_tiny_sigma_is_no_traceback(cli):
    r = cli("plan", "hospitals", "--sweep", "sigma=1e-300", "--json", "--quiet")
    assert r.exit_code == 0 and isinstance(r.exception, (SystemExit, type(None))), r.output[-500:]


def test_a_sweep_runs_the_protocols_own_checks(cli):
    r = cli("plan", "k1000", "--sweep", "clients=2,3", "--quiet")
    assert r.exit_code == 2 and "sweep: protocol.secagg+: needs at least 3 clients, not 2" in r.stderr
    assert r.stdout == ""


def test_secagg_with_2_clients_says_why(cli):
    r = cli("secagg", "--clients", "2", "--corrupt", "0", "--dropout", "0")
    assert r.exit_code == 1 and "at least 3 clients" in r.stderr and "t >= 2" in r.stderr
    assert "2^-40" not in r.stderr


# --- a simulation too large for its limits never hides an infeasible verdict ---

@pytest.mark.parametrize("rounds", ["10", "100000"])
def test_simulate_past_its_size_keeps_the_infeasible_verdict(cli, rounds, tmp_path):
    # a million clients in an 8-bit word (infeasible), 2 million words a client: a block of 5 is past the cells
    text = ("clients: 1000000\ndropout: 1/10\ndimension: 2000000\nclip: 1\n"
            "privacy: {epsilon: 4, delta: 1e-6, rounds: 150}\nnoise: distributed\nencoding: {word_bits: 8}\n")
    r = cli("plan", _deployment(tmp_path, text), "--simulate", rounds, "--quiet")
    assert r.exit_code == 3 and "infeasible" in r.stdout and "cannot be simulated" in r.stdout, r.output[-500:]


def test_simulate_past_its_time_is_still_refused_for_a_feasible_plan(cli, tmp_path):
    text = BASE.replace("clients: 100\ndimension: 10", "clients: 1000\ndimension: 1000000") + "encoding: {word_bits: 32}\n"
    out = tmp_path / "out.md"
    r = cli("plan", _deployment(tmp_path, text), "--simulate", "2", "--markdown", out, "--quiet")
    assert r.exit_code == 2 and "past the time limit of 300 s" in r.stderr and "--workers" in r.stderr
    assert r.stderr.count("\n") == 1 and not out.exists()


def test_a_sampling_without_a_population_is_named(cli, tmp_path):
    r = cli("plan", _deployment(tmp_path, BASE + "encoding: {word_bits: 32}\nsampling: fixed\n"), "--quiet")
    assert r.exit_code == 2 and "sampling: says how a round's clients are drawn from a population" in r.stderr


def test_a_swept_whole_number_is_read_by_the_one_reader(cli):
    from itsa.planning.drivers.sweep import parse_sweep

    assert parse_sweep("dimension=1e3,2_000")[1] == [1000, 2000]
    r = cli("plan", "hospitals", "--sweep", "clients=1e999999999", "--quiet")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "clients" in r.stderr
