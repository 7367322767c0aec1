"""``itsa modular``: the interface's JSON keys, one-line errors with exit 2, and the audit."""

import json

import pytest
from click.testing import CliRunner

from itsa._util.schema import SCHEMA_VERSION
from itsa.modular import Status, audit
from itsa_cli import main as cli


def run(*args):
    return CliRunner().invoke(cli, ["modular", *args])


def test_margins_json_rows_and_slope():
    res = run("margins", "--radix", "3", "--layers", "4", "--clients", "8,16,32", "--carry", "1/1000", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [r["clients"] for r in data["rows"]] == [8, 16, 32]
    assert [r["margin"] for r in data["rows"]] == [2, 2, 3]
    assert data["rows"][1]["carry_probability"] == "34/4782969"        # exact fraction string
    assert set(data["slope"]) == {"low", "high", "method"}


def test_margins_certified_interval_at_deployment_scale():
    res = run("margins", "--clients", "1000000", "--carry", "0.001", "--json")
    assert res.exit_code == 0, res.output
    row = json.loads(res.output)["rows"][0]
    assert row["margin"] == 7 and not row["exact"]
    assert set(row["carry_probability"]) == {"low", "high", "method"}


def test_margins_table():
    res = run("margins", "--clients", "8..64x2")
    assert res.exit_code == 0 and "slope" in res.output and "exact" in res.output


def test_digits_json():
    res = run("digits", "--chain", "a2", "--radix", "3", "--layers", "4", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["rows"]
    assert [(r["layer"], r["violations"], r["points"]) for r in rows] == [
        (1, 0, 6561), (2, 972, 6561), (3, 972, 6561), (4, 972, 6561)]


def test_payload_json():
    res = run("payload", "--radix", "3", "--layers", "4", "--clients", "1000", "--stages", "4,3/2,1",
              "--carry", "1/1000", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert (data["psa_bits_per_dimension"], data["flat_bits_per_dimension"]) == ("19.02", "22.19")


@pytest.mark.parametrize("verb, args", [("converse", ["--clients", "1000", "--margin", "4"]),
                                        ("rules", ["--clients", "1000"]),
                                        ("distortion", ["--finest", "2", "--samples", "2000"])])
def test_other_verbs_run(verb, args):
    res = run(verb, *args)
    assert res.exit_code == 0, res.output
    assert json.loads(run(verb, *args, "--json").output)["schema_version"] == SCHEMA_VERSION


@pytest.mark.parametrize("args", [
    ["margins", "--clients", "8", "--radix", "4"],
    ["margins", "--clients", "8", "--layers", "0"],
    ["margins", "--clients", "0"],
    ["margins", "--clients", "8", "--carry", "1"],
    ["margins", "--clients", "8", "--carry", "abc"],
    ["margins", "--clients", "8", "--law", "1/2,1/3"],
    ["margins", "--clients", "100000", "--method", "exact", "--layers", "4"],
    ["payload", "--clients", "1000", "--stages", "4,2/3,1"],
    ["digits", "--chain", "e8"],
])
def test_bad_input_is_one_line_and_exit_2(args):
    res = CliRunner().invoke(cli, ["modular", *args])
    assert res.exit_code == 2, res.output
    assert res.output.count("error:") == 1 and "Traceback" not in res.output


def test_audit_statuses():
    a = audit(privacy=False)
    assert a.by_key("fig1a-slope").status is Status.READING
    assert a.by_key("table1-psa").status is Status.REPRODUCED
    assert a.by_key("table1-flat").status is Status.REPRODUCED
    assert a.by_key("fig1b-a2").status is Status.DISAGREES
    assert a.by_key("asymptotic-15").status is Status.DISAGREES
    assert "4/27" in a.by_key("fig1b-a2").itsa


def test_audit_cli_json():
    res = run("audit", "--no-privacy", "--json")
    assert res.exit_code == 0, res.output
    keys = [c["key"] for c in json.loads(res.output)["checks"]]
    assert "table1-psa" in keys and "fig1a-staircase" in keys
