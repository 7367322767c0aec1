"""``itsa analyze`` through click's CliRunner: output, JSON and exit codes."""

import json
from fractions import Fraction

import pytest

from tests.conftest import INSTANCES


def test_analyze_example1_json(cli):
    res = cli("analyze", INSTANCES / "example-1.yaml", "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["e_star"] == 2 and d["a_star"] == 2
    assert d["S_I"] == [[1, 3]]
    assert d["S_bar"] == [[1, 1], [1, 3], [2, 1]]
    assert d["Q1"] == [] and d["Q"] == [] and d["q_rule"] == "union"
    assert d["regime"] == "condition-2"
    assert (d["R_X"], d["R_Y"], d["key_rate_lower_printed"], d["key_rate_upper"]) == ("1", "1", "2", "2")
    assert d["key_rate_lower"] == "2" and "itsa finding" in d["key_rate_lower_reason"]
    assert d["lp"] is None
    assert {"instance", "U", "K", "M", "N", "servers", "Q2"} <= d.keys()


def test_analyze_example2_json_lp(cli):
    d = json.loads(cli("analyze", INSTANCES / "example-2.yaml", "--json").stdout)
    assert d["regime"] == "theorem-2"
    assert d["key_rate_lower_printed"] == "2" and d["key_rate_upper"] == "7/2"
    assert d["key_rate_lower"] == "3"
    lp = d["lp"]
    assert lp["feasible"] and lp["b_star"] == "3/2"
    assert lp["b"] == [{"user": [1, 2], "value": "0"}, {"user": [1, 3], "value": "1/2"},
                       {"user": [1, 4], "value": "1/2"}, {"user": [2, 3], "value": "0"},
                       {"user": [3, 1], "value": "1/2"}]
    binding = sorted(cfg for c in lp["constraints"] if c["binding"] for cfg in c["configurations"])
    assert binding == [[1, 8, 21], [1, 8, 22], [1, 8, 23]]
    assert lp["dual"]["objective"] == "3/2"


def test_analyze_detail_lists_every_configuration(cli):
    d = json.loads(cli("analyze", INSTANCES / "example-1.yaml", "--json", "--detail").stdout)
    confs = d["configurations"]
    assert len(confs) == 3 * 4 * 16
    c = next(x for x in confs if (x["u"], x["m"], x["n"]) == (1, 4, 16))
    assert c["U_mn"] == [2] and c["F_mn"] == [3]
    assert c["A"] == [[1, 1], [2, 1]]


def test_analyze_tables_and_q_rule(cli):
    res = cli("analyze", INSTANCES / "example-2.yaml", "--q-rule", "intersection", "--detail")
    assert res.exit_code == 0
    for text in ("theorem-2", "b* = 3/2", "(1,8,21)", "intersection", "Configurations"):
        assert text in res.stdout


def test_infeasible_lp_prints_unknown_upper_bound(cli):
    d = json.loads(cli("analyze", INSTANCES / "homogeneous-U3-V2-t1.yaml", "--json").stdout)
    assert d["key_rate_upper"] is None and d["lp"]["feasible"] is False
    # printed converse 5 > the published optimum 4; itsa's corrected bound is 4
    assert d["key_rate_lower_printed"] == "5" and d["key_rate_lower"] == "4"
    assert len(d["lp"]["empty_constraint"]) == 3


@pytest.mark.parametrize("text, fragment", [
    ("servers: [1, 1, 1]\nsecurity_sets: [all]\ncollusion_sets: [[]]\ncolour: red\n", "unknown key 'colour'"),
    ("servers: [1, 1, 1]\nsecurity_sets: [[[5, 1]]]\ncollusion_sets: [[]]\n", "outside the topology"),
    ("servers: [1, 0, 1]\nsecurity_sets: [all]\ncollusion_sets: [[]]\n", "server 2 has 0 users"),
    ("servers: [1, 1, 1]\nsecurity_sets: [all]\ncollusion_sets: {subsets_of: [[1, 1]], max_size: -2}\n",
     "max_size: must be a whole number >= 0, not -2"),
    ("servers: [1, 1, 1]\nsecurity_sets: 7\ncollusion_sets: [[]]\n", "a family is a list"),
    ("servers: [1, 1\n", "not valid YAML"),
])
def test_bad_input_exit_2_one_line(cli, tmp_path, text, fragment):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    res = cli("analyze", path, "--json")
    assert res.exit_code == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.yaml" in lines[0] and fragment in lines[0]


def test_corrected_bound_can_be_switched_off(cli):
    d = json.loads(cli("analyze", INSTANCES / "example-2.yaml", "--json", "--no-corrected").stdout)
    assert d["key_rate_lower"] is None and "not computed" in d["key_rate_lower_reason"]
    assert d["key_rate_lower_printed"] == "2"


def test_missing_file_exit_2(cli):
    res = cli("analyze", "no/such/file.yaml")
    assert res.exit_code == 2 and "no such file" in res.stderr


def test_duplicate_user_warns_on_stderr(cli, tmp_path):
    path = tmp_path / "dup.yaml"
    users = ", ".join(["[1, 1]"] * 20_000)
    path.write_text(f"servers: [1, 1, 1]\nsecurity_sets: [[{users}], [[2, 1], [2, 1]]]\ncollusion_sets: [[]]\n")
    res = cli("analyze", path, "--json")
    assert res.exit_code == 0
    assert res.stderr == ("warning: 20000 duplicate user(s) merged in 2 set(s) "
                          "(first: security_sets[0]: [1, 1])\n")
    json.loads(res.stdout)


# -- --detail: streamed, filtered, bounded -------------------------------------------
def detail(cli, *args):
    res = cli("analyze", INSTANCES / "example-2.yaml", "--json", *args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_detail_filters_select_the_right_rows(cli):
    import itsa

    a = itsa.analyze(itsa.load_instance(INSTANCES / "example-2.yaml"))
    conf = a.configurations
    every = detail(cli, "--detail")["configurations"]
    assert len(every) == conf.c.size
    crit = detail(cli, "--only", "critical")["configurations"]
    assert crit == [r for r in every if r["critical"]] and len(crit) == int(conf.critical.sum()) > 0
    star = detail(cli, "--only", "e-star")["configurations"]
    assert star == [r for r in every if r["c"] == a.e_star] and len(star) == int((conf.c == a.e_star).sum())
    one = detail(cli, "--config", "1,8,21")["configurations"]
    assert [(r["u"], r["m"], r["n"]) for r in one] == [(1, 8, 21)] and one[0]["critical"]
    assert detail(cli, "--config", "1,8,21", "--only", "e-star")["configurations"] == one


def test_detail_beyond_the_limit_needs_a_filter_or_force(cli, monkeypatch):
    import itsa.keys.output.detail

    monkeypatch.setattr(itsa.keys.output.detail, "MAX_ROWS", 100)
    res = cli("analyze", INSTANCES / "example-2.yaml", "--detail")
    assert res.exit_code == 2
    assert "--only critical|e-star or --config u,m,n, or pass --force" in res.stderr
    assert res.stderr.count("\n") == 1
    assert cli("analyze", INSTANCES / "example-2.yaml", "--detail", "--force").exit_code == 0
    assert cli("analyze", INSTANCES / "example-2.yaml", "--only", "critical").exit_code == 0


def test_detail_bad_config_is_exit_2(cli):
    res = cli("analyze", INSTANCES / "example-2.yaml", "--config", "9,1,1")
    assert res.exit_code == 2 and "out of range" in res.stderr


def test_theorem2_upper_bound_on_the_symbols_the_keys_use(cli):
    from itsa import analyze, examples

    assert analyze(examples.load("example-2")).key_rate_upper_used.value == Fraction(7, 2)   # = e* + b*
    a = analyze(examples.load("audit/vector-optimum-8-3"))
    assert (a.key_rate_upper.value, a.key_rate_upper_used.value) == (Fraction(11, 3), Fraction(8, 3))
    assert analyze(examples.load("example-1")).key_rate_upper_used is None             # condition 2
    out = json.loads(cli("analyze", "audit/vector-optimum-8-3", "--json").stdout)
    assert (out["key_rate_upper"], out["key_rate_upper_used"]) == ("11/3", "8/3")
    text = cli("analyze", "audit/vector-optimum-8-3").stdout
    assert "key rate upper (itsa)" in text and "8/3" in text
