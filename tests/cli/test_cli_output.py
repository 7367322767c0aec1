"""Command-line output a script or a new user relies on: version, JSON schema, piped text."""

import json
import re
import subprocess
import sys
from fractions import Fraction

import pytest

from itsa._util.schema import SCHEMA_VERSION


def test_version_and_python_dash_m(cli):
    res = cli("--version")
    assert res.exit_code == 0 and res.stdout.startswith("itsa, version ")
    out = subprocess.run([sys.executable, "-m", "itsa", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == res.stdout


@pytest.mark.parametrize("args", [
    ("analyze", "example-1", "--json"),
    ("analyze", "example-1", "--json", "--detail"),
    ("build", "example-1", "--field", "7", "--json"),
    ("verify", "example-1", "--scheme", "example-1.scheme.json", "--json"),
    ("examples", "--json"),
    ("converse", "example-1", "--json"),
    ("examples", "--homogeneous", "3,2,1", "--json"),
])
def test_every_json_object_has_a_schema_version(cli, args):
    """Stamped once, first, at the top: no nested result carries one of its own."""
    d = json.loads(cli(*args).stdout)
    assert next(iter(d)) == "schema_version" and d["schema_version"] == SCHEMA_VERSION
    assert _stamps(d) == 1


def _stamps(value) -> int:
    """How many objects in ``value`` have a ``schema_version`` key."""
    if isinstance(value, dict):
        return ("schema_version" in value) + sum(map(_stamps, value.values()))
    if isinstance(value, list):
        return sum(map(_stamps, value))
    return 0


def test_census_report_json_has_a_schema_version(cli, tmp_path):
    from tests.conftest import ROOT

    res = cli("census", "report", ROOT / "data" / "census-U3-K3-solve.parquet", "-o", tmp_path, "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["schema_version"] == SCHEMA_VERSION and d["summary"]


def test_draw_json(cli, tmp_path):
    res = cli("draw", "example-1", "-o", tmp_path / "x.svg", "--config", "1,4,16", "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["configuration"] == [1, 4, 16] and d["default"] is False and d["format"] == "svg"
    assert (tmp_path / "x.svg").stat().st_size > 0


def test_enum_budget_accepts_scientific_notation(cli):
    ok = cli("verify", "example-1", "--scheme", "example-1.scheme.json", "--field", "3",
             "--engine", "enumerate", "--enum-budget", "2e10")
    assert ok.exit_code == 0, ok.output
    small = cli("verify", "example-1", "--scheme", "example-1.scheme.json", "--field", "3",
                "--engine", "enumerate", "--enum-budget", "1e3")
    assert small.exit_code == 2 and "budget" in small.stderr
    bad = cli("verify", "example-1", "--enum-budget", "2.5")
    assert bad.exit_code == 2 and "whole number" in bad.stderr


def test_analyze_names_the_e_star_configuration_and_critical(cli):
    res = cli("analyze", "example-2")
    assert "attained first at (u,m,n) = (1,2,5)" in res.stdout
    assert "8 with |A_(u,m,n)| = |S̄|" in res.stdout
    assert "degenerate" in res.stdout                     # the LP table's note on duals
    d = json.loads(cli("analyze", "example-2", "--json").stdout)
    assert d["e_star_configuration"] == [1, 2, 5] and d["critical_configurations"] == 8


def test_piped_output_does_not_wrap_paths(cli, tmp_path):
    deep = tmp_path / ("a-rather-long-directory-name-" * 4) / "out"
    res = cli("audit", "audit/fractional-optimum", "-o", deep)
    assert res.exit_code == 0
    assert re.search(rf"schemes saved under +{re.escape(str(deep))}/", res.stdout), res.stdout
    # the corrected bound (1) leaves a gap to 3/2, which the certified keys converse closes
    assert re.search(r"findings +none: the printed claims agree", res.stdout), res.stdout
    assert "certified keys converse 3/2 meets the best verified scheme" in res.stdout
    for text in ("None", "verified: None", "{'"):
        assert text not in res.stdout


def test_no_finding_names_an_open_gap():
    import dataclasses

    from itsa import audit, examples
    from itsa.keys.auditor import no_finding_text
    a = audit(examples.load("audit/fractional-optimum"))
    assert a.lower_bound == Fraction(3, 2)
    without = dataclasses.replace(a, converse=None)          # only the corrected bound: 1
    assert no_finding_text(without).startswith("none, but a gap is open: the optimum lies in [1, 3/2]")


def test_audit_text_has_no_python_reprs(cli, tmp_path):
    res = cli("audit", "homogeneous-U3-V2-t1", "-o", tmp_path / "o")
    assert res.exit_code == 0
    assert "U = 3, V = 2, t = 1" in res.stdout          # the published optimum's parameters
    for text in ("{'", "None", "[(", "(4, 1)"):
        assert text not in res.stdout


def test_no_saved_line_when_nothing_saved(cli, tmp_path):
    # every input colluding and nothing to protect: nothing the audit would save but the search's
    res = cli("audit", "audit/overlap-S-inside-T", "-o", tmp_path / "o")
    assert res.exit_code == 0
    saved = any((tmp_path / "o").glob("*.json")) if (tmp_path / "o").exists() else False
    assert ("schemes saved under" in res.stdout) == saved


@pytest.mark.parametrize("verb", ["audit", "solve"])
def test_results_holding_converse_bounds_are_stamped_once(cli, tmp_path, verb):
    """The audit's converse and the solution's converses are results too: none stamps itself."""
    res = cli(verb, "audit/fractional-optimum", "--json", "-o", tmp_path / verb)
    assert res.exit_code == 0, res.stderr
    d = json.loads(res.stdout)
    assert _stamps(d) == 1 and (d.get("converse_lower") or d.get("converses"))
