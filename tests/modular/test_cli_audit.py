"""``itsa modular``: the interface's JSON keys, one-line errors with exit 2, and the audit."""

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from itsa._util.certified import safe_decimal
from itsa._util.schema import SCHEMA_VERSION
from itsa.modular import Status, audit
from itsa_cli import main as cli


def run(*args):
    return CliRunner().invoke(cli, ["modular", *args])


def test_margins_json_rows_and_slope():
    res = run("margins", "--radix", "3", "--layers", "4", "--clients", "8,16,32", "--carry", "1/1000", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [r["clients"] for r in data["rows"]] == [8, 16, 32]
    assert [r["margin"] for r in data["rows"]] == [2, 2, 3]
    assert data["rows"][1]["carry_probability"]["value"] == "34/4782969"        # exact fraction string
    assert data["rows"][1]["carry_probability"]["direction"] == "exact"
    assert set(data["slope"]) == {"value", "direction", "interval", "method"}      # Certified.to_dict()
    assert (data["radix"], data["layers"], data["carry"], data["clients"]) == (3, 4, "1/1000", [8, 16, 32])


def test_margins_certified_interval_at_deployment_scale():
    res = run("margins", "--clients", "1000000", "--carry", "0.001", "--json")
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["rows"][0]
    assert row["margin"] == 7 and not row["exact"]
    assert set(row["carry_probability"]) == {"value", "direction", "interval", "method"}
    assert row["carry_probability"]["direction"] == "upper bound"


def test_margins_table():
    res = run("margins", "--clients", "8..64x2")
    assert res.exit_code == 0 and "slope" in res.stdout and "exact" in res.stdout
    assert "Margins" not in res.stdout and "Staircase" not in res.stdout      # no class names in headers


def test_digits_json():
    res = run("digits", "--chain", "a2", "--radix", "3", "--layers", "4", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    assert [(r["layer"], r["violations"], r["points"]) for r in rows] == [
        (1, 0, 6561), (2, 972, 6561), (3, 972, 6561), (4, 972, 6561)]


def test_payload_json():
    res = run("payload", "--radix", "3", "--layers", "4", "--clients", "1000", "--stages", "4,3/2,1",
              "--carry", "1/1000", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    # Table I: 19.02 and 22.19 bit per dimension, upper bounds rounded up
    bits = data["psa_bits_per_dimension"], data["flat_bits_per_dimension"]
    assert [safe_decimal(Fraction(b["value"]), 4) for b in bits] == ["19.02", "22.19"]
    assert {b["direction"] for b in bits} == {"upper bound"}


@pytest.mark.parametrize("verb, args", [("converse", ["--clients", "1000", "--margin", "4"]),
                                        ("rules", ["--clients", "1000"]),
                                        ("distortion", ["--finest", "2", "--samples", "2000"])])
def test_other_verbs_run(verb, args):
    res = run(verb, *args)
    assert res.exit_code == 0, res.output
    assert json.loads(run(verb, *args, "--json").stdout)["schema_version"] == SCHEMA_VERSION


@pytest.mark.parametrize("args", [
    ["margins", "--clients", "8", "--radix", "4"],
    ["margins", "--clients", "8", "--layers", "0"],
    ["margins", "--clients", "0"],
    ["margins", "--clients", "8", "--carry", "1"],
    ["margins", "--clients", "8", "--carry", "abc"],
    ["margins", "--clients", "8", "--law", "1/2,1/3"],
    ["margins", "--clients", "100000", "--arithmetic", "exact", "--layers", "4"],
    ["margins", "--clients", "100000", "--method", "exact"],
    ["payload", "--clients", "1000", "--stages", "4,2/3,1"],
    ["digits", "--chain", "e8"],
])
def test_bad_input_is_one_line_and_exit_2(args):
    res = CliRunner().invoke(cli, ["modular", *args])
    assert res.exit_code == 2, res.output
    assert res.stderr.count("error:") == 1 and "Traceback" not in res.stderr and res.stdout == ""


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
    keys = [c["key"] for c in json.loads(res.stdout)["checks"]]
    assert "table1-psa" in keys and "fig1a-staircase" in keys
