"""``itsa privacy tree``: the installed command, its JSON and its exit codes."""

import json

import pytest

ES_ES = ["--max-participations", "6", "--min-separation", "313", "--rounds", "2000", "--delta", "1e-10"]


def test_es_es_json(itsa_privacy):
    out = json.loads(itsa_privacy("tree", *ES_ES, "--noise-multiplier", "7", "--json").stdout)
    assert out["sensitivity_squared"] == 79 and out["rho"] == "79/98"
    assert out["epsilon_rdp"]["epsilon"]["value"].startswith("8.8986")
    assert out["epsilon"]["direction"] == "upper bound" and "exact Gaussian" in out["epsilon"]["method"]
    assert len(out["pattern"]) == 6


def test_calibration_text(itsa_privacy):
    res = itsa_privacy("tree", *ES_ES, "--epsilon", "8.9")
    assert "noise multiplier z    6.73582" in res.stdout and "z by the RDP route" in res.stdout


def test_log(itsa_privacy, tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("client,round\na,0\na,5\nb,3\n")
    out = json.loads(itsa_privacy("tree", "--max-participations", "2", "--min-separation", "3", "--rounds", "8",
                                  "--noise-multiplier", "2", "--log", log, "--json").stdout)
    assert out["sensitivity_squared"] == 10 and out["worst_client"] == "a"


@pytest.mark.parametrize("args, words", [
    (["--noise-multiplier", "7", "--epsilon", "1"], "conflicts with --epsilon"),
    (["--noise-multiplier", "-7"], "noise multiplier"),
    (["--noise-multiplier", "7", "--restarts", "10,x"], "--restarts"),
    (["--epsilon", "1", "--log", "nowhere.csv"], "--log"),
])
def test_bad_input_exits_2_in_one_line(itsa_privacy, args, words):
    res = itsa_privacy("tree", *ES_ES, *args, check=False)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1 and words in res.stderr


def test_a_log_breaking_the_plan_exits_2(itsa_privacy, tmp_path):
    log = tmp_path / "log.json"
    log.write_text('{"a": [0, 2]}')
    res = itsa_privacy("tree", "--max-participations", "2", "--min-separation", "3", "--rounds", "8",
                       "--noise-multiplier", "2", "--log", log, check=False)
    assert res.returncode == 2 and "fewer than the planned min separation 3" in res.stderr


def test_toeplitz_banded_json(itsa_privacy):
    out = json.loads(itsa_privacy("toeplitz", "--coefficients", "1,1/2,1/4", "--rounds", "16",
                                  "--max-participations", "2", "--min-separation", "3", "--json").stdout)
    assert out["closed_form"] and out["sensitivity_squared"]["direction"] == "exact"
    assert out["sensitivity_squared"]["value"] == "2.625" and out["tree_sensitivity_squared"] == 14


def test_toeplitz_needs_one_mechanism(itsa_privacy):
    res = itsa_privacy("toeplitz", "--rounds", "8", "--max-participations", "2", "--min-separation", "1",
                       "--coefficients", "1", "--output-scale", "1/2", "--buf-decay", "1/2", check=False)
    assert res.returncode == 2 and "give a banded" in res.stderr and res.stdout == ""
